"""Max-stretch lower bound by energetic reasoning (bisection on the stretch, one cluster).

A schedule of max stretch ``<= S`` runs job ``j`` without interruption inside ``[r_j, r_j + S p_j]`` (``p_j``
its duration on the cluster). Energetic reasoning (Baptiste, Le Pape and Nuijten, *Constraint-based
scheduling*, 2001, §3.3) then bounds the work each job must do inside an interval ``[t1, t2]``: at least
``q_j o_j(t1, t2)`` processor-seconds, with ``o_j = max(0, min(t2 - t1, p_j, r_j + p_j - t1, t2 - r_j - (S - 1)
p_j))`` (the job left-shifted to its release or right-shifted to its deadline, whichever overlaps less), and the
cluster offers ``m (t2 - t1)``. When the sum exceeds the offer for some interval, no schedule has max stretch
``<= S``. The compiled test is :func:`lowerbounds.batch._energetic.energetic_violation`.

Unlike the fluid EDF test of :func:`lowerbounds.batch.quick.stretch_quick` (which counts a job only inside
intervals that hold its whole window), this test counts the part of a job that cannot leave an interval without
interruption; for ``S < 2`` every job has a mandatory part ``[r_j + (S - 1) p_j, r_j + p_j]``.

Widths through dual feasible functions. The test also runs with each width ``q`` replaced by ``f(q)``, where
``f_theta(q) = m`` for ``q > m - theta``, ``q`` for ``theta <= q <= m - theta`` and ``0`` for ``q < theta``
(integer widths, ``theta <= ceil(m / 2)``, so that no width lies strictly between ``m - theta`` and ``theta``).
At any instant the running jobs' widths sum to at most ``m``, and then so do their ``f``-widths: a job wider
than ``m - theta`` leaves less than ``theta`` to the others, which are then narrower than ``theta`` and not wider
than ``m - theta``, so their ``f`` is 0; otherwise ``f(q) <= q`` for every job. So the ``f``-work done in
``[t1, t2]`` is at most ``m (t2 - t1)`` as well. With ``theta = ceil(m / 2)`` the jobs wider than half the
cluster count as the whole cluster (a job of exactly half as itself) and the narrower ones not at all: the test
is then energetic reasoning on the one-machine problem of the wide jobs (no two of them overlap).

Every restriction keeps the test a relaxation: the intervals checked start at release dates only, each ``t1``
sums only the jobs whose latest start precedes ``t1 + horizon`` (dropping a job lowers the left side), and a
test stopped by the clock counts as feasible. The bisection returns the largest ``S`` proved infeasible.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._energetic import energetic_violation
from lowerbounds.batch.instance import BatchInstance
from vcsched.jitclock import clock

__all__ = ["stretch_energetic", "dff_widths", "energetic_infeasible", "bisect_infeasible", "gallop_infeasible", "HORIZON"]

HORIZON = 86400.0
"""Longest stretch of time, in seconds, between an interval's start and the latest start of a job it counts."""
_SLACK = 1e-9
"""Relative slack of the test (rounding errs towards feasibility, so towards a lower bound)."""


def dff_widths(width: np.ndarray, procs: int, theta: int) -> np.ndarray:
    """``f_theta`` of each (integer) width on a cluster of ``procs`` (see the module docstring; ``1 <= theta <=
    ceil(procs / 2)``); ``theta = 1`` keeps them."""
    q = np.asarray(width, dtype=float)
    return np.where(q > procs - theta, float(procs), np.where(q >= theta, q, 0.0))


def _thetas(procs: int) -> list[int]:
    return sorted({1, max(1, procs // 4), (procs + 1) // 2})


def energetic_infeasible(release, duration, width, procs: int, stretch: float, *,
                         horizon: float = HORIZON) -> bool:
    """True when energetic reasoning proves that no schedule of these jobs (one cluster of ``procs``; every
    duration positive) has max stretch ``<= stretch``, for the identity widths or one of the dual feasible
    functions of the module docstring."""
    r = np.ascontiguousarray(release, dtype=float)
    p = np.ascontiguousarray(duration, dtype=float)
    slack = _SLACK * procs
    for theta in _thetas(procs):
        w = np.ascontiguousarray(dff_widths(width, procs, theta))
        if not np.isnan(energetic_violation(r, p, w, float(procs), float(stretch), float(horizon), slack)):
            return True
    return False


def stretch_energetic(inst: BatchInstance, low: float, *, horizon: float = HORIZON, time_limit: float | None = None,
                      rel_tol: float = 1e-3) -> float:
    """Raise the max-stretch lower bound ``low`` (a valid one, e.g. the quick bound) by energetic reasoning.

    One cluster only (on several, ``low`` is returned as is). The bisection first tests ``low (1 + rel_tol)``: when
    that is not proved infeasible it stops at once (one test). A test begun before ``time_limit`` seconds runs to its
    end; none starts after. Returns the largest stretch proved infeasible, or ``low``.
    """
    if inst.clusters != 1 or len(inst) == 0:
        return low
    pos = inst.pmax > 0
    if not pos.any():
        return low
    deadline = np.inf if time_limit is None else clock() + time_limit
    procs = int(inst.procs[0])
    r, p, q = inst.release[pos], inst.duration[pos, 0], inst.width[pos]

    def infeasible(s: float) -> bool | None:
        if clock() > deadline:
            return None
        return energetic_infeasible(r, p, q, procs, s, horizon=horizon)

    return gallop_infeasible(infeasible, low, rel_tol)


def gallop_infeasible(infeasible, low: float, rel_tol: float) -> float:
    """The largest stretch ``infeasible`` proves above ``low`` (itself proved impossible): steps that double,
    ``low (1 + 2^k rel_tol)``, up to the first value it does not prove, then :func:`bisect_infeasible`; ``low`` as
    far as proved when ``infeasible`` answers None (out of time or work)."""
    hi, step = low * (1.0 + rel_tol), 2.0 * rel_tol
    while True:
        verdict = infeasible(hi)
        if not verdict:
            break
        low, step = hi, 2.0 * step
        hi = low * (1.0 + step)
    if verdict is None:
        return low
    return bisect_infeasible(infeasible, low, hi, rel_tol)


def bisect_infeasible(infeasible, low: float, hi: float, rel_tol: float) -> float:
    """Bisection between ``low`` (a stretch ``infeasible`` proved impossible) and ``hi`` (one it did not):
    the largest stretch proved impossible once ``hi - low <= rel_tol * low``, or when ``infeasible``
    answers None (out of time). Every value returned is one ``infeasible`` proved: a valid bound."""
    while hi - low > rel_tol * low:
        mid = 0.5 * (low + hi)
        verdict = infeasible(mid)
        if verdict is None:
            break
        if verdict:
            low = mid
        else:
            hi = mid
    return low
