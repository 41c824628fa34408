"""Writing output files so that a failed write leaves no partial file.

Examples
--------
>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> atomic_write(folder / "out.txt", lambda tmp: tmp.write_text("done\\n"))
>>> (folder / "out.txt").read_text(), sorted(p.name for p in folder.iterdir())
('done\\n', ['out.txt'])
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["atomic_write", "FIGURE_FORMATS", "names_instance_set"]

FIGURE_FORMATS = (".png", ".svg", ".pdf")
"""The figure formats the toolkit writes (the format is chosen from the suffix)."""


def atomic_write(path: str | os.PathLike, write: Callable[[Path], None], *, fsync: bool = False,
                 keep_suffix: bool = False) -> None:
    """Call ``write(tmp)`` to write the file, then rename ``tmp`` to ``path``.

    ``tmp`` is a new hidden name in the folder of ``path``, ``.<name>.<random>.tmp`` (with
    ``keep_suffix``, ``.<stem>.<random>.tmp<suffix>``, for writers that choose the format by
    the suffix, such as matplotlib), created with the permissions ``open()`` would give. A failure (an exception of ``write``, a full disk) removes ``tmp`` and leaves
    an older file at ``path`` intact. ``fsync`` flushes the data to disk before the rename. A
    path that exists and is not a regular file (a device such as ``/dev/stdout``) is written
    directly. Exceptions propagate.
    """
    target = Path(path)
    if target.exists() and not target.is_file():
        write(target)
        return
    prefix, suffix = (f".{target.stem}.", f".tmp{target.suffix}") if keep_suffix else (f".{target.name}.", ".tmp")
    tmp = Path(_new_file(target.parent.absolute(), prefix, suffix))
    try:
        write(tmp)
        if fsync:
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would create it, not mkstemp's 0600
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def _new_file(folder: Path, prefix: str, suffix: str) -> str:
    """A new empty file ``folder/<prefix><random><suffix>``, created exclusively with mode 0600, as
    ``tempfile.mkstemp`` makes it (without importing :mod:`tempfile`, and shutil, random, bz2 and lzma
    with it: a few milliseconds at every start of a command that writes a file)."""
    for _ in range(100):
        name = os.path.join(folder, f"{prefix}{os.urandom(5).hex()}{suffix}")
        try:
            os.close(os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600))
        except FileExistsError:
            continue
        return name
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(folder))


def names_instance_set(text: str) -> bool:
    """Whether a command's instance argument names a set of instances: a glob pattern or a folder (``solve DIR``)."""
    try:
        return any(c in text for c in "*?[") or Path(text).expanduser().is_dir()
    except (RuntimeError, OSError):  # ~nosuchuser, a name too long: the file reader says it in one line
        return False
