"""MCB1-MCB8 (seed 001 §3.4): planted optima, binary-search tolerance, list rules, fast path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heuristics.vc import REGISTRY
from heuristics.vc import mcb_pack as mcb_pack_module
from heuristics.vc.mcb import DEFAULT_GRID, DEFAULT_TOL, mcb
from heuristics.vc.mcb_pack import _sorted_lists, mcb_pack
from tests.vc.brute import brute_force_min_yield
from vcsched.problems.vc import VCInstance, check_allocation
from vcsched.result import Status


def planted(hosts: int, max_items: int, rng: np.random.Generator) -> VCInstance:
    """Hosts filled exactly to capacity in CPU and memory: each host's (1, 1) split
    into 1..max_items items (Dirichlet shares), items shuffled. Optimum: yield 1."""
    cpu, mem = [], []
    for _ in range(hosts):
        n = int(rng.integers(1, max_items + 1))
        cpu.extend(rng.dirichlet(np.ones(n)))
        mem.extend(rng.dirichlet(np.ones(n)))
    perm = rng.permutation(len(cpu))
    cpu = np.maximum(np.asarray(cpu)[perm], 1e-9)
    return VCInstance.from_arrays(hosts, cpu, np.asarray(mem)[perm])


@pytest.mark.parametrize("variant", [5, 6, 8])
def test_vcheur_mcb_finds_planted_perfect_packing_with_two_items_per_host(variant):
    """With at most two items per host, the descending variants MCB5, 6, 8 always
    rebuild the planted packing (the complement of the largest item is the only one that fits)."""
    rng = np.random.default_rng(2024 + variant)
    for _ in range(150):
        inst = planted(int(rng.integers(2, 9)), 2, rng)
        res = REGISTRY.get(f"mcb{variant}")(inst)
        assert res.status is Status.FEASIBLE
        assert res.objective == pytest.approx(1.0, abs=1e-9)
        assert check_allocation(inst, res.solution).valid


def test_vcheur_mcb8_finds_most_planted_packings_with_three_items_per_host():
    """MCB8 is a heuristic: with up to three items per host it finds the planted optimum
    in most instances (75% measured on seed 0), never a yield above it."""
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(100):
        inst = planted(5, 3, rng)
        res = mcb(inst, 8)
        assert res.objective is None or res.objective <= 1.0 + 1e-12
        hits += res.success and res.objective > 1 - 1e-9
    assert hits >= 60


def test_vcheur_mcb8_finds_large_planted_packing():
    rng = np.random.default_rng(11)
    inst = planted(64, 2, rng)
    res = REGISTRY.get("mcb8")(inst)
    assert res.objective == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("tol", [1e-2, 1e-3, 1e-4, 1e-6])
@pytest.mark.parametrize("variant", [1, 8])
def test_vcheur_mcb_binary_search_honours_tolerance(tol, variant):
    """Stop when hi - lo <= tol: lo packed, hi failed (or is Y_max), and the result is >= lo."""
    from vcsched.generators.vc import generate_vc_instance

    for seed in range(5):
        inst = generate_vc_instance(8, 30, 0.4, 0.5, 0.5, rng=seed)
        res = mcb(inst, variant, tol=tol)
        assert res.success
        lo, hi = res.extra["y_lo"], res.extra["y_hi"]
        assert hi - lo <= tol
        assert res.objective >= lo - 1e-12
        if hi < res.extra["y_max"]:
            assert mcb_pack(inst.task_cpu * hi, inst.task_mem, inst.hosts, variant) is None
        # halving from Y_max / 2: about log2(Y_max / tol) probes, never many more
        assert res.extra["probes"] <= np.ceil(np.log2(res.extra["y_max"] / tol)) + 2


def test_vcheur_mcb_more_precise_tolerance_takes_more_probes():
    from vcsched.generators.vc import generate_vc_instance

    inst = generate_vc_instance(8, 30, 0.4, 0.5, 0.5, rng=3)
    assert mcb(inst, 8, tol=1e-6).extra["probes"] > mcb(inst, 8, tol=1e-2).extra["probes"]


def test_vcheur_mcb_default_tolerance_is_documented_value():
    assert DEFAULT_TOL == 1e-4


def test_vcheur_mcb_reports_failure_when_nothing_packs():
    inst = VCInstance.from_arrays(1, [0.5, 0.5], [0.6, 0.6])
    for v in range(1, 9):
        res = REGISTRY.get(f"mcb{v}")(inst)
        assert res.status is Status.FAILED
        assert res.solution is None and "no yield" in res.message


def test_vcheur_mcb_rejects_bad_arguments():
    inst = VCInstance.from_arrays(1, [0.5], [0.5])
    with pytest.raises(ValueError, match="`variant`"):
        mcb(inst, 9)
    with pytest.raises(ValueError, match="`tol`"):
        mcb(inst, 8, tol=0)
    with pytest.raises(TypeError, match="`instance`"):
        mcb("inst", 8)


def test_vcheur_mcb_lists_split_and_sort_by_variant_key():
    c = np.array([0.5, 0.2, 0.9, 0.3, 0.4])
    m = np.array([0.1, 0.6, 0.9, 0.35, 0.0])
    # CPU-heavy (c >= m, ties included): 0, 2, 4 ; memory-heavy: 1, 3
    A, B = _sorted_lists(c, m, 8)  # max, descending
    assert A.tolist() == [2, 0, 4] and B.tolist() == [1, 3]
    A, B = _sorted_lists(c, m, 4)  # max, ascending
    assert A.tolist() == [4, 0, 2] and B.tolist() == [3, 1]
    A, B = _sorted_lists(c, m, 1)  # sum ascending
    assert A.tolist() == [4, 0, 2] and B.tolist() == [3, 1]
    A, B = _sorted_lists(c, m, 6)  # max - min descending: 0.4, 0.0, 0.4 -> stable ties
    assert A.tolist() == [0, 4, 2] and B.tolist() == [1, 3]
    A, B = _sorted_lists(c, m, 7)  # max / min descending: 5, 1, inf
    assert A.tolist() == [4, 0, 2] and B.tolist() == [1, 3]


def test_vcheur_mcb_takes_from_the_list_against_the_imbalance():
    """Host 0 takes the CPU-heavy head (0.6, 0.1); free (0.4, 0.9): memory is freer, so
    the memory-heavy list is scanned and (0.3, 0.8) is taken before the CPU-heavy (0.4, 0.05)."""
    c = np.array([0.6, 0.4, 0.3])
    m = np.array([0.1, 0.05, 0.8])
    for v in (5, 8):
        assert mcb_pack(c, m, 2, v).tolist() == [0, 1, 0]


def reference_pack(c, m, hosts, variant):
    """Step 3 of heuristics.vc.mcb's docstring, word for word: no pointers, no bisection, no early abort."""
    heavy_cpu, heavy_mem = (list(x) for x in _sorted_lists(c, m, variant))
    host = np.full(len(c), -1)
    for h in range(hosts):
        rc = rm = 1.0 + 1e-12
        while True:
            first, second = (heavy_cpu, heavy_mem) if rc >= rm else (heavy_mem, heavy_cpu)
            fits = [i for i in first if c[i] <= rc and m[i] <= rm] or [i for i in second if c[i] <= rc and m[i] <= rm]
            if not fits:
                break
            i = fits[0]
            (heavy_cpu if i in heavy_cpu else heavy_mem).remove(i)
            host[i] = h
            rc -= c[i]
            rm -= m[i]
    return None if heavy_cpu or heavy_mem else host


