"""The refined bound's column pool and its column generation (``lowerbounds.moldable.refined``)."""

import math

import numpy as np
import pytest

from lowerbounds.moldable import brute_force_optimum, refined_interval_bound
from lowerbounds.moldable.bounds import _refined_ends
from lowerbounds.moldable.refined import build_pool, lagrangian_bound, solve_by_columns, solve_full
from vcsched.generators.moldable import KINDS, generate_moldable_instance
from vcsched.problems.moldable import MoldableInstance


def instances(count, seed, m_max=6, n_max=8):
    rng = np.random.default_rng(seed)
    for t in range(count):
        m, n = int(rng.integers(1, m_max + 1)), int(rng.integers(2, n_max + 1))
        if t % 3 == 2:  # non-monotonic times
            yield MoldableInstance.from_arrays(m, rng.uniform(0.3, 10, (n, m)).tolist(), rng.integers(1, 11, n).tolist())
        else:
            yield generate_moldable_instance(m, n, KINDS[t % 4], rng=200 + t)


def naive_columns(inst, ends, partial_rows, merge_late):
    """Column by column from the definitions: (task, J, cost, area, {r: partial area})."""
    L = len(ends)
    lows, highs = np.r_[0.0, ends], np.r_[ends, np.inf]
    out = []
    for i in range(inst.n):
        t, work, w = inst.times[i], inst.work[i], inst.weights[i]
        for J in range(L + 1):
            a, b = lows[J], highs[J]
            early = [k for k in range(inst.m) if t[k] <= a]
            late = sorted((k for k in range(inst.m) if a < t[k] <= b), key=lambda k: (t[k], work[k]))
            groups = []
            best = math.inf
            if early:
                best = min(work[k] for k in early)
                groups.append((early, w * a, best))
            if merge_late and late and min(work[k] for k in late) < best * (1 - 1e-12):
                groups.append((late, w * min(t[k] for k in late), min(work[k] for k in late)))
            elif not merge_late:
                for k in late:
                    if work[k] < best * (1 - 1e-12):
                        groups.append(([k], w * t[k], work[k]))
                        best = work[k]
            for ks, cost, area in groups:
                part = {}
                if 0 < J < L:
                    for r in range(max(0, J - partial_rows), J):
                        share = min((k + 1) * max(0.0, t[k] - (b - ends[r])) for k in ks)
                        if share > 0:
                            part[r] = min(share, area)
                out.append((i, J, cost, area, part))
    return out


def pool_columns(pool):
    part = pool.part.tocsc()
    cols = []
    for c in range(pool.n_cols):
        lo, hi = part.indptr[c], part.indptr[c + 1]
        cols.append((int(pool.task[c]), int(pool.J[c]), float(pool.cost[c]), float(pool.area[c]),
                     dict(zip(part.indices[lo:hi].tolist(), part.data[lo:hi].tolist()))))
    return cols


@pytest.mark.parametrize("options", [(16, True), (16, False), (0, True), (1000, True)])
def test_pool_equals_the_column_by_column_definition(options):
    partial_rows, merge_late = options
    for inst in instances(9, seed=3):
        ends = _refined_ends(inst, 1.1 if partial_rows != 1000 else 1.05, None)
        got = pool_columns(build_pool(inst, ends, partial_rows, merge_late))
        want = naive_columns(inst, ends, partial_rows, merge_late)
        key = lambda c: (c[0], c[1], c[2], c[3])  # noqa: E731
        got, want = sorted(got, key=key), sorted(want, key=key)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g[:2] == w[:2] and g[2:4] == pytest.approx(w[2:4], rel=1e-12)
            assert sorted(g[4]) == sorted(w[4])
            assert [g[4][r] for r in sorted(g[4])] == pytest.approx([w[4][r] for r in sorted(w[4])], rel=1e-12)


def test_column_generation_equals_the_whole_lp():
    for t, inst in enumerate(instances(12, seed=5, m_max=12, n_max=25)):
        options = [{}, {"merge_late": False}, {"partial_rows": 0}, {"ratio": 1.05, "partial_rows": 1000}][t % 4]
        cg = refined_interval_bound(inst, **options)
        full = refined_interval_bound(inst, column_generation=False, **options)
        assert cg.status.value == "optimal" and full.status.value == "optimal"
        assert cg.bound == pytest.approx(full.bound, rel=1e-7)
        assert cg.extra["columns"] == full.extra["columns"]


def test_lagrangian_bound_is_valid_for_any_multipliers():
    rng = np.random.default_rng(1)
    for inst in instances(8, seed=9, m_max=3, n_max=4):
        opt = brute_force_optimum(inst).objective
        pool = build_pool(inst, _refined_ends(inst, 1.1, None), 16, True)
        lp = solve_full(pool, None).bound
        starts = np.flatnonzero(np.r_[True, pool.task[1:] != pool.task[:-1]])
        for scale in (0.0, 0.1, 1.0, 10.0):
            u = scale * rng.exponential(size=pool.L)
            value = lagrangian_bound(pool, u, starts)
            assert value <= lp * (1 + 1e-9) and value <= opt * (1 + 1e-9)
        assert lagrangian_bound(pool, np.zeros(pool.L), starts) == pytest.approx(
            float(np.dot(inst.weights, inst.min_time)), rel=1e-12)  # u = 0: every task at its least time


def test_stopped_column_generation_still_returns_a_valid_bound():
    inst = generate_moldable_instance(40, 60, "high", rng=4)
    pool = build_pool(inst, _refined_ends(inst, 1.1, None), 16, True)
    exact = solve_by_columns(pool, None)
    assert exact.status.value == "optimal"
    assert exact.bound == pytest.approx(solve_full(pool, None).bound, rel=1e-7)
    stopped = solve_by_columns(pool, 1e-9)
    assert stopped.status.value != "optimal"
    assert stopped.bound is None or stopped.bound <= exact.bound * (1 + 1e-9)
    res = refined_interval_bound(inst, time_limit=1e-9)
    assert res.status.value != "optimal" and res.bound <= exact.bound * (1 + 1e-9)
