"""An interrupt during ``timeshare bound`` or ``diet bound`` keeps what was proven: the brackets proven before it
are printed, the metrics it cut short are marked interrupted, the command exits 130 with one line on standard
error (the interrupt is raised where the signal would land, as in test_cli_late_signals)."""

from __future__ import annotations

import json

import pytest

import lowerbounds.diet.bounds as diet_bounds
import lowerbounds.diet.references as diet_refs
import lowerbounds.timeshare.bounds as ts_bounds
from lowerbounds.timeshare.types import TaskCosts
from vcsched.cli import main


def _json(capsys):
    out = capsys.readouterr()
    return json.loads(out.out), out.err


def _interrupt_on_call(real, when: int):
    calls = {"n": 0}

    def wrapped(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == when:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    return wrapped


TS = ["timeshare", "bound", "--scenario", "b", "--tasks", "20", "--seed", "1", "--method", "lp", "--time-limit", "4",
      "--json"]


def test_timeshare_interrupt_while_the_pair_window_widens_keeps_the_narrower_window(capsys, monkeypatch):
    from vcsched.scenarios.timeshare import build

    first = {}

    def pair(*args, **kwargs):
        if first:
            raise KeyboardInterrupt  # the second window: the signal lands while it widens
        first["value"] = real(*args, **kwargs)
        return first["value"]

    real = ts_bounds.sumflow_pair_bound
    monkeypatch.setattr(ts_bounds, "sumflow_pair_bound", pair)
    backlog = []  # the backlog bound's runs come before the widening: what they proved stands too

    def recorded(*args, **kwargs):
        # the runs (and the widening after them) are chosen by work; their safety deadline, 60 s of wall clock,
        # could pass on a loaded machine, and a run it stops gives up the widening: no deadline here
        backlog.append(real_backlog(*args, **dict(kwargs, deadline=None)))
        return backlog[-1]

    real_backlog = ts_bounds.sumflow_backlog_bound
    monkeypatch.setattr(ts_bounds, "sumflow_backlog_bound", recorded)
    assert main([a for a in TS if a not in ("--time-limit", "4")]) == 130  # 60 s: work enough to widen
    refs, err = _json(capsys)
    assert err.count("\n") == 1 and err.startswith("interrupted")
    inst = build("b", seed=1, tasks=20)
    quick = ts_bounds.quick_bounds(TaskCosts.of(inst.platform, inst.workload, inst.work_factor))
    proven = max([first["value"], quick["sumflow"]] + [v for v in backlog if v is not None])
    assert refs["sumflow"]["lower"]["value"] == pytest.approx(proven)
    for m, r in refs.items():
        assert r["interrupted"] and r["upper"] is None and r["lower"]["value"] >= quick[m] * (1 - 1e-12)


def test_timeshare_interrupt_in_an_lp_keeps_the_metrics_done(capsys, monkeypatch):
    monkeypatch.setitem(ts_bounds.LP_BOUNDS, "maxflow", _interrupt_on_call(ts_bounds.maxflow_lp_bound, 1))
    assert main(TS) == 130
    refs, err = _json(capsys)
    assert "interrupted" in err
    assert "interrupted" not in refs["makespan"] and "interrupted" not in refs["sumflow"]
    assert refs["maxflow"]["interrupted"] and refs["maxstretch"]["interrupted"]
    assert refs["maxflow"]["lower"]["method"] in ("quick", "pairs")
    assert all(r["upper"] is None for r in refs.values())  # no search after an interrupt


def test_timeshare_text_output_marks_the_interrupted_metrics(capsys, monkeypatch):
    monkeypatch.setitem(ts_bounds.LP_BOUNDS, "sumflow", _interrupt_on_call(ts_bounds.sumflow_lp_bound, 1))
    assert main(TS[:-1]) == 130
    out = capsys.readouterr()
    assert "sumflow: interrupted: the bound proven before the interrupt" in out.out
    assert "makespan:" not in out.out and out.err.count("\n") == 1


DIET = ["diet", "bound", "--experiment", "add-seds", "--method", "best", "--time-limit", "2", "--json"]


def test_diet_interrupt_in_the_lp_keeps_the_quick_bounds(capsys, monkeypatch):
    monkeypatch.setattr(diet_bounds, "lp_bounds", _interrupt_on_call(diet_bounds.lp_bounds, 1))
    assert main(DIET) == 130
    out, err = _json(capsys)
    assert err.count("\n") == 1 and "interrupted" in err
    for m, r in out["metrics"].items():
        assert r["interrupted"] and r["method"] == "quick" and r["status"] == "bound"
        found = r["lower"]["value"] if m == "throughput" else r["upper"]
        assert found is None  # no search ran
        assert (r["upper"] if m == "throughput" else r["lower"])["value"] == r["value"]


def test_diet_interrupt_in_the_second_search_keeps_the_first(capsys, monkeypatch):
    monkeypatch.setattr(diet_refs, "best_placement", _interrupt_on_call(diet_refs.best_placement, 2))
    assert main(DIET) == 130
    out, _ = _json(capsys)
    metrics = out["metrics"]
    assert "interrupted" not in metrics["makespan"] and metrics["makespan"]["upper"] is not None
    assert metrics["mean_turnaround"]["interrupted"] and metrics["mean_turnaround"]["upper"] is None
    tp = metrics["throughput"]  # from the makespan's bracket, which was done
    assert tp["lower"]["value"] <= tp["upper"]["value"] and "interrupted" not in tp


def test_diet_interrupt_in_the_closed_loop_schedule_keeps_the_bounds(capsys, monkeypatch):
    import lowerbounds.diet.users as users

    monkeypatch.setattr(users, "closed_loop_schedule", _interrupt_on_call(users.closed_loop_schedule, 1))
    assert main(["diet", "bound", "--experiment", "steady", "--duration", "1800", "--method", "quick"]) == 130
    out = capsys.readouterr()
    assert out.out.count("interrupted: the bound proven before the interrupt") == 3
    assert out.err.count("\n") == 1


def test_diet_simulate_bound_stops_as_interrupted(capsys, monkeypatch):
    monkeypatch.setattr(diet_bounds, "lp_bounds", _interrupt_on_call(diet_bounds.lp_bounds, 1))
    assert main(["diet", "simulate", "--experiment", "bursty", "--approach", "standard", "--bound"]) == 130
    out = capsys.readouterr()
    assert out.out == "" and out.err == "vcsched: interrupted\n"
