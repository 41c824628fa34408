"""The pricing knapsack of the configuration LP (lowerbounds.vc.knapsack) against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.vc.knapsack import PRUNE_TOL, knapsack_2d


def brute_force(p, a1, a2, u):
    """Best value over every count vector (capacities 1 and 1, the kernel's fit tolerance)."""
    best = 0.0
    for x in itertools.product(*[range(k + 1) for k in u]):
        x = np.array(x)
        if x @ a1 <= 1 + 1e-12 and x @ a2 <= 1 + 1e-12:
            best = max(best, float(x @ p))
    return best


@st.composite
def knapsacks(draw):
    n = draw(st.integers(1, 7))
    grid = draw(st.booleans())  # values on a 0.1 grid: ties and exact fits
    unit = st.integers(0, 10).map(lambda k: k / 10) if grid else st.floats(0, 1)
    p = np.array(draw(st.lists(unit, min_size=n, max_size=n)))
    a1 = np.array(draw(st.lists(unit, min_size=n, max_size=n)))
    a2 = np.array(draw(st.lists(unit.map(lambda v: 0.7 * v), min_size=n, max_size=n)))
    u = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    return p, a1, a2, u


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(knapsacks())
def test_branch_and_bound_is_exact_and_its_columns_fit(case):
    p, a1, a2, u = case
    best = brute_force(p, a1, a2, u)
    sol = knapsack_2d(p, a1, a2, u)
    assert sol.exhausted
    assert sol.value == pytest.approx(best, abs=1e-9)
    assert best - 1e-12 <= sol.bound <= best + PRUNE_TOL + 1e-9
    x = sol.counts
    assert np.all((0 <= x) & (x <= u)) and x @ a1 <= 1 + 1e-9 and x @ a2 <= 1 + 1e-9
    assert float(x @ p) == pytest.approx(sol.value, abs=1e-9)
    values = []
    for idx, cnt in sol.found:  # improving configurations, best last, each one that fits
        dense = np.zeros(p.size)
        dense[idx] = cnt
        assert np.all(dense <= u) and dense @ a1 <= 1 + 1e-9 and dense @ a2 <= 1 + 1e-9
        values.append(float(dense @ p))
    if values:
        assert values == sorted(values) and values[-1] == pytest.approx(sol.value, abs=1e-9)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(knapsacks(), st.integers(1, 6))
def test_a_search_stopped_at_its_node_limit_still_bounds_the_optimum(case, nodes):
    p, a1, a2, u = case
    best = brute_force(p, a1, a2, u)
    sol = knapsack_2d(p, a1, a2, u, node_limit=nodes)
    assert sol.bound >= best - 1e-9
    assert sol.value <= best + 1e-9
    if sol.exhausted:
        assert sol.value == pytest.approx(best, abs=1e-9)


def test_large_pricing_problem_with_near_equal_ratios_is_solved_exactly():
    """Duals proportional to the sizes (the end of a column generation): every ratio nearly equal,
    the hard case of knapsack branch and bound; checked against HiGHS's MILP on the same model."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    rng = np.random.default_rng(5)
    n = 60
    a1, a2 = rng.uniform(0.05, 0.45, n), rng.uniform(0.02, 0.5, n)
    p = (0.5 * a1 + 0.5 * a2) * rng.uniform(0.98, 1.02, n)
    u = np.ones(n, dtype=np.int64)
    sol = knapsack_2d(p, a1, a2, u)
    ref = milp(-p, integrality=np.ones(n), bounds=Bounds(0, 1),
               constraints=LinearConstraint(np.vstack([a1, a2]), -np.inf, [1 + 1e-12, 1 + 1e-12]),
               options={"mip_rel_gap": 0})
    assert sol.exhausted
    assert sol.value == pytest.approx(-ref.fun, abs=1e-7)


def test_items_that_cannot_enter_are_left_out():
    p = np.array([5.0, -1.0, 0.0, 1.0])
    a1 = np.array([1.5, 0.1, 0.1, 0.5])  # item 0 does not fit alone; 1 and 2 are worth nothing
    a2 = np.array([0.1, 0.1, 0.1, 0.3])
    sol = knapsack_2d(p, a1, a2, np.array([1, 1, 1, 3]))
    assert sol.counts.tolist() == [0, 0, 0, 2] and sol.value == 2.0
    empty = knapsack_2d(np.zeros(3), np.full(3, 0.1), np.full(3, 0.1), np.ones(3, dtype=np.int64))
    assert empty.value == 0.0 and empty.bound == 0.0 and empty.exhausted and empty.found == ()


def test_the_fit_tolerance_is_in_the_bound_too():
    """A copy fits with a tolerance of 1e-12 of a bin; the surrogate bound must allow as much, or
    it prunes the configuration that uses it (found on a CPU-only surrogate)."""
    p, a1, a2, u = np.array([1.0, 1.0]), np.array([1.0, 8.5e-71]), np.zeros(2), np.ones(2, dtype=np.int64)
    sol = knapsack_2d(p, a1, a2, u)
    assert sol.value == 2.0 and sol.bound >= 2.0
