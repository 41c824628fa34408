"""Dynamic VCSched: adaptation policies under a migration budget (seed 001 §6, beyond the paper)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from heuristics.vc.adapt import ADAPT_POLICIES, Policy, make_policy, relabel_to_keep, stay_and_place_new
from vcsched.errors import InvalidInputError
from vcsched.formulations.vc_milp import solve_vc_milp
from vcsched.problems.vc import VCInstance, allocation_from_placement, check_allocation, placement_min_yield
from vcsched.problems.vc_metrics import migration_cost
from vcsched.scenarios.vc_dynamic import poisson_workload
from vcsched.sim.vcdynamic import DynamicWorkload, PolicyError, simulate_dynamic

HOSTS = 4


def workload(seed=1, duration=60.0):
    return poisson_workload(HOSTS, arrival_rate=0.5, mean_lifetime=20.0, duration=duration, slack=0.3, rng=seed)


class Spy:
    """Wraps a policy and checks every placement it returns."""

    def __init__(self, inner: Policy, budget: float) -> None:
        self.inner, self.budget = inner, budget
        self.name, self.budget_mode = inner.name, inner.budget_mode
        self.calls = []

    def adapt(self, instance, budget):
        th = self.inner.adapt(instance, budget)
        if th is not None:
            assert check_allocation(instance, allocation_from_placement(instance, th)).valid
            cost = migration_cost(instance, th)
            spent = cost["migrated_memory"] if self.budget_mode == "memory" else cost["migrations"]
            assert spent <= budget + 1e-9
        self.calls.append((instance, th))
        return th


POLICIES = ADAPT_POLICIES.names()


def test_all_issue_policies_are_registered():
    assert set(POLICIES) == {"exact", "none", "mcb8", "mcb8-sticky", "local-search"}


@pytest.mark.parametrize("name", POLICIES)
def test_zero_budget_never_migrates(name):
    res = simulate_dynamic(HOSTS, workload(2), make_policy(name, time_limit=2), budget=0.0)
    assert res.migrations == 0 and res.migrated_memory == 0.0
    assert res.events > 10


@pytest.mark.parametrize("name", POLICIES)
@pytest.mark.parametrize("budget, mode", [(0.2, "memory"), (1.0, "count")])
def test_budget_is_never_exceeded_and_allocations_are_valid(name, budget, mode):
    spy = Spy(make_policy(name, budget_mode=mode, time_limit=2), budget)
    res = simulate_dynamic(HOSTS, workload(3), spy, budget=budget)
    assert len(spy.calls) == res.events + res.rejected
    for rec in res.trace:
        spent = rec.migrated_memory if mode == "memory" else rec.migrations
        assert spent <= budget + 1e-9


def _exact_is_the_static_optimum(hosts: int, w: DynamicWorkload, every: int = 3) -> list:
    """Run the exact policy with an unbounded budget on ``w``; at every ``every``-th event (the same
    property, a third of the static solves by default) its placement is the static optimum, or, for a
    rejected arrival, the static problem is infeasible. Returns the events seen."""
    spy = Spy(make_policy("exact", time_limit=5), math.inf)
    simulate_dynamic(hosts, w, spy, budget=math.inf)
    for inst, th in spy.calls[::every]:
        static = solve_vc_milp(inst.replace(current_host=None))
        if th is None:  # rejected arrival: no placement holds every job
            assert static.status.value == "infeasible"
            continue
        assert placement_min_yield(inst, th) == pytest.approx(static.objective, abs=1e-7)
    return spy.calls


def test_exact_with_unbounded_budget_is_the_static_optimum_at_every_event():
    """30 time units of the Poisson workload (32 events), then an arrival that fits nowhere."""
    assert len(_exact_is_the_static_optimum(HOSTS, workload(4, duration=30.0))) > 10
    full = DynamicWorkload(arrival=np.array([0.0, 1.0]), lifetime=np.array([10.0, 10.0]), cpu=np.array([0.5, 0.5]),
                           mem=np.array([0.8, 0.8]), tasks=np.array([1, 1]))
    assert [th is None for _, th in _exact_is_the_static_optimum(1, full, every=1)] == [False, True]


@pytest.mark.slow
def test_exact_with_unbounded_budget_is_the_static_optimum_at_every_event_campaign():
    """40 time units (42 events, one arrival rejected among the ones checked; about 7 s of CPU)."""
    calls = _exact_is_the_static_optimum(HOSTS, workload(4, duration=40.0))
    assert len(calls) > 10 and any(th is None for _, th in calls[::3])


def test_exact_is_at_least_as_good_as_every_heuristic_at_each_event():
    inst = VCInstance.from_arrays(3, [0.9, 0.8, 0.7, 0.6, 0.5], [0.3, 0.3, 0.3, 0.3, 0.3],
                                  current_host=[0, 0, 0, 1, None])
    for budget in (0.0, 0.3, 0.6, math.inf):
        best = placement_min_yield(inst, make_policy("exact").adapt(inst, budget))
        for name in ("none", "mcb8", "mcb8-sticky", "local-search"):
            th = make_policy(name).adapt(inst, budget)
            assert placement_min_yield(inst, th) <= best + 1e-9


def test_local_search_and_sticky_use_the_budget_to_relieve_the_peak():
    # host 0 is overloaded; one move of a 0.1-memory job fixes it
    inst = VCInstance.from_arrays(2, [0.6, 0.6, 0.6], [0.1, 0.1, 0.1], current_host=[0, 0, 0])
    for name in ("local-search", "mcb8-sticky", "exact"):
        th = make_policy(name).adapt(inst, 0.1)
        assert placement_min_yield(inst, th) == pytest.approx(0.5 / 0.6)
        assert migration_cost(inst, th)["migrated_memory"] == pytest.approx(0.1)
        assert placement_min_yield(inst, make_policy(name).adapt(inst, 0.05)) == pytest.approx(1 / 1.8)


def test_same_seed_same_result():
    a = simulate_dynamic(HOSTS, workload(5), make_policy("local-search"), budget=0.5)
    b = simulate_dynamic(HOSTS, workload(5), make_policy("local-search"), budget=0.5)
    assert a.to_dict() == b.to_dict() and a.trace == b.trace


def test_arrival_that_cannot_fit_is_rejected():
    w = DynamicWorkload(arrival=np.array([0.0, 1.0]), lifetime=np.array([10.0, 10.0]), cpu=np.array([0.5, 0.5]),
                        mem=np.array([0.8, 0.8]), tasks=np.array([1, 1]))
    res = simulate_dynamic(1, w, make_policy("none"), budget=0.0, duration=5.0)
    assert res.rejected == 1 and res.events == 1
    assert res.mean_min_yield == pytest.approx(1.0)


def test_time_average_of_the_min_yield():
    # job 0 alone on [0, 2) (yield 1), jobs 0 and 1 share the only host on [2, 4): yield 1 / 1.2
    w = DynamicWorkload(arrival=np.array([0.0, 2.0]), lifetime=np.array([10.0, 10.0]), cpu=np.array([0.6, 0.6]),
                        mem=np.array([0.1, 0.1]), tasks=np.array([1, 1]))
    res = simulate_dynamic(1, w, make_policy("none"), budget=0.0, duration=4.0)
    assert res.mean_min_yield == pytest.approx((2 * 1.0 + 2 / 1.2) / 4)
    assert res.min_min_yield == pytest.approx(1 / 1.2)


class Cheater:
    name, budget_mode = "cheater", "memory"

    def adapt(self, instance, budget):
        return np.zeros(instance.n_tasks, dtype=np.int64)  # everything on host 0, moving freely


def test_engine_refuses_a_policy_that_breaks_the_budget():
    w = DynamicWorkload(arrival=np.array([0.0, 1.0, 2.0]), lifetime=np.array([10.0] * 3), cpu=np.array([0.5] * 3),
                        mem=np.array([0.2] * 3), tasks=np.array([1, 1, 1]))

    class MoveAll(Cheater):
        def adapt(self, instance, budget):
            return np.full(instance.n_tasks, instance.n_tasks % 2, dtype=np.int64)

    with pytest.raises(PolicyError, match="budget"):
        simulate_dynamic(2, w, MoveAll(), budget=0.0, duration=5.0)


def test_relabel_keeps_jobs_in_place_when_hosts_are_renamed():
    inst = VCInstance.from_arrays(3, [0.5] * 3, [0.2] * 3, current_host=[0, 1, 2])
    th = relabel_to_keep(inst, np.array([2, 0, 1]), "memory")
    assert th.tolist() == [0, 1, 2]


def test_stay_and_place_new_puts_the_new_job_on_the_least_loaded_fitting_host():
    inst = VCInstance.from_arrays(3, [0.9, 0.1, 0.5], [0.2, 0.95, 0.2], current_host=[0, 1, None])
    assert stay_and_place_new(inst).tolist() == [0, 1, 2]


def test_vc_adapt_experiment_cells_rows_and_report(tmp_path):
    import pandas as pd

    from benchmarks.experiments.vc_adapt import EXPERIMENT

    cells = EXPERIMENT.cells(True)
    assert {c["policy"] for c in cells} == set(POLICIES)
    rows = []
    for policy in ("none", "local-search"):
        for budget in ("0", "inf"):
            params = dict(cells[0], policy=policy, budget=budget, duration=40.0)
            out = EXPERIMENT.run_cell(params, 0)
            assert len(out) == 1 and "budget" not in out[0]
            rows.append({**params, **out[0]})
    df = pd.DataFrame(rows)
    # paired comparison: the same workload for every policy and budget
    assert df["jobs"].nunique() == 1
    none0 = df[(df.policy == "none")].iloc[0]
    assert none0["migrated_memory"] == 0
    text = EXPERIMENT.report(df, tmp_path)
    assert "local-search" in text and (tmp_path / "vc_adapt.csv").exists()
    assert list(tmp_path.glob("tradeoff_rate_*.png"))


def test_swf_trace_jobs_become_a_dynamic_workload():
    from tests.conftest import require_trace
    from vcsched.problems.workload import read_swf, time_window
    from vcsched.scenarios.vc_dynamic import swf_workload

    jobs = read_swf(require_trace("KTH-SP2-1996-2.1-cln.swf.gz"))
    start = float(jobs.submit_time.min())
    window = time_window(jobs, start=start, end=start + 6 * 3600)
    w = swf_workload(window, 8, rng=1)
    assert w.n_jobs == len(window) > 5
    assert w.arrival[0] == 0.0 and (np.diff(w.arrival) >= 0).all()
    assert (w.tasks >= 1).all() and (w.tasks <= 64).all()
    assert np.array_equal(np.sort(w.lifetime), np.sort(np.asarray(window.effective_run_time, dtype=float)))
    res = simulate_dynamic(8, w, make_policy("local-search"), budget=0.5)
    assert res.events >= 1 and all(r.migrated_memory <= 0.5 + 1e-9 for r in res.trace)


def test_the_expected_arrivals_limit_is_the_python_apis_too():
    """``poisson_workload`` refuses what ``vc adapt`` refuses, with the same line (the limit lives there)."""
    from vcsched.problems.vc_limits import MAX_EXPECTED_ARRIVALS

    with pytest.raises(InvalidInputError, match=f"more than the limit of {MAX_EXPECTED_ARRIVALS:,}"):
        poisson_workload(4, 1000.0, 10.0, 1000.0, rng=0)
    with pytest.raises(InvalidInputError, match="arrival_rate must be a positive number"):
        poisson_workload(4, -1.0, 10.0, 1000.0, rng=0)
    assert len(poisson_workload(4, 1.0, 10.0, 100.0, rng=0).arrival) > 0
