"""The Lagrangian bound (lowerbounds.batch.lagrangian) against brute force, a plain scan and a trace window."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lowerbounds.batch.clairvoyant import clairvoyant_schedules
from lowerbounds.batch.instance import BSLD_TAU, BatchInstance, batch_instance
from lowerbounds.batch.lagrangian import FINEST_SHARE, lagrangian_bound, lagrangian_value, slot_grid, step_work
from lowerbounds.batch.quick import bsld_quick, flow_quick
from tests.conftest import require_trace
from tests.grid.batch_oracle import brute_force

TOL = 1e-6
_METRIC = {0: "mean_response", 1: "mean_bounded_slowdown"}


def _instance(seed, n, K, integer):
    rng = np.random.default_rng(seed)
    m = rng.integers(2, 7, size=K)
    s = np.array([1.0, 1.5, 2.0])[:K]
    q = rng.integers(1, m.max() + 1, size=n)
    r = rng.integers(0, 6, size=n).astype(float)
    base = rng.integers(0, 25, size=n).astype(float) if integer else rng.uniform(0, 25, size=n)
    return BatchInstance.from_arrays(r, q, base[:, None] * s[0] / s[None, :], m, s)


def _plain_job_cost(mode, r, p, q, s, lam_k, t0, delta):
    """The priced cost of one job started at ``s``, by direct integration over the slots."""
    flow = s + p - r
    f = flow if mode == 0 else max(1.0, flow / max(p, BSLD_TAU))
    area = sum(lam_k[u] * max(0.0, min(s + p, t0 + (u + 1) * delta) - max(s, t0 + u * delta))
               for u in range(lam_k.size))
    return f + q * area


def _plain_value(inst, lam, mode, t0, delta):
    """``L(lam)`` by scanning every breakpoint of every job's cost (no pruning)."""
    T = lam.shape[1]
    bounds = [t0 + u * delta for u in range(T + 1)]
    total = 0.0
    for j in range(len(inst)):
        r, q = float(inst.release[j]), float(inst.width[j])
        best = np.inf
        for k in range(inst.clusters):
            p = float(inst.duration[j, k])
            if not np.isfinite(p):
                continue
            cands = [r, r + BSLD_TAU - p] + bounds + [b - p for b in bounds]
            best = min([best] + [_plain_job_cost(mode, r, p, q, s, lam[k], t0, delta) for s in cands if s >= r])
        total += best
    return total - float((lam * (inst.procs[:, None] * delta)).sum())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 4), K=st.integers(1, 2), integer=st.booleans(),
       slots=st.integers(1, 12), scale=st.sampled_from([0.0, 0.1, 1.0, 5.0]), mode=st.sampled_from([0, 1]))
@example(seed=1, n=4, K=1, integer=False, slots=1, scale=5.0, mode=0)  # the margin is 3.3e-7: prices cancel the sum
def test_any_prices_give_a_bound_below_brute_force_and_match_the_plain_scan(seed, n, K, integer, slots, scale, mode):
    inst = _instance(seed, n, K, integer)
    t0, delta, T = slot_grid(inst, slots)
    lam = np.random.default_rng(seed + 1).exponential(scale, size=(K, T)) if scale else np.zeros((K, T))
    value, grad = lagrangian_value(inst, lam, mode, t0, delta)
    assert grad.shape == lam.shape
    plain = _plain_value(inst, lam, mode, t0, delta)
    priced = float((lam * (inst.procs[:, None] * delta)).sum())
    margin = 1e-9 * (abs(plain + priced) + priced)  # lagrangian_value's floating-point safety margin
    assert value == pytest.approx(plain - margin, rel=1e-7, abs=1e-7)
    optimum = brute_force(inst)[_METRIC[mode]] * n
    assert value <= optimum * (1 + TOL) + TOL


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 5), K=st.integers(1, 2), integer=st.booleans(),
       mode=st.sampled_from([0, 1]))
def test_the_subgradient_search_stays_below_brute_force(seed, n, K, integer, mode):
    inst = _instance(seed, n, K, integer)
    value, steps, _ = lagrangian_bound(inst, mode, time_limit=5.0, slots=16, iterations=300)
    assert steps >= 1
    assert value <= brute_force(inst)[_METRIC[mode]] * n * (1 + TOL) + TOL


