"""``njit`` for the simulators and the SWF reader: numba's, with a cache that never stops a run.

numba keeps compiled code beside the module (``__pycache__``), in
``NUMBA_CACHE_DIR`` when set, or in the user's cache folder; where none is
writable (a read-only shared installation with ``NUMBA_CACHE_DIR`` on a
read-only file system, or ``/dev/null``), ``njit(cache=True)`` raises
``RuntimeError: cannot cache function ...: no locator available``. Here the
compiled code is then cached in a private folder of the user under the
temporary directory (``vcsched-numba-<uid>``), or, if that cannot be written
either, not cached at all (compiled again in every process). Either way one
note on standard error says so, once per process.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numba

__all__ = ["njit", "fallback_cache_dir"]

_state = {"noted": False, "fallback": None}


def _note(text: str) -> None:
    if not _state["noted"]:
        _state["noted"] = True
        print(f"vcsched: note: {text}", file=sys.stderr)


def fallback_cache_dir() -> Path:
    """The private cache folder used when numba finds no writable one."""
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"vcsched-numba-{uid}"


def _use_fallback_dir() -> bool:
    """Point numba's cache at :func:`fallback_cache_dir` (once); False when it cannot be written."""
    from numba.core import config

    if _state["fallback"] is None:
        folder = fallback_cache_dir()
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            if hasattr(os, "getuid") and folder.stat().st_uid != os.getuid():
                raise PermissionError(f"{folder} belongs to another user")
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError:
            _state["fallback"] = False
        else:
            config.CACHE_DIR = str(folder)
            _state["fallback"] = True
    return bool(_state["fallback"])


def _cached(fn, options: dict):
    try:
        return numba.njit(cache=True, **options)(fn)
    except RuntimeError as exc:
        if "cannot cache" not in str(exc):
            raise
    if _use_fallback_dir():
        try:
            compiled = numba.njit(cache=True, **options)(fn)
        except RuntimeError as exc:
            if "cannot cache" not in str(exc):
                raise
        else:
            _note(f"numba cannot write its cache beside the installation nor in its cache folder; "
                  f"compiled code is cached in {fallback_cache_dir()}")
            return compiled
    _note("numba cannot write a cache anywhere; the simulator's compiled functions are compiled again "
          "in every process")
    return numba.njit(**options)(fn)


def njit(*args, cache: bool = False, **options):
    """``numba.njit`` (same use: ``@njit``, ``@njit(cache=True)``); with ``cache=True`` a cache
    folder that cannot be written falls back as the module docstring says."""

    def decorate(fn):
        return _cached(fn, options) if cache else numba.njit(**options)(fn)

    if args and callable(args[0]) and len(args) == 1:
        return decorate(args[0])
    return decorate
