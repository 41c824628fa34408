"""The refined minsum lower bound (``lowerbounds.moldable.refined_interval_bound``) against exact optima."""

import json

import numpy as np
import pytest

from lowerbounds.moldable import (
    BOUND_METHODS,
    brute_force_optimum,
    interval_bound,
    minsum_bound,
    refined_interval_bound,
)
from vcsched.cli import main
from vcsched.cli import moldable as cli_moldable
from vcsched.errors import UnknownNameError
from vcsched.formulations.moldable_milp import solve_exact
from vcsched.generators.moldable import KINDS, generate_moldable_instance
from vcsched.problems.moldable import MoldableInstance, save_instance


def tiny(count, seed):
    rng = np.random.default_rng(seed)
    for t in range(count):
        m, n = int(rng.integers(1, 4)), int(rng.integers(2, 5))
        if t % 3 == 2:  # non-monotonic times
            yield MoldableInstance.from_arrays(m, rng.uniform(0.3, 10, (n, m)).tolist(), rng.integers(1, 11, n).tolist())
        else:
            yield generate_moldable_instance(m, n, KINDS[t % 4], rng=100 + t)


@pytest.fixture(scope="module")
def tiny_with_optima():
    return [(inst, brute_force_optimum(inst).objective) for inst in tiny(36, seed=7)]


def test_moldable_refined_bound_is_valid_for_every_option(tiny_with_optima):
    for inst, opt in tiny_with_optima:
        for options in ({}, {"ratio": 1.05, "partial_rows": 1000}, {"merge_late": False}, {"ratio": 2.0},
                        {"partial_rows": 0}, {"horizon": 1e-3}):
            res = refined_interval_bound(inst, **options)
            assert res.status.value == "optimal"
            assert res.bound <= opt * (1 + 1e-7), (options, res.bound, opt)


def test_moldable_refined_bound_is_close_to_the_optimum_on_average(tiny_with_optima):
    ref = np.array([refined_interval_bound(inst).bound / opt for inst, opt in tiny_with_optima])
    paper = np.array([interval_bound(inst).bound / opt for inst, opt in tiny_with_optima])
    assert ref.mean() >= 0.9  # the goal (about 0.65-0.75 for the paper's bound)
    assert ref.mean() > paper.mean() + 0.1


def test_moldable_refined_bound_below_milp_optimum_on_small_grid_instances():
    for t, kind in enumerate(KINDS):
        raw = generate_moldable_instance(4, 7, kind, rng=20 + t)
        inst = MoldableInstance(raw.m, np.ceil(raw.times / 0.5 - 1e-9) * 0.5, raw.weights)
        exact = solve_exact(inst, time_limit=60)
        assert exact.status.value == "optimal"
        for method in BOUND_METHODS:
            assert minsum_bound(inst, method).bound <= exact.objective * (1 + 1e-7)


def test_moldable_refined_partial_area_matters_for_a_long_sequential_task():
    # one processor, a task of length 10 (weight 1) and nine of length 1 (weight 1): Smith order gives
    # 1+2+...+9 + 19 = 64; the partial area of the long task keeps the short ones from all ending by t = 9
    inst = MoldableInstance.from_arrays(1, [[10.0]] + [[1.0]] * 9)
    opt = 64.0
    with_partial = refined_interval_bound(inst, ratio=1.05, partial_rows=1000).bound
    without = refined_interval_bound(inst, ratio=1.05, partial_rows=0).bound
    assert without < with_partial <= opt * (1 + 1e-9)


def test_moldable_bound_method_names_and_errors():
    assert cli_moldable.BOUND_METHODS == BOUND_METHODS
    inst = generate_moldable_instance(3, 3, "high", rng=0)
    assert minsum_bound(inst, "interval").bound == pytest.approx(interval_bound(inst).bound)
    with pytest.raises(UnknownNameError, match="interval, refined"):
        minsum_bound(inst, "lagrange")
    with pytest.raises(ValueError, match="ratio"):
        refined_interval_bound(inst, ratio=1.0)


def test_moldable_cli_bound_method_refined_json(tmp_path, capsys):
    inst = generate_moldable_instance(4, 4, "mixed", rng=3)
    path = tmp_path / "inst.json"
    save_instance(inst, path)
    assert main(["moldable", "bound", str(path), "--method", "refined", "--json"]) == 0
    ref = json.loads(capsys.readouterr().out)
    assert {"minsum_lb", "makespan_lb", "status", "seconds", "method"} <= set(ref)
    assert ref["method"] == "refined" and ref["status"] == "optimal"
    assert main(["moldable", "bound", str(path), "--json"]) == 0  # default stays the paper's
    paper = json.loads(capsys.readouterr().out)
    assert paper["method"] == "interval" and paper["relaxation"] == "interval-lp" and paper["integer"] is False
    assert paper["makespan_lb"] == pytest.approx(ref["makespan_lb"])
    opt = brute_force_optimum(inst).objective
    assert paper["minsum_lb"] <= opt * (1 + 1e-7) and ref["minsum_lb"] <= opt * (1 + 1e-7)
    assert main(["moldable", "bound", str(path), "--method", "refined", "--integer"]) == 2
    assert "--integer applies to --method interval" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["moldable", "bound", str(path), "--method", "lagrange"])
    assert "refined" in capsys.readouterr().err
