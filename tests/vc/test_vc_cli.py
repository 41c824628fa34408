"""The ``vcsched vc`` command line: JSON fields, exit codes, messages."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vcsched.cli import main
from vcsched.problems.vc import Allocation, VCInstance, check_allocation, load_instance, save_instance


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_generate_then_solve_json(tmp_path, capsys):
    path = tmp_path / "inst.json"
    code, _, _ = run(capsys, "vc", "generate", "--hosts", "4", "--jobs", "8", "--slack", "0.3", "--cv-mem", "0.25",
                     "--cv-cpu", "0.75", "--seed", "1", "-o", str(path))
    assert code == 0
    code, out, err = run(capsys, "vc", "solve", str(path), "--method", "milp", "--json")
    assert code == 0, err
    doc = json.loads(out)
    for field in ("method", "status", "min_yield", "avg_yield", "assignment", "cpu", "bound", "seconds"):
        assert field in doc
    assert doc["method"] == "milp" and doc["status"] == "optimal"
    inst = load_instance(path)
    alloc = Allocation(np.array(doc["assignment"]), np.array(doc["cpu"]))
    rep = check_allocation(inst, alloc)
    assert rep.valid and rep.min_yield == pytest.approx(doc["min_yield"])
    assert doc["bound"] >= doc["min_yield"] - 1e-9


def test_generate_is_reproducible(tmp_path, capsys):
    _, a, _ = run(capsys, "vc", "generate", "--hosts", "4", "--jobs", "6", "--slack", "0.5", "--seed", "7")
    _, b, _ = run(capsys, "vc", "generate", "--hosts", "4", "--jobs", "6", "--slack", "0.5", "--seed", "7")
    assert a == b and json.loads(a)["hosts"] == 4


def test_parallel_job_json_lists_per_task(tmp_path, capsys):
    path = tmp_path / "par.json"
    save_instance(VCInstance.from_arrays(2, [0.6, 0.2], [0.3, 0.2], [1, 3]), path)
    code, out, _ = run(capsys, "vc", "solve", str(path), "--json")
    doc = json.loads(out)
    assert isinstance(doc["assignment"][0], int) and len(doc["assignment"][1]) == 3
    assert len(set(doc["cpu"][1])) == 1


def test_infeasible_memory_is_a_status_not_an_error(tmp_path, capsys):
    path = tmp_path / "inf.json"
    path.write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.6}] * 3}))
    code, out, _ = run(capsys, "vc", "solve", str(path), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["status"] == "infeasible"
    assert doc["min_yield"] is None and doc["avg_yield"] is None and doc["assignment"] is None


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("{not json", "malformed JSON"),
        ('{"hosts": 2, "jobs": [{"cpu": 0.5}]}', "job 0: field 'mem' is required"),
        ('{"hosts": 2, "jobs": [{"cpu": 1.2, "mem": 0.1}]}', "job 0: field 'cpu'"),
        ('{"hosts": 2, "jobs": [{"cpu": NaN, "mem": 0.1}]}', "NaN is not allowed"),
        ('{"hosts": 0, "jobs": [{"cpu": 0.2, "mem": 0.1}]}', "field 'hosts'"),
        ('{"hosts": 2, "jobs": [{"cpu": 0.2, "mem": 0.1, "tasks": 0}]}', "job 0: field 'tasks'"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = run(capsys, "vc", "solve", str(path), "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "bad.json" in err and fragment in err


def test_unknown_method_exits_2(tmp_path, capsys):
    path = tmp_path / "inst.json"
    save_instance(VCInstance.from_arrays(1, [0.5], [0.5]), path)
    code, _, err = run(capsys, "vc", "solve", str(path), "--method", "nope")
    assert code == 2 and "unknown method 'nope'" in err and "milp" in err


def test_missing_file_exits_2(capsys):
    code, _, err = run(capsys, "vc", "solve", "/nonexistent/x.json")
    assert code == 2 and "file not found" in err


def test_several_methods_give_a_list(tmp_path, capsys):
    path = tmp_path / "inst.json"
    save_instance(VCInstance.from_arrays(2, [0.6, 0.6, 0.6], [0.1, 0.1, 0.1]), path)
    code, out, _ = run(capsys, "vc", "solve", str(path), "--method", "milp,lp,lp-closed", "--json")
    docs = json.loads(out)
    assert [d["method"] for d in docs] == ["milp", "lp", "lp-closed"]
    assert docs[0]["min_yield"] == pytest.approx(0.5 / 0.6)
    assert docs[1]["min_yield"] == pytest.approx(1.0)  # 2 / 1.8 capped at 1
