"""The run folder under hostile use: concurrent runs, edited or truncated parts, files as --out,
absurd --workers, and a coordinator killed with SIGKILL."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

from benchmarks import selftest
from benchmarks.harness import cell_id, run_cells, stable_table
from benchmarks.runfolder import run_lock
from vcsched.cli import main
from vcsched.cli.bench import _workers_text
from vcsched.errors import InvalidInputError

REPO = pathlib.Path(__file__).resolve().parents[2]


def _run(out, **kwargs):
    exp = selftest.experiment(**{k: kwargs.pop(k) for k in ("n", "sleep") if k in kwargs})
    return run_cells(exp, out, progress=False, **kwargs)


def test_a_second_run_into_a_locked_folder_exits_2_naming_folder_and_holder(tmp_path, capsys):
    run_dir = tmp_path / "demo"
    with run_lock(run_dir):
        assert main(["bench", "run", "demo", "--quick", "--out", str(tmp_path), "--workers", "1"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert f"{run_dir} is in use by another run (pid {os.getpid()} on " in err and "another --out" in err
        with pytest.raises(InvalidInputError, match="is in use by another run"):
            _run(run_dir, n=2)
    assert not (run_dir / "parts").exists(), "the refused run wrote nothing"
    assert _run(run_dir, n=2, workers=1).n_run == 2  # released at the end of the block


def test_resume_without_run_json_refuses_parts_of_another_seed(tmp_path):
    out = tmp_path / "run"
    first = _run(out, n=3, workers=1, seed=0)
    (out / "run.json").unlink()
    with pytest.raises(InvalidInputError, match=r"--resume: .*\.parquet was computed with another root seed than "
                                                r"--seed 1 \(cell 0 has seed"):
        _run(out, n=3, workers=1, seed=1, resume=True)
    again = _run(out, n=3, workers=1, seed=0, resume=True)  # the right seed keeps every part
    assert again.n_skipped == 3 and again.n_run == 0
    pd.testing.assert_frame_equal(stable_table(again.table), stable_table(first.table))


@pytest.mark.parametrize("size", [0, 100])
def test_truncated_part_is_set_aside_and_its_cell_runs_again(tmp_path, capsys, size):
    out = tmp_path / "run"
    straight = _run(out, n=4, workers=1)
    part = out / "parts" / f"{cell_id(selftest.make_cells(4)[2])}.parquet"
    part.write_bytes(part.read_bytes()[:size])
    resumed = _run(out, n=4, workers=1, resume=True)
    assert resumed.n_run == 1 and resumed.n_skipped == 3
    assert (out / "parts" / (part.name + ".corrupt")).stat().st_size == size
    assert f"{part} cannot be read" in capsys.readouterr().err
    pd.testing.assert_frame_equal(stable_table(resumed.table), stable_table(straight.table))
    assert _run(out, n=4, workers=1, resume=True).n_skipped == 4  # and the next resume is clean


def test_out_pointing_at_a_file_exits_2(tmp_path, capsys):
    afile = tmp_path / "results.txt"
    afile.write_text("keep me")
    assert main(["bench", "run", "demo", "--quick", "--out", str(afile), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert f"--out: {afile} is a file, not a folder" in err and err.count("\n") == 1
    assert afile.read_text() == "keep me"


def test_workers_are_capped_at_the_cells_to_run_and_reported(tmp_path):
    summary = _run(tmp_path / "run", n=3, workers=1_000_000)
    assert summary.workers == 3 and summary.n_run == 3
    resumed = _run(tmp_path / "run", n=3, workers=1_000_000, resume=True)
    assert resumed.workers == 0
    assert _workers_text(3, 1_000_000) == "3 worker process(es) (--workers 1000000 capped at the cells to run)"
    assert _workers_text(2, 2) == "2 worker process(es)"
    assert _workers_text(0, 4) == "no worker process (nothing to run)"


def _descendants(pid: int) -> list:
    import psutil

    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _alive(proc) -> bool:
    import psutil

    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_workers_exit_when_the_coordinator_is_killed(tmp_path):
    """kill -9 of the coordinating process: its workers (and forkserver) are gone within seconds,
    the folder lock is released, and a second run meanwhile was refused."""
    pytest.importorskip("psutil")
    out = tmp_path / "killed"
    script = textwrap.dedent(f"""
        from benchmarks import selftest
        from benchmarks.harness import run_cells
        if __name__ == "__main__":
            run_cells(selftest.experiment(n=4, sleep=60), {str(out)!r}, workers=2, progress=False)
    """)
    path = tmp_path / "coordinator.py"
    path.write_text(script)
    proc = subprocess.Popen([sys.executable, str(path)], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_descendants(proc.pid)) < 4:  # tracker, forkserver, 2 workers
            time.sleep(0.1)
        children = _descendants(proc.pid)
        assert len(children) >= 3, f"the run did not start its workers: {children}"
        with pytest.raises(InvalidInputError, match=f"in use by another run \\(pid {proc.pid} "):
            _run(out, n=4, sleep=60)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(c) for c in children):
            time.sleep(0.1)
        left = [c for c in children if _alive(c)]
        assert not left, f"still alive 15 s after the coordinator died: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for c in _descendants(proc.pid):
            c.kill()
    with run_lock(out):  # released by the kernel at the coordinator's death
        pass

