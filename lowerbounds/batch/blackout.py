"""Max-stretch lower bound from the jobs submitted while one job runs (one cluster, every start of that job).

A job ``B`` of width ``q_B`` holds ``q_B`` of the ``m`` processors during ``[s, s + p_B)``, wherever it starts
(``s >= r_B``). A job ``j`` with ``q_j > m - q_B`` cannot run beside it, so when it is submitted inside
``(s, s + p_B)`` it starts at ``s + p_B`` or later: its stretch is at least ``(s + p_B + p_j - r_j) / p_j``, and
``B``'s own is ``(s - r_B + p_B) / p_B``. So every schedule has a max stretch of at least

    ``f_B(s) = max((s - r_B + p_B) / p_B, max_{j: q_j > m - q_B, s < r_j < s + p_B} (s + p_B + p_j - r_j) / p_j)``

for the start ``s`` of ``B`` it has, hence at least ``inf_{s >= r_B} f_B(s)``. Between two submissions of
conflicting jobs every term grows with ``s``, and ``f_B`` falls only where ``s`` reaches a submission ``r_j`` (``j``
leaves the open set, and counts no more although, submitted at ``s``, it waits too): the infimum is the least
``f_B`` over ``s = r_B`` and the submissions ``r_j > r_B`` of the conflicting jobs (each evaluated with ``j`` left
out, so the value is at most the true one). The scan stops once ``B``'s own term reaches the least value so far.

This is the branching test of :mod:`lowerbounds.batch.branching` (jobs that cannot run beside ``B`` are stopped
during its run) for the jobs submitted during ``B``'s run only, but with ``B``'s exact start instead of pieces of its
window: on the whole CTC-SP2 trace a job of 306 of the 338 processors for 18 hours forces 11.49, against 10.38
for the branching. The bound is the largest over the jobs ``B`` at least :data:`MIN_SHARE` of the cluster wide
(any subset of jobs gives a valid bound).
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch.instance import BatchInstance

__all__ = ["stretch_blackout", "job_blackout", "MIN_SHARE"]

MIN_SHARE = 0.125
"""Jobs ``B`` narrower than this share of the cluster are not tried (they leave room to all but the widest jobs)."""


def job_blackout(rb: float, pb: float, rc: np.ndarray, pc: np.ndarray, above: float = -np.inf) -> float:
    """``inf_s f_B(s)`` of the module docstring for ``B`` submitted at ``rb`` of duration ``pb > 0``, the conflicting
    jobs submitted at ``rc`` (sorted; ``B`` itself may be among them: it is never counted) with durations ``pc > 0``. Returns early, with a value at most
    ``above``, once some start shows that the infimum is at most ``above``."""
    best = np.inf
    s = rb
    while True:
        own = (s - rb + pb) / pb
        if own >= best:
            return best
        lo = int(np.searchsorted(rc, s, side="right"))
        hi = int(np.searchsorted(rc, s + pb, side="left"))
        value = own
        if hi > lo:
            value = max(own, float(((s + pb + pc[lo:hi] - rc[lo:hi]) / pc[lo:hi]).max()))
        best = min(best, value)
        if best <= above or lo >= rc.size:
            return best
        s = float(rc[lo])


def stretch_blackout(inst: BatchInstance, low: float = 1.0, *, min_share: float = MIN_SHARE) -> float:
    """The largest of ``low`` and ``inf_s f_B(s)`` (module docstring) over the jobs ``B`` of positive duration at
    least ``min_share`` of the cluster wide. One cluster only (on several, ``low`` is returned)."""
    if inst.clusters != 1 or len(inst) == 0:
        return low
    m = int(inst.procs[0])
    r, p, q = inst.release, inst.duration[:, 0], inst.width
    pos = np.flatnonzero(np.isfinite(p) & (p > 0))
    order = np.argsort(r[pos], kind="stable")
    pos = pos[order]
    cand = pos[q[pos] >= min_share * m]
    cand = cand[np.argsort(-(q[cand] * p[cand]), kind="stable")]
    conflicts: dict = {}  # by width of B: the submissions and durations of the jobs that cannot run beside it
    for b in cand:
        if q[b] not in conflicts:
            conf = pos[q[pos] > m - q[b]]
            conflicts[q[b]] = (r[conf], p[conf])
        rc, pc = conflicts[q[b]]
        if rc.size:  # B itself, if among them, is never counted: its submission is not after any start of B
            low = max(low, job_blackout(float(r[b]), float(p[b]), rc, pc, low))
    return low
