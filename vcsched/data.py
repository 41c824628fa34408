"""Where the toolkit finds data that stays out of the repository (real SWF traces).

One setting: the environment variable ``VCSCHED_TRACES``. When it is not set,
the default is ``../shared/data/traces`` next to the repository (the layout of
the project's machines and CI), then the same path relative to the current
directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from vcsched.errors import InvalidInputError

__all__ = ["TRACES_ENV", "traces_dir", "trace_path", "reference_schedules_dir"]

TRACES_ENV = "VCSCHED_TRACES"
_REPO_ROOT = Path(__file__).resolve().parent.parent


def _shared_candidates(*parts: str) -> list[Path]:
    return [_REPO_ROOT.parent / "shared" / "data" / Path(*parts), Path.cwd().parent / "shared" / "data" / Path(*parts)]


def traces_dir() -> Path:
    """The folder holding the SWF traces (``$VCSCHED_TRACES`` or ``../shared/data/traces``)."""
    env = os.environ.get(TRACES_ENV)
    if env:
        return Path(env).expanduser()
    for cand in _shared_candidates("traces"):
        if cand.is_dir():
            return cand
    return _shared_candidates("traces")[0]


def trace_path(name: str) -> Path:
    """Full path of a trace file by name; a clear error when it is missing.

    A path that exists as given (absolute, or relative to the current directory) is returned as is.
    """
    given = Path(name).expanduser()
    if given.exists():
        return given
    path = traces_dir() / name
    if not path.exists():
        raise InvalidInputError(
            f"trace {name!r} not found in {traces_dir()}: download it from the Parallel Workloads Archive "
            f"and set {TRACES_ENV} to the folder that holds it"
        )
    return path


def reference_schedules_dir() -> Path:
    """``../shared/data/reference-schedules`` (used by tests when present)."""
    for cand in _shared_candidates("reference-schedules"):
        if cand.is_dir():
            return cand
    return _shared_candidates("reference-schedules")[0]
