"""The restricted integer master (price-and-branch) of certify: exact on the full configuration
model (brute force), sound inside certify, what closes the gap when the improvement step is off,
and within the time limit."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.vc.certification import CertifyOptions, certify
from lowerbounds.vc.integer_master import (
    fitting_columns,
    placement_from_configurations,
    solve_integer_master,
)
from lowerbounds.vc.packing import CAP_TOL, configuration_lp, packing_items, singleton_counts
from tests.vc.brute import all_placements, brute_force_min_yield
from tests.vc.test_vc_certify import assert_sound, random_instances
from tests.vc.test_vc_certify_scale import _all_configurations
from vcsched.generators.vc import VCSpec, build_instance, generate_vc_instance
from vcsched.problems.vc import VCInstance, check_allocation, host_loads, host_memory
from vcsched.result import Status


def brute_force_peak(inst: VCInstance) -> float | None:
    """Smallest largest host load over every placement that fits memory (None if none fits)."""
    best = None
    for th in all_placements(inst):
        if np.all(host_memory(inst, th) <= 1 + 1e-12):
            peak = float(host_loads(inst, th).max())
            best = peak if best is None else min(best, peak)
    return best


def _columns(configs: np.ndarray):
    return [(np.flatnonzero(a), a[np.flatnonzero(a)]) for a in configs]


def worst_start(inst: VCInstance, seed: int = 0) -> np.ndarray | None:
    """The most loaded of 300 random placements that fit memory: a weak start."""
    rng = np.random.default_rng(seed)
    best = None
    for _ in range(300):
        th = rng.integers(0, inst.hosts, inst.n_tasks)
        if np.all(host_memory(inst, th) <= 1):
            if best is None or host_loads(inst, th).max() > host_loads(inst, best).max():
                best = th
    return best


def tiny_instance_with_optimum(seed: int, *, hosts: tuple[int, int], jobs: tuple[int, int]):
    """A tiny random instance (host and job counts drawn in the half-open ranges) and its optimal
    largest load by brute force; skips the test when no placement fits memory."""
    rng = np.random.default_rng(seed)
    inst = generate_vc_instance(int(rng.integers(*hosts)), int(rng.integers(*jobs)), 0.5, 0.75, 0.75, rng=seed)
    opt = brute_force_peak(inst)
    if opt is None:
        pytest.skip("no placement fits memory")
    return inst, opt


# --------------------------------------------------------------------------- the model itself


@pytest.mark.parametrize("seed", range(12))
def test_integer_master_on_all_configurations_is_exact(seed):
    """With every configuration as a column the integer master is the packing problem itself: it
    finds a placement at the brute-force optimal load and none just below it."""
    inst, opt = tiny_instance_with_optimum(seed, hosts=(1, 4), jobs=(2, 6))
    items = packing_items(inst)
    at = solve_integer_master(items, opt, _columns(_all_configurations(items, opt)), time_limit=5)
    assert at.status == "found"
    th = placement_from_configurations(inst, at.columns, at.counts)
    assert th is not None
    assert np.all(host_memory(inst, th) <= 1 + 1e-12)
    assert host_loads(inst, th).max() <= opt * (1 + 1e-12)
    below = opt * (1 - 1e-6)
    under = solve_integer_master(items, below, _columns(_all_configurations(items, below)), time_limit=5)
    assert under.status == "infeasible" and under.counts is None


def test_placement_from_configurations_drops_surplus_copies():
    inst = VCInstance.from_arrays(hosts=3, cpu=[0.5, 0.3], mem=[0.2, 0.1], tasks=[2, 3])
    columns = [(np.array([0, 1]), np.array([2.0, 2.0])), (np.array([1]), np.array([3.0]))]
    th = placement_from_configurations(inst, columns, np.array([1, 1]))
    # host 0 takes both tasks of job 0 and two of job 1; host 1 the third task of job 1 (two slots unused)
    assert th.tolist() == [0, 0, 0, 0, 1]
    assert placement_from_configurations(inst, columns, np.array([0, 1])) is None  # job 0 not placed
    assert placement_from_configurations(inst, columns, np.array([4, 0])) is None  # more than H hosts


def test_fitting_columns_use_the_checker_tolerance_and_drop_duplicates():
    items = packing_items(VCInstance.from_arrays(hosts=2, cpu=[0.5, 0.4], mem=[0.5, 0.5], tasks=[1, 1]))
    pair = (np.array([0, 1]), np.array([1.0, 1.0]))  # CPU 0.9, memory 1.0 exactly: fits (0.9, 1)
    cols = fitting_columns(items, 0.9, [pair, pair, (np.array([1, 0]), np.array([1.0, 1.0]))])
    assert len(cols) == 3  # two singletons and one pair (the permuted duplicate dropped)
    # inside the LP's enlarged bins (CAP_TOL) but above the checker's: dropped
    assert len(fitting_columns(items, 0.9 / (1 + CAP_TOL / 2), [pair])) == 2
    tight = packing_items(VCInstance.from_arrays(hosts=2, cpu=[0.5, 0.4], mem=[0.5, 0.5 + CAP_TOL / 4], tasks=[1, 1]))
    assert len(fitting_columns(tight, 0.9, [pair])) == 2


@pytest.mark.parametrize("seed", range(5))
def test_fitting_columns_equal_a_plain_filter(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))
    items = packing_items(VCInstance.from_arrays(hosts=4, cpu=rng.uniform(0.1, 0.6, n), mem=rng.uniform(0.05, 0.5, n),
                                                 tasks=rng.integers(1, 4, n)))
    load = float(rng.uniform(0.8, 1.5))
    pool = []
    for _ in range(60):
        idx = np.sort(rng.choice(n, int(rng.integers(1, 4)), replace=False))
        pool.append((idx, rng.integers(1, 3, idx.size).astype(float)))
    got = fitting_columns(items, load, pool)
    want = set()
    singles = singleton_counts(items.cpu, items.mem, items.demand, load)
    for idx, val in [(np.array([i]), singles[i:i + 1]) for i in range(n)] + pool:
        if val @ items.cpu[idx] <= load * (1 + 1e-12) and val @ items.mem[idx] <= 1 + 1e-12:
            want.add(tuple(zip(idx.tolist(), val.tolist())))
    kept = [tuple(zip(got[p][0].tolist(), got[p][1].tolist())) for p in range(len(got))]
    assert len(kept) == len(set(kept)) and set(kept) == want


def test_configuration_lp_keeps_the_generated_columns_and_they_fit():
    inst = generate_vc_instance(6, 18, 0.4, 0.75, 0.75, rng=4)
    items = packing_items(inst)
    load = float(inst.task_cpu.sum()) / inst.hosts * 1.05
    proof = configuration_lp(items, load, keep_columns=True)
    assert proof.generated and len(proof.generated) <= proof.columns - items.cpu.size
    for idx, val in proof.generated:
        assert val @ items.cpu[idx] <= load * (1 + CAP_TOL) + 1e-12
        assert val @ items.mem[idx] <= 1 + CAP_TOL + 1e-12
        assert np.all(val <= items.demand[idx])
    assert configuration_lp(items, load).generated == ()


@pytest.mark.parametrize("seed", range(6))
def test_local_search_columns_fit_and_are_local_optima(seed):
    """The cheap pricing's descent: every column fits ``(load, 1)`` and the demands, is worth at
    least the greedy column it started from, and no single added copy improves it."""
    from lowerbounds.vc.packing import _greedy_columns, _local_search, _Prices

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    cpu, mem = rng.uniform(0.05, 0.6, n), rng.uniform(0.05, 0.5, n)
    demand, pi, load = rng.integers(1, 4, n).astype(float), rng.uniform(0, 1, n) * (rng.random(n) < 0.8), 1.0
    prices = _Prices(pi, cpu, mem, demand, load)
    for start in _greedy_columns(pi, cpu, mem, demand, load)[:9]:
        idx, val = _local_search(prices, start)
        assert val @ cpu[idx] <= load * (1 + 1e-9) and val @ mem[idx] <= 1 + 1e-9
        assert np.all(val <= demand[idx]) and np.all(val >= 1) and np.all(pi[idx] > 0)
        assert pi[idx] @ val >= pi[start[0]] @ start[1] - 1e-12
        a = np.zeros(n)
        a[idx] = val
        room_c, room_m = load - a @ cpu, 1 - a @ mem
        addable = (pi > 0) & (a < demand) & (cpu <= room_c + 1e-12) & (mem <= room_m + 1e-12)
        assert not addable.any()


def test_local_search_at_scale_uses_the_most_valuable_types_only(monkeypatch):
    """Above _SEARCH_TYPES types the descent works on a subset; its column is the same as the full
    search's when the subset holds every type that fits (here: all types beyond it are worthless)."""
    import lowerbounds.vc.packing as vp

    rng = np.random.default_rng(3)
    n = 60
    cpu, mem = rng.uniform(0.05, 0.6, n), rng.uniform(0.05, 0.5, n)
    demand, load = rng.integers(1, 3, n).astype(float), 1.0
    pi = np.where(np.arange(n) < 20, rng.uniform(0.2, 1, n), 0.0)  # only the first 20 types are worth anything
    prices = vp._Prices(pi, cpu, mem, demand, load)
    start = vp._greedy_columns(pi, cpu, mem, demand, load)[0]
    full = vp._local_search(prices, start)
    monkeypatch.setattr(vp, "_SEARCH_TYPES", 40)  # 2 x 20 candidates: every valuable type
    small = vp._local_search(prices, start)
    assert full[0].tolist() == small[0].tolist() and full[1].tolist() == small[1].tolist()


