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
from vcsched.errors import InvalidInputError
from vcsched.problems.workload import from_arrays, read_swf, shift_to_origin, time_window
from vcsched.sim import JOBS_COLUMNS, JobTable, make_cluster, simulate_grid, write_jobs
from vcsched.sim.invariants import check_schedule
from vcsched.sim.output import LEGACY_JOBS_COLUMNS, allocate_processors, jobs_frame

_spec = importlib.util.spec_from_file_location("_sim_conftest", Path(__file__).resolve().parent.parent / "conftest.py")
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
require_trace = _conftest.require_trace

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"


def small_result():
    w = from_arrays([0, 0, 1], [10, 5, 2], [10, 5, 4], [60, 60, 40])
    res = simulate_grid([make_cluster("c", 100, policy="easy")], JobTable.from_workloads([w]))
    check_schedule(res)
    return res


def test_jobs_frame_columns_and_values():
    df = small_result().jobs_frame()
    assert list(df.columns) == JOBS_COLUMNS == [
        "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources", "requested_time",
        "success", "final_state", "starting_time", "execution_time", "finish_time", "waiting_time",
        "turnaround_time", "stretch", "allocated_resources", "cluster", "origin_cluster"]
    assert df["job_id"].tolist() == ["1", "2", "3"] and df["workload_name"].tolist() == ["c"] * 3
    assert df["requested_number_of_resources"].tolist() == [60, 60, 40]
    assert df["success"].tolist() == [1, 1, 1] and set(df["final_state"]) == {"COMPLETED_SUCCESSFULLY"}
    assert df["starting_time"].tolist() == [0.0, 10.0, 1.0]
    assert df["waiting_time"].tolist() == [0.0, 10.0, 0.0]
    assert df["stretch"].tolist() == [1.0, 3.0, 1.0]
    assert df["allocated_resources"].tolist() == ["0-59", "0-59", "60-99"]


def test_legacy_layout_keeps_the_old_names_and_the_same_values():
    res = small_result()
    new, old = res.jobs_frame(), jobs_frame(res, layout="legacy")
    assert list(old.columns) == LEGACY_JOBS_COLUMNS == [
        "jobID", "submission_time", "requested_number_of_processors", "requested_time", "starting_time",
        "execution_time", "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_processors",
        "cluster", "origin_cluster"]
    assert old["jobID"].tolist() == [1, 2, 3]
    assert old["allocated_processors"].tolist() == new["allocated_resources"].tolist()
    for col in ("submission_time", "starting_time", "finish_time", "stretch"):
        assert old[col].tolist() == new[col].tolist()
    with pytest.raises(InvalidInputError, match="jobs layout 'old' is unknown; use one of: batsim, legacy"):
        jobs_frame(res, layout="old")


def test_site_prefixed_ids_are_split_into_workload_and_id():
    w1 = from_arrays([0], [5], [5], [2], job_id=[7])
    w2 = from_arrays([0], [5], [5], [2], job_id=[7])
    res = simulate_grid([make_cluster("a", 4), make_cluster("b", 4)], JobTable.from_workloads([w1, w2], labels=["a", "b"]))
    df = res.jobs_frame()
    assert df["job_id"].tolist() == ["7", "7"] and df["workload_name"].tolist() == ["a", "b"]
    assert jobs_frame(res, layout="legacy")["jobID"].tolist() == ["a!7", "b!7"]


