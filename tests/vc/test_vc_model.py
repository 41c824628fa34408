"""VCSched model: checker, average-yield phase, generators, JSON files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.vc.reference_lp import average_yield_lp
from vcsched.errors import InvalidInputError
from vcsched.generators.lublin import lublin_sizes
from vcsched.generators.vc import build_instance, generate_vc_instance, instance_set_specs
from vcsched.problems.vc import (
    Allocation,
    VCInstance,
    allocation_from_placement,
    check_allocation,
    instance_to_dict,
    load_instance,
    maximize_average_yield,
    parse_instance,
    placement_min_yield,
    save_instance,
)

# ----------------------------------------------------------------- checker


def test_checker_accepts_a_valid_allocation_and_computes_yields():
    inst = VCInstance.from_arrays(2, [0.6, 0.6, 0.6], [0.2, 0.2, 0.2])
    alloc = Allocation(np.array([0, 0, 1]), np.array([0.5, 0.5, 0.6]))
    rep = check_allocation(inst, alloc)
    assert rep.valid
    assert rep.min_yield == pytest.approx(0.5 / 0.6)
    assert rep.avg_yield == pytest.approx((0.5 / 0.6 * 2 + 1) / 3)


@pytest.mark.parametrize(
    "hosts, cpu, mem, tasks, task_host, task_cpu, fragment",
    [
        (1, [0.6, 0.6], [0.1, 0.1], None, [0, 0], [0.6, 0.6], "CPU 1.2"),
        (2, [0.5, 0.5], [0.6, 0.6], None, [0, 0], [0.5, 0.5], "memory 1.2"),
        (2, [0.5], [0.1], None, [0], [0.7], "outside [0, 0.5]"),
        (2, [0.5], [0.1], None, [2], [0.5], "outside 0..1"),
        (2, [0.5], [0.1], [2], [0, 1], [0.5, 0.4], "unequal CPU"),
        (2, [0.5], [0.1], None, [0], [-0.1], "outside [0, 0.5]"),
    ],
)
def test_checker_rejects_violations(hosts, cpu, mem, tasks, task_host, task_cpu, fragment):
    inst = VCInstance.from_arrays(hosts, cpu, mem, tasks)
    rep = check_allocation(inst, Allocation(np.array(task_host), np.array(task_cpu)))
    assert not rep.valid
    assert any(fragment in v for v in rep.violations), rep.violations


def test_checker_rejects_wrong_shapes():
    inst = VCInstance.from_arrays(2, [0.5], [0.1], [2])
    rep = check_allocation(inst, Allocation(np.array([0]), np.array([0.5])))
    assert not rep.valid and "expected 2 tasks" in rep.violations[0]


# ----------------------------------------------------------------- average-yield phase


@st.composite
def placed_instances(draw, parallel=False):
    H = draw(st.integers(1, 4))
    J = draw(st.integers(1, 8))
    cpu = draw(st.lists(st.floats(0.05, 1.0), min_size=J, max_size=J))
    tasks = draw(st.lists(st.integers(1, 3 if parallel else 1), min_size=J, max_size=J))
    inst = VCInstance.from_arrays(H, cpu, [0.0] * J, tasks)
    task_host = np.array(draw(st.lists(st.integers(0, H - 1), min_size=inst.n_tasks, max_size=inst.n_tasks)))
    return inst, task_host


@settings(max_examples=150, deadline=None)
@given(placed_instances())
def test_greedy_second_phase_is_optimal_against_the_lp(case):
    inst, task_host = case
    y = placement_min_yield(inst, task_host)
    alloc = maximize_average_yield(inst, task_host, y)
    rep = check_allocation(inst, alloc)
    assert rep.valid, rep.violations
    assert rep.min_yield >= y - 1e-9  # the min yield is kept
    lp_cpu = average_yield_lp(inst, task_host, y)
    assert rep.avg_yield == pytest.approx(float(np.mean(lp_cpu / inst.cpu)), abs=1e-7)


@settings(max_examples=60, deadline=None)
@given(placed_instances(parallel=True))
def test_parallel_second_phase_keeps_min_yield_and_equal_task_cpu(case):
    inst, task_host = case
    y = placement_min_yield(inst, task_host)
    alloc = allocation_from_placement(inst, task_host)
    rep = check_allocation(inst, alloc)
    assert rep.valid, rep.violations
    assert rep.min_yield >= y - 1e-9
    # never worse than giving every task exactly alpha * Y, and the optimum of the oracle's LP
    assert rep.avg_yield >= y - 1e-9
    lp_cpu = average_yield_lp(inst, task_host, min(y, placement_min_yield(inst, task_host)))
    assert rep.avg_yield == pytest.approx(float(np.mean(lp_cpu / inst.cpu)), abs=1e-7)


def test_second_phase_on_the_paper_example():
    inst = VCInstance.from_arrays(1, [0.2, 0.5, 0.6], [0, 0, 0])
    # at Y = 0.5 the jobs use 0.1 + 0.25 + 0.3; the spare 0.35 goes to the smallest needs first
    alloc = maximize_average_yield(inst, np.array([0, 0, 0]), 0.5)
    assert alloc.task_cpu.tolist() == pytest.approx([0.2, 0.5, 0.3])
    alloc = maximize_average_yield(inst, np.array([0, 0, 0]), 0.4)
    assert alloc.task_cpu.tolist() == pytest.approx([0.2, 0.5, 0.3])  # 0.08+0.2+0.24, spare 0.48: 0.12, 0.3, then 0.06
    alloc = maximize_average_yield(inst, np.array([0, 0, 0]), 0.2)
    assert alloc.task_cpu.tolist() == pytest.approx([0.2, 0.5, 0.3])


# ----------------------------------------------------------------- generators


def test_generator_is_reproducible_and_within_bounds():
    a = generate_vc_instance(64, 500, 0.3, 0.75, 0.75, rng=5)
    b = generate_vc_instance(64, 500, 0.3, 0.75, 0.75, rng=5)
    c = generate_vc_instance(64, 500, 0.3, 0.75, 0.75, rng=6)
    assert np.array_equal(a.cpu, b.cpu) and np.array_equal(a.mem, b.mem)
    assert not np.array_equal(a.cpu, c.cpu)
    for arr in (a.cpu, a.mem):
        assert (arr > 0).all() and (arr <= 1).all()


def test_generator_means_follow_section_4_1():
    inst = generate_vc_instance(64, 4000, 0.5, 0.25, 0.25, rng=1)
    assert inst.cpu.mean() == pytest.approx(0.5, abs=0.01)
    assert inst.mem.mean() == pytest.approx(64 * 0.5 / 4000, rel=0.02)


def test_named_sets_have_the_paper_sizes():
    assert len(instance_set_specs("small")) == 1440
    assert len(instance_set_specs("large")) == 10800
    spec = instance_set_specs("small")[17]
    assert np.array_equal(build_instance(spec, 3).cpu, build_instance(spec, 3).cpu)
    assert not np.array_equal(build_instance(spec, 3).cpu, build_instance(spec, 4).cpu)


def test_lublin_task_counts_are_in_range_and_favour_powers_of_two():
    sizes = lublin_sizes(20000, np.random.default_rng(0), max_size=64)
    assert sizes.min() == 1 and sizes.max() <= 64
    pow2 = np.isin(sizes, [1, 2, 4, 8, 16, 32, 64]).mean()
    assert pow2 > 0.6
    assert (sizes == 1).mean() == pytest.approx(0.244 + (1 - 0.244) * 0.05, abs=0.1)
    inst = generate_vc_instance(8, 50, 0.5, 0.25, 0.25, tasks="lublin", rng=2)
    assert inst.is_parallel and inst.tasks.max() <= 64


# ----------------------------------------------------------------- files


def test_json_round_trip(tmp_path):
    inst = VCInstance.from_arrays(3, [0.6, 0.2], [0.3, 0.5], [1, 3], current_host=[1, (0, 0, 2)], migration_budget=0.5)
    path = tmp_path / "inst.json"
    save_instance(inst, path)
    again = load_instance(path)
    assert instance_to_dict(again) == instance_to_dict(inst)
    assert again.current_task_host().tolist() == [1, 0, 0, 2]


def test_readme_example_parses():
    inst = parse_instance(json.loads(
        '{"hosts": 4, "jobs": [{"cpu": 0.6, "mem": 0.3}, {"cpu": 0.2, "mem": 0.5, "tasks": 3}], "migration_budget": 0.5}'))
    assert inst.hosts == 4 and inst.n_tasks == 4 and inst.migration_budget == 0.5


@pytest.mark.parametrize(
    "doc, fragment",
    [
        ({"jobs": [{"cpu": 0.5, "mem": 0.1}]}, "field 'hosts': missing"),
        ({"hosts": 0, "jobs": [{"cpu": 0.5, "mem": 0.1}]}, "field 'hosts' must be >= 1"),
        ({"hosts": 2, "jobs": []}, "field 'jobs'"),
        ({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.1}, {"mem": 0.1}]}, "job 1: field 'cpu' is required"),
        ({"hosts": 2, "jobs": [{"cpu": 0, "mem": 0.1}]}, "job 0: field 'cpu' must be >= 1e-09 and <= 1"),
        ({"hosts": 2, "jobs": [{"cpu": 1.5, "mem": 0.1}]}, "job 0: field 'cpu'"),
        ({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": -0.1}]}, "job 0: field 'mem' must be >= 0 and <= 1"),
        ({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 1.1}]}, "job 0: field 'mem'"),
        ({"hosts": 2, "jobs": [{"cpu": float("nan"), "mem": 0.1}]}, "job 0: field 'cpu' must be finite"),
        ({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.1, "tasks": 0}]}, "job 0: field 'tasks' must be >= 1"),
        ({"hosts": 2, "jobs": [{"cpu": "x", "mem": 0.1}]}, "job 0: field 'cpu' must be a number"),
        ({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.1, "current_host": 5}]}, "field 'current_host' must be >= 0 and <= 1, got 5"),
        ({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.1, "tasks": 2, "current_host": [0]}]}, "lists 1 hosts for 2 tasks"),
        ({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.1}], "migration_budget": -1}, "migration_budget"),
    ],
)
def test_bad_input_names_the_job_and_field(doc, fragment):
    with pytest.raises(InvalidInputError) as err:
        parse_instance(doc, "inst.json")
    assert str(err.value).startswith("inst.json: ")
    assert fragment in str(err.value)


def test_malformed_json_file_names_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"hosts": 2, "jobs": [')
    with pytest.raises(InvalidInputError, match="broken.json: malformed JSON at line 1"):
        load_instance(path)


def test_parallel_instances_keep_the_memory_slack_per_task():
    inst = generate_vc_instance(64, 500, 0.5, 0.25, 0.25, tasks="lublin", rng=3)
    total = float(np.dot(inst.tasks, inst.mem))
    assert total == pytest.approx(64 * 0.5, rel=0.1)  # half the platform's memory is used on average
