"""A numba cache that cannot be written never stops a run (read-only shared installations).

numba raises ``RuntimeError: cannot cache function ...: no locator available``
at decoration time when no cache folder is writable; :mod:`vcsched.sim.jit`
then caches in a private folder of the user, or runs uncached, and says so once.
"""

from __future__ import annotations

import numba.core.caching as caching
import numba.core.config as config
import pytest

from vcsched.sim import jit


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(jit, "_state", {"noted": False, "fallback": None})
    monkeypatch.setattr(config, "CACHE_DIR", config.CACHE_DIR)
    return monkeypatch


def _twice(x):
    return 2 * x


def test_no_locator_at_all_runs_uncached_with_one_note(fresh, capsys):
    fresh.setattr(caching.CacheImpl, "_locator_classes", [])
    with pytest.raises(RuntimeError, match="cannot cache"):  # what numba alone does
        __import__("numba").njit(cache=True)(_twice)
    f = jit.njit(cache=True)(_twice)
    g = jit.njit(cache=True)(lambda x: x + 1)
    assert f(21) == 42 and g(1) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiled again in every process" in err


def test_an_unwritable_cache_dir_falls_back_to_a_private_folder(fresh, capsys, tmp_path):
    fresh.setattr(caching.CacheImpl, "_locator_classes", [caching.UserProvidedCacheLocator])
    fresh.setattr(config, "CACHE_DIR", "/dev/null")  # NUMBA_CACHE_DIR=/dev/null
    fresh.setattr(jit.tempfile, "gettempdir", lambda: str(tmp_path))
    f = jit.njit(cache=True)(_twice)
    assert f(4) == 8
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"compiled code is cached in {tmp_path}" in err
    assert jit.fallback_cache_dir().is_dir()
