"""A certified bracket of the moldable weighted-minsum optimum for real-valued times (``--grain``).

The time-indexed model of :mod:`vcsched.formulations.moldable_milp` is exact only when every time is a
multiple of a grain; the generators draw real-valued times. :func:`solve_rounded` solves it on the times
rounded up (a schedule of the instance) and down (a lower bound), and closes the bracket on small
instances by branch and bound (:mod:`vcsched.formulations.moldable_bb`); the validity of each side is in
its docstring.
"""

from __future__ import annotations

import math
import numbers
import time

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.formulations.moldable_bb import MAX_TASKS as BB_MAX_TASKS
from vcsched.formulations.moldable_bb import solve_branch_and_bound
from vcsched.formulations.moldable_milp import solve_exact
from vcsched.formulations.moldable_size import time_indexed_model_size
from vcsched.problems.moldable import MAX_VALUE, MIN_VALUE, MoldableInstance, Schedule, check_schedule, left_shift
from vcsched.result import OPTIMAL_GAP, Result, Status, relative_gap

__all__ = ["solve_rounded", "auto_grain", "rounded_instance", "rounded_model_size", "GRAIN_LADDER"]

GRAIN_LADDER = (10.0, 5.0, 2.0, 1.0, 0.5, 0.25, 0.2, 0.1, 0.05, 0.025, 0.02, 0.01)
"""Grains :func:`auto_grain` tries, coarsest first."""
MAX_ROUNDED_VARIABLES = 20_000
"""``auto_grain`` and refinement: most start variables of a rounded time-indexed model."""
MAX_GRAIN_VARIABLES = 200_000
"""An explicit grain is refused when its rounded time-indexed model would have more start variables."""


def rounded_instance(instance: MoldableInstance, grain: float, direction: str) -> MoldableInstance:
    """Every ``p_i(k)`` rounded ``"up"`` or ``"down"`` to a multiple of ``grain`` (down may give 0)."""
    q = instance.times / grain
    whole = np.ceil(q - 1e-9) if direction == "up" else np.floor(q + 1e-9)
    return MoldableInstance(instance.m, whole * grain, instance.weights)


def auto_grain(instance: MoldableInstance) -> float:
    """The first grain of :func:`solve_rounded`: the largest of :data:`GRAIN_LADDER` at most half
    the shortest time (so that rounding moves no time by more than a third of it; half the
    shortest time when the ladder has none that small), doubled while the rounded-up model
    would have more than :data:`MAX_ROUNDED_VARIABLES` start variables."""
    half = float(instance.times.min()) / 2
    fits = [g for g in GRAIN_LADDER if g <= half * (1 + 1e-9)]
    grain = fits[0] if fits else half
    while rounded_model_size(instance, grain) > MAX_ROUNDED_VARIABLES:
        grain *= 2
    return grain


def rounded_model_size(instance: MoldableInstance, grain: float) -> int:
    """Start variables of the rounded-up time-indexed model at ``grain`` (estimated before building)."""
    return time_indexed_model_size(rounded_instance(instance, grain, "up"), grain).variables


def solve_rounded(instance: MoldableInstance, grain: float | str = "auto", *, time_limit: float | None = 60.0,
                  start: Schedule | None = None, lower_bound: float | None = None, threads: int = 1,
                  refine: bool = True) -> Result:
    """Certified bracket of the optimum by the time-indexed model on times rounded to ``grain``.

    * **Upper bound.** A schedule feasible with every time rounded *up* is feasible with the
      true times (each task occupies a sub-interval of its rounded one, so no instant uses more
      processors), and no worse; the optimum of the rounded-up instance, left-shifted with the
      true times (:func:`vcsched.problems.moldable.left_shift`), is a schedule of the instance.
    * **Lower bound.** Every schedule of the instance is feasible with every time rounded
      *down* (same starts and allotments, shorter tasks), with completions no later; so the
      optimum of the rounded-down instance, and HiGHS's proven bound on it, are lower bounds.
      The rounded-down model is exact (its times are multiples of the grain) and its horizon
      uses the upper bound found first.

    On at most :data:`~vcsched.formulations.moldable_bb.MAX_TASKS` tasks, an open bracket is then
    closed by branch and bound (:mod:`vcsched.formulations.moldable_bb`) started from its
    schedule, with the time left. On larger instances, with ``refine`` (default), while the gap is
    open the grain is halved and both models solved again (:func:`_refine_again` says when); the
    best schedule and the largest bound are kept. Each round gets half of the time left for the
    rounded-up model and the rest for the rounded-down one.

    ``objective`` is the schedule's true minsum, ``bound`` the larger of the rounded-down bounds
    and ``lower_bound``; the status is ``optimal`` only when they are within
    :data:`vcsched.result.OPTIMAL_GAP`, else ``feasible`` with the certified gap. A ``start``
    schedule (checked) is kept when it is better. ``extra`` has ``grain`` (the finest solved),
    ``rounds``, ``upper_status``, ``lower_status``, ``makespan``, ``minsum``.
    """
    t0 = time.perf_counter()
    grain = _grain_value(instance, grain)
    best = _checked_start(instance, start)
    bound = lower_bound if lower_bound is not None and math.isfinite(lower_bound) else None
    rounds, statuses = 0, ("", "")
    while True:
        round_start = time.perf_counter()
        left = None if time_limit is None else time_limit - (round_start - t0)
        schedule, down_bound, statuses = _rounded_round(instance, grain, left, best, threads)
        rounds += 1
        best = _better(instance, best, schedule)
        if down_bound is not None:
            bound = down_bound if bound is None else max(bound, down_bound)
        if not _refine_again(instance, best, bound, grain, refine, time_limit, t0, time.perf_counter() - round_start):
            break
        grain /= 2
    result = _rounded_result(instance, best, bound, grain, rounds, statuses, time.perf_counter() - t0)
    return _close_by_search(instance, result, time_limit, t0)


