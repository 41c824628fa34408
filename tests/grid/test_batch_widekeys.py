"""The mean response time's wide-first entries (``wide spt``, ``wide a``: ``p sqrt(M / q)``, ``r + a p sqrt(M / q)``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lowerbounds.batch.clairvoyant as C
from lowerbounds.batch.clairvoyant import _Evaluator, _features, clairvoyant_schedules, run_key
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.portfolio import PORTFOLIO, WIDE_KEYS, key_name, portfolio_key, wide_of
from tests.grid.batch_oracle import brute_force


def test_the_wide_keys_parse_and_are_the_mean_responses_own():
    assert wide_of("wide spt") == 0.0 and wide_of("wide 4") == 4.0
    assert wide_of("spt") is None and wide_of("tier 1200") is None and wide_of(4.0) is None
    assert not any(a in WIDE_KEYS for _kernel, a in PORTFOLIO)  # run within the mean response's own work
    assert key_name("easy", "wide spt") == "easy, key p sqrt(M / q)"
    assert key_name("easy", "wide 4") == "easy, key r + 4 p sqrt(M / q)"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50_000), st.integers(1, 64), st.floats(1, 80_000)), min_size=1, max_size=30),
       st.sampled_from(WIDE_KEYS + ("wide 1", "wide 16")))
def test_the_wide_key_is_the_duration_over_the_root_of_the_share(jobs, name):
    jobs.sort()
    r = np.array([j[0] for j in jobs], float)
    q = np.array([j[1] for j in jobs], np.int64)
    p = np.array([j[2] for j in jobs])
    inst = BatchInstance.from_arrays(r, q, p[:, None], np.array([64]))
    ev = _Evaluator(inst)
    key = portfolio_key(name, ev.release, _features(ev))
    a = wide_of(name)
    plain = [pj * (64 / qj) ** 0.5 for pj, qj in zip(p, q)]
    expected = plain if a == 0 else [rj + a * g for rj, g in zip(r, plain)]
    assert key == pytest.approx(np.array(expected), rel=1e-12)


def test_a_wide_job_goes_first_among_jobs_of_the_same_duration():
    # 8 processors, four jobs of 1 h submitted together, the widest listed last: shortest first keeps the
    # submission order, the wide keys put the widest first and the narrowest last
    r = np.zeros(4)
    inst = BatchInstance.from_arrays(r, np.array([1, 2, 4, 8]), np.full((4, 1), 3600.0), np.array([8]))
    feats = _features(_Evaluator(inst))
    assert list(np.argsort(portfolio_key("spt", inst.release, feats), kind="stable")) == [0, 1, 2, 3]
    for name in WIDE_KEYS:
        assert list(np.argsort(portfolio_key(name, inst.release, feats), kind="stable")) == [3, 2, 1, 0]


@pytest.mark.parametrize("seed", range(12))
def test_the_wide_schedules_are_checked_and_never_below_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 6)), int(rng.integers(2, 6))
    r = np.sort(rng.integers(0, 4000, size=n)).astype(float)
    inst = BatchInstance.from_arrays(r, rng.integers(1, m + 1, size=n), rng.integers(1, 9000, size=n)[:, None] * 1.0,
                                     np.array([m]))
    best = brute_force(inst)
    feats = _features(_Evaluator(inst))
    for name in WIDE_KEYS + ("wide 1",):
        values, _cluster, _start = run_key(inst, portfolio_key(name, inst.release, feats), "easy")  # checked inside
        for metric in ("mean_response", "mean_bounded_slowdown", "makespan"):
            assert values[metric] >= best[metric] - 1e-9


def _stream(seed=21, n=120, m=8, load=1.1):
    """A stream above the machine's capacity, 30 % of its jobs wider than half of it (seed 21: one where the wide keys
    beat shortest first and ``r + 4 p``, as on lublin_256 and SDSC-SP2; on 3 of 30 seeds they do)."""
    rng = np.random.default_rng(seed)
    wide = rng.random(n) < 0.3
    q = np.where(wide, rng.integers(5, m + 1, size=n), rng.integers(1, 3, size=n))
    p = np.round(rng.exponential(3600, size=n)) + 60
    r = np.sort(np.round(rng.uniform(0, (q * p).sum() / (m * load), size=n)))
    return BatchInstance.from_arrays(r.astype(float), q, p[:, None], np.array([m]))


def test_the_search_starts_from_a_wide_entry_when_it_is_the_best():
    inst = _stream()
    feats = _features(_Evaluator(inst))
    wide = {a: run_key(inst, portfolio_key(a, inst.release, feats), "easy")[0]["mean_response"] for a in WIDE_KEYS}
    old = min(run_key(inst, portfolio_key(a, inst.release, feats), "easy")[0]["mean_response"] for a in ("spt", 4.0))
    assert min(wide.values()) < 0.96 * old
    found = clairvoyant_schedules(inst, metrics=("mean_response",), budget=2e6, seed=0, time_limit=60)["mean_response"]
    assert found.value <= min(wide.values()) + 1e-9
    assert "sqrt(M / q)" in found.detail


def test_the_other_metrics_keep_their_budgets(monkeypatch):
    # the wide entries are charged to the mean response's own work: when it ends by its budget, the metrics after
    # it get the same budgets and find the same schedules as without the entries
    inst = _stream(seed=21, n=300)
    kw = dict(metrics=("mean_response", "mean_bounded_slowdown", "max_stretch"), budget=6e6, seed=0, time_limit=60,
              patience=10**6)
    with_wide = clairvoyant_schedules(inst, **kw)
    monkeypatch.setattr(C, "_wide_starts", lambda ev, feats, best, easy, limit: (best, easy))
    without = clairvoyant_schedules(inst, **kw)
    assert with_wide["mean_response"].stopped == without["mean_response"].stopped == "budget"
    for m in ("mean_bounded_slowdown", "max_stretch"):
        assert with_wide[m].value == without[m].value
