"""VCSched heuristics (seed 001 §3.2-3.5, §5).

Every heuristic is a function ``f(instance, *, rng=None, **options) -> Result``
registered in :data:`REGISTRY`; a heuristic that finds no placement returns
status ``failed``, never an allocation the checker rejects:

``mcb1`` .. ``mcb8``  multi-capacity bin packing with binary search on the yield (§3.4)
``gr``, ``sg``        greedy, sorted greedy (§3.3)
``gb``, ``sgb``       the same with bounded backtracking (§3.3)
``rrnd``, ``rrnz``    randomized rounding of the LP relaxation (§3.2)

Each is followed by the average-yield phase (§3.5); ``Result.seconds`` is the
total time and ``extra["seconds_first_phase"]`` the time without that phase
(what the paper reports).

``REGISTRY`` and the heuristics are loaded on first use (PEP 562 module
``__getattr__``), so that importing one module of this package (e.g.
:mod:`heuristics.vc.mcb`, whose numpy-free path serves ``vcsched vc solve
--method mcb8`` on small instances) does not import the others and numpy.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["REGISTRY", "mcb1", "mcb2", "mcb3", "mcb4", "mcb5", "mcb6", "mcb7", "mcb8",
           "gr", "sg", "gb", "sgb", "rrnd", "rrnz"]

_MODULES = {
    **{f"mcb{v}": "heuristics.vc.mcb" for v in range(1, 9)},
    "gr": "heuristics.vc.greedy", "sg": "heuristics.vc.greedy", "gb": "heuristics.vc.greedy",
    "sgb": "heuristics.vc.greedy", "rrnd": "heuristics.vc.rounding", "rrnz": "heuristics.vc.rounding",
}
"""Registered name -> module defining the function of that name, in registry order."""


def _build_registry():
    from vcsched.registry import Registry

    registry = Registry("VCSched heuristic")
    for name, module in _MODULES.items():
        registry.register(name)(getattr(importlib.import_module(module), name))
    return registry


def __getattr__(name: str) -> Any:
    if name == "REGISTRY":
        value = _build_registry()
    elif name in _MODULES:
        value = getattr(importlib.import_module(_MODULES[name]), name)
    else:
        raise AttributeError(f"module 'heuristics.vc' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
