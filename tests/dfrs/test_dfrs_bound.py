"""The DFRS max-stretch bound: never above the best schedule of an exhaustively searched
discretised fractional model on tiny cases, never above a simulated policy's max stretch."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from heuristics.dfrs import POLICIES, simulate_policy
from lowerbounds.dfrs import deadline_feasible, max_stretch_bound
from tests.dfrs.test_dfrs_engine import kth_jobs, random_jobs
from vcsched.problems.dfrs import DfrsJobs, DfrsPlatform

DT = 0.5
LEVELS = (0.0, 0.5, 1.0)


@functools.cache
def _placeable(hosts: int, items: tuple) -> bool:
    """Tasks ``(yield, memory)`` fit on ``hosts`` hosts (1 core: CPU sum of yields <= 1, memory <= 1)."""
    cpu, mem = [0.0] * hosts, [0.0] * hosts

    def go(k: int) -> bool:
        if k == len(items):
            return True
        y, m = items[k]
        for h in range(hosts):
            if cpu[h] + y <= 1 + 1e-9 and mem[h] + m <= 1 + 1e-9:
                cpu[h] += y
                mem[h] += m
                if go(k + 1):
                    return True
                cpu[h] -= y
                mem[h] -= m
        return False

    return go(0)


def brute_force_max_stretch(r, p, q, m, hosts: int) -> float:
    """Smallest max stretch of a schedule in slots of DT with yields in LEVELS, exhaustive."""
    n = len(r)
    units = [round(pj / (DT * 0.5)) for pj in p]  # work in units of DT * 0.5
    horizon = int((max(r) + sum(p) * 2) / DT) + 2
    # a job ends inside a slot at t + (work left) / y: ends are multiples of DT / 2
    candidates = sorted({((k + 1) * DT / 2 - r[j]) / p[j] for j in range(n) for k in range(2 * horizon)
                         if (k + 1) * DT / 2 - r[j] >= p[j] - 1e-9})

    def feasible(s: float) -> bool:
        deadline = [r[j] + s * p[j] + 1e-9 for j in range(n)]

        @functools.cache
        def go(slot: int, left: tuple) -> bool:
            t = slot * DT
            if all(x == 0 for x in left):
                return True
            if any(x > 0 and t >= deadline[j] for j, x in enumerate(left)):
                return False
            active = [j for j in range(n) if left[j] > 0 and r[j] <= t + 1e-9]
            for ys in itertools.product(LEVELS, repeat=len(active)):
                items = tuple(sorted((y, m[j]) for j, y in zip(active, ys) if y > 0 for _ in range(q[j])))
                if not _placeable(hosts, items):
                    continue
                new = list(left)
                late = False
                for j, y in zip(active, ys):
                    done = round(y * 2)
                    if y > 0 and left[j] <= done:
                        late |= t + left[j] * DT / 2 / y > deadline[j]
                    new[j] = max(0, left[j] - done)
                if not late and go(slot + 1, tuple(new)):
                    return True
            return False

        return go(0, tuple(units))

    for s in candidates:
        if feasible(s):
            return s
    raise AssertionError("no schedule found")  # pragma: no cover


def _check_against_brute_force(seed: int, jobs_low: int, jobs_high: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(jobs_low, jobs_high + 1))
    hosts = int(rng.integers(2, 4))
    r = np.sort(rng.choice([0.0, 0.5, 1.0], n))
    p = rng.choice([0.5, 1.0, 1.5], n)
    q = rng.integers(1, 3, n)
    m = rng.choice([0.3, 0.6], n)
    jobs = DfrsJobs.from_arrays(r, p, q, m)
    bound = max_stretch_bound(jobs, DfrsPlatform(hosts, 1), rtol=1e-6).value
    best = brute_force_max_stretch(r.tolist(), p.tolist(), q.tolist(), m.tolist(), hosts)
    assert bound <= best + 1e-9


@pytest.mark.parametrize("seed", range(12))
def test_bound_never_beats_brute_force(seed):
    """3-4 jobs on 2-3 hosts (the default suite)."""
    _check_against_brute_force(seed, 3, 4)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_bound_never_beats_brute_force_five_jobs(seed):
    """5 jobs on 2-3 hosts: up to a minute each (the exhaustive search grows as 3^5 yield choices per slot)."""
    _check_against_brute_force(100 + seed, 5, 5)


def test_bound_is_not_trivial_and_tight_on_a_known_case():
    """Two 1-task jobs of 1 s at 0 on one host: the best max stretch is 2 (both at yield 1/2, or one after
    the other); the LP proves > 2 - tol, so the bound is 2 within the bisection's tolerance."""
    jobs = DfrsJobs.from_arrays([0.0, 0.0], [1.0, 1.0], [1, 1], [0.1, 0.1])
    b = max_stretch_bound(jobs, DfrsPlatform(1, 1), rtol=1e-6).value
    assert b == pytest.approx(2.0, rel=1e-5) and b <= 2.0
    assert not deadline_feasible(np.zeros(2), np.ones(2), np.ones(2, int), np.full(2, 0.1), 1, 1, 1.9)


def test_memory_rows_bind():
    """Two one-task jobs of memory 0.6 on one host of 2 cores cannot run together (the best max stretch is 2);
    the memory rows (aggregated, so weaker) prove 1.2; without them the CPU of 2 cores proves only 1."""
    jobs = DfrsJobs.from_arrays([0.0, 0.0], [1.0, 1.0], [1, 1], [0.3, 0.3])
    assert max_stretch_bound(jobs, DfrsPlatform(1, 2), rtol=1e-6).value == pytest.approx(1.0)
    heavy = DfrsJobs.from_arrays([0.0, 0.0], [1.0, 1.0], [1, 1], [0.6, 0.6])
    assert max_stretch_bound(heavy, DfrsPlatform(1, 2), rtol=1e-6).value == pytest.approx(1.2, rel=1e-5)
    assert max_stretch_bound(heavy, DfrsPlatform(1, 2), memory=False).value == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [0, 3])
def test_no_policy_below_the_bound(seed):
    jobs, plat = random_jobs(seed, cores=1)
    bound = max_stretch_bound(jobs, plat).value
    for name in POLICIES.names():
        assert simulate_policy(jobs, plat, name, period=500.0).metrics["max_stretch"] >= bound - 1e-9


def test_no_policy_below_the_bound_kth(trace):
    jobs, plat = kth_jobs(trace)
    bound = max_stretch_bound(jobs, plat).value
    for name in POLICIES.names():
        assert simulate_policy(jobs, plat, name).metrics["max_stretch"] >= bound - 1e-9


def test_dedicated_fits_implies_lp_feasible_at_one():
    from lowerbounds.dfrs.bound import dedicated_fits

    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(40):
        n = 6
        r = np.sort(rng.uniform(0, 10, n))
        p = rng.uniform(0.5, 5, n)
        q = rng.integers(1, 4, n)
        m = rng.uniform(0, 0.5, n)
        if dedicated_fits(r, p, q, m, 4, 1):
            hits += 1
            assert deadline_feasible(r, p, q, m, 4, 1, 1.0 + 1e-9)
    assert hits > 0
