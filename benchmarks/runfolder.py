"""The run folder of a sweep (``OUT/NAME``): its lock, its part files and the checks that
``--resume`` makes on them.

* :func:`run_lock`: one run at a time per folder (``.lock``, released by the kernel when the
  holder dies, even by SIGKILL);
* :func:`check_run_layout`: before anything in the folder is touched, every entry the run
  uses has the right kind (``parts`` a writable folder, ``run.json`` and the result tables
  files, every ``parts/*.parquet`` a file), else one line naming it;
* :func:`finished_parts`: the cells whose part ``--resume`` keeps; a part that cannot be read
  or holds no rows is set aside as ``<name>.corrupt`` and its cell runs again (every finished
  part holds at least one row: a cell without rows stores a marker row); a part computed with
  another root seed is refused;
* :func:`storage_error`: a failed write (disk full, permissions) as one line that says the
  finished parts are kept.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import socket
import sys
import time
from collections.abc import Callable

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.files import atomic_write

__all__ = ["part_path", "check_run_dir", "check_run_layout", "run_lock", "read_part_seed", "finished_parts",
           "storage_error", "RUN_FILES"]

RUN_FILES = ("run.json", "results.parquet", "results.csv")
"""Files of a run folder that the run rewrites (atomically) at its end."""


def part_path(parts: pathlib.Path, cid: str, error: bool = False) -> pathlib.Path:
    """The part file of one cell (``<id>.parquet``, or ``<id>.error.parquet`` for a failed cell)."""
    return parts / (f"{cid}.error.parquet" if error else f"{cid}.parquet")


def check_run_dir(out: pathlib.Path) -> None:
    """Refuse a run folder (or a parent of it) that is a file."""
    for folder in (out, *out.parents):
        if folder.exists():
            if not folder.is_dir():
                raise InvalidInputError(f"--out: {folder} is a file, not a folder; give a folder for the results")
            return


def check_run_layout(out: pathlib.Path) -> None:
    """Refuse a run folder whose entries have the wrong kind, or whose ``parts`` cannot be written,
    before the run deletes or writes anything in it."""
    parts = out / "parts"
    if parts.exists() and not parts.is_dir():
        raise InvalidInputError(f"--out: {parts} is a file, not a folder; move it away (the run keeps its cells there)")
    for name in RUN_FILES:
        path = out / name
        if path.exists() and not path.is_file():
            raise InvalidInputError(f"--out: {path} is not a file; move it away (the run writes that file)")
    if parts.is_dir():
        for path in parts.glob("*.parquet"):
            if not path.is_file():
                raise InvalidInputError(f"--out: {path} is not a file; move it away (a part is a Parquet file)")
    _probe_writable(parts if parts.is_dir() else out)


def _probe_writable(folder: pathlib.Path) -> None:
    """Create and remove a file in ``folder`` (``os.access`` says yes to root on a read-only mount)."""
    probe = folder / f".write-probe.{os.getpid()}.tmp"
    try:
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise InvalidInputError(f"--out: cannot write in {folder} ({exc.strerror or exc}); give a writable folder") from None


def storage_error(path: pathlib.Path, exc: OSError, parts: pathlib.Path) -> InvalidInputError:
    """One line for a write that failed during a run (disk full, permissions, a folder in the way)."""
    return InvalidInputError(f"cannot write {path} ({exc.strerror or exc}); the finished parts in {parts} are kept: "
                             f"free space or fix the folder, then run again with --resume")


@contextlib.contextmanager
def run_lock(out_dir: str | os.PathLike):
    """Hold the exclusive lock of a run folder (``OUT/NAME/.lock``) for the duration of the block.

    A second holder is refused at once with a message naming the folder and the process
    that holds it. The kernel releases the lock when the holder exits or dies. Where
    ``fcntl`` does not exist (not POSIX) the folder is not locked.
    """
    out = pathlib.Path(out_dir)
    check_run_dir(out)
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidInputError(f"--out: cannot create {out} ({exc.strerror or exc})") from None
    path = out / ".lock"
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX (Windows): no lock
        yield path
        return
    new_lock = not path.exists()
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise InvalidInputError(f"--out: cannot create the lock file {path} ({exc.strerror or exc}); "
                                f"give a writable folder") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode("utf-8", errors="replace").strip() or "another process"
            raise InvalidInputError(f"{out} is in use by another run ({holder}); wait for it to finish or give "
                                    f"another --out") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}, started "
                          f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode(), 0)
        except OSError as exc:  # a full disk: nothing of this run is left behind
            _remove_new(path if new_lock else None, out if created else None)
            raise InvalidInputError(f"cannot write the lock file {path} ({exc.strerror or exc}); free space or "
                                    "give another folder") from None
        yield path
    finally:
        os.close(fd)  # releases the lock


def _remove_new(lock: pathlib.Path | None, folder: pathlib.Path | None) -> None:
    """Remove the lock file and the run folder this run created (the folder only when empty)."""
    with contextlib.suppress(OSError):
        if lock is not None:
            lock.unlink()
        if folder is not None:
            folder.rmdir()


class EmptyPart(ValueError):
    """A part file that reads as a table with no rows: not a finished cell."""


def read_part_seed(path: pathlib.Path) -> np.ndarray:
    """The ``seed`` column of a part; a part with no rows raises :class:`EmptyPart`."""
    import pyarrow.parquet as pq

    seeds = pq.read_table(path, columns=["seed"]).column("seed").to_numpy()
    if not len(seeds):
        raise EmptyPart(str(path))
    return seeds


def finished_parts(parts: pathlib.Path, ids: list[str], seeds: list[int], root_seed: int) -> set[int]:
    """Indices of cells whose finished part can be kept by ``--resume``.

    A part that cannot be read is renamed ``<name>.corrupt`` (its cell runs again); a part
    whose ``seed`` is not the cell's child seed under ``root_seed`` comes from a run with
    another root seed: refused.
    """
    done = set()
    for k, cid in enumerate(ids):
        path = part_path(parts, cid)
        if not path.exists():
            continue
        try:
            stored = read_part_seed(path)
        except Exception as exc:  # noqa: BLE001 - ArrowInvalid, OSError, KeyError, no rows: an unreadable part
            aside = path.with_name(path.name + ".corrupt")
            os.replace(path, aside)
            why = "holds no rows" if isinstance(exc, EmptyPart) else f"cannot be read ({type(exc).__name__})"
            print(f"vcsched: note: {path} {why}; set aside as {aside.name}, cell {k} runs again", file=sys.stderr)
            continue
        if int(stored[0]) != seeds[k]:
            raise InvalidInputError(
                f"--resume: {path} was computed with another root seed than --seed {root_seed} (cell {k} has "
                f"seed {int(stored[0])}, expected {seeds[k]}); give that run's --seed or drop --resume to start over")
        done.add(k)
    return done


def write_part_file(path: pathlib.Path, write: Callable[[pathlib.Path], None]) -> None:
    """:func:`vcsched.files.atomic_write` with ``fsync``; a failed write (a full disk) leaves no
    partial file and is one line naming ``path`` (:func:`benchmarks.runfolder.storage_error`)."""
    try:
        atomic_write(path, write, fsync=True)
    except OSError as exc:
        parts = path.parent if path.parent.name == "parts" else path.parent / "parts"
        raise storage_error(path, exc, parts) from None
