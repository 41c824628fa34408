"""The heterogeneous VCSched instance: JSON forms, validation, checker."""

import numpy as np
import pytest

from vcsched.errors import InvalidInputError
from vcsched.problems.vc import parse_instance
from vcsched.problems.vc_hetero import (
    HeteroAllocation,
    allocation_from_placement,
    check_hetero,
    hetero_to_dict,
    parse_hetero,
    placement_min_yield,
)

NEW = {"resources": ["mem", "disk"],
       "hosts": [{"cpu": 1.0, "mem": 1.0, "disk": 0.5, "count": 2}, {"cpu": 2.0, "mem": 0.5, "disk": 1.0}],
       "jobs": [{"cpu": 0.5, "mem": 0.25, "disk": 0.1}, {"cpu": 1.5, "mem": 0.5, "disk": 0.9}]}


def test_old_form_is_unit_hosts_with_mem_one_row_per_task():
    inst = parse_hetero({"hosts": 4, "jobs": [{"cpu": 0.5, "mem": 0.2, "tasks": 2}, {"cpu": 1.0, "mem": 0.1}]})
    assert inst.resources == ("mem",) and inst.n_hosts == 4 and inst.host_count.tolist() == [4]
    assert inst.job_cpu.tolist() == [0.5, 0.5, 1.0] and inst.job_rigid[:, 0].tolist() == [0.2, 0.2, 0.1]


def test_new_form_arrays_and_round_trip():
    inst = parse_hetero(NEW)
    assert inst.host_cpu.tolist() == [1.0, 2.0] and inst.host_count.tolist() == [2, 1]
    assert inst.host_cap.tolist() == [[1.0, 0.5], [0.5, 1.0]] and inst.hosts_cpu.tolist() == [1.0, 1.0, 2.0]
    back = parse_hetero(hetero_to_dict(inst))
    assert np.array_equal(back.job_rigid, inst.job_rigid) and np.array_equal(back.host_cap, inst.host_cap)


@pytest.mark.parametrize("change, words", [
    (lambda d: d["hosts"][1].update(net=1.0), ["host type 1", "'net'", "not declared"]),
    (lambda d: d.update(hosts=[4, {"cpu": 1.0, "mem": 1.0, "disk": 1.0}]), ["host type 0", "old form"]),
    (lambda d: d.update(hosts=3), ["resources", "old form"]),
    (lambda d: d["jobs"][1].update(disk=2.0), ["job 1", "'disk'", "fit no host"]),
    (lambda d: d["jobs"][0].pop("mem"), ["job 0", "'mem'", "required"]),
    (lambda d: d["hosts"][0].update(cpu=0), ["host type 0", "'cpu'"]),
])
def test_bad_input_one_line_naming_where(change, words):
    import copy

    data = copy.deepcopy(NEW)
    change(data)
    with pytest.raises(InvalidInputError) as err:
        parse_hetero(data, "f.json")
    text = str(err.value)
    assert "\n" not in text and text.startswith("f.json") and all(w in text for w in words), text


def test_placement_yield_and_average_phase_pass_the_checker():
    inst = parse_hetero(NEW)
    # host 2 (cpu 2) holds both jobs: load 2.0 -> yield 1; host 0 cannot hold job 1's disk
    assert placement_min_yield(inst, [2, 2]) == 1.0
    alloc = allocation_from_placement(inst, [1, 2])
    report = check_hetero(inst, alloc)
    assert report.valid and report.min_yield == 1.0
    bad = check_hetero(inst, allocation_from_placement(inst, [0, 0]))
    assert not bad.valid and "host 0" in bad.message and "'disk'" in bad.message


def test_checker_refuses_cpu_over_need_and_over_host():
    inst = parse_hetero(NEW)
    assert "outside [0, need]" in check_hetero(inst, HeteroAllocation(np.array([2, 2]), np.array([0.6, 1.0]))).message
    two = parse_hetero({**NEW, "jobs": [{"cpu": 1.0, "mem": 0.1, "disk": 0.1}] * 2})
    assert "CPU over" in check_hetero(two, HeteroAllocation(np.array([0, 0]), np.array([0.6, 0.6]))).message


def test_average_phase_gives_spare_cpu_to_the_smallest_need_first():
    inst = parse_hetero({"resources": ["mem"], "hosts": [{"cpu": 1.0, "mem": 1.0}, {"cpu": 1.0, "mem": 1.0}],
                         "jobs": [{"cpu": 2.0, "mem": 0.1}, {"cpu": 0.5, "mem": 0.1}, {"cpu": 0.4, "mem": 0.1}]})
    alloc = allocation_from_placement(inst, [0, 1, 1])  # Y = 1/2 on host 0; host 1: 0.25 + 0.2, spare 0.55
    assert alloc.job_alloc.tolist() == pytest.approx([1.0, 0.5, 0.4])
    assert parse_instance({"hosts": 1, "jobs": [{"cpu": 1.0, "mem": 0.5}]}).hosts == 1
