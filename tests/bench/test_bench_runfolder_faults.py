"""Run folders under faults: nothing finished is lost, every refusal is one line.

Every check (the folder's layout, the scheduler's address and connection) comes
before the run deletes or writes anything; a part with no rows is not finished;
a write that fails mid-run (disk full) is one line and keeps the finished parts.
"""

from __future__ import annotations

import errno
import os

import pandas as pd
import pytest

from benchmarks import executors, selftest
from benchmarks.harness import run_cells
from vcsched.cli import main
from vcsched.errors import InvalidInputError


def _run(out, **kwargs):
    return run_cells(selftest.experiment(n=4), out, progress=False, workers=1, **kwargs)


@pytest.fixture
def finished(tmp_path):
    """A finished run of 4 cells and the bytes of its parts."""
    out = tmp_path / "run"
    _run(out)
    parts = {p.name: p.read_bytes() for p in (out / "parts").glob("*.parquet")}
    assert len(parts) == 4
    return out, parts


def _parts_intact(out, parts):
    return {p.name: p.read_bytes() for p in (out / "parts").glob("*.parquet") if p.is_file()} == parts


@pytest.mark.parametrize("address, fragment", [
    ("foo://bar", "--scheduler foo://bar: expected an address like tcp://host:8786"),
    ("tcp://", "--scheduler tcp://: no host"),
    ("tcp://127.0.0.1:1", "--scheduler tcp://127.0.0.1:1: cannot connect"),
])
def test_a_bad_scheduler_touches_nothing(finished, monkeypatch, address, fragment):
    # without --resume the run would start over by deleting the parts: the refusal comes first
    out, parts = finished
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", "0.5s")
    with pytest.raises(InvalidInputError, match=fragment.replace(".", r"\.")):
        run_cells(selftest.experiment(n=4), out, progress=False, scheduler=address)
    assert _parts_intact(out, parts)
    assert (out / "results.parquet").exists()


def test_cli_refuses_a_bad_scheduler_address_before_the_run_folder(tmp_path, capsys):
    code = main(["bench", "run", "demo", "--quick", "--out", str(tmp_path), "--scheduler", "foo://bar"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "expected an address like tcp://host:8786" in err
    assert not (tmp_path / "demo").exists()


def test_resume_reruns_a_part_with_no_rows(finished, capsys):
    out, parts = finished
    name = sorted(parts)[1]
    path = out / "parts" / name
    pd.read_parquet(path).iloc[0:0].to_parquet(path, index=False)  # valid Parquet, 0 rows
    resumed = _run(out, resume=True)
    assert resumed.n_run == 1 and resumed.n_skipped == 3
    assert len(pd.read_parquet(out / "results.parquet").drop_duplicates("cell")) == 4
    assert (out / "parts" / (name + ".corrupt")).exists()
    assert f"{path} holds no rows" in capsys.readouterr().err


@pytest.mark.parametrize("entry, kind, fragment", [
    ("parts", "file", "parts is a file, not a folder"),
    ("results.csv", "folder", "results.csv is not a file"),
    ("results.parquet", "folder", "results.parquet is not a file"),
    ("run.json", "folder", "run.json is not a file"),
    ("parts/x.parquet", "folder", "x.parquet is not a file"),
])
def test_wrong_kinds_of_entries_are_refused_before_anything_changes(finished, entry, kind, fragment):
    # without --resume the run would start over by deleting the parts: the refusal comes first
    out, parts = finished
    path = out / entry
    if path.is_dir():
        os.rename(path, out / "parts-moved")
    elif path.exists():
        path.unlink()
    path.mkdir() if kind == "folder" else path.write_text("")
    with pytest.raises(InvalidInputError, match=fragment):
        _run(out)
    if entry != "parts":
        assert _parts_intact(out, parts)
    else:
        assert {p.name for p in (out / "parts-moved").glob("*.parquet")} == set(parts)


def test_a_full_disk_mid_run_is_one_line_and_keeps_finished_parts(finished, monkeypatch):
    out, parts = finished
    victim = out / "parts" / sorted(parts)[0]
    victim.unlink()  # one cell to run again
    real = pd.DataFrame.to_parquet

    def full(self, path, *args, **kwargs):
        if str(path).endswith(".tmp") and "parts" in str(path):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    with pytest.raises(InvalidInputError, match=r"No space left on device\); the finished parts in .* are kept"):
        _run(out, resume=True)
    left = {p.name for p in (out / "parts").iterdir()}
    assert left == set(parts) - {victim.name}  # no temporary file, nothing finished lost
    monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
    assert _run(out, resume=True).n_run == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in read-only folders")
def test_parts_not_writable(finished):
    out, parts = finished
    (out / "parts").chmod(0o500)
    try:
        with pytest.raises(InvalidInputError, match="cannot write in"):
            _run(out)
        assert _parts_intact(out, parts)
    finally:
        (out / "parts").chmod(0o700)
