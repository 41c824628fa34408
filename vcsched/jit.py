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

numba checks a cached function against its own file only; here the check
covers every project module the function's file imports
(:func:`vcsched.jitstamp.dependency_stamp`), so that editing a compiled helper
recompiles its callers in an existing checkout instead of running stale code.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

import numba
from numba.core import caching

from vcsched.jitstamp import dependency_stamp

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


class _DependencyStamped(caching._CacheLocator):
    """numba's own locator for a project file (same folder, same file names), with a source stamp
    that also covers the project modules the file imports."""

    def __init__(self, inner, stamp: str):
        self._inner = inner
        self._stamp = stamp

    def ensure_cache_path(self):
        self._inner.ensure_cache_path()

    def get_cache_path(self):
        return self._inner.get_cache_path()

    def get_source_stamp(self):
        return (self._inner.get_source_stamp(), self._stamp)

    def get_disambiguator(self):
        return self._inner.get_disambiguator()

    @classmethod
    def from_function(cls, py_func, py_file):
        for other in caching.CacheImpl._locator_classes:
            inner = None if other is cls else other.from_function(py_func, py_file)
            if inner is not None:
                stamp = dependency_stamp(py_file)
                return inner if stamp is None else cls(inner, stamp)
        return None


@contextlib.contextmanager
def _dependency_stamps():
    """numba's locators with :class:`_DependencyStamped` first, while a function is decorated."""
    own = caching.CacheImpl.__dict__.get("_locator_classes")
    if not own:
        yield
        return
    caching.CacheImpl._locator_classes = [_DependencyStamped, *own]
    try:
        yield
    finally:
        caching.CacheImpl._locator_classes = own


def _cached(fn, options: dict):
    try:
        with _dependency_stamps():
            return numba.njit(cache=True, **options)(fn)
    except RuntimeError as exc:
        if "cannot cache" not in str(exc):
            raise
    if _use_fallback_dir():
        try:
            with _dependency_stamps():
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
