"""VCSched heuristics (seed 001 §3.2-3.5, §5) and the table of every VCSched method.

Every heuristic is a function ``f(instance, *, rng=None, **options) -> Result``; a
heuristic that finds no placement returns status ``failed``, never an allocation the
checker rejects:

``mcb1`` .. ``mcb8``  multi-capacity bin packing with binary search on the yield (§3.4)
``gr``, ``sg``        greedy, sorted greedy (§3.3)
``gb``, ``sgb``       the same with bounded backtracking (§3.3)
``rrnd``, ``rrnz``    randomized rounding of the LP relaxation (§3.2)

Each is followed by the average-yield phase (§3.5); ``Result.seconds`` is the
total time and ``extra["seconds_first_phase"]`` the time without that phase
(what the paper reports).

:data:`REGISTRY` holds them by name with the migration-budget rule of
:mod:`heuristics.vc.methods` (on an instance with current hosts, a placement that
moves more than the budget is ``failed``); :func:`solve` runs any VCSched method
(exact, bound, heuristic, adaptation policy) by name, as ``vcsched vc solve`` does.
They are loaded on first use (PEP 562 module ``__getattr__``), so that importing one
module of this package does not import the others.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["REGISTRY", "METHODS", "solve", "solve_many", "mcb1", "mcb2", "mcb3", "mcb4", "mcb5", "mcb6", "mcb7",
           "mcb8", "gr", "sg", "gb", "sgb", "rrnd", "rrnz"]

_FROM_METHODS = ("REGISTRY", "METHODS", "solve", "solve_many")


def __getattr__(name: str) -> Any:
    if name in _FROM_METHODS:
        value = getattr(importlib.import_module("heuristics.vc.methods"), name)
    elif name in __all__:
        from heuristics.vc.methods import heuristic_function

        value = heuristic_function(name)
    else:
        raise AttributeError(f"module 'heuristics.vc' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
