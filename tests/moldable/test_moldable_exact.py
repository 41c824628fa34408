"""Exact weighted minsum MILP (``vcsched.formulations.moldable_milp``) against exhaustive search."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuristics.moldable import REGISTRY
from lowerbounds.moldable import brute_force_optimum
from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.formulations.moldable_milp import (
    nondominated_allotments,
    solve_exact,
    time_grain,
)
from vcsched.generators.moldable import KINDS, generate_moldable_instance
from vcsched.problems.moldable import MoldableInstance, Schedule, assign_processors, check_schedule, save_instance


def on_grid(inst, grain):
    """The instance with every time rounded up to a multiple of ``grain``."""
    return MoldableInstance(inst.m, np.ceil(inst.times / grain - 1e-9) * grain, inst.weights)


def tiny(count, seed, grain=None):
    rng = np.random.default_rng(seed)
    for t in range(count):
        m, n = int(rng.integers(1, 4)), int(rng.integers(1, 5))
        if t % 2:  # non-monotonic times
            inst = MoldableInstance.from_arrays(m, rng.uniform(0.3, 10, (n, m)).tolist(), rng.integers(1, 11, n).tolist())
        else:
            inst = generate_moldable_instance(m, n, KINDS[(t // 2) % 4], rng=t)
        yield inst if grain is None else on_grid(inst, grain)


def assert_optimal_and_checked(inst, res, opt):
    assert res.status.value == "optimal", res.message
    rep = check_schedule(inst, res.solution)
    assert rep.valid, rep.violations
    assert res.objective == pytest.approx(rep.minsum, rel=1e-12)
    assert res.objective == pytest.approx(opt, rel=1e-6)
    assert res.bound <= res.objective * (1 + 1e-9)


def test_moldable_exact_flow_equals_brute_force_on_real_times():
    for inst in tiny(24, seed=1):
        opt = brute_force_optimum(inst).objective
        res = solve_exact(inst, formulation="flow", time_limit=30)
        assert res.extra["formulation"] == "flow"
        assert_optimal_and_checked(inst, res, opt)


def test_moldable_exact_time_indexed_equals_brute_force_on_grid_times():
    for inst in tiny(24, seed=2, grain=0.5):
        opt = brute_force_optimum(inst).objective
        res = solve_exact(inst, time_limit=30)  # auto picks the time-indexed model on grid data
        assert res.extra["formulation"] == "time-indexed"
        assert (res.extra["grain"] / 0.5) % 1 == 0  # the largest common grain: a multiple of 0.5
        assert_optimal_and_checked(inst, res, opt)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 3).flatmap(lambda m: st.tuples(
    st.just(m),
    st.lists(st.lists(st.integers(1, 6), min_size=m, max_size=m), min_size=1, max_size=4),
    st.lists(st.integers(1, 5), min_size=4, max_size=4))))
def test_moldable_exact_both_formulations_match_brute_force_property(data):
    m, times, weights = data
    inst = MoldableInstance.from_arrays(m, times, weights[: len(times)])
    opt = brute_force_optimum(inst).objective
    for formulation in ("time-indexed", "flow"):
        assert_optimal_and_checked(inst, solve_exact(inst, formulation=formulation, time_limit=30), opt)


def test_moldable_exact_warm_start_never_worse_and_bicriteria_above_optimum():
    for t, kind in enumerate(KINDS):
        inst = on_grid(generate_moldable_instance(4, 6, kind, rng=10 + t), 0.5)
        warm = REGISTRY.get("bicriteria")(inst, rng=0)
        res = solve_exact(inst, start=warm.solution, time_limit=60)
        cold = solve_exact(inst, time_limit=60)
        assert res.status.value == cold.status.value == "optimal"
        assert res.objective == pytest.approx(cold.objective, rel=1e-6)
        assert res.objective <= warm.objective * (1 + 1e-9)
        assert check_schedule(inst, res.solution).valid


def test_moldable_exact_time_limit_reports_feasible_with_a_bound():
    inst = generate_moldable_instance(6, 9, "high", rng=3)  # real times: flow model, not solvable in 1 s
    warm = REGISTRY.get("bicriteria")(inst, rng=0)
    res = solve_exact(inst, start=warm.solution, time_limit=1.0)
    assert res.status.value in ("feasible", "optimal")
    assert res.extra["formulation"] == "flow"
    assert check_schedule(inst, res.solution).valid
    assert res.objective <= warm.objective * (1 + 1e-9)
    if res.status.value == "feasible":
        assert res.bound is None or res.bound <= res.objective * (1 + 1e-9)
        assert res.gap is None or res.gap >= 0
    no_start = solve_exact(inst, time_limit=0.2)
    assert no_start.status.value in ("feasible", "time_limit", "optimal")
    if no_start.status.value == "time_limit":
        assert no_start.solution is None


def test_moldable_exact_time_grain_and_dominated_allotments():
    inst = MoldableInstance.from_arrays(3, [[1.5, 1.0, 1.25], [3.0, 3.0, 0.75]], [1, 2])
    assert time_grain(inst) == pytest.approx(0.25)
    assert time_grain(MoldableInstance.from_arrays(2, [[1.0, np.pi]])) is None
    # task 0: k=3 (1.25) no faster than k=2 (1.0); task 1: k=2 ties k=1
    assert [list(a) for a in nondominated_allotments(inst)] == [[1, 2], [1, 3]]


def test_moldable_exact_bad_input_is_a_clear_error():
    inst = MoldableInstance.from_arrays(2, [[1.0, np.pi], [2.0, 1.5]])
    with pytest.raises(InvalidInputError, match="formulation"):
        solve_exact(inst, formulation="simplex")
    with pytest.raises(InvalidInputError, match="not multiples of a common grain"):
        solve_exact(inst, formulation="time-indexed")
    with pytest.raises(InvalidInputError, match="grain 0.3"):
        solve_exact(inst, grain=0.3)
    overlap = Schedule(np.zeros(2), np.array([2, 2]))
    with pytest.raises(InvalidInputError, match="start schedule is infeasible"):
        solve_exact(inst, start=overlap)


def test_moldable_exact_assign_processors_gives_disjoint_sets():
    inst = on_grid(generate_moldable_instance(4, 6, "mixed", rng=5), 0.5)
    res = solve_exact(inst, time_limit=30)
    procs = assign_processors(inst, res.solution)
    s = Schedule(res.solution.start, res.solution.procs, tuple(tuple(p) for p in procs))
    assert check_schedule(inst, s).valid


def test_moldable_cli_solve_exact_json_fields(tmp_path, capsys):
    inst = on_grid(generate_moldable_instance(3, 5, "weak", rng=2), 0.5)
    path = tmp_path / "inst.json"
    save_instance(inst, path)
    assert main(["moldable", "solve", str(path), "--method", "exact", "--time-limit", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"method", "status", "makespan", "minsum", "seconds", "schedule", "bound", "gap", "formulation"} <= set(out)
    assert out["method"] == "exact" and out["status"] == "optimal" and out["formulation"] == "time-indexed"
    assert out["minsum"] == pytest.approx(brute_force_optimum(inst, max_evaluations=10**6).objective, rel=1e-6)
    assert out["bound"] == pytest.approx(out["minsum"], rel=1e-6)
    s = Schedule(np.array([r["start"] for r in out["schedule"]]), np.array([r["procs"] for r in out["schedule"]]))
    assert check_schedule(inst, s).minsum == pytest.approx(out["minsum"])
    # exact is not part of "all"; unknown names still list it
    assert main(["moldable", "solve", str(path), "--method", "exact,bicriteria", "--time-limit", "30", "--json"]) == 0
    assert [r["method"] for r in json.loads(capsys.readouterr().out)] == ["exact", "bicriteria"]


def test_moldable_exact_external_lower_bound_only_raises_the_reported_bound():
    from lowerbounds.moldable import refined_interval_bound

    inst = generate_moldable_instance(6, 9, "high", rng=3)
    warm = REGISTRY.get("bicriteria")(inst, rng=0)
    lower = refined_interval_bound(inst).bound
    res = solve_exact(inst, start=warm.solution, time_limit=1.0, lower_bound=lower)
    assert res.bound >= lower * (1 - 1e-12) and res.bound <= res.objective * (1 + 1e-12)
    milp = res.extra["milp_bound"]
    assert milp is None or res.bound >= min(milp, res.objective) * (1 - 1e-12)
    # a claimed bound equal to the objective of an optimal schedule turns feasible into optimal, never the reverse
    tiny_inst = MoldableInstance.from_arrays(2, [[2.0, 1.5], [3.0, 2.0]], [1, 2])
    opt = brute_force_optimum(tiny_inst).objective
    assert solve_exact(tiny_inst, lower_bound=opt).status.value == "optimal"
    with pytest.raises(InvalidInputError, match="lower_bound"):
        solve_exact(tiny_inst, lower_bound=float("nan"))


FALSE_OPTIMUM = {"m": 2, "tasks": [{"weight": 5, "times": [7, 6]}, {"weight": 1, "times": [2, 1]},
                                   {"weight": 4, "times": [4, 4]}]}
"""Optimum 57 (task 0 and task 2 on one processor each at 0, task 1 on one processor at 4).
HiGHS 1.16 accepts the bi-criteria warm start (59) at a wrong objective (51) in its presolved
space and stops "optimal"; the solve is checked and retried without the start."""


def test_moldable_exact_warm_started_time_indexed_model_finds_the_true_optimum(tmp_path, capsys):
    path = tmp_path / "f.json"
    path.write_text(json.dumps(FALSE_OPTIMUM))
    for formulation in ("auto", "time-indexed", "flow"):
        assert main(["moldable", "solve", str(path), "--method", "exact", "--formulation", formulation, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        row = out[0] if isinstance(out, list) else out
        assert row["status"] == "optimal"
        assert row["minsum"] == pytest.approx(57.0)
        assert row["bound"] == pytest.approx(57.0)
        assert row["gap"] == pytest.approx(0.0, abs=1e-9)


def test_solve_model_recomputes_the_objective_of_a_misread_mip_start():
    from vcsched.formulations.moldable_milp import _time_indexed_start, build_time_indexed_model
    from vcsched.formulations.solve import solve_model

    inst = MoldableInstance.from_arrays(2, [[7, 6], [2, 1], [4, 4]], [5, 1, 4])
    warm = Schedule(np.array([0.0, 7.0, 0.0]), np.array([1, 2, 1]))
    assert check_schedule(inst, warm).minsum == pytest.approx(59.0)
    prob, parts = build_time_indexed_model(inst, 1.0, upper=59.0)
    out = solve_model(prob, start=_time_indexed_start(inst, warm, parts), gap_rel=1e-6)
    assert out.status.value == "optimal"
    assert out.objective == pytest.approx(57.0)
    assert out.bound == pytest.approx(57.0)


def test_rounded_instances_bracket_the_times_and_auto_grain_is_at_most_half_the_shortest():
    from vcsched.formulations.moldable_rounded import auto_grain, rounded_instance

    inst = MoldableInstance.from_arrays(2, [[1.3, 0.9], [2.05, 2.0]], [1, 3])
    up, down = rounded_instance(inst, 0.5, "up"), rounded_instance(inst, 0.5, "down")
    assert up.times.tolist() == [[1.5, 1.0], [2.5, 2.0]]
    assert down.times.tolist() == [[1.0, 0.5], [2.0, 2.0]]
    assert auto_grain(inst) <= 0.45 and auto_grain(inst) in (0.25, 0.2, 0.1)


def test_rounded_bracket_then_branch_and_bound_proves_a_generator_instance():
    from vcsched.formulations.moldable_rounded import solve_rounded

    inst = generate_moldable_instance(3, 5, "mixed", rng=4)  # real-valued times: no grain
    assert time_grain(inst) is None
    opt = brute_force_optimum(inst).objective
    bracket = solve_rounded(inst, 0.5, time_limit=60, refine=False)
    assert bracket.status.value == "optimal"  # closed by branch and bound
    assert bracket.objective == pytest.approx(opt, rel=1e-9)
    assert check_schedule(inst, bracket.solution).valid


def test_rounded_bracket_is_honest_when_it_cannot_close():
    from vcsched.formulations import moldable_rounded

    inst = generate_moldable_instance(3, 5, "weak", rng=5)
    opt = brute_force_optimum(inst).objective
    original = moldable_rounded.BB_MAX_TASKS
    try:
        moldable_rounded.BB_MAX_TASKS = 0  # no branch and bound: the bracket alone
        res = moldable_rounded.solve_rounded(inst, 1.0, time_limit=60, refine=False)
    finally:
        moldable_rounded.BB_MAX_TASKS = original
    assert res.bound <= opt * (1 + 1e-9) <= res.objective * (1 + 1e-9) + 1e-9
    if res.status.value == "feasible":
        assert res.gap == pytest.approx((res.objective - res.bound) / res.bound)
        assert "certified gap" in res.message


def test_branch_and_bound_node_limit_gives_the_same_answer_twice():
    from vcsched.formulations.moldable_bb import solve_branch_and_bound

    inst = generate_moldable_instance(4, 6, "high", rng=1)
    runs = [solve_branch_and_bound(inst, time_limit=None, node_limit=500) for _ in range(2)]
    assert runs[0].status.value == "feasible"
    assert runs[0].objective == runs[1].objective and runs[0].bound == runs[1].bound
    assert runs[0].bound <= runs[0].objective


def test_explicit_grain_too_fine_is_refused_naming_the_limit():
    from vcsched.formulations.moldable_rounded import solve_rounded

    inst = generate_moldable_instance(8, 12, "weak", rng=1)
    with pytest.raises(InvalidInputError, match="grain 0.0001: the rounded time-indexed model would have"):
        solve_rounded(inst, 0.0001, time_limit=1)
