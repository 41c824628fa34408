"""The two-shelf 3/2 + eps dual approximation of [7]/[17] (heuristics.moldable.dual_approx).

Guarantee checked: for every guess ``lam``, an accepted test comes with a
schedule that passes the checker and ends by ``3 lam / 2``; a rejected guess
is below the exact optimal makespan (exhaustive search on tiny instances);
the search's schedule is within ``(3/2)(1 + eps)`` of the optimum.
"""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuristics.moldable import REGISTRY, bicriteria
from heuristics.moldable.dual_approx import (
    S0,
    S1,
    S2,
    SMALL,
    dual_approximation,
    left_shift,
    repair_shelves,
    shelf_order,
    simple_search,
    two_shelf,
    two_shelf_search,
    two_shelf_test,
)
from lowerbounds.moldable import brute_force_optimum
from vcsched.generators.moldable import KINDS, generate_moldable_instance
from vcsched.problems.moldable import MoldableInstance, check_schedule

TOL = 1e-9
EPS = 0.01


def _assert_accepted_within(inst, test):
    rep = check_schedule(inst, test.schedule)
    assert rep.valid, rep.violations
    assert test.schedule.processors is not None
    assert rep.makespan <= 1.5 * test.guess * (1 + TOL)


def _guesses(d):
    """Guesses around the search's interval, below the proven bound to above the accepted guess."""
    return np.concatenate([np.linspace(0.8 * d.lower, 1.6 * d.guess, 13), [d.lower, d.guess]])


def _amdahl(m, n, seed, serial_max):
    """Monotonic tasks ``p(k) = p1 (s + (1 - s) / k)`` (``s = 0``: linear speedup, work ties)."""
    rng = np.random.default_rng(seed)
    p1 = rng.uniform(1, 10, n)
    s = rng.uniform(0, serial_max, n)
    k = np.arange(1, m + 1)
    return MoldableInstance.from_arrays(m, (p1[:, None] * (s[:, None] + (1 - s[:, None]) / k)).tolist(),
                                        rng.integers(1, 11, n).tolist())


def _non_monotonic(m, n, seed):
    rng = np.random.default_rng(seed)
    return MoldableInstance.from_arrays(m, rng.uniform(0.5, 10, (n, m)).tolist(), rng.integers(1, 11, n).tolist())


# --------------------------------------------------------------------------- the guarantee, property tests

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), m=st.integers(1, 12), n=st.integers(1, 25), seed=st.integers(0, 10**6))
def test_dual_every_accepted_guess_has_a_valid_schedule_within_three_halves(kind, m, n, seed):
    inst = generate_moldable_instance(m, n, kind, rng=seed)
    assert inst.monotonic
    d = two_shelf_search(inst, eps=EPS)
    assert d.undecided == 0 and d.guaranteed and d.how == "shelves"
    assert d.lower <= d.guess <= d.lower * (1 + EPS) * (1 + 1e-12)
    assert check_schedule(inst, d.schedule).valid and d.makespan <= 1.5 * d.guess * (1 + TOL)
    for lam in _guesses(d):
        t = two_shelf_test(inst, lam)
        assert t.outcome != "undecided"  # monotonic input: accept with a schedule or reject with a proof
        if t.accepted:
            assert t.how == "shelves"
            _assert_accepted_within(inst, t)
        else:
            assert lam <= d.guess * (1 + 1e-12)  # acceptance is monotone here: above the accepted guess, accepted


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 12), n=st.integers(1, 25), seed=st.integers(0, 10**6), serial=st.sampled_from([0.0, 0.3]))
def test_dual_transformations_keep_the_guarantee_on_amdahl_tasks(m, n, seed, serial):
    """Linear speedups tie the work of both shelves, so S2 overflows and T3 moves tasks (monotonic input)."""
    inst = _amdahl(m, n, seed, serial)
    d = two_shelf_search(inst, eps=EPS)
    assert d.undecided == 0 and d.guaranteed
    for lam in _guesses(d):
        t = two_shelf_test(inst, lam)
        assert t.outcome != "undecided"
        if t.accepted:
            _assert_accepted_within(inst, t)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS + ("amdahl",)), m=st.integers(1, 3), n=st.integers(1, 4), seed=st.integers(0, 10**6))
def test_dual_rejections_are_proofs_and_search_is_within_three_halves_of_the_optimum(kind, m, n, seed):
    inst = _amdahl(m, n, seed, 0.3) if kind == "amdahl" else generate_moldable_instance(m, n, kind, rng=seed)
    opt = brute_force_optimum(inst, criterion="makespan").objective
    for lam in np.linspace(0.5 * opt, 1.5 * opt, 11):
        t = two_shelf_test(inst, lam)
        if t.rejected:
            assert lam < opt * (1 + 1e-9)
        else:
            assert t.accepted
            _assert_accepted_within(inst, t)
    assert two_shelf_test(inst, opt).accepted  # the optimum itself is never rejected
    d = two_shelf_search(inst, eps=EPS)
    assert d.lower <= opt * (1 + 1e-9)
    assert d.makespan <= 1.5 * (1 + EPS) * opt * (1 + 1e-9)


