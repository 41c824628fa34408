"""Exact VCSched formulations against brute force, the paper's example and each other."""

from __future__ import annotations

import numpy as np
import pytest

from lowerbounds.vc import closed_form_bound, lp_relaxation
from tests.vc.brute import brute_force_min_yield
from vcsched.formulations.vc_milp import solve_vc_milp
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems.vc import VCInstance, check_allocation
from vcsched.result import Status


def random_tiny(rng: np.random.Generator, parallel: bool = False) -> VCInstance:
    """<= 3 hosts, <= 7 tasks; memory tight enough that some are infeasible."""
    H = int(rng.integers(1, 4))
    J = int(rng.integers(1, 6 if parallel else 8))
    tasks = np.ones(J, dtype=int)
    if parallel:
        tasks = rng.integers(1, 4, J)
        while tasks.sum() > 7:
            tasks[np.argmax(tasks)] -= 1
    cpu = rng.uniform(0.05, 1.0, J)
    mem = rng.uniform(0.0, 0.9, J) * rng.choice([0.3, 1.0])
    return VCInstance.from_arrays(H, cpu.round(3), mem.round(3), tasks)


def _cases(n: int, parallel: bool, seed: int):
    rng = np.random.default_rng(seed)
    return [random_tiny(rng, parallel) for _ in range(n)]


SEQ = _cases(50, False, 11)
PAR = _cases(30, True, 12)


@pytest.mark.parametrize("inst", SEQ + PAR, ids=lambda i: repr(i))
def test_milp_equals_brute_force(inst):
    expected = brute_force_min_yield(inst)
    res = solve_vc_milp(inst)
    if expected is None:
        assert res.status is Status.INFEASIBLE
        assert res.objective is None
        return
    assert res.status is Status.OPTIMAL
    assert res.objective == pytest.approx(expected, abs=1e-7)
    report = check_allocation(inst, res.solution)
    assert report.valid, report.violations
    assert report.min_yield == pytest.approx(expected, abs=1e-7)
    assert res.bound >= res.objective - 1e-9


def test_brute_force_suite_has_infeasible_and_parallel_cases():
    outcomes = [brute_force_min_yield(i) for i in SEQ + PAR]
    assert sum(o is None for o in outcomes) >= 3
    assert sum(o is not None for o in outcomes) >= 50
    assert sum(i.is_parallel for i in PAR) >= 15


@pytest.mark.parametrize("inst", SEQ[:15] + PAR[:10], ids=lambda i: repr(i))
def test_literal_and_compact_agree(inst):
    a = solve_vc_milp(inst, formulation="compact")
    b = solve_vc_milp(inst, formulation="literal")
    assert a.status == b.status
    if a.objective is not None:
        assert a.objective == pytest.approx(b.objective, abs=1e-6)
        assert check_allocation(inst, b.solution).valid


def test_paper_example_section_2_3():
    inst = VCInstance.from_arrays(2, [0.6, 0.6, 0.6], [0.0, 0.0, 0.0])
    for formulation in ("compact", "literal"):
        res = solve_vc_milp(inst, formulation=formulation)
        assert res.status is Status.OPTIMAL
        assert res.objective == pytest.approx(0.5 / 0.6)
    # average-yield phase: the lone job gets all it needs, the pair shares one host
    assert res.extra["avg_yield"] == pytest.approx((0.5 / 0.6 * 2 + 1.0) / 3)


def test_parallel_job_tasks_get_equal_cpu():
    inst = VCInstance.from_arrays(3, [0.7, 0.4, 0.9], [0.2, 0.3, 0.1], [3, 2, 1])
    res = solve_vc_milp(inst)
    assert res.status is Status.OPTIMAL
    alloc = res.solution
    for i, cpus in enumerate(alloc.cpu(inst)):
        if inst.tasks[i] > 1:
            assert max(cpus) - min(cpus) < 1e-9
    assert check_allocation(inst, alloc).valid


@pytest.mark.parametrize("seed", range(8))
def test_lp_bounds_milp_and_matches_closed_form(seed):
    inst = generate_vc_instance(4, 8, 0.3 + 0.05 * seed, 0.25, 0.75, rng=seed)
    lp = lp_relaxation(inst)
    lit = lp_relaxation(inst, formulation="literal")
    closed = closed_form_bound(inst)
    milp = solve_vc_milp(inst)
    assert lp.status is Status.OPTIMAL
    assert float(np.dot(inst.tasks, inst.mem)) <= inst.hosts  # slack > 0: memory fits fractionally
    assert lp.objective == pytest.approx(closed.objective, abs=1e-7)
    assert lit.objective == pytest.approx(closed.objective, abs=1e-7)
    if milp.objective is not None:
        assert lp.objective >= milp.objective - 1e-9
    e = lp.solution.e
    assert np.allclose(e.sum(axis=1), 1.0)
    assert (e.T @ (inst.tasks * inst.mem) <= 1 + 1e-7).all()  # fractional memory fits on every host