# --------------------------------------------------------------------------- inside certify


@st.composite
def packing_instances(draw):
    """2-4 hosts, 4-8 one-task jobs: big enough that the cheap bounds rarely close at once."""
    return generate_vc_instance(draw(st.integers(2, 4)), draw(st.integers(4, 8)), draw(st.sampled_from((0.3, 0.5, 0.7))),
                                draw(st.sampled_from((0.25, 0.75))), 0.75, rng=draw(st.integers(0, 2**32 - 1)))


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(inst=st.one_of(random_instances(), packing_instances()))
def test_certify_with_the_integer_master_against_brute_force(inst):
    """No improvement step, a weak start: the allocations come from the integer master; the
    bound stays above the true optimum and every allocation is valid."""
    opt = brute_force_min_yield(inst)
    start = worst_start(inst)
    res = certify(inst, starts=[] if start is None else [start], improve=None, time_limit=5, stop_gap=1e-3)
    assert_sound(res, inst)
    if opt is None:
        assert res.status is Status.INFEASIBLE
        return
    assert res.bound >= opt - 1e-9
    assert res.objective <= opt + 1e-9


@pytest.mark.parametrize("hosts,jobs,slack,seed", [(6, 15, 0.5, 3), (8, 20, 0.5, 5)])
def test_the_integer_master_or_the_dive_closes_what_the_start_leaves_open(hosts, jobs, slack, seed):
    """Improvement off, no heuristic, a weak start: with the integer master alone, or the dive
    alone (the default), the gap closes to 0.1 % and the allocation is theirs; with neither, it
    stays open."""
    inst = generate_vc_instance(hosts, jobs, slack, 0.75, 0.75, rng=seed)
    start = worst_start(inst)
    kw = dict(starts=[start], improve=None, time_limit=20, stop_gap=1e-3)
    closers = ("configuration-lp", "l2", "load-bound", "cpu-l2")
    master = certify(inst, **kw, options=CertifyOptions(integer_master_share=0.1, dive_share=0.0))
    assert master.extra["closed_by"] in closers and master.gap <= 1e-3
    assert master.extra["incumbent_method"] == "integer-master"
    assert master.extra["integer_master"]["found"] >= 1 and master.extra["seconds_integer_master"] > 0
    assert check_allocation(inst, master.solution).valid
    dive = certify(inst, **kw)
    assert dive.extra["closed_by"] in closers and dive.gap <= 1e-3
    assert dive.extra["incumbent_method"] == "dive" and dive.extra["dive"]["found"] >= 1
    assert "integer_master" not in dive.extra and dive.extra["seconds_dive"] > 0
    assert check_allocation(inst, dive.solution).valid
    off = certify(inst, **kw, options=CertifyOptions(integer_master_share=0.0, dive_share=0.0))
    assert off.extra["closed_by"] == "none" and off.gap > 1e-3
    assert "integer_master" not in off.extra and "dive" not in off.extra and off.extra["seconds_dive"] == 0.0