def test_evalys_reads_our_jobs_csv_and_draws_gantt_and_utilisation(tmp_path):
    """The real evalys (a test dependency) loads the file and plots it; its utilisation is ours."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evalys_jobset = pytest.importorskip("evalys.jobset")
    from evalys import visu

    res = small_result()
    write_jobs(res, tmp_path / "jobs.csv")
    js = evalys_jobset.JobSet.from_csv(str(tmp_path / "jobs.csv"))
    assert js.MaxProcs == 100 and js.df["proc_alloc"].tolist() == [60, 60, 40]
    # processors in use over time, as evalys computes it from allocated_resources
    load = js.utilisation["load"]
    assert load.to_dict() == {0.0: 60, 1.0: 100, 3.0: 60, 10.0: 60, 15.0: 0}
    assert js.mean_utilisation() == pytest.approx((600 + 300 + 80) / 15)
    visu.gantt.plot_gantt(js)
    plt.savefig(tmp_path / "gantt.png")
    js.plot(with_details=True)  # utilisation, queue, job details and the legacy Gantt chart
    plt.savefig(tmp_path / "plot.png")
    plt.close("all")
    for name in ("gantt.png", "plot.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the old layout is what evalys 4 cannot read (the reason for the new default)
    write_jobs(res, tmp_path / "old.csv", layout="legacy")
    with pytest.raises(AttributeError, match="allocated_resources"):
        evalys_jobset.JobSet.from_csv(str(tmp_path / "old.csv"))


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
    assert set(df["origin_cluster"]) == {"kth", "sdsc"} and set(df["workload_name"]) == {"kth", "sdsc"}


def test_cli_errors_are_one_line(tmp_path, capsys):
    plat = tmp_path / "p.json"
    plat.write_text('{"clusters": [{"name": "a", "procs": "many", "trace": "x"}]}')
    assert main(["grid", "simulate", "--platform", str(plat)]) == 2
    assert "p.json: clusters[0] (a): field 'procs' must be an integer, got 'many'" in capsys.readouterr().err
    assert main(["grid", "simulate", "--trace", "no-such-trace.swf"]) == 2
    assert "trace 'no-such-trace.swf' not found" in capsys.readouterr().err


@pytest.mark.parametrize("policy", ["fcfs", "cbf", "easy"])
def test_real_trace_window_invariants_and_determinism(policy):
    w = time_window(read_swf(require_trace(KTH)), days=20)
    jobs = JobTable.from_workloads([w])
    a = simulate_grid([make_cluster("kth", 100, policy=policy)], jobs)
    b = simulate_grid([make_cluster("kth", 100, policy=policy)], jobs)
    check_schedule(a)
    assert len(jobs) > 500
    pd.testing.assert_frame_equal(a.jobs_frame(), b.jobs_frame())


def test_two_site_mct_window_invariants_and_determinism():
    kth = shift_to_origin(time_window(read_swf(require_trace(KTH)), days=5))
    sdsc = shift_to_origin(time_window(read_swf(require_trace(SDSC)), days=5))
    jobs = JobTable.from_workloads([kth, sdsc], labels=["kth", "sdsc"])

    def once():
        return simulate_grid([make_cluster("kth", 100, 1.0, "cbf"), make_cluster("sdsc", 128, 1.4, "fcfs")], jobs,
                        meta=MCT())

    a, b = once(), once()
    check_schedule(a)
    assert set(a.cluster.tolist()) == {0, 1}
    pd.testing.assert_frame_equal(a.jobs_frame(), b.jobs_frame())


# ----------------------------------------------------------------- compiled allocation vs the numpy sweep
def _reference_interval_set(ids: np.ndarray) -> str:
    if ids.size == 0:
        return ""
    breaks = np.flatnonzero(np.diff(ids) != 1)
    starts = np.concatenate(([ids[0]], ids[breaks + 1]))
    ends = np.concatenate((ids[breaks], [ids[-1]]))
    return " ".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(starts.tolist(), ends.tolist()))


def reference_allocation(start: np.ndarray, finish: np.ndarray, procs: np.ndarray, total: int) -> list[str]:
    """The numpy sweep the compiled one replaced (the reference)."""
    out = [""] * start.size
    ran = np.flatnonzero(~np.isnan(start)).tolist()
    # (time, kind, job): ends (kind 0) before starts (kind 1) at an instant, then by job
    events = sorted([(finish[j], 0, j) for j in ran] + [(start[j], 1, j) for j in ran])
    free = np.ones(total, dtype=bool)
    held: dict[int, np.ndarray] = {}
    for time, kind, j in events:
        if kind == 0:
            ids = held.pop(j, None)
            if ids is not None:
                free[ids] = True
            else:  # zero-length job ending "before" its start in the sweep: mark as done
                held[j] = None  # type: ignore[assignment]
            continue
        if j in held:  # zero-length job: its end came first
            del held[j]
            ids = np.flatnonzero(free)[: int(procs[j])]
            out[j] = _reference_interval_set(ids)
            continue
        ids = np.flatnonzero(free)[: int(procs[j])]
        if ids.size < procs[j]:
            raise ValueError(f"over capacity at {time}")
        free[ids] = False
        held[j] = ids
        out[j] = _reference_interval_set(ids)
    return out


@pytest.mark.parametrize("policy", ["fcfs", "easy", "cbf"])
@pytest.mark.parametrize("seed", range(3))
def test_compiled_allocation_equals_the_numpy_sweep(policy, seed):
    rng = np.random.default_rng(seed)
    n = 300
    submit = np.sort(rng.integers(0, 3000, size=n)).astype(float)
    req = rng.choice([0.0, 1.0, 10.0, 60.0, 400.0], size=n)
    run = np.floor(req * rng.choice([0.0, 0.5, 1.0], size=n))
    width = rng.choice([1, 2, 3, 5, 8, 16], size=n)
    res = simulate_grid([make_cluster("c", 16, policy=policy)], JobTable.from_workloads([from_arrays(submit, run, req, width)]))
    got = allocate_processors(res.start, res.finish, res.jobs.procs, 16)
    assert got == reference_allocation(res.start, res.finish, res.jobs.procs, 16)
    longer = np.flatnonzero(res.finish > res.start)  # jobs of positive length hold exactly their width
    assert longer.size > 100
    assert all(_count_ids(got[j]) == res.jobs.procs[j] for j in longer)


def _count_ids(intervals: str) -> int:
    total = 0
    for part in intervals.split():
        a, _, b = part.partition("-")
        total += int(b or a) - int(a) + 1
    return total


def test_compiled_allocation_with_fragmented_numbers_grows_its_buffer():
    # 64 one-processor jobs, the odd-numbered ones end at 1; then ten 32-wide jobs one after the other
    # each get the 32 scattered even numbers (32 intervals each: more than the first buffer holds)
    start = np.concatenate((np.zeros(64), np.arange(1.0, 11.0)))
    finish = np.concatenate((np.where(np.arange(64) % 2 == 1, 1.0, 100.0), np.arange(2.0, 12.0)))
    procs = np.concatenate((np.ones(64, dtype=np.int64), np.full(10, 32)))
    got = allocate_processors(start, finish, procs, 64)
    assert got == reference_allocation(start, finish, procs, 64)
    assert got[64] == " ".join(str(k) for k in range(1, 64, 2))


def test_allocation_over_capacity_is_an_error():
    with pytest.raises(InvalidInputError, match="more than 4 processors at time 1.0"):
        allocate_processors(np.array([0.0, 1.0]), np.array([5.0, 3.0]), np.array([3, 2]), 4)


def _evalys_peak(frame, procs: int) -> int:
    from evalys.jobset import JobSet
    from procset import ProcSet

    f = frame.copy()
    f["allocated_resources"] = f["allocated_resources"].map(ProcSet.from_str)
    return int(JobSet(f, resource_bounds=(0, procs - 1)).utilisation["load"].max())


@pytest.mark.parametrize("seed", range(2))
def test_gantt_times_on_a_grid_keep_evalys_utilisation_within_the_cluster(seed):
    """evalys re-adds rounded times: with times such as x / 1.2 a job's end misses the next start by an ulp
    and its utilisation exceeds the cluster. On the 1/64 s grid it never does, and no time moves more than
    half a tick."""
    pytest.importorskip("evalys")
    from vcsched.sim.output import _quantize_times

    rng = np.random.default_rng(seed)
    n = 60
    submit = np.sort(rng.integers(0, 50, n)).astype(float) / 7
    run = rng.integers(1, 20, n) / 3.0
    w = from_arrays(submit, run, run, rng.choice([1, 2, 4], n))
    res = simulate_grid([make_cluster("a", 4, 1.0, "fcfs"), make_cluster("b", 4, 1.2, "easy")],
                   JobTable.from_workloads([w]), meta=MCT())
    frame = res.jobs_frame()
    frame = frame[frame["execution_time"] > 0]
    for name in ("a", "b"):
        part = frame[frame["cluster"] == name]
        grid = _quantize_times(part)
        assert _evalys_peak(grid, 4) == 4
        assert np.abs(grid["starting_time"] - part["starting_time"]).max() <= 1 / 128
        assert np.abs(grid["finish_time"] - part["finish_time"]).max() <= 1 / 128
    assert _evalys_peak(frame[frame["cluster"] == "a"], 4) > 4  # the reason: unrounded times overshoot
