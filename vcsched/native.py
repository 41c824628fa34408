"""The optional C extension ``vcsched._speedups``: compiled loops of the batch path without numba's start-up.

``pip install`` builds it with the package when a C compiler is present (``setup.py``,
``optional=True``); in a source checkout, ``python setup.py build_ext --inplace`` builds
it beside the sources. :func:`speedups` returns the module, or None when it is absent, when
it was built from another version of ``_speedups.c`` (its ``VERSION`` differs from
:data:`VERSION`), or when the environment variable ``VCSCHED_NO_C`` is set (to a non-empty
value other than ``0``). Every caller then runs the same rule in numba or plain Python:

* SWF data lines: :func:`vcsched.problems.swf_fast.parse_fast`;
* a whole run of one FCFS/EASY cluster: :meth:`vcsched.sim.Grid.run`;
* processor numbers and the rows of ``jobs.csv``: :mod:`vcsched.sim.output`.

The C functions are tested equal to their fallbacks in ``tests/sim/test_sim_whole_run.py`` and
``tests/sim/test_sim_plain_batch.py`` (both paths in one run, :mod:`tests.sim.native_build`).
"""

from __future__ import annotations

import importlib
import os

__all__ = ["VERSION", "speedups"]

VERSION = 1
"""The ``SPEEDUPS_VERSION`` of ``vcsched/_speedups.c`` this Python code expects."""

_cache: dict = {}


def speedups():
    """The loaded ``vcsched._speedups`` module, or None (see the module docstring)."""
    if os.environ.get("VCSCHED_NO_C", "") not in ("", "0"):
        return None
    if "module" not in _cache:
        try:
            module = importlib.import_module("vcsched._speedups")
        except ImportError:
            module = None
        if module is not None and getattr(module, "VERSION", None) != VERSION:
            module = None
        _cache["module"] = module
    return _cache["module"]
