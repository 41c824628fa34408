"""Exactly full bins (the perfect-triplet class): an exact cover that meets a volume bound with no slack."""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.vector.methods import pack
from lowerbounds.vector import certify_packing, cheap_lower_bound
from lowerbounds.vector.certify import bins_of
from lowerbounds.vector.exact_fill import exact_columns, exact_fill_packing, tight_dimensions
from tests.vector.brute import optimum_bins
from vcsched.generators.vbp import generate_vbp
from vcsched.problems.vbp import VectorPacking, bins_problem


def _packing(items: np.ndarray, cap: np.ndarray) -> VectorPacking:
    types, count = np.unique(items, axis=0, return_counts=True)
    return VectorPacking(cap.astype(float), types.astype(float), count.astype(np.int64))


def _planted(seed: int, bins: int, d: int) -> VectorPacking:
    """``bins`` bins of capacity 10, each split exactly into 1-3 integer items in every dimension."""
    rng = np.random.default_rng(seed)
    items = []
    for _ in range(bins):
        parts = int(rng.integers(1, 4))
        cuts = np.sort(rng.integers(1, 10, size=(parts - 1, d)), axis=0)
        edges = np.vstack([np.zeros((1, d), int), cuts, np.full((1, d), 10)])
        items += list(np.diff(edges, axis=0))
    return _packing(np.array(items), np.full(d, 10))


@pytest.mark.parametrize("seed", range(12))
def test_planted_exact_bins_are_found_and_equal_brute_force(seed):
    inst = _planted(seed, bins=int(2 + seed % 3), d=1 + seed % 3)
    lower = cheap_lower_bound(inst.sizes(), inst.count)[0]
    assert tight_dimensions(inst, lower).size == inst.d  # by construction
    where = exact_fill_packing(inst, lower, deadline=float("inf"))
    assert where is not None and bins_problem(inst, bins_of(where)) is None
    assert np.unique(where).size == lower == optimum_bins(inst.item_sizes())


@pytest.mark.parametrize("seed", range(24))
def test_a_packing_it_returns_is_optimal_on_random_tiny_instances(seed):
    """Random integer instances (some tight by chance, some made tight): whatever it returns is checked and
    has the proven bound's bins, which brute force confirms; with no tight dimension it returns nothing."""
    rng = np.random.default_rng(100 + seed)
    n, d = int(rng.integers(3, 8)), int(rng.integers(1, 3))
    items = rng.integers(1, 7, size=(n, d))
    cap = np.full(d, 10)
    total = items.sum(axis=0)
    if seed % 2 == 0:  # top up dimension 0 so that its total is a whole number of bins
        items = np.vstack([items, np.eye(1, d, 0, dtype=int) * (-total[0] % 10) + (np.arange(d) > 0)])
        items = items[items.max(axis=1) > 0]
    inst = _packing(items, cap)
    lower = cheap_lower_bound(inst.sizes(), inst.count)[0]
    where = exact_fill_packing(inst, lower, deadline=float("inf"))
    opt = optimum_bins(inst.item_sizes())
    if tight_dimensions(inst, lower).size == 0:
        assert where is None
    if where is not None:
        assert bins_problem(inst, bins_of(where)) is None and np.unique(where).size == lower == opt


def test_a_loose_dimension_is_only_bounded_and_equal_hashes_are_told_apart():
    # dimension 0 is tight (total 20 = 2 bins); dimension 1 is not. Types 0 and 1 agree on dimension 0.
    items = np.array([[5, 1], [5, 9], [5, 1], [5, 2]])
    inst = _packing(items, np.array([10, 10]))
    tight = tight_dimensions(inst, 2)
    assert tight.tolist() == [0]
    columns = exact_columns(inst, tight)
    for idx, val in columns:
        load = val @ inst.demand[idx]
        assert load[0] == 10 and load[1] <= 10
    where = exact_fill_packing(inst, 2, deadline=float("inf"))
    assert where is not None and bins_problem(inst, bins_of(where)) is None and np.unique(where).size == 2


def test_fractional_data_or_more_than_three_items_per_bin_is_left_alone():
    frac = VectorPacking(np.ones(1), np.array([[0.5], [0.25]]), np.array([1, 2]))
    assert tight_dimensions(frac, 1).size == 0 and exact_fill_packing(frac, 1, deadline=float("inf")) is None
    four = _packing(np.full((8, 1), 5), np.array([20]))  # 2 bins of four items: beyond triplets
    assert exact_fill_packing(four, 2, deadline=float("inf")) is None


@pytest.mark.parametrize("d", [3, 5])
def test_perfect_triplets_at_500_items_are_closed(d):
    inst = generate_vbp("triplets", 500, d, 1)
    r = pack(inst, "certify", time_limit=60)
    assert r["status"] == "optimal" and r["lower"] == r["upper"] == inst.n_items // 3
    assert r["upper_method"] == "exact-fill" and bins_problem(inst, r["bins"]) is None


def test_certify_without_the_step_still_agrees_on_small_triplets():
    inst = generate_vbp("triplets", 30, 3, 2)
    a = certify_packing(inst, time_limit=20)
    b = certify_packing(inst, time_limit=20, exact_share=0.0)
    assert a.status == "optimal" and a.upper == 10 and b.lower <= 10 <= b.upper