def test_prices_raise_the_bound_where_a_wide_job_blocks_others():
    # one processor; a long job released first blocks two short ones: the optimum (SPT with the long job
    # started first, it is released alone) is 10 + 10 + 11 = 31 (plus waiting); the fluid bound sees less
    inst = BatchInstance.from_arrays([0.0, 0.5, 0.5], [1, 1, 1], [[10.0], [1.0], [1.0]], [1])
    best = brute_force(inst)["mean_response"] * 3
    value, _, _ = lagrangian_bound(inst, 0, time_limit=5.0, slots=64, iterations=2000)
    assert flow_quick(inst) < value <= best * (1 + TOL)


def test_never_above_the_best_schedule_on_a_trace_window():
    from vcsched.scenarios.grid_build import build

    trace = require_trace("KTH-SP2-1996-2.1-cln.swf.gz")
    run = build(trace=str(trace), platform=None, scenario=None, policy="easy", procs=None, speed=1.0, start=None,
                end=None, days=1, skip_bad_lines=True, shift=True, heterogeneous=False, batch=None, seed=0,
                overestimate=10.0, max_load=None)
    inst = batch_instance(run.jobs, run.clusters)
    n = len(inst)
    upper = clairvoyant_schedules(inst, metrics=("mean_response", "mean_bounded_slowdown"), time_limit=2.0,
                                  iterations=5, quick=True)
    for mode, quick in ((0, flow_quick), (1, bsld_quick)):
        value, _, _ = lagrangian_bound(inst, mode, time_limit=1.0, slots=512, start=quick(inst))
        assert value / n <= upper[_METRIC[mode]].value * (1 + TOL)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 4), mode=st.sampled_from([0, 1]))
@example(seed=9357, n=2, mode=0)  # refined 29.99994 below the unrefined 29.99997: the 4-slot level stops at its plateau
def test_finer_grids_are_searched_and_stay_between_the_zero_prices_and_brute_force(seed, n, mode):
    # with refinement the grid of 4 slots is not the last one: it stops at its plateau (as the coarser levels do)
    # and the finer grids start from its best prices (the same L); so the bound is at least L at zero prices (the
    # first value searched) but may end a little below the unrefined search's, which runs that level to convergence
    inst = _instance(seed, n, 1, True)
    t0, delta, _ = slot_grid(inst, 1)
    at_zero = lagrangian_value(inst, np.zeros((1, 1)), mode, t0, delta)[0]
    plain, _, slots = lagrangian_bound(inst, mode, time_limit=1e6, slots=4, iterations=10**6)
    finer, _, finest = lagrangian_bound(inst, mode, time_limit=1e6, slots=4, iterations=10**6, refine=4)
    assert (slots, finest) == (4, 16)
    optimum = brute_force(inst)[_METRIC[mode]] * n * (1 + TOL) + TOL
    assert at_zero <= plain <= optimum and at_zero <= finer <= optimum


def test_no_finer_grid_once_a_slot_is_a_small_share_of_the_shortest_job():
    # 3 jobs of 1 to 3 s over a horizon of 7 s: from 128 slots on, a slot is shorter than 1/16 of the shortest job,
    # so from 64 slots refine=8 searches no finer grid (on such workloads it only spent the time limit); from 4
    # slots, the grid of 8 is searched
    inst = BatchInstance.from_arrays([0.0, 0.5, 1.0], [1, 2, 1], [[1.0], [2.0], [3.0]], [2])
    assert slot_grid(inst, 128)[1] * FINEST_SHARE < float(inst.pmin.min()) <= slot_grid(inst, 64)[1] * FINEST_SHARE
    assert lagrangian_bound(inst, 0, time_limit=1e6, slots=64, iterations=10**5, refine=8)[2] == 64
    assert lagrangian_bound(inst, 0, time_limit=1e6, slots=4, iterations=10**5, refine=2)[2] == 8


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6), integer=st.booleans(), slots=st.integers(1, 12),
       mode=st.sampled_from([0, 1]))
def test_the_subgradient_is_the_usage_of_the_chosen_starts(seed, n, integer, slots, mode):
    # at zero prices every job starts at its release (one cluster): the usage of each slot, summed plainly, minus
    # the capacity; the compiled kernel adds whole slots as differences
    inst = _instance(seed, n, 1, integer)
    t0, delta, T = slot_grid(inst, slots)
    _, grad = lagrangian_value(inst, np.zeros((1, T)), mode, t0, delta)
    plain = np.zeros(T)
    for j in range(n):
        r, p = float(inst.release[j]), float(inst.duration[j, 0])
        for u in range(T):
            plain[u] += inst.width[j] * max(0.0, min(r + p, t0 + (u + 1) * delta) - max(r, t0 + u * delta))
    assert grad[0] == pytest.approx(plain - inst.procs[0] * delta, rel=1e-9, abs=1e-9)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 5), mode=st.sampled_from([0, 1]))
