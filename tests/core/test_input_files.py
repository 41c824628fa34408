"""Every input file is read by one reader with a byte budget; hostile paths are one line.

Devices (``/dev/zero``), FIFOs (never waited on) and symbolic links to them are
refused, a file over the limit is refused whatever ``stat`` says (sparse file,
gzip bomb), and paths that cannot be expanded or entered are one
:class:`InvalidInputError` line, for every command that reads a file.
"""

from __future__ import annotations

import gzip
import os
import time

import pytest

from vcsched.cli import main
from vcsched.data import path_exists, trace_path, user_path
from vcsched.errors import InvalidInputError
from vcsched.problems import jsonfile
from vcsched.problems.jsonfile import load_json, read_input_bytes
from vcsched.problems.workload import read_swf

GOOD = "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1"
LONG = "a" * 300


def one_line(capsys, argv, fragment):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    _, err = capsys.readouterr()
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert fragment in err, err
    return err


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("make", ["device", "symlink", "fifo"])
def test_non_regular_files_are_refused_at_once(tmp_path, fifo, make):
    path = {"device": "/dev/zero", "fifo": str(fifo)}.get(make)
    if make == "symlink":
        path = str(tmp_path / "z.json")
        os.symlink("/dev/zero", path)
    t0 = time.monotonic()
    with pytest.raises(InvalidInputError, match="not a regular file"):
        read_input_bytes(path, what="VCSched instance")
    assert time.monotonic() - t0 < 1.0  # no read of /dev/zero, no wait on the FIFO


def test_the_budget_holds_whatever_stat_says(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonfile, "MAX_FILE_BYTES", 1000)
    big = tmp_path / "big.swf"
    big.write_text(";" * 1001)
    with pytest.raises(InvalidInputError, match="larger than the 1,000-byte limit"):
        read_input_bytes(big, what="trace", limit=1000)
    bomb = tmp_path / "bomb.swf.gz"
    bomb.write_bytes(gzip.compress(b"0" * 5000))  # small on disk, 5,000 bytes inflated
    assert bomb.stat().st_size < 1000
    with pytest.raises(InvalidInputError, match=r"limit for a trace \(decompressed\)"):
        read_input_bytes(bomb, what="trace", limit=1000)
    assert read_input_bytes(bomb, what="trace", limit=5000) == b"0" * 5000


def test_sparse_file_over_the_limit(tmp_path):
    sparse = tmp_path / "sparse.swf"
    with open(sparse, "wb") as fh:
        fh.truncate(jsonfile.MAX_FILE_BYTES + 10)  # no data blocks: the check is on what is read
    with pytest.raises(InvalidInputError, match="larger than the"):
        read_swf(sparse)


def test_duplicate_keys_are_refused_naming_the_key(tmp_path):
    for text, key in [('{"mem": 2.0, "mem": 0.5}', "mem"),
                      ('{"hosts": 2, "jobs": [], "hosts": 3}', "hosts"),
                      ('{"clusters": [{"procs": 4, "procs": 8}]}', "procs"),
                      ('{"m": 2, "tasks": [{"weight": -5, "weight": 2, "times": [1]}]}', "weight")]:
        path = tmp_path / "d.json"
        path.write_text(text)
        with pytest.raises(InvalidInputError, match=f"key '{key}' appears twice"):
            load_json(path)


def test_maxprocs_header_of_5000_digits(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: " + "9" * 5000 + "\n" + GOOD + "\n")
    with pytest.raises(InvalidInputError, match="header line MaxProcs: an integer of 5,000 digits; at most 18"):
        read_swf(path)


def test_paths_that_cannot_be_expanded_or_are_too_long(tmp_path, monkeypatch):
    with pytest.raises(InvalidInputError, match="no such user"):
        user_path("~nosuchuser_vcsched/x.swf", what="--swf")
    with pytest.raises(InvalidInputError, match="File name too long"):
        path_exists(tmp_path / (LONG + ".swf"))
    assert not path_exists(tmp_path / "missing" / "x.swf")
    monkeypatch.setenv("VCSCHED_TRACES", "~nosuchuser_vcsched/traces")
    with pytest.raises(InvalidInputError, match=r"\$VCSCHED_TRACES ~nosuchuser_vcsched/traces: cannot expand"):
        trace_path("x.swf")
    monkeypatch.setenv("VCSCHED_TRACES", str(tmp_path / LONG))
    with pytest.raises(InvalidInputError, match="File name too long"):
        trace_path("x.swf")


@pytest.mark.skipif(os.geteuid() == 0, reason="root enters every folder")
def test_a_folder_the_user_may_not_enter(tmp_path):
    folder = tmp_path / "closed"
    folder.mkdir()
    (folder / "t.swf").write_text(GOOD + "\n")
    folder.chmod(0)
    try:
        with pytest.raises(InvalidInputError, match="Permission denied"):
            trace_path(str(folder / "t.swf"))
        with pytest.raises(InvalidInputError, match="Permission denied"):
            read_swf(folder / "t.swf")
    finally:
        folder.chmod(0o700)


@pytest.mark.parametrize("argv, fragment", [
    (["vc", "solve", "/dev/zero", "--method", "mcb8"], "/dev/zero: is not a regular file"),
    (["moldable", "solve", "/dev/zero", "--method", "gang"], "/dev/zero: is not a regular file"),
    (["grid", "simulate", "--trace", "/dev/zero", "--procs", "8"], "/dev/zero: is not a regular file"),
    (["grid", "simulate", "--platform", "/dev/zero"], "/dev/zero: is not a regular file"),
    (["grid", "simulate", "--trace", "~nosuchuser_vcsched/x.swf", "--procs", "8"], "no such user"),
    (["grid", "simulate", "--trace", LONG + ".swf", "--procs", "8"], "File name too long"),
    (["grid", "simulate", "--platform", "~nosuchuser_vcsched/p.json"], "no such user"),
    (["grid", "simulate", "--platform", LONG + ".json"], "File name too long"),
    (["vc", "adapt", "--hosts", "4", "--swf", "~nosuchuser_vcsched/x.swf", "--policy", "none", "--budget", "0",
      "--duration", "10"], "no such user"),
    (["vc", "adapt", "--hosts", "4", "--swf", LONG + ".swf", "--policy", "none", "--budget", "0",
      "--duration", "10"], "File name too long"),
    (["vc", "solve", "~nosuchuser_vcsched/f.json", "--method", "mcb8"], "no such user"),
    (["vc", "solve", LONG + ".json", "--method", "mcb8"], "File name too long"),
])
def test_hostile_paths_in_every_command(capsys, argv, fragment):
    one_line(capsys, argv, fragment)


def test_fifo_through_the_command_line(capsys, fifo):
    one_line(capsys, ["grid", "simulate", "--trace", str(fifo), "--procs", "8"], "not a regular file")
    one_line(capsys, ["vc", "solve", str(fifo), "--method", "mcb8"], "not a regular file")
