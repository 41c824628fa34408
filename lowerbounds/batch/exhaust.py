"""The clairvoyant optimum of a tiny workload, by serial generation over every list and cluster assignment.

The serial schedule generation scheme (:func:`lowerbounds.batch._listsched.serial_schedule`: each job of a list
at its earliest start ``>= r_j`` where its processors are free during its whole run, given the jobs placed before
it) produces every *active* schedule when it runs over every list and every assignment of jobs to clusters, and
an optimal schedule of a regular objective (one that does not decrease when a completion is delayed) is active
(Kolisch 1996). The four metrics of :mod:`lowerbounds.batch.instance` are regular, so the best value over the
enumeration is the optimum of each metric. An assignment is imposed on the construction by giving every job an
infinite duration on the clusters it is not assigned to (it then has one cluster to choose from).

The enumeration has ``n! prod_j K_j`` schedules (``K_j`` the clusters where job ``j`` fits); it runs only up to
:data:`EXHAUST_CAP` of them, so that a workload of a few jobs is solved at once instead of being searched until
its budget is spent. The same enumeration, written plainly, is ``tests/grid/batch_oracle.brute_force``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from lowerbounds.batch._listsched import serial_schedule_counted
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics

__all__ = ["EXHAUST_CAP", "enumeration_size", "exhaustive_schedules"]

EXHAUST_CAP = 5040
"""Largest enumeration (``n!`` times the number of cluster assignments) solved exhaustively: 7 jobs on one
cluster, 5 on two, 4 on three (about 0.2 s)."""


def enumeration_size(inst: BatchInstance) -> int:
    """``n! prod_j K_j``, the number of schedules the enumeration builds."""
    fits = np.isfinite(inst.duration).sum(axis=1)
    return math.factorial(len(inst)) * int(np.prod(fits, dtype=object))


def exhaustive_schedules(inst: BatchInstance, metrics: tuple, work: np.ndarray | None = None) -> dict | None:
    """The optimal schedule of each metric (module docstring): ``{metric: (value, cluster, start)}``, each schedule
    checked; None when the enumeration exceeds :data:`EXHAUST_CAP`. ``work`` (one-element counter) is charged the
    constructions' steps."""
    n = len(inst)
    if n == 0 or enumeration_size(inst) > EXHAUST_CAP:
        return None
    work = np.zeros(1, dtype=np.int64) if work is None else work
    order = np.argsort(inst.release, kind="stable")
    sub = inst.subset(order)
    fits = [np.flatnonzero(np.isfinite(sub.duration[j])) for j in range(n)]
    width = sub.width.astype(np.int64)
    procs = sub.procs.astype(np.int64)
    best: dict = {}
    for assign in itertools.product(*fits):
        duration = np.full_like(sub.duration, np.inf)
        duration[np.arange(n), assign] = sub.duration[np.arange(n), assign]
        for perm in itertools.permutations(range(n)):
            clus_s, start_s = serial_schedule_counted(sub.release, width, duration, procs, np.array(perm), work)
            values = schedule_metrics(sub, clus_s, start_s)
            for m in metrics:
                v = values[m]
                if v is not None and (m not in best or v < best[m][0]):
                    best[m] = (v, clus_s, start_s)
    out = {}
    for m, (_v, clus_s, start_s) in best.items():
        cluster, start = np.empty_like(clus_s), np.empty_like(start_s)
        cluster[order], start[order] = clus_s, start_s
        check_batch_schedule(inst, cluster, start)
        out[m] = (schedule_metrics(inst, cluster, start)[m], cluster, start)
    return out
