"""``certify``: proven bounds and allocations (lowerbounds.vc.packing, lowerbounds.vc.certification, heuristics.vc.improve).

Checked against the compact MILP (small set, medium instances where HiGHS
proves optimality), brute force (tiny instances, bin packing), and the
allocations of every registered heuristic.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heuristics.vc import REGISTRY
from heuristics.vc.improve import improve_placement
from lowerbounds.vc.certification import certify
from lowerbounds.vc.packing import (
    PackingItems,
    cheap_bins,
    configuration_lp,
    cpu_load_bound,
    l2_bins,
    memory_bins,
    packing_items,
)
from tests.vc.brute import brute_force_min_yield
from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.formulations.vc_milp import solve_vc_milp
from vcsched.generators.vc import SLACKS, VCSpec, build_instance, generate_vc_instance, instance_set_specs
from vcsched.problems.vc import VCInstance, check_allocation, host_loads, host_memory, save_instance
from vcsched.result import Status


def run_certify(inst: VCInstance, **kw):
    kw.setdefault("time_limit", 10.0)
    return certify(inst, heuristics=[REGISTRY.get("mcb8"), REGISTRY.get("sg")], improve=improve_placement, **kw)


def assert_sound(res, inst: VCInstance) -> None:
    """Every returned allocation passes the checker; objective <= bound; statuses consistent."""
    if res.status.has_solution:
        report = check_allocation(inst, res.solution)
        assert report.valid, report.violations
        assert res.objective == pytest.approx(report.min_yield, abs=1e-12)
        assert res.bound is not None and res.bound >= res.objective - 1e-12
        assert 0 <= res.gap <= 1
        if res.status is Status.OPTIMAL:
            assert res.gap <= 1e-4
    else:
        assert res.solution is None and res.objective is None
    assert res.extra["closed_by"] in ("load-bound", "cpu-l2", "l2", "configuration-lp", "memory-l2",
                                      "memory-configuration-lp", "milp", "none")


# --------------------------------------------------------------------------- bin-packing bounds vs brute force


def min_bins(sizes: np.ndarray) -> int:
    """Fewest unit bins for a handful of items (brute force over set partitions via assignments)."""
    n = sizes.size
    for k in range(1, n + 1):
        for assign in itertools.product(range(k), repeat=n):
            if np.all(np.bincount(assign, weights=sizes, minlength=k) <= 1 + 1e-12):
                return k
    return n


@pytest.mark.parametrize("seed", range(40))
def test_l2_is_a_lower_bound_and_at_least_the_volume_bound(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    sizes = np.round(rng.choice([rng.uniform(0, 1, n), rng.uniform(0.3, 0.7, n)]), 2)
    opt = min_bins(sizes)
    assert l2_bins(sizes) <= opt
    assert l2_bins(sizes) >= np.ceil(sizes.sum() - 1e-9)


def test_l2_beats_the_volume_bound_on_the_textbook_case():
    # five items of 0.6: volume says 3 bins, no two share a bin: 5
    assert l2_bins(np.full(5, 0.6)) == 5
    assert l2_bins(np.array([0.7, 0.7, 0.3, 0.3, 0.3])) == 3  # J2 room 0.3 each, one 0.3 left -> 3


def test_configuration_lp_proves_what_volume_cannot():
    # 7 items of memory 0.4 on 3 hosts: volume 2.8 -> 3 bins, but a bin holds 2 -> 4 > 3 (LP value 3.5)
    items = PackingItems(np.full(7, 0.1), np.full(7, 0.4), np.ones(7, dtype=np.int64), 3)
    assert memory_bins(items) == 3
    proof = configuration_lp(items, None)
    assert proof.infeasible and proof.bins_lower == pytest.approx(3.5, abs=1e-6)
    # with 4 hosts it packs: no proof may be claimed
    ok = configuration_lp(PackingItems(items.cpu, items.mem, items.demand, 4), None)
    assert not ok.infeasible


def test_configuration_lp_with_demands_equals_the_expanded_items():
    rng = np.random.default_rng(3)
    cpu, mem = rng.uniform(0.1, 0.6, 5), rng.uniform(0.05, 0.4, 5)
    demand = np.array([3, 1, 2, 4, 1])
    grouped = configuration_lp(PackingItems(cpu, mem, demand, 2), 1.3)
    flat = configuration_lp(PackingItems(np.repeat(cpu, demand), np.repeat(mem, demand),
                                         np.ones(demand.sum(), dtype=np.int64), 2), 1.3)
    # both prove "more than 2 bins", and neither claims more than the configuration LP's optimum
    # (every configuration enumerated, solved by linprog)
    lp_star = _configuration_lp_by_enumeration(cpu, mem, demand, 1.3)
    assert lp_star > 2
    for proof in (grouped, flat):
        assert proof.infeasible and 2 < proof.bins_lower <= lp_star * (1 + 1e-6)


def _configuration_lp_by_enumeration(cpu, mem, demand, load):
    """min sum x over every configuration (all count vectors that fit (load, 1)), by linprog."""
    import itertools

    from scipy.optimize import linprog

    configs = [np.array(a) for a in itertools.product(*[range(d + 1) for d in demand])
               if any(a) and np.dot(a, cpu) <= load and np.dot(a, mem) <= 1]
    res = linprog(np.ones(len(configs)), A_ub=-np.array(configs).T, b_ub=-demand, bounds=(0, None), method="highs")
    return res.fun


# --------------------------------------------------------------------------- small set: equal to the compact MILP


SMALL = [s for s in instance_set_specs("small", replicates=1)][::23]  # 7 specs across job counts and slacks


@pytest.mark.parametrize("spec", SMALL, ids=lambda s: f"{s.jobs}j-s{s.slack}-{s.cv_mem}-{s.cv_cpu}")
def test_certified_optimum_equals_the_compact_milp_on_the_small_set(spec):
    inst = build_instance(spec, 0)
    milp = solve_vc_milp(inst, time_limit=60)
    res = run_certify(inst, time_limit=30)
    assert_sound(res, inst)
    assert milp.status in (Status.OPTIMAL, Status.INFEASIBLE)
    assert res.status is milp.status
    if milp.status is Status.OPTIMAL:
        assert res.objective == pytest.approx(milp.objective, rel=1e-4)
        assert res.bound >= milp.objective - 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("spec", instance_set_specs("small", replicates=1), ids=lambda s: repr(s))
def test_certified_optimum_equals_the_compact_milp_on_the_whole_small_set(spec):
    test_certified_optimum_equals_the_compact_milp_on_the_small_set(spec)


# --------------------------------------------------------------------------- the bound is never below any allocation


def _all_allocations(inst: VCInstance) -> list[float]:
    yields = []
    for name in REGISTRY.names():
        r = REGISTRY.get(name)(inst, rng=0)
        if r.status.has_solution:
            yields.append(r.objective)
    return yields


@pytest.mark.parametrize("hosts,jobs,slack,seed", [(4, 10, 0.3, 1), (8, 24, 0.5, 2), (8, 30, 0.2, 3),
                                                   (16, 40, 0.6, 4), (6, 30, 0.1, 5)])
def test_bound_is_never_below_any_heuristic(hosts, jobs, slack, seed):
    inst = generate_vc_instance(hosts, jobs, slack, 0.75, 0.75, rng=seed)
    res = run_certify(inst, time_limit=2)
    assert_sound(res, inst)
    if res.status is Status.INFEASIBLE:
        assert not _all_allocations(inst)
        return
    for y in _all_allocations(inst):
        assert res.bound >= y - 1e-12
        assert res.objective >= y - 1e-12  # certify starts from MCB8 and SG, and never gets worse


# --------------------------------------------------------------------------- medium instances: packing "no" vs MILP


# (hosts, jobs, slack, cv_mem, cv_cpu, seed): HiGHS proves these in about a second (one is infeasible)
MEDIUM = [(12, 20, 0.2, 0.25, 0.75, 112), (16, 20, 0.2, 0.25, 0.75, 124), (12, 20, 0.2, 0.75, 0.75, 113)]
MEDIUM_SLOW = [(h, j, s, cm, cc, 100 + k) for k, (h, j, s, cm, cc) in enumerate(
    itertools.product((8, 12, 16), (20, 40, 60), (0.2, 0.5), (0.25, 0.75), (0.75,)))]


def _cross_check_medium(hosts, jobs, slack, cv_mem, cv_cpu, seed, milp_time=30.0):
    inst = generate_vc_instance(hosts, jobs, slack, cv_mem, cv_cpu, rng=seed)
    milp = solve_vc_milp(inst, time_limit=milp_time)
    res = run_certify(inst, time_limit=10)
    assert_sound(res, inst)
    if milp.status is Status.INFEASIBLE:
        assert res.status is Status.INFEASIBLE
        return
    assert milp.status.has_solution and res.status.has_solution
    # whatever each proved, the two never contradict each other
    assert res.bound >= milp.objective - 1e-9
    assert milp.bound >= res.objective - 1e-9
    if milp.status is not Status.OPTIMAL:
        return
    load_opt = 1.0 / milp.objective if milp.objective < 1 else 1.0
    items = packing_items(inst)
    # at the optimal load the tasks pack: no bound may say "no"
    assert cheap_bins(items, load_opt * (1 + 1e-9)) <= hosts
    assert not configuration_lp(items, load_opt * (1 + 1e-9)).infeasible
    # every "no" of the tests is below the optimal load
    for factor in (0.9, 0.97, 0.99, 0.999):
        if configuration_lp(items, load_opt * factor).infeasible:
            assert load_opt * factor < load_opt
    assert res.objective <= milp.objective + 1e-9
    if res.status is Status.OPTIMAL:
        assert res.objective == pytest.approx(milp.objective, rel=1e-4)


@pytest.mark.parametrize("case", MEDIUM, ids=str)
def test_packing_no_is_consistent_with_the_milp_on_medium_instances(case):
    _cross_check_medium(*case)


@pytest.mark.slow
@pytest.mark.parametrize("case", MEDIUM_SLOW, ids=str)
def test_packing_no_is_consistent_with_the_milp_on_more_medium_instances(case):
    _cross_check_medium(*case, milp_time=60.0)


# --------------------------------------------------------------------------- property test: every slack, brute force


@st.composite
def random_instances(draw, max_hosts: int = 3, max_jobs: int = 6):
    hosts = draw(st.integers(1, max_hosts))
    jobs = draw(st.integers(1, max_jobs))
    slack = draw(st.sampled_from(SLACKS))
    cv_mem = draw(st.sampled_from((0.25, 0.75)))
    cv_cpu = draw(st.sampled_from((0.25, 0.75)))
    seed = draw(st.integers(0, 2**32 - 1))
    return generate_vc_instance(hosts, jobs, slack, cv_mem, cv_cpu, rng=seed)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(inst=random_instances())
def test_certify_against_brute_force_on_random_instances(inst):
    opt = brute_force_min_yield(inst)
    res = run_certify(inst, time_limit=5)
    assert_sound(res, inst)
    if opt is None:
        assert res.status is Status.INFEASIBLE
        return
    assert res.status.has_solution
    assert res.bound >= opt - 1e-9
    assert res.objective <= opt + 1e-9
    if res.status is Status.OPTIMAL:
        assert res.objective == pytest.approx(opt, rel=1e-4)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(inst=random_instances(max_hosts=3, max_jobs=7))
def test_certify_against_brute_force_on_many_random_instances(inst):
    test_certify_against_brute_force_on_random_instances.hypothesis.inner_test(inst)


# --------------------------------------------------------------------------- infeasibility, parallel jobs


def test_memory_infeasible_slack_01_is_proven_infeasible():
    # the large set at slack 0.1 has instances whose memory alone cannot be packed (the LP says 1.0 on them)
    # the large set's slack 0.1 with the most variable memory has instances whose memory cannot be packed
    found = 0
    for rep in range(2):
        inst = build_instance(VCSpec("large", 64, 100, 0.1, 0.25, 0.25, rep), 0)
        if memory_bins(packing_items(inst)) > inst.hosts:
            res = run_certify(inst, time_limit=5)
            assert res.status is Status.INFEASIBLE and res.extra["closed_by"] == "memory-l2"
            assert res.bound is None and res.solution is None
            found += 1
    assert found >= 1


def test_infeasible_without_any_placement_is_proven_by_the_exact_fallback():
    inst = VCInstance.from_arrays(3, [0.1] * 7, [0.4] * 7)  # L2 says 3 bins, a bin holds 2 items
    res = run_certify(inst)
    assert res.status is Status.INFEASIBLE
    assert res.extra["closed_by"] in ("milp", "memory-configuration-lp")


def test_parallel_jobs_get_a_valid_bound_and_allocation():
    inst = build_instance(VCSpec("parallel", 64, 100, 0.5, 0.25, 0.25, 0, "lublin"), 0)
    res = run_certify(inst, time_limit=3, stop_gap=1e-3)
    assert_sound(res, inst)
    assert res.status.has_solution
    mcb8 = REGISTRY.get("mcb8")(inst)
    assert res.objective >= mcb8.objective - 1e-12
    assert res.bound <= min(1.0, inst.hosts / float(inst.task_cpu.sum())) + 1e-12  # never weaker than the LP


def test_cheap_cpu_bound_carries_its_own_proof():
    inst = generate_vc_instance(3, 7, 0.5, 0.25, 0.75, rng=7)
    items = packing_items(inst)
    lo = 1.0
    L = cpu_load_bound(items, lo, float(inst.task_cpu.sum()))
    if L > lo:
        assert l2_bins(inst.task_cpu, L) > inst.hosts
    opt = brute_force_min_yield(inst)
    assert opt is None or min(1.0, 1.0 / L) >= opt - 1e-12


# --------------------------------------------------------------------------- improvement step


@pytest.mark.parametrize("seed", range(3))
def test_improve_never_gets_worse_and_fits_memory(seed):
    inst = generate_vc_instance(8, 40, 0.4, 0.75, 0.75, rng=seed)
    start = REGISTRY.get("sg")(inst).solution.task_host
    th, stats = improve_placement(inst, start, time_limit=0.5, rng=seed)
    assert np.all(host_memory(inst, th) <= 1 + 1e-12)
    assert host_loads(inst, th).max() <= host_loads(inst, start).max() + 1e-12
    th2, _ = improve_placement(inst, start, time_limit=None, max_kicks=20, lns_hosts=0, rng=seed)
    th3, _ = improve_placement(inst, start, time_limit=None, max_kicks=20, lns_hosts=0, rng=seed)
    assert np.array_equal(th2, th3)  # same seed, same result


def test_improve_refuses_a_placement_that_does_not_fit():
    inst = VCInstance.from_arrays(2, [0.5, 0.5], [0.6, 0.6])
    with pytest.raises(InvalidInputError, match="memory of host 0"):
        improve_placement(inst, np.array([0, 0]))
    with pytest.raises(InvalidInputError, match="2 integers"):
        improve_placement(inst, np.array([0]))


# --------------------------------------------------------------------------- input errors and the command line


def test_bad_arguments_are_clear_errors():
    inst = VCInstance.from_arrays(2, [0.5, 0.5], [0.2, 0.2], current_host=[0, 1], migration_budget=0.1)
    with pytest.raises(InvalidInputError, match="migration budget"):
        certify(inst)
    ok = VCInstance.from_arrays(2, [0.5, 0.5], [0.2, 0.2])
    with pytest.raises(InvalidInputError, match="time_limit"):
        certify(ok, time_limit=-1)
    with pytest.raises(InvalidInputError, match="VCInstance"):
        certify({"hosts": 2})


def test_cli_certify_json_fields(tmp_path, capsys):
    inst = generate_vc_instance(8, 30, 0.3, 0.25, 0.75, rng=5)
    path = tmp_path / "inst.json"
    save_instance(inst, path)
    code = main(["vc", "solve", str(path), "--method", "certify", "--time-limit", "3", "--gap", "0.001",
                 "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    for field in ("method", "status", "min_yield", "bound", "gap", "assignment", "cpu", "extra"):
        assert field in doc
    assert doc["method"] == "certify" and doc["bound"] >= doc["min_yield"]
    assert doc["extra"]["closed_by"] in ("load-bound", "cpu-l2", "l2", "configuration-lp", "none")
    for part in ("seconds_cheap_bounds", "seconds_heuristics", "seconds_improve", "seconds_configuration_lp"):
        assert doc["extra"][part] >= 0