def compiled_pack(c, m, hosts):
    """MCB8 by the compiled fill whatever the number of items (the default compiles from
    ``COMPILED_FROM`` items on)."""
    saved = mcb_pack_module.COMPILED_FROM
    mcb_pack_module.COMPILED_FROM = 0
    try:
        return mcb_pack(c, m, hosts, 8)
    finally:
        mcb_pack_module.COMPILED_FROM = saved


def random_items(seed, items, scale):
    """Sizes with many ties (0.1, 0.25, 0.5) and the rest uniform, times ``scale``."""
    rng = np.random.default_rng(seed)
    c = np.where(rng.random(items) < 0.3, rng.choice([0.1, 0.25, 0.5], items), rng.random(items)) * scale
    m = np.where(rng.random(items) < 0.3, rng.choice([0.1, 0.25, 0.5], items), rng.random(items)) * scale
    return c, m


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), hosts=st.integers(1, 8), items=st.integers(1, 40),
       scale=st.floats(0.05, 1.0))
def test_vcheur_mcb8_fast_path_equals_plain_scan(seed, hosts, items, scale):
    c, m = random_items(seed, items, scale)
    a, b = mcb_pack(c, m, hosts, 8, fast=False), compiled_pack(c, m, hosts)
    assert (a is None) == (b is None)
    if a is not None:
        assert a.tolist() == b.tolist()


