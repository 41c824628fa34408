"""Migration-budget MILP (seed 001 §6.1, eq. 22-31)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vc.brute import brute_force_min_yield
from vcsched.formulations.vc_milp import solve_vc_milp
from vcsched.problems.vc import VCInstance, check_allocation
from vcsched.problems.vc_metrics import migration_cost
from vcsched.result import Status


def with_current(rng, H=3, J=5, parallel=False, new_jobs=1):
    tasks = rng.integers(1, 3, J) if parallel else np.ones(J, dtype=int)
    while tasks.sum() > 7:
        tasks[np.argmax(tasks)] -= 1
    cpu = rng.uniform(0.1, 1.0, J).round(3)
    mem = rng.uniform(0.0, 0.45, J).round(3)
    current = []
    for i in range(J):
        if i < new_jobs:
            current.append(None)
        elif tasks[i] == 1:
            current.append(int(rng.integers(0, H)))
        else:
            current.append(tuple(int(h) for h in rng.integers(0, H, tasks[i])))
    # make sure the current placement fits in memory: shrink memory of crowded hosts
    inst = VCInstance.from_arrays(H, cpu, mem, tasks, current_host=current)
    return inst


CASES = [with_current(np.random.default_rng(s), parallel=(s % 2 == 1)) for s in range(24)]


@pytest.mark.parametrize("inst", CASES, ids=lambda i: repr(i))
@pytest.mark.parametrize("budget", [0.0, 0.3, 10.0])
@pytest.mark.parametrize("mode", ["memory", "count"])
def test_budget_milp_equals_brute_force(inst, budget, mode):
    expected = brute_force_min_yield(inst, budget=budget, budget_mode=mode)
    res = solve_vc_milp(inst, budget=budget, budget_mode=mode)
    if expected is None:
        assert res.status is Status.INFEASIBLE
        return
    assert res.status is Status.OPTIMAL
    assert res.objective == pytest.approx(expected, abs=1e-7)
    assert check_allocation(inst, res.solution).valid
    moved = res.extra["migrated_memory"] if mode == "memory" else res.extra["migrations"]
    assert moved <= budget + 1e-9


@pytest.mark.parametrize("inst", CASES[:12], ids=lambda i: repr(i))
def test_zero_budget_keeps_every_placed_task(inst):
    res = solve_vc_milp(inst, budget=0.0, budget_mode="count")
    if res.status is Status.INFEASIBLE:
        return
    new_counts = np.zeros((inst.n_jobs, inst.hosts), dtype=int)
    np.add.at(new_counts, (inst.task_job, res.solution.task_host), 1)
    cur = inst.current_task_host()
    for i in range(inst.n_jobs):
        sl = slice(inst.offsets[i], inst.offsets[i + 1])
        if cur[sl][0] >= 0:
            assert sorted(res.solution.task_host[sl]) == sorted(cur[sl])
    assert res.extra["migrations"] == 0


@pytest.mark.parametrize("inst", CASES[:12], ids=lambda i: repr(i))
def test_large_budget_gives_static_optimum(inst):
    static = solve_vc_milp(inst.replace(current_host=None))
    res = solve_vc_milp(inst, budget=1e6)
    assert res.status == static.status
    if static.objective is not None:
        assert res.objective == pytest.approx(static.objective, abs=1e-7)


def test_literal_budget_agrees_on_sequential_jobs():
    for inst in CASES[0::2][:8]:
        for budget in (0.0, 0.25):
            a = solve_vc_milp(inst, budget=budget)
            b = solve_vc_milp(inst, budget=budget, formulation="literal")
            assert a.status == b.status
            if a.objective is not None:
                assert a.objective == pytest.approx(b.objective, abs=1e-6)


def test_migration_cost_matches_tasks_of_a_job():
    inst = VCInstance.from_arrays(2, [0.5], [0.25], [2], current_host=[(0, 1)])
    assert migration_cost(inst, np.array([1, 0])) == {"migrations": 0, "migrated_memory": 0.0}
    assert migration_cost(inst, np.array([1, 1])) == {"migrations": 1, "migrated_memory": 0.25}


def test_budget_from_the_instance_file_is_used():
    inst = VCInstance.from_arrays(2, [0.9, 0.9], [0.1, 0.1], current_host=[0, 0], migration_budget=0.0)
    assert solve_vc_milp(inst).objective == pytest.approx(1 / 1.8)
    assert solve_vc_milp(inst.replace(migration_budget=0.1)).objective == pytest.approx(1.0)
