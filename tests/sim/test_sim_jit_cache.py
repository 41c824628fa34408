"""A numba cache that cannot be written never stops a run (read-only shared installations).

numba raises ``RuntimeError: cannot cache function ...: no locator available``
at decoration time when no cache folder is writable; :mod:`vcsched.jit`
then caches in a private folder of the user, or runs uncached, and says so once.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import numba.core.caching as caching
import numba.core.config as config
import pytest

from vcsched import jit


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


ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("vcsched", "heuristics", "lowerbounds", "benchmarks")
DIRECT_NUMBA = re.compile(r"numba\.n?jit\(|from numba import[^\n]*\bn?jit\b")


def _sources():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path != ROOT / "vcsched" / "jit.py":
                yield path


def test_every_compiled_module_decorates_through_vcsched_jit():
    """A module calling numba's own ``njit(cache=True)`` fails at import for a user who can write
    no cache folder (a root-owned installation run by another user): its cells of an instance
    set were errors ``cannot cache function``. One decorator for all: :func:`vcsched.jit.njit`."""
    direct = [str(p.relative_to(ROOT)) for p in _sources() if DIRECT_NUMBA.search(p.read_text(encoding="utf-8"))]
    assert direct == []


def _compiled_modules():
    names = []
    for path in _sources():
        if "from vcsched.jit import njit" in path.read_text(encoding="utf-8"):
            names.append(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return names


def test_every_compiled_module_imports_where_no_cache_folder_can_be_written(tmp_path):
    """What an unprivileged user of a root-owned installation sees: no locator can write, and the
    private fallback folder cannot be created either (its parent is a file). Every compiled module
    imports, and says so in one note."""
    modules = _compiled_modules()
    assert len(modules) >= 10
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    script = ("import numba.core.caching as c, tempfile, importlib, sys\n"
              "c.CacheImpl._locator_classes = []\n"
              f"tempfile.tempdir = {str(blocker)!r}\n"
              f"for name in {modules!r}:\n"
              "    importlib.import_module(name)\n"
              "print('ok', len(sys.modules) > 0)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("ok")
    notes = [line for line in run.stderr.splitlines() if line.strip()]
    assert notes == ["vcsched: note: numba cannot write a cache anywhere; the simulator's compiled functions are "
                     "compiled again in every process"]


def _write_package(root: pathlib.Path, name: str, helper_value: int) -> None:
    package = root / name
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("from vcsched.jit import njit\n\n\n@njit(cache=True)\n"
                                       f"def value():\n    return {helper_value}\n")
    (package / "kernel.py").write_text(f"from vcsched.jit import njit\nfrom {name}.helper import value\n\n\n"
                                       "@njit(cache=True)\ndef run():\n    return value()\n")


def _fresh_kernel(name: str):
    for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[module]
    return __import__(f"{name}.kernel", fromlist=["run"])


def test_editing_a_compiled_helper_recompiles_its_cached_callers(monkeypatch, tmp_path):
    """numba alone keeps a caller's cached code when a helper of another file changes (the caller
    would return 1 after the edit below); the project's stamp covers the imported modules."""
    from vcsched import jitstamp

    name = f"stamped_{os.getpid()}"
    _write_package(tmp_path, name, 1)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(jitstamp, "PROJECT", (tmp_path, (name,)))
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "cache"))
    try:
        first = _fresh_kernel(name)
        assert first.run() == 1 and first.run.stats.cache_misses
        again = _fresh_kernel(name)
        assert again.run() == 1 and again.run.stats.cache_hits and not again.run.stats.cache_misses
        _write_package(tmp_path, name, 2)
        edited = _fresh_kernel(name)
        assert edited.run() == 2 and edited.run.stats.cache_misses
    finally:
        _fresh_kernel(name)


def test_the_stamp_follows_imports_and_ignores_unrelated_modules(tmp_path):
    from vcsched.jitstamp import dependency_stamp

    _write_package(tmp_path, "pkg", 1)
    (tmp_path / "pkg" / "other.py").write_text("X = 1\n")
    project = (tmp_path, ("pkg",))
    kernel = str(tmp_path / "pkg" / "kernel.py")
    before = dependency_stamp(kernel, project)
    (tmp_path / "pkg" / "other.py").write_text("X = 2\n")
    assert dependency_stamp(kernel, project) == before
    (tmp_path / "pkg" / "helper.py").write_text("from . import (\n    other,\n)\n")
    changed = dependency_stamp(kernel, project)
    assert changed != before
    (tmp_path / "pkg" / "other.py").write_text("X = 3\n")  # now reached through a relative import
    assert dependency_stamp(kernel, project) != changed
    assert dependency_stamp(str(tmp_path / "outside.py"), project) is None
