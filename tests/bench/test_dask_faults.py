"""Faults in a sweep on a local Dask cluster of real worker processes (issue 39): a worker killed in
the middle (the run finishes, every cell once, the table of a run without the fault), and the
scheduler going away (one line, the finished parts kept, ``--resume`` completes)."""

from __future__ import annotations

import os
import signal
import threading
import time

import pandas as pd
import pytest

from benchmarks import selftest
from benchmarks.executors import SchedulerLost
from benchmarks.harness import load_results, run_cells, stable_table

distributed = pytest.importorskip("dask.distributed")

N_CELLS = 12


def _cluster():
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                    silence_logs=50)


def _when_parts(parts, count: int, action) -> threading.Thread:
    """Run ``action()`` in a thread once ``count`` cells are saved in ``parts``."""
    def wait_then_act():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(list(parts.glob("*.parquet"))) < count:
            time.sleep(0.02)
        action()

    thread = threading.Thread(target=wait_then_act, daemon=True)
    thread.start()
    return thread


def _experiment():
    return selftest.experiment(n=N_CELLS, sleep=0.4)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """The table of the same sweep without a fault (local process pool)."""
    return run_cells(_experiment(), tmp_path_factory.mktemp("pool") / "run", workers=2, progress=False).table


def test_a_worker_killed_mid_sweep_changes_nothing(tmp_path, straight):
    out = tmp_path / "run"
    killed = []
    with _cluster() as cluster:
        def kill_one_worker():
            nanny = next(iter(cluster.workers.values()))
            pid = nanny.process.process.pid
            os.kill(pid, signal.SIGKILL)  # the worker process dies with its cell; its nanny starts another
            killed.append(pid)

        thread = _when_parts(out / "parts", 3, kill_one_worker)
        summary = run_cells(_experiment(), out, scheduler=cluster.scheduler_address, progress=False)
        thread.join(5)
    assert killed, "the worker was not killed during the run"
    assert summary.n_run == N_CELLS and summary.n_failed == 0
    parts = sorted(p.name for p in (out / "parts").glob("*.parquet"))
    assert len(parts) == N_CELLS and not any(".error." in p for p in parts)  # every cell exactly once, none failed
    table = load_results(out)
    assert not table.duplicated(["cell", "row"]).any()
    pd.testing.assert_frame_equal(stable_table(summary.table), stable_table(straight))


def test_the_scheduler_going_away_is_one_line_and_resume_completes(tmp_path, straight):
    out = tmp_path / "run"
    cluster = _cluster()
    try:
        _when_parts(out / "parts", 2, cluster.close)
        with pytest.raises(SchedulerLost) as info:
            run_cells(_experiment(), out, scheduler=cluster.scheduler_address, progress=False)
    finally:
        cluster.close()
    message = str(info.value)
    assert "\n" not in message and "the Dask scheduler went away" in message and "--resume" in message
    kept = sorted((out / "parts").glob("*.parquet"))
    assert 2 <= len(kept) < N_CELLS and not any(".error." in p.name for p in kept)  # no cell blamed for the loss
    with _cluster() as cluster:
        resumed = run_cells(_experiment(), out, scheduler=cluster.scheduler_address, resume=True, progress=False)
    assert resumed.n_skipped == len(kept) and resumed.n_run == N_CELLS - len(kept) and resumed.n_failed == 0
    pd.testing.assert_frame_equal(stable_table(resumed.table), stable_table(straight))
