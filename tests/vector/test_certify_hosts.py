"""certify_hosts (max-min yield on typed hosts, d rigid resources) against brute force over every
job-to-host map, and the packing test's proofs."""

from __future__ import annotations

import numpy as np
import pytest

from lowerbounds.vector import certify_hosts
from lowerbounds.vector.host_bounds import fluid_bound, job_fits, per_job_bound, placement_yield
from lowerbounds.vector.typed_lp import TypedPacking, integer_packing, packing_test
from tests.vector.hosts_brute import brute_yield, tiny_instance
from vcsched.errors import InvalidInputError

TOL = 1e-4


def _cases():
    rng = np.random.default_rng(37)
    out = []
    for _ in range(14):
        n, d, hosts = int(rng.integers(4, 9 if len(out) < 3 else 7)), int(rng.integers(2, 4)), int(rng.integers(2, 5))
        out.append(tiny_instance(rng, n, d, 2, hosts))
    return out


CASES = _cases()


def _check(inst, r, bf):
    if bf is None:
        assert r.status == "infeasible"
        return
    assert r.upper >= bf * (1 - 1e-9), "the upper bound must never be below the optimum"
    assert r.lower <= bf * (1 + 1e-9)
    assert placement_yield(*inst, r.placement) == pytest.approx(r.lower, rel=1e-12)
    if r.status == "optimal":
        assert abs(r.lower - bf) <= TOL * r.upper


@pytest.mark.parametrize("i", range(len(CASES)))
@pytest.mark.parametrize("milp_size", [0, 4000], ids=["column-generation", "with-milp"])
def test_certified_values_equal_brute_force(i, milp_size):
    inst = CASES[i]
    bf = brute_yield(*inst)
    r = certify_hosts(*inst, time_limit=120, milp_size=milp_size)  # stops when proven: the limit only guards load
    _check(inst, r, bf)
    assert r.status in ("optimal", "infeasible"), (r.status, r.lower, r.upper, bf)


def test_cheap_bounds_are_valid_on_the_tiny_set():
    for inst in CASES:
        bf = brute_yield(*inst)
        fits = job_fits(inst[1], inst[3])
        fluid = fluid_bound(inst[0], inst[1], fits, inst[2], inst[3], inst[4])
        if bf is None:
            continue
        assert fluid is not None and fluid >= bf * (1 - 1e-9)
        assert per_job_bound(inst[0], fits, inst[2]) >= bf * (1 - 1e-9)


def test_the_packing_test_proves_three_large_items_need_two_bins():
    sizes = np.array([[0.6, 0.1]])
    inst = TypedPacking(sizes, np.array([3]), np.array([[1.0, 1.0], [0.5, 1.0]]), np.array([2, 5]))
    assert packing_test(inst).status == "infeasible"  # the small type holds none, two large hold 2
    inst = TypedPacking(sizes, np.array([3]), np.array([[1.0, 1.0], [0.7, 1.0]]), np.array([2, 1]))
    test = packing_test(inst)
    assert test.status == "relaxed"
    where = integer_packing(inst, test.master, time_limit=5)
    assert where is not None and len({tuple(w) for w in where.tolist()}) == 3


def test_the_type_counts_bind_the_placement():
    # two jobs of cpu 1 and one host type of CPU 1, two copies: yield 1 with one job per host
    r = certify_hosts([1.0, 1.0], [[0.1], [0.1]], [1.0], [[1.0]], [2], milp_size=0)
    assert r.status == "optimal" and r.lower == pytest.approx(1.0)
    # one copy only: both on it, yield 1/2, proven
    r = certify_hosts([1.0, 1.0], [[0.1], [0.1]], [1.0], [[1.0]], [1], milp_size=0)
    assert r.status == "optimal" and r.lower == pytest.approx(0.5) and r.upper == pytest.approx(0.5, rel=TOL)


def test_a_job_that_fits_no_host_type_is_infeasible_and_named():
    r = certify_hosts([0.5, 0.5], [[0.2, 0.9], [0.1, 0.1]], [1.0, 2.0], [[1.0, 0.5], [0.5, 0.8]], [1, 1])
    assert r.status == "infeasible" and "job 0" in r.message


@pytest.mark.parametrize("args, what", [
    (([0.5], [[0.1]], [1.0], [[1.0]], [-1]), "host_count"),
    (([0.5], [[0.1, 0.2]], [1.0], [[1.0]], [1]), "rigid needs"),
    (([-0.5], [[0.1]], [1.0], [[1.0]], [1]), "job_cpu"),
    (([0.5], [[0.1]], [1.0], [[np.nan]], [1]), "host_cap"),
])
def test_bad_input_is_one_line_naming_the_field(args, what):
    with pytest.raises(InvalidInputError, match=what) as err:
        certify_hosts(*args)
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_scale_instance_stays_within_its_time_and_bounds_hold():
    from benchmarks.bench_hosts_certify import generate_hosts

    inst = generate_hosts(10_000, 1000, 4, 3, 37)
    r = certify_hosts(*inst, time_limit=50)
    assert r.seconds <= 55 and r.status in ("optimal", "feasible")
    assert placement_yield(*inst, r.placement) == pytest.approx(r.lower) and r.lower <= r.upper


@pytest.mark.parametrize("seed", range(5))
def test_local_search_never_lowers_the_yield_and_keeps_the_rigid_needs(seed):
    from benchmarks.bench_hosts_certify import generate_hosts
    from lowerbounds.vector.host_bounds import greedy_placement, improve_placement

    inst = generate_hosts(400, 60, 3, 3, seed, rigid_max=0.2)
    start = greedy_placement(*inst)
    better = improve_placement(start, *inst)
    y0, y1 = placement_yield(*inst, start), placement_yield(*inst, better)
    assert y0 is not None and y1 is not None and y1 >= y0
    r = certify_hosts(*inst, time_limit=5, starts=[better])
    assert r.lower >= y1 and r.upper >= r.lower


def _valid_typed_packing(inst, where) -> bool:
    used = {}
    for i, (k, b) in enumerate(where.tolist()):
        used.setdefault((k, b), []).append(i)
    item_type = np.repeat(np.arange(inst.count.size), inst.count)
    for (k, b), items in used.items():
        if b >= inst.avail[k] or np.any(inst.sizes[item_type[items]].sum(axis=0) > inst.caps[k] * (1 + 1e-12)):
            return False
    return True


def test_dive_and_integer_master_return_packings_that_fit_the_typed_bins():
    from lowerbounds.vector.typed_lp import dive_packing

    rng = np.random.default_rng(3)
    packed = 0
    for _ in range(12):
        sizes = rng.uniform(0.1, 0.6, (int(rng.integers(2, 6)), 3)).round(2)
        inst = TypedPacking(sizes, rng.integers(1, 4, sizes.shape[0]), rng.uniform(0.8, 1.2, (2, 3)).round(2),
                            rng.integers(1, 5, 2))
        for use_dive in (True, False):
            test = packing_test(inst)
            where = None
            if test.status == "relaxed":
                where = dive_packing(inst, test.master, deadline=None) if use_dive else \
                    integer_packing(inst, test.master, time_limit=5)
            if where is not None:
                assert _valid_typed_packing(inst, where)
                packed += 1
    assert packed >= 6
