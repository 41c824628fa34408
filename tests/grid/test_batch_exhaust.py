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
from tests.grid.batch_oracle import brute_force, plain_check
from tests.grid.test_batch_clairvoyant import _instance


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 4), st.integers(1, 3), st.booleans())
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
