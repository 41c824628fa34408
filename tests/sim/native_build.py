"""The C extension ``vcsched._speedups`` for the tests, built from the sources when it is not installed.

A source checkout run with ``PYTHONPATH`` has no built extension unless someone ran
``pip install -e .`` or ``python setup.py build_ext --inplace``. So that the compiled path
is always tested where a C compiler exists, :func:`load` builds ``vcsched/_speedups.c``
into a folder of the temporary directory named after the source's hash (once per
machine and source) and loads it from there. None when there is no compiler.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "vcsched" / "_speedups.c"

_loaded: dict = {}


def load():
    """The ``vcsched._speedups`` module of this checkout's source (installed, or built here), or None."""
    if "module" in _loaded:
        return _loaded["module"]
    from vcsched import native

    module = native.speedups() if not os.environ.get("VCSCHED_NO_C") else None
    if module is None:
        module = _build()
        if module is not None and getattr(module, "VERSION", None) != native.VERSION:
            module = None
    _loaded["module"] = module
    return module


def _build():
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"vcsched-speedups-{os.getuid() if hasattr(os, 'getuid') else 0}"
    target = folder / f"_speedups_{digest}{sysconfig.get_config_var('EXT_SUFFIX')}"
    if not target.exists():
        try:
            from setuptools import Distribution, Extension
            from setuptools.command.build_ext import build_ext

            with tempfile.TemporaryDirectory() as tmp:
                dist = Distribution({"ext_modules": [Extension("_speedups", [str(SOURCE)])],
                                     "script_name": "setup.py"})
                cmd = build_ext(dist)
                cmd.build_lib, cmd.build_temp = tmp, os.path.join(tmp, "t")
                cmd.ensure_finalized()
                cmd.run()
                built = next(Path(tmp).glob("_speedups*"))
                folder.mkdir(mode=0o700, exist_ok=True)
                part = folder / f".{target.name}.{os.getpid()}"
                part.write_bytes(built.read_bytes())
                os.replace(part, target)
        except Exception:  # noqa: BLE001 - no compiler, no setuptools: the compiled path cannot be tested here
            return None
    loader = importlib.machinery.ExtensionFileLoader("_speedups", str(target))
    spec = importlib.util.spec_from_file_location("_speedups", str(target), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def use(kind: str, monkeypatch) -> None:
    """Make :func:`vcsched.native.speedups` return the C extension (``kind="c"``; the test is skipped without a
    compiler) or None (``kind="fallback"``: the numba and Python paths), for the rest of a test."""
    from vcsched import native

    if kind == "c":
        module = load()
        if module is None:
            import pytest

            pytest.skip("no C compiler: the C extension cannot be built")
        monkeypatch.delenv("VCSCHED_NO_C", raising=False)
        monkeypatch.setitem(native._cache, "module", module)
    else:
        monkeypatch.setenv("VCSCHED_NO_C", "1")
