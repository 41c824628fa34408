"""Batsim workloads: one id per job and no job wider than ``nb_res``, in the reader (``convert``
and ``simulate``) and in the writer (``convert --nb-res``) (issue 39, cause 7)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli_error
from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.problems.batsim_writer import batsim_json
from vcsched.problems.workload import read_batsim_json, read_swf


def workload(path, jobs, nb_res=4):
    path.write_text(json.dumps({"nb_res": nb_res, "jobs": jobs, "profiles": {"d": {"type": "delay", "delay": 5}}}))
    return path


def job(job_id, res=1, subtime=0):
    return {"id": job_id, "subtime": subtime, "res": res, "profile": "d"}


@pytest.mark.parametrize("ids", [[1, 1], ["w!3", 3], ["3", "a!3"]])
def test_duplicate_ids_are_refused_by_convert_and_simulate(tmp_path, capsys, ids):
    src = workload(tmp_path / "w.json", [job(ids[0]), job(ids[1], subtime=1)])
    with pytest.raises(InvalidInputError, match=r"jobs\[1\]: job id 3|jobs\[1\]: job id 1"):
        read_batsim_json(src)
    assert "is also the id of jobs[0]" in cli_error(capsys, ["grid", "convert", str(src), "-o", str(tmp_path / "o.swf")])
    err = cli_error(capsys, ["grid", "simulate", "--trace", str(src)])
    assert str(src) in err and "is also the id of jobs[0]" in err
    assert not (tmp_path / "o.swf").exists()


def test_a_job_wider_than_nb_res_is_refused_naming_the_file(tmp_path, capsys):
    src = workload(tmp_path / "w.json", [job(1, res=8)], nb_res=4)
    for argv in (["grid", "convert", str(src), "-o", str(tmp_path / "o.swf")], ["grid", "simulate", "--trace", str(src)]):
        err = cli_error(capsys, argv)
        assert f"{src}: jobs[0]: 'res' 8 is more than the platform's 'nb_res' 4" in err


def test_convert_nb_res_below_the_widest_job_is_refused(tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 10 16 -1 -1 16 20 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    err = cli_error(capsys, ["grid", "convert", str(swf), "-o", str(tmp_path / "k.json"), "--nb-res", "2"])
    assert "job 1 needs 16 processors, more than nb_res = 2" in err and not (tmp_path / "k.json").exists()
    assert main(["grid", "convert", str(swf), "-o", str(tmp_path / "k.json"), "--nb-res", "16"]) == 0
    assert read_batsim_json(tmp_path / "k.json").machine_size == 16  # what convert writes reads back


def test_writer_refuses_duplicate_ids_of_an_swf(tmp_path):
    swf = tmp_path / "t.swf"
    swf.write_text("7 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n7 5 0 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    with pytest.raises(InvalidInputError, match="job id 7 is used by 2 jobs"):
        batsim_json(read_swf(swf))
