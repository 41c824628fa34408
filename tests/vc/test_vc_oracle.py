"""VCSched's vectorised rules against the plain oracle of ``tests/vc/plain_oracle.py``, over random instances.

The oracle writes the placement rules (host loads, best minimum yield of a placement, the
average-yield phase, the checker) and MCB's sort literally on lists; ``vcsched.problems.vc``
and ``heuristics.vc.mcb`` are the production forms. Each pair must give the same numbers
to the last bit (same status, allocation, yields, messages), including failures, invalid
allocations and multi-task jobs wherever the oracle applies.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heuristics.vc import mcb_pack as mcb_pack_module
from heuristics.vc.greedy import _task_order
from heuristics.vc.mcb import mcb
from heuristics.vc.mcb_pack import MCB_VARIANTS, _sorted_lists, mcb_pack
from tests.vc.plain_oracle import (
    mcb_plain,
    pack_plain,
    plain_allocation_from_placement,
    plain_check_allocation,
    plain_greedy_placement,
    plain_placement_min_yield,
    sorted_positions,
)
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems import vc_greedy as vc_greedy_module
from vcsched.problems.vc import (
    MIN_CPU,
    Allocation,
    VCInstance,
    allocation_from_placement,
    check_allocation,
    parse_instance,
    placement_min_yield,
)
from vcsched.problems.vc_greedy import least_loaded_placement
from vcsched.result import Result, Status

TIES = [MIN_CPU, 0.1, 0.25, 0.5, 1.0]


def random_doc(seed: int, *, max_tasks: int = 1, hosts: int | None = None) -> dict:
    """A random instance document: ties among the needs (30 %), memory scaled so that some
    instances do not pack, up to ``max_tasks`` tasks per job."""
    rng = np.random.default_rng(seed)
    H = int(rng.integers(1, 7)) if hosts is None else hosts
    J = int(rng.integers(1, 15))
    mem_scale = float(rng.uniform(0.05, 1.5))
    jobs = []
    for _ in range(J):
        cpu = float(rng.choice(TIES)) if rng.random() < 0.3 else float(rng.uniform(MIN_CPU, 1.0))
        mem = float(rng.choice([0.0] + TIES[1:])) if rng.random() < 0.3 else float(min(1.0, rng.random() * mem_scale))
        job = {"cpu": cpu, "mem": mem}
        if max_tasks > 1:
            job["tasks"] = int(rng.integers(1, max_tasks + 1))
        jobs.append(job)
    return {"hosts": H, "jobs": jobs}


def assert_same_result(a: Result, b: Result) -> None:
    """Same result but the timings; ``a`` from production, ``b`` from the oracle."""
    assert (a.method, a.status, a.objective, a.bound, a.gap, a.message) == \
           (b.method, b.status, b.objective, b.bound, b.gap, b.message)
    assert set(a.extra) == set(b.extra)
    untimed = [k for k in a.extra if not k.startswith("seconds")]
    assert {k: a.extra[k] for k in untimed} == {k: b.extra[k] for k in untimed}
    if a.solution is None:
        assert b.solution is None
    else:
        assert a.solution.task_host.tolist() == list(b.solution.task_host)
        assert a.solution.task_cpu.tolist() == list(b.solution.task_cpu)


@settings(max_examples=250, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), grid_mode=st.sampled_from(["failure", "always"]))
def test_mcb_plain_equals_mcb_for_every_variant(seed, grid_mode):
    inst = parse_instance(random_doc(seed))
    for variant in MCB_VARIANTS:
        assert_same_result(mcb(inst, variant, grid_mode=grid_mode), mcb_plain(inst, variant, grid_mode=grid_mode))


def test_the_random_instances_include_failures_and_successes():
    """The generator of the property test reaches both outcomes (so failures are compared too)."""
    statuses = {mcb(parse_instance(random_doc(seed)), 8).status for seed in range(200)}
    assert statuses == {Status.FEASIBLE, Status.FAILED}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), y=st.sampled_from([0.0, 1e-9, 0.3, 0.77, 1.0]))
def test_plain_sort_equals_numpy_sort_with_ties_and_repeated_tasks(seed, y):
    """Items of multi-task jobs (repeated sizes), tied and zero sizes: same two lists, same order."""
    inst = parse_instance(random_doc(seed, max_tasks=4))
    c = [a * y for a in inst.task_cpu.tolist()]
    m = inst.task_mem.tolist()
    for variant in MCB_VARIANTS:
        A, B = _sorted_lists(np.asarray(c), np.asarray(m), variant)
        assert sorted_positions(c, m, variant) == (A.tolist(), B.tolist())


def test_plain_sort_equals_numpy_sort_on_long_lists_with_many_ties():
    rng = np.random.default_rng(3)
    n = 5_017
    c = np.where(rng.random(n) < 0.4, rng.choice([0.1, 0.25, 0.5], n), rng.random(n))
    m = np.where(rng.random(n) < 0.4, rng.choice([0.0, 0.1, 0.25], n), rng.random(n))
    for variant in MCB_VARIANTS:
        A, B = _sorted_lists(c, m, variant)
        assert sorted_positions(c.tolist(), m.tolist(), variant) == (A.tolist(), B.tolist())


@contextlib.contextmanager
def _compiled_from(module, size: int):
    """``module``'s compiled path from ``size`` items or tasks on (its default is ``module.COMPILED_FROM``)."""
    saved = module.COMPILED_FROM
    module.COMPILED_FROM = size
    try:
        yield
    finally:
        module.COMPILED_FROM = saved


