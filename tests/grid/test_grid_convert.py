"""``vcsched grid convert``: SWF <-> Batsim JSON, round trip on the fields the simulator reads."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import require_trace
from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.problems.batsim_writer import batsim_json
from vcsched.problems.workload import from_arrays, read_batsim_json, read_workload


def _same_jobs(a, b):
    np.testing.assert_array_equal(a.job_id, b.job_id)
    np.testing.assert_array_equal(a.submit_time, b.submit_time)
    np.testing.assert_array_equal(a.run_time, b.run_time)
    np.testing.assert_array_equal(a.processors, b.processors)
    np.testing.assert_array_equal(a.requested_time, b.requested_time)


def test_round_trip_keeps_every_simulated_field(tmp_path):
    w = from_arrays([0, 5, 5, 12.5], [10, 3, 3, 7.25], [20, -1, 3, 8], [2, 4, 4, 1], job_id=[1, 2, 3, 9],
                    header=["MaxProcs: 4"])
    doc = batsim_json(w)
    assert doc["nb_res"] == 4
    assert len(doc["profiles"]) == 3  # equal run times share one delay profile
    assert "walltime" not in doc["jobs"][1]  # unknown requested time: no walltime
    (tmp_path / "w.json").write_text(json.dumps(doc))
    back = read_batsim_json(tmp_path / "w.json")
    _same_jobs(w, back)
    assert main(["grid", "convert", str(tmp_path / "w.json"), "-o", str(tmp_path / "w.swf")]) == 0
    _same_jobs(w, read_workload(tmp_path / "w.swf"))


def test_real_trace_round_trip_through_the_command_line(tmp_path):
    trace = require_trace("KTH-SP2-1996-2.1-cln.swf.gz")
    assert main(["grid", "convert", str(trace), "-o", str(tmp_path / "kth.json")]) == 0
    assert main(["grid", "convert", str(tmp_path / "kth.json"), "-o", str(tmp_path / "kth.swf.gz")]) == 0
    original, back = read_workload(trace), read_workload(tmp_path / "kth.swf.gz")
    assert len(original) > 20_000
    _same_jobs(original, back)
    assert back.machine_size == original.machine_size


def test_newer_batsim_names_are_read(tmp_path):
    doc = {"nb_res": 8, "jobs": [{"id": "w0!7", "subtime": 1, "res": 2, "profile": "p", "extra_data": "{}"}],
           "profiles": {"p": {"type": "DelayProfile", "delay": 4.5, "ret": 0}}}
    (tmp_path / "n.json").write_text(json.dumps(doc))
    w = read_batsim_json(tmp_path / "n.json")
    assert w.job_id.tolist() == [7] and w.run_time.tolist() == [4.5]
    doc["profiles"]["p"]["type"] = "ParallelTaskProfile"
    (tmp_path / "n.json").write_text(json.dumps(doc))
    with pytest.raises(InvalidInputError, match="'ParallelTaskProfile' is not simulated"):
        read_batsim_json(tmp_path / "n.json")


def test_convert_refuses_an_unknown_output_suffix(tmp_path, capsys):
    w = from_arrays([0], [1], [1], [1])
    (tmp_path / "w.json").write_text(json.dumps(batsim_json(w)))
    assert main(["grid", "convert", str(tmp_path / "w.json"), "-o", str(tmp_path / "w.csv")]) == 2
    assert "name the format by the suffix: .json, .swf or .swf.gz" in capsys.readouterr().err


def test_jobs_csv_names_the_batsim_profiles(tmp_path):
    import pandas

    doc = {"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "res": 2, "profile": "p10"},
                                 {"id": 2, "subtime": 1, "res": 4, "profile": "p3"},
                                 {"id": 3, "subtime": 2, "res": 1, "profile": "p10"}],
           "profiles": {"p10": {"type": "delay", "delay": 10}, "p3": {"type": "DelayProfile", "delay": 3}}}
    (tmp_path / "w.json").write_text(json.dumps(doc))
    assert read_batsim_json(tmp_path / "w.json").profile.tolist() == ["p10", "p3", "p10"]
    assert main(["grid", "simulate", "--trace", str(tmp_path / "w.json"), "-o", str(tmp_path / "jobs.csv")]) == 0
    table = pandas.read_csv(tmp_path / "jobs.csv", keep_default_na=False)
    assert dict(zip(table["job_id"].astype(str), table["profile"])) == {"1": "p10", "2": "p3", "3": "p10"}
    swf = from_arrays([0], [1], [1], [1])
    assert swf.profile.tolist() == [""]
