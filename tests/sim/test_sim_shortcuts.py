"""The fast paths are exact: compare them with naive versions of the same rules.

* CBF re-plan: the screened/scan version vs. the literal rule (release each waiting job,
  re-insert it at :meth:`Profile.earliest` from now), on random workloads and a window of
  a real trace;
* EASY: the "only new arrivals" shortcut vs. a full scan at every pass.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from vcsched.problems.workload import from_arrays, read_swf, time_window
from vcsched.sim import JobTable, simulate
from vcsched.sim.batch import CBFCluster, EasyCluster
from vcsched.sim.invariants import check_schedule

_spec = importlib.util.spec_from_file_location("_sim_conftest2", Path(__file__).resolve().parent.parent / "conftest.py")
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)


class NaiveCBF(CBFCluster):
    def _replan(self):
        now = self.kernel.now
        prof = self.profile
        prof.trim(now)
        self.replans += 1
        for j in self.waiting_jobs:
            s_old = self.reservation[j]
            if s_old <= now:
                continue
            d, p = self.duration[j], self.P[j]
            prof.release(s_old, d, p)
            s = prof.earliest(p, d, now)
            prof.reserve(s, d, p)
            assert s <= s_old
            if s < s_old:
                self.reservation[j] = s
                self._order += 1
                import heapq

                heapq.heappush(self._starts, (s, self._order, j))
                self._wake_at(s)


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
    a = simulate([fast_cls("c", procs)], jobs)
    b = simulate([naive_cls("c", procs)], jobs)
    check_schedule(a)
    check_schedule(b)
    np.testing.assert_array_equal(a.start, b.start)
    return a


@pytest.mark.parametrize("seed", range(8))
def test_cbf_replan_shortcut_is_exact_on_random_workloads(seed):
    res = same_schedule(CBFCluster, NaiveCBF, random_jobs(seed), 32)
    assert res.clusters[0].replans > 10


@pytest.mark.parametrize("seed", range(4))
def test_easy_new_arrivals_shortcut_is_exact_on_random_workloads(seed):
    same_schedule(EasyCluster, NaiveEasy, random_jobs(100 + seed), 32)


@pytest.mark.parametrize("fast,naive", [(CBFCluster, NaiveCBF), (EasyCluster, NaiveEasy)])
def test_shortcuts_are_exact_on_a_window_of_kth(fast, naive):
    w = time_window(read_swf(_conftest.require_trace("KTH-SP2-1996-2.1-cln.swf.gz")), days=10)
    same_schedule(fast, naive, JobTable.from_workloads([w]), 100)


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["fcfs", "easy", "cbf"])
def test_whole_ctc_trace_invariants(policy):
    from vcsched.sim import make_cluster

    w = read_swf(_conftest.require_trace("CTC-SP2-1996-3.1-cln.swf.gz"))
    assert len(w) == 77222 and w.max_procs == 338
    res = simulate([make_cluster("ctc", 338, policy=policy)], JobTable.from_workloads([w]))
    check_schedule(res)
