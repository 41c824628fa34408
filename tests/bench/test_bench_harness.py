"""The experiment harness: storage, resume, seeds, failures, executors (process pool and Dask)."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from benchmarks import selftest
from benchmarks.harness import (
    Experiment,
    cell_id,
    cell_seeds,
    code_version,
    load_results,
    run_cells,
    run_experiment,
    stable_table,
)
from vcsched.errors import InvalidInputError, VcschedError

REPO = pathlib.Path(__file__).resolve().parents[2]


def _run(tmp_path, name="run", **kwargs):
    exp = selftest.experiment(**{k: kwargs.pop(k) for k in ("n", "sleep", "fail", "fail_unless") if k in kwargs})
    return run_cells(exp, tmp_path / name, progress=False, **kwargs)


def test_cell_id_depends_on_params_not_their_order():
    assert cell_id({"a": 1, "b": 0.5}) == cell_id({"b": 0.5, "a": 1})
    assert cell_id({"a": 1, "b": 0.5}) != cell_id({"a": 1, "b": 0.25})
    assert len(cell_id({})) == 16


def test_cell_seeds_are_spawned_children_of_the_root():
    seeds = cell_seeds(4, 7)
    expected = [int(c.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) for c in np.random.SeedSequence(7).spawn(4)]
    assert seeds == expected
    assert len(set(seeds)) == 4
    assert cell_seeds(4, 8) != seeds
    assert all(0 <= s < 2**63 for s in seeds)


def test_table_has_params_harness_columns_and_rows_in_cell_order(tmp_path):
    summary = _run(tmp_path, n=5, workers=2)
    t = summary.table
    assert list(t.columns[:3]) == ["k", "sleep", "fail"]
    for col in ("cell", "cell_id", "row", "seed", "cell_status", "error", "code_version", "machine", "cell_seconds",
                "draw", "square"):
        assert col in t.columns
    assert t["cell"].tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert t["row"].tolist() == [0, 1] * 5
    assert (t["square"] == t["k"] ** 2).all()
    assert t["seed"].tolist() == [s for s in cell_seeds(5, 0) for _ in range(2)]
    assert (t["cell_status"] == "ok").all() and (t["error"] == "").all()
    assert t["code_version"].iloc[0] == code_version()
    on_disk = pd.read_parquet(tmp_path / "run" / "results.parquet")
    pd.testing.assert_frame_equal(on_disk, t)
    assert len(pd.read_csv(tmp_path / "run" / "results.csv")) == 10
    assert len(list((tmp_path / "run" / "parts").glob("*.parquet"))) == 5


def test_one_and_two_workers_give_identical_tables(tmp_path):
    one = _run(tmp_path, "one", n=6, workers=1).table
    two = _run(tmp_path, "two", n=6, workers=2).table
    pd.testing.assert_frame_equal(stable_table(one), stable_table(two))
    assert "cell_seconds" not in stable_table(one) and "pid_seconds" not in stable_table(one)
    other_seed = _run(tmp_path, "seed1", n=6, workers=2, seed=1).table
    assert not stable_table(other_seed)["draw"].equals(stable_table(one)["draw"])


def test_failing_cell_is_recorded_and_the_sweep_continues(tmp_path):
    summary = _run(tmp_path, n=5, fail=(1, 3), workers=2)
    t = summary.table
    assert summary.n_failed == 2
    bad = t[t["cell_status"] == "error"]
    assert bad["cell"].tolist() == [1, 3]
    assert bad["error"].str.contains("RuntimeError: cell 1 was asked to fail").tolist() == [True, False]
    assert bad["draw"].isna().all()
    good = t[t["cell_status"] == "ok"]
    assert sorted(good["cell"].unique()) == [0, 2, 4] and len(good) == 6


def test_resume_retries_failed_cells_and_skips_finished_ones(tmp_path):
    marker = tmp_path / "marker"
    first = _run(tmp_path, n=4, fail=(2,), fail_unless=str(marker), workers=1)
    assert first.n_failed == 1 and first.n_run == 4
    marker.touch()
    second = _run(tmp_path, n=4, fail=(2,), fail_unless=str(marker), workers=1, resume=True)
    assert (second.n_run, second.n_skipped, second.n_failed) == (1, 3, 0)
    assert (second.table["cell_status"] == "ok").all()
    assert not list((tmp_path / "run" / "parts").glob("*.error.parquet"))
    fresh = _run(tmp_path, "fresh", n=4, fail=(2,), fail_unless=str(marker), workers=1)
    pd.testing.assert_frame_equal(stable_table(second.table), stable_table(fresh.table))


def test_resume_refuses_another_seed_and_fresh_run_starts_over(tmp_path):
    _run(tmp_path, n=3, workers=1, seed=3)
    with pytest.raises(InvalidInputError, match="seed=3"):
        _run(tmp_path, n=3, workers=1, seed=4, resume=True)
    again = _run(tmp_path, n=3, workers=1, seed=3)  # no --resume: everything runs again
    assert again.n_run == 3 and again.n_skipped == 0


def test_a_dying_worker_stops_the_run_with_a_clear_error(tmp_path):
    exp = Experiment("crash", "", lambda q: [{"k": 0, "crash": True}], selftest.run_cell, selftest.report)
    with pytest.raises(VcschedError, match="worker process died while running cell 0.*--resume"):
        run_cells(exp, tmp_path / "crash", workers=1, progress=False)


def test_bad_grids_are_rejected(tmp_path):
    dup = Experiment("dup", "", lambda q: [{"k": 1}, {"k": 1}], selftest.run_cell, selftest.report)
    with pytest.raises(InvalidInputError, match="same parameters"):
        run_cells(dup, tmp_path / "dup", workers=1, progress=False)
    reserved = Experiment("res", "", lambda q: [{"seed": 1}], selftest.run_cell, selftest.report)
    with pytest.raises(InvalidInputError, match="harness column"):
        run_cells(reserved, tmp_path / "res", workers=1, progress=False)
    with pytest.raises(InvalidInputError, match="workers"):
        _run(tmp_path, n=1, workers=0)


def test_resume_after_sigkill_gives_the_uninterrupted_table(tmp_path):
    out = tmp_path / "killed"
    script = textwrap.dedent(f"""
        from benchmarks import selftest
        from benchmarks.harness import run_cells
        run_cells(selftest.experiment(n=10, sleep=0.3), {str(out)!r}, workers=2, progress=False)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    parts = out / "parts"
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and len(list(parts.glob("*.parquet"))) < 3:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole run (coordinator and its workers) dies at once
        proc.wait()
    done = len(list(parts.glob("*.parquet")))
    assert 3 <= done < 10, "the run should have been killed mid-way"
    assert not (out / "results.parquet").exists()
    (parts / f".{cell_id({'k': 99})}.parquet.12345.tmp").write_bytes(b"half-written garbage")
    partial = load_results(out)
    assert len(partial) == 2 * done and not partial.duplicated(["cell", "row"]).any()  # complete parts, no duplicate
    resumed = _run(tmp_path, "killed", n=10, sleep=0.3, workers=2, resume=True)
    assert resumed.n_skipped == done and resumed.n_run == 10 - done
    assert not list(parts.glob(".*.tmp"))
    straight = _run(tmp_path, "straight", n=10, sleep=0.3, workers=2)
    pd.testing.assert_frame_equal(stable_table(resumed.table), stable_table(straight.table))


