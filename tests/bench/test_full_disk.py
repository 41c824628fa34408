"""A full disk is one line and leaves nothing partial (issue 39, cause 4): the run folder's lock
(``benchmarks.runfolder.run_lock``) and ``grid convert``'s output (``save_output``)."""

from __future__ import annotations

import errno
import os

from tests.conftest import cli_error
from vcsched.cli import main


def _full(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_lock_file_on_a_full_disk_is_one_line_and_leaves_no_folder(tmp_path, capsys, monkeypatch):
    assert main(["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "-o", str(tmp_path / "a.json")]) == 0
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(os, "pwrite", _full)
    err = cli_error(capsys, ["vc", "solve", str(tmp_path / "*.json"), "-o", str(out / "r.csv"), "--workers", "1"])
    assert "cannot write the lock file" in err and "No space left on device" in err
    assert list(out.iterdir()) == []  # no r.run folder, no lock, no table


def test_convert_to_a_full_disk_leaves_nothing(tmp_path, capsys, monkeypatch):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n")
    import vcsched.problems.workload as workload

    real = workload.write_swf

    def half_then_full(w, path):
        with open(path, "w") as fh:
            fh.write("; half")
        _full()

    monkeypatch.setattr(workload, "write_swf", half_then_full)
    for name in ("k.swf", "k.swf.gz"):
        err = cli_error(capsys, ["grid", "convert", str(swf), "-o", str(tmp_path / name)])
        assert f"-o {tmp_path / name}: cannot write (No space left on device)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.swf"]
    monkeypatch.setattr(workload, "write_swf", real)
