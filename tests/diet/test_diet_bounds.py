"""DIET bounds and the best clairvoyant placement: brute force on tiny cases, validity against every approach."""

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heuristics.diet import make_approach
from lowerbounds.diet import diet_bounds, diet_instance, lp_bounds, quick_bounds, sed_rate
from lowerbounds.diet.placement import best_placement, evaluate, slot_bound
from vcsched.problems.diet import AgentTree, DietPlatform, SeDChange, TaskSpec, Workload
from vcsched.scenarios.diet import Scenario, add_seds, bursty, simulate_scenario, steady
from vcsched.sim.diet import execution_factors, simulate_diet

APPROACHES = [("standard", {}), ("sed-queue", {}), ("task-scheduler", {}),
              ("task-scheduler", {"refine": "minmin"}), ("task-scheduler", {"refine": "sufferage"}),
              ("task-scheduler", {"refine": "msf"}), ("task-scheduler", {"refine": "last-free"}),
              ("standard", {"sorting": "literal"}), ("sed-queue", {"sorting": "literal"})]


def tiny(arrivals, costs, speeds, *, cpus=1, cv=0.0, join=None, overhead=0.5):
    """One MA, one LA, one SeD per speed; optionally one more SeD (speed 1) joining at ``join``."""
    tree = AgentTree.balanced(1, len(speeds))
    tree.speed.update({f"sed{k}": float(v) for k, v in enumerate(speeds)})
    wl = Workload(arrivals=tuple((float(t), TaskSpec(cost=float(c), in_bytes=1e6, out_bytes=1e5))
                                 for t, c in zip(arrivals, costs)))
    changes = () if join is None else (SeDChange(float(join), f"sed{len(speeds)}", parent="LA0"),)
    return Scenario("tiny", tree, wl, changes, DietPlatform(cpus=cpus, exec_cv=cv, submit_overhead=overhead))


def brute_force(inst, objective):
    """Least objective over every assignment of requests to CPUs and every order on each CPU (semi-active)."""
    n, machines = inst.n, inst.machines
    e = np.array([[inst.earliest_start(j, m) for m in machines] for j in range(n)])
    p = inst.work[:, None] / np.array([m.speed for m in machines])[None, :]
    best = math.inf
    for assign in itertools.product(range(len(machines)), repeat=n):
        for order in itertools.permutations(range(n)):
            free = np.full(len(machines), -math.inf)
            ends = np.zeros(n)
            for j in order:
                m = assign[j]
                ends[j] = max(e[j, m], free[m]) + p[j, m]
                free[m] = ends[j]
            best = min(best, evaluate(inst, ends, objective))
    return best


def simulated(scenario, seed, name, options):
    return simulate_scenario(scenario, make_approach(name, **options), seed=seed)


def assert_bounds_hold(bounds, metrics, *, tol=1e-6):
    for key in ("makespan", "mean_turnaround"):
        assert bounds[key] <= metrics[key] * (1 + tol) + tol, (key, bounds[key], metrics[key])
    assert bounds["throughput"] >= metrics["throughput"] * (1 - tol) - tol


# -- the simulator's rules the bounds read ------------------------------------------------------------------
def test_execution_factors_are_the_simulators_draws_in_acceptance_order():
    scen = bursty(0.0, platform=DietPlatform(exec_cv=0.05))
    # SeD Queue runs at most 2 jobs on 2 CPUs, each at full speed: compute time = its work
    run = simulate_diet(scen.tree, scen.workload, make_approach("sed-queue"), platform=scen.platform, rng=7)
    f = execution_factors(scen.platform, 7, 8)
    recs = sorted(run.tasks, key=lambda r: (r.arrive_sed, r.task))
    assert [r.task for r in recs] == list(range(8))
    assert np.allclose([(r.end - r.start) / r.cost for r in recs], f, rtol=1e-9)


