"""The planning snapshot (:mod:`vcsched.sim.planning`): the clusters' own ECTs and reservations, to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from vcsched.problems.workload import from_arrays
from vcsched.sim import Grid, JobTable, make_cluster


def _jobs(seed: int, n: int = 60) -> JobTable:
    rng = np.random.default_rng(seed)
    run = np.ceil(rng.lognormal(6.0, 1.0, n))
    req = np.ceil(run * rng.uniform(1, 3, n))
    req[:3] = 0  # planned as 1 s
    return JobTable.from_workloads([from_arrays(np.zeros(n), run, req, rng.integers(1, 17, n))])


def _grid(batch: str, jobs: JobTable) -> Grid:
    return Grid([make_cluster("a", 16, 1.0, batch), make_cluster("b", 24, 1.3, batch)], jobs)


@pytest.mark.parametrize("batch", ["fcfs", "easy", "cbf"])
def test_planning_snapshot_answers_the_clusters_ects_and_reserves_as_they_plan(batch):
    jobs = _jobs(1)
    queued, later = list(range(30)), np.arange(30, 60)
    grids = [_grid(batch, jobs), _grid(batch, jobs)]
    for g in grids:
        g.submit_many(queued, [j % 2 for j in queued])
    snap = grids[0].planning_snapshot(later)
    np.testing.assert_array_equal(snap.completions(), grids[0].ect_matrix(later.tolist()))
    dest = [int(i % 2) for i in range(later.size)]
    starts = [snap.reserve(i, k) for i, k in enumerate(dest)]
    done, where, logged = snap.reservations()
    assert done.tolist() == later.tolist() and where.tolist() == dest and logged.tolist() == starts
    adopted = []
    for c in grids[0].clusters:
        c.adopt_plan = lambda *a, c=c, f=c.adopt_plan: adopted.append(f(*a)) or adopted[-1]
    grids[0].submit_many(later.tolist(), dest)  # FCFS adopts the snapshot's plan; the others plan again
    assert adopted == [batch == "fcfs"] * 2
    for j, k in zip(later.tolist(), dest):
        grids[1].submit(j, k)
    for i, (j, k) in enumerate(zip(later.tolist(), dest)):
        d = grids[0].clusters[k].planned_durations(np.array([j]))[0]
        assert grids[0].ect(j, k) == grids[1].ect(j, k) == starts[i] + d
    probe = list(range(60))
    np.testing.assert_array_equal(grids[0].ect_matrix(probe), grids[1].ect_matrix(probe))
