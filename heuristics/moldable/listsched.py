"""Graham's list scheduling of moldable tasks with fixed allotments (Garey-Graham 1975, ref [11]).

Used by every algorithm of the family: the baselines of §4.1 and the
compaction step of the bi-criteria algorithm (§3.2).
"""

from __future__ import annotations

import heapq
import time

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.moldable import MoldableInstance, Schedule, completion_times
from vcsched.result import Result, Status

__all__ = ["list_schedule", "schedule_result"]


def list_schedule(instance: MoldableInstance, order, allot, *, with_processors: bool = True) -> Schedule:
    """Greedy list schedule: whenever processors are free, start the first
    tasks of the list (in ``order``) whose allotment fits.

    Parameters
    ----------
    order : sequence of int
        Priority list (a permutation of the tasks).
    allot : array of int, shape (n,)
        Number of processors of every task (1..m).

    with_processors : bool
        Assign explicit processors (default); ``False`` only counts free
        processors (same start times, faster; used to compare many orders).

    Returns
    -------
    Schedule
        With explicit processors: a task takes the lowest-numbered free ones.

    Notes
    -----
    This is the list algorithm of Garey and Graham: a task later in the list
    may start before an earlier one that does not fit yet (no idle processor
    is kept for the head of the list). At each event (time 0 and every
    completion) the list is scanned with a vectorised search, so a schedule
    costs ``O(n^2)`` elementary operations but only ``O(n)`` numpy calls.
    """
    n, m = instance.n, instance.m
    order = np.asarray(order, dtype=np.int64)
    allot = np.asarray(allot, dtype=np.int64)
    if order.shape != (n,) or np.any(np.sort(order) != np.arange(n)):
        raise InvalidInputError("order must be a permutation of the task indices")
    if np.any(allot < 1) or np.any(allot > m):
        raise InvalidInputError(f"allotments must be in 1..{m}")
    dur = instance.times[np.arange(n), allot - 1]
    need = allot[order].astype(float)  # in list order; +inf once started
    start = np.zeros(n)
    processors: list = [None] * n
    free_mask = np.ones(m, dtype=bool)
    free = m
    running: list[tuple[float, int, int]] = []
    t = 0.0
    left = n
    head = 0  # every list position before head has started
    while left:
        while free > 0 and left:
            while need[head] == np.inf:
                head += 1
            fits = need[head:] <= free
            pos = int(fits.argmax())
            if not fits[pos]:
                break
            pos += head
            i = int(order[pos])
            k = int(allot[i])
            if with_processors:
                procs = np.flatnonzero(free_mask)[:k]
                free_mask[procs] = False
                processors[i] = procs
            free -= k
            need[pos] = np.inf
            start[i] = t
            heapq.heappush(running, (t + dur[i], pos, i))
            left -= 1
        if not left:
            break
        t, _, i = heapq.heappop(running)
        released = [i]
        while running and running[0][0] <= t:
            released.append(heapq.heappop(running)[2])
        for j in released:
            if with_processors:
                free_mask[processors[j]] = True
            free += int(allot[j])
    if not with_processors:
        return Schedule(start=start, procs=allot.copy(), processors=None)
    return Schedule(start=start, procs=allot.copy(), processors=tuple(tuple(p.tolist()) for p in processors))


def schedule_result(method: str, instance: MoldableInstance, schedule: Schedule, t0: float, **extra) -> Result:
    """A feasible :class:`Result` for a schedule: objective = ``sum w_i C_i``."""
    end = completion_times(instance, schedule)
    minsum = float(np.dot(instance.weights, end))
    makespan = float(end.max())
    return Result(method=method, status=Status.FEASIBLE, objective=minsum, solution=schedule,
                  seconds=time.perf_counter() - t0, extra={"makespan": makespan, "minsum": minsum, **extra})
