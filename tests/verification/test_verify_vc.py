"""Verification campaign, VCSched maximum minimum yield: every exact method and bound against
the brute-force oracle of :mod:`tests.vc.brute` (every task -> host map) on random tiny instances.

Methods: ``milp`` (compact model), ``milp-literal`` (the paper's eq. 1-11), ``milp`` with a
migration budget (eq. 22-31, both budget modes), ``lp`` (an upper bound at most the §3.1 closed
form) and ``certify`` as the command line wires it. Shapes: one host, ties (identical jobs),
memory tight enough to be infeasible, parallel jobs, rounded values.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuristics.vc.methods import solve as solve_method
from lowerbounds.vc import closed_form_bound, lp_relaxation
from tests.vc.brute import brute_force_min_yield
from vcsched.formulations.vc_milp import solve_vc_milp
from vcsched.problems.vc import VCInstance, check_allocation
from vcsched.result import OPTIMAL_GAP, Status

EXAMPLES = 75
SLOW_EXAMPLES = int(os.environ.get("VCSCHED_CAMPAIGN_EXAMPLES", 10_000))
"""Instances per method behind ``-m slow`` (``VCSCHED_CAMPAIGN_EXAMPLES`` overrides)."""
TOL = 1e-7


@st.composite
def instances(draw, with_current: bool = False):
    hosts = draw(st.integers(1, 3))
    jobs = draw(st.integers(1, 5))
    tasks = draw(st.lists(st.integers(1, 3), min_size=jobs, max_size=jobs))
    while sum(tasks) > 6:
        tasks[int(np.argmax(tasks))] -= 1
    grid = draw(st.sampled_from([0.05, 0.1, 0.25]))  # coarse grids give ties
    cpu = [draw(st.integers(1, int(1 / grid))) * grid for _ in range(jobs)]
    mem = [draw(st.integers(0, int(0.9 / grid))) * grid * draw(st.sampled_from([0.4, 1.0])) for _ in range(jobs)]
    if draw(st.booleans()) and jobs > 1:  # an identical pair
        cpu[1], mem[1], tasks[1] = cpu[0], mem[0], tasks[0]
    current = None
    if with_current:
        current = [None if draw(st.booleans()) and i == 0 else
                   (draw(st.integers(0, hosts - 1)) if tasks[i] == 1 else
                    tuple(draw(st.integers(0, hosts - 1)) for _ in range(tasks[i])))
                   for i in range(jobs)]
        used = np.zeros(hosts)
        for i, where in enumerate(current):
            for h in ([] if where is None else [where] if isinstance(where, int) else where):
                used[h] += mem[i]
        if used.max() > 1:  # the current placement must fit: start the crowded jobs as new
            current = [None] * jobs
    return VCInstance.from_arrays(hosts, cpu, mem, tasks, current_host=current)


def _assert_milp(inst, res, expected, label):
    if expected is None:
        assert res.status is Status.INFEASIBLE, f"{label}: {res.status} {res.message}"
        return
    assert res.status is Status.OPTIMAL, f"{label}: {res.status} {res.message}"
    assert res.objective == pytest.approx(expected, abs=TOL), label
    report = check_allocation(inst, res.solution)
    assert report.valid, f"{label}: {report.violations}"
    assert report.min_yield == pytest.approx(expected, abs=TOL), label
    assert res.bound >= expected - TOL, label


def check_every_method(inst: VCInstance) -> None:
    expected = brute_force_min_yield(inst)
    _assert_milp(inst, solve_vc_milp(inst, time_limit=30), expected, "milp")
    _assert_milp(inst, solve_vc_milp(inst, formulation="literal", time_limit=30), expected, "milp-literal")
    lp, closed = lp_relaxation(inst), closed_form_bound(inst)
    if expected is not None:
        assert lp.status is Status.OPTIMAL and lp.bound >= expected - TOL, f"lp {lp.bound} < optimum {expected}"
        assert lp.bound <= closed.bound + TOL, f"lp {lp.bound} above the closed form {closed.bound}"
    cert = solve_method(inst, "certify", time_limit=10)  # as `vc solve --method certify`
    if expected is None:
        assert not cert.status.has_solution, f"certify on an infeasible instance: {cert.status}"
        return
    if cert.status.has_solution:
        assert check_allocation(inst, cert.solution).valid
        assert cert.objective <= expected + TOL, f"certify {cert.objective} above the optimum {expected}"
    if cert.bound is not None:
        assert cert.bound >= expected - TOL, f"certify bound {cert.bound} below the optimum {expected}"
    if cert.status is Status.OPTIMAL:
        assert cert.objective >= expected * (1 - OPTIMAL_GAP) - TOL


def check_budgeted_milp(inst: VCInstance) -> None:
    for budget, mode in ((0.0, "count"), (1.0, "count"), (0.3, "memory"), (10.0, "memory")):
        expected = brute_force_min_yield(inst, budget=budget, budget_mode=mode)
        res = solve_vc_milp(inst, budget=budget, budget_mode=mode, time_limit=30)
        _assert_milp(inst, res, expected, f"milp budget {budget} {mode}")
        if res.status is Status.OPTIMAL:
            moved = res.extra.get("migrated_memory" if mode == "memory" else "migrations", 0.0)
            assert moved <= budget + 1e-9


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(instances())
def test_every_vc_exact_method_and_bound_against_brute_force(inst):
    check_every_method(inst)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(instances(with_current=True))
def test_budgeted_vc_milp_against_brute_force(inst):
    check_budgeted_milp(inst)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(instances())
def test_every_vc_exact_method_and_bound_against_brute_force_campaign(inst):
    check_every_method(inst)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(instances(with_current=True))
def test_budgeted_vc_milp_against_brute_force_campaign(inst):
    check_budgeted_milp(inst)
