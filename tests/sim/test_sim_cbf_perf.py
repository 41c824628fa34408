"""The compiled conservative-backfilling engine is exact (CBF on the whole CTC trace in seconds).

:class:`vcsched.sim.cbf.CBFCluster` keeps its profile and queue in numpy arrays and
re-plans with the compiled functions of :mod:`vcsched.sim.compiled`. These tests compare
it with :class:`tests.sim.literal_cbf.LiteralCBF`, the rule written on
:class:`tests.sim.plain_profile.PlainProfile` with nothing in common but the base class, on random
workloads with early ends, zero-length jobs and zero requested times, on heterogeneous
clusters (non-integer times, where rounding matters), and with a meta-scheduler that
cancels and resubmits waiting jobs (cancellations also trigger re-plans). They also
test the compiled functions one by one against :class:`PlainProfile` (the numpy oracle),
the production :class:`vcsched.sim.profile.Profile` (a wrapper of the compiled functions)
against it, and the growth of the arrays.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.sim.literal_cbf import LiteralCBF
from tests.sim.plain_profile import PlainProfile
from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, compiled, simulate_grid
from vcsched.sim.cbf import CBFCluster
from vcsched.sim.invariants import check_schedule
from vcsched.sim.profile import Profile


class CheckedCBF(CBFCluster):
    """The compiled engine, checking after each re-plan that no reservation is in the past,
    that the queue arrays keep the submission order and that the profile is consistent
    (never a negative free count, every processor free in the last step)."""

    def _replan(self):
        super()._replan()
        now = self.kernel.now
        res = self.reservation
        assert all(s >= now for s in res.values())
        assert list(res) == list(self.waiting_jobs)  # the queue arrays keep the submission order
        assert self._prof.f.min() >= 0 and self._prof.f[-1] == self.procs


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
        res = simulate_grid(clusters, jobs, meta=meta)
        check_schedule(res)
        out.append((res, meta))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_fast_replan_matches_literal_rule_on_random_workloads(seed):
    (fast, _), (naive, _) = run_both(random_jobs(seed, n=200), [("c", 32, 1.0)])  # 120-155 replans each
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


def test_moves_are_counted_and_the_queue_grows_past_its_initial_room():
    # 600 jobs, most waiting at once: the queue and profile arrays must grow several times
    jobs = random_jobs(11, n=600)
    res = simulate_grid([CheckedCBF("c", 32)], jobs)
    check_schedule(res)
    naive = simulate_grid([LiteralCBF("c", 32)], jobs)
    np.testing.assert_array_equal(res.start, naive.start)
    c = res.clusters[0]
    assert c._queue.job.size > CBFCluster._ROOM and c._prof._T.size > CBFCluster._ROOM
    assert c.moves > 100 and c._queue.size == 0 and not c.reservation


def random_profile(rng, total=16, rows=12):
    prof = PlainProfile(total, 0.0)
    for _ in range(rows):
        a = float(rng.integers(0, 50)) + rng.choice([0.0, 0.5, 1 / 3])
        prof.reserve(a, float(rng.integers(1, 20)), int(rng.integers(1, 5)))
    prof.f = np.maximum(prof.f, 0)
    return prof


def as_arrays(prof, room=8):
    n = prof.t.size
    T = np.empty(n + room)
    F = np.empty(n + room, dtype=np.int64)
    T[:n], F[:n] = prof.t, prof.f
    return T, F, n


@pytest.mark.parametrize("seed", range(20))
def test_compiled_profile_functions_match_profile(seed):
    rng = np.random.default_rng(seed)
    prof = random_profile(rng)
    T, F, n = as_arrays(prof, room=64)
    for _ in range(10):
        p, d = int(rng.integers(1, 17)), float(rng.choice([1.0, 2.5, 7.0, 30.0]))
        lower = float(rng.integers(0, 60))
        assert compiled.earliest(T, F, n, p, d, lower) == prof.earliest(p, d, lower)
        assert compiled._scan(T, F, n, 0, p, d, lower) == prof.earliest(p, d, lower)  # from row 0: the same
        a, b = sorted(float(x) for x in rng.integers(0, 80, size=2))
        delta = int(rng.integers(-3, 4))
        prof.add(a, b, delta)
        n = compiled.add(T, F, n, a, b, delta, 16)
        assert T[:n].tolist() == prof.t.tolist() and F[:n].tolist() == prof.f.tolist()
    now = float(rng.integers(0, 60)) + 0.25
    prof.trim(now, merge=True)
    n = compiled.trim(T, F, n, now, True)
    assert T[:n].tolist() == prof.t.tolist() and F[:n].tolist() == prof.f.tolist()


@pytest.mark.parametrize("seed", range(20))
def test_production_profile_matches_the_plain_oracle(seed):
    """:class:`Profile` (compiled rules) against :class:`PlainProfile` (numpy), operation by operation."""
    rng = np.random.default_rng(200 + seed)
    plain = random_profile(rng)
    prof = Profile.from_steps(16, plain.t, plain.f)
    now = 0.0
    for _ in range(40):
        op = rng.integers(0, 4)
        if op == 0:  # reserve or release an interval
            a, b = sorted(float(x) + rng.choice([0.0, 0.25]) for x in rng.integers(0, 80, size=2))
            delta = int(rng.integers(-3, 4))
            plain.add(a, b, delta)
            prof.add(a, b, delta)
        elif op == 1:  # the estimate plan's step: trim to now, earliest from a lower bound, reserve
            now += float(rng.integers(0, 5))
            p, d = int(rng.integers(1, 17)), float(rng.choice([1.0, 2.5, 7.0, 1 / 3]))
            lower = now + float(rng.integers(0, 20))
            plain.trim(now)
            s = plain.earliest(p, d, lower)
            plain.reserve(s, d, p)
            assert prof.reserve_earliest(p, d, lower, now) == s
        elif op == 2:
            now += float(rng.integers(0, 5))
            merge = bool(rng.integers(0, 2))
            plain.trim(now, merge=merge)
            prof.trim(now, merge=merge)
        P = rng.integers(1, 17, size=6)
        D = rng.choice([1.0, 3.0, 12.5, 0.75], size=6)
        lower = now + float(rng.integers(0, 30))
        want = [plain.earliest(int(p), float(d), lower) for p, d in zip(P, D)]
        assert [prof.earliest(int(p), float(d), lower) for p, d in zip(P, D)] == want
        assert prof.earliest_many(P, D, lower).tolist() == want
        assert prof.t.tolist() == plain.t.tolist() and prof.f.tolist() == plain.f.tolist()
        x = float(rng.integers(0, 90))
        assert prof.free_at(x) == plain.free_at(x)
    assert prof.copy().t.tolist() == prof.t.tolist()


def test_profile_from_steps_rejects_mismatched_steps():
    from vcsched.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="as many free counts as breakpoints"):
        Profile.from_steps(4, [0.0, 1.0], [4])
    prof = Profile(4, 0.0)
    with pytest.raises(InvalidInputError, match="one free count per breakpoint"):
        prof.f = [4, 2]


def test_profile_steps_can_be_assigned_as_attributes():
    """Assigning ``t`` then ``f`` (the attributes' behaviour before they became views) gives from_steps' profile."""
    prof = Profile(8, 0.0)
    prof.t = [0.0, 5.0, 9.0]
    prof.f = [2, 6, 8]
    want = Profile.from_steps(8, [0.0, 5.0, 9.0], [2, 6, 8])
    assert prof.earliest(4, 3.0, 0.0) == want.earliest(4, 3.0, 0.0) == 5.0
    prof.reserve(5.0, 2.0, 3)
    want.reserve(5.0, 2.0, 3)
    assert prof.t.tolist() == want.t.tolist() and prof.f.tolist() == want.f.tolist()


@pytest.mark.parametrize("seed", range(20))
def test_fit_before_equals_release_then_earliest(seed):
    rng = np.random.default_rng(100 + seed)
    prof = PlainProfile(16, 0.0)
    for _ in range(12):
        prof.reserve(float(rng.integers(0, 60)), float(rng.integers(1, 20)), int(rng.integers(1, 6)))
    prof.f = np.maximum(prof.f, 0)
    now = float(rng.integers(0, 20))
    prof.trim(now, merge=bool(seed % 2))
    p, d = int(rng.integers(1, 9)), float(rng.choice([1.0, 3.0, 12.5]))
    s = prof.earliest(p, d, now + float(rng.integers(0, 30)))  # a slot the job holds, at or after now
    prof.reserve(s, d, p)
    T, F, n = as_arrays(prof)
    x = compiled.fit_before(T, F, n, p, d, s, now)
    prof.release(s, d, p)
    literal = prof.earliest(p, d, now)
    assert (x if x < s else s) == literal


def test_snapshots_do_not_change_the_cluster():
    res = simulate_grid([CheckedCBF("c", 32)], random_jobs(3, n=80))
    c = res.clusters[0]
    prof = c.profile
    assert prof.t.tolist() == c._prof.t.tolist() and prof.f.tolist() == c._prof.f.tolist()
    prof.reserve(float(prof.t[-1]) + 10.0, 5.0, 32)
    assert c.profile.t.size == c._prof.t.size < prof.t.size


def test_same_schedule_with_the_compiler_off(tmp_path):
    # NUMBA_DISABLE_JIT=1 runs compiled as plain Python (the documented debugging mode): same schedule.
    # The jobs go to the child as arrays: it imports nothing from tests/ (evalys installs a package
    # named ``tests`` that would shadow ours there).
    import os
    import subprocess
    import sys

    jobs = random_jobs(4, n=150)
    data = tmp_path / "jobs.npz"
    np.savez(data, submit=jobs.submit, run=jobs.run_time, req=jobs.requested_time, procs=jobs.procs)
    script = (
        "import sys, numpy as np\n"
        "from vcsched.problems.workload import from_arrays\n"
        "from vcsched.sim import JobTable, simulate_grid\n"
        "from vcsched.sim.cbf import CBFCluster\n"
        "a = np.load(sys.argv[2])\n"
        "jobs = JobTable.from_workloads([from_arrays(a['submit'], a['run'], a['req'], a['procs'])])\n"
        "res = simulate_grid([CBFCluster('c', 32)], jobs)\n"
        "np.save(sys.argv[1], res.start)\n"
    )
    out = tmp_path / "start.npy"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": root}
    subprocess.run([sys.executable, "-c", script, str(out), str(data)], check=True, env=env, cwd=root, timeout=300)
    compiled = simulate_grid([CBFCluster("c", 32)], jobs)
    assert compiled.clusters[0].moves > 10
    np.testing.assert_array_equal(np.load(out), compiled.start)


_job = st.tuples(st.integers(0, 60), st.sampled_from([0.0, 1.0, 3.0, 10.0, 40.0]),
                 st.sampled_from([0.0, 0.5, 1.0]), st.integers(1, 8))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_job, min_size=1, max_size=40))
def test_compiled_engine_equals_the_literal_rule_on_any_small_workload(rows):
    # (submit, requested, fraction of it actually run, width) on 8 processors; shrinks to a minimal counterexample
    submit = np.sort(np.array([r[0] for r in rows], dtype=float))
    req = np.array([r[1] for r in rows])
    run = np.floor(req * np.array([r[2] for r in rows]))
    width = np.array([r[3] for r in rows])
    jobs = JobTable.from_workloads([from_arrays(submit, run, req, width)])
    fast = simulate_grid([CheckedCBF("c", 8)], jobs)
    literal = simulate_grid([LiteralCBF("c", 8)], jobs)
    check_schedule(fast)
    np.testing.assert_array_equal(fast.start, literal.start)
    assert fast.clusters[0].replans == literal.clusters[0].replans


def test_cbf_queue_keeps_submission_order_and_starts_by_reservation_then_stamp():
    from vcsched.sim.cbf import CBFQueue

    q = CBFQueue(2)  # grows twice
    for j, s in enumerate([5.0, 3.0, 5.0, 9.0, 3.0]):
        q.push(10 + j, j + 1, 2.0, s)
    assert q.size == 5 and q.job.size >= 5 and q.stamp[:5].tolist() == [1, 2, 3, 4, 5]
    assert q.index(12) == 2
    q.remove(q.index(12))
    assert q.reservations() == {10: 5.0, 11: 3.0, 13: 9.0, 14: 3.0}
    due = q.pop_due(5.0)
    assert [(s, stamp, j) for s, stamp, j, _ in due] == [(3.0, 2, 11), (3.0, 5, 14), (5.0, 1, 10)]
    assert q.next_start == 9.0 and q.reservations() == {13: 9.0}
