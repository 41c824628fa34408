"""The run folder of a sweep (``OUT/NAME``): its lock, its part files and the checks that
``--resume`` makes on them.

* :func:`run_lock`: one run at a time per folder (``.lock``, released by the kernel when the
  holder dies, even by SIGKILL);
* :func:`finished_parts`: the cells whose part ``--resume`` keeps; an unreadable part is set
  aside as ``<name>.corrupt`` and its cell runs again; a part computed with another root seed
  is refused.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import socket
import sys
import time

import numpy as np

from vcsched.errors import InvalidInputError

__all__ = ["part_path", "check_run_dir", "run_lock", "read_part_seed", "finished_parts"]


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


@contextlib.contextmanager
def run_lock(out_dir: str | os.PathLike):
    """Hold the exclusive lock of a run folder (``OUT/NAME/.lock``) for the duration of the block.

    A second holder is refused at once with a message naming the folder and the process
    that holds it. The kernel releases the lock when the holder exits or dies. Where
    ``fcntl`` does not exist (not POSIX) the folder is not locked.
    """
    out = pathlib.Path(out_dir)
    check_run_dir(out)
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
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}, started "
                      f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode(), 0)
        yield path
    finally:
        os.close(fd)  # releases the lock


def read_part_seed(path: pathlib.Path) -> np.ndarray:
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=["seed"]).column("seed").to_numpy()


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
        except Exception as exc:  # noqa: BLE001 - ArrowInvalid, OSError, KeyError: an unreadable part
            aside = path.with_name(path.name + ".corrupt")
            os.replace(path, aside)
            print(f"vcsched: note: {path} cannot be read ({type(exc).__name__}); set aside as {aside.name}, "
                  f"cell {k} runs again", file=sys.stderr)
            continue
        if len(stored) and int(stored[0]) != seeds[k]:
            raise InvalidInputError(
                f"--resume: {path} was computed with another root seed than --seed {root_seed} (cell {k} has "
                f"seed {int(stored[0])}, expected {seeds[k]}); give that run's --seed or drop --resume to start over")
        done.add(k)
    return done