def compiled_from(items):
    """MCB8 by the compiled fill from ``items`` items on."""
    return _compiled_from(mcb_pack_module, items)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_packing_of_multi_task_items_is_the_same_through_arrays_and_lists(seed):
    """mcb_pack (arrays in, array out) and the oracle's forward scan place every task alike,
    MCB8 with and without its compiled search."""
    inst = parse_instance(random_doc(seed, max_tasks=3))
    c = [a * 0.6 for a in inst.task_cpu.tolist()]
    mem = inst.task_mem.tolist()
    for variant, fast in [(v, True) for v in MCB_VARIANTS] + [(8, False)]:
        with compiled_from(0):
            placed = mcb_pack(np.asarray(c), np.asarray(mem), inst.hosts, variant, fast=fast)
        lists = pack_plain(c, mem, inst.hosts, variant)
        assert (placed is None) == (lists is None)
        if lists is not None:
            assert placed.tolist() == lists


def random_placement(rng: np.random.Generator, inst: VCInstance) -> np.ndarray:
    return rng.integers(0, inst.hosts, size=inst.n_tasks).astype(np.int64)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_placement_min_yield_plain_equals_numpy(seed):
    inst = parse_instance(random_doc(seed, max_tasks=3))
    th = random_placement(np.random.default_rng(seed), inst)
    assert plain_placement_min_yield(inst.hosts, th.tolist(), inst.task_cpu.tolist()) == placement_min_yield(inst, th)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), given_y=st.sampled_from([None, -0.5, 0.0, 0.4, 0.9, 2.0]))
def test_average_yield_phase_plain_equals_numpy(seed, given_y):
    """Random placements of one-task jobs (overloaded hosts included), the yield given or not."""
    inst = parse_instance(random_doc(seed))
    th = random_placement(np.random.default_rng(seed), inst)
    a = allocation_from_placement(inst, th, given_y)
    b = plain_allocation_from_placement(inst, th.tolist(), given_y)
    assert a.task_host.tolist() == th.tolist()
    assert a.task_cpu.tolist() == b
    assert plain_check_allocation(inst, th.tolist(), b).valid == check_allocation(inst, a).valid


def perturbed(rng: np.random.Generator, inst: VCInstance) -> Allocation:
    """A feasible-looking allocation broken in one random way (or not at all)."""
    th = random_placement(rng, inst)
    cpu = inst.task_cpu * rng.uniform(0.0, 1.0)
    kind = rng.integers(0, 7)
    if kind == 1:  # too much CPU for some task (over alpha, maybe over a host)
        cpu[rng.integers(inst.n_tasks)] += rng.uniform(0.0, 1.5)
    elif kind == 2:  # unequal CPU among tasks of one job (when it has several)
        cpu = cpu * rng.uniform(0.5, 1.0, size=inst.n_tasks)
    elif kind == 3:  # everything on one host: memory and CPU overflow
        th[:] = 0
    elif kind == 4:  # a host outside 0..H-1
        th[rng.integers(inst.n_tasks)] = inst.hosts + int(rng.integers(0, 3))
    elif kind == 5:  # a negative CPU
        cpu[rng.integers(inst.n_tasks)] = -rng.uniform(1e-6, 0.1)
    elif kind == 6:  # a task missing
        th, cpu = th[:-1], cpu[:-1]
    return Allocation(th, cpu)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_checker_plain_equals_numpy_on_valid_and_broken_allocations(seed):
    rng = np.random.default_rng(seed)
    inst = parse_instance(random_doc(seed, max_tasks=3))
    alloc = perturbed(rng, inst)
    a = check_allocation(inst, alloc)
    b = plain_check_allocation(inst, alloc.task_host.tolist(), alloc.task_cpu.tolist())
    assert (a.valid, a.violations, a.min_yield, a.avg_yield) == (b.valid, b.violations, b.min_yield, b.avg_yield)
    assert (a.job_yield is None) == (b.job_yield is None)
    if a.job_yield is not None:
        assert a.job_yield.tolist() == b.job_yield


def test_checker_refuses_non_integer_hosts_and_non_finite_cpu():
    inst = parse_instance({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.2}, {"cpu": 0.5, "mem": 0.2}]})
    for check in (lambda h, c: check_allocation(inst, Allocation(np.asarray(h), np.asarray(c))),
                  lambda h, c: plain_check_allocation(inst, h, c)):
        assert check([0, 1.0], [0.5, 0.5]).violations == ("task_host must be integers",)
        assert check([0, 1], [0.5, float("nan")]).violations == ("non-finite CPU fraction",)
        report = check([0, 1], [0.5, 0.25])
        assert report.valid and report.min_yield == 0.5 and report.avg_yield == 0.75
        assert list(report.job_yield) == [1.0, 0.5]


