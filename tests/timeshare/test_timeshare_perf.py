"""Performance budgets of the time-shared servers (slow: timings on a shared machine are noisy)."""

import time

import pytest

from heuristics.timeshare import evaluate
from vcsched.generators.timeshare import generate_scenario


@pytest.mark.slow
def test_500_tasks_four_heuristics_three_seeds_within_5_s():
    tic = time.perf_counter()
    for seed in (1, 2, 3):
        rows = evaluate(generate_scenario("b", mu=17, rng=seed))
        assert len(rows) == 4
    assert time.perf_counter() - tic <= 5.0


@pytest.mark.slow
def test_htm_cost_at_most_linear():
    from benchmarks.experiments.timeshare import htm_decision_cost

    sizes = [1000, 10000]
    costs = [min(htm_decision_cost(n, decisions=10) for _ in range(3)) for n in sizes]
    # ten times more tasks: at most ten times the cost (with 50% slack for noise)
    assert costs[1] <= 15 * costs[0]
