"""The fast paths are exact: compare them with naive versions of the same rules.

* CBF: the compiled re-plan vs. the literal rule written on :class:`Profile`
  (``tests/sim/literal_cbf.py``), on random workloads and a window of a real trace;
* EASY: the "only new arrivals" shortcut vs. a full scan at every pass.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from tests.sim.literal_cbf import LiteralCBF
from vcsched.problems.workload import from_arrays, read_swf, time_window
from vcsched.sim import JobTable, simulate_grid
from vcsched.sim.cbf import CBFCluster
from vcsched.sim.easy import EasyCluster
from vcsched.sim.invariants import check_schedule

_spec = importlib.util.spec_from_file_location("_sim_conftest2", Path(__file__).resolve().parent.parent / "conftest.py")
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)


class NaiveEasy(EasyCluster):
    def _pass(self, _=None):
        self._dirty = True
        super()._pass()


def random_jobs(seed: int, n: int = 300, procs: int = 32):
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 4000, size=n)).astype(float)
    req = rng.choice([0, 1, 5, 30, 60, 200, 600], size=n).astype(float)
    run = np.floor(req * rng.choice([0.0, 0.3, 1.0], size=n))
    width = rng.choice([1, 1, 2, 4, 8, 16, procs], size=n)
    return JobTable.from_workloads([from_arrays(submit, run, req, width)])


def same_schedule(fast_cls, naive_cls, jobs, procs):
    a = simulate_grid([fast_cls("c", procs)], jobs)
    b = simulate_grid([naive_cls("c", procs)], jobs)
    check_schedule(a)
    check_schedule(b)
    np.testing.assert_array_equal(a.start, b.start)
    return a


@pytest.mark.parametrize("seed", range(8))
def test_cbf_replan_shortcut_is_exact_on_random_workloads(seed):
    res = same_schedule(CBFCluster, LiteralCBF, random_jobs(seed), 32)
    assert res.clusters[0].replans > 10


@pytest.mark.parametrize("seed", range(4))
def test_easy_new_arrivals_shortcut_is_exact_on_random_workloads(seed):
    same_schedule(EasyCluster, NaiveEasy, random_jobs(100 + seed), 32)


@pytest.mark.parametrize("fast,naive", [(CBFCluster, LiteralCBF), (EasyCluster, NaiveEasy)])
def test_shortcuts_are_exact_on_a_window_of_kth(fast, naive):
    w = time_window(read_swf(_conftest.require_trace("KTH-SP2-1996-2.1-cln.swf.gz")), days=10)
    same_schedule(fast, naive, JobTable.from_workloads([w]), 100)


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["fcfs", "easy", "cbf"])
def test_whole_ctc_trace_invariants(policy):
    from vcsched.sim import make_cluster

    w = read_swf(_conftest.require_trace("CTC-SP2-1996-3.1-cln.swf.gz"))
    assert len(w) == 77222 and w.max_procs == 338
    res = simulate_grid([make_cluster("ctc", 338, policy=policy)], JobTable.from_workloads([w]))
    check_schedule(res)
