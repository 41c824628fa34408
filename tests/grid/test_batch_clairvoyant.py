"""The upper side of the batch references (lowerbounds.batch.clairvoyant), the fast checker and the contract."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch import clairvoyant_schedules, instance_references
from lowerbounds.batch._listsched import list_schedule, serial_schedule
from lowerbounds.batch.bracket import _given_upper
from lowerbounds.batch.exact import exact_optimum
from lowerbounds.batch.instance import METRICS, BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.lns import solve_window
from lowerbounds.reference import Bracket, Side, bracket_status, ratio_interval
from tests.grid.batch_oracle import brute_force, plain_check
from vcsched.errors import InternalError

TOL = 1e-6


def _instance(rng, n, K, *, integer=True, zeros=True):
    m = rng.integers(2, 7, size=K)
    s = rng.choice((1.0, 1.2, 1.4, 2.0), size=K) if K > 1 else np.ones(1)
    q = rng.integers(1, m.max() + 1, size=n)
    r = np.sort(rng.integers(0, 8, size=n)).astype(float) if integer else rng.uniform(0, 8, size=n)
    base = rng.integers(0 if zeros else 1, 7, size=n).astype(float) if integer else rng.uniform(0.1, 6, size=n)
    return BatchInstance.from_arrays(r, q, base[:, None] * s[0] / s[None, :], m, s)


# -- the contract ----------------------------------------------------------------------------------------------
def test_ratio_interval_minimise_and_maximise():
    # a metric to minimise: OPT in [8, 10]; a policy at 20 is 2 to 2.5 times the optimum
    assert ratio_interval(20.0, 8.0, 10.0) == [2.0, 2.5]
    b = Bracket("mean_response", Side(8.0, "quick", 0.1), Side(10.0, "portfolio", 0.2))
    assert b.ratio(20.0) == [2.0, 2.5] and b.status == "bracketed" and b.width == pytest.approx(1.25)
    # a metric to maximise (throughput): best placement found 8 (lower end), proven bound 10 (upper end);
    # a policy at 6 reaches between 60 % and 75 % of the optimum
    t = Bracket("throughput", Side(8.0, "search", 1.0), Side(10.0, "lp", 1.0), maximise=True)
    lo, hi = t.ratio(6.0)
    assert (lo, hi) == (pytest.approx(0.6), pytest.approx(0.75)) and hi <= 1
    assert ratio_interval(None, 1.0, 2.0) is None and ratio_interval(3.0, 0.0, 2.0) == [1.5, None]


def test_status_and_inconsistent_ends():
    assert bracket_status(100.0, 100.0 + 1e-3) == "optimal"
    assert bracket_status(100.0, 100.1) == "bracketed" and bracket_status(1.0, None) == "bound"
    with pytest.raises(InternalError, match="above upper end"):
        Bracket("makespan", Side(11.0, "lp", 0.0), Side(10.0, "portfolio", 0.0))


# -- the checker ----------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 7), st.integers(1, 3))
def test_fast_checker_agrees_with_the_plain_one(seed, n, K):
    rng = np.random.default_rng(seed)
    inst = _instance(rng, n, K)
    fits = [np.flatnonzero(inst.fits[j]) for j in range(n)]
    cluster = np.array([rng.choice(f) for f in fits])
    start = inst.release + rng.integers(0, 4, size=n) - (rng.random(n) < 0.1)  # sometimes before submission
    verdicts = []
    for check in (plain_check, check_batch_schedule):
        try:
            check(inst, cluster, start)
            verdicts.append(True)
        except AssertionError:
            verdicts.append(False)
    assert verdicts[0] == verdicts[1]


# -- constructions: always valid ------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 30), st.integers(1, 3), st.booleans())
def test_both_constructions_are_valid(seed, n, K, integer):
    rng = np.random.default_rng(seed)
    inst = _instance(rng, n, K, integer=integer)
    order = np.argsort(inst.release, kind="stable")
    sub = inst.subset(order)
    key = rng.normal(size=n)
    for cluster, start in (list_schedule(sub.release, sub.width, sub.duration, sub.procs, key),
                           serial_schedule(sub.release, sub.width, sub.duration, sub.procs, rng.permutation(n))):
        plain_check(sub, cluster, start)
        check_batch_schedule(sub, cluster, start)


def test_serial_generation_over_every_list_reaches_the_optimum():
    """Serial generation over all lists produces every active schedule (one cluster): its best is brute force's."""
    for seed in range(5):
        inst = _instance(np.random.default_rng(seed), 5, 1)
        best = {m: np.inf for m in METRICS}
        for perm in itertools.permutations(range(5)):
            c, s = serial_schedule(inst.release, inst.width, inst.duration, inst.procs, np.array(perm))
            for m, v in schedule_metrics(inst, c, s).items():
                if v is not None:
                    best[m] = min(best[m], v)
        for m, v in brute_force(inst).items():
            assert best[m] == pytest.approx(v, rel=1e-9, abs=1e-9), (seed, m)


