"""The 2-D pricing runs on the d-dimensional branch and bound shared with vector packing; it must
return exactly what the former 2-D search returned (``tests/vc/knapsack_2d_reference.py``), so that
``certify``'s columns, bounds and results are unchanged bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from lowerbounds.vc.knapsack import branch_and_bound
from tests.vc.knapsack_2d_reference import _search as reference_search


def _case(rng, n):
    p = rng.uniform(0.01, 1.0, n)
    a1 = rng.uniform(0.0, 0.6, n) * (rng.random(n) < 0.9)
    a2 = rng.uniform(0.01, 0.6, n)
    u = rng.integers(1, 6, n)
    mu = float(rng.choice(np.linspace(0.0, 1.0, 11)))
    return p, a1, a2, u, mu


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("node_limit", [30, 200_000])
def test_shared_search_equals_the_former_2d_search(seed, node_limit):
    rng = np.random.default_rng(seed)
    p, a1, a2, u, mu = _case(rng, int(rng.integers(1, 40)))
    old = reference_search(p, a1, a2, u, mu, node_limit, 8)
    new = branch_and_bound(p, np.ascontiguousarray(np.column_stack((a1, a2))), u, np.array([mu, 1.0 - mu]),
                           node_limit, 8)
    best, best_x, nodes, exhausted, open_bound, record, _, n_found = old
    assert new[0] == best and new[2] == nodes and new[3] == exhausted and new[4] == open_bound
    assert np.array_equal(new[1], best_x) and np.array_equal(new[5], record) and new[6] == n_found
