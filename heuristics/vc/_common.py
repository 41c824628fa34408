"""Shared plumbing of the VCSched heuristics (seed 001 §3.5, §4).

Every heuristic computes a *placement* (a host per task) in its first phase,
then :func:`finish` runs the average-yield phase (§3.5, §5.1), checks the
allocation with :func:`vcsched.problems.vc.check_allocation` and builds the
:class:`~vcsched.result.Result`. The paper's run times exclude the second
phase (§4), so both are reported: ``extra["seconds_first_phase"]`` and the
total in ``Result.seconds``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from vcsched.problems.vc import VCInstance, allocation_from_placement, check_allocation
from vcsched.result import Result, Status

__all__ = ["finish", "failed", "validate_instance"]


def validate_instance(instance: Any) -> VCInstance:
    """Raise ``TypeError`` unless ``instance`` is a :class:`VCInstance`."""
    if not isinstance(instance, VCInstance):
        raise TypeError(f"`instance` must be a VCInstance, got {type(instance).__name__}")
    return instance


def finish(
    instance: VCInstance,
    method: str,
    task_host: np.ndarray,
    t0: float,
    t_first: float,
    extra: dict[str, Any] | None = None,
    message: str = "",
) -> Result:
    """Second phase (§3.5) on a placement, checked, wrapped in a Result.

    Parameters
    ----------
    instance : VCInstance
    method : str
        Registered name of the heuristic.
    task_host : array of int, shape (n_tasks,)
        Host of every task (the first phase's output).
    t0 : float
        ``time.perf_counter()`` at the start of the heuristic.
    t_first : float
        ``time.perf_counter()`` at the end of the first phase.
    extra : dict, optional
        Heuristic-specific measurements, copied into ``Result.extra``.

    Returns
    -------
    Result
        Status ``feasible`` with ``objective`` = checked minimum yield (the
        best for this placement, ``min(1, 1 / max_j L_j)``) and ``solution``
        the :class:`~vcsched.problems.vc.Allocation`; status ``error`` (no
        solution) in the should-never-happen case the checker rejects it.
    """
    task_host = np.asarray(task_host, dtype=np.int64)
    alloc = allocation_from_placement(instance, task_host, second_phase=True)
    report = check_allocation(instance, alloc)
    t_end = time.perf_counter()
    out = dict(extra or {})
    out["seconds_first_phase"] = t_first - t0
    out["seconds_second_phase"] = t_end - t_first
    if not report.valid:
        return Result(method, Status.ERROR, None, None, None, None, t_end - t0,
                      "allocation rejected by the checker: " + "; ".join(report.violations[:3]), out)
    out["avg_yield"] = report.avg_yield
    return Result(method, Status.FEASIBLE, report.min_yield, None, None, alloc, t_end - t0, message, out)


def failed(method: str, t0: float, message: str, extra: dict[str, Any] | None = None) -> Result:
    """A ``failed`` Result (no placement found; says nothing about feasibility)."""
    t = time.perf_counter() - t0
    out = dict(extra or {})
    out.setdefault("seconds_first_phase", t)
    out["avg_yield"] = None
    return Result(method, Status.FAILED, None, None, None, None, t, message, out)
