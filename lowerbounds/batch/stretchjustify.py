"""Max stretch: double justification of a schedule against the deadlines of its own max stretch.

Let a schedule have max stretch ``S``; each job ``j`` runs on cluster ``k_j`` and completes at ``C_j <= d_j``, with
``d_j = r_j + S p_j`` (``p_j`` on ``k_j``; the code takes ``max(C_j, d_j)``, so that rounding never leaves a job
less room than it has). Clusters stay fixed throughout (Valls, Ballestin and Quintanilla 2005, for the makespan of
project schedules):

* **Backward pass**: the jobs by decreasing ``C_j``, each as late as it fits given the jobs placed before it with
  completion at most ``d_j`` (the serial construction on the mirrored time axis, each job submitted at ``-d_j``).
  The schedule itself places each job at ``C_j`` against those jobs (the ones that complete later), so each job
  completes at ``C_j`` or later: its start ``b_j`` stays at or after its start, hence after ``r_j``.
* **Forward pass**: the serial construction of the list of increasing ``b_j``, each job at its earliest fit from
  ``r_j``. Each job's predecessors in that list run, within ``[b_j, oo)``, only where they ran in the backward
  schedule (each starts no later than its ``b_i <= b_j``), so ``j`` fits at ``b_j`` and completes by
  ``b_j + p_j <= d_j``.

So the new schedule has max stretch ``<= S`` again, with its jobs packed to the left; the repair's descent leaves
holes in front of its reservations where no long job fits, and a few passes close many of them (SDSC-SP2). The
search (:func:`justify_search`) repeats the two passes, each from the last one's schedule, until a few passes in a
row bring nothing or the work runs out; every schedule is checked.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.justification import backward_starts, kept_cluster, serial_any_order

__all__ = ["justify", "justify_search", "JUSTIFY_SHARE", "PATIENCE"]

JUSTIFY_SHARE = 0.1
"""Share of the max-stretch search's work kept for the justification passes (the repair's restarts get the rest)."""
PATIENCE = 3
"""Passes in a row without a lower max stretch before the search stops (a pass that only repacks can open the way
for the next)."""


def justify(inst: BatchInstance, cluster: np.ndarray, start: np.ndarray, work: np.ndarray) -> np.ndarray:
    """The starts of the double justification of the module docstring (clusters unchanged); ``work[0]`` counts the
    constructions' steps."""
    rows = np.arange(len(inst))
    p = inst.duration[rows, cluster]
    pos = p > 0
    stretch = float(((start[pos] + p[pos] - inst.release[pos]) / p[pos]).max()) if pos.any() else 1.0
    width = inst.width.astype(np.int64)
    procs = inst.procs.astype(np.int64)
    deadline = np.maximum(start + p, inst.release + stretch * p)
    back = backward_starts(width, inst.duration, procs, cluster, start, deadline, work)
    _, forward = serial_any_order(inst.release.astype(float), width, kept_cluster(inst.duration, cluster), procs,
                                  np.argsort(back, kind="stable"), work)
    return forward


def justify_search(inst: BatchInstance, cluster: np.ndarray, start: np.ndarray, value: float, work: np.ndarray,
                   stop, check_work: int = 0, patience: int = PATIENCE) -> tuple[np.ndarray, int]:
    """Justify the schedule ``(cluster, start)`` of max stretch ``value`` again and again, each pass from the last
    one's schedule (never worse), until ``patience`` passes in a row do not lower the max stretch or ``stop()``
    names a reason; ``(start, passes that lowered it)`` of the best one, checked. ``check_work``: units charged per
    job for each schedule's check."""
    better, idle, current = 0, 0, start
    while idle < patience and stop() is None:
        new = justify(inst, cluster, current, work)
        check_batch_schedule(inst, cluster, new)
        work[0] += check_work * len(inst)
        v = schedule_metrics(inst, cluster, new)["max_stretch"]
        if v is None:
            break
        current = new
        if v < value * (1 - 1e-12):
            start, value, better, idle = new, v, better + 1, 0
        else:
            idle += 1
    return start, better
