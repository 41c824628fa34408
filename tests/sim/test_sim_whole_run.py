"""The compiled whole run of one FCFS/EASY cluster (``vcsched.sim.whole_run``, ``Grid.run``'s fast path) gives the
schedules of the event-driven clusters and of the plain simulator."""

from __future__ import annotations

import numpy as np
import pytest

from tests.sim import native_build, plain_batch
from tests.sim.test_sim_plain_batch import _random_swf
from vcsched.problems.workload import from_arrays, read_swf
from vcsched.sim import Grid, JobTable, make_cluster
from vcsched.sim.invariants import check_schedule


@pytest.fixture(params=["c", "fallback"])
def loops(request, monkeypatch):
    """Each test runs with the C extension's loops, then with their fallbacks (numba, Python)."""
    native_build.use(request.param, monkeypatch)
    return request.param


def _run(jobs: JobTable, procs: int, policy: str, whole: bool, speed: float = 1.0):
    grid = Grid([make_cluster("c", procs, speed, policy)], jobs)
    grid.WHOLE_RUN_FROM = grid.WHOLE_RUN_C_FROM = 0 if whole else 10**12
    res = grid.run()
    assert (grid.kernel._seq == 0) == whole  # the compiled loop schedules no kernel event
    return grid, res


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
@pytest.mark.parametrize("seed", range(4))
def test_whole_run_equals_the_event_loop_and_the_plain_simulator(policy, seed, tmp_path, loops):
    path = tmp_path / "t.swf"
    _random_swf(path, seed, n=600, procs=24)
    jobs = JobTable.from_workloads([read_swf(path)])
    g1, fast = _run(jobs, 24, policy, True)
    g2, slow = _run(jobs, 24, policy, False)
    np.testing.assert_array_equal(fast.start, slow.start)
    np.testing.assert_array_equal(fast.finish, slow.finish)
    np.testing.assert_array_equal(fast.submission_seq, slow.submission_seq)
    np.testing.assert_array_equal(fast.submitted_to, slow.submitted_to)
    if policy == "easy":
        assert g1.clusters[0].head_reservations == g2.clusters[0].head_reservations
        assert len(g1.clusters[0].head_reservations) > 20
    check_schedule(fast)
    plain_jobs, size = plain_batch.read_trace(str(path))
    start, finish = plain_batch.simulate(plain_jobs, size, policy)
    assert fast.start.tolist() == start and fast.finish.tolist() == finish


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
def test_whole_run_on_a_slower_cluster_with_zero_length_bursts(policy, loops):
    rng = np.random.default_rng(5)
    n = 500
    submit = np.repeat(np.arange(100.0) * 13, 5)
    req = rng.choice([0.0, 1.0, 7.0, 50.0], size=n)
    run = np.where(rng.random(n) < 0.3, 0.0, np.floor(req * rng.random(n)))
    jobs = JobTable.from_workloads([from_arrays(submit, run, req, rng.choice([1, 2, 5, 9], size=n))])
    _, fast = _run(jobs, 9, policy, True, speed=0.7)
    _, slow = _run(jobs, 9, policy, False, speed=0.7)
    np.testing.assert_array_equal(fast.start, slow.start)
    np.testing.assert_array_equal(fast.finish, slow.finish)


def test_whole_run_is_not_taken_with_a_meta_scheduler_or_several_clusters(loops):
    from heuristics.grid import MCT

    jobs = JobTable.from_workloads([from_arrays([0.0, 1.0], [5.0, 5.0], [5.0, 5.0], [2, 2])])
    for clusters, meta in (([make_cluster("a", 2, policy="easy")], MCT()),
                           ([make_cluster("a", 2, policy="easy"), make_cluster("b", 2, policy="fcfs")], None),
                           ([make_cluster("a", 2, policy="cbf")], None)):
        grid = Grid(clusters, jobs, meta=meta)
        grid.WHOLE_RUN_FROM = grid.WHOLE_RUN_C_FROM = 0
        assert not grid._run_whole()


@pytest.mark.parametrize("policy", ["fcfs", "easy", "cbf"])
def test_compiled_processor_numbers_equal_the_python_sweep_and_the_numpy_reference(policy, monkeypatch):
    from tests.sim.test_sim_outputs import reference_allocation
    from vcsched.sim import output

    rng = np.random.default_rng(11)
    n = 400
    submit = np.sort(rng.integers(0, 3000, size=n)).astype(float)
    req = rng.choice([0.0, 1.0, 10.0, 60.0, 400.0], size=n)
    run = np.floor(req * rng.choice([0.0, 0.5, 1.0], size=n))
    width = rng.choice([1, 2, 3, 5, 8, 16], size=n)
    jobs = JobTable.from_workloads([from_arrays(submit, run, req, width)])
    res = Grid([make_cluster("c", 16, policy=policy)], jobs).run()
    start = np.concatenate((np.zeros(64), np.arange(1.0, 11.0)))  # fragmented numbers (32 intervals a job)
    finish = np.concatenate((np.where(np.arange(64) % 2 == 1, 1.0, 100.0), np.arange(2.0, 12.0)))
    procs = np.concatenate((np.ones(64, dtype=np.int64), np.full(10, 32)))
    expected = reference_allocation(res.start, res.finish, res.jobs.procs, 16)
    for kind, least in (("fallback", 10**12), ("fallback", 0), ("c", 0)):  # Python, numba, C
        native_build.use(kind, monkeypatch)
        monkeypatch.setattr(output, "ALLOCATE_COMPILED_FROM", least)
        assert output.allocate_processors(res.start, res.finish, res.jobs.procs, 16) == expected
        assert output.allocate_processors(start, finish, procs, 64) == reference_allocation(start, finish, procs, 64)
        with pytest.raises(Exception, match="more than 4 processors at time 1.0"):
            output.allocate_processors(np.array([0.0, 1.0]), np.array([5.0, 3.0]), np.array([3, 2]), 4)


def test_the_c_extension_is_left_out_when_switched_off_or_stale(monkeypatch):
    import sys
    import types

    from vcsched import native

    native_build.use("c", monkeypatch)
    assert native.speedups() is native._cache["module"] is not None
    monkeypatch.setenv("VCSCHED_NO_C", "1")
    assert native.speedups() is None
    monkeypatch.setenv("VCSCHED_NO_C", "0")
    assert native.speedups() is not None
    monkeypatch.delitem(native._cache, "module")
    monkeypatch.setitem(sys.modules, "vcsched._speedups", types.SimpleNamespace(VERSION=native.VERSION - 1))
    assert native.speedups() is None  # built from another version of _speedups.c
