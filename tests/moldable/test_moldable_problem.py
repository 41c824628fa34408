"""Model, JSON format and checker of moldable schedules (seed 002 §3.2)."""

import json

import numpy as np
import pytest

from vcsched.errors import InvalidInputError
from vcsched.problems.moldable import (
    MoldableInstance,
    Schedule,
    check_schedule,
    instance_to_dict,
    is_monotonic,
    load_instance,
    parse_instance,
    schedule_to_json,
)


def small():
    # m = 2; task 0: 4 on 1 proc, 2 on 2; task 1: 3 / 2.5
    return MoldableInstance.from_arrays(2, [[4.0, 2.0], [3.0, 2.5]], [1, 2])


def test_moldable_checker_metrics_on_hand_schedule():
    inst = small()
    s = Schedule(np.array([0.0, 2.0]), np.array([2, 1]), ((0, 1), (0,)))
    rep = check_schedule(inst, s)
    assert rep.valid, rep.violations
    assert rep.makespan == pytest.approx(5.0)
    assert rep.minsum == pytest.approx(1 * 2.0 + 2 * 5.0)


def test_moldable_checker_rejects_overload():
    inst = small()
    rep = check_schedule(inst, Schedule(np.array([0.0, 1.0]), np.array([2, 1])))
    assert not rep.valid and "processors busy" in rep.violations[0]


def test_moldable_checker_touching_tasks_do_not_overlap():
    inst = small()
    assert check_schedule(inst, Schedule(np.array([0.0, 2.0]), np.array([2, 2]))).valid


def test_moldable_checker_rejects_negative_start_and_bad_procs():
    inst = small()
    assert not check_schedule(inst, Schedule(np.array([-1.0, 5.0]), np.array([1, 1]))).valid
    rep = check_schedule(inst, Schedule(np.array([0.0, 5.0]), np.array([3, 1])))
    assert not rep.valid and "1..2" in rep.violations[0]
    assert not check_schedule(inst, Schedule(np.array([0.0]), np.array([1]))).valid  # a task missing


def test_moldable_checker_rejects_processor_overlap_even_when_count_fits():
    inst = small()
    # both on one processor each, in parallel, but the same processor index
    rep = check_schedule(inst, Schedule(np.array([0.0, 0.0]), np.array([1, 1]), ((0,), (0,))))
    assert not rep.valid and "overlap" in rep.violations[0]
    assert check_schedule(inst, Schedule(np.array([0.0, 0.0]), np.array([1, 1]), ((0,), (1,)))).valid
    bad_len = check_schedule(inst, Schedule(np.array([0.0, 4.0]), np.array([2, 1]), ((0,), (1,))))
    assert not bad_len.valid
    out_of_range = check_schedule(inst, Schedule(np.array([0.0, 4.0]), np.array([1, 1]), ((5,), (1,))))
    assert not out_of_range.valid


def test_moldable_json_round_trip_and_schedule_json(tmp_path):
    inst = small()
    path = tmp_path / "i.json"
    path.write_text(json.dumps(instance_to_dict(inst)))
    back = load_instance(path)
    assert back.m == 2 and np.array_equal(back.times, inst.times) and np.array_equal(back.weights, inst.weights)
    rows = schedule_to_json(Schedule(np.array([0.0, 2.0]), np.array([2, 1]), ((0, 1), (0,))))
    assert rows[1] == {"task": 1, "start": 2.0, "procs": 1, "processors": [0]}
    assert "processors" not in schedule_to_json(Schedule(np.array([0.0]), np.array([1])))[0]


@pytest.mark.parametrize(
    "data, match",
    [
        ([], "top level"),
        ({"tasks": []}, "field 'm': missing"),
        ({"m": 0, "tasks": [{"weight": 1, "times": [1]}]}, "field 'm'"),
        ({"m": 2, "tasks": []}, "field 'tasks'"),
        ({"m": 2, "tasks": [{"times": [1, 1]}]}, "task 0, field 'weight': missing"),
        ({"m": 2, "tasks": [{"weight": -1, "times": [1, 1]}]}, "task 0: field 'weight'"),
        ({"m": 3, "tasks": [{"weight": 1, "times": [1, 1, 1]}, {"weight": 1, "times": [3, 2]}]},
         "task 1, field 'times': has 2 values, expected m = 3"),
        ({"m": 2, "tasks": [{"weight": 1, "times": [1, "x"]}]}, r"entry 1 \(p_i\(2\)\)"),
        ({"m": 2, "tasks": [{"weight": 1, "times": [1, 0]}]}, r"must be >= 1e-09 and <= 1e\+12, got 0"),
    ],
)
def test_moldable_parse_errors_name_the_place(data, match):
    with pytest.raises(InvalidInputError, match=match):
        parse_instance(data, "f.json")


def test_moldable_load_errors(tmp_path):
    with pytest.raises(InvalidInputError, match="file not found"):
        load_instance(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(InvalidInputError, match="malformed JSON at line 1"):
        load_instance(bad)


def test_moldable_monotony_flag():
    assert is_monotonic(MoldableInstance.from_arrays(2, [[4.0, 2.0]]))
    assert not is_monotonic(MoldableInstance.from_arrays(2, [[4.0, 5.0]]))  # time increases
    assert not is_monotonic(MoldableInstance.from_arrays(2, [[4.0, 1.0]]))  # work decreases
