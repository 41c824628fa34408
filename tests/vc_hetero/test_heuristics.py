"""Heterogeneous VCSched heuristics: compiled == plain, 2-D MCB reproduced, valid and <= brute force."""

import numpy as np
import pytest

from heuristics.vc.mcb_pack import mcb_pack
from heuristics.vc_hetero.kernels import greedy_fill, mcb_fill
from heuristics.vc_hetero.methods import HEURISTICS, METHODS, solve
from heuristics.vc_hetero.search import host_fill_order, item_sizes, mcb_lists, type_caps
from tests.vc_hetero.brute import brute_force, tiny_instance
from tests.vc_hetero.plain import plain_greedy, plain_mcb_fill
from vcsched.errors import UnknownNameError
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems.vc_hetero import HeteroInstance, check_hetero, from_vc
from vcsched.result import Status


def _random(rng, *, d, K, hosts, n):
    counts = rng.multinomial(hosts - K, np.ones(K) / K) + 1
    return HeteroInstance(resources=tuple(f"r{k}" for k in range(d)), host_cpu=rng.uniform(0.5, 2.0, K),
                          host_cap=rng.uniform(0.5, 2.0, (K, d)), host_count=counts.astype(np.int64),
                          job_cpu=rng.uniform(0.05, 1.0, n), job_rigid=rng.uniform(0.0, 0.5, (n, d)))


@pytest.mark.parametrize("seed", range(6))
def test_compiled_packings_equal_the_plain_ones(seed):
    rng = np.random.default_rng(seed)
    inst = _random(rng, d=1 + seed % 3, K=1 + seed % 4, hosts=12, n=40)
    y = rng.uniform(0.3, 1.0)
    sizes, caps = item_sizes(inst, y), type_caps(inst)
    hosts = host_fill_order(inst)
    for variant in range(1, 9):
        orders, bounds = mcb_lists(sizes, caps, variant)
        got = mcb_fill(sizes, orders, bounds, inst.host_type[hosts], caps)
        want = plain_mcb_fill(sizes, orders, bounds, inst.host_type[hosts], caps)
        assert got[1] == want[1] and np.array_equal(got[0], want[0])
    order = rng.permutation(inst.n_jobs)
    got = greedy_fill(sizes, order, inst.hosts_cpu, inst.hosts_cap)
    want = plain_greedy(sizes, order, inst.hosts_cpu, inst.hosts_cap)
    assert got[1] == want[1] and np.array_equal(got[0], want[0])


@pytest.mark.parametrize("seed", range(4))
def test_one_type_of_unit_hosts_reproduces_the_2d_mcb_packing(seed):
    inst2 = generate_vc_instance(8, 30, 0.3, 0.5, 0.5, rng=seed)
    inst = from_vc(inst2)
    for y in (0.4, 0.6, 0.8):
        sizes, caps = item_sizes(inst, y), type_caps(inst)
        for variant in range(1, 9):
            orders, bounds = mcb_lists(sizes, caps, variant)
            where, ok = mcb_fill(sizes, orders, bounds, inst.host_type, caps)
            today = mcb_pack(inst2.task_cpu * y, inst2.task_mem, inst2.hosts, variant)
            assert ok == (today is not None)
            if ok:
                assert np.array_equal(where, today)


@pytest.mark.parametrize("seed", range(6))
def test_every_heuristic_passes_the_checker_and_never_beats_brute_force(seed):
    inst = tiny_instance(np.random.default_rng(100 + seed), d=2 + seed % 2, n=6 + seed % 3)
    best, _ = brute_force(inst)
    for name in HEURISTICS:
        r = solve(inst, name)
        if best is None:
            assert r.status is Status.FAILED and r.message
            continue
        assert r.status in (Status.FEASIBLE, Status.FAILED), (name, r.message)
        if r.success:
            assert check_hetero(inst, r.solution).valid
            assert r.objective <= best + 1e-9


def test_a_heuristic_without_room_says_it_failed():
    inst = HeteroInstance(("mem",), np.ones(1), np.ones((1, 1)), np.array([2]), np.ones(3), np.full((3, 1), 0.6))
    for name in ("mcb8", "gr", "vp-ff-sum", "vp-meta"):
        r = solve(inst, name)
        assert r.status is Status.FAILED and r.message


def test_unknown_method_is_refused():
    inst = tiny_instance(np.random.default_rng(0), d=2, n=4)
    with pytest.raises(UnknownNameError):
        solve(inst, "mcb9")
    assert set(HEURISTICS) < set(METHODS) and "certify" in METHODS


@pytest.mark.parametrize("seed", range(5))
def test_certify_through_the_table_equals_brute_force(seed):
    inst = tiny_instance(np.random.default_rng(200 + seed), d=2 + seed % 2, n=5 + seed % 3)
    best, _ = brute_force(inst)
    r = solve(inst, "certify", time_limit=60.0)
    if best is None:
        assert r.status is Status.INFEASIBLE
        return
    assert r.status is Status.OPTIMAL, r.message
    assert r.objective == pytest.approx(best, abs=1e-6) and r.bound >= best - 1e-7
    assert check_hetero(inst, r.solution).valid
