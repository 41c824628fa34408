"""The duration-and-area tiers of the clairvoyant portfolio (``tiers X A1 A2``) and the block search's area rows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowerbounds.batch._searchstep import Best
from lowerbounds.batch.blocksearch import block_key, block_start
from lowerbounds.batch.clairvoyant import _Evaluator, _features, run_key
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.portfolio import BSLD_TIERS, PORTFOLIO, key_name, portfolio_key, tier_of, tiers_of
from tests.grid.batch_oracle import brute_force


def _plain_levels(p, q, m, x, areas):
    """The tier of each job, counted condition by condition."""
    out = []
    for pj, qj in zip(p, q):
        level = int(pj >= x)
        for a in areas:
            level += int(qj * pj / (m * 3600.0) >= a)
        out.append(level)
    return out


def test_the_tiers_keys_parse_and_are_in_the_portfolio():
    assert tiers_of("tiers 1200 0.25 4") == (1200.0, (0.25, 4.0))
    assert tiers_of("tiers 1200 4") == (1200.0, (4.0,))
    assert tiers_of("tier 1200") is None and tier_of("tiers 1200 4") is None and tiers_of(4.0) is None
    assert all(("serial", a) in PORTFOLIO for a in BSLD_TIERS)
    assert key_name("serial", "tiers 600 0.25 16") == ("serial, key r, one tier later for each of p >= 600 s, "
                                                        "area >= 0.25 machine-h, area >= 16 machine-h")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50_000), st.integers(1, 64), st.floats(1, 80_000)), min_size=1, max_size=30),
       st.sampled_from(BSLD_TIERS))
def test_the_tiers_key_orders_by_tier_then_submission(jobs, name):
    jobs.sort()
    r = np.array([j[0] for j in jobs], float)
    q = np.array([j[1] for j in jobs], np.int64)
    p = np.array([j[2] for j in jobs])
    inst = BatchInstance.from_arrays(r, q, p[:, None], np.array([64]))
    ev = _Evaluator(inst)
    key = portfolio_key(name, ev.release, _features(ev))
    x, areas = tiers_of(name)
    levels = _plain_levels(p, q, 64, x, areas)
    expected = sorted(range(len(r)), key=lambda j: (levels[j], r[j], j))
    assert list(np.argsort(key, kind="stable")) == expected


def test_a_wide_long_job_waits_after_the_narrow_long_ones():
    # 4 processors: a job of the whole cluster for 2 h at 0, four 1-h jobs of one processor at 1..4 s.
    # tier 1200 (all long, FCFS): the wide job first, the four wait until 7,200 s: mean (1 + 4 x ~3) / 5.
    # tiers 1200 1 (the wide job has 2 machine-hours, the narrow ones 0.25): they run at once, it waits 3,604 s.
    r = np.array([0.0, 1, 2, 3, 4])
    inst = BatchInstance.from_arrays(r, np.array([4, 1, 1, 1, 1]), np.array([7200.0, 3600, 3600, 3600, 3600])[:, None],
                                     np.array([4]))
    ev = _Evaluator(inst)
    feats = _features(ev)
    tier = run_key(inst, portfolio_key("tier 1200", inst.release, feats), "serial")[0]["mean_bounded_slowdown"]
    tiers, _, start = run_key(inst, portfolio_key("tiers 1200 1", inst.release, feats), "serial")
    assert tier == pytest.approx((1 + sum((7200 - rj + 3600) / 3600 for rj in r[1:])) / 5)
    assert list(start) == [3604.0, 1.0, 2.0, 3.0, 4.0]
    assert tiers["mean_bounded_slowdown"] == pytest.approx((4 + (3604 + 7200) / 7200) / 5)
    assert tiers["mean_bounded_slowdown"] == pytest.approx(brute_force(inst)["mean_bounded_slowdown"])


@pytest.mark.parametrize("seed", range(12))
def test_the_tiers_schedules_are_checked_and_never_below_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 6)), int(rng.integers(2, 6))
    r = np.sort(rng.integers(0, 4000, size=n)).astype(float)
    inst = BatchInstance.from_arrays(r, rng.integers(1, m + 1, size=n), rng.integers(1, 9000, size=n)[:, None] * 1.0,
                                     np.array([m]))
    best = brute_force(inst)
    ev = _Evaluator(inst)
    feats = _features(ev)
    for name in BSLD_TIERS + ("tiers 1200 1", "tiers 0 0.1 0.5"):
        values, cluster, start = run_key(inst, portfolio_key(name, inst.release, feats), "serial")  # checked inside
        assert values["mean_bounded_slowdown"] >= best["mean_bounded_slowdown"] - 1e-9


@pytest.mark.parametrize("name", BSLD_TIERS + ("tier 1200",))
def test_the_block_search_starts_at_a_tiers_entry(name):
    rng = np.random.default_rng(3)
    n = 200
    r = np.sort(rng.uniform(0, 1e5, size=n))
    inst = BatchInstance.from_arrays(r, rng.integers(1, 65, size=n), rng.uniform(1, 4e4, size=(n, 1)), np.array([64]))
    ev = _Evaluator(inst)
    feats = _features(ev)
    coef = block_start(Best(1.0, "portfolio", "", np.zeros(n), np.zeros(n), "serial", name))
    if tiers_of(name) is not None:  # the same key, so the search starts from the entry's schedule
        assert np.array_equal(block_key(ev, feats, coef), portfolio_key(name, ev.release, feats))
    else:  # a tier entry starts at a_b = 16 within its tiers, no area row
        assert not coef[2:].any()
        assert np.allclose(block_key(ev, feats, coef), portfolio_key(name, ev.release, feats) + 16 * feats["p"],
                           rtol=1e-12, atol=0)