@pytest.mark.parametrize("seed", range(6))
def test_vcheur_mcb8_fast_path_equals_plain_scan_on_thousands_of_items(seed):
    """Deep segment trees (up to 4,096 leaves) and many hosts: the same placement as the scan,
    at a yield where the packing succeeds and at one where it fails."""
    rng = np.random.default_rng(seed)
    items = int(rng.integers(500, 3000))
    c, m = random_items(seed, items, 0.3)
    hosts = int(np.ceil(max(c.sum(), m.sum()) * 1.05)) + 1
    for h in (hosts, max(1, hosts // 2)):
        a, b = mcb_pack(c, m, h, 8, fast=False), compiled_pack(c, m, h)
        assert (a is None) == (b is None)
        if a is not None:
            assert a.tolist() == b.tolist()
    assert compiled_pack(c, m, hosts) is not None  # the succeeding case was exercised


@settings(max_examples=150, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), hosts=st.integers(1, 6), items=st.integers(1, 25),
       scale=st.floats(0.05, 1.0), variant=st.integers(1, 8))
def test_vcheur_mcb_packing_equals_word_for_word_reference(seed, hosts, items, scale, variant):
    """Every variant (MCB8 by its fast path) places every item where the literal description does."""
    c, m = random_items(seed, items, scale)
    got, want = mcb_pack(c, m, hosts, variant), reference_pack(c, m, hosts, variant)
    assert (got is None) == (want is None)
    if got is not None:
        assert got.tolist() == want.tolist()


# Two hosts; MCB8 packs these six jobs only for yields in about [0.452, 0.583], while
# Y_max = 0.8696 and the binary search starts at Y_max / 2 = 0.435 (fails) and goes down.
WINDOW_CPU = [0.7, 0.2, 0.2, 0.6, 0.3, 0.3]
WINDOW_MEM = [0.41, 0.28, 0.21, 0.27, 0.49, 0.3]


def test_vcheur_mcb8_packing_window_is_not_monotone():
    c, m = np.array(WINDOW_CPU), np.array(WINDOW_MEM)
    packs = [y for y in np.linspace(0, 0.8696, 200) if mcb_pack(c * y, m, 2, 8) is not None]
    assert packs and 0.44 < min(packs) < 0.46 and 0.57 < max(packs) < 0.59
    for y in (0.0, 0.2, 0.435, 0.6, 0.8):
        assert mcb_pack(c * y, m, 2, 8) is None


def test_vcheur_mcb8_wider_probe_finds_a_window_the_binary_search_misses():
    inst = VCInstance.from_arrays(2, WINDOW_CPU, WINDOW_MEM)
    plain = mcb(inst, 8, grid=0)
    assert plain.status is Status.FAILED and plain.extra["grid_probes"] == 0
    res = mcb(inst, 8)
    assert res.status is Status.FEASIBLE and check_allocation(inst, res.solution).valid
    assert res.extra["grid_probes"] >= 1
    # at least the window's lower end, at most the brute-force optimum
    assert 0.45 <= res.objective <= brute_force_min_yield(inst) + 1e-9
    # the first grid point inside the window packs: Y_max * k / 32 for the largest k below 0.583
    assert res.extra["y_lo"] >= 0.452


def test_vcheur_mcb_wider_probe_never_changes_a_successful_search():
    from vcsched.generators.vc import generate_vc_instance

    for seed in range(10):
        inst = generate_vc_instance(4, 10, 0.4, 0.5, 0.5, rng=seed)
        for v in (1, 8):
            a, b = mcb(inst, v, grid=0), mcb(inst, v)
            if a.extra["y_lo"] > 0:  # the binary search packed something
                assert b.extra["grid_probes"] == 0 and b.objective == a.objective
                assert b.solution.assignment(inst) == a.solution.assignment(inst)


def test_vcheur_mcb_grid_argument():
    assert DEFAULT_GRID == 32
    inst = VCInstance.from_arrays(1, [0.5], [0.5])
    for bad in (-1, 2.5, True, 10**6):
        with pytest.raises(ValueError, match="`grid`"):
            mcb(inst, 8, grid=bad)


@pytest.mark.parametrize("cv_cpu, rep", [(0.25, 9), (0.75, 0)])
def test_vcheur_mcb8_wider_probe_solves_the_two_feasible_small_set_failures(cv_cpu, rep):
    """The two small-set instances (12 jobs, slack 0.1, cv_mem 0.25) where the binary search alone
    fails although the MILP finds a placement: the wider probe finds one, below the optimum."""
    from vcsched.formulations.vc_milp import solve_vc_milp
    from vcsched.generators.vc import VCSpec, build_instance

    inst = build_instance(VCSpec("small", 4, 12, 0.1, 0.25, cv_cpu, rep))
    assert mcb(inst, 8, grid=0).status is Status.FAILED
    res = mcb(inst, 8)
    opt = solve_vc_milp(inst, time_limit=60)
    assert res.status is Status.FEASIBLE and opt.status is Status.OPTIMAL
    assert 0 < res.objective <= opt.objective + 1e-9


def test_vcheur_mcb8_grid_always_finds_a_higher_yield_the_search_stopped_below():
    """Large-set instance (250 jobs, slack 0.2, CVs 0.75, replicate 32): the binary search stops at
    0.446 next to a yield that fails, while 0.486 packs; grid_mode="always" finds the higher one."""
    from vcsched.generators.vc import VCSpec, build_instance

    inst = build_instance(VCSpec("large", 64, 250, 0.2, 0.75, 0.75, 32))
    plain, wide = mcb(inst, 8), mcb(inst, 8, grid_mode="always")
    assert plain.extra["grid_probes"] == 0 and plain.objective == pytest.approx(0.44589, abs=1e-4)
    assert wide.extra["grid_probes"] >= 1 and wide.objective >= 0.48
    assert check_allocation(inst, wide.solution).valid


def test_vcheur_mcb_grid_always_is_never_worse():
    from vcsched.generators.vc import generate_vc_instance

    for seed in range(8):
        inst = generate_vc_instance(8, 30, 0.2, 0.75, 0.75, rng=seed)
        for v in (1, 5, 8):
            a, b = mcb(inst, v), mcb(inst, v, grid_mode="always")
            assert (b.objective or 0.0) >= (a.objective or 0.0) - 1e-12
    with pytest.raises(ValueError, match="`grid_mode`"):
        mcb(inst, 8, grid_mode="sometimes")
