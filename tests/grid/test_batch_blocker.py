"""The blocker bound (lowerbounds.batch.blocker) against a plain evaluation, the Lagrangian and brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch import blocker
from lowerbounds.batch.blocker import blocker_bound, blocker_groups, blocker_value, response_lagrangian
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.lagrangian import lagrangian_bound, lagrangian_value, slot_grid
from tests.grid.batch_oracle import brute_force

TOL = 1e-6


def _instance(seed, n, integer):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 7))
    q = rng.integers(1, m + 1, size=n)
    r = rng.integers(0, 8, size=n).astype(float)
    p = rng.integers(1, 25, size=n).astype(float) if integer else rng.uniform(0.5, 25, size=n)
    return BatchInstance.from_arrays(r, q, p[:, None], np.array([m]), np.array([1.0]))


def _cost(s, r, p, q, lam, t0, delta):
    """A job's priced cost started at ``s``, by direct integration over the slots."""
    area = sum(lam[u] * max(0.0, min(s + p, t0 + (u + 1) * delta) - max(s, t0 + u * delta)) for u in range(lam.size))
    return s + p - r + q * area


def _least(r, p, q, lam, t0, delta, lo, hi):
    """Least cost of a start in ``[max(lo, r), hi]``: its ends and every breakpoint between (no pruning)."""
    lo = max(lo, r)
    if lo > hi:
        return np.inf
    edges = [t0 + u * delta for u in range(lam.size + 1)]
    cands = [lo] + ([hi] if np.isfinite(hi) else [edges[-1] + 1.0]) + edges + [e - p for e in edges]
    return min(_cost(s, r, p, q, lam, t0, delta) for s in cands if lo <= s <= hi)


def _plain_value(inst, lam, t0, delta, groups):
    """``L_G(lam)`` of the module docstring, every centre slot and member start scanned in plain Python."""
    r, q, p = inst.release, inst.width, inst.duration[:, 0]
    m = int(inst.procs[0])
    centres, mptr, midx = groups
    lam = lam[0]
    grouped = np.zeros(len(inst), bool)
    total = 0.0
    horizon = int(np.ceil((r.max() + p.sum() - t0) / delta)) + lam.size + 2
    for g, c in enumerate(centres):
        members = midx[mptr[g]:mptr[g + 1]]
        assert all(q[i] + q[c] > m for i in members)
        grouped[c] = True
        grouped[members] = True
        best = np.inf
        for u in range(int(np.floor((r[c] - t0) / delta)), horizon):
            a, b = max(r[c], t0 + u * delta), t0 + (u + 1) * delta
            v = _least(r[c], p[c], q[c], lam, t0, delta, a, b)
            for i in members:
                v += min(_least(r[i], p[i], q[i], lam, t0, delta, r[i], b - p[i]),
                         _least(r[i], p[i], q[i], lam, t0, delta, a + p[c], np.inf))
            best = min(best, v)
        total += best
    total += sum(_least(r[j], p[j], q[j], lam, t0, delta, r[j], np.inf) for j in range(len(inst)) if not grouped[j])
    return total - float(lam.sum() * m * delta)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(2, 5), integer=st.booleans(), slots=st.integers(1, 10),
       scale=st.sampled_from([0.0, 0.3, 1.0, 5.0]))
def test_any_prices_give_the_plain_value_between_the_lagrangian_and_brute_force(seed, n, integer, slots, scale):
    inst = _instance(seed, n, integer)
    t0, delta, T = slot_grid(inst, slots)
    lam = np.random.default_rng(seed + 1).exponential(scale, size=(1, T)) if scale else np.zeros((1, T))
    groups = blocker_groups(inst, np.random.default_rng(seed + 2).uniform(0, 30, size=n))
    value, grad = blocker_value(inst, lam, t0, delta, groups)
    assert grad.shape == lam.shape
    plain = _plain_value(inst, lam, t0, delta, groups)
    priced = float(lam.sum() * inst.procs[0] * delta)
    margin = 1e-9 * (abs(plain + priced) + priced)  # blocker_value's floating-point safety margin
    assert value == pytest.approx(plain - margin, rel=1e-7, abs=1e-7)
    assert value >= lagrangian_value(inst, lam, 0, t0, delta)[0] - TOL * abs(value) - TOL
    assert value <= brute_force(inst)["mean_response"] * n * (1 + TOL) + TOL