def test_execution_factors_in_pieces_are_the_same_stream():
    from vcsched.sim.diet import iter_execution_factors

    p = DietPlatform(exec_cv=0.03)
    whole = execution_factors(p, 4, 2500)
    assert np.array_equal(whole, np.concatenate(list(iter_execution_factors(p, 4, 2500, chunk=700))))
    assert np.array_equal(execution_factors(DietPlatform(), 4, 3), np.ones(3))


def test_sed_rate_never_exceeds_cpus_times_speed():
    p = DietPlatform(interference=0.7)
    rates = [sed_rate(p, 1.5, n) for n in range(0, 20)]
    assert max(rates) == pytest.approx(2 * 1.5) and rates[2] == max(rates)
    assert rates[4] == pytest.approx(3.0 / 1.7)


# -- exact placement against brute force ---------------------------------------------------------------------
@pytest.mark.parametrize("objective", ["makespan", "mean_turnaround"])
@pytest.mark.parametrize("case", [
    dict(arrivals=[0, 0, 1, 5], costs=[10, 12, 8, 9], speeds=[1.0, 2.0]),
    dict(arrivals=[0, 0.5, 0.5, 1], costs=[10, 10, 10, 10], speeds=[1.0, 1.0], cv=0.1),
    dict(arrivals=[0, 2, 3], costs=[20, 5, 6], speeds=[1.0], join=4.0),
    dict(arrivals=[0, 0, 0, 0], costs=[4, 7, 3, 9], speeds=[1.0], cpus=2),
])
def test_best_placement_equals_brute_force_and_bounds_stay_below(case, objective):
    inst = diet_instance(tiny(**case), seed=3)
    res = best_placement(inst, objective, time_limit=20)
    opt = brute_force(inst, objective)
    assert res.status.value == "optimal" and res.value == pytest.approx(opt, rel=1e-9)
    assert evaluate(inst, np.array([r["end"] for r in res.placement]), objective) == pytest.approx(res.value)
    assert slot_bound(inst, objective) <= opt * (1 + 1e-9)
    for bounds in (quick_bounds(inst), lp_bounds(inst)):
        assert bounds[objective] <= opt * (1 + 1e-9)


def test_placement_respects_earliest_starts_and_cpus():
    inst = diet_instance(tiny([0, 0, 0, 1, 1], [5, 6, 7, 8, 9], [1.0], cpus=2, join=3.0), seed=0)
    res = best_placement(inst, "mean_turnaround", time_limit=20)
    by_cpu = {}
    for r in res.placement:
        m = next(m for m in inst.machines if (m.sed, m.cpu) == (r["sed"], r["cpu"]))
        assert r["start"] >= inst.earliest_start(r["task"], m) - 1e-9
        by_cpu.setdefault((r["sed"], r["cpu"]), []).append((r["start"], r["end"]))
    for spans in by_cpu.values():
        spans.sort()
        assert all(a[1] <= b[0] + 1e-9 for a, b in zip(spans, spans[1:]))


def test_time_limit_reports_feasible_with_gap():
    inst = diet_instance(add_seds(1.0), seed=0)
    res = best_placement(inst, "makespan", time_limit=0.5)
    assert res.status.value in ("feasible", "optimal")
    assert res.bound <= res.value and (res.gap is not None)
    if res.status.value == "feasible":
        assert res.gap > 0 and "limit reached" in res.message


def test_bursty_exact_is_optimal_and_within_the_bounds():
    scen = bursty(0.5)
    out = diet_bounds(scen, seed=1, method="exact", time_limit=10)
    quick = quick_bounds(diet_instance(scen, seed=1))
    for m in ("makespan", "mean_turnaround"):
        assert out[m].status == "optimal" and out[m].optimum == out[m].value and len(out[m].placement) == 8
        assert quick[m] <= out[m].value * (1 + 1e-9)


# -- hypothesis: tiny random instances ------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(gaps=st.lists(st.floats(0, 6), min_size=2, max_size=4), speeds=st.lists(st.sampled_from([0.5, 1.0, 2.0]),
       min_size=1, max_size=2), cost=st.floats(2, 20), cv=st.sampled_from([0.0, 0.1]), seed=st.integers(0, 50))
