"""The fast conservative-backfilling re-plan is exact (issue: CBF on the whole CTC trace in seconds).

:class:`vcsched.sim.batch.CBFCluster` keeps its profile as Python lists and re-plans only
the *dirty* waiting jobs: a job is clean (known unable to move) from the moment it gets
its earliest slot or is found unable to move, until a release (early end, cancellation,
old slot of a moved job) opens a run of free processors it could use. These tests compare
it with the literal rule (release each waiting job, re-insert it at ``Profile.earliest``
from now) on random workloads with early ends, zero-length jobs and zero requested
times, on heterogeneous clusters (non-integer times, where rounding matters), and with a
meta-scheduler that cancels and resubmits waiting jobs (cancellations also trigger
re-plans); :class:`CheckedCBF` also checks at every re-plan that each clean job really
cannot move and that every other waiting job is marked dirty.
"""

from __future__ import annotations


import numpy as np
import pytest

from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, simulate
from vcsched.sim.batch import CBFCluster, _fit_before
from vcsched.sim.invariants import check_schedule
from tests.sim.test_sim_shortcuts import NaiveCBF as LiteralCBF  # the re-plan rule as written


class CheckedCBF(CBFCluster):
    """The fast re-plan, checking at each re-plan that the clean jobs it skips cannot move
    and that every other waiting job is marked dirty."""

    skipped = 0

    def _replan(self):
        now = self.kernel.now
        self._trim(now, merge=True)
        T, F = self._T, self._F
        clean = set()
        for w, (S, D, J) in self._clean.items():
            assert S == sorted(S)
            for s, d, j in zip(S, D, J):
                assert j in self.waiting_jobs and (self.reservation[j], self.duration[j], self.P[j]) == (s, d, w)
                clean.add(j)
                if s > now:
                    assert _fit_before(T, F, w, d, s, now) is None
                    type(self).skipped += 1
        dirty = {j for _, j in self._dirty}
        assert set(self.waiting_jobs) <= clean | dirty
        super()._replan()
        assert all(self.reservation[j] >= now for j in self.waiting_jobs)


def random_jobs(seed: int, n: int = 400, procs: int = 32, origins: int = 1):
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 5000, size=n)).astype(float)
    req = rng.choice([0, 1, 5, 30, 60, 200, 600, 1800], size=n).astype(float)
    run = np.floor(req * rng.choice([0.0, 0.1, 0.5, 1.0], size=n))
    width = rng.choice([1, 1, 2, 3, 4, 8, 16, procs // 2, procs], size=n)
    w = from_arrays(submit, run, req, width)
    if origins == 1:
        return JobTable.from_workloads([w])
    parts = np.array_split(np.arange(n), origins)
    return JobTable.from_workloads([w.select(ix) for ix in parts], labels=[f"o{k}" for k in range(origins)])


class RandomCanceller:
    """Maps arrivals to their origin; every ``period`` cancels some waiting jobs and resubmits them."""

    def __init__(self, seed: int, period: float = 97.0, fraction: float = 0.3):
        self.rng = np.random.default_rng(seed)
        self.period = period
        self.fraction = fraction
        self.moves = 0

    def map(self, grid, job):
        return int(grid.jobs.origin[job])

    def start(self, grid):
        grid.every(self.period, self.shuffle)

    def shuffle(self, grid):
        waiting = grid.waiting()
        for j in waiting:
            if self.rng.random() < self.fraction:
                target = int(self.rng.integers(len(grid.clusters)))
                if grid.P[j] > grid.clusters[target].procs:
                    continue
                assert grid.cancel(j)
                grid.submit(j, target)
                self.moves += 1


def run_both(jobs, specs, meta_seed=None):
    out = []
    for cls in (CheckedCBF, LiteralCBF):
        clusters = [cls(name, procs, speed) for name, procs, speed in specs]
        meta = RandomCanceller(meta_seed) if meta_seed is not None else None
        res = simulate(clusters, jobs, meta=meta)
        check_schedule(res)
        out.append((res, meta))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_fast_replan_matches_literal_rule_on_random_workloads(seed):
    (fast, _), (naive, _) = run_both(random_jobs(seed), [("c", 32, 1.0)])
    np.testing.assert_array_equal(fast.start, naive.start)
    np.testing.assert_array_equal(fast.finish, naive.finish)
    assert fast.clusters[0].replans == naive.clusters[0].replans > 10


@pytest.mark.parametrize("seed", range(4))
def test_fast_replan_matches_literal_rule_with_cancellations_and_heterogeneous_speeds(seed):
    jobs = random_jobs(50 + seed, n=300, procs=24, origins=2)
    specs = [("a", 32, 1.0), ("b", 24, 1.37)]  # non-integer run and requested times on "b"
    (fast, meta_fast), (naive, meta_naive) = run_both(jobs, specs, meta_seed=seed)
    assert meta_fast.moves == meta_naive.moves > 20
    np.testing.assert_array_equal(fast.start, naive.start)
    np.testing.assert_array_equal(fast.cluster, naive.cluster)
    np.testing.assert_array_equal(fast.resubmissions, naive.resubmissions)


def test_zero_length_and_zero_request_jobs():
    # many jobs with requested time 0 (planned as 1 s) ending at their start, mixed with long ones
    rng = np.random.default_rng(7)
    n = 300
    submit = np.sort(rng.integers(0, 300, size=n)).astype(float)
    req = rng.choice([0.0, 0.0, 1.0, 2.0, 400.0], size=n)
    run = np.where(rng.random(n) < 0.5, 0.0, req)
    width = rng.choice([1, 4, 8, 16], size=n)
    jobs = JobTable.from_workloads([from_arrays(submit, run, req, width)])
    (fast, _), (naive, _) = run_both(jobs, [("c", 16, 1.0)])
    np.testing.assert_array_equal(fast.start, naive.start)


def test_skipped_jobs_really_cannot_move():
    CheckedCBF.skipped = 0
    res = simulate([CheckedCBF("c", 32)], random_jobs(11, n=600))
    check_schedule(res)
    naive = simulate([LiteralCBF("c", 32)], random_jobs(11, n=600))
    np.testing.assert_array_equal(res.start, naive.start)
    assert CheckedCBF.skipped > 100


def test_profile_is_handed_out_and_changes_to_it_are_taken_over():
    jobs = random_jobs(3, n=80)
    res = simulate([CheckedCBF("c", 32)], jobs)
    c = res.clusters[0]
    prof = c.profile
    assert prof.t.tolist() == c._T and prof.f.tolist() == c._F
    assert c.profile is prof  # the same object until the cluster uses its profile again
    last = float(prof.t[-1])
    prof.reserve(last + 10.0, 5.0, 32)  # as the literal re-plan of test_sim_shortcuts changes it
    T, F = c._lists()
    assert T[-2:] == [last + 10.0, last + 15.0] and F[-2:] == [0, 32]
    assert c.profile is not prof
