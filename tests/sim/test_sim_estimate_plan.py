"""The incremental estimate plan of FCFS and EASY clusters equals a rebuild from scratch.

FCFS and EASY clusters answer ECT queries from a plan of their running and waiting jobs
(requested times) that is extended at each submission and kept across starts on the
planned slot and ends at the requested time (:meth:`vcsched.sim.queued.QueuedCluster._estimate_plan`).
Here a meta-scheduler submits, cancels and resubmits jobs at random and, at every
arrival and every few seconds (also between an end and the scheduling pass of its
instant), compares the ECT of every waiting job and of not-yet-arrived jobs with the
literal rule: plan every waiting job in queue order from now on the running jobs.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.sim.plain_profile import PlainProfile
from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, Profile, make_cluster, simulate_grid
from vcsched.sim.cluster import planned_duration
from vcsched.sim.invariants import check_schedule
from vcsched.sim.queued import _EstimatePlan

_INF = float("inf")


def literal_ects(cluster, jobs) -> np.ndarray:
    """ECT of ``jobs`` on ``cluster`` by re-planning its whole queue now (the rule, without any cache)."""
    now = cluster.kernel.now
    prof = PlainProfile(cluster.procs, now)
    for j, end in cluster.running_jobs.items():
        prof.add(now, end, -cluster.P[j])
    starts, lower = {}, now
    for j in cluster.waiting():
        d = planned_duration(cluster.requested_time(j))
        s = prof.earliest(cluster.P[j], d, lower)
        prof.reserve(s, d, cluster.P[j])
        starts[j] = s
        if cluster.policy == "fcfs":
            lower = s
    out = []
    for j in jobs:
        d = planned_duration(cluster.requested_time(j))
        if j in starts:
            out.append(starts[j] + d)
        elif cluster.P[j] > cluster.procs:
            out.append(_INF)
        else:
            out.append(prof.earliest(cluster.P[j], d, lower) + d)
    return np.array(out)


class RandomMeta:
    """Random mapping; every ``period`` s compares the ECTs and cancels / resubmits some waiting jobs at random."""

    def __init__(self, seed: int, period: float) -> None:
        self.rng = np.random.default_rng(seed)
        self.period = period
        self.checks = 0
        self.kept = 0  # submissions that extended an existing plan instead of dropping it

    def map(self, grid, job: int) -> int:
        self.compare(grid)
        fits = [k for k, c in enumerate(grid.clusters) if c.procs >= grid.P[job]]
        return int(self.rng.choice(fits))

    def start(self, grid) -> None:
        grid.every(self.period, self.shuffle, first=float(grid.jobs.submit.min()))

    def compare(self, grid) -> None:
        n = len(grid.jobs)
        probe = sorted(set(grid.waiting()) | set(range(grid.arrived, min(grid.arrived + 5, n))))
        for c in grid.clusters:
            sel = [j for j in probe if grid.P[j] <= c.procs]
            if not sel:
                continue
            want = literal_ects(c, sel)
            np.testing.assert_array_equal(c.ect_many(sel), want, err_msg=f"{c.name} at t={grid.now}")
            np.testing.assert_array_equal([c.ect(j) for j in sel[:3]], want[:3])
            self.checks += 1

    def shuffle(self, grid) -> None:
        self.compare(grid)
        waiting = grid.waiting()
        if not waiting:
            return
        moved = [j for j in waiting if self.rng.random() < 0.15]
        for j in moved:
            assert grid.cancel(j)
        self.compare(grid)
        for j in self.rng.permutation(moved).tolist():
            fits = [k for k, c in enumerate(grid.clusters) if c.procs >= grid.P[j]]
            k = int(self.rng.choice(fits))
            before = grid.clusters[k]._plan
            grid.submit(j, k)
            self.kept += before is not None and grid.clusters[k]._plan is before
        self.compare(grid)


def random_jobs(seed: int, n: int = 100) -> JobTable:
    """Integer times (same-instant arrivals and ends), requested 0, exact, early and zero-length runs."""
    rng = np.random.default_rng(seed)
    ws = []
    for _ in range(2):
        submit = np.sort(rng.integers(0, 6000, size=n)).astype(float)
        req = rng.choice([0, 1, 5, 30, 60, 200, 600], size=n).astype(float)
        run = np.floor(req * rng.choice([0.0, 0.3, 1.0, 1.0, 1.0, 1.0], size=n))  # mostly exact: plans last
        width = rng.choice([1, 1, 2, 4, 8, 16, 24], size=n)
        ws.append(from_arrays(submit, run, req, width))
    return JobTable.from_workloads(ws, labels=["a", "b"])


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
@pytest.mark.parametrize("seed", range(2))
def test_incremental_ect_equals_a_rebuild(policy, seed):
    meta = RandomMeta(seed, period=23.0)
    clusters = [make_cluster("a", 24, 1.0, policy), make_cluster("b", 16, 1.5, policy)]
    res = simulate_grid(clusters, random_jobs(seed), meta=meta)
    check_schedule(res)
    assert meta.checks > 500 and meta.kept > 20
    assert res.resubmissions.sum() > 50


def test_fcfs_estimate_forgets_the_planned_second_of_a_zero_requested_job():
    """A job requesting 0 s is planned for 1 s; once it started (and ended) the estimate no longer holds that second."""
    w = from_arrays([0, 1, 50, 100.5], [100, 0, 10, 10], [100, 0, 10, 10], [4, 4, 1, 4])
    seen = {}

    class Probe:
        def map(self, grid, job):
            seen[job] = grid.ect(job, 0)
            return 1 if job == 2 else 0  # job 2 elsewhere: cluster a keeps its plan from t=50

    simulate_grid([make_cluster("a", 4), make_cluster("b", 4)], JobTable.from_workloads([w]), meta=Probe())
    assert seen[3] == 110.5  # job 1 (requested 0) started and ended at 100: job 3 can start at its arrival


def test_a_passed_planned_start_makes_the_plan_stale():
    plan = _EstimatePlan(Profile(4, 0.0), 0.0, fcfs=True)
    plan.append(7, 4, 10.0, 0.0)
    plan.append(8, 4, 10.0, 0.0)
    assert plan.starts == {7: 0.0, 8: 10.0} and plan.lower == 10.0
    assert plan.current(0.0)
    del plan.starts[7]  # job 7 started on its slot
    assert plan.current(10.0) and not plan.current(10.5)


def test_plan_appends_as_the_plain_profile_rule_bit_for_bit():
    """The plan's step (trim to now, earliest slot from the previous start, reserve) gives what
    the numpy oracle :class:`PlainProfile` gives, fractional times too."""
    rng = np.random.default_rng(11)
    plain = PlainProfile(16, 0.25)
    plan = _EstimatePlan(Profile(16, 0.25), 0.25, fcfs=True)
    now, lower = 0.25, 0.25
    for j in range(200):
        now += float(rng.choice([0.0, 0.0, 0.5, 1 / 3]))
        p, d = int(rng.integers(1, 17)), float(rng.uniform(0.1, 30))
        plan.append(j, p, d, now)
        plain.trim(now)
        s = plain.earliest(p, d, max(lower, now))
        plain.reserve(s, d, p)
        lower = s
        assert plan.starts[j] == s and plan.lower == s
        assert plan.prof.t.tolist() == plain.t.tolist() and plan.prof.f.tolist() == plain.f.tolist()
        x = float(rng.uniform(now, now + 50))
        assert plan.earliest(p, d, x) == plain.earliest(p, d, x)
    assert plan.earliest(17, 1.0, 0.0) == _INF


@pytest.mark.parametrize("n_rows", [0, 5, 255, 256, 2000])
def test_planned_mask_both_ways(n_rows):
    # below 256 rows one dict look-up per row, from 256 a look-up table: both are set membership
    from vcsched.sim.cluster import _planned_mask

    rng = np.random.default_rng(n_rows)
    rows = rng.integers(0, 5000, size=n_rows)
    starts = {int(j): 1.0 for j in rng.integers(0, 5000, size=700)}
    want = np.array([int(j) in starts for j in rows], dtype=bool)
    np.testing.assert_array_equal(_planned_mask(rows, starts, 5000), want)
    assert not _planned_mask(rows, {}, 5000).any()


@pytest.mark.parametrize("fcfs", [True, False])
def test_estimate_plan_extend_equals_append_one_by_one(fcfs):
    """``_EstimatePlan.extend`` (one compiled loop, used by every rebuild) against ``append`` per job: the same
    profile, planned starts, lower bound and earliest planned start, on random queues over a busy profile."""
    rng = np.random.default_rng(3)
    for _ in range(30):
        total = int(rng.integers(4, 40))
        prof = Profile(total, 100.0)
        for _ in range(int(rng.integers(0, 8))):  # running jobs until their requested ends
            prof.add(100.0, 100.0 + float(rng.uniform(1, 5000)), -int(rng.integers(1, total // 2 + 1)))
        n = int(rng.integers(0, 40))
        jobs = rng.permutation(1000)[:n].tolist()
        widths = rng.integers(1, total + 1, n)
        durations = np.where(rng.random(n) < 0.1, 1.0, np.ceil(rng.uniform(1, 9000, n)))
        plans = [_EstimatePlan(prof.copy(), 120.0, fcfs) for _ in range(2)]
        for j, p, d in zip(jobs, widths.tolist(), durations.tolist()):
            plans[0].append(j, p, d, 120.0)
        plans[1].extend(jobs, widths, durations, 120.0)
        a, b = plans
        assert a.prof.t.tolist() == b.prof.t.tolist() and a.prof.f.tolist() == b.prof.f.tolist()
        assert a.planned() == b.planned() and a.lower == b.lower
        assert b.run is not None or not jobs  # extend on an empty plan keeps the starts as arrays
        least = min(a.planned().values(), default=None)
        for now in ([] if least is None else [least - 1, least, least + 0.5]):  # the earliest planned start
            assert a.current(now) == b.current(now) == (now <= least)
        for j in jobs[: n // 2]:  # jobs leaving (starting) one by one: the same starts, the same staleness
            sa, sb = a.pop(j), b.pop(j)
            assert sa == sb and sa is not None and b.planned_start(j) is None and a.planned() == b.planned()
            least = min(a.planned().values(), default=None)
            if least is not None:
                assert a.current(least) == b.current(least) and not b.current(least + 1)
