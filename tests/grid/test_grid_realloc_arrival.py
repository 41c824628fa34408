"""A reallocation run maps arrivals with the platform's meta-scheduler, the same as its reference run
(:func:`vcsched.scenarios.grid_run.arrival_mapping`): MCT by default, ``origin`` when the platform says so."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from heuristics.grid.realloc import Reallocation
from vcsched.errors import UnknownNameError
from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, make_cluster, simulate_grid


def _jobs() -> JobTable:
    """Three 2-wide jobs from cluster a's trace at t = 0, 1, 2: MCT sends the second one to the idle b."""
    w = from_arrays([0, 1, 2], [600, 600, 600], [600, 600, 600], [2, 2, 2])
    return JobTable.from_workloads([w])


def _clusters():
    return [make_cluster("a", 2), make_cluster("b", 2)]


def test_origin_arrivals_stay_on_their_own_cluster():
    jobs = _jobs()
    pol = Reallocation("no-cancel", "minmin", period=3600.0, arrival="origin")
    simulate_grid(_clusters(), jobs, meta=pol)
    assert pol.arrival_cluster.tolist() == jobs.origin.tolist() == [0, 0, 0]


def test_mct_arrivals_by_default():
    pol = Reallocation("no-cancel", "minmin", period=3600.0)
    simulate_grid(_clusters(), _jobs(), meta=pol)
    assert pol.arrival_cluster.tolist() == [0, 1, 0]  # b is idle at t = 1; at t = 2 both end at 600: the first


def test_the_command_line_passes_the_platform_mapping():
    from vcsched.cli.grid import _policy

    args = argparse.Namespace(realloc="cancel", heuristic="minmin", period=3600.0, threshold=60.0,
                              cancel_threshold=False, queue_order="heuristic", current_ect="resubmit")
    assert _policy(args, "origin").arrival.name == "origin"
    assert _policy(args, None).arrival.name == "mct"


def test_an_unknown_arrival_mapping_is_refused_with_the_names():
    with pytest.raises(UnknownNameError, match="mct"):
        Reallocation("no-cancel", "minmin", arrival="random")
    assert np.array_equal(Reallocation().arrival_cluster, np.full(0, -1))
