"""One line means one line (issue 39, cause 8): notes carry the ``vcsched: note:`` prefix, an
error is one ``vcsched: error:`` line even for a file name with a line break or bytes that are not
UTF-8."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import cli_error
from vcsched.cli import main


def stderr_lines(err: str) -> list[str]:
    lines = err.splitlines()
    assert all(line.startswith(("vcsched: note: ", "vcsched: error: ")) for line in lines), lines
    assert sum(line.startswith("vcsched: error: ") for line in lines) <= 1, lines
    return lines


def test_skipped_malformed_lines_are_a_note(tmp_path, capsys):
    trace = tmp_path / "allbad.swf"
    trace.write_text("1 2 3\nx y\nfoo\n")
    code = main(["grid", "simulate", "--trace", str(trace), "--skip-bad-lines", "--procs", "4"])
    lines = stderr_lines(capsys.readouterr().err)
    assert code == 2 and lines[0] == "vcsched: note: " + f"{trace}: skipped 3 malformed line(s)"


def test_a_file_name_with_a_line_break_stays_on_one_line(tmp_path, capsys):
    err = cli_error(capsys, ["vc", "solve", str(tmp_path / "a\nb.json")])
    assert "a\\nb.json" in err


def test_adapt_exact_estimate_is_a_note():
    from vcsched.cli.vc import adapt_exact_estimate
    from vcsched.scenarios.vc_dynamic import poisson_workload

    workload = poisson_workload(2, 1.0, 1.0, 3.0, slack=0.5, rng=0)
    assert adapt_exact_estimate(workload, 3.0, 1.0).startswith("vcsched: note: vc adapt: policy exact")


def test_bench_out_name_that_is_not_utf8_is_one_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "LC_ALL": "C.UTF-8"}
    proc = subprocess.run([sys.executable, "-m", "vcsched.cli", "bench", "run", "vc-small", "--quick", "--workers", "1",
                           "--out", os.fsdecode(b"o\xff")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          errors="replace", timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert stderr_lines(proc.stderr) == [proc.stderr.strip()] and "not UTF-8 text" in proc.stderr
    assert os.listdir(tmp_path) == []