def test_dual_non_monotonic_input_never_claims_wrongly():
    """Decision on non-monotonic input: rejections stay proofs, accepted schedules stay within 3 lam / 2
    (by the shelves or the list fallback), otherwise 'undecided'; the search's schedule is always valid."""
    outcomes = set()
    for seed in range(30):
        inst = _non_monotonic(3, 3 + seed % 2, seed)
        opt = brute_force_optimum(inst, criterion="makespan").objective
        d = two_shelf_search(inst, eps=EPS)
        assert check_schedule(inst, d.schedule).valid and d.lower <= opt * (1 + 1e-9)
        assert d.makespan <= 1.5 * d.guess * (1 + TOL)
        for lam in np.linspace(0.5 * opt, 1.6 * opt, 12):
            t = two_shelf_test(inst, lam)
            outcomes.add((t.outcome, t.how))
            if t.rejected:
                assert lam < opt * (1 + 1e-9)
            elif t.accepted:
                _assert_accepted_within(inst, t)
            else:
                assert t.schedule is None
    assert ("rejected", "work") in outcomes and ("accepted", "shelves") in outcomes


# --------------------------------------------------------------------------- the transformations, by hand

def test_dual_stacking_rule_t2_and_move_rule_t3():
    """m = 4, lam = 4: four sequential tasks of length 2.2 must be in S1 (no allotment within lam / 2)
    and fill it; three tasks p = (2.1, 1.05, ...) tie in work, so the knapsack puts them in S2 on
    2 processors each (6 > 4). T2 stacks two S1 tasks (freeing a processor), T3 moves an S2 task there."""
    inst = MoldableInstance.from_arrays(4, [[2.2] * 4] * 4 + [[2.1, 1.05, 1.05, 1.05]] * 3)
    assert inst.monotonic
    t = two_shelf_test(inst, 4.0)
    assert t.accepted and t.how == "shelves"
    assert t.transformations == (0, 2, 2)  # (T1, T2, T3)
    _assert_accepted_within(inst, t)
    assert (t.shelf == S2).sum() == 1 and t.schedule.procs[t.shelf == S2].tolist() == [2]
    stacked = t.shelf == S0
    assert stacked.sum() == 4 and np.all(t.schedule.procs[stacked] == 1)
    assert len({t.schedule.processors[i] for i in np.flatnonzero(stacked)}) == 2  # two columns of two


def test_dual_shrinking_rule_t1():
    """Same shape, but the S1 tasks use 2 processors (p = 4.1, 2.1, 2.1, 2.1): T1 moves each onto one
    processor (p(1) = 4.1 <= 3 lam / 2) in S0, T3 moves S2 tasks onto the freed processors."""
    inst = MoldableInstance.from_arrays(4, [[4.1, 2.1, 2.1, 2.1]] * 2 + [[2.1, 1.05, 1.05, 1.05]] * 3)
    t = two_shelf_test(inst, 4.0)
    assert t.accepted and t.transformations == (2, 0, 2)
    _assert_accepted_within(inst, t)
    assert t.shelf[:2].tolist() == [S0, S0] and t.schedule.procs[:2].tolist() == [1, 1]


def test_dual_repair_never_uses_more_than_m_processors_per_shelf():
    """Invariants of T1-T3 on every Amdahl instance whose knapsack solution overflows S2."""
    from heuristics.moldable.dual_approx import _initial_shelves
    from lowerbounds.moldable import dual_test

    overflowing = 0
    for seed, factor in itertools.product(range(10), (1.0, 1.2, 1.5)):
        inst = _amdahl(6, 8, seed, 0.3 * (seed % 2))
        lam = two_shelf_search(inst).guess * factor
        ok, in1 = dual_test(inst, lam, keep_choices=True)
        shelf, allot = _initial_shelves(inst, lam, in1)
        if not ok or allot[shelf == S2].sum() <= inst.m:
            continue
        overflowing += 1
        new_shelf, new_allot, stacks, counts, fitted = repair_shelves(inst, lam, shelf, allot)
        assert fitted and sum(counts) > 0
        used0 = sum(int(new_allot[s[0]]) for s in stacks)
        assert used0 + new_allot[new_shelf == S1].sum() <= inst.m
        assert used0 + new_allot[new_shelf == S2].sum() <= inst.m
        dur = inst.times[np.arange(inst.n), new_allot - 1]
        assert np.all(dur[new_shelf == S1] <= lam * (1 + 1e-12))
        assert np.all(dur[new_shelf == S2] <= lam / 2 * (1 + 1e-12))
        assert all(dur[list(s)].sum() <= 1.5 * lam * (1 + 1e-12) for s in stacks)
        # monotony: the transformations never add work (the small tasks' room depends on it)
        old_work = allot * inst.times[np.arange(inst.n), allot - 1]
        assert (new_allot * dur).sum() <= old_work.sum() * (1 + 1e-12)
    assert overflowing >= 5


