"""Verification campaign, moldable weighted minsum: every exact method and bound against an
independent brute-force oracle (:mod:`tests.verification.oracles`) on random tiny instances.

Methods: the time-indexed, flow and branch-and-bound formulations, the rounded bracket
(``--grain``) with a grain that divides the times and one that does not, the interval,
integer interval and refined bounds. Shapes chosen to break models: one processor, ties (equal weights, equal times for several
allotments, identical tasks), integer and half-integer times, non-monotone time tables. The
exact methods run as the command line runs them too (warm start from the bi-criteria schedule
plus the refined lower bound), the path where HiGHS once accepted a misread start as optimal.
Default suite: ``EXAMPLES`` instances per group of methods (the groups run on several workers);
``-m slow``: ``SLOW_EXAMPLES`` instances through every method.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuristics.moldable.methods import solve as solve_method
from lowerbounds.moldable import interval_bound, refined_interval_bound
from tests.verification.oracles import moldable_grid_optimum, moldable_optimum
from vcsched.formulations.moldable_bb import solve_branch_and_bound
from vcsched.formulations.moldable_milp import solve_exact
from vcsched.formulations.moldable_rounded import solve_rounded
from vcsched.problems.moldable import MoldableInstance, check_schedule

EXAMPLES = 50
SLOW_EXAMPLES = int(os.environ.get("VCSCHED_CAMPAIGN_EXAMPLES", 10_000))
"""Instances per method behind ``-m slow`` (``VCSCHED_CAMPAIGN_EXAMPLES`` overrides)."""
REL = 1e-6


@st.composite
def instances(draw, max_n: int = 4, max_m: int = 3):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m if n <= 4 else 2))  # the oracle enumerates m^n n! schedules
    half = draw(st.booleans())
    value = st.integers(1, 12).map(lambda v: v / 2) if half else st.integers(1, 7).map(float)
    rows = []
    for _ in range(n):
        shape = draw(st.sampled_from(["free", "flat", "copy"]))
        if shape == "flat":  # equal times for several allotments
            rows.append([draw(value)] * m)
        elif shape == "copy" and rows:  # an identical task
            rows.append(list(rows[-1]))
        else:
            rows.append([draw(value) for _ in range(m)])
    weights = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    return MoldableInstance.from_arrays(m, rows, weights)


def _assert_exact(inst: MoldableInstance, res, opt: float, label: str) -> None:
    assert res.status.value == "optimal", f"{label}: {res.status} {res.message}"
    report = check_schedule(inst, res.solution)
    assert report.valid, f"{label}: {report.violations}"
    assert res.objective == pytest.approx(report.minsum, rel=1e-12), label
    assert res.objective == pytest.approx(opt, rel=REL), label
    assert res.bound <= opt * (1 + REL), f"{label}: bound {res.bound} above the optimum {opt}"


def _assert_bound(res, opt: float, label: str) -> None:
    assert res.status.value == "optimal", f"{label}: {res.status} {res.message}"
    assert res.bound <= opt * (1 + REL), f"{label}: bound {res.bound} above the optimum {opt}"


def _check_formulations(inst: MoldableInstance, opt: float) -> None:
    _assert_exact(inst, solve_exact(inst, formulation="time-indexed", time_limit=30), opt, "time-indexed")
    _assert_exact(inst, solve_exact(inst, formulation="flow", time_limit=30), opt, "flow")
    _assert_exact(inst, solve_branch_and_bound(inst, time_limit=30), opt, "branch-and-bound")


def _check_rounded(inst: MoldableInstance, opt: float) -> None:
    for grain in (0.5, 0.3):  # 0.3 divides no time: the bracket, then branch and bound
        _assert_exact(inst, solve_rounded(inst, grain, time_limit=30), opt, f"grain {grain}")
    _assert_exact(inst, solve_method(inst, "exact", time_limit=30, grain=0.3), opt, "warm grain 0.3")


def _check_warm(inst: MoldableInstance, opt: float) -> None:
    for formulation in ("auto", "time-indexed", "flow", "branch-and-bound"):  # as `moldable solve --method exact`
        _assert_exact(inst, solve_method(inst, "exact", time_limit=30, formulation=formulation), opt,
                      f"warm {formulation}")


def _check_bounds(inst: MoldableInstance, opt: float) -> None:
    _assert_bound(interval_bound(inst), opt, "interval")
    _assert_bound(interval_bound(inst, integer=True), opt, "interval --integer")
    _assert_bound(refined_interval_bound(inst), opt, "refined")


GROUPS = {"formulations": _check_formulations, "rounded": _check_rounded, "warm": _check_warm,
          "bounds": _check_bounds}
"""The methods in groups, so that the default suite's campaign runs on several workers."""


def check_every_method(inst: MoldableInstance) -> None:
    opt, _ = moldable_optimum(inst.m, inst.times, inst.weights)
    for check in GROUPS.values():
        check(inst, opt)


@pytest.mark.parametrize("group", list(GROUPS))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(inst=instances())
def test_every_moldable_exact_method_and_bound_against_brute_force(group, inst):
    GROUPS[group](inst, moldable_optimum(inst.m, inst.times, inst.weights)[0])


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(instances(max_n=5))
def test_every_moldable_exact_method_and_bound_against_brute_force_campaign(inst):
    check_every_method(inst)


def test_the_reported_false_optimum_is_in_the_campaign_shapes():
    inst = MoldableInstance.from_arrays(2, [[7, 6], [2, 1], [4, 4]], [5, 1, 4])
    assert moldable_optimum(inst.m, inst.times, inst.weights) == (57.0, 7.0)
    check_every_method(inst)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 3).flatmap(lambda m: st.tuples(
    st.just(m),
    st.lists(st.lists(st.integers(1, 4), min_size=m, max_size=m), min_size=1, max_size=3),
    st.lists(st.integers(1, 4), min_size=3, max_size=3))))
def test_the_serial_oracle_equals_a_search_over_every_integer_start(data):
    m, times, weights = data
    weights = weights[: len(times)]
    assert moldable_optimum(m, times, weights)[0] == moldable_grid_optimum(m, times, weights)
