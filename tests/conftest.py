"""Shared test helpers: trace lookup that skips with a clear message when a trace is absent; a fake safety clock."""

from __future__ import annotations

import pytest

from vcsched.data import TRACES_ENV, traces_dir


def require_trace(name: str):
    """Path of a real SWF trace, or skip the test saying which file and how to provide it."""
    path = traces_dir() / name
    if not path.exists():
        pytest.skip(f"trace {name} not found in {traces_dir()}; set {TRACES_ENV} to the folder holding the "
                    f"Parallel Workloads Archive traces (CI has them in ../shared/data/traces)")
    return path


@pytest.fixture
def trace():
    return require_trace


@pytest.fixture
def fake_clock(monkeypatch):
    """The fake ``perf_counter`` of :mod:`tests.fake_clock` under :mod:`vcsched.jitclock` (compiles played with
    ``tests.fake_clock.play_compile``)."""
    from tests.fake_clock import installed

    yield from installed(monkeypatch)


def cli_error(capsys, argv) -> str:
    """Run ``vcsched argv`` in-process; assert exit status 2 with one line on standard error and no
    traceback (a usage error's ``SystemExit`` included); return that line."""
    from vcsched.cli import main

    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (code, err)
    return err
