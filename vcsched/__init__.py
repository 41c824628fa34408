"""vcsched: a toolkit for scheduling research on clusters and grids.

Core package: problem models, generators, file formats, exact PuLP
formulations (solved by HiGHS), the simulator engine and the command line.

``Result``, ``Status`` and ``Registry`` are imported on first use (PEP 562
module ``__getattr__``), so that ``import vcsched`` (and ``vcsched --help``)
loads only the error types.
"""

from __future__ import annotations

import importlib
from typing import Any

from vcsched.errors import InvalidInputError, SolverUnavailableError, UnknownNameError, VcschedError

__version__ = "0.1.0"

__all__ = [
    "Result",
    "Status",
    "Registry",
    "VcschedError",
    "InvalidInputError",
    "UnknownNameError",
    "SolverUnavailableError",
    "__version__",
]

_LAZY = {"Result": "vcsched.result", "Status": "vcsched.result", "Registry": "vcsched.registry"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'vcsched' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