def test_dual_small_tasks_fill_the_gaps():
    """Small tasks (p(1) <= lam / 2) go into the idle gaps; here 8 tasks of 1 on m = 2 need all of [0, 4]."""
    inst = MoldableInstance.from_arrays(2, [[1.0, 1.0]] * 8)
    t = two_shelf_test(inst, 4.0)
    assert t.accepted and np.all(t.shelf == SMALL)
    _assert_accepted_within(inst, t)
    assert not two_shelf_test(inst, 3.99).accepted


# --------------------------------------------------------------------------- rejections and inputs

def test_dual_rejection_reasons():
    inst = MoldableInstance.from_arrays(2, [[4.0, 2.0], [1.0, 1.0]])
    assert two_shelf_test(inst, 1.9).how == "too-long"  # p_0(2) = 2 > 1.9
    t = two_shelf_test(inst, 2.4)  # least work 4 + 1 > m lam = 4.8
    assert t.rejected and t.how == "work" and t.schedule is None
    t = two_shelf_test(inst, 2.5)  # accepted below the optimum (3): allowed, the schedule ends by 3.75
    assert t.accepted
    _assert_accepted_within(inst, t)
    assert brute_force_optimum(inst, criterion="makespan").objective == pytest.approx(3.0)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_dual_bad_guess_is_a_clear_error(bad):
    inst = MoldableInstance.from_arrays(1, [[1.0]])
    with pytest.raises(ValueError, match="guess must be a positive finite number"):
        two_shelf_test(inst, bad)


def test_dual_bad_eps_and_name_are_clear_errors():
    inst = MoldableInstance.from_arrays(1, [[1.0]])
    with pytest.raises(ValueError, match="eps must be"):
        two_shelf_search(inst, eps=0)
    with pytest.raises(ValueError, match="dual must be one of two-shelf, simple"):
        dual_approximation(inst, dual="three-shelf")
    with pytest.raises(ValueError, match="dual must be one of"):
        bicriteria(inst, dual="nope")


# --------------------------------------------------------------------------- both versions, and who uses them

@pytest.mark.parametrize("kind", KINDS)
def test_dual_simple_version_still_reachable(kind):
    """``dual="simple"``: same knapsack search (same bound and guess on monotonic input), list schedule."""
    inst = generate_moldable_instance(24, 40, kind, rng=2)
    new, old = dual_approximation(inst), dual_approximation(inst, dual="simple")
    assert (new.method, old.method) == ("two-shelf", "simple")
    assert new.guess == pytest.approx(old.guess) and new.lower == pytest.approx(old.lower)
    assert check_schedule(inst, old.schedule).valid and old.how == "list"
    assert np.array_equal(old.schedule.procs, simple_search(inst).schedule.procs)


@pytest.mark.parametrize("kind", KINDS)
def test_dual_heuristics_take_cmax_and_allotment_from_the_dual(kind):
    inst = generate_moldable_instance(20, 30, kind, rng=6)
    for dual in ("two-shelf", "simple"):
        d = dual_approximation(inst, dual=dual)
        r = bicriteria(inst, rng=0, dual=dual)
        assert r.extra["cmax_guess"] == d.guess and r.extra["makespan_lb"] == d.lower
        for name in ("list-shelf", "list-lptf", "list-saf"):
            r = REGISTRY.get(name)(inst, dual=dual)
            assert np.array_equal(r.solution.procs, d.allotment)
            assert r.extra["cmax_guess"] == d.guess and check_schedule(inst, r.solution).valid


def test_dual_shelf_order_is_s0_s1_s2_small():
    inst = _amdahl(5, 18, 11, 0.0)
    d = dual_approximation(inst)
    order = shelf_order(inst, d)
    assert np.all(np.diff(d.shelf[order]) >= 0)
    assert len(set(d.shelf.tolist())) >= 2


@pytest.mark.parametrize("kind", KINDS)
def test_dual_result_and_left_shift(kind):
    """The dual's own schedule as a Result: compaction (left shift) keeps it valid and never later."""
    inst = generate_moldable_instance(16, 30, kind, rng=4)
    raw, tight = two_shelf(inst, compact=False), two_shelf(inst)
    assert raw.extra["guaranteed"] and raw.extra["makespan"] <= 1.5 * raw.extra["cmax_guess"] * (1 + TOL)
    for r in (raw, tight):
        rep = check_schedule(inst, r.solution)
        assert rep.valid and r.objective == pytest.approx(rep.minsum)
    assert np.all(tight.solution.start <= raw.solution.start + 1e-12)
    assert tight.extra["makespan"] <= raw.extra["makespan"] + 1e-12
    shifted = left_shift(inst, raw.solution)
    assert np.array_equal(shifted.start, tight.solution.start)
