"""Certified vector bin packing: every bound below the brute-force optimum, certify equal to it on
tiny instances, the pricing knapsack equal to enumeration, planted triplets closed."""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.vector.methods import pack
from lowerbounds.vector import (
    certify_packing,
    configuration_lp,
    knapsack_nd,
    l2_bound,
    large_items_bound,
    volume_bound,
)
from tests.vector.brute import best_configuration, optimum_bins
from vcsched.generators.vbp import generate_vbp
from vcsched.problems.vbp import VectorPacking, bins_problem


def _tiny(seed: int) -> VectorPacking:
    rng = np.random.default_rng(100 + seed)
    n, d = 5 + seed % 4, 2 + seed % 2
    demand = rng.integers(5, 75, size=(n, d)).astype(float)
    demand[rng.random(n) < 0.3] //= 3  # some small items
    count = rng.integers(1, 3, size=n) if seed % 3 == 0 else np.ones(n, dtype=np.int64)
    keep = np.cumsum(count) <= 8
    return VectorPacking(np.full(d, 100.0), demand[keep], count[keep].astype(np.int64))


@pytest.mark.parametrize("seed", range(16))
def test_bounds_lie_below_and_certify_reaches_the_brute_force_optimum(seed):
    inst = _tiny(seed)
    opt = optimum_bins(inst.item_sizes())
    sizes, count = inst.sizes(), inst.count
    assert volume_bound(sizes, count) <= opt
    assert l2_bound(sizes, count) <= opt
    assert large_items_bound(sizes, count) <= opt
    lp = configuration_lp(sizes, count)
    assert lp.complete and lp.lower <= opt and lp.bound <= opt + 1e-9
    cert = certify_packing(inst, time_limit=30)
    assert cert.status == "optimal" and cert.lower == cert.upper == opt
    assert len(cert.bins) == opt and bins_problem(inst, cert.bins) is None
    for method in ("certify", "heuristics", "ff-sum", "perm-w2"):
        row = pack(inst, method, time_limit=30)
        assert row["lower"] <= opt <= row["upper"]
        assert (row["status"] == "optimal") == (row["lower"] == row["upper"])
        assert len(row["bins"]) == row["upper"] and bins_problem(inst, row["bins"]) is None


@pytest.mark.parametrize("seed", range(10))
def test_the_pricing_knapsack_equals_enumeration(seed):
    rng = np.random.default_rng(seed)
    n, d = 6, 2 + seed % 4
    a = rng.uniform(0.05, 0.7, size=(n, d))
    p = rng.uniform(0.0, 1.0, size=n)
    u = rng.integers(1, 4, size=n)
    sol = knapsack_nd(p, a, u)
    best = best_configuration(p, a, u)
    assert sol.exhausted and sol.value == pytest.approx(best, abs=1e-12) and sol.bound >= best
    assert np.all(sol.counts @ a <= 1 + 1e-12) and np.all(sol.counts <= u)
    stopped = knapsack_nd(p, a, u, node_limit=3)  # stopped early: the bound still holds
    assert stopped.bound >= best - 1e-12


def test_an_oversized_item_is_status_infeasible_naming_it():
    inst = VectorPacking(np.array([10.0, 10.0]), np.array([[5.0, 5.0], [3.0, 11.0]]), np.array([2, 1]))
    for method in ("certify", "heuristics", "bf-lex"):
        row = pack(inst, method)
        assert row["status"] == "infeasible" and row["bins"] == [] and row["upper"] is None
        assert "item 2 (type 2)" in row["message"]


@pytest.mark.parametrize("d", [3, 10])
def test_perfect_triplets_are_closed_at_n_over_3(d):
    inst = generate_vbp("triplets", 30, d, d)
    row = pack(inst, "certify", time_limit=30)
    assert row["status"] == "optimal" and row["lower"] == row["upper"] == 10
    assert bins_problem(inst, row["bins"]) is None
    assert pack(inst, "heuristics")["upper"] > 10  # no list heuristic finds it