def test_a_work_cap_gives_the_same_bound_whatever_the_clock(seed, n, mode):
    # the work units are counted, not timed: the same cap gives the same steps and value under any generous clock;
    # a cap of one unit stops after the first step; the bound stays below brute force
    inst = _instance(seed, n, 2, True)
    work = 400 * step_work(0, n, 32)
    runs = [lagrangian_bound(inst, mode, time_limit=limit, slots=32, iterations=10**6, work=work)
            for limit in (1e6, 30.0)]
    assert runs[0] == runs[1] and runs[0][1] >= 1
    assert lagrangian_bound(inst, mode, time_limit=1e6, slots=32, iterations=10**6, work=1)[1] == 1
    assert runs[0][0] <= brute_force(inst)[_METRIC[mode]] * n * (1 + TOL) + TOL


def test_the_work_count_counts_the_candidates_a_step_prices():
    # one job on one cluster, free prices: priced once at its release, no scan; with a price on its first slot the
    # scans price later starts too, and the step's units grow by the same count
    inst = BatchInstance.from_arrays([0.0], [1], [[3.0]], [1])
    t0, delta, T = slot_grid(inst, 4)
    free, priced = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    lagrangian_value(inst, np.zeros((1, T)), 0, t0, delta, work=free)
    lam = np.zeros((1, T))
    lam[0, 0] = 10.0
    lagrangian_value(inst, lam, 0, t0, delta, work=priced)
    assert free[0] == step_work(1, 1, T)
    assert priced[0] > free[0] + 2


def test_each_level_starts_with_the_step_factor_the_last_one_ended_with(monkeypatch):
    # a level that ended with a factor above the floor hands it on; one that converged (factor ~0) hands on the floor
    import lowerbounds.batch.lagrangian as lagrangian

    ended = iter([0.5, 1e-6, 0.3, 0.2, 0.1])
    seen = []

    def fake(inst, mode, lam, t0, delta, tau, limits, start, min_theta, theta, plateau):
        seen.append((theta, plateau))
        return 1.0, lam, 1, next(ended)

    monkeypatch.setattr(lagrangian, "_ascent", fake)
    inst = BatchInstance.from_arrays([0.0, 1.0], [1, 2], [[3.0], [2.0]], [2])
    lagrangian.lagrangian_bound(inst, 0, time_limit=1e6, slots=64, iterations=10**6)
    assert [theta for theta, _ in seen] == [1.0, 0.5, lagrangian.THETA_FLOOR, 0.3, 0.2]
    assert [plateau for _, plateau in seen] == [True] * 4 + [False]  # no plateau rule on the finest grid


def test_a_level_ends_once_its_best_value_stops_rising(monkeypatch):
    # scripted values (no kernel): rising by 1 a step from 100, then flat; the level stops PLATEAU[0] steps after
    # the best value last rose by more than PLATEAU[1] of it, well before the step cap
    import lowerbounds.batch.lagrangian as lagrangian

    window, gain = lagrangian.PLATEAU
    rises = 50
    calls = []

    def scripted(inst, lam, mode, t0, delta, tau, work):
        calls.append(1)
        value = 100.0 + min(len(calls), rises)
        return value, np.ones_like(lam)

    monkeypatch.setattr(lagrangian, "lagrangian_value", scripted)
    monkeypatch.setattr(lagrangian, "_STALL", 10**6)  # no halving on the flat part: the plateau alone stops it
    inst = BatchInstance.from_arrays([0.0], [1], [[1.0]], [1])
    limits = (np.inf, 10**6, np.inf, np.zeros(1, dtype=np.int64))
    best, _, steps, _ = lagrangian._ascent(inst, 0, np.zeros((1, 4)), 0.0, 1.0, BSLD_TAU, limits, 0.0, 0.0, 1.0, True)
    assert gain * 150 < 1  # a rise of 1 is well above the gain, a flat value below it
    assert best == 100.0 + rises and steps == rises + window
    # the finest level (no plateau rule) goes on to its step cap
    limits = (np.inf, 3 * window, np.inf, np.zeros(1, dtype=np.int64))
    assert lagrangian._ascent(inst, 0, np.zeros((1, 4)), 0.0, 1.0, BSLD_TAU, limits, 0.0, 0.0, 1.0)[2] == 3 * window