def test_lp_infeasible_when_total_memory_exceeds_hosts():
    inst = VCInstance.from_arrays(2, [0.5, 0.5, 0.5], [0.8, 0.8, 0.8])
    assert closed_form_bound(inst).status is Status.INFEASIBLE
    assert lp_relaxation(inst).status is Status.INFEASIBLE
    assert solve_vc_milp(inst).status is Status.INFEASIBLE


def test_milp_time_limit_is_not_reported_optimal():
    inst = generate_vc_instance(16, 120, 0.2, 0.75, 0.75, rng=3)
    res = solve_vc_milp(inst, formulation="literal", time_limit=0.01)
    assert res.status in (Status.FEASIBLE, Status.TIME_LIMIT), res
    if res.status is Status.FEASIBLE:
        assert res.gap is not None and res.gap > 0
        assert check_allocation(inst, res.solution).valid
    else:
        assert res.objective is None and res.solution is None


def test_time_limit_must_be_positive():
    inst = VCInstance.from_arrays(1, [0.5], [0.5])
    with pytest.raises(ValueError, match="time_limit"):
        solve_vc_milp(inst, time_limit=0)


def _needs_branching(n: int):
    """The first ``n`` 10-job small-set instances that the greedy incumbent does not certify."""
    from vcsched.formulations.vc_starts import load_balancing_incumbent
    from vcsched.generators.vc import iter_instance_set
    from vcsched.problems.vc import host_loads
    from vcsched.problems.vc_metrics import load_lower_bound

    out = []
    for spec, inst in iter_instance_set("small"):
        if spec.jobs != 10:
            continue
        inc = load_balancing_incumbent(inst)
        if inc is not None and host_loads(inst, inc).max() > load_lower_bound(inst) + 1e-9:
            out.append(inst)
        if len(out) == n:
            return out
    return out


def test_started_options_change_speed_not_the_optimum(monkeypatch):
    """Without HiGHS's primal heuristics (STARTED_OPTIONS) the proven optimum is the one
    HiGHS finds with its defaults, and branch-and-bound nodes are reported."""
    import vcsched.formulations.vc_milp as vm

    instances = _needs_branching(6)
    assert len(instances) == 6
    tuned = [solve_vc_milp(inst, second_phase=False) for inst in instances]
    monkeypatch.setattr(vm, "STARTED_MAX_VARS", 0)  # HiGHS defaults (symmetry detection still off)
    default = [solve_vc_milp(inst, second_phase=False) for inst in instances]
    for a, b in zip(tuned, default):
        assert a.status is Status.OPTIMAL and b.status is Status.OPTIMAL
        assert a.objective == pytest.approx(b.objective, rel=1e-4)
        assert a.extra["nodes"] >= 0 and "certified_by_bound" not in a.extra
    assert sum(r.extra["nodes"] for r in tuned) >= 1


def test_vc_milp_node_limit_is_reported_and_reproducible():
    """A node limit stops HiGHS like a time limit (status ``feasible`` with the gap, at most that
    many nodes) and, unlike one, gives the same result on every run; a bad limit is refused."""
    rng = np.random.default_rng(3)
    cpu = rng.uniform(0.05, 0.3, 24)
    inst = VCInstance(hosts=4, cpu=cpu / (cpu.sum() / 4 * (1 + 1e-5)), mem=rng.uniform(0.01, 0.1, 24),
                      tasks=np.ones(24, dtype=np.int64))
    runs = [solve_vc_milp(inst, node_limit=10, second_phase=False) for _ in range(2)]
    for res in runs:
        assert res.status is Status.FEASIBLE and "limit" in res.message  # the limit was reached: not proven
        assert res.extra["nodes"] <= 10 and res.gap > 0 and res.objective <= res.bound
        assert check_allocation(inst, res.solution).valid
    assert runs[0].solution.task_host.tolist() == runs[1].solution.task_host.tolist()
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="node_limit"):
            solve_vc_milp(inst, node_limit=bad)
