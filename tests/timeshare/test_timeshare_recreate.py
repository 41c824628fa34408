"""Ruin and recreate over mappings (lowerbounds.timeshare.recreate): its value is the simulator's value of its mapping,
never above its start nor below the brute-force optimum, the same for a seed and a number of steps; the brackets
run it after the local search for the sumflow."""

from __future__ import annotations

import numpy as np
import pytest

from lowerbounds.timeshare import TaskCosts
from lowerbounds.timeshare.recreate import ruin_recreate
from lowerbounds.timeshare.references import timeshare_references
from tests.timeshare.test_timeshare_bounds import brute_force, random_independent, simulated
from vcsched.errors import InvalidInputError


def _busy(seed: int, n: int = 6, memory=None):
    return random_independent(seed, n, 15.0, memory)


@pytest.mark.parametrize("metric", ["sumflow", "maxflow"])
@pytest.mark.parametrize("seed", range(4))
def test_its_value_is_the_simulators_between_the_optimum_and_its_start(seed, metric):
    platform, workload = _busy(seed)
    truth = brute_force(platform, workload)[metric]
    costs = TaskCosts.of(platform, workload)
    start = (0,) * workload.n_tasks
    first = simulated(platform, workload, start)[0][metric]
    found = ruin_recreate(costs, metric, start, iterations=40, seed=seed, block=3)
    values = simulated(platform, workload, found.mapping)[0]
    assert values["completed"] == workload.n_tasks and values[metric] == pytest.approx(found.value, rel=1e-9)
    assert truth * (1 - 1e-9) <= found.value <= first * (1 + 1e-12)
    assert found.evaluations == 40 and found.stopped == "iterations"
    again = ruin_recreate(costs, metric, start, iterations=40, seed=seed, block=3)
    assert again.mapping == found.mapping and again.value == found.value


def test_a_whole_block_put_back_greedily_can_reach_the_optimum_and_stops_there():
    hits = 0
    for seed in range(6):
        platform, workload = _busy(seed, n=5)
        truth = brute_force(platform, workload)["sumflow"]
        found = ruin_recreate(TaskCosts.of(platform, workload), "sumflow", (1,) * 5, iterations=200, seed=seed,
                              block=5, target=truth)
        assert found.value >= truth * (1 - 1e-9)
        if found.stopped == "bound reached":
            hits += 1
            assert found.value == pytest.approx(truth, rel=1e-4)
    assert hits >= 3  # random insertion orders with the greedy choice find the optimum of most tiny workloads


def test_with_memory_a_mapping_that_loses_a_task_is_never_kept():
    platform, workload = _busy(1, n=6, memory=np.array([4.0, 4.0, np.inf]))
    costs = TaskCosts.of(platform, workload)
    start = (2,) * workload.n_tasks  # the server without a memory limit loses nothing
    found = ruin_recreate(costs, "sumflow", start, iterations=60, seed=0, block=3)
    values = simulated(platform, workload, found.mapping)[0]
    assert values["completed"] == workload.n_tasks and values["sumflow"] == pytest.approx(found.value, rel=1e-9)
    assert found.value <= simulated(platform, workload, start)[0]["sumflow"] * (1 + 1e-12)


def test_an_unknown_metric_is_refused():
    platform, workload = _busy(0)
    with pytest.raises(InvalidInputError, match="unknown metric"):
        ruin_recreate(TaskCosts.of(platform, workload), "meanflow", (0,) * 6, iterations=1)


def test_the_brackets_run_it_after_the_search_for_the_sumflow(monkeypatch):
    import lowerbounds.timeshare.references as references

    monkeypatch.setattr(references, "RECREATE_RATE", 20)
    monkeypatch.setattr(references, "SEARCH_RATE", 200)
    platform, workload = _busy(2, n=20)
    refs = timeshare_references(platform, workload, method="lp", time_limit=1, metrics=("sumflow", "maxflow"))
    d = refs["sumflow"].to_dict()
    assert d["upper"]["method"] == "local search, ruin and recreate" and d["upper"]["recreate_steps"] == 10
    assert refs["maxflow"].to_dict()["upper"]["method"] == "local search"
    values = simulated(platform, workload, refs["sumflow"].mapping)[0]
    assert values["sumflow"] == pytest.approx(d["upper"]["value"], rel=1e-9) and d["upper"]["value"] >= d["value"]


def test_an_interrupt_during_ruin_and_recreate_keeps_the_best_mapping(monkeypatch):
    import lowerbounds.timeshare.recreate as recreate
    import lowerbounds.timeshare.references as references

    real, calls = recreate._recreate, {"n": 0}

    def once(state, block, rng):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(state, block, rng)

    monkeypatch.setattr(recreate, "_recreate", once)
    monkeypatch.setattr(references, "RECREATE_RATE", 20)
    monkeypatch.setattr(references, "SEARCH_RATE", 200)
    platform, workload = _busy(3, n=20)
    ref = timeshare_references(platform, workload, method="lp", time_limit=1, metrics=("sumflow",))["sumflow"]
    assert ref.stopped == "interrupted" and ref.recreate_steps == 2
    values = simulated(platform, workload, ref.mapping)[0]
    assert values["sumflow"] == pytest.approx(ref.bracket.upper.value, rel=1e-9)
    assert ref.bracket.upper.value >= ref.bracket.lower.value
