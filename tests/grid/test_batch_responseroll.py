"""The mean response time's rolling pieces (lowerbounds.batch.responseroll): a piece's first schedule keeps the fixed
jobs in place and starts every free job no later, a pass keeps a valid schedule that never gets worse and never goes
below the brute-force optimum, and the search races the pieces from ROLL_JOBS jobs on."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch import clairvoyant as C
from lowerbounds.batch import responseroll as R
from lowerbounds.batch._listsched import serial_schedule
from lowerbounds.batch._searchstep import Best, Limit
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics
from tests.grid.batch_oracle import brute_force
from tests.grid.test_batch_stretchrepair import _arrays


def _schedule(rng, n, K):
    """A random tiny instance and the serial schedule of a random list: (r, q, p, m, cluster, start)."""
    r, q, p, m = _arrays(rng, n, K)
    cluster, start = serial_schedule(r, q, p, m, rng.permutation(n))
    return r, q, p, m, cluster, start


def _summed(r, p, cluster, start) -> float:
    return float((start + p[np.arange(r.size), cluster] - r).sum())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 30), st.integers(1, 2))
def test_a_pieces_first_schedule_keeps_the_fixed_jobs_and_starts_every_free_job_no_later(seed, n, K):
    rng = np.random.default_rng(seed)
    r, q, p, m, cluster, start = _schedule(rng, n, K)
    t_lo, t_hi = np.sort(rng.uniform(0, start.max() + 1, 2))
    sub = R.piece_instance(r, q, p, m, cluster, start, t_lo, t_hi)
    if sub is None:
        assert not np.any((start >= t_lo) & (start < t_hi))
        return
    rel, wid, dur, procs = sub["arrays"]
    assert np.all(np.diff(rel) >= 0)
    c, s, total = R._placed(sub, sub["key"], np.zeros(1, dtype=np.int64))
    free, jobs = sub["free"], sub["jobs"]
    fixed = np.setdiff1d(np.arange(rel.size), free)
    assert np.array_equal(s[fixed], rel[fixed])  # each fixed job back at its start, on its own cluster
    assert np.array_equal(sub["now"][1][fixed], rel[fixed]) and np.array_equal(sub["now"][1][free], start[jobs])
    if K == 1:  # the serial construction of a schedule's start order: every job starts no later
        assert np.all(s[free] <= start[jobs] + 1e-9) and total <= sub["total"] + 1e-6
    assert R._descend(sub, rng, np.zeros(1, dtype=np.int64), lambda: None, 10)[2] >= 0


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 6), st.integers(1, 2), st.integers(1, 3), st.integers(0, 2))
def test_a_pass_keeps_a_valid_schedule_never_worse_and_never_below_the_optimum(seed, n, K, piece, offset):
    rng = np.random.default_rng(seed)
    r, q, p, m, cluster, start = _schedule(rng, n, K)
    inst = BatchInstance.from_arrays(r, q, p, m)
    before = _summed(r, p, cluster, start)
    c, s = cluster.copy(), start.copy()
    work = np.zeros(1, dtype=np.int64)
    gained = R.rolling_pass(r, q, p, m, c, s, np.random.default_rng(seed), work, 1e9, lambda: None, 20, piece,
                            offset)
    check_batch_schedule(inst, c, s)
    assert gained >= 0 and _summed(r, p, c, s) == pytest.approx(before - gained)
    value = schedule_metrics(inst, c, s)["mean_response"]
    assert value >= brute_force(inst)["mean_response"] * (1 - 1e-9)


def test_a_pass_moves_a_short_job_ahead_of_a_long_one_inside_a_piece():
    # one processor: a 10-s job (submitted at 0.5) runs before a 1-s job submitted at 1; a list move puts the short
    # one first (summed response 4 + 13.5 + 14 -> 4 + 4 + 14.5); the job of the next piece keeps its place
    r, q = np.array([0.0, 0.5, 1.0, 100.0]), np.array([1, 1, 1, 1])
    p, m = np.array([[4.0], [10.0], [1.0], [5.0]]), np.array([1])
    cluster, start = np.zeros(4, dtype=np.int64), np.array([0.0, 4.0, 14.0, 100.0])
    work = np.zeros(1, dtype=np.int64)
    gained = R.rolling_pass(r, q, p, m, cluster, start, np.random.default_rng(0), work, 1e9, lambda: None, 50, 3)
    assert gained == pytest.approx(9.0) and np.array_equal(start, [0.0, 5.0, 4.0, 100.0]) and work[0] > 0


def test_the_clock_stops_a_pass_with_the_schedule_as_it_was():
    rng = np.random.default_rng(5)
    r, q, p, m, cluster, start = _schedule(rng, 12, 1)
    c, s = cluster.copy(), start.copy()
    out = R.rolling_pass(r, q, p, m, c, s, rng, np.zeros(1, dtype=np.int64), 1e9, lambda: "time_limit", 20, 3)
    assert out is None and np.array_equal(c, cluster) and np.array_equal(s, start)


def test_squeaky_key_draws_by_weight_and_lowers_by_a_share_of_the_wait():
    key, wait = np.array([5.0, 7.0, 9.0]), np.array([0.0, 4.0, 2.0])
    assert R.squeaky_key(key, np.zeros(3), wait, np.random.default_rng(0)) is None
    for seed in range(20):
        trial = R.squeaky_key(key, np.array([0.0, 0.0, 1.0]), wait, np.random.default_rng(seed))
        assert trial[:2].tolist() == [5.0, 7.0] and 7.0 <= trial[2] <= 9.0


def _instance(n: int, seed: int = 3) -> BatchInstance:
    rng = np.random.default_rng(seed)
    r, q, p = np.sort(rng.uniform(0, 2e4, n)), rng.integers(1, 17, n), rng.exponential(600, n) + 1
    return BatchInstance.from_arrays(r, q, p[:, None], [32])


def test_roll_search_keeps_a_checked_schedule_and_stops_after_passes_without_a_gain(monkeypatch):
    monkeypatch.setattr(R, "PIECE_JOBS", 30)
    inst = _instance(200)
    ev = C._Evaluator(inst)
    values, cluster, start = ev.run(ev.release, "serial")  # FCFS
    best = Best(values["mean_response"], "portfolio", "serial fcfs", cluster, start, "serial")
    step = R.RollSearch(ev, np.random.default_rng(0), 20)
    out, stopped = step(best, Limit(ev, ev.work + 1e12, 1e18))
    assert stopped == "patience" and step.idle == len(R.OFFSETS) and out.value < best.value
    check_batch_schedule(inst, out.cluster, out.start)
    assert out.value == pytest.approx(schedule_metrics(inst, out.cluster, out.start)["mean_response"])


@pytest.mark.parametrize("n, raced", [(200, True), (199, False)])
def test_the_search_races_the_rolling_pieces_from_roll_jobs_on(monkeypatch, n, raced):
    monkeypatch.setattr(C, "ROLL_JOBS", 200)
    monkeypatch.setattr(R, "PIECE_JOBS", 40)
    inst = _instance(n)
    a, b = (C.clairvoyant_schedules(inst, metrics=("mean_response",), budget=2e7, time_limit=1e6, seed=1,
                                    patience=5)["mean_response"] for _ in range(2))
    assert a.value == b.value and np.array_equal(a.start, b.start) and a.evaluations == b.evaluations
    names = "list moves, windows and rolling pieces raced" if raced else "list moves and windows raced"
    assert re.search(names + r" \(\d+(, \d+)? and \d+ slices\)", a.detail), a.detail
    check_batch_schedule(inst, a.cluster, a.start)
