"""The global submission order (``SimulationResult.submission_seq``) and the FCFS-order invariant built on it.

Jobs (re)submitted to one cluster at the same instant enter its queue in the order of
the ``submit`` calls, which need not be their row order; the FCFS check of
:func:`vcsched.sim.invariants.check_schedule` sorts by that order, not by (submission
time, row).
"""

from __future__ import annotations

import numpy as np
import pytest

from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, make_cluster, simulate_grid
from vcsched.sim.invariants import check_schedule


class ReverseResubmit:
    """Maps every job to cluster 0; at t=5 cancels the waiting jobs and resubmits them in reverse row order."""

    def __init__(self) -> None:
        self.done = False

    def map(self, grid, job: int) -> int:
        return 0

    def start(self, grid) -> None:
        grid.every(100.0, self.reverse, first=5.0)

    def reverse(self, grid) -> None:
        if self.done:
            return
        self.done = True
        waiting = grid.waiting(0)
        for j in waiting:
            grid.cancel(j)
        for j in reversed(waiting):
            grid.submit(j, 0)


def _reversed_run():
    # one processor: job 0 runs 0-10; jobs 1-3 wait, are resubmitted at t=5 as 3, 2, 1
    w = from_arrays([0, 0, 1, 1], [10, 10, 10, 10], [10, 10, 10, 10], [1, 1, 1, 1])
    return simulate_grid([make_cluster("a", 1, policy="fcfs")], JobTable.from_workloads([w]), meta=ReverseResubmit(),
                    record=True)


def _old_fcfs_order_holds(res) -> bool:
    """The former rule: starts non-decreasing in (last submission time, row) order."""
    order = np.lexsort((np.arange(len(res.jobs)), res.submitted_to))
    return bool((np.diff(res.start[order]) >= 0).all())


def test_same_instant_resubmissions_out_of_row_order_pass_the_fcfs_check():
    res = _reversed_run()
    assert res.start.tolist() == [0.0, 30.0, 20.0, 10.0]
    assert res.submitted_to.tolist() == [0.0, 5.0, 5.0, 5.0]
    assert res.submission_seq.tolist() == [0, 6, 5, 4]  # arrivals 0-3, then the resubmissions of 3, 2, 1
    assert not _old_fcfs_order_holds(res)  # the case the former (time, row) order rejected
    check_schedule(res)


def test_tampered_fcfs_start_order_fails_the_check():
    res = _reversed_run()
    # jobs 1 and 3 swap their slots (same run time): row order, but not the queue order of the resubmissions
    for col in (res.start, res.finish):
        col[[1, 3]] = col[[3, 1]]
    assert _old_fcfs_order_holds(res)  # the former rule accepted this wrong schedule
    with pytest.raises(AssertionError, match="FCFS order broken on a"):
        check_schedule(res)


def test_tampered_order_of_plain_arrivals_fails_the_check():
    w = from_arrays([0, 0, 0], [10, 5, 5], [10, 5, 5], [2, 2, 2])
    res = simulate_grid([make_cluster("a", 2, policy="fcfs")], JobTable.from_workloads([w]))
    assert res.start.tolist() == [0.0, 10.0, 15.0]
    check_schedule(res)
    for col in (res.start, res.finish):
        col[[1, 2]] = col[[2, 1]]
    with pytest.raises(AssertionError, match="FCFS order broken"):
        check_schedule(res)


@pytest.mark.parametrize("record", [False, True])
def test_arrivals_get_the_row_order_in_both_arrival_paths(record):
    """The fast arrival path (no meta-scheduler, no log) numbers the jobs as :meth:`Grid.submit` does."""
    a = from_arrays([0, 0, 3, 7], [5, 5, 5, 5], [5, 5, 5, 5], [1, 2, 1, 1])
    b = from_arrays([0, 3, 3], [5, 5, 5], [5, 5, 5], [1, 1, 2])
    jobs = JobTable.from_workloads([a, b])
    res = simulate_grid([make_cluster("a", 2), make_cluster("b", 2)], jobs, record=record)
    assert res.submission_seq.tolist() == list(range(len(jobs)))
    check_schedule(res)
