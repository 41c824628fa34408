"""The mean response time's own search settings (lowerbounds.batch.clairvoyant): its window race from
``RESPONSE_WINDOW_JOBS`` jobs on and, below ``WINDOW_JOBS``, its patience ``RESPONSE_PATIENCE`` times the one given;
the bounded slowdown keeps the shared ones, but for its block search's patience from ``WINDOW_JOBS`` jobs on,
``BSLD_BLOCK_PATIENCE`` times the one given."""

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


def _steps(monkeypatch, inst, metric: str, patience: int, easy: bool = True, first: str = "patience",
           out: dict | None = None) -> dict:
    """Run ``_improve`` with every step replaced by a recorder: which steps ran, with which patience; the key search
    stops for the reason ``first``, and the metric's reason to stop goes to ``out["stopped"]``."""
    seen: dict = {}
    best = cv.Best(1.0, "portfolio", "x", np.zeros(len(inst), dtype=np.int64), np.zeros(len(inst)), "easy")

    def key(ev, m, b, easy, rng, limit, idle):
        seen["key"] = idle
        return b, first

    def lst(ev, m, b, rng, limit, idle):
        seen["list"] = idle
        return b, "patience"

    def windows(ev, m, b, rng, limit, idle, justify=False):
        seen["windows"] = idle
        return b, "patience"

    def lns(ev, m, b, rng, limit, idle):
        seen["milp windows"] = idle
        return b, "patience"

    def block(ev, feats, m, b, rng, limit, idle):
        seen["block"] = idle
        return b, "patience"

    def race(steps, b, limit):
        seen["race"] = True
        for step in steps:
            step(b, limit)
        return b, "patience", (1, 1)

    for name, fn in (("_key_search", key), ("_list_search", lst), ("_windows", windows), ("_lns", lns),
                     ("race", race), ("block_search", block), ("_justify", lambda ev, m, b: b),
                     ("queue_search", lambda ev, b, limit: b)):
        monkeypatch.setattr(cv, name, fn)
    ev = cv._Evaluator(inst)
    _, stopped = cv._improve(ev, {}, metric, best, np.random.default_rng(0), cv.Limit(ev, 1e9, 1e18), None,
                                None, patience, None, easy=best if easy else None)
    if out is not None:
        out["stopped"] = stopped
    return seen


@pytest.mark.parametrize("metric", ["mean_response", "mean_bounded_slowdown"])
def test_a_key_search_stopped_by_the_clock_is_reported_though_the_steps_after_it_end_otherwise(monkeypatch, metric):
    inst, cut, calm = _instance(cv.WINDOW_JOBS + 10), {}, {}
    _steps(monkeypatch, inst, metric, 7, first="time_limit", out=cut)
    _steps(monkeypatch, inst, metric, 7, first="budget", out=calm)
    assert cut["stopped"] == "time_limit" and calm["stopped"] == "patience"


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


def test_the_bounded_slowdowns_block_search_has_its_own_patience_on_whole_traces(monkeypatch):
    whole, small, p = _instance(cv.WINDOW_JOBS), _instance(50), 7
    assert _steps(monkeypatch, whole, "mean_bounded_slowdown", p, easy=False)["block"] == cv.BSLD_BLOCK_PATIENCE * p
    assert _steps(monkeypatch, whole, "mean_response", p, easy=False)["block"] == p
    assert _steps(monkeypatch, small, "mean_bounded_slowdown", p, easy=False)["block"] == p  # below WINDOW_JOBS
    saturation = cv._patience(None, len(small))["block"]  # without a patience a small workload still stops at once
    assert _steps(monkeypatch, small, "mean_bounded_slowdown", None, easy=False)["block"] == saturation


@pytest.mark.slow
def test_a_busy_week_sized_search_ends_with_windows_checked_and_the_same_on_a_second_run():
    inst = _instance(cv.RESPONSE_WINDOW_JOBS + 50, seed=11)
    a, b = (cv.clairvoyant_schedules(inst, metrics=("mean_response",), budget=3e8, time_limit=1e6, seed=1,
                                     patience=40)["mean_response"] for _ in range(2))
    assert re.search(r"list moves and windows raced", a.detail), a.detail
    assert a.value == b.value and np.array_equal(a.start, b.start) and a.evaluations == b.evaluations
    check_batch_schedule(inst, a.cluster, a.start)
    assert a.value == pytest.approx(schedule_metrics(inst, a.cluster, a.start)["mean_response"])
