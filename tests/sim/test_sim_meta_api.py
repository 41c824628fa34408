"""The grid API that the later reallocation issue builds on (seed §2.2.1, Algorithm 1).

A test meta-scheduler maps arrivals with MCT and every hour lists the waiting jobs of
every cluster, asks their ECT everywhere (vectorised and one by one: both must agree),
and moves a job when another cluster finishes it at least 60 s earlier.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from heuristics.grid import MCT
from vcsched.problems.workload import read_swf, shift_to_origin, time_window
from vcsched.sim import JobTable, make_cluster, simulate_grid
from vcsched.sim.invariants import check_schedule

_spec = importlib.util.spec_from_file_location("_sim_conftest3", Path(__file__).resolve().parent.parent / "conftest.py")
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)


class MCTWithReallocation(MCT):
    def __init__(self, period=3600.0):
        self.period = period
        self.moves = 0
        self.checked = 0

    def start(self, grid):
        grid.every(self.period, self.reallocate)

    def reallocate(self, grid):
        waiting = grid.waiting()
        if not waiting:
            return
        ect = grid.ect_matrix(waiting)
        one_by_one = np.array([[grid.ect(j, c) for c in range(len(grid.clusters))] for j in waiting])
        np.testing.assert_allclose(ect, one_by_one)
        self.checked += len(waiting)
        for j in waiting:  # Algorithm 1 with MCT order (submission order)
            here = grid.current_cluster(j)
            current = grid.ect(j, here)
            best = int(np.argmin(grid.ect_all(j)))
            if grid.ect(j, best) + 60 < current:
                assert grid.cancel(j)
                grid.submit(j, best)
                self.moves += 1


@pytest.mark.parametrize("policies", [("cbf", "cbf"), ("fcfs", "easy"), ("easy", "cbf")])
def test_periodic_reallocation_through_the_grid_api(policies):
    kth = shift_to_origin(time_window(read_swf(_conftest.require_trace("KTH-SP2-1996-2.1-cln.swf.gz")), days=4))
    sdsc = shift_to_origin(time_window(read_swf(_conftest.require_trace("SDSC-SP2-1998-4.2-cln.swf.gz")), days=4))
    jobs = JobTable.from_workloads([kth, sdsc], labels=["kth", "sdsc"])
    meta = MCTWithReallocation()
    res = simulate_grid([make_cluster("kth", 100, 1.0, policies[0]), make_cluster("sdsc", 128, 1.4, policies[1])], jobs,
                   meta=meta)
    check_schedule(res)
    assert meta.checked > 0 and meta.moves > 0
    assert res.resubmissions.sum() == meta.moves