def test_hypothesis_bounds_below_placement_and_every_approach(gaps, speeds, cost, cv, seed):
    arrivals = np.cumsum([0.0, *gaps[1:]])
    scen = tiny(arrivals, [cost] * len(arrivals), speeds, cv=cv)
    inst = diet_instance(scen, seed=seed)
    bounds = lp_bounds(inst)
    for objective in ("makespan", "mean_turnaround"):
        assert bounds[objective] <= brute_force(inst, objective) * (1 + 1e-9)
    for name, options in APPROACHES[:3]:
        metrics = simulated(scen, seed, name, options)
        assert_bounds_hold(bounds, metrics)
        if name != "standard" and cv == 0:  # a run with at most `cpus` solves per SeD is a placement
            for objective in ("makespan", "mean_turnaround"):
                best = best_placement(inst, objective, time_limit=20)
                assert best.value <= metrics[objective] * (1 + 1e-9)


# -- the paper's experiments: no bound above any approach ------------------------------------------------------
@pytest.mark.parametrize("interarrival", [0.0, 0.5, 1.0])
def test_bursty_bounds_below_every_approach(interarrival):
    for seed in (0, 4):
        scen = bursty(interarrival)
        bounds = lp_bounds(diet_instance(scen, seed=seed))
        for name, options in APPROACHES:
            assert_bounds_hold(bounds, simulated(scen, seed, name, options))


@pytest.mark.parametrize("platform", [{}, {"queue_sync": 1.5}, {"interference": 0.25}, {"exec_cv": 0.0}])
def test_add_seds_bounds_below_every_approach(platform):
    from vcsched.scenarios.diet import PLATFORM

    scen = add_seds(1.0, platform=dataclasses.replace(PLATFORM, **platform))
    bounds = lp_bounds(diet_instance(scen, seed=2))
    exact = best_placement(diet_instance(scen, seed=2), "makespan", time_limit=0.0)
    for name, options in APPROACHES:
        metrics = simulated(scen, 2, name, options)
        assert_bounds_hold(bounds, metrics)
        assert exact.bound <= metrics["makespan"] * (1 + 1e-9) or name.startswith("standard")


def test_steady_throughput_bound_above_every_approach():
    scen = steady(duration=1800.0)
    bounds = quick_bounds(diet_instance(scen, seed=1))
    for name in ("standard", "sed-queue", "task-scheduler"):
        assert_bounds_hold(bounds, simulated(scen, 1, name, {}))


def test_bounds_refuse_noise_with_a_removed_sed():
    from vcsched.errors import InvalidInputError

    scen = dataclasses.replace(bursty(0.5), changes=(SeDChange(50.0, "sed0"),))
    with pytest.raises(InvalidInputError, match="exec_cv = 0"):
        diet_instance(scen, seed=0)


@pytest.mark.parametrize("case", [
    dict(arrivals=[0, 0, 1, 5, 5], costs=[10, 12, 8, 9, 7], speeds=[1.0, 2.0]),
    dict(arrivals=[0, 0.5, 0.5, 1, 2], costs=[10, 10, 10, 10, 10], speeds=[1.0, 1.0], cv=0.1, join=6.0),
])
def test_makespan_milp_equals_brute_force(case):
    from lowerbounds.diet.milp import makespan_milp
    from lowerbounds.diet.placement import greedy_placement

    inst = diet_instance(tiny(**case), seed=5)
    starts, cpus = greedy_placement(inst)
    incumbent = evaluate(inst, starts + inst.work / np.array([inst.machines[m].speed for m in cpus]), "makespan")
    out, found = makespan_milp(inst, incumbent, time_limit=30)
    opt = brute_force(inst, "makespan")
    assert out.status.value == "optimal" and out.objective - inst.submit.min() == pytest.approx(opt, rel=1e-4)
    assert sorted(j for j, _, _ in found) == list(range(inst.n))


