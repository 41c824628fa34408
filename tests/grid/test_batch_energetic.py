"""The max-stretch bound by energetic reasoning (lowerbounds.batch.energetic): the compiled test against a plain
one, and the bound against brute force (no schedule of max stretch below the bound exists)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lowerbounds.batch.bounds as bounds_module
from lowerbounds.batch import instance_bounds
from lowerbounds.batch._energetic import energetic_violation
from lowerbounds.batch.energetic import dff_widths, energetic_infeasible, stretch_energetic
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.quick import stretch_quick
from tests.grid.batch_oracle import brute_force


def _plain_infeasible(r, p, w, cap, stretch, slack):
    """Energetic reasoning written plainly: every release ``t1``, every ``t2`` in the breakpoints of every job's
    overlap, each job's minimum overlap ``max(0, min(t2 - t1, p, r + p - t1, t2 - r - (S - 1) p))`` summed."""
    lst, ect = r + (stretch - 1) * p, r + p
    for t1 in r:
        points = [x for j in range(r.size) for x in (max(t1, lst[j]), max(t1, lst[j]) + min(p[j], ect[j] - t1))]
        for t2 in points:
            if t2 <= t1:
                continue
            over = np.maximum(0.0, np.minimum.reduce([np.full(r.size, t2 - t1), p, ect - t1, t2 - lst]))
            if (w * over).sum() > cap * (t2 - t1) + slack * (1 + abs(t2)):
                return True
    return False


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 9), stretch=st.floats(1.0, 4.0), integer=st.booleans())
def test_the_compiled_test_is_the_plain_one(seed, n, stretch, integer):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 9))
    r = rng.integers(0, 12, n).astype(float) if integer else rng.uniform(0, 12, n)
    p = rng.integers(1, 8, n).astype(float) if integer else rng.uniform(0.1, 8, n)
    for theta in (1, m // 2):
        w = dff_widths(rng.integers(1, m + 1, n), m, max(theta, 1))
        got = not np.isnan(energetic_violation(r, p, w, float(m), stretch, np.inf, 1e-9 * m))
        assert got == _plain_infeasible(r, p, w, m, stretch, 1e-9 * m)


def test_a_shorter_horizon_only_drops_intervals():
    rng = np.random.default_rng(4)
    for _ in range(30):
        n, m = 12, 6
        r, p = rng.uniform(0, 40, n), rng.uniform(0.5, 10, n)
        w = rng.integers(1, m + 1, n).astype(float)
        for s in (1.1, 1.5, 2.5):
            short = not np.isnan(energetic_violation(r, p, w, float(m), s, 3.0, 0.0))
            assert not short or not np.isnan(energetic_violation(r, p, w, float(m), s, np.inf, 0.0))


@pytest.mark.parametrize("m", [9, 10])
def test_dual_feasible_widths_of_any_running_set_fit(m):
    for theta in range(1, (m + 1) // 2 + 1):
        for a in range(1, m + 1):
            for b in range(0, m + 1 - a):  # a, b and c run together (a + b + c <= m)
                for c in range(0, m + 1 - a - b):
                    widths = np.array([x for x in (a, b, c) if x])
                    assert dff_widths(widths, m, theta).sum() <= m


def test_energetic_reasoning_sees_a_mandatory_part_that_edf_misses(monkeypatch):
    # a long job of the whole cluster from t = 0, a short one from t = 1: best is to start the long one at 2 (1.2);
    # preemptive EDF runs the short one inside the long one and proves only 1.1
    inst = BatchInstance.from_arrays([0, 1], [2, 2], [[10], [1]], [2])
    quick = stretch_quick(inst)
    best = brute_force(inst)["max_stretch"]
    value = stretch_energetic(inst, quick, rel_tol=1e-5)
    assert quick == pytest.approx(1.1, rel=1e-4) and best == pytest.approx(1.2)
    assert value == pytest.approx(best, rel=1e-3) and value <= best
    monkeypatch.setattr(bounds_module, "EXHAUST_CAP", 0)  # the relaxations, not the enumeration of a tiny workload
    bounds = instance_bounds(inst, method="lp", time_limit=5).bounds["max_stretch"]
    assert quick * 1.05 < bounds.value <= best * (1 + 1e-9)  # the quick bound's blackout part reaches it too
    assert bounds.method in ("quick", "branching", "energetic", "lp")


def test_jobs_wider_than_half_the_cluster_form_one_machine():
    # widths 3 and 3 on 5 processors cannot overlap: with theta = 3 each counts as the whole cluster
    r, p, q = np.array([0.0, 0.0]), np.array([2.0, 2.0]), np.array([3, 3])
    assert energetic_infeasible(r, p, q, 5, 1.9)  # the second one ends at 4 > 2 * 1.9
    assert not energetic_infeasible(r, p, q, 6, 1.01)  # on 6 they fit side by side
    inst = BatchInstance.from_arrays(r, q, p[:, None], [5])
    assert stretch_energetic(inst, 1.0) <= brute_force(inst)["max_stretch"] == pytest.approx(2.0)


def test_several_clusters_keep_the_bound_given():
    inst = BatchInstance.from_arrays([0, 1], [2, 2], [[10, 10], [1, 1]], [2, 2])
    assert stretch_energetic(inst, 1.05) == 1.05