@pytest.mark.parametrize("case", ["integer-master", "dive", "large-64x250"])
def test_certify_honours_a_short_time_limit_on_a_mid_size_open_instance(case):
    """16 x 48 from a weak start: the integer master (some runs stop at their limit), or the dive,
    runs; 64 x 250 (slack 0.2) of the large set: the LP tests are cut short. All end within the
    limit + 1 s of the clock certify is given."""
    if case == "large-64x250":
        inst = build_instance(VCSpec("large", 64, 250, 0.2, 0.75, 0.75, 1, None), 0)
    else:
        inst = generate_vc_instance(16, 48, 0.5, 0.75, 0.75, rng=1)
    # on the process's CPU clock (CertifyOptions.now): on a loaded machine 2 s of wall time may hold too little
    # CPU for the LP tests to leave the dive its turn; the limit is honoured on whichever clock certify reads
    clock = time.process_time
    options = CertifyOptions(integer_master_share=0.1 if case == "integer-master" else CertifyOptions.integer_master_share,
                             dive_share=0.0 if case == "integer-master" else CertifyOptions.dive_share, now=clock)
    start = worst_start(inst)
    t0 = clock()
    res = certify(inst, starts=[start], improve=None, time_limit=2.0, stop_gap=1e-4, options=options)
    elapsed = clock() - t0
    assert res.status.has_solution and check_allocation(inst, res.solution).valid
    assert elapsed <= 2.0 + 1.0
    if case == "integer-master":
        assert res.extra["integer_master"]["tests"] >= 1
    if case == "dive":
        assert res.extra["dive"]["tries"] >= 1