# -- the search: lower <= optimum <= upper, every schedule checked ----------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_bracket_contains_the_brute_force_optimum(seed):
    rng = np.random.default_rng(100 + seed)
    inst = _instance(rng, 5, 1 + seed % 3, integer=seed % 2 == 0)
    opt = brute_force(inst)
    refs = instance_references(inst, method="quick" if seed % 2 else "lp", time_limit=10, iterations=20)
    for m in METRICS:
        br = refs.brackets[m]
        sched = refs.schedules[m]
        if opt.get(m) is None:
            continue
        assert br.lower.value <= opt[m] * (1 + TOL) + TOL
        assert br.upper.value >= opt[m] * (1 - TOL) - TOL
        check_batch_schedule(inst, sched.cluster, sched.start)
        assert schedule_metrics(inst, sched.cluster, sched.start)[m] == pytest.approx(br.upper.value)


def test_exact_window_closes_the_bracket():
    inst = _instance(np.random.default_rng(7), 6, 1, zeros=False)
    refs = instance_references(inst, method="exact", time_limit=30, iterations=10)
    assert refs.bounds.exact.status == "optimal"
    for m in ("mean_response", "makespan"):
        assert refs.brackets[m].status == "optimal", (m, refs.brackets[m])
    out = refs.to_dict()["bounds"]["mean_response"]
    assert out["status"] == "optimal" and out["lower"]["value"] == out["value"]
    assert out["upper"]["value"] == pytest.approx(refs.bounds.exact.mean_response, rel=1e-4)


def test_search_is_reproducible_and_improves_on_the_portfolio():
    rng = np.random.default_rng(3)
    n = 400
    r = np.sort(rng.exponential(20, n).cumsum())
    inst = BatchInstance.from_arrays(r, rng.integers(1, 17, n), rng.exponential(300, n)[:, None], [32])
    quick = clairvoyant_schedules(inst, quick=True)
    # sized by its work budget alone (no count, no patience): the clock is far away, so both runs are the same
    one = clairvoyant_schedules(inst, time_limit=600, seed=5, budget=1e8)
    two = clairvoyant_schedules(inst, time_limit=600, seed=5, budget=1e8)
    for m in METRICS:
        assert one[m].value == two[m].value and np.array_equal(one[m].start, two[m].start)
        assert one[m].value <= quick[m].value
        check_batch_schedule(inst, one[m].cluster, one[m].start)
        assert schedule_metrics(inst, one[m].cluster, one[m].start)[m] == pytest.approx(one[m].value)
        assert one[m].stopped in ("budget", "done", "patience")
    assert one["max_stretch"].evaluations > quick["max_stretch"].evaluations


def test_an_interrupt_keeps_the_schedules_found(monkeypatch):
    import lowerbounds.batch.clairvoyant as cv

    inst = _instance(np.random.default_rng(11), 12, 2)

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cv, "_list_search", interrupt)
    out = clairvoyant_schedules(inst, time_limit=30, iterations=5)
    assert out["mean_response"].stopped == "interrupted"
    for m in METRICS:
        check_batch_schedule(inst, out[m].cluster, out[m].start)
        assert schedule_metrics(inst, out[m].cluster, out[m].start)[m] == pytest.approx(out[m].value)