def test_add_seds_without_noise_best_placement_is_proven():
    from vcsched.scenarios.diet import PLATFORM

    inst = diet_instance(add_seds(1.0, platform=dataclasses.replace(PLATFORM, exec_cv=0.0)), seed=0)
    for objective in ("makespan", "mean_turnaround"):
        res = best_placement(inst, objective, time_limit=10)
        assert res.status.value == "optimal" and res.gap == pytest.approx(0, abs=1e-9)
        assert slot_bound(inst, objective) == pytest.approx(res.value, rel=1e-9)


def test_exact_too_large_says_so_and_gives_bound_and_gap(monkeypatch):
    import lowerbounds.diet.bounds as ld

    monkeypatch.setattr(ld, "EXACT_MAX_TASKS", 3)
    out = diet_bounds(tiny([0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [1.0, 1.0]), method="exact", time_limit=5)
    for m in ("makespan", "mean_turnaround"):
        b = out[m]
        assert "too large for the exact search" in b.message and b.status in ("feasible", "optimal")
        assert b.bound <= b.value and b.gap == pytest.approx(abs(b.value - b.bound) / b.bound)


@settings(max_examples=15, deadline=None)
@given(gaps=st.lists(st.floats(0, 3), min_size=3, max_size=4), cost=st.floats(2, 20), seed=st.integers(0, 50),
       objective=st.sampled_from(["makespan", "mean_turnaround"]))
def test_local_search_never_worsens_and_stays_feasible(gaps, cost, seed, objective):
    from lowerbounds.diet.placement import greedy_placement, improve

    scen = tiny(np.cumsum([0.0, *gaps[1:]]), [cost] * len(gaps), [1.0, 2.0], cv=0.1, join=4.0)
    inst = diet_instance(scen, seed=seed)
    starts, cpus = greedy_placement(inst)
    speed = np.array([inst.machines[m].speed for m in cpus])
    before = evaluate(inst, starts + inst.work / speed, objective)
    new_starts, new_cpus = improve(inst, cpus, starts, objective)
    speed = np.array([inst.machines[m].speed for m in new_cpus])
    ends = new_starts + inst.work / speed
    assert evaluate(inst, ends, objective) <= before + 1e-9
    assert evaluate(inst, ends, objective) >= brute_force(inst, objective) - 1e-9
    for j, m in enumerate(new_cpus):
        assert new_starts[j] >= inst.earliest_start(j, inst.machines[m]) - 1e-9
        others = [k for k in range(inst.n) if k != j and new_cpus[k] == m]
        assert all(ends[k] <= new_starts[j] + 1e-9 or new_starts[k] >= ends[j] - 1e-9 for k in others)


@settings(max_examples=40, deadline=None)
@given(factors=st.lists(st.floats(0.5, 1.5), min_size=1, max_size=12), budget=st.floats(0, 12),
       in_flight=st.integers(0, 4))
def test_jobs_fitting_is_at_least_every_feasible_block(factors, budget, in_flight):
    from lowerbounds.diet.quick import _jobs_fitting

    f = np.array(factors)
    best = 0
    for a in range(len(f)):
        for b in range(a + 1, len(f) + 1):
            smallest = np.cumsum(np.sort(f[a:b]))
            for k in range(1, b - a + 1):
                if b - a <= k + in_flight and smallest[k - 1] <= budget:
                    best = max(best, k)
    assert _jobs_fitting(f, budget, in_flight) >= best


@pytest.mark.slow
@pytest.mark.parametrize("platform", [{}, {"queue_sync": 1.5}, {"interference": 0.25}])
def test_steady_three_hours_bounds_hold_for_every_approach(platform):
    from vcsched.scenarios.diet import PLATFORM

    scen = steady(platform=dataclasses.replace(PLATFORM, **platform))
    bounds = quick_bounds(diet_instance(scen, seed=2))
    for name, options in APPROACHES:
        assert_bounds_hold(bounds, simulated(scen, 2, name, options))
