"""``vcsched grid bound`` and ``grid simulate --bound``: JSON layout, values against brute force, bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lowerbounds.batch import METHODS
from lowerbounds.batch.instance import BatchInstance
from tests.grid.batch_oracle import brute_force
from vcsched.cli import main
from vcsched.cli.grid_bound import BOUND_METHODS
from vcsched.sim.output import JOBS_COLUMNS

LINE = "{id} {submit} 0 {run} {procs} -1 -1 {procs} {req} -1 1 1 1 1 1 1 -1 -1"
JOBS = ((1, 0, 10, 2, 20), (2, 0, 5, 4, 5), (3, 1, 3, 1, -1), (4, 2, 8, 3, 4), (5, 3, 2, 2, 2))
METRIC_NAMES = ["makespan", "mean_response", "mean_bounded_slowdown", "max_stretch"]


def trace(tmp_path, jobs=JOBS, name="t.swf"):
    path = tmp_path / name
    path.write_text("; MaxProcs: 4\n" + "".join(LINE.format(id=i, submit=s, run=r, procs=p, req=q) + "\n"
                                                 for i, s, r, p, q in jobs))
    return path


def _optimum():
    # the jobs as the simulator runs them: min(run, requested) (job 4 is killed at its 4 s walltime)
    submit = [s for _, s, _, _, _ in JOBS]
    run = [min(r, q) if q >= 0 else r for _, _, r, _, q in JOBS]
    procs = [p for _, _, _, p, _ in JOBS]
    return brute_force(BatchInstance.from_arrays(submit, procs, np.array(run, dtype=float)[:, None], [4]))


def test_method_names_match_the_library():
    assert BOUND_METHODS == METHODS


def test_grid_bound_json_exact(tmp_path, capsys):
    assert main(["grid", "bound", "--trace", str(trace(tmp_path)), "--method", "exact", "--json",
                 "--time-limit", "20"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["jobs"] == 5 and list(out["bounds"]) == METRIC_NAMES
    best = _optimum()
    for name, entry in out["bounds"].items():
        assert set(entry) >= {"value", "method", "seconds"}
        assert entry["value"] <= best[name] + 1e-6
    ex = out["exact"]
    assert ex["status"] == "optimal" and ex["mean_response"] == pytest.approx(best["mean_response"])
    assert ex["makespan"] == pytest.approx(best["makespan"]) and ex["gap"] <= 1e-4
    assert ex["bound"] == pytest.approx(ex["mean_response"], rel=1e-4) and len(ex["schedule"]) == 5
    assert sorted(e["job_id"] for e in ex["schedule"]) == ["1", "2", "3", "4", "5"]
    assert all(e["finish"] >= e["start"] for e in ex["schedule"])
    # five jobs: the enumeration proves every metric's optimum, on both sides
    for name, entry in out["bounds"].items():
        assert entry["value"] == pytest.approx(best[name], rel=1e-12) and entry["method"] == "exhaustive"
        assert entry["upper"]["value"] == pytest.approx(best[name], rel=1e-12) and entry["status"] == "optimal"


def test_grid_bound_text_and_quick(tmp_path, capsys):
    assert main(["grid", "bound", "--trace", str(trace(tmp_path)), "--method", "quick"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "5 jobs" and "mean_bounded_slowdown" in text and "exact" not in text


def test_simulate_with_bound(tmp_path, capsys):
    assert main(["grid", "simulate", "--trace", str(trace(tmp_path)), "--policy", "easy", "--json", "--bound",
                 "--bound-method", "lp", "--bound-time-limit", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    for name in METRIC_NAMES:
        entry = out["bounds"][name]
        assert entry["ratio_to_bound"] == pytest.approx(entry["value"] / entry["bound"])
        assert entry["ratio_to_bound"] >= 1 - 1e-9
    assert out["bounds"]["mean_response"]["value"] == out["overall"]["mean_response"]
    assert main(["grid", "simulate", "--trace", str(trace(tmp_path)), "--bound", "--bound-method", "quick"]) == 0
    header = [line for line in capsys.readouterr().out.splitlines() if line.startswith("metric")]
    assert header and header[0].split()[:4] == ["metric", "value", "bound", "ratio_to_bound"]


def _error(capsys, argv) -> str:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_bad_input_is_one_line(tmp_path, capsys):
    many = tuple((i, i, 5, 1, 5) for i in range(1, 60))
    big = trace(tmp_path, many, "big.swf")
    assert "at most 40 jobs" in _error(capsys, ["grid", "bound", "--trace", str(big), "--method", "exact"])
    assert "--method" in _error(capsys, ["grid", "bound", "--trace", str(big), "--method", "magic"])
    assert "--time-limit" in _error(capsys, ["grid", "bound", "--trace", str(big), "--time-limit", "-1"])
    assert "nope.swf" in _error(capsys, ["grid", "bound", "--trace", str(tmp_path / "nope.swf")])
    assert "--heterogeneous" in _error(capsys, ["grid", "bound", "--trace", str(big), "--heterogeneous"])


def test_grid_bound_brackets_the_optimum_and_writes_schedules(tmp_path, capsys):
    folder = tmp_path / "best"
    assert main(["grid", "bound", "--trace", str(trace(tmp_path)), "--method", "lp", "--time-limit", "10", "--json",
                 "--schedule", str(folder)]) == 0
    out = json.loads(capsys.readouterr().out)
    best = _optimum()
    for name in METRIC_NAMES:
        entry = out["bounds"][name]
        lo, up = entry["lower"], entry["upper"]
        assert set(lo) >= {"value", "method", "seconds"} and set(up) >= {"value", "method", "seconds"}
        assert lo["value"] == entry["value"] and lo["method"] == entry["method"]  # the old fields: the lower bound
        assert lo["value"] <= best[name] + 1e-6 <= up["value"] + 2e-6
        assert entry["status"] in ("optimal", "bracketed")
        rows = pd.read_csv(folder / f"{name}.csv")
        assert list(rows.columns) == JOBS_COLUMNS and len(rows) == 5
        response = (rows["finish_time"] - rows["submission_time"]).mean()
        if name == "mean_response":
            assert response == pytest.approx(up["value"])
    assert not list(folder.glob(".*"))  # no temporary file left


def test_simulate_bound_reports_the_ratio_to_the_optimum(tmp_path, capsys):
    assert main(["grid", "simulate", "--trace", str(trace(tmp_path)), "--policy", "fcfs", "--json", "--bound",
                 "--bound-method", "quick"]) == 0
    out = json.loads(capsys.readouterr().out)
    for name in METRIC_NAMES:
        e = out["bounds"][name]
        lo, hi = e["ratio_to_opt"]
        assert lo == pytest.approx(e["value"] / e["upper"]) and hi == pytest.approx(e["ratio_to_bound"])
        assert 1 - 1e-9 <= lo <= hi  # the simulated schedule itself is a candidate upper end
    assert main(["grid", "simulate", "--trace", str(trace(tmp_path)), "--bound", "--bound-method", "quick"]) == 0
    header = [line for line in capsys.readouterr().out.splitlines() if line.startswith("metric")]
    assert {"opt_ratio_low", "opt_ratio_high", "upper"} <= set(header[-1].split())


def test_unwritable_schedule_folder_is_refused_first(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    err = _error(capsys, ["grid", "bound", "--trace", str(tmp_path / "nope.swf"), "--schedule", str(blocker)])
    assert "--schedule" in err  # refused before the (missing) trace is read
    assert "--schedule" in _error(capsys, ["grid", "bound", "--trace", str(trace(tmp_path)), "--schedule",
                                           str(blocker / "sub")])


def test_interrupt_prints_what_was_found_and_writes_no_file(tmp_path, capsys, monkeypatch):
    import lowerbounds.batch.clairvoyant as cv

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cv, "_list_search", interrupt)
    quick, searched = tmp_path / "quick", tmp_path / "searched"
    more = JOBS + ((6, 4, 6, 1, -1), (7, 4, 3, 2, -1), (8, 5, 9, 3, -1))  # too many jobs to enumerate: a search runs
    argv = ["grid", "bound", "--trace", str(trace(tmp_path, more)), "--json", "--time-limit", "5", "--iterations", "3"]
    assert main(argv + ["--method", "quick", "--schedule", str(quick)]) == 0  # quick runs no search
    assert sorted(p.name for p in quick.iterdir()) == sorted(f"{m}.csv" for m in METRIC_NAMES)
    capsys.readouterr()
    assert main(argv + ["--method", "lp", "--schedule", str(searched)]) == 130
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert "interrupted" in captured.err and captured.err.count("\n") == 1
    assert "interrupted" in {e["upper"].get("stopped") for e in out["bounds"].values()}
    assert list(searched.iterdir()) == []


def test_window_busiest_keeps_the_window_of_largest_offered_work(tmp_path, capsys):
    # a light first day, a busy second one (work 4 x 1000 at t = 100,000), a light third one
    jobs = ((1, 0, 10, 1, -1), (2, 50, 10, 1, -1), (3, 100_000, 1000, 4, -1), (4, 100_010, 500, 2, -1),
            (5, 200_000, 10, 1, -1))
    path = trace(tmp_path, jobs)
    assert main(["grid", "bound", "--trace", str(path), "--method", "quick", "--window", "busiest", "--days", "1",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["window"] == {"start": 100_000.0, "days": 1.0} and out["jobs"] == 2
    assert main(["grid", "bound", "--trace", str(path), "--window", "busiest", "--start", "5"]) == 2
    assert "drop --start" in capsys.readouterr().err
