"""Mapping heuristics for time-shared servers (seed 003): MCT as in NetSolve, HMCT, MP, MSF.

Each heuristic is a :class:`vcsched.sim.timeshare.TimesharePolicy` registered by name
in :data:`REGISTRY` (a factory: ``REGISTRY.get("msf")()`` gives a fresh policy).
:func:`run_heuristic` simulates one heuristic on an instance and :func:`evaluate`
gives the metrics of §3 for several, with the comparison against MCT; :func:`result_row` is one
heuristic's row as ``timeshare simulate`` prints it.
"""

from heuristics.timeshare.policies import (
    HMCT,
    MCT,
    MP,
    MSF,
    REGISTRY,
    HTMPolicy,
    evaluate,
    result_row,
    run_heuristic,
)

__all__ = ["REGISTRY", "MCT", "HMCT", "MP", "MSF", "HTMPolicy", "run_heuristic", "evaluate", "result_row"]
