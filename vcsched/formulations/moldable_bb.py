"""Exact weighted minsum of small moldable instances by branch and bound over start orders.

Problem as in :mod:`vcsched.formulations.moldable_milp` (seed 002 §2), for any real
times. Used where the time-indexed model needs a grain the times do not have and the
flow model's relaxation is too weak (the generators' instances of 4-8 processors and
6-8 tasks).

Search space (exact)
--------------------
Tasks are placed one at a time in a *start order*; each task, with one of its
non-dominated allotments, starts at the earliest instant at or after the previous
task's start at which enough processors stay free for its whole run. Some optimal
schedule is reached: sort an optimal schedule by start; placing its tasks in that
order, each one's own start is still possible (every task placed before it started no
later and, by induction, ends no later), so each task starts no later than in the
optimal schedule; and dominated allotments can be replaced without delaying a task
(``moldable_milp`` module docstring). Identical tasks are placed in index order.

Bound at a node (valid for every completion of the partial order)
------------------------------------------------------------------
The tasks still to place start no earlier than ``t``, the last start. With
``p_j = min_k p_j(k)`` and ``a_j = min_k k p_j(k)``:

* ``sum_j w_j (t + p_j)``;
* the single-machine bound: order any completion of them by completion time; the
  ``r`` first ones have all their work ``sum a`` done between ``t`` and the ``r``-th
  completion on at most ``m`` processors, so ``C_(r) >= t + sum_{l <= r} a_(l) / m``,
  and ``sum w_j C_j`` is at least its minimum over orders, which Smith's ratio order
  (WSPT) on one machine of processing times ``a_j / m`` attains.

The larger of the two is added to the placed tasks' ``sum w_j C_j``.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from vcsched.problems.moldable import MoldableInstance, Schedule, check_schedule
from vcsched.result import Result, Status, relative_gap

__all__ = ["solve_branch_and_bound", "MAX_TASKS"]

MAX_TASKS = 12
"""Most tasks :func:`solve_branch_and_bound` accepts (its tree grows as ``n!``)."""


class _Stop(Exception):
    """The time or node limit was reached."""


@dataclasses.dataclass
class _Search:
    m: int
    weights: list[float]
    allots: list[list[tuple[int, float]]]
    min_time: list[float]
    min_area: list[float]
    twin: list[int]
    """``twin[j]``: the previous task identical to ``j`` (``-1`` if none): placed before ``j``."""
    deadline: float
    node_limit: int | None
    best: float = math.inf
    best_seq: list | None = None
    nodes: int = 0


def _setup(instance: MoldableInstance, incumbent: float, deadline: float, node_limit: int | None) -> _Search:
    allots, twin = [], []
    for i, row in enumerate(instance.times):
        kept, shortest = [], math.inf
        for k in range(1, instance.m + 1):
            if row[k - 1] < shortest:
                kept.append((k, float(row[k - 1])))
                shortest = float(row[k - 1])
        allots.append(kept)
        same = [j for j in range(i) if instance.weights[j] == instance.weights[i]
                and np.array_equal(instance.times[j], row)]
        twin.append(same[-1] if same else -1)
    return _Search(instance.m, [float(w) for w in instance.weights], allots,
                   [min(p for _, p in a) for a in allots], [min(k * p for k, p in a) for a in allots],
                   twin, deadline, node_limit, best=incumbent)


def _earliest(events: list[tuple[float, float, int]], m: int, t: float, k: int, p: float) -> float:
    """Earliest start ``>= t`` with ``k`` of ``m`` processors free over ``[s, s + p)``."""
    for s in sorted({t, *(e for _, e, _ in events if e > t)}):
        points = [s] + [a for a, _, _ in events if s < a < s + p]
        if all(sum(q for a, e, q in events if a <= x < e) + k <= m for x in points):
            return s
    raise AssertionError("unreachable: after the last end every processor is free")


def _rest_bound(search: _Search, rest: list[int], t: float) -> float:
    """Lower bound on the weighted completions of ``rest``, all starting at or after ``t``."""
    w, pmin, amin = search.weights, search.min_time, search.min_area
    floor = sum(w[j] * (t + pmin[j]) for j in rest)
    clock, smith = t, 0.0
    for j in sorted(rest, key=lambda j: amin[j] / w[j]):
        clock += amin[j] / search.m
        smith += w[j] * clock
    return max(floor, smith)


def _dfs(search: _Search, events: list, t: float, value: float, rest: list[int], seq: list) -> None:
    search.nodes += 1
    if not rest:
        if value < search.best - 1e-9 * max(1.0, abs(value)):
            search.best, search.best_seq = value, list(seq)
        return
    if time.perf_counter() > search.deadline or (search.node_limit is not None and search.nodes > search.node_limit):
        raise _Stop
    children = []
    for j in rest:
        if search.twin[j] in rest:
            continue
        for k, p in search.allots[j]:
            s = _earliest(events, search.m, t, k, p)
            children.append((search.weights[j] * (s + p), j, k, s, p))
    for cost, j, k, s, p in sorted(children):
        left = [x for x in rest if x != j]
        if value + cost + _rest_bound(search, left, s) >= search.best - 1e-9 * max(1.0, abs(search.best)):
            continue
        events.append((s, s + p, k))
        seq.append((j, k, s))
        _dfs(search, events, s, value + cost, left, seq)
        events.pop()
        seq.pop()


def solve_branch_and_bound(instance: MoldableInstance, *, time_limit: float | None = 60.0,
                           start: Schedule | None = None, lower_bound: float | None = None,
                           node_limit: int | None = None) -> Result:
    """Minimum ``sum w_i C_i`` by branch and bound over start orders (module docstring).

    Parameters
    ----------
    time_limit : float or None
        Seconds (``None``: no limit).
    start : Schedule, optional
        A feasible schedule: its value prunes from the start and it is returned when the
        search finds nothing better.
    lower_bound : float, optional
        A valid lower bound from elsewhere, reported when the search stops at a limit.
    node_limit : int, optional
        Stop after this many nodes: unlike the time limit, a stop that does not depend on
        the machine's speed, so the same call gives the same answer.

    Returns
    -------
    Result
        ``method="exact"``; ``optimal`` when the tree was searched (``bound`` = objective),
        ``feasible`` at a limit with the best schedule and ``bound`` = the larger of
        ``lower_bound`` and the root bound, ``time_limit`` at a limit without a schedule.
        ``extra``: ``formulation="branch-and-bound"``, ``nodes``, ``makespan``, ``minsum``.
    """
    if instance.n > MAX_TASKS:
        from vcsched.errors import InvalidInputError
        raise InvalidInputError(f"branch and bound: {instance.n} tasks, more than the limit of {MAX_TASKS}; "
                                "use the time-indexed or flow formulation")
    t0 = time.perf_counter()
    incumbent = math.inf
    if start is not None:
        incumbent = check_schedule(instance, start).minsum
    deadline = math.inf if time_limit is None else t0 + time_limit
    search = _setup(instance, incumbent * (1 + 1e-12) if math.isfinite(incumbent) else incumbent,
                    deadline, node_limit)
    root = _rest_bound(search, list(range(instance.n)), 0.0)
    try:
        _dfs(search, [], 0.0, 0.0, list(range(instance.n)), [])
        complete = True
    except _Stop:
        complete = False
    return _result(instance, search, start, complete, max(root, lower_bound or -math.inf),
                   time.perf_counter() - t0)


def _result(instance, search: _Search, start, complete: bool, bound: float, seconds: float) -> Result:
    extra = {"formulation": "branch-and-bound", "nodes": search.nodes}
    if search.best_seq is not None:
        schedule = Schedule(np.array([0.0] * instance.n), np.ones(instance.n, dtype=np.int64))
        for j, k, s in search.best_seq:
            schedule.start[j], schedule.procs[j] = s, k
    else:
        schedule = start
    if schedule is None:
        return Result("exact", Status.TIME_LIMIT, bound=bound, seconds=seconds, extra=extra,
                      message="stopped at the limit before finding a schedule")
    report = check_schedule(instance, schedule)
    if not report.valid:  # pragma: no cover - would be a bug of the search
        raise RuntimeError(f"branch and bound produced an invalid schedule: {report.violations[0]}")
    bound = report.minsum if complete else min(bound, report.minsum)
    extra.update(makespan=report.makespan, minsum=report.minsum)
    message = "search complete" if complete else "stopped at the limit"
    return Result("exact", Status.OPTIMAL if complete else Status.FEASIBLE, objective=report.minsum, bound=bound,
                  gap=relative_gap(report.minsum, bound), solution=schedule, seconds=seconds, message=message,
                  extra=extra)
