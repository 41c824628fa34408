"""Simbatch's CBF re-plan from scratch (``CBFCluster.set_replan_rule("full")``) against a literal reference.

:class:`LiteralFullCBF` is the rule as Simbatch reads (``frs69wq/Simbatch``,
``plugins/scheduler/cbf.c``): at an early end or a cancellation every waiting reservation
is dropped, then each waiting job is reserved again in submission order at its earliest
slot from now. It is written on :class:`tests.sim.plain_profile.PlainProfile`, the numpy
oracle that shares no code with the compiled engine, on top of the literal CBF of
``tests/sim/literal_cbf.py``. A hand-computed case shows where the two rules differ.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.sim.literal_cbf import LiteralCBF
from tests.sim.test_sim_cbf_perf import RandomCanceller, random_jobs
from vcsched.errors import InvalidInputError
from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, make_cluster, simulate_grid
from vcsched.sim.cbf import CBFCluster
from vcsched.sim.invariants import check_schedule


class LiteralFullCBF(LiteralCBF):
    """The literal CBF with Simbatch's re-plan: release every waiting reservation, then re-reserve in queue order."""

    replan_rule = "full"  # read by check_schedule

    def replan(self):
        now = self.kernel.now
        prof = self.profile
        prof.trim(now)
        self.replans += 1
        later = [j for j in self.waiting_jobs if self.reservation[j] > now]  # the others start now
        for j in later:
            prof.release(self.reservation[j], self.duration[j], self.P[j])
        for j in later:
            d, p = self.duration[j], self.P[j]
            s = prof.earliest(p, d, now)
            prof.reserve(s, d, p)
            if s != self.reservation[j]:
                self._give(j, s)


def check_full(result) -> None:
    """:func:`vcsched.sim.invariants.check_schedule`, which leaves out the CBF reservation
    invariant on clusters set to the full rule (it may delay a job past the reservation given
    at its submission: :func:`test_full_replan_can_delay_a_job`)."""
    check_schedule(result)


def full(name, procs, speed=1.0):
    c = CBFCluster(name, procs, speed)
    c.set_replan_rule("full")
    return c


def _both(jobs, specs, meta_seed=None):
    out = []
    for make in (full, LiteralFullCBF):
        meta = RandomCanceller(meta_seed) if meta_seed is not None else None
        res = simulate_grid([make(*spec) for spec in specs], jobs, meta=meta)
        check_full(res)
        out.append((res, meta))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_full_replan_matches_the_literal_rule_on_random_workloads(seed):
    (fast, _), (lit, _) = _both(random_jobs(seed), [("c", 32, 1.0)])
    np.testing.assert_array_equal(fast.start, lit.start)
    np.testing.assert_array_equal(fast.finish, lit.finish)
    assert fast.clusters[0].replans == lit.clusters[0].replans > 10


@pytest.mark.parametrize("seed", range(3))
def test_full_replan_matches_the_literal_rule_with_cancellations_and_heterogeneous_speeds(seed):
    jobs = random_jobs(70 + seed, n=300, procs=24, origins=2)
    (fast, mf), (lit, ml) = _both(jobs, [("a", 32, 1.0), ("b", 24, 1.37)], meta_seed=seed)
    assert mf.moves == ml.moves > 20
    np.testing.assert_array_equal(fast.start, lit.start)
    np.testing.assert_array_equal(fast.cluster, lit.cluster)
    np.testing.assert_array_equal(fast.resubmissions, lit.resubmissions)


def test_full_replan_differs_from_earliest_on_a_hand_computed_case():
    """4 processors. A (2 procs, requested 100, runs 10) and B (2 procs, 50, runs 50) start at 0.

    X (t=1, 4 procs, 100 s) is reserved at [100, 200); Y (t=2, 2 procs, 40 s) backfills
    at [50, 90). A ends at 10, 90 s early: a re-plan.

    * ``earliest``: X first, with Y still reserved on [50, 90): 4 processors are free
      from 90 only, X moves to 90. Then Y moves to 10 (2 free beside B). X runs 90-190.
    * ``full``: both reservations dropped; X first: 4 free from 50 (B's end), X at 50;
      then Y at 10. X runs 50-150. Y and B end on time at 50: no further re-plan.
    """
    rows = [(0, 10, 100, 2), (0, 50, 50, 2), (1, 100, 100, 4), (2, 40, 40, 2)]  # (submit, run, requested, procs)
    jobs = JobTable.from_workloads([from_arrays(*[[r[k] for r in rows] for k in range(4)])])
    earliest = simulate_grid([make_cluster("c", 4, policy="cbf")], jobs)
    scratch = simulate_grid([full("c", 4)], jobs)
    literal = simulate_grid([LiteralFullCBF("c", 4)], jobs)
    assert earliest.start.tolist() == [0.0, 0.0, 90.0, 10.0]
    assert scratch.start.tolist() == literal.start.tolist() == [0.0, 0.0, 50.0, 10.0]
    assert scratch.finish.tolist() == [10.0, 50.0, 150.0, 50.0]


def test_full_replan_can_delay_a_job():
    """The full rule is not conservative: a job queued earlier takes the room of a backfilled one.

    6 processors. A (2 procs, requested 100, runs 10), B (2 procs, 30, runs 30) and C
    (2 procs, 1000) start at 0. X (t=1, 4 procs, 100 s) is reserved at [100, 200): 2 are
    free on [30, 100) only. Y (t=2, 2 procs, 60 s) backfills at [30, 90). A ends at 10.

    * ``earliest``: X, with Y still on [30, 90), finds 4 free from 90: X at 90. Y then
      moves to 10 ([10, 30) beside B and C, [30, 70) free). X runs 90-190, Y 10-70.
    * ``full``: X first finds 4 free from 30 (B's end): X at 30, on [30, 130). Y needs 2
      for 60 s: [10, 30) has 2 but [30, 130) none, so Y goes to 130, later than its
      reservation at 30. X runs 30-130, Y 130-190.
    """
    rows = [(0, 10, 100, 2), (0, 30, 30, 2), (0, 1000, 1000, 2), (1, 100, 100, 4), (2, 60, 60, 2)]
    jobs = JobTable.from_workloads([from_arrays(*[[r[k] for r in rows] for k in range(4)])])
    earliest = simulate_grid([make_cluster("c", 6, policy="cbf")], jobs)
    scratch = simulate_grid([full("c", 6)], jobs)
    literal = simulate_grid([LiteralFullCBF("c", 6)], jobs)
    assert earliest.start.tolist() == [0.0, 0.0, 0.0, 90.0, 10.0]
    assert scratch.start.tolist() == literal.start.tolist() == [0.0, 0.0, 0.0, 30.0, 130.0]
    assert scratch.finish.tolist()[3:] == [130.0, 190.0]


def test_unknown_replan_rule_is_an_error():
    with pytest.raises(InvalidInputError, match="re-plan rule"):
        CBFCluster("c", 4).set_replan_rule("compress")
