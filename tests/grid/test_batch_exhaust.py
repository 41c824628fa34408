"""The exhaustive optimum of tiny workloads (lowerbounds.batch.exhaust) and the search's stop on them."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch import clairvoyant_schedules
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
