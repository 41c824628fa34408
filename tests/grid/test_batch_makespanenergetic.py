"""Makespan bound by energetic reasoning with a common deadline (lowerbounds.batch.makespanenergetic): the sweep
equals the plain formula, the bound is at least the quick bound and never above the brute-force optimum, and
``grid bound``'s relaxed methods report it (method ``energetic``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowerbounds.batch.bounds import instance_bounds
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.makespanenergetic import makespan_energetic, tail_parts_bound
from lowerbounds.batch.quick import makespan_quick
from tests.grid.batch_oracle import brute_force
from tests.grid.test_batch_packing import _random  # small instances, one or two clusters with speeds


def _plain(release, amount, duration) -> float:
    """The formula, release date by release date, job by job."""
    best = -np.inf
    for t in np.unique(release):
        total = t
        for r, a, d in zip(release, amount, duration):
            if r >= t:
                total += a
            elif d > 0:
                total += a * max(0.0, 1.0 - (t - r) / d)
        best = max(best, total)
    return float(best)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.floats(0, 20), st.integers(0, 30)), min_size=1, max_size=25))
def test_the_sweep_is_the_plain_formula(rows):
    r, a, d = (np.array(col, dtype=float) for col in zip(*rows))
    a = np.where(d > 0, a, 0.0)  # a job of zero duration carries no work
    assert tail_parts_bound(r + 1e6, a, d) == pytest.approx(_plain(r, a, d) + 1e6, rel=1e-8, abs=1e-6)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), K=st.integers(1, 2))
def test_never_above_the_brute_force_optimum_and_at_least_the_quick_bound(seed, K):
    inst = _random(seed, 5, K)
    value = makespan_energetic(inst)
    assert makespan_quick(inst) * (1 - 1e-8) - 1e-8 <= value <= brute_force(inst)["makespan"] + 1e-9


def test_the_long_job_released_before_t_counts():
    """Two processors: a narrow job of 10 s at 0, a full-width job of 1 s at 9. The area, per-job and wide-job
    bounds give 10; after 9 the narrow job still has 1 s of its 10 to run, so the bound is 9 + (2 + 1) / 2 = 10.5;
    the optimum is 11 (the wide job cannot run beside it)."""
    inst = BatchInstance.from_arrays([0.0, 9.0], [1, 2], [[10.0], [1.0]], [2])
    assert makespan_quick(inst) == pytest.approx(10.0)
    assert makespan_energetic(inst) == pytest.approx(10.5)
    assert brute_force(inst)["makespan"] == pytest.approx(11.0)
    bound = instance_bounds(BatchInstance.from_arrays([0.0, 9.0] + [100.0] * 7, [1, 2] + [1] * 7,
                                                      [[10.0], [1.0]] + [[0.5]] * 7, [2]), method="lp", time_limit=1.0)
    assert bound.bounds["makespan"].method in ("energetic", "lp")  # 9 jobs: above the enumeration's size
    assert bound.bounds["makespan"].value >= 100.5 - 1e-6


def test_the_quick_method_reports_it_too():
    """``--method quick`` runs the energetic bound (O(n log n)): on the two jobs above it gives 10.5, not the quick
    bounds' 10."""
    quick = instance_bounds(BatchInstance.from_arrays([0.0, 9.0], [1, 2], [[10.0], [1.0]], [2]), method="quick")
    assert quick.bounds["makespan"].method == "energetic"
    assert quick.bounds["makespan"].value == pytest.approx(10.5)