def test_a_given_schedule_is_checked_and_can_lower_the_upper_end():
    inst = BatchInstance.from_arrays([0, 0, 0], [2, 2, 2], [[4], [1], [1]], [2])
    # FCFS by index: 4, 5, 6 (mean response 5); the search finds SPT: 1, 2, 6 (mean 3)
    refs = instance_references(inst, method="quick", given={"fcfs": ([0, 0, 0], [0.0, 4.0, 5.0])})
    assert refs.brackets["mean_response"].upper.value == pytest.approx(3.0)
    assert refs.brackets["max_stretch"].upper.value == pytest.approx(2.0)  # SPT: stretches 1, 2, 6/4
    worse = dataclasses.replace(refs.schedules["mean_response"], value=10.0)
    schedules = {"mean_response": worse}
    _given_upper(inst, schedules, {"spt": ([0, 0, 0], [2.0, 0.0, 1.0])})
    assert schedules["mean_response"].value == pytest.approx(3.0) and schedules["mean_response"].method == "given"
    with pytest.raises(AssertionError, match="capacity"):
        instance_references(inst, method="quick", given={"bad": ([0, 0, 0], [0.0, 0.0, 5.0])})


# -- large-neighbourhood search: the window MILP against the residual capacity ----------------------------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 12), st.integers(1, 3), st.booleans(),
       st.sampled_from(("mean_response", "mean_bounded_slowdown")))
def test_a_window_milp_keeps_the_schedule_valid(seed, n, K, integer, metric):
    rng = np.random.default_rng(seed)
    inst = _instance(rng, n, K, integer=integer)
    order = np.argsort(inst.release, kind="stable")
    sub = inst.subset(order)
    cluster, start = serial_schedule(sub.release, sub.width, sub.duration, sub.procs, rng.permutation(n))
    rows = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    before = schedule_metrics(sub, cluster, start)[metric]
    value, c2, s2, _cols = solve_window(sub, cluster, start, rows, metric, max_slots=60)
    plain_check(sub, c2, s2)
    fixed = np.setdiff1d(np.arange(n), rows)
    assert np.array_equal(c2[fixed], cluster[fixed]) and np.array_equal(s2[fixed], start[fixed])
    if value is None:
        assert np.array_equal(s2, start)
    else:
        assert value < before and schedule_metrics(sub, c2, s2)[metric] == pytest.approx(value)


@pytest.mark.parametrize("seed", range(3))
def test_a_window_of_every_job_reaches_the_proven_optimum(seed):
    inst = _instance(np.random.default_rng(40 + seed), 7, 1 + seed % 2, zeros=False)
    ex = exact_optimum(inst, time_limit=30)
    assert ex.status == "optimal"
    order = np.argsort(inst.release, kind="stable")
    sub = inst.subset(order)
    cluster, start = serial_schedule(sub.release, sub.width, sub.duration, sub.procs, np.arange(7))  # FCFS
    value, c2, s2, _cols = solve_window(sub, cluster, start, np.arange(7), "mean_response", max_slots=400,
                                        node_limit=10**6)
    got = schedule_metrics(sub, c2, s2)["mean_response"]
    assert got == pytest.approx(ex.mean_response, rel=1e-9)  # upper = optimum (value None: FCFS was optimal)
    plain_check(sub, c2, s2)


def test_the_stretch_repair_starts_from_the_quick_bound_not_a_timed_one(monkeypatch):
    # a timed bound (here the LP's 1.22, stood in for by 1.1 times the quick bound 1.055, below it) must not set the
    # repair's first targets: they stay multiples of the quick bound, so a second run finds the same schedules
    import lowerbounds.batch.bracket as bracket
    from lowerbounds.batch.bounds import _stretch_quick
    from tests.grid.batch_oracle import tiny_stretch_instance

    inst = tiny_stretch_instance(2, 4, True, 3.0)
    quick = _stretch_quick(inst)
    real_bounds, real_search = bracket.instance_bounds, bracket.clairvoyant_schedules
    seen = {}

    def timed(inst, **kw):
        out = real_bounds(inst, method="quick", time_limit=kw["time_limit"])
        out.bounds["max_stretch"] = dataclasses.replace(out.bounds["max_stretch"], value=1.1 * quick, method="lp")
        return out

    def spy(*args, **kw):
        seen["low"] = kw["stretch_low"]
        return real_search(*args, **kw)

    monkeypatch.setattr(bracket, "instance_bounds", timed)
    monkeypatch.setattr(bracket, "clairvoyant_schedules", spy)
    refs = bracket.instance_references(inst, method="lp", time_limit=1, iterations=1)
    assert refs.brackets["max_stretch"].lower.value == pytest.approx(1.1 * quick)
    assert seen["low"] == quick
