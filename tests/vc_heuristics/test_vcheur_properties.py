"""Property tests of every VCSched heuristic on tiny instances (400 cases each in the default suite, 10,000 behind ``-m slow``).

Properties: every returned allocation passes the checker; its min
yield is at most the exact optimum (brute force over all placements), which
is at most the LP bound (closed form of §3.1); a heuristic never succeeds on
an instance with no placement; failures carry no solution.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuristics.vc import REGISTRY
from heuristics.vc.greedy import backtracking_placement
from lowerbounds.vc import LPRelaxation, closed_form_bound
from vcsched.problems.vc import VCInstance, check_allocation
from vcsched.result import Result, Status

DETERMINISTIC = ["mcb1", "mcb2", "mcb3", "mcb4", "mcb5", "mcb6", "mcb7", "mcb8", "gr", "sg", "gb", "sgb"]
ROUNDING = ["rrnd", "rrnz"]
EXAMPLES = 400
SLOW_EXAMPLES = 10_000
"""Instances per property in the default suite, and behind ``-m slow``."""


def brute_force(instance: VCInstance) -> float | None:
    """Best min yield over every task -> host map that fits in memory (None: no placement)."""
    K, H = instance.n_tasks, instance.hosts
    P = np.array(list(itertools.product(range(H), repeat=K)), dtype=np.int64).reshape(-1, K)
    onehot = np.zeros((P.shape[0], K, H))
    np.put_along_axis(onehot, P[:, :, None], 1.0, axis=2)
    mem = np.einsum("pkh,k->ph", onehot, instance.task_mem)
    load = np.einsum("pkh,k->ph", onehot, instance.task_cpu)
    ok = (mem <= 1 + 1e-9).all(axis=1)
    if not ok.any():
        return None
    return float(np.minimum(1.0, 1.0 / load[ok].max(axis=1)).max())


MEM_POOL = np.array([0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.75, 1.0])
CPU_POOL = np.array([0.1, 0.25, 0.5, 0.6, 0.75, 1.0])


def make_tiny(hosts: int, jobs: int, seed: int, parallel: bool = False, max_tasks: int = 6) -> VCInstance:
    """Tiny instance from a seed: needs often "round" (exact fits, ties), sometimes arbitrary."""
    rng = np.random.default_rng(seed)
    mem = np.where(rng.random(jobs) < 0.6, rng.choice(MEM_POOL, jobs), rng.random(jobs))
    cpu = np.where(rng.random(jobs) < 0.5, rng.choice(CPU_POOL, jobs), rng.uniform(0.01, 1.0, jobs))
    tasks = np.ones(jobs, dtype=np.int64)
    if parallel:
        tasks = rng.integers(1, 4, jobs)
        while tasks.sum() > max_tasks:
            tasks[int(np.argmax(tasks))] -= 1
    return VCInstance.from_arrays(hosts, cpu, mem, tasks)


@st.composite
def tiny_instances(draw, max_hosts: int = 3, max_tasks: int = 6, parallel: bool = False) -> VCInstance:
    hosts = draw(st.integers(1, max_hosts))
    jobs = draw(st.integers(1, max_tasks if not parallel else 4))
    seed = draw(st.integers(0, 2**32 - 1))
    return make_tiny(hosts, jobs, seed, parallel, max_tasks)


def _assert_sound(result: Result, instance: VCInstance, optimum: float | None) -> None:
    bound = closed_form_bound(instance)
    if result.status is Status.FAILED:
        assert result.solution is None and result.objective is None
        return
    assert result.status is Status.FEASIBLE, result.message
    report = check_allocation(instance, result.solution)
    assert report.valid, report.violations
    assert result.objective == pytest.approx(report.min_yield, abs=1e-12)
    assert result.extra["avg_yield"] == pytest.approx(report.avg_yield, abs=1e-12)
    assert 0 <= result.extra["seconds_first_phase"] <= result.seconds
    assert optimum is not None, "a heuristic succeeded on an instance without any placement"
    assert result.objective <= optimum + 1e-9
    if bound.objective is None:  # closed form says "no memory": only within rounding of H
        assert float(instance.task_mem.sum()) <= instance.hosts * (1 + 1e-9)
    else:
        assert optimum <= bound.objective + 1e-9


SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
SLOW_SETTINGS = settings(SETTINGS, max_examples=SLOW_EXAMPLES, derandomize=False)


def check_deterministic(instance: VCInstance) -> None:
    """All twelve deterministic heuristics on ``instance``, against its brute-force optimum."""
    optimum = brute_force(instance)
    for name in DETERMINISTIC:
        _assert_sound(REGISTRY.get(name)(instance), instance, optimum)


@SETTINGS
@given(instance=tiny_instances())
def test_vcheur_deterministic_heuristics_are_sound(instance):
    check_deterministic(instance)


@pytest.mark.slow
@SLOW_SETTINGS
@given(instance=tiny_instances())
def test_vcheur_deterministic_heuristics_are_sound_campaign(instance):
    check_deterministic(instance)


def _fake_lp(instance: VCInstance, seed: int) -> Result:
    """A fractional assignment with zeros (like a simplex vertex): the rounding is what is under test."""
    rng = np.random.default_rng(seed)
    e = rng.dirichlet(np.ones(instance.hosts), size=instance.n_jobs)
    e[rng.random(e.shape) < 0.4] = 0.0
    empty = e.sum(axis=1) == 0
    e[empty, rng.integers(instance.hosts, size=int(empty.sum()))] = 1.0
    e /= e.sum(axis=1, keepdims=True)
    return Result("lp", Status.OPTIMAL, 1.0, 1.0, 0.0, LPRelaxation(e, 1.0))


def check_rounding(instance: VCInstance, seed: int) -> None:
    """RRND and RRNZ rounding a random fractional assignment with zeros, against the brute-force optimum."""
    optimum = brute_force(instance)
    lp = _fake_lp(instance, seed)
    for name in ROUNDING:
        _assert_sound(REGISTRY.get(name)(instance, rng=seed, lp=lp), instance, optimum)


@SETTINGS
@given(instance=tiny_instances(), seed=st.integers(0, 2**32 - 1))
def test_vcheur_rounding_is_sound_on_any_fractional_assignment(instance, seed):
    check_rounding(instance, seed)


@pytest.mark.slow
@SLOW_SETTINGS
@given(instance=tiny_instances(), seed=st.integers(0, 2**32 - 1))
def test_vcheur_rounding_is_sound_on_any_fractional_assignment_campaign(instance, seed):
    check_rounding(instance, seed)


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instance=tiny_instances(parallel=True))
def test_vcheur_parallel_jobs_are_sound(instance):
    """Parallel jobs (§5): equal CPU for the tasks of a job (the checker), yields bounded by the optimum."""
    optimum = brute_force(instance)
    lp = _fake_lp(instance, 7)
    for name in DETERMINISTIC + ROUNDING:
        kwargs = {"lp": lp} if name in ROUNDING else {}
        _assert_sound(REGISTRY.get(name)(instance, rng=3, **kwargs), instance, optimum)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instance=tiny_instances(max_hosts=3, max_tasks=6))
def test_vcheur_exhaustive_backtracking_succeeds_iff_a_placement_exists(instance):
    """Without a binding bound the pruned search is complete (its prunings never lose a solution)."""
    order = np.arange(instance.n_tasks)
    placement, _, reason = backtracking_placement(instance, order, 10**9)
    assert (placement is not None) == (brute_force(instance) is not None)
    if placement is None:
        assert reason == "exhausted"
