"""Contract breaks of the command line: standard output that cannot be written, ASCII
locales, option ranges that match the file formats, and output names without a format.

Standard output on ``/dev/full`` or closed (``>&-``) is one line and exit status 2 for
every command (as a failed ``-o`` write); an ASCII locale never crashes help or tables.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vcsched.cli import main

ROOT = Path(__file__).resolve().parents[2]
SWF = "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n"


def _cli(argv, *, stdout=subprocess.PIPE, env_extra=None, cwd=None, closed=False):
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env_extra or {}))
    cmd = [sys.executable, "-m", "vcsched.cli", *argv]
    if closed:  # the shell's `>&-`: descriptor 1 closed in the child
        cmd = ["sh", "-c", 'exec "$@" >&-', "sh", *cmd]
    return subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, env=env, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    (d / "vc.json").write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.3}] * 3}))
    (d / "m.json").write_text(json.dumps({"m": 2, "tasks": [{"weight": 1, "times": [2, 1.5]}] * 3}))
    (d / "t.swf").write_text("; MaxProcs: 4\n" + SWF)
    return d


COMMANDS = [
    ["vc", "solve", "{d}/vc.json", "--method", "mcb8", "--json"],
    ["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5"],
    ["grid", "simulate", "--trace", "{d}/t.swf"],
    ["moldable", "solve", "{d}/m.json", "--method", "gang"],
    ["timeshare", "simulate", "--scenario", "b", "--heuristic", "mct", "--json"],
    ["diet", "simulate", "--experiment", "bursty", "--approach", "task-scheduler", "--limit", "5"],
    ["bench", "list"],
]
FULL = "vcsched: error: cannot write to standard output (No space left on device); redirect it to a writable file\n"


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_stdout_on_dev_full_is_one_line_exit_2(inputs, argv, monkeypatch, capsys):
    with open("/dev/full", "w") as full:
        monkeypatch.setattr(sys, "stdout", full)
        code = main([a.format(d=inputs) for a in argv])
        monkeypatch.undo()
    assert code == 2
    assert capsys.readouterr().err == FULL


def test_help_on_dev_full_in_a_process(inputs):
    # the whole process: nothing more on stderr at exit (the interpreter's last flush goes nowhere)
    with open("/dev/full", "w") as full:
        done = _cli(["vc", "--help"], stdout=full)
    assert done.returncode == 2 and done.stderr.decode() == FULL


@pytest.mark.parametrize("argv", [COMMANDS[0], ["vc", "--help"]], ids=["vc solve", "help"])
def test_stdout_closed_is_one_line_exit_2(inputs, argv):
    done = _cli([a.format(d=inputs) for a in argv], stdout=None, closed=True)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1 and "standard output (it is closed)" in err, err


def test_closed_stdout_is_fine_when_nothing_is_printed(tmp_path):
    out = tmp_path / "g.json"
    done = _cli(["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "-o", str(out)], stdout=None,
                closed=True)
    assert done.returncode == 0 and done.stderr == b"" and json.loads(out.read_text())["hosts"] == 2


ASCII = {"PYTHONIOENCODING": "ascii"}
C_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}


@pytest.mark.parametrize("env", [ASCII, C_LOCALE], ids=["PYTHONIOENCODING=ascii", "C locale"])
def test_ascii_locale_help(env):
    done = _cli(["vc", "--help"], env_extra=env)
    assert done.returncode == 0 and done.stderr == b""
    assert b"seed 001 ?4.1" in done.stdout  # the section sign, which the encoding lacks


def test_ascii_locale_table_with_non_ascii_names(tmp_path):
    platform = tmp_path / "p.json"
    platform.write_text(json.dumps({"clusters": [{"name": "clust\u00e9r-\u00fc", "procs": 4,
                                                  "trace": str(tmp_path / "t.swf")}]}), encoding="utf-8")
    (tmp_path / "t.swf").write_text("; MaxProcs: 4\n" + SWF)
    done = _cli(["grid", "simulate", "--platform", str(platform)], env_extra=ASCII)
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()
    assert b"clust?r-?" in done.stdout


def test_grid_output_without_suffix_is_refused_up_front(tmp_path, capsys, inputs):
    target = tmp_path / "jobs"
    code = main(["grid", "simulate", "--trace", str(inputs / "t.swf"), "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"-o {target}: no suffix; name the format by the suffix: .csv, .parquet or .pq" in err
    assert list(tmp_path.iterdir()) == []


def test_vc_generate_mean_cpu_matches_the_file_format(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "--mean-cpu", "1e-12"])
    assert "argument --mean-cpu: expected a number > 1e-09 and <= 1" in capsys.readouterr().err
    out = tmp_path / "g.json"
    assert main(["vc", "generate", "--hosts", "2", "--jobs", "40", "--slack", "0.5", "--mean-cpu", "2e-9",
                 "--cv-cpu", "0.4", "-o", str(out)]) == 0
    assert min(j["cpu"] for j in json.loads(out.read_text())["jobs"]) >= 1e-9
    assert main(["vc", "solve", str(out), "--method", "mcb8"]) == 0  # what the generator writes, solve reads


def test_certify_gap_takes_its_documented_range(capsys, inputs):
    assert main(["vc", "solve", str(inputs / "vc.json"), "--method", "certify", "--gap", "1", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["status"] in ("optimal", "feasible") and row["min_yield"] > 0
    with pytest.raises(SystemExit):
        main(["vc", "solve", str(inputs / "vc.json"), "--method", "certify", "--gap", "1.5"])
    assert "argument --gap: expected a number >= 0 and <= 1" in capsys.readouterr().err
