"""The typed model objects of vcsched.formulations.vc_milp: the same answers from both formulations."""

from __future__ import annotations

import numpy as np
import pulp
import pytest

from tests.vc.brute import brute_force_min_yield
from vcsched.formulations.solve import solve_model
from vcsched.formulations.vc_milp import (
    CompactModel,
    LiteralModel,
    build_compact_model,
    build_literal_model,
    load_balancing_incumbent,
)
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems import vc_metrics
from vcsched.problems.vc import VCInstance, host_loads
from vcsched.problems.vc_metrics import migration_cost

BUILDERS = {"compact": build_compact_model, "literal": build_literal_model}


def _constraints_hold(model, values: dict) -> bool:
    """Every constraint of ``model`` holds when its variables take ``values`` (others 0)."""
    for v in model.problem.variables():
        v.varValue = values.get(v, 0.0)
    return all(c.valid(1e-9) for c in model.problem.constraints.values())


@pytest.mark.parametrize("seed", range(6))
def test_both_models_give_the_brute_force_optimum_through_the_same_accessors(seed):
    inst = generate_vc_instance(2, 5, 0.3, 0.5, 0.5, rng=seed)
    expected = brute_force_min_yield(inst)
    for name, build in BUILDERS.items():
        model = build(inst)
        assert model.formulation == name and isinstance(model, CompactModel if name == "compact" else LiteralModel)
        out = solve_model(model.problem, variables=model.variables)
        if expected is None:
            assert out.status.value == "infeasible"
            continue
        assert model.min_yield(out.objective) == pytest.approx(expected, abs=1e-7)
        task_host = model.placement(inst)
        counts = np.zeros((inst.n_jobs, inst.hosts))
        np.add.at(counts, (inst.task_job, task_host), 1)
        assert np.allclose(model.job_host_values(inst), counts)
        assert min(1.0, 1.0 / host_loads(inst, task_host).max()) == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize("seed", range(6))
def test_start_values_of_a_placement_satisfy_every_constraint(seed):
    """The incumbent's start is feasible in both models (hosts relabelled for the compact symmetry breaking)."""
    inst = generate_vc_instance(3, 7, 0.5, 0.5, 0.5, rng=seed)
    task_host = load_balancing_incumbent(inst)
    assert task_host is not None
    for build in BUILDERS.values():
        model = build(inst)
        start = model.start_values(inst, task_host)
        assert start and _constraints_hold(model, start)
        assert model.min_yield(pulp.value(model.problem.objective)) == pytest.approx(
            min(1.0, 1.0 / host_loads(inst, task_host).max()))


def test_start_values_violate_nothing_but_a_wrong_placement_does():
    """Control for the test above: a placement over the memory capacity breaks a constraint."""
    inst = VCInstance.from_arrays(2, [0.5, 0.5], [0.7, 0.7])
    model = build_literal_model(inst)
    assert not _constraints_hold(model, model.start_values(inst, np.array([0, 0])))
    assert _constraints_hold(model, model.start_values(inst, np.array([0, 1])))


def test_relaxed_models_share_job_host_values_rows_summing_to_task_counts():
    inst = generate_vc_instance(4, 9, 0.4, 0.5, 0.5, tasks=None, rng=3)
    for build in BUILDERS.values():
        model = build(inst, relax=True)
        assert model.relaxed
        solve_model(model.problem, mip=False, variables=model.variables)
        assert np.allclose(model.job_host_values(inst).sum(axis=1), inst.tasks)


def test_load_lower_bound_is_a_bound_and_tight_on_pigeonhole():
    inst = VCInstance.from_arrays(2, [0.6, 0.6, 0.6], [0.1, 0.1, 0.1])
    assert vc_metrics.load_lower_bound(inst) == pytest.approx(1.2)
    rng = np.random.default_rng(5)
    for _ in range(20):
        inst = generate_vc_instance(2, 5, 0.3, 0.5, 0.5, rng=rng)
        best = brute_force_min_yield(inst)
        if best is not None:
            assert min(1.0, 1.0 / vc_metrics.load_lower_bound(inst)) >= best - 1e-9


def test_migration_cost_matches_tasks_of_a_job():
    inst = VCInstance.from_arrays(2, [0.5, 0.3], [0.2, 0.4], tasks=[2, 1], current_host=[[0, 1], 0])
    assert migration_cost(inst, np.array([1, 0, 0])) == {"migrations": 0, "migrated_memory": 0.0}
    assert migration_cost(inst, np.array([1, 1, 1])) == {"migrations": 2, "migrated_memory": pytest.approx(0.6)}
    assert migration_cost(inst.replace(current_host=None), np.array([1, 1, 1])) == {}
