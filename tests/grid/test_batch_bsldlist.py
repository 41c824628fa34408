"""The bounded slowdown's list moves resumed from kept construction states (lowerbounds.batch.bsldlist): each trial
is the plain serial construction's schedule of the new list, and the search never worsens."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowerbounds.batch._listsched import serial_schedule
from lowerbounds.batch._searchstep import Best, Limit
from lowerbounds.batch.bsldlist import ResumableSerial, _moved, bsld_list_search
from lowerbounds.batch.clairvoyant import _Evaluator, run_key
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics

M = "mean_bounded_slowdown"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=30), st.data())
def test_a_lowered_key_moves_one_job_as_a_stable_sort_would(keys, data):
    key = np.array(keys, float)
    order = np.argsort(key, kind="stable")
    j = data.draw(st.integers(0, key.size - 1))
    new = float(data.draw(st.integers(-1, keys[j])))
    moved, first = _moved(order, key, j, new)
    key[j] = new
    assert np.array_equal(moved, np.argsort(key, kind="stable"))
    assert np.array_equal(moved[:first], order[:first])


def _instance(rng, n, clusters):
    procs = rng.integers(4, 24, clusters)
    r = np.sort(rng.integers(0, 3000, n)).astype(float)
    q = rng.integers(1, procs.min() + 1, n)
    d = rng.integers(0, 600, (n, clusters)).astype(float)
    if clusters > 1:  # some jobs fit one cluster only
        d[:, 1][rng.random(n) < 0.3] = np.inf
    return r, q.astype(np.int64), d, procs.astype(np.int64)


@pytest.mark.parametrize("seed", range(6))
def test_each_trial_is_the_plain_serial_construction_of_its_list(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    r, q, d, procs = _instance(rng, n, 1 + seed % 2)
    rs = ResumableSerial(r, q, d, procs, np.zeros(1, dtype=np.int64))
    rs.every = int(rng.integers(1, 12))
    key = r + rng.uniform(0, 2000, n)
    rs.build(np.argsort(key, kind="stable"))
    for move in range(25):
        j = int(rng.integers(n))
        order, first = _moved(rs.order, key, j, key[j] - rng.uniform(0, 2000))
        cluster, start, resumed = rs.trial(order, first)
        assert resumed <= first
        plain = serial_schedule(r, q, d, procs, order)
        assert np.array_equal(cluster, plain[0]) and np.array_equal(start, plain[1])
        if move % 3 == 0:  # kept: the next list is the new schedule's start order, its states from where it differs
            key = start.copy()
            new = np.argsort(key, kind="stable")
            diff = np.flatnonzero(new != rs.order)
            rs.build(new, int(diff[0]) if diff.size else n)
            plain = serial_schedule(r, q, d, procs, new)
            assert np.array_equal(rs.cluster, plain[0]) and np.array_equal(rs.start, plain[1])


@pytest.mark.parametrize("seed", range(4))
def test_the_list_moves_never_worsen_and_pass_the_checker(seed):
    rng = np.random.default_rng(seed)
    r, q, d, procs = _instance(rng, 120, 1 + seed % 2)
    inst = BatchInstance.from_arrays(r, q, np.where(np.isfinite(d), d, 2 * d[:, :1]), procs)
    values, cluster, start = run_key(inst, r, "serial")  # submission order
    ev = _Evaluator(inst)
    before = Best(values[M], "portfolio", "fcfs", cluster, start, "serial")
    best, stopped = bsld_list_search(ev, before, np.random.default_rng(seed), Limit(ev, np.inf, np.inf, 300), 100)
    assert stopped in ("iterations", "patience", "done")
    check_batch_schedule(inst, best.cluster, best.start)
    assert best.value == schedule_metrics(inst, best.cluster, best.start)[M]
    assert best.value <= before.value
    assert ev.work > 0 and ev.count > 0
