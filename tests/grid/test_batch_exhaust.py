"""The exhaustive optimum of tiny workloads (lowerbounds.batch.exhaust): the search's stop on them, and the lower side
that it closes (a proof of each metric's optimum, against brute force, every integer schedule and the MILP)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lowerbounds.batch.bounds as bounds_module
from lowerbounds.batch import clairvoyant_schedules, instance_bounds, instance_references
from lowerbounds.batch.exhaust import EXHAUST_CAP, enumeration_size, exhaustive_schedules
from lowerbounds.batch.instance import METRICS, BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.portfolio import QUICK_PORTFOLIO
from tests.grid.batch_oracle import brute_force, plain_check
from tests.grid.test_batch_clairvoyant import _instance


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 4), st.integers(1, 2), st.booleans())
def test_the_enumeration_gives_the_brute_force_optimum(seed, n, K, integer):
    inst = _instance(np.random.default_rng(seed), n, K, integer=integer)
    found = exhaustive_schedules(inst, METRICS)
    assert found is not None
    for m, v in brute_force(inst).items():
        value, cluster, start = found[m]
        assert value == pytest.approx(v, rel=1e-9, abs=1e-9), m
        plain_check(inst, cluster, start)
        assert schedule_metrics(inst, cluster, start)[m] == value


def test_a_workload_too_large_is_not_enumerated():
    inst = _instance(np.random.default_rng(1), 8, 1)
    assert enumeration_size(inst) == 40320 > EXHAUST_CAP and exhaustive_schedules(inst, METRICS) is None


def test_a_tiny_workload_is_solved_at_once_whatever_the_clock():
    # five jobs, bounded slowdown: the search used to run its whole clock (about 9 s of CPU at a 20 s limit)
    inst = BatchInstance.from_arrays([0, 0, 1, 2, 3], [2, 4, 1, 3, 2], np.array([[10.0], [5], [3], [4], [2]]), [4])
    c0 = time.process_time()
    res = clairvoyant_schedules(inst, time_limit=600)
    assert time.process_time() - c0 < 5
    opt = brute_force(inst)
    for m in METRICS:
        s = res[m]
        assert s.method == "exhaustive" and s.stopped == "done" and s.value == pytest.approx(opt[m], rel=1e-12)
        check_batch_schedule(inst, s.cluster, s.start)


def test_the_portfolio_is_sized_by_work_not_by_the_clock():
    # a clock already run out does not cut the portfolio short: its schedules are those of an unhurried run
    inst = _instance(np.random.default_rng(5), 40, 2, integer=False)
    hurried = clairvoyant_schedules(inst, time_limit=1e-9, budget=1e12, quick=True)
    calm = clairvoyant_schedules(inst, time_limit=600, budget=1e12, quick=True)
    for m in METRICS:
        assert hurried[m].evaluations == calm[m].evaluations == len(QUICK_PORTFOLIO)
        assert hurried[m].value == calm[m].value and np.array_equal(hurried[m].start, calm[m].start)


def test_a_small_workload_stops_on_its_own_without_a_patience():
    # eight jobs (too many to enumerate): every step stops once its moves stop improving, long before the budget
    inst = _instance(np.random.default_rng(2), 8, 1, integer=True)
    runs = [clairvoyant_schedules(inst, metrics=("mean_response",), time_limit=600, budget=1e12) for _ in range(2)]
    a, b = (r["mean_response"] for r in runs)
    assert a.stopped == "patience" and a.value == b.value and a.evaluations == b.evaluations
    check_batch_schedule(inst, a.cluster, a.start)


# -- the enumeration as the lower side: a proof of each metric's optimum ------------------------------------------
def _grid_optimum(inst: BatchInstance) -> dict:
    """Best value of each metric over *every* schedule with integer starts (one cluster, integer times, a few jobs):
    all start vectors in ``[r_j, H]`` at once, the capacity checked at every integer instant. Not the active
    schedules of the enumeration: every feasible integer schedule, so each value is at least the optimum."""
    r, q, p = inst.release.astype(int), inst.width, inst.duration[:, 0]
    horizon = int(r.max() + p.sum())
    starts = np.stack(np.meshgrid(*[np.arange(rj, horizon + 1) for rj in r], indexing="ij"), -1).reshape(-1, len(r))
    t = np.arange(horizon + int(p.max()) + 1)
    running = (starts[:, :, None] <= t) & (t < starts[:, :, None] + p[:, None])
    ok = ((running * q[:, None]).sum(axis=1) <= inst.procs[0]).all(axis=1)
    values = [schedule_metrics(inst, np.zeros(len(r), dtype=np.int64), s.astype(float)) for s in starts[ok]]
    return {m: min((v[m] for v in values if v[m] is not None), default=None) for m in METRICS}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 3))
def test_the_exhaustive_lower_bound_is_below_every_integer_schedule_and_reached(seed, n):
    inst = _instance(np.random.default_rng(seed), n, 1, integer=True)
    bounds = instance_bounds(inst, method="lp", time_limit=5).bounds
    for m, v in _grid_optimum(inst).items():
        if v is None:
            assert bounds[m].value is None
            continue
        assert bounds[m].method == "exhaustive" and bounds[m].value == pytest.approx(v, rel=1e-12, abs=1e-12), m


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 5), st.integers(1, 2), st.booleans())
def test_on_a_tiny_workload_both_sides_meet_at_the_brute_force_optimum(seed, n, K, integer):
    inst = _instance(np.random.default_rng(seed), n, K, integer=integer)
    refs = instance_references(inst, method="lp", time_limit=5)
    for m, v in brute_force(inst).items():
        br = refs.brackets[m]
        assert br.lower.method == "exhaustive" and br.upper.method == "exhaustive" and br.status == "optimal", m
        assert br.lower.value == pytest.approx(v, rel=1e-9, abs=1e-9) and br.lower.value <= br.upper.value, m


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 4))
def test_the_exhaustive_lower_bound_equals_the_milp_optimum(seed, n):
    # the time-indexed MILP proves the optimum of the mean response time and the makespan another way
    inst = _instance(np.random.default_rng(seed), n, 1, integer=True, zeros=False)
    bounds = instance_bounds(inst, method="exact", time_limit=30)
    assert bounds.exact.status == "optimal" and bounds.exact.makespan_status == "optimal"
    assert bounds.bounds["mean_response"].value == pytest.approx(bounds.exact.mean_response, rel=1e-6)
    assert bounds.bounds["makespan"].value == pytest.approx(bounds.exact.makespan, rel=1e-6)
    assert {b.method for b in bounds.bounds.values()} == {"exhaustive"}  # the MILP's dual bound does not replace it


def test_a_tiny_workload_skips_the_relaxations_and_gives_the_milp_the_time(monkeypatch):
    # the relaxations would spend half of the limit (under load the MILP was left 2 s of 8 and ended "feasible")
    inst = BatchInstance.from_arrays([0, 0, 1, 2, 3], [2, 4, 1, 3, 2], np.array([[10.0], [5], [3], [4], [2]]), [4])

    def relaxation(*args, **kwargs):
        raise AssertionError("a relaxation ran on a workload the enumeration solves")

    for name in ("_apply_stretch", "_apply_lp", "_apply_lagrangian"):
        monkeypatch.setattr(bounds_module, name, relaxation)
    given_limit = []
    real = bounds_module.exact_optimum

    def milp(inst, *, time_limit):
        given_limit.append(time_limit)
        return real(inst, time_limit=time_limit)

    monkeypatch.setattr(bounds_module, "exact_optimum", milp)
    result = instance_bounds(inst, method="exact", time_limit=20)
    assert given_limit and given_limit[0] >= 0.9 * 20
    opt = brute_force(inst)
    for m, b in result.bounds.items():
        assert b.method == "exhaustive" and b.value == pytest.approx(opt[m], rel=1e-12)
    monkeypatch.setattr(bounds_module, "EXHAUST_CAP", 0)  # the control: without the enumeration they run
    with pytest.raises(AssertionError, match="a relaxation ran"):
        instance_bounds(inst, method="lp", time_limit=5)
