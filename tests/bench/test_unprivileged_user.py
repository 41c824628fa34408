"""Instance sets run by an unprivileged user in a world-writable folder (issue 39, cause 5), and an
OSError of the worker pool (a socket, a pipe) is not blamed on the disk."""

from __future__ import annotations

import errno
import os
import pathlib
import pwd
import shutil
import subprocess
import sys

import pytest

from vcsched.cli import main

USER = "vcsched-test"


@pytest.fixture
def created():
    """Users this test created, deleted afterwards."""
    users: list[str] = []
    yield users
    for user in users:
        subprocess.run(["userdel", user], capture_output=True)


def _unprivileged_python(created: list[str]) -> list[str]:
    """A command that runs this Python as :data:`USER`, or skip saying why."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run a command as another user (runuser)")
    if shutil.which("runuser") is None or shutil.which("useradd") is None:
        pytest.skip("runuser/useradd not installed")
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", USER], check=True, capture_output=True)
        created.append(USER)
    python = os.environ.get("VCSCHED_TEST_PYTHON", sys.executable)  # a Python every user may run, if this one is not
    cmd = ["runuser", "-u", USER, "--", python]
    probe = subprocess.run(cmd + ["-c", "import numpy, pandas"], capture_output=True,
                           env={**os.environ, "PYTHONPATH": os.getcwd()})
    if probe.returncode != 0:
        pytest.skip(f"{USER} cannot run {python} with its packages (a Python under a private home); set "
                    "VCSCHED_TEST_PYTHON to a Python (or a wrapper script) that every user may run")
    return cmd


def test_instance_set_as_an_unprivileged_user_in_a_world_writable_folder(tmp_path, created):
    cmd = _unprivileged_python(created)
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)
    for parent in [tmp_path, *tmp_path.parents]:
        if parent != pathlib.Path("/"):
            parent.chmod(parent.stat().st_mode | 0o005)
    assert main(["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "-o", str(folder / "a.json")]) == 0
    (folder / "a.json").chmod(0o644)
    proc = subprocess.run(cmd + ["-m", "vcsched.cli", "vc", "solve", ".", "-o", "r.parquet", "--workers", "1",
                                 "--method", "mcb8"], cwd=folder, capture_output=True, text=True, timeout=300,
                          env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.getcwd()})
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr.lower() and "Connection refused" not in proc.stderr
    assert (folder / "r.parquet").stat().st_uid == pwd.getpwnam(USER).pw_uid


def test_a_pool_socket_error_is_not_reported_as_a_failed_write(tmp_path, capsys, monkeypatch):
    import benchmarks.harness as harness

    def refused(*args, **kwargs):
        raise ConnectionRefusedError(errno.ECONNREFUSED, os.strerror(errno.ECONNREFUSED))

    monkeypatch.setattr(harness, "pool_outcomes", refused)
    assert main(["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "-o", str(tmp_path / "a.json")]) == 0
    code = main(["vc", "solve", str(tmp_path / "*.json"), "-o", str(tmp_path / "r.csv"), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert "worker processes could not be reached (Connection refused)" in err and "cannot write" not in err
