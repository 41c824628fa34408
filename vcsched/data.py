"""Where the toolkit finds data that stays out of the repository (real SWF traces).

One setting: the environment variable ``VCSCHED_TRACES``. When it is not set,
the default is ``../shared/data/traces`` next to the repository (the layout of
the project's machines and CI), then the same path relative to the current
directory.

Paths given by the user (an option, ``VCSCHED_TRACES``) go through
:func:`user_path` and :func:`path_exists`: ``~user`` of an unknown user, a name
too long for the file system or a folder the user may not enter are one
:class:`~vcsched.errors.InvalidInputError` line, never a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

from vcsched.errors import InvalidInputError

__all__ = ["TRACES_ENV", "traces_dir", "trace_path", "reference_schedules_dir", "user_path", "path_exists"]

TRACES_ENV = "VCSCHED_TRACES"
_REPO_ROOT = Path(__file__).resolve().parent.parent


def _shared_candidates(*parts: str) -> list[Path]:
    return [_REPO_ROOT.parent / "shared" / "data" / Path(*parts), Path.cwd().parent / "shared" / "data" / Path(*parts)]


def user_path(text: str | os.PathLike, *, what: str = "path") -> Path:
    """``text`` as a :class:`Path` with ``~`` and ``~user`` expanded; an unknown user is refused.

    ``what`` names the path in the message (``"--swf"``, ``"$VCSCHED_TRACES"``).
    """
    try:
        return Path(text).expanduser()
    except RuntimeError:  # ~nosuchuser
        raise InvalidInputError(f"{what} {os.fspath(text)}: cannot expand '~' (no such user)") from None


def path_exists(path: Path, *, what: str = "path") -> bool:
    """Whether ``path`` exists: False when it (or a folder on the way) does not; a name too
    long, a folder the user may not enter or another system error is one line naming it."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        raise InvalidInputError(f"{what} {path}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:  # embedded NUL byte
        raise InvalidInputError(f"{what} {path!r}: not a valid path ({exc})") from None
    return True


def traces_dir() -> Path:
    """The folder holding the SWF traces (``$VCSCHED_TRACES`` or ``../shared/data/traces``)."""
    env = os.environ.get(TRACES_ENV)
    if env:
        return user_path(env, what=f"${TRACES_ENV}")
    for cand in _shared_candidates("traces"):
        if cand.is_dir():
            return cand
    return _shared_candidates("traces")[0]


def trace_path(name: str) -> Path:
    """Full path of a trace file by name; a clear error when it is missing.

    A path that exists as given (absolute, or relative to the current directory) is returned as is; a bare
    name is looked up in :func:`traces_dir`, as the file's name or as its short name (:func:`short_name_matches`,
    when exactly one file matches).
    """
    given = user_path(name, what="trace")
    if path_exists(given, what="trace"):
        return given
    if len(given.parts) > 1:  # a path, not a bare name: say where it was looked for
        raise InvalidInputError(
            f"trace {name!r}: no such file ({given.absolute()}); give an existing path, or the bare file name "
            f"to look it up in {traces_dir()} (${TRACES_ENV})")
    path = traces_dir() / name
    if path_exists(path, what="trace"):
        return path
    matches = short_name_matches(name, traces_dir())
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise InvalidInputError(
            f"trace {name!r} is ambiguous in {traces_dir()}: {', '.join(m.name for m in matches)}; give the file name")
    raise InvalidInputError(
        f"trace {name!r} not found in {traces_dir()}: download it from the Parallel Workloads Archive "
        f"and set {TRACES_ENV} to the folder that holds it"
    )


def short_name_matches(name: str, folder: Path) -> list[Path]:
    """The files of ``folder`` a short trace name stands for: the Parallel Workloads Archive names its files
    ``<machine>-<year>-<version>-cln.swf.gz``, so ``CTC-SP2`` stands for the file whose name starts with
    ``CTC-SP2-`` (or ``CTC-SP2.``, as ``lublin_256`` for ``lublin_256.swf.gz``)."""
    try:
        files = list(folder.iterdir()) if name else []
    except OSError:  # no such folder, or one the user may not read: the caller says "not found"
        return []
    return sorted(f for f in files if f.name.startswith((name + "-", name + ".")) and ".swf" in f.name and f.is_file())


def reference_schedules_dir() -> Path:
    """``../shared/data/reference-schedules`` (used by tests when present)."""
    for cand in _shared_candidates("reference-schedules"):
        if cand.is_dir():
            return cand
    return _shared_candidates("reference-schedules")[0]
