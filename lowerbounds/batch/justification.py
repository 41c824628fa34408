"""The backward pass of justification, shared by the makespan's and the max stretch's upper sides.

Justification (Li and Willis 1992; Valls, Ballestín and Quintanilla, *Justification and RCPSP: a technique that
pays*, EJOR 165, 2005) on the clairvoyant relaxation (:mod:`lowerbounds.batch.instance`): the jobs, by
non-increasing completion, each placed on the cluster where it ran at its *latest* start that ends by its deadline
where its processors are free given the jobs placed before it. It is the serial construction of
:mod:`lowerbounds.batch._listsched` on the time-reversed profile, each job "released" at minus its deadline. With
every deadline at least the job's completion, each job ends no earlier than before (the jobs placed before it ended
no earlier and have only moved later, so its old run is still free), hence starts after its submission.

Callers: :mod:`lowerbounds.batch.makespanfbi` (one deadline, the last completion) and
:mod:`lowerbounds.batch.stretchjustify` (each job's deadline ``r_j + S p_j`` under the schedule's max stretch
``S``); each follows with its own forward pass.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._listsched import serial_schedule_counted

__all__ = ["kept_cluster", "serial_any_order", "backward_starts"]


def kept_cluster(duration: np.ndarray, cluster: np.ndarray) -> np.ndarray:
    """``duration`` with every job's duration off its ``cluster`` set to ``inf`` (the job fits nowhere else)."""
    out = np.full(duration.shape, np.inf)
    rows = np.arange(cluster.size)
    out[rows, cluster] = duration[rows, cluster]
    return out


def serial_any_order(release, width, duration, procs, order, work):
    """The serial construction for a ``release`` in any order (the kernel wants it sorted); ``order``: the list.
    Returns ``(cluster, start)`` in the rows given; ``work[0]`` counts the construction's steps."""
    o = np.argsort(release, kind="stable")
    rank = np.empty_like(o)
    rank[o] = np.arange(o.size)
    c, s = serial_schedule_counted(np.ascontiguousarray(release[o]), np.ascontiguousarray(width[o]),
                                   np.ascontiguousarray(duration[o]), procs, rank[order], work)
    cluster, start = np.empty_like(c), np.empty_like(s)
    cluster[o], start[o] = c, s
    return cluster, start


def backward_starts(width, duration, procs, cluster: np.ndarray, start: np.ndarray, deadline: np.ndarray,
                    work: np.ndarray) -> np.ndarray:
    """The starts of the backward pass (module docstring) of the schedule ``(cluster, start)``, each job ending by its
    ``deadline`` (at least its completion) on its cluster; ``work[0]`` counts the construction's steps."""
    rows = np.arange(cluster.size)
    p = duration[rows, cluster]
    finish = start + p
    _, mirrored = serial_any_order(-np.asarray(deadline, dtype=float), width, kept_cluster(duration, cluster), procs,
                                   np.argsort(-finish, kind="stable"), work)
    return -mirrored - p