def _close_by_search(instance: MoldableInstance, result: Result, time_limit: float | None, t0: float) -> Result:
    """An open bracket of at most :data:`~vcsched.formulations.moldable_bb.MAX_TASKS` tasks is closed
    by branch and bound with the time left, started from the bracket's schedule."""
    left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
    if result.status is Status.OPTIMAL or instance.n > BB_MAX_TASKS or (left is not None and left <= 0.05):
        return result
    search = solve_branch_and_bound(instance, time_limit=left, start=result.solution, lower_bound=result.bound)
    if not search.status.has_solution:
        return result
    extra = {**result.extra, **search.extra, "formulation": "time-indexed-rounded+branch-and-bound"}
    message = f"{result.message}; branch and bound: {search.message}"
    return search.replace(seconds=time.perf_counter() - t0, message=message, extra=extra)


def _refine_again(instance, best, bound, grain, refine, time_limit, t0, last_round) -> bool:
    """Whether :func:`solve_rounded` solves another round at half the grain: the gap is open, the
    instance is too large for branch and bound to close it, the finer model stays within
    :data:`MAX_ROUNDED_VARIABLES` and the time left is at least four times the last round's."""
    if not refine or best is None or instance.n <= BB_MAX_TASKS:
        return False
    gap = relative_gap(check_schedule(instance, best).minsum, bound)
    if gap is not None and gap <= OPTIMAL_GAP:
        return False
    if time_limit is not None and time_limit - (time.perf_counter() - t0) < 4 * last_round:
        return False
    return rounded_model_size(instance, grain / 2) <= MAX_ROUNDED_VARIABLES


def check_grain(grain: float | str) -> float | str:
    """``"auto"`` or a number in ``[MIN_VALUE, MAX_VALUE]`` (:mod:`vcsched.problems.moldable`'s range of
    times, 1e-9 to 1e12), the range of ``moldable solve --grain``; anything else is refused."""
    if isinstance(grain, str):
        if grain != "auto":
            raise InvalidInputError(f"grain must be a number in [{MIN_VALUE:g}, {MAX_VALUE:g}] or 'auto', got {grain!r}")
        return grain
    if isinstance(grain, bool) or not isinstance(grain, numbers.Real) or not (MIN_VALUE <= grain <= MAX_VALUE):
        raise InvalidInputError(f"grain must be a number in [{MIN_VALUE:g}, {MAX_VALUE:g}] or 'auto', got {grain!r}")
    return float(grain)


def _grain_value(instance: MoldableInstance, grain: float | str) -> float:
    if check_grain(grain) == "auto":
        return auto_grain(instance)
    size = rounded_model_size(instance, grain)
    if size > MAX_GRAIN_VARIABLES:
        raise InvalidInputError(f"grain {grain:g}: the rounded time-indexed model would have {size:,} start variables, "
                                f"more than the limit of {MAX_GRAIN_VARIABLES:,}; use a coarser grain or 'auto'")
    return float(grain)


def _checked_start(instance: MoldableInstance, start: Schedule | None) -> Schedule | None:
    if start is not None and not check_schedule(instance, start).valid:
        raise InvalidInputError(f"start schedule is infeasible: {check_schedule(instance, start).violations[0]}; "
                                "pass a checked schedule")
    return start


def _better(instance: MoldableInstance, a: Schedule | None, b: Schedule | None) -> Schedule | None:
    """The schedule of smaller true minsum (``a`` on ties)."""
    if a is None or b is None:
        return b if a is None else a
    return b if check_schedule(instance, b).minsum < check_schedule(instance, a).minsum else a


def _rounded_round(instance: MoldableInstance, grain: float, left: float | None, best: Schedule | None,
                   threads: int):
    """One round of :func:`solve_rounded`: ``(schedule or None, bound or None, (up status, down status))``."""
    t0 = time.perf_counter()
    up = solve_exact(rounded_instance(instance, grain, "up"), time_limit=None if left is None else left / 2,
                     formulation="time-indexed", grain=grain, threads=threads)
    schedule = left_shift(instance, up.solution) if up.status.has_solution else None
    incumbent = _better(instance, best, schedule)
    upper = None if incumbent is None else check_schedule(instance, incumbent).minsum
    rest = None if left is None else max(left - (time.perf_counter() - t0), 0.05)
    down = solve_exact(rounded_instance(instance, grain, "down"), time_limit=rest, formulation="time-indexed",
                       grain=grain, threads=threads, upper=upper)
    return schedule, down.bound, (up.status.value, down.status.value)


def _rounded_result(instance, best, bound, grain, rounds, statuses, seconds) -> Result:
    extra = {"grain": grain, "rounds": rounds, "formulation": "time-indexed-rounded",
             "upper_status": statuses[0], "lower_status": statuses[1]}
    if best is None:
        return Result("exact", Status.TIME_LIMIT, bound=bound, seconds=seconds, extra=extra,
                      message="no schedule of the rounded-up instance within the time limit")
    report = check_schedule(instance, best)
    if bound is not None:
        bound = min(bound, report.minsum)
    gap = relative_gap(report.minsum, bound)
    closed = gap is not None and gap <= OPTIMAL_GAP
    detail = "" if closed else (f"; certified gap {gap:.3g}" if gap is not None else "; no bound")
    message = f"times rounded up and down to grain {grain:g} ({rounds} round(s)){detail}"
    extra.update(makespan=report.makespan, minsum=report.minsum)
    return Result("exact", Status.OPTIMAL if closed else Status.FEASIBLE, objective=report.minsum, bound=bound,
                  gap=gap, solution=best, seconds=seconds, message=message, extra=extra)
