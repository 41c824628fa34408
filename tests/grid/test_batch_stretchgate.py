"""Gates of the max-stretch repair (lowerbounds.batch.stretchgate) and the gated serial construction
(lowerbounds.batch._listsched.gated_serial_counted): the gates against a plain reading of their definition, the
argument behind them against every active schedule of tiny instances, the construction against a plain one."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch._listsched import gated_serial_counted, serial_schedule, serial_schedule_counted
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.stretchgate import Gates, stretch_gates
from tests.grid.batch_oracle import _earliest, brute_force


def _one_cluster(rng, n):
    m = int(rng.integers(2, 7))
    q = rng.integers(1, m + 1, size=n).astype(np.int64)
    r = np.sort(rng.integers(0, 25, size=n)).astype(float)
    p = rng.integers(0, 12, size=n).astype(float)
    return r, q, p, m


def _gated_at(gates, j, s):
    gptr, glo, ghi, _ = gates
    return bool(np.any((glo[gptr[j]:gptr[j + 1]] < s) & (s < ghi[gptr[j]:gptr[j + 1]])))


def _plain_gated(r, q, p, m, target, b, s):
    """The definition: some other job ``c`` that cannot run beside ``b`` has ``r_c + (S-1) p_c - p_b < s < r_c + p_c``
    (``b`` starting at ``s`` in its window makes ``c`` late)."""
    return any(c != b and p[c] > 0 and q[c] > m - q[b] and r[c] + (target - 1) * p[c] - p[b] < s < r[c] + p[c]
               for c in range(r.size))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 10), st.sampled_from([1.0, 1.5, 2.0, 2.5, 4.0]),
       st.sampled_from([0.0, 0.25, 0.5]))
def test_gates_are_their_definition_inside_each_window(seed, n, target, share):
    r, q, p, m = _one_cluster(np.random.default_rng(seed), n)
    gates = stretch_gates(r, q, p, m, target, None, share)
    gptr, glo, ghi, glast = gates
    assert np.allclose(glast, r + (target - 1) * p)
    for b in range(n):
        if not (p[b] > 0 and q[b] >= share * m):
            assert gptr[b] == gptr[b + 1]
            continue
        seg_lo, seg_hi = glo[gptr[b]:gptr[b + 1]], ghi[gptr[b]:gptr[b + 1]]
        assert np.all(seg_lo < seg_hi) and np.all(seg_hi[:-1] <= seg_lo[1:])  # sorted, disjoint
        ends = [r[c] + (target - 1) * p[c] - p[b] for c in range(n)] + [r[c] + p[c] for c in range(n)]
        probes = {r[b], glast[b]} | {x + d for x in ends for d in (-0.25, 0.0, 0.25)}
        for s in probes:
            if r[b] <= s <= glast[b]:
                assert _gated_at(gates, b, s) == _plain_gated(r, q, p, m, target, b, s), (b, s)


def _active_schedules(r, q, p, m):
    """Every schedule of the serial generation over all lists (one cluster): the active schedules."""
    for perm in itertools.permutations(range(r.size)):
        placed, start = [], np.zeros(r.size)
        for j in perm:
            start[j] = _earliest(placed, int(q[j]), m, float(r[j]), float(p[j]))
            if p[j] > 0:
                placed.append((start[j], start[j] + p[j], int(q[j])))
        yield start


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 5), st.sampled_from([1.0, 1.5, 2.0, 3.0]))
def test_a_start_inside_a_gate_makes_some_job_late(seed, n, target):
    # the module's argument, on every active schedule: a job started inside one of its gates at target S leaves
    # some job with stretch above S
    r, q, p, m = _one_cluster(np.random.default_rng(seed), n)
    p = np.maximum(p, 1.0)
    gates = stretch_gates(r, q, p, m, target, None, 0.0)
    for start in _active_schedules(r, q, p, m):
        stretch = (start + p - r) / p
        for b in range(n):
            if _gated_at(gates, b, start[b]) and start[b] <= gates[3][b]:
                assert stretch.max() > target * (1 + 1e-12)


def _plain_gated_serial(r, q, p, m, order, gates):
    """The gated construction, plainly: each job at the earliest start outside its gates where it fits (from the
    submission, the ends of the jobs placed and the gates' ends), or its earliest fit when that start is after its
    latest gated start."""
    gptr, glo, ghi, glast = gates
    placed, start = [], np.zeros(r.size)
    for j in order:
        s0 = _earliest(placed, int(q[j]), m, float(r[j]), float(p[j]))
        s = s0
        if p[j] > 0:
            cands = sorted({s0} | {f for (_, f, _) in placed if f > s0} | {h for h in ghi[gptr[j]:gptr[j + 1]] if h > s0})
            fits = [t for t in cands if not _gated_at(gates, j, t) and _earliest(placed, int(q[j]), m, t, p[j]) == t]
            s = fits[0] if fits and fits[0] <= glast[j] else s0
            placed.append((s, s + p[j], int(q[j])))
        start[j] = s
    return start


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 9), st.sampled_from([1.0, 1.5, 2.0, 3.0]))
def test_gated_construction_equals_the_plain_one_and_is_a_schedule(seed, n, target):
    rng = np.random.default_rng(seed)
    r, q, p, m = _one_cluster(rng, n)
    order = rng.permutation(n)
    gates = stretch_gates(r, q, p, m, target, None, 0.0)
    dur, procs = np.ascontiguousarray(p[:, None]), np.array([m], dtype=np.int64)
    cluster, start = gated_serial_counted(r, q, dur, procs, order, *gates, np.zeros(1, dtype=np.int64))
    assert np.allclose(start, _plain_gated_serial(r, q, p, m, order, gates))
    check_batch_schedule(BatchInstance.from_arrays(r, q, dur, procs), cluster, start)
    none = (np.zeros(n + 1, dtype=np.int64), np.empty(0), np.empty(0), r)
    _, plain = gated_serial_counted(r, q, dur, procs, order, *none, np.zeros(1, dtype=np.int64))
    assert np.array_equal(plain, serial_schedule(r, q, dur, procs, order)[1])


def test_a_gate_keeps_a_long_wide_job_off_the_start_that_blocks_a_short_one():
    # 2 processors: a job of the whole cluster for 10 s at 0 and a 1-s job on 1 processor at 1. Listed first, the long
    # job starts at 0 and the short one waits until 10 (stretch 10). Its gate at target 2 is (-8, 2): it starts at 2
    # instead, after the short one, and the max stretch is the optimum 1.2.
    r, q = np.array([0.0, 1.0]), np.array([2, 1], dtype=np.int64)
    dur, procs = np.array([[10.0], [1.0]]), np.array([2], dtype=np.int64)
    order = np.array([0, 1])
    work = np.zeros(1, dtype=np.int64)
    _, plain = serial_schedule_counted(r, q, dur, procs, order, work)
    gates = Gates(r, q, dur[:, 0], 2, work)(2.0, np.inf)
    assert list(gates[1]) == [-8.0] and list(gates[2]) == [2.0]
    cluster, start = gated_serial_counted(r, q, dur, procs, order, *gates, work)
    inst = BatchInstance.from_arrays(r, q, dur, procs)
    assert schedule_metrics(inst, cluster, plain)["max_stretch"] == pytest.approx(10.0)
    assert list(start) == [2.0, 1.0]
    assert schedule_metrics(inst, cluster, start)["max_stretch"] == pytest.approx(1.2)
    assert brute_force(inst)["max_stretch"] == pytest.approx(1.2)


def test_gates_follow_the_larger_of_the_target_and_the_best_value():
    r, q = np.array([0.0, 1.0]), np.array([2, 1], dtype=np.int64)
    p = np.array([10.0, 1.0])
    gates = Gates(r, q, p, 2, np.zeros(1, dtype=np.int64))
    assert gates(2.0, np.inf)[3][0] == pytest.approx(10.0)  # no value yet: the target's
    assert gates(2.0, 5.0)[3][0] == pytest.approx(40.0)  # the best value so far is larger
    assert gates(6.0, 5.0)[3][0] == pytest.approx(50.0)