def test_integer_master_honours_its_time_limit():
    inst = build_instance(VCSpec("large", 64, 250, 0.2, 0.75, 0.75, 1, None), 0)
    items = packing_items(inst)
    load = float(inst.task_cpu.sum()) / inst.hosts * 1.001
    proof = configuration_lp(items, load, keep_columns=True, deadline=time.perf_counter() + 1.0)
    t0 = time.perf_counter()
    im = solve_integer_master(items, load, proof.generated, time_limit=0.3)
    assert time.perf_counter() - t0 <= 0.3 + 0.5
    assert im.status in ("found", "infeasible", "time_limit")


def test_bad_integer_master_share_is_a_clear_error():
    from vcsched.errors import InvalidInputError

    inst = generate_vc_instance(2, 3, 0.5, 0.25, 0.25, rng=0)
    with pytest.raises(InvalidInputError, match="integer_master_share"):
        certify(inst, options=CertifyOptions(integer_master_share=1.5))


def _triplet_instance(seed: int, hosts: int = 12) -> VCInstance:
    """Memory of three tasks per host summing exactly to 1 (Falkenauer's triplets), shuffled: a
    perfect packing exists, and first-fit-like heuristics miss it; CPU heavy enough that the
    yield is below 1."""
    rng = np.random.default_rng(seed)
    mem = []
    for _ in range(hosts):
        a = rng.uniform(0.25, 0.5)
        b = rng.uniform(0.25, min(0.5, 0.75 - a))
        mem += [a, b, 1.0 - a - b]
    mem = np.array(mem)[rng.permutation(3 * hosts)]
    return VCInstance(hosts, rng.uniform(0.3, 0.6, mem.size), mem, np.ones(mem.size, dtype=int))


@pytest.mark.parametrize("seed", range(6))
def test_memory_packing_places_what_no_heuristic_can(seed):
    """The heuristics and the core greedy find no placement; the configuration LP on memory and
    the integer master over its columns do, and the rest of certify improves and bounds it."""
    from heuristics.vc import REGISTRY
    from heuristics.vc.improve import improve_placement
    from vcsched.formulations.vc_starts import load_balancing_incumbent

    inst = _triplet_instance(seed)
    assert not any(REGISTRY.get(m)(inst).status.has_solution for m in ("mcb8", "sg", "gr"))
    assert load_balancing_incumbent(inst) is None
    res = certify(inst, heuristics=[REGISTRY.get("mcb8")], improve=improve_placement, time_limit=10, rng=seed)
    assert res.extra["start_method"] == "integer-master"
    assert res.status in (Status.OPTIMAL, Status.FEASIBLE)
    report = check_allocation(inst, res.solution)
    assert report.valid and report.min_yield == pytest.approx(res.objective)
    assert res.objective <= res.bound + 1e-12 and res.bound <= 1.0
