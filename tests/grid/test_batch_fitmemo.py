"""Remembered fits of the serial construction (lowerbounds.batch._listsched: fit_memo, _fit_floor): the construction
with them against a plain serial generation, and the floor they give against the earliest fit it stands for."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch._listsched import _earliest_fit, _fit_floor, _occupy, fit_memo, serial_schedule_counted
from tests.grid.batch_oracle import _earliest


def _instance(rng, n, K):
    """Few widths and durations, so that later jobs are often no narrower and no shorter than earlier ones."""
    procs = rng.integers(4, 9, size=K).astype(np.int64)
    q = rng.choice([1, 2, 3, int(procs.min())], size=n).astype(np.int64)
    r = np.sort(rng.integers(0, 20, size=n)).astype(float)
    base = rng.choice([0.0, 1.0, 3.0, 8.0, 30.0], size=n)
    speed = np.array([1.0, 2.0, 0.5])[:K]
    return r, q, base[:, None] / speed[None, :], procs


def _plain_serial(r, q, dur, procs, order):
    """Each job in list order at its earliest fit on the cluster where it completes first (ties: earlier start,
    lower cluster), by the oracle's plain test of every candidate start."""
    placed = [[] for _ in procs]
    start, cluster = np.full(r.size, np.nan), np.full(r.size, -1)
    for j in order:
        best = None
        for k in range(procs.size):
            p = dur[j, k]
            if not np.isfinite(p):
                continue
            s = _earliest(placed[k], q[j], procs[k], r[j], p)
            if best is None or (s + p, s) < (best[0] + best[2], best[0]):
                best = (s, k, p)
        s, k, p = best
        start[j], cluster[j] = s, k
        if p > 0:
            placed[k].append((s, s + p, q[j]))
    return cluster, start


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 14), st.integers(1, 2))
def test_the_construction_with_remembered_fits_is_the_plain_serial_one(seed, n, K):
    rng = np.random.default_rng(seed)
    r, q, dur, procs = _instance(rng, n, K)
    for order in (rng.permutation(n), np.argsort(-(q * dur.min(axis=1)), kind="stable"), np.arange(n)):
        order = order.astype(np.int64)
        cluster, start = serial_schedule_counted(r, q, dur, procs, order, np.zeros(1, dtype=np.int64))
        plain_cluster, plain_start = _plain_serial(r, q, dur, procs, order)
        assert np.array_equal(cluster, plain_cluster)
        assert np.allclose(start, plain_start)


def _profile(m, jobs):
    """A one-cluster profile of ``m`` processors with the ``(start, end, width)`` runs taken."""
    cap = 2 * len(jobs) + 3
    bt, bf, nxt = np.zeros(cap), np.zeros(cap, dtype=np.int64), np.full(cap, -1, dtype=np.int64)
    bt[0], bf[0] = -1.0, m
    size, work = 1, np.zeros(1, dtype=np.int64)
    for s, e, q in jobs:
        node = 0
        while nxt[node] != -1 and bt[nxt[node]] <= s:
            node = nxt[node]
        size = _occupy(bt, bf, nxt, size, node, s, e, q, work)
    return bt, bf, nxt


def _remember(memo, r, q, p, s, node):
    c = int(np.floor(np.log2(q)))
    memo[0, min(c, memo.shape[1] - 1)] = (q, p, r, s, node)


def test_a_remembered_fit_is_a_floor_only_for_a_job_no_narrower_no_shorter_submitted_no_earlier():
    # 6 processors; 4 taken on [0, 10), 2 on [10, 20): a job of 3 for 5 from 0 first fits at 10
    bt, bf, nxt = _profile(6, [(0.0, 10.0, 4), (10.0, 20.0, 2)])
    work = np.zeros(1, dtype=np.int64)
    s, node = _earliest_fit(bt, bf, nxt, 0, 0.0, 3, 5.0, work)
    assert s == 10.0
    memo = fit_memo(1)
    _remember(memo, 0.0, 3, 5.0, s, node)
    assert _fit_floor(memo, 0, 1.0, 4, 6.0, work) == (10.0, node)  # wider, longer, later: no fit before 10
    assert _earliest_fit(bt, bf, nxt, 0, 1.0, 4, 6.0, work)[0] >= 10.0
    for r, q, p in ((1.0, 2, 6.0), (1.0, 4, 4.0)):  # narrower, or shorter: no floor (a narrower one fits at 1)
        assert _fit_floor(memo, 0, r, q, p, work) == (r, -1)
    assert _earliest_fit(bt, bf, nxt, 0, 1.0, 2, 6.0, work)[0] == 1.0
    memo2 = fit_memo(1)
    _remember(memo2, 2.0, 3, 5.0, s, node)
    assert _fit_floor(memo2, 0, 1.0, 4, 6.0, work) == (1.0, -1)  # submitted earlier than the remembered job