def test_groups_pair_each_member_with_one_centre_it_cannot_run_beside():
    r = np.array([0.0, 1.0, 2.0, 50.0, 51.0, 500.0 * 86400])
    q = np.array([3, 2, 1, 4, 1, 1])
    inst = BatchInstance.from_arrays(r, q, np.full((6, 1), 10.0), np.array([4]), np.array([1.0]))
    centres, mptr, midx = blocker_groups(inst)
    assert list(centres) == [0, 3]  # wider than half, by release
    members = {int(c): sorted(midx[mptr[g]:mptr[g + 1]].tolist()) for g, c in enumerate(centres)}
    # job 1 (2 wide) cannot run beside either centre and is nearer to 0; jobs 2 and 4 (1 wide) fit beside 0 (3
    # wide), not beside 3 (4 wide); job 5 is beyond the reach of every centre
    assert members == {0: [1], 3: [2, 4]}
    two = BatchInstance.from_arrays(r, q, np.full((6, 2), 10.0), np.array([4, 4]), np.array([1.0, 1.0]))
    assert blocker_groups(two)[0].size == 0


def test_a_full_width_job_cannot_be_cut_into_pieces_beside_the_narrow_ones():
    # on 2 processors a full-width job of 4 s released at 0 and four narrow jobs released at 0, 2, 3 and 4: the
    # optimum's total response is 15; the Lagrangian's limit (the LP) is 11, running pieces of the wide job beside
    # the narrow ones; kept off it, the narrow jobs lift the bound to the optimum or nearly
    inst = BatchInstance.from_arrays(np.array([0.0, 0.0, 4.0, 2.0, 3.0]), np.array([2, 1, 1, 1, 1]),
                                     np.array([[4.0], [1.0], [2.0], [1.0], [1.0]]), np.array([2]), np.array([1.0]))
    optimum = brute_force(inst)["mean_response"] * 5
    assert optimum == pytest.approx(15.0)
    prices: list = []
    plain, _, _ = lagrangian_bound(inst, 0, slots=64, iterations=3000, time_limit=30.0, prices=prices)
    blocked, steps = blocker_bound(inst, *prices, work=5e8)
    assert steps > 0 and plain < 11.5
    assert 14.5 < blocked <= optimum * (1 + TOL) + TOL


def test_the_mean_response_work_is_shared_and_reproducible(monkeypatch):
    given = []
    real = blocker.lagrangian_bound

    def recorder(inst, mode, **kwargs):
        given.append(kwargs["work"])
        return real(inst, mode, **kwargs)

    monkeypatch.setattr(blocker, "lagrangian_bound", recorder)
    inst = _instance(7, 5, True)
    assert (2 * inst.width > inst.procs[0]).any()
    first = response_lagrangian(inst, time_limit=1e6, start=0.0, refine=1, work=2e7)
    assert response_lagrangian(inst, time_limit=1e6, start=0.0, refine=1, work=2e7) == first
    assert given == [pytest.approx(2e7 * (1 - blocker.BLOCKER_SHARE))] * 2
    assert max(first[0], first[3]) <= brute_force(inst)["mean_response"] * 5 * (1 + TOL) + TOL
    narrow = BatchInstance.from_arrays(inst.release, np.ones(5, int), inst.duration, inst.procs, inst.speed)
    given.clear()
    assert response_lagrangian(narrow, time_limit=1e6, start=0.0, refine=1, work=2e7)[3] == -np.inf
    assert given == [2e7]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), slots=st.integers(1, 12), span=st.integers(1, 12),
       scale=st.sampled_from([0.0, 0.3, 1.0, 5.0]))
def test_a_member_costs_its_plain_least_cost_off_the_centre_in_every_slot(seed, slots, span, scale):
    # g_i(u) = min(PM_i(b_u - p_i), SM_i(a_u + p_c)) for each of the centre's slots, against a plain scan; from the
    # first slot where the member can end before the centre's slot ends at its least-cost start, g_i is that least
    # cost (the kernel scans no SM there)
    from lowerbounds.batch._blocker_kernels import _member_costs, least_costs

    inst = _instance(seed, 2, False)
    r, q, p = inst.release, inst.width, inst.duration[:, 0]
    t0, delta, T = slot_grid(inst, slots)
    lam = np.random.default_rng(seed + 1).exponential(scale, size=T) if scale else np.zeros(T)
    lo, lo_s = least_costs(r, q.astype(np.int64), p, lam, t0, delta)
    cum = np.concatenate([[0.0], np.cumsum(lam * delta)])
    u0 = max(int(np.floor((r[0] - t0) / delta)), 0)
    a0 = max(r[0], t0 + u0 * delta)
    acc = np.zeros(span)
    _member_costs(acc, u0, a0, p[0], r[0], t0, delta, 1.0 / delta, r[1], p[1], float(q[1]), cum, lam, lo[1],
                  lo_s[1], np.zeros(1, np.int64))
    for k in range(span):
        a, b = max(r[0], t0 + (u0 + k) * delta), t0 + (u0 + k + 1) * delta
        plain = min(_least(r[1], p[1], q[1], lam, t0, delta, r[1], b - p[1]),
                    _least(r[1], p[1], q[1], lam, t0, delta, a + p[0], np.inf))
        assert acc[k] == pytest.approx(plain, rel=1e-9, abs=1e-9), k
