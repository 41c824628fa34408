"""The best mapping found by local search (lowerbounds.timeshare.search) against brute force and the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from lowerbounds.timeshare import METRICS, TaskCosts, lp_bounds
from lowerbounds.timeshare.mapping import greedy_mapping
from lowerbounds.timeshare.search import search_mapping, timeshare_brackets
from tests.timeshare.test_timeshare_bounds import brute_force, random_platform, simulated
from vcsched.problems.timeshare import TimeshareWorkload as Workload


@pytest.mark.parametrize("seed", range(4))
def test_search_brackets_the_brute_force_optimum(seed):
    rng = np.random.default_rng(seed)
    platform = random_platform(rng, servers=3)
    workload = Workload.independent(np.sort(rng.uniform(0, 30, size=5)), rng.integers(0, 2, size=5))
    truth = brute_force(platform, workload)
    costs = TaskCosts.of(platform, workload)
    brackets = timeshare_brackets(costs, lp_bounds(costs, time_limit=20), time_limit=20, iterations=300)
    for m in METRICS:
        found = search_mapping(costs, m, iterations=300, seed=seed)
        values, _ = simulated(platform, workload, found.mapping)  # the simulator agrees with the value found
        assert values[m] == pytest.approx(found.value, rel=1e-9)
        assert found.value >= truth[m] * (1 - 1e-9)
        assert found.value <= greedy_mapping(costs, m)[1] + 1e-9
        b = brackets[m]
        assert b.lower.value <= truth[m] * (1 + 1e-7) and b.upper.value >= truth[m] * (1 - 1e-9)


def test_search_is_reproducible_and_keeps_memory_refusals_out():
    rng = np.random.default_rng(7)
    platform = random_platform(rng, servers=2, types=1, memory=np.array([2.5, 100.0]))
    workload = Workload.independent(np.arange(8.0), np.zeros(8, dtype=int))
    costs = TaskCosts.of(platform, workload)
    one = search_mapping(costs, "sumflow", iterations=200, seed=3, time_limit=60)
    two = search_mapping(costs, "sumflow", iterations=200, seed=3, time_limit=60)
    assert one.mapping == two.mapping and one.value == two.value and one.stopped == "iterations"
    values, _ = simulated(platform, workload, one.mapping)
    assert values["completed"] == 8 and values["sumflow"] == pytest.approx(one.value)


@pytest.mark.parametrize("seed", range(3))
def test_the_compiled_server_dates_equal_the_simulators_closed_form(seed):
    from lowerbounds.timeshare._ps import server_dates
    from lowerbounds.timeshare.mapping import _server_dates

    rng = np.random.default_rng(seed)
    platform = random_platform(rng, servers=2)
    workload = Workload.independent(np.round(np.sort(rng.uniform(0, 40, size=30)), 1), rng.integers(0, 2, size=30))
    costs = TaskCosts.of(platform, workload)
    for s in range(2):
        tasks = np.sort(rng.choice(30, size=int(rng.integers(1, 31)), replace=False))
        plain = _server_dates(costs, tasks.tolist(), s)
        fast = server_dates(tasks, costs.arrival, *(np.ascontiguousarray(a[:, s]) for a in (costs.inp, costs.p, costs.out)))
        np.testing.assert_allclose(fast, plain, rtol=1e-12)


def test_the_search_never_ends_above_its_start():
    rng = np.random.default_rng(11)
    platform = random_platform(rng, servers=3)
    workload = Workload.independent(np.sort(rng.uniform(0, 20, size=40)), rng.integers(0, 2, size=40))
    costs = TaskCosts.of(platform, workload)
    start = tuple(int(x) for x in rng.integers(0, 3, size=40))
    values, _ = simulated(platform, workload, start)
    found = search_mapping(costs, "sumflow", iterations=3000, seed=1, start=start)
    assert found.value <= values["sumflow"] * (1 + 1e-12)
    assert simulated(platform, workload, found.mapping)[0]["sumflow"] == pytest.approx(found.value, rel=1e-12)


def test_the_search_stops_when_it_reaches_the_bound():
    rng = np.random.default_rng(3)
    platform = random_platform(rng, servers=3)
    workload = Workload.independent(np.sort(rng.uniform(0, 20, size=20)), rng.integers(0, 2, size=20))
    costs = TaskCosts.of(platform, workload)
    free = search_mapping(costs, "makespan", iterations=400, seed=0)
    stopped = search_mapping(costs, "makespan", iterations=400, seed=0, target=free.value * 1.5)
    assert stopped.stopped == "bound reached" and stopped.evaluations < free.evaluations
    assert stopped.value <= free.value * 1.5 * (1 + 1e-4)
