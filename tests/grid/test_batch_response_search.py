"""The mean response time's own search settings (lowerbounds.batch.clairvoyant): its window race from
``RESPONSE_WINDOW_JOBS`` jobs on and, below ``WINDOW_JOBS``, its patience ``RESPONSE_PATIENCE`` times the one given;
the bounded slowdown keeps the shared ones."""

from __future__ import annotations

import re

import numpy as np
import pytest

import lowerbounds.batch.clairvoyant as cv
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.keysearch import KEY_PATIENCE


def _instance(n: int, seed: int = 3) -> BatchInstance:
    rng = np.random.default_rng(seed)
    r, q, p = np.sort(rng.uniform(0, 2e4, n)), rng.integers(1, 17, n), rng.exponential(600, n) + 1
    return BatchInstance.from_arrays(r, q, p[:, None], [32])


def _steps(monkeypatch, inst, metric: str, patience: int) -> dict:
    """Run ``_improve`` with every step replaced by a recorder: which steps ran, with which patience."""
    seen: dict = {}
    best = cv.Best(1.0, "portfolio", "x", np.zeros(len(inst), dtype=np.int64), np.zeros(len(inst)), "easy")

    def key(ev, m, b, easy, rng, limit, idle):
        seen["key"] = idle
        return b

    def lst(ev, m, b, rng, limit, idle):
        seen["list"] = idle
        return b, "patience"

    def windows(ev, m, b, rng, limit, idle, justify=False):
        seen["windows"] = idle
        return b, "patience"

    def lns(ev, m, b, rng, limit, idle):
        seen["milp windows"] = idle
        return b, "patience"

    def race(steps, b, limit):
        seen["race"] = True
        for step in steps:
            step(b, limit)
        return b, "patience", (1, 1)

    for name, fn in (("_key_search", key), ("_list_search", lst), ("_windows", windows), ("_lns", lns),
                     ("race", race), ("_justify", lambda ev, m, b: b)):
        monkeypatch.setattr(cv, name, fn)
    ev = cv._Evaluator(inst)
    cv._improve(ev, {}, metric, best, np.random.default_rng(0), cv.Limit(ev, 1e9, 1e18), None, None, patience, None,
                easy=best)
    return seen


def test_the_mean_response_races_windows_from_its_own_job_count_with_its_own_patience(monkeypatch):
    n = cv.RESPONSE_WINDOW_JOBS + 10
    assert n < cv.WINDOW_JOBS  # the case where the two metrics differ
    inst = _instance(n)
    p = 7
    mr = _steps(monkeypatch, inst, "mean_response", p)
    f = cv.RESPONSE_PATIENCE
    assert mr == {"key": KEY_PATIENCE * f * p, "race": True, "list": 2 * f * p, "windows": cv.WINDOW_PATIENCE * f * p}
    bsld = _steps(monkeypatch, inst, "mean_bounded_slowdown", p)  # unchanged: the window MILPs below WINDOW_JOBS
    assert "race" not in bsld and "windows" not in bsld and bsld["milp windows"] == p and bsld["list"] == 2 * p
    small = _steps(monkeypatch, _instance(cv.RESPONSE_WINDOW_JOBS - 1), "mean_response", p)
    assert "race" not in small and small["milp windows"] == p and small["key"] == KEY_PATIENCE * p
    whole = _steps(monkeypatch, _instance(cv.WINDOW_JOBS), "mean_response", p)  # whole traces: the patience given
    assert whole == {"key": KEY_PATIENCE * p, "race": True, "list": 2 * p, "windows": cv.WINDOW_PATIENCE * p}


def test_without_a_patience_the_mean_response_keeps_the_saturation_rule(monkeypatch):
    inst = _instance(cv.RESPONSE_WINDOW_JOBS + 10)
    seen = _steps(monkeypatch, inst, "mean_response", None)
    assert seen["key"] == cv._patience(None, len(inst))["key"]


@pytest.mark.slow
def test_a_busy_week_sized_search_ends_with_windows_checked_and_the_same_on_a_second_run():
    inst = _instance(cv.RESPONSE_WINDOW_JOBS + 50, seed=11)
    a, b = (cv.clairvoyant_schedules(inst, metrics=("mean_response",), budget=3e8, time_limit=1e6, seed=1,
                                     patience=40)["mean_response"] for _ in range(2))
    assert re.search(r"list moves and windows raced", a.detail), a.detail
    assert a.value == b.value and np.array_equal(a.start, b.start) and a.evaluations == b.evaluations
    check_batch_schedule(inst, a.cluster, a.start)
    assert a.value == pytest.approx(schedule_metrics(inst, a.cluster, a.start)["mean_response"])
