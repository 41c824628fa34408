"""Public functions refuse at their boundary what the command line refuses (issue 39, cause 6):
the project's error type (:class:`InvalidInputError`), naming the argument, never an
``AttributeError`` deep inside or a wrong answer (:mod:`vcsched.arguments`)."""

from __future__ import annotations

import math

import pytest

from vcsched.errors import InvalidInputError
from vcsched.generators.vc import generate_vc_instance


@pytest.fixture(scope="module")
def vc_instance():
    return generate_vc_instance(2, 3, 0.5, 0.2, 0.2, rng=0)


@pytest.mark.parametrize("kwargs,name", [
    ({"hosts": 2.5}, "hosts"), ({"jobs": "3"}, "jobs"), ({"hosts": True}, "hosts"), ({"slack": math.nan}, "slack"),
    ({"cv_mem": -1.0}, "cv_mem"), ({"cv_cpu": math.inf}, "cv_cpu"), ({"mean_cpu": 0.0}, "mean_cpu"),
])
def test_vc_generator_refuses_what_vc_generate_refuses(kwargs, name):
    args = {"hosts": 2, "jobs": 3, "slack": 0.5, "cv_mem": 0.2, "cv_cpu": 0.2, **kwargs}
    with pytest.raises(InvalidInputError, match=f"^{name} must be"):
        generate_vc_instance(args.pop("hosts"), args.pop("jobs"), args.pop("slack"), args.pop("cv_mem"),
                             args.pop("cv_cpu"), **args)
    assert generate_vc_instance(2.0, 3, 0.5, 0.2, 0.2, rng=0).hosts == 2  # an integral float is an integer


def test_moldable_generator_refuses_a_fractional_size():
    from vcsched.generators.moldable import generate_moldable_instance

    with pytest.raises(InvalidInputError, match="^n must be an integer"):
        generate_moldable_instance(4, 2.5, "high", rng=0)


def test_milp_checks_the_budget_mode_and_the_instance(vc_instance):
    from vcsched.formulations.vc_milp import solve_vc_milp

    with pytest.raises(InvalidInputError, match="budget_mode must be one of 'memory', 'count', got 'cpu'"):
        solve_vc_milp(vc_instance, budget_mode="cpu")
    with pytest.raises(InvalidInputError, match="instance must be a VCInstance, got dict"):
        solve_vc_milp({})
    with pytest.raises(InvalidInputError, match="gap_rel"):
        solve_vc_milp(vc_instance, gap_rel=math.nan)


def test_lp_relaxation_and_moldable_solve_name_the_instance_argument():
    from heuristics.moldable.methods import solve
    from lowerbounds.vc import lp_relaxation

    with pytest.raises(InvalidInputError, match="instance must be a VCInstance, got NoneType"):
        lp_relaxation(None)
    with pytest.raises(InvalidInputError, match="instance must be a MoldableInstance"):
        solve(None, "bicriteria")


def test_batch_bounds_check_method_then_types():
    from lowerbounds.batch import batch_bounds

    with pytest.raises(InvalidInputError, match="method 'fast' is unknown"):
        batch_bounds([], [], method="fast")
    with pytest.raises(InvalidInputError, match="jobs must be a JobTable"):
        batch_bounds([], [])


def test_batsim_writer_and_diet_bounds_refuse_none(tmp_path):
    from lowerbounds.diet import diet_bounds
    from vcsched.problems.batsim_writer import write_batsim_json

    with pytest.raises(InvalidInputError, match="workload must be a Workload, got NoneType"):
        write_batsim_json(None, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
    with pytest.raises(InvalidInputError, match="scenario must be a DIET scenario"):
        diet_bounds(None)


def test_statistics_refuse_nan_and_infinity_instead_of_dropping_them():
    from vcsched.stats import paired_difference, summarize

    with pytest.raises(InvalidInputError, match=r"values\[1\] must be a finite number"):
        summarize([1, math.nan, 3])
    with pytest.raises(InvalidInputError, match=r"b\[0\] must be a finite number"):
        paired_difference([1.0, 2.0], [math.inf, 3.0])
    assert summarize([1, None, 3])["n"] == 2  # None is a run without the value: left out, as documented
