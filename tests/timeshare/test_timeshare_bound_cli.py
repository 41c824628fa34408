"""``vcsched timeshare bound`` and ``vcsched timeshare simulate --tasks N --bound``."""

import json

import pytest

from vcsched.cli import main

METRICS = ["makespan", "sumflow", "maxflow", "maxstretch"]


def run(capsys, *argv):
    code = main(["timeshare", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bound_exact_json_gives_status_optimum_gap_and_mapping(capsys):
    code, out, _ = run(capsys, "bound", "--scenario", "b", "--seed", "1", "--tasks", "6", "--method", "exact",
                       "--json")
    assert code == 0
    obj = json.loads(out)
    assert list(obj) == METRICS
    for m in METRICS:
        d = obj[m]
        assert {"value", "method", "seconds", "status", "optimum", "bound", "gap", "mapping"} <= set(d)
        assert d["status"] == "optimal" and d["optimum"] == pytest.approx(d["value"]) and d["gap"] == 0
        assert len(d["mapping"]) == 6 and all(0 <= s < 4 for s in d["mapping"])


def test_bound_quick_and_lp_are_ordered(capsys):
    values = {}
    for method in ("quick", "lp"):
        code, out, _ = run(capsys, "bound", "--scenario", "b", "--seed", "2", "--tasks", "12", "--method", method,
                           "--time-limit", "4", "--json")
        assert code == 0
        values[method] = json.loads(out)
        for m in METRICS:
            d = values[method][m]
            assert {"value", "method", "seconds", "lower", "upper", "status"} <= set(d)
            assert d["lower"] == {"value": d["value"], "method": d["method"], "seconds": d["seconds"]}
            assert d["upper"]["value"] >= d["value"] * (1 - 1e-9)
            assert d["upper"]["method"] in ("local search", "local search, ruin and recreate")
            assert d["status"] == ("optimal" if d["upper"]["value"] <= d["value"] * (1 + 1e-4) else "bracketed")
    assert all(values["lp"][m]["value"] >= values["quick"][m]["value"] for m in METRICS)


def test_simulate_bound_adds_ratio_columns(capsys):
    code, out, _ = run(capsys, "simulate", "--scenario", "b", "--seed", "1", "--tasks", "8", "--heuristic", "all",
                       "--bound", "--json")
    assert code == 0
    rows = json.loads(out)
    for row in rows:
        assert row["completed"] == 8
        for m in METRICS:
            assert row[f"{m}_ratio_to_bound"] == pytest.approx(row[m] / row[f"{m}_bound"])
            lo, hi = row[f"{m}_ratio_to_opt"]
            assert lo == pytest.approx(row[m] / row[f"{m}_upper"]) and hi == pytest.approx(row[f"{m}_ratio_to_bound"])
            assert lo <= hi
            assert row[f"{m}_ratio_to_bound"] >= 1 - 1e-9
    code, out, _ = run(capsys, "simulate", "--scenario", "b", "--tasks", "8", "--heuristic", "mct", "--bound")
    assert code == 0 and "sumflow_ratio_to_bound" in out and "8 tasks" in out


def test_too_large_exact_says_so(capsys):
    code, out, _ = run(capsys, "bound", "--scenario", "b", "--tasks", "30", "--method", "exact", "--time-limit", "3")
    assert code == 0
    assert "too many for the exact search" in out and "too_large" in out


def test_dag_tasks_keep_parents(capsys):
    code, out, _ = run(capsys, "simulate", "--scenario", "f", "--tasks", "30", "--heuristic", "hmct", "--json")
    assert code == 0 and json.loads(out)["completed"] == 30


@pytest.mark.parametrize("argv, needle", [
    (["bound", "--scenario", "b", "--tasks", "501"], "--tasks"),
    (["bound", "--scenario", "b", "--tasks", "0"], "--tasks"),
    (["bound", "--scenario", "b", "--method", "milp"], "--method"),
    (["bound", "--scenario", "b", "--time-limit", "0"], "--time-limit"),
    (["simulate", "--scenario", "b", "--heuristic", "mct", "--noise", "0.1", "--runs", "2", "--bound"], "--bound"),
])
def test_bad_input_one_line_exit_2(capsys, argv, needle):
    with pytest.raises(SystemExit) as exc:
        code = main(["timeshare", *argv])
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1