def test_dask_local_cluster_gives_the_process_pool_table(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    pool = _run(tmp_path, "pool", n=6, fail=(4,), workers=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            via_address = _run(tmp_path, "dask", n=6, fail=(4,), scheduler=cluster.scheduler_address)
            via_client = _run(tmp_path, "dask2", n=6, fail=(4,), scheduler=client)
    pd.testing.assert_frame_equal(stable_table(via_address.table), stable_table(pool.table))
    pd.testing.assert_frame_equal(stable_table(via_client.table), stable_table(pool.table))
    assert via_address.n_failed == 1


def test_run_experiment_builds_the_report_and_lists_written_files(tmp_path):
    summary = run_experiment(selftest.experiment(n=3), tmp_path, workers=1, progress=False)
    assert summary.out_dir == tmp_path / "selftest"
    assert {p.name for p in summary.files} == {"selftest.csv", "selftest.md"}
    assert "draw" in summary.report


@pytest.mark.slow  # ~15 s: starts two Dask worker processes that import the whole toolkit
def test_dask_worker_processes_run_a_real_experiment(tmp_path):
    """Cells pickled to separate Dask worker processes give the process pool's table (demo, quick)."""
    distributed = pytest.importorskip("dask.distributed")
    pool = run_experiment("demo", tmp_path / "pool", quick=True, workers=2, progress=False, report=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        dask = run_experiment("demo", tmp_path / "dask", quick=True, scheduler=cluster.scheduler_address,
                              progress=False, report=False)
    pd.testing.assert_frame_equal(stable_table(dask.table), stable_table(pool.table))
    assert (dask.table["cell_status"] == "ok").all()
    assert {"milp", "lp"} <= set(dask.table["method"])


def test_every_registered_experiment_imports_and_declares_valid_grids():
    from benchmarks.harness import check_cells, discover

    found, broken = discover()
    assert not broken, broken
    assert {"demo", "vc-milp"} <= set(found)
    for name, exp in found.items():
        assert isinstance(exp.description, str) and exp.description, name
        for quick in (True, False):
            cells = exp.cells(quick)
            assert cells, f"{name}: empty grid (quick={quick})"
            check_cells(name, cells)  # dicts of JSON scalars, unique, no harness column names
