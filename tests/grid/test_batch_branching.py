"""The max-stretch bound by branching on a long job's start (lowerbounds.batch.branching): the compiled tests
against plain ones (EDF simulated in real time on a machine whose rate drops during the blackout), and the bound
against brute force (no schedule of max stretch below the bound exists)."""

from __future__ import annotations

import heapq

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lowerbounds.batch.bounds as bounds_module
from lowerbounds.batch import instance_bounds
from lowerbounds.batch._branching import blackout_feasible, branch_infeasible
from lowerbounds.batch.branching import branching_pass, stretch_branching
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.quick import stretch_quick
from tests.grid.batch_oracle import brute_force

EVERY_JOB = ((4, np.inf, 0.0), (16, np.inf, 0.0))
"""Passes for tiny instances: every job a candidate, every job counted."""


def _plain_feasible(release, work, deadline, rate, a, b, inner):
    """Preemptive EDF in real time on a machine of ``rate``, ``inner`` during ``[a, b)``: True when every job ends by
    its deadline (1e-9 relative forgiven)."""
    n = len(release)
    order = sorted(range(n), key=lambda j: (release[j], j))
    slack = 1e-9 * (1 + max([abs(x) for x in deadline] + [abs(a), abs(b)]))
    left = [float(w) for w in work]
    heap, t, i = [], float(release[order[0]]) if n else 0.0, 0
    while i < n or heap:
        if not heap and release[order[i]] > t:
            t = float(release[order[i]])
        while i < n and release[order[i]] <= t:
            heapq.heappush(heap, (deadline[order[i]], order[i]))
            i += 1
        d, j = heap[0]
        if left[j] <= 0:
            heapq.heappop(heap)
            continue
        change = a if t < a else (b if t < b else np.inf)
        nxt = min(release[order[i]] if i < n else np.inf, change)
        speed = inner if a <= t < b else rate
        end = t + left[j] / speed if speed > 0 else np.inf
        if end <= nxt:
            t, left[j] = end, 0.0
            heapq.heappop(heap)
        else:
            left[j] -= (nxt - t) * speed
            t = nxt
        if t > d + slack * max(rate, 1.0) and (left[j] > 1e-12 or end <= nxt):
            return False
    return True


def _plain_branch(B, r, p, q, cap, stretch, pieces):
    """Every piece of ``B``'s start range, the three tests of the module written plainly."""
    length = (stretch - 1) * p[B] / pieces
    if length >= p[B]:
        return False
    d = r + stretch * p
    others = [j for j in range(len(r)) if j != B]
    for k in range(pieces):
        a, b = r[B] + (k + 1) * length, r[B] + k * length + p[B]
        half = [j for j in others if 2 * q[j] > cap and q[j] > cap - q[B]]
        wide = [j for j in others if q[j] > cap - q[B]]
        passed = (_plain_feasible(r[half], p[half], d[half], 1.0, a, b, 0.0)
                  and _plain_feasible(r[wide], (q * p)[wide], d[wide], cap, a, b, 0.0)
                  and _plain_feasible(r[others], (q * p)[others], d[others], cap, a, b, cap - q[B]))
        if passed:
            return False
    return True


def _draw(rng, n, integer):
    cap = int(rng.integers(2, 9))
    r = np.sort(rng.integers(0, 12, n).astype(float) if integer else rng.uniform(0, 12, n))
    p = rng.integers(1, 9, n).astype(float) if integer else rng.uniform(0.1, 8, n)
    q = rng.integers(1, cap + 1, n).astype(float)
    return r, p, q, cap


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8), integer=st.booleans())
def test_edf_with_a_blackout_is_the_plain_one(seed, n, integer):
    rng = np.random.default_rng(seed)
    r, p, q, cap = _draw(rng, n, integer)
    d = r + rng.uniform(1.0, 4.0, n) * p
    a = float(rng.uniform(-2, 14))
    b = a + float(rng.uniform(0, 8))
    for inner in (0.0, float(rng.integers(1, cap + 1))):
        assert bool(blackout_feasible(r, q * p, d, float(cap), a, b, inner)) == _plain_feasible(r, q * p, d, cap, a, b,
                                                                                              inner)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 7), integer=st.booleans(), stretch=st.floats(1.0, 3.0),
       pieces=st.sampled_from([1, 3, 8]))
def test_the_compiled_branching_is_the_plain_one(seed, n, integer, stretch, pieces):
    rng = np.random.default_rng(seed)
    r, p, q, cap = _draw(rng, n, integer)
    for B in range(n):
        got = bool(branch_infeasible(B, r, p, q, float(cap), stretch, 0, n, pieces))
        assert got == _plain_branch(B, r, p, q, cap, stretch, pieces)


def test_a_long_job_of_the_whole_cluster_blocks_a_short_one(monkeypatch):
    # the whole cluster for 10 s from t = 0, then a short job of the whole cluster at t = 1: best is to start the long
    # one at 2 (stretch 1.2); preemptive EDF runs the short one inside the long one and proves only 1.1
    inst = BatchInstance.from_arrays([0, 1], [2, 2], [[10], [1]], [2])
    quick, best = stretch_quick(inst), brute_force(inst)["max_stretch"]
    value, tried = stretch_branching(inst, quick, passes=EVERY_JOB, rel_tol=1e-5)
    assert quick == pytest.approx(1.1, rel=1e-4) and best == pytest.approx(1.2)
    assert tried >= 1 and best * (1 - 1e-3) <= value <= best
    monkeypatch.setattr(bounds_module, "EXHAUST_CAP", 0)  # the relaxations, not the enumeration of a tiny workload
    bound = instance_bounds(inst, method="lp", time_limit=5).bounds["max_stretch"]  # quick: the blackout bound
    assert bound.method in ("quick", "branching", "lp") and best * (1 - 2e-3) <= bound.value <= best * (1 + 1e-9)


def test_narrow_candidates_and_a_short_horizon_only_weaken_it():
    inst = BatchInstance.from_arrays([0, 1, 30], [2, 2, 1], [[10], [1], [5]], [2])
    quick = stretch_quick(inst)
    full, _ = branching_pass(inst, quick, pieces=16, horizon=np.inf, min_width=0.0)
    assert branching_pass(inst, quick, pieces=16, horizon=0.5, min_width=0.0)[0] <= full
    assert branching_pass(inst, quick, pieces=16, horizon=np.inf, min_width=1.01) == (quick, 0)


def test_several_clusters_keep_the_bound_given():
    inst = BatchInstance.from_arrays([0, 1], [2, 2], [[10, 10], [1, 1]], [2, 2])
    assert stretch_branching(inst, 1.05) == (1.05, 0)
