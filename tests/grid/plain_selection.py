"""The keys of the built-in reallocation heuristics (seed 000 §2.2.2) in plain numpy: the reference
the compiled keys of :mod:`heuristics.grid.fastselect` are tested against.

Each function takes the jobs' smallest and second smallest ECT, their current ECT and their width,
as arrays; :func:`plain_spec` gives a built-in heuristic's specification with the numpy key instead
of its compiled code, so that :func:`heuristics.grid.selection.select_job` takes the numpy path.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from heuristics.grid.selection import HEURISTICS, HeuristicSpec

_INF = float("inf")


def best_ect(best, second, current, procs):
    """MinMin (smallest) and MaxMin (largest): the job's best ECT."""
    return best


def gain(best, second, current, procs):
    """MaxGain: current ECT minus the best one."""
    return current - best


def relative_gain(best, second, current, procs):
    """MaxRelGain: the gain per processor."""
    return (current - best) / procs


def sufferage(best, second, current, procs):
    """Sufferage: second best minus best ECT (infinite when the job fits one cluster only)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(second), _INF, second - best)


def submission_order(best, second, current, procs):
    """MCT: every key 0, ties go to the first row (submission order)."""
    return np.zeros_like(best)


PLAIN_KEYS = {"mct": submission_order, "minmin": best_ect, "maxmin": best_ect, "maxgain": gain,
              "maxrelgain": relative_gain, "sufferage": sufferage}


def plain_spec(name: str) -> HeuristicSpec:
    """The built-in heuristic ``name`` with its plain numpy key (no compiled code)."""
    return dataclasses.replace(HEURISTICS.get(name), key=PLAIN_KEYS[name], code=None)