def test_allocation_per_job_views():
    inst = parse_instance({"hosts": 3, "jobs": [{"cpu": 0.5, "mem": 0.1, "tasks": 3}, {"cpu": 0.2, "mem": 0.1}]})
    arrays = Allocation(np.array([0, 2, 1, 1]), np.array([0.25, 0.25, 0.25, 0.2]))
    assert arrays.assignment(inst) == [[0, 2, 1], 1]
    assert arrays.cpu(inst) == [[0.25, 0.25, 0.25], 0.2]
    assert all(type(h) is int for h in arrays.assignment(inst)[0])


def test_parse_instance_fields():
    doc = {"hosts": 3, "jobs": [{"cpu": 0.5, "mem": 0.1, "tasks": 2, "current_host": [0, 2]},
                                {"cpu": 1, "mem": 0, "current_host": 1}], "migration_budget": 0.5}
    inst = parse_instance(doc)
    assert (inst.hosts, inst.cpu.tolist(), inst.mem.tolist(), inst.tasks.tolist()) == (3, [0.5, 1.0], [0.1, 0.0], [2, 1])
    assert inst.current_host == ((0, 2), 1)
    assert inst.migration_budget == 0.5
    assert inst.task_cpu.tolist() == [0.5, 0.5, 1.0] and inst.n_tasks == 3
    assert inst.cpu.dtype == float and inst.tasks.dtype == np.int64


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), order_kind=st.sampled_from(["index", "memory", "random"]))
def test_greedy_placement_equals_the_plain_scan(seed, order_kind):
    """GR/SG's two-heap placement gives the plain scan's hosts and its attempt count (GB's unit)."""
    inst = parse_instance(random_doc(seed, max_tasks=3))
    if order_kind == "random":
        order = np.random.default_rng(seed).permutation(inst.n_tasks)
    else:
        order = _task_order(inst, sort_by_memory=order_kind == "memory")
    fast, fast_attempts = least_loaded_placement(inst, order)
    plain, plain_attempts = plain_greedy_placement(inst, order)
    assert fast_attempts == plain_attempts
    assert (fast is None and plain is None) or fast.tolist() == list(plain)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), order_kind=st.sampled_from(["index", "memory", "random"]))
def test_compiled_greedy_placement_equals_the_plain_scan(seed, order_kind):
    """The compiled walk (forced from 0 tasks) gives the plain scan's hosts and attempt count,
    failures included (``test_greedy_placement_instances_include_failures_and_blocked_hosts``)."""
    inst = parse_instance(random_doc(seed, max_tasks=3))
    order = (np.random.default_rng(seed).permutation(inst.n_tasks) if order_kind == "random"
             else _task_order(inst, sort_by_memory=order_kind == "memory"))
    with _compiled_from(vc_greedy_module, 0):
        fast, fast_attempts = least_loaded_placement(inst, order)
    plain, plain_attempts = plain_greedy_placement(inst, order)
    assert fast_attempts == plain_attempts
    assert (fast is None and plain is None) or fast.tolist() == list(plain)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("order_kind", ["index", "memory", "random", "cpu"])
def test_compiled_greedy_placement_equals_the_heaps_on_large_instances(seed, order_kind):
    """On 3,000 tasks with memory nearly full (hosts blocked and released many times over), the
    compiled walk gives the Python heaps' placement and attempt count."""
    inst = generate_vc_instance(100, 3000, 0.05, 1.0, 0.5, rng=seed)
    order = {"index": np.arange(inst.n_tasks), "memory": _task_order(inst, sort_by_memory=True),
             "random": np.random.default_rng(seed).permutation(inst.n_tasks),
             "cpu": np.argsort(-inst.task_cpu, kind="stable")}[order_kind]
    with _compiled_from(vc_greedy_module, 0):
        fast, fast_attempts = least_loaded_placement(inst, order)
    with _compiled_from(vc_greedy_module, 10**9):
        heaps, heaps_attempts = least_loaded_placement(inst, order)
    assert fast_attempts == heaps_attempts > inst.n_tasks  # some hosts were skipped
    assert (fast is None and heaps is None) or fast.tolist() == heaps.tolist()


def test_greedy_placement_instances_include_failures_and_blocked_hosts():
    outcomes = set()
    for seed in range(200):
        inst = parse_instance(random_doc(seed, max_tasks=3))
        order = _task_order(inst, sort_by_memory=True)
        plain, attempts = plain_greedy_placement(inst, order)
        outcomes.add("failed" if plain is None else ("skipped" if attempts > inst.n_tasks else "direct"))
    assert outcomes == {"failed", "skipped", "direct"}
