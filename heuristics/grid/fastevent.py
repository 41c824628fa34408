"""One whole event of Algorithm 2 (reallocation with cancellation, seed 000 §2.2.1) in one compiled loop.

:meth:`heuristics.grid.realloc.Reallocation._algorithm2` is the reference: after
cancelling every waiting job it chooses a job with the heuristic, resubmits it to the
cluster of its minimum ECT, recomputes that cluster's ECT column and chooses again. With
thousands of waiting jobs and up to a million moves a month, numpy's and Python's fixed
costs per choice (about ten numpy calls, a grid submission and an estimate-plan update)
dominated the event. :func:`plan_event` does the same choices on copies of the clusters'
planning profiles, without leaving compiled code; the caller then submits the jobs to the
grid in the chosen order, which replays the same reservations on the clusters themselves.

What is replayed, per cluster ``k`` (its :meth:`vcsched.sim.Cluster.resubmission_plan`):
the profile new submissions are planned on (``T[k, :rows[k]]``, ``F[k, :rows[k]]``), the
lower bound of the next submission's start (``lower[k]``) and whether a submission raises
that bound to its own start (``advances[k]``: FCFS queues in order; EASY's estimate plan
and conservative backfilling do not). The ECT of an alive job on ``k`` is then
``earliest(width, d, lower) + d`` (``inf`` when the job is wider than the cluster), and a
resubmission is :func:`vcsched.sim.compiled.reserve` from ``lower``: the same compiled
profile rules, called with the same arguments in the same order as the engine, so the
results are the same floating-point numbers (tested: same ``jobs.csv`` byte for byte).

The choice is :func:`heuristics.grid.fastselect.select_builtin` on the same ECT matrix
and current ECTs as the reference, and the destination rule is the reference's (first
cluster of minimum ECT; the previous cluster when it is within the threshold).

An exact shortcut (``prune``): a reservation ``[s, s + d)`` only removes processors, and
only raises the lower bound (to ``s``), so no alive job can start earlier than before on
that cluster. A job whose earliest slot there is still after the new lower bound and does
not overlap ``[s, s + d)`` therefore keeps it, and is not scanned again. The plain
recompute (``prune=False``) is tested equal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from heuristics.grid.fastselect import select_builtin
from vcsched.sim.compiled import earliest, reserve

__all__ = ["MCT", "plan_event"]

MCT = 0
"""Code of MCT (resubmission in submission order); the other codes are :mod:`heuristics.grid.fastselect`'s."""

_INF = np.inf


@njit(cache=True)
def _slot(T, F, rows, total, lower, p, d, k):
    """Earliest start of a job (width ``p``, duration ``d``) on cluster ``k`` from its lower bound; inf if too wide."""
    if p > total[k]:
        return _INF
    return earliest(T[k], F[k], rows[k], p, d, lower[k])


@njit(cache=True)
def _column(T, F, rows, total, lower, widths, D, S, E, alive, k, s, e, prune):
    """Bring column ``k`` of ``S`` (starts) and ``E`` (ECTs) up to date for the alive rows after a reservation [s, e)."""
    for i in range(widths.size):
        if alive[i]:
            x = S[i, k]
            if prune and x >= lower[k] and (x >= e or x + D[i, k] <= s):
                continue  # its slot is untouched and still after the lower bound: same earliest start
            x = _slot(T, F, rows, total, lower, widths[i], D[i, k], k)
            S[i, k] = x
            E[i, k] = x + D[i, k]


@njit(cache=True)
def plan_event(code, maximise, T, F, rows, total, lower, advances, widths, D, prev, planned, use_planned,
               threshold, now, prune, order, dest):
    """Choices of one Algorithm-2 event: ``order[step]`` (row chosen) and ``dest[step]`` (its cluster).

    Parameters
    ----------
    code : int
        :data:`MCT` or a code of :mod:`heuristics.grid.fastselect`.
    maximise : bool
        Whether the heuristic takes the largest key.
    T, F : 2-D arrays (clusters x room), rows : int array
        Each cluster's planning profile; updated in place (room for two breakpoints per job).
    total : int array
        Processors of each cluster.
    lower : float array
        Lower bound of the next submission's start on each cluster (not before ``now``); updated in place.
    advances : bool array
        Whether a submission raises the lower bound to its start (FCFS).
    widths : int array, D : 2-D float array (jobs x clusters)
        Processors and planned durations of the waiting jobs (rows in submission order).
    prev : int array
        Cluster each job waited on before the cancellation.
    planned : float array, use_planned : bool
        MaxGain's and MaxRelGain's current ECT: ``planned`` when ``use_planned``, else the
        ECT on the previous cluster in the current state.
    threshold : float
        A job stays on its previous cluster unless another finishes it more than this earlier (0: only ties).
    now : float
    prune : bool
        Use the exact shortcut of the module notes.
    order, dest : int arrays
        Outputs.
    """
    n = widths.size
    K = total.size
    S = np.empty((n, K))
    E = np.empty((n, K))
    alive = np.ones(n, dtype=np.bool_)
    current = np.empty(n)
    procs = widths.astype(np.float64)
    if code != MCT:
        for k in range(K):
            for i in range(n):
                x = _slot(T, F, rows, total, lower, widths[i], D[i, k], k)
                S[i, k] = x
                E[i, k] = x + D[i, k]
    for step in range(n):
        if code == MCT:
            i = step
            for k in range(K):
                x = _slot(T, F, rows, total, lower, widths[i], D[i, k], k)
                S[i, k] = x
                E[i, k] = x + D[i, k]
        else:
            for r in range(n):
                if alive[r]:
                    current[r] = planned[r] if use_planned else E[r, prev[r]]
            i = select_builtin(code, maximise, E, current, procs, alive)
        alive[i] = False
        b = 0
        for k in range(1, K):
            if E[i, k] < E[i, b]:
                b = k
        p = prev[i]
        if E[i, p] <= E[i, b] + threshold:
            b = p
        order[step] = i
        dest[step] = b
        rows[b], s = reserve(T[b], F[b], rows[b], widths[i], D[i, b], now, max(lower[b], now), total[b])
        if advances[b]:
            lower[b] = s
        if code != MCT:
            _column(T, F, rows, total, lower, widths, D, S, E, alive, b, s, s + D[i, b], prune)
