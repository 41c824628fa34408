"""Independent brute-force oracles for the verification campaign.

Written from the problems' definitions only (nothing from ``lowerbounds`` or
``vcsched.formulations``), so that a model and its oracle cannot share a mistake.

Moldable weighted minsum and makespan (seed 002 §2): every task gets one
allotment ``k`` (all ``m`` of them, dominated or not) and the tasks are placed
one by one, in every order, each at the earliest instant from which ``k``
processors stay free for its whole duration (serial schedule generation).
Every active schedule is produced by some order and allotment vector, and for a
regular criterion (minsum, makespan) some active schedule is optimal, so the
best value found is the optimum. :func:`moldable_grid_optimum` checks this
oracle itself on tiny integer instances by trying every start on the integer
grid.
"""

from __future__ import annotations

import itertools

import numpy as np


def _earliest_start(events: list[tuple[float, float, int]], m: int, k: int, p: float) -> float:
    """Earliest ``t`` such that the running tasks of ``events`` (start, end, procs) leave
    ``k`` processors free on ``[t, t + p)``: some optimal ``t`` is 0 or an end of a task."""
    for t in sorted({0.0, *(end for _, end, _ in events)}):
        points = [t] + [s for s, _, _ in events if t < s < t + p]
        if all(sum(q for s, e, q in events if s <= x < e) + k <= m for x in points):
            return t
    raise AssertionError("unreachable: after the last end every processor is free")


def moldable_optimum(m: int, times, weights) -> tuple[float, float]:
    """``(minimum sum w_i C_i, minimum makespan)`` by enumeration (module docstring)."""
    times = np.asarray(times, dtype=float)
    weights = np.asarray(weights, dtype=float)
    n = len(weights)
    best_sum = best_cmax = np.inf
    for allot in itertools.product(range(1, m + 1), repeat=n):
        for order in itertools.permutations(range(n)):
            events: list[tuple[float, float, int]] = []
            ends = np.zeros(n)
            for i in order:
                k = allot[i]
                p = float(times[i, k - 1])
                start = _earliest_start(events, m, k, p)
                events.append((start, start + p, k))
                ends[i] = start + p
            best_sum = min(best_sum, float(np.dot(weights, ends)))
            best_cmax = min(best_cmax, float(ends.max()))
    return best_sum, best_cmax


def moldable_grid_optimum(m: int, times, weights) -> float:
    """Minimum ``sum w_i C_i`` over every allotment and every integer start up to the serial
    horizon (integer times only; checks :func:`moldable_optimum` on tiny instances)."""
    times = np.asarray(times, dtype=float)
    weights = np.asarray(weights, dtype=float)
    n = len(weights)
    horizon = int(times.max(axis=1).sum())
    best = np.inf
    for allot in itertools.product(range(1, m + 1), repeat=n):
        p = [int(times[i, allot[i] - 1]) for i in range(n)]
        for starts in itertools.product(*(range(horizon - p[i] + 1) for i in range(n))):
            use = np.zeros(horizon, dtype=int)
            for i in range(n):
                use[starts[i]:starts[i] + p[i]] += allot[i]
            if use.max() <= m:
                best = min(best, float(sum(weights[i] * (starts[i] + p[i]) for i in range(n))))
    return best
