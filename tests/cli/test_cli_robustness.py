"""Hostile input to ``vc``, ``moldable``, ``timeshare`` and ``diet``.

Every case exits with status 2 and one line on standard error that names the
option or the file and the problem: no traceback, no hang, no memory blow-up
(every refusal happens before any work, so these run in-process in
milliseconds). Cases where working is the right answer check the result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vcsched.cli import main
from vcsched.errors import InvalidInputError

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(code, err, fragment):
    assert code == 2, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    assert fragment in err, err


def small_vc(tmp_path, **extra) -> str:
    path = tmp_path / "f.json"
    doc = {"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.3}, {"cpu": 0.7, "mem": 0.2}, {"cpu": 0.4, "mem": 0.4}]}
    doc.update(extra)
    path.write_text(json.dumps(doc))
    return str(path)


# --------------------------------------------------------------------------- options

GEN = ["vc", "generate", "--hosts", "4", "--jobs", "8", "--slack", "0.5"]
ADAPT = ["vc", "adapt", "--hosts", "4", "--mean-lifetime", "10", "--policy", "none", "--budget", "0"]
DIET = ["diet", "simulate", "--experiment", "bursty", "--approach", "task-scheduler"]
TS = ["timeshare", "simulate", "--scenario", "b", "--heuristic", "mct"]


@pytest.mark.parametrize("argv, fragment", [
    (["vc", "generate", "--hosts", "4", "--jobs", "10000000", "--slack", "0.5"], "argument --jobs"),
    (["vc", "generate", "--hosts", "1000000000", "--jobs", "8", "--slack", "0.5"], "argument --hosts"),
    (GEN + ["--cv-cpu", "1e308"], "argument --cv-cpu: expected a number >= 0 and <= 10"),
    (GEN + ["--cv-mem", "1e6"], "argument --cv-mem"),
    (GEN + ["--cv-mem", "nan"], "argument --cv-mem"),
    (GEN + ["--mean-cpu", "0"], "argument --mean-cpu"),
    (GEN + ["--seed", "-1"], "argument --seed"),
    (["vc", "generate", "--hosts", "4", "--jobs", "8", "--slack", "1"], "argument --slack"),
    (["vc", "generate", "--hosts", "64", "--jobs", "100000", "--slack", "0.5", "--tasks", "lublin"],
     "tasks in all is more than the limit of 1,000,000"),
    (["vc", "adapt", "--hosts", "1000000000", "--arrival-rate", "1", "--mean-lifetime", "10", "--duration", "10",
      "--policy", "none", "--budget", "0"], "argument --hosts"),
    (ADAPT + ["--arrival-rate", "100000", "--duration", "100"], "argument --arrival-rate"),
    (ADAPT + ["--arrival-rate", "1e308", "--duration", "100"], "argument --arrival-rate"),
    (ADAPT + ["--arrival-rate", "1", "--duration", "1e308"], "argument --duration"),
    (ADAPT + ["--arrival-rate", "1000", "--duration", "1000"], "expected arrivals, more than the limit of 20,000"),
    (ADAPT + ["--arrival-rate", "1", "--duration", "10", "--time-limit", "inf"], "argument --time-limit"),
    (["vc", "adapt", "--hosts", "4", "--arrival-rate", "1", "--mean-lifetime", "10", "--duration", "10",
      "--policy", "none", "--budget", "nan"], "argument --budget"),
    (["moldable", "generate", "--n", "10000000"], "argument --n"),
    (["moldable", "generate", "--n", "100000", "--m", "100000"], "processing times, more than the limit"),
    (["moldable", "generate", "--n", "5", "--m", "1e308"], "argument --m"),
    (TS + ["--mu", "1e308"], "argument --mu"),
    (TS + ["--mu", "0"], "argument --mu"),
    (TS + ["--noise", "inf"], "argument --noise"),
    (DIET + ["--interarrival", "inf"], "argument --interarrival"),
    (DIET + ["--task-latency", "inf"], "argument --task-latency"),
    (DIET + ["--win-adapt-factor", "1e308"], "argument --win-adapt-factor"),
    (["diet", "simulate", "--experiment", "steady", "--approach", "standard", "--duration", "1e308"], "argument --duration"),
    (DIET + ["--limit", "1e9"], "argument --limit"),
])
def test_out_of_range_options_are_refused_at_once(capsys, argv, fragment):
    code, out, err = run(capsys, argv)
    assert_refused(code, err, fragment)
    assert out == ""


@pytest.mark.parametrize("extra, fragment", [
    (["--eps", "1e-300"], "argument --eps"),
    (["--shuffles", "1000000000"], "argument --shuffles"),
    (["--seed", "1.5"], "argument --seed"),
])
def test_moldable_solve_options(tmp_path, capsys, extra, fragment):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"m": 2, "tasks": [{"weight": 1, "times": [2, 1.5]}, {"weight": 2, "times": [1, 1]}]}))
    code, _, err = run(capsys, ["moldable", "solve", str(path)] + extra)
    assert_refused(code, err, fragment)


def test_moldable_bound_ratio_close_to_one_is_refused_before_building(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"m": 2, "tasks": [{"weight": 1, "times": [2, 1.5]}, {"weight": 2, "times": [1, 1]}]}))
    code, _, err = run(capsys, ["moldable", "bound", str(path), "--ratio", "1.0000001"])
    assert_refused(code, err, "--ratio 1.0000001: the interval model could have")
    code, out, _ = run(capsys, ["moldable", "bound", str(path), "--ratio", "1.5", "--json"])
    assert code == 0 and json.loads(out)["minsum_lb"] > 0


# --------------------------------------------------------------------------- output paths

OUTPUT_CASES = [("/nonexistent/x.json", "folder /nonexistent does not exist"), (None, "is a directory")] + (
    [("/dev/full", "cannot write (No space left on device)")] if os.path.exists("/dev/full") else [])


@pytest.mark.parametrize("target, fragment", OUTPUT_CASES)
@pytest.mark.parametrize("argv, option", [
    (GEN + ["-o"], "-o"),
    (["moldable", "generate", "--n", "3", "-o"], "-o"),
    (["vc", "adapt", "--hosts", "2", "--arrival-rate", "0.2", "--mean-lifetime", "5", "--duration", "10",
      "--policy", "none", "--budget", "0", "--events-csv"], "--events-csv"),
])
def test_bad_output_paths(tmp_path, capsys, argv, option, target, fragment):
    target = str(tmp_path) if target is None else target
    code, out, err = run(capsys, argv + [target])
    assert_refused(code, err, f"{option} {target}: {fragment}")


def test_outputs_are_written_when_the_path_is_good(tmp_path, capsys):
    out = tmp_path / "g.json"
    assert run(capsys, GEN + ["--cv-cpu", "10", "--cv-mem", "10", "-o", str(out)])[0] == 0
    doc = json.loads(out.read_text())
    assert len(doc["jobs"]) == 8 and all(0 < j["cpu"] <= 1 and 0 < j["mem"] <= 1 for j in doc["jobs"])
    csv = tmp_path / "events.csv"
    code, _, err = run(capsys, ["vc", "adapt", "--hosts", "2", "--arrival-rate", "0.2", "--mean-lifetime", "5",
                                "--duration", "20", "--policy", "none", "--budget", "0", "--events-csv", str(csv)])
    assert code == 0, err
    assert csv.read_text().splitlines()[0].startswith("time")
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".vcsched-")]  # no temporary file left


# --------------------------------------------------------------------------- instance files

BIG = "9" * 400


@pytest.mark.parametrize("content, fragment", [
    ('{"hosts": 1e308, "jobs": [{"cpu": 0.5, "mem": 0.5}]}', "field 'hosts' must be >= 1 and <= 100000, got 1e+308"),
    ('{"hosts": ' + BIG + ', "jobs": [{"cpu": 0.5, "mem": 0.5}]}', "field 'hosts' must be >= 1 and <= 100000"),
    ('{"hosts": 2, "jobs": [{"cpu": 5e-324, "mem": 0.5}]}', "job 0: field 'cpu' must be >= 1e-09 and <= 1"),
    ('{"hosts": 1000000000, "jobs": [{"cpu": 0.5, "mem": 0.5}]}', "field 'hosts' must be >= 1 and <= 100000"),
    ('{"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.5, "tasks": 1000000000}]}', "job 0: field 'tasks'"),
    ('{"hosts": 2000, "jobs": [{"cpu": 0.5, "mem": 0.001, "tasks": 600000}]}', "is more than the limit of 1,000,000,000"),
    ('{"hosts": 2, "jobs": [{"cpu": 0.5, "mme": 0.5}]}', "unknown field 'mme' (did you mean 'mem'?)"),
    ('{"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.5}], "migration_bugdet": 1}',
     "unknown field 'migration_bugdet' (did you mean 'migration_budget'?)"),
    ('{"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.5, "current_host": 7}]}', "field 'current_host' must be >= 0 and <= 1"),
])
def test_bad_vc_instances(tmp_path, capsys, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content)
    for method in ("mcb8", "all"):
        code, out, err = run(capsys, ["vc", "solve", str(path), "--method", method])
        assert_refused(code, err, fragment)
        assert str(path) in err and out == ""


@pytest.mark.parametrize("content, fragment", [
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not a UTF-8 text file"),
    ('{"hosts": 2}'.encode("utf-16"), "not a UTF-8 text file"),
])
def test_binary_and_utf16_vc_files(tmp_path, capsys, content, fragment):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert_refused(*run(capsys, ["vc", "solve", str(path)])[::2], fragment)
    # a folder is an instance set: the bad file is one error row naming the problem, not the end of the run
    out = tmp_path / "set.csv"
    assert main(["vc", "solve", str(tmp_path), "--method", "mcb8", "-o", str(out), "--workers", "1"]) == 0
    import pandas

    row = pandas.read_csv(out).iloc[0]
    assert row["status"] == "error" and fragment in row["message"]


@pytest.mark.parametrize("content, fragment", [
    ('{"m": 1e308, "tasks": [{"weight": 1, "times": [1]}]}', "field 'm' must be >= 1 and <= 100000"),
    ('{"m": 2, "tasks": [{"weight": 1, "times": [1e308, 1]}]}', "entry 0 (p_i(1)): field 'times' must be >= 1e-09"),
    ('{"m": 2, "tasks": [{"weight": 1, "times": [1e-320, 1]}]}', "entry 0 (p_i(1)): field 'times' must be >= 1e-09"),
    ('{"m": 2, "tasks": [{"weight": 1e308, "times": [1, 1]}]}', "field 'weight' must be >= 1e-09 and <= 1e+12"),
    ('{"m": 2, "taks": []}', "unknown field 'taks' (did you mean 'tasks'?)"),
    ('{"m": 2, "tasks": [{"wieght": 1, "times": [1, 1]}]}', "unknown field 'wieght' (did you mean 'weight'?)"),
    ('{"m": 100000, "tasks": [' + ", ".join(['{"weight": 1, "times": [1]}'] * 201) + "]}",
     "processing times, more than the limit of 20,000,000"),
])
def test_bad_moldable_instances(tmp_path, capsys, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content)
    for command in ("solve", "bound"):
        assert_refused(*run(capsys, ["moldable", command, str(path)])[::2], fragment)


def test_exact_model_above_the_size_limit(tmp_path, capsys):
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({"hosts": 100000, "jobs": [{"cpu": 0.5, "mem": 0.5}] * 2}))
    assert_refused(*run(capsys, ["vc", "solve", str(path), "--method", "milp"])[::2],
                   "milp: the model would have 100,000 hosts x 2 jobs = 200,000 assignment variables")
    code, out, err = run(capsys, ["vc", "solve", str(path), "--method", "all", "--json"])
    assert code == 0
    rows = json.loads(out)
    names = [r["method"] for r in rows]
    assert "milp" not in names and "lp" not in names and "mcb8" in names
    assert "left out of --method all" in err and "Traceback" not in err
    assert all(r["status"] == "feasible" and r["min_yield"] == 1.0 for r in rows)


def test_smallest_cpu_need_works_with_every_method(tmp_path, capsys):
    from vcsched.problems.vc import Allocation, check_allocation, load_instance

    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 1e-9, "mem": 5e-324}, {"cpu": 1, "mem": 0.5},
                                                     {"cpu": 1e-9, "mem": 0}, {"cpu": 0.7, "mem": 1e-300, "tasks": 3}]}))
    code, out, err = run(capsys, ["vc", "solve", str(path), "--method", "all", "--json"])
    assert code == 0 and err == ""
    inst = load_instance(path)
    rows = json.loads(out)
    best = next(r for r in rows if r["method"] == "milp")
    assert best["status"] == "optimal"
    for r in rows:
        if r["method"] in ("milp", "lp"):
            continue
        assert r["status"] == "feasible", r
        flat_host = np.concatenate([np.atleast_1d(h) for h in r["assignment"]])
        flat_cpu = np.concatenate([np.atleast_1d(c) for c in r["cpu"]])
        report = check_allocation(inst, Allocation(flat_host.astype(np.int64), flat_cpu))
        assert report.valid and report.min_yield <= best["min_yield"] + 1e-9


# --------------------------------------------------------------------------- generator redraws


def test_truncated_normal_gives_up_instead_of_looping():
    from vcsched.generators.vc import truncated_normal

    with pytest.raises(InvalidInputError, match="use a smaller coefficient of variation"):
        truncated_normal(0.5, 1e6, 1000, np.random.default_rng(0))
    with pytest.raises(InvalidInputError, match="is not a finite number"):
        truncated_normal(0.5, 1e308 * 10, 10, np.random.default_rng(0))
    x = truncated_normal(0.5, 10.0, 10000, np.random.default_rng(0))  # the CLI's largest spread
    assert np.all((x > 0) & (x <= 1))


# --------------------------------------------------------------------------- main(): pipes and warnings


def _closed_after_first_line(argv: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "vcsched.cli", *argv], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read()
    proc.stderr.close()
    code = proc.wait(timeout=60)
    return subprocess.CompletedProcess(argv, code, first, err)


def test_broken_pipe_is_quiet(tmp_path):
    # output far larger than a pipe's buffer, so the writer meets the closed pipe
    done = _closed_after_first_line(["vc", "generate", "--hosts", "64", "--jobs", "20000", "--slack", "0.5"])
    assert done.stdout.startswith(b"{")
    assert done.returncode == 141 and done.stderr == b"", done.stderr.decode()


def test_broken_pipe_in_vc_solve_json(tmp_path):
    path = tmp_path / "big.json"
    jobs = [{"cpu": 0.5, "mem": 0.0001}] * 3000  # below MCB8's compiled fill (4,000 items): no numba load; 285 KB of JSON
    path.write_text(json.dumps({"hosts": 8, "jobs": jobs}))
    done = _closed_after_first_line(["vc", "solve", str(path), "--method", "sg,gr,mcb8", "--json"])
    assert done.stdout.startswith(b"[")
    assert done.returncode == 141 and b"Traceback" not in done.stderr and done.stderr == b""


def test_runtime_warnings_do_not_reach_stderr(monkeypatch, capsys):
    import vcsched.cli.timeshare as ts

    def noisy(args):
        np.float64(1.0) / np.float64(0.0)  # RuntimeWarning: divide by zero
        np.log(np.float64(0.0))
        return 0

    monkeypatch.setattr(ts, "cmd_simulate", noisy)
    monkeypatch.setattr(sys, "warnoptions", [])
    code, _, err = run(capsys, ["timeshare", "simulate", "--scenario", "b", "--heuristic", "mct"])
    assert code == 0 and err == ""
