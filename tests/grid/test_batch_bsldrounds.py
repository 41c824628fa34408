"""The bounded slowdown's own patience rule (lowerbounds.batch.clairvoyant._bsld_rounds): its list moves and windows
run again while the last step stops by patience with work left and the round before improved. Fake steps first
(plain Python, nothing compiled), then the real search on a small trace (kernels the other search tests compile)."""

from __future__ import annotations

import numpy as np
import pytest

import lowerbounds.batch.clairvoyant as C
from lowerbounds.batch._searchstep import Best, Limit
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics


class _Ev:
    """The work counter and schedule count a :class:`Limit` reads."""

    def __init__(self) -> None:
        self.work, self.count = 0, 0


def _fake_steps(monkeypatch, ev, gains, stops):
    """List moves and windows that each spend 10 units and lower the value by the next of ``gains`` (list, window,
    list, ...) and stop for the next of ``stops``; returns the log of the steps run."""
    log = []
    gains, stops = iter(gains), iter(stops)

    def step(name):
        def run(_ev, _m, best, _rng, limit, _patience, *_args):
            log.append(name)
            ev.work += 10
            assert ev.work <= limit.work_end + 10
            return Best(best.value - next(gains), "local search", name, None, None), next(stops)
        return run

    monkeypatch.setattr(C, "_list_search", step("list"))
    monkeypatch.setattr(C, "_windows", step("windows"))
    return log


def _run(ev, stopped, budget=1000):
    best = Best(100.0, "local search", "start", None, None)
    idle = {"list": 80, "lns": 40}
    return C._bsld_rounds(ev, "mean_bounded_slowdown", best, None, Limit(ev, budget, np.inf), idle, stopped)


def test_rounds_run_while_they_improve_then_stop(monkeypatch):
    ev = _Ev()
    log = _fake_steps(monkeypatch, ev, [1.0, 0.5, 0.0, 0.25, 0.0, 0.0], ["patience"] * 6)
    best, stopped = _run(ev, "patience")
    assert log == ["list", "windows", "list", "windows", "list", "windows"]  # the third round improved nothing
    assert best.value == pytest.approx(100.0 - 1.75) and stopped == "patience"


def test_no_round_after_a_budget_stop_and_at_most_bsld_rounds(monkeypatch):
    ev = _Ev()
    log = _fake_steps(monkeypatch, ev, [], [])
    assert _run(ev, "budget")[1] == "budget" and log == []
    ev = _Ev()
    log = _fake_steps(monkeypatch, ev, [1.0] * 100, ["patience"] * 100)
    best, _ = _run(ev, "patience")
    assert len(log) == 2 * C.BSLD_ROUNDS and best.value == pytest.approx(100.0 - 2 * C.BSLD_ROUNDS)


def test_a_round_whose_list_moves_spend_the_budget_skips_its_windows(monkeypatch):
    ev = _Ev()
    log = _fake_steps(monkeypatch, ev, [1.0, 1.0], ["budget", "patience"])
    best, stopped = _run(ev, "patience")
    assert log == ["list"] and stopped == "budget" and best.value == pytest.approx(99.0)


def _trace(n=1000, m=32, seed=3):
    """A trace at about the load of a real one: a job every 25 minutes on average, durations from seconds to hours
    and widths up to the whole cluster (log-uniform)."""
    rng = np.random.default_rng(seed)
    r = np.cumsum(rng.exponential(1500.0, n))
    p = np.exp(rng.uniform(np.log(5.0), np.log(20_000.0), n))
    q = np.minimum(np.ceil(np.exp(rng.uniform(0, np.log(m), n))), m).astype(np.int64)
    return BatchInstance.from_arrays(r, q, p[:, None], np.array([m]))


def test_on_a_trace_the_rounds_run_on_after_the_patience_and_only_improve(monkeypatch):
    inst = _trace()
    assert len(inst) >= C.WINDOW_JOBS
    monkeypatch.setattr(C, "queue_search", lambda ev, best, limit: best)  # the rounds alone (bsldqueue has its tests)
    monkeypatch.setattr(C, "BSLD_BLOCK_PATIENCE", 1)  # the block search as the other metrics' (its own patience:
    # tests/grid/test_batch_response_search.py), so that this small search stops by its patience before the rounds
    kw = dict(metrics=("mean_bounded_slowdown",), time_limit=1e6, seed=1, patience=2, budget=1e8)
    got = C.clairvoyant_schedules(inst, **kw)["mean_bounded_slowdown"]
    monkeypatch.setattr(C, "BSLD_ROUNDS", 0)
    ref = C.clairvoyant_schedules(inst, **kw)["mean_bounded_slowdown"]
    assert ref.stopped == "patience"  # the search this rule is for: stopped by its patience with work left
    assert got.value < ref.value and got.evaluations > ref.evaluations
    check_batch_schedule(inst, got.cluster, got.start)
    assert schedule_metrics(inst, got.cluster, got.start)["mean_bounded_slowdown"] == pytest.approx(got.value)
