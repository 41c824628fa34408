"""jobs.csv / Parquet output, metrics, the CLI, and windows of real traces (with invariants)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from heuristics.grid import MCT
from vcsched.cli import main
from vcsched.problems.workload import from_arrays, read_swf, shift_to_origin, time_window
from vcsched.sim import JOBS_COLUMNS, JobTable, make_cluster, simulate, write_jobs
from vcsched.sim.invariants import check_schedule
from vcsched.sim.output import allocate_processors

_spec = importlib.util.spec_from_file_location("_sim_conftest", Path(__file__).resolve().parent.parent / "conftest.py")
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
require_trace = _conftest.require_trace

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"


def small_result():
    w = from_arrays([0, 0, 1], [10, 5, 2], [10, 5, 4], [60, 60, 40])
    res = simulate([make_cluster("c", 100, policy="easy")], JobTable.from_workloads([w]))
    check_schedule(res)
    return res


def test_jobs_frame_columns_and_values():
    df = small_result().jobs_frame()
    assert list(df.columns) == JOBS_COLUMNS == [
        "jobID", "submission_time", "requested_number_of_processors", "requested_time", "starting_time",
        "execution_time", "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_processors",
        "cluster", "origin_cluster"]
    assert df["starting_time"].tolist() == [0.0, 10.0, 1.0]
    assert df["waiting_time"].tolist() == [0.0, 10.0, 0.0]
    assert df["stretch"].tolist() == [1.0, 3.0, 1.0]
    assert df["allocated_processors"].tolist() == ["0-59", "0-59", "60-99"]


def test_metrics_by_hand():
    m = small_result().metrics()
    o = m["overall"]
    assert o["jobs"] == 3 and o["mean_wait"] == pytest.approx(10 / 3) and o["max_wait"] == 10.0
    assert o["mean_response"] == pytest.approx((10 + 15 + 2) / 3)
    # bounded slowdown with tau = 10: max(1, 10/10), 15/max(5,10), 2/max(2,10)->1
    assert o["mean_bsld"] == pytest.approx((1 + 1.5 + 1) / 3)
    assert o["makespan"] == 15.0 and o["utilization"] == pytest.approx((600 + 300 + 80) / (100 * 15))
    assert m["clusters"]["c"] == o


def test_allocation_reuses_processors_after_ends_and_handles_zero_length_jobs():
    out = allocate_processors(np.array([0.0, 5.0, 5.0, 5.0]), np.array([5.0, 9.0, 5.0, 6.0]),
                              np.array([4, 4, 2, 3]), 8)
    assert out == ["0-3", "0-3", "4-5", "4-6"]


def test_write_csv_and_parquet(tmp_path):
    res = small_result()
    write_jobs(res, tmp_path / "jobs.csv")
    write_jobs(res, tmp_path / "jobs.parquet")
    a = pd.read_csv(tmp_path / "jobs.csv")
    b = pd.read_parquet(tmp_path / "jobs.parquet")
    assert list(a.columns) == list(b.columns) == JOBS_COLUMNS
    np.testing.assert_array_equal(a["finish_time"], b["finish_time"])


def test_cli_single_cluster_on_a_window_of_kth(tmp_path, capsys):
    trace = require_trace(KTH)
    out = tmp_path / "jobs.csv"
    code = main(["grid", "simulate", "--trace", str(trace), "--procs", "100", "--policy", "cbf", "--days", "10",
                 "-o", str(out), "--json"])
    assert code == 0
    m = json.loads(capsys.readouterr().out)
    df = pd.read_csv(out)
    assert list(df.columns) == JOBS_COLUMNS and len(df) == m["overall"]["jobs"] > 100
    assert set(m["clusters"]) == {"KTH-SP2-1996-2.1-cln"}
    assert (df["starting_time"] >= df["submission_time"]).all()


def test_cli_platform_with_mct_and_table(tmp_path, capsys):
    require_trace(KTH)
    require_trace(SDSC)
    plat = tmp_path / "platform.json"
    plat.write_text(json.dumps({"clusters": [
        {"name": "kth", "procs": 100, "speed": 1.0, "policy": "cbf", "trace": KTH, "days": 2},
        {"name": "sdsc", "procs": 128, "speed": 1.4, "policy": "easy", "trace": SDSC, "days": 2},
        {"name": "spare", "procs": 64, "speed": 1.2, "policy": "fcfs"}], "meta": "mct"}))
    assert main(["grid", "simulate", "--platform", str(plat), "-o", str(tmp_path / "j.parquet")]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split()[:8] == ["cluster", "jobs", "mean_wait", "max_wait", "mean_response",
                                                "mean_bsld", "utilization", "makespan"]
    assert "(all)" in text and "spare" in text
    df = pd.read_parquet(tmp_path / "j.parquet")
    assert set(df["origin_cluster"]) == {"kth", "sdsc"} and df["jobID"].str.contains("!").all()


def test_cli_errors_are_one_line(tmp_path, capsys):
    plat = tmp_path / "p.json"
    plat.write_text('{"clusters": [{"name": "a", "procs": "many", "trace": "x"}]}')
    assert main(["grid", "simulate", "--platform", str(plat)]) == 2
    assert "clusters[0]: field 'procs' must be a int" in capsys.readouterr().err
    assert main(["grid", "simulate", "--trace", "no-such-trace.swf"]) == 2
    assert "trace 'no-such-trace.swf' not found" in capsys.readouterr().err


@pytest.mark.parametrize("policy", ["fcfs", "cbf", "easy"])
def test_real_trace_window_invariants_and_determinism(policy):
    w = time_window(read_swf(require_trace(KTH)), days=20)
    jobs = JobTable.from_workloads([w])
    a = simulate([make_cluster("kth", 100, policy=policy)], jobs)
    b = simulate([make_cluster("kth", 100, policy=policy)], jobs)
    check_schedule(a)
    assert len(jobs) > 500
    pd.testing.assert_frame_equal(a.jobs_frame(), b.jobs_frame())


def test_two_site_mct_window_invariants_and_determinism():
    kth = shift_to_origin(time_window(read_swf(require_trace(KTH)), days=5))
    sdsc = shift_to_origin(time_window(read_swf(require_trace(SDSC)), days=5))
    jobs = JobTable.from_workloads([kth, sdsc], labels=["kth", "sdsc"])

    def once():
        return simulate([make_cluster("kth", 100, 1.0, "cbf"), make_cluster("sdsc", 128, 1.4, "fcfs")], jobs,
                        meta=MCT())

    a, b = once(), once()
    check_schedule(a)
    assert set(a.cluster.tolist()) == {0, 1}
    pd.testing.assert_frame_equal(a.jobs_frame(), b.jobs_frame())
