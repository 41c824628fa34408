"""Max stretch on several clusters: the jobs that fit on a part of the platform only.

A job of width ``q_j`` fits only on the clusters of at least ``q_j`` processors. Let ``F`` be a set of clusters and
``J_F`` the jobs that fit on no cluster outside ``F``. Every schedule runs the jobs of ``J_F`` on clusters of ``F``;
kept to these jobs and clusters it is a schedule of the instance ``(J_F, F)`` (same starts, clusters and durations,
so the same stretches, each ``(C_j - r_j) / p_jk`` on the cluster where the job ran), and its max stretch is at
least that instance's optimum. So any lower bound on the max stretch of ``(J_F, F)`` bounds the whole.

The fluid bound of the whole platform lets the wide jobs use the processors of the small clusters; on ``(J_F, F)``
they get only the clusters where they can run, and on one cluster the single-cluster bounds (the wide jobs, the
branching's first pass, the jobs that cannot run beside a wide job) apply to them. ``F`` ranges over the fit sets of
the jobs (the clusters where each job fits) that leave out at least one cluster.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch.instance import BatchInstance

__all__ = ["fit_instances", "stretch_fit"]


def fit_instances(inst: BatchInstance) -> list[tuple[np.ndarray, BatchInstance]]:
    """``(F, (J_F, F))`` for each fit set ``F`` of the module docstring (clusters in increasing order), ``J_F``'s
    jobs in their order in ``inst``; none on one cluster."""
    if inst.clusters < 2 or len(inst) == 0:
        return []
    fits = inst.fits
    out = []
    for row in np.unique(fits, axis=0):
        if row.all():
            continue
        clusters = np.flatnonzero(row)
        jobs = np.flatnonzero(~fits[:, ~row].any(axis=1))
        sub = BatchInstance(inst.release[jobs], inst.width[jobs], inst.duration[np.ix_(jobs, clusters)],
                            inst.procs[clusters], inst.speed[clusters], inst.work[jobs])
        out.append((clusters, sub))
    return out


def stretch_fit(inst: BatchInstance, bound) -> float | None:
    """The largest ``bound(J_F, F)`` over :func:`fit_instances` (None when there is none or none has a value);
    ``bound``: a max-stretch lower bound of an instance (None without a job of positive duration)."""
    values = [v for v in (bound(sub) for _, sub in fit_instances(inst)) if v is not None]
    return max(values) if values else None
