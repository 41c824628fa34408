"""Max-stretch lower bound from the jobs that cannot run beside one job while it runs (one cluster, every start).

A job ``B`` of width ``q_B`` holds ``q_B`` of the ``m`` processors during ``[s, s + p_B)``, wherever it starts
(``s >= r_B``). A job ``j`` with ``q_j > m - q_B`` cannot run beside it. If ``s - p_j < r_j < s + p_B``, ``j`` can
neither end by ``s`` (it starts at ``r_j`` at the earliest) nor start before ``s + p_B`` without overlapping ``B``:
it starts at ``s + p_B`` or later, and its stretch is at least ``(s + p_B + p_j - r_j) / p_j``; ``B``'s own is
``(s - r_B + p_B) / p_B``. So every schedule has a max stretch of at least

    ``f_B(s) = max((s - r_B + p_B) / p_B, max_{j: q_j > m - q_B, s - p_j < r_j < s + p_B} (s + p_B + p_j - r_j) / p_j)``

for the start ``s`` of ``B`` it has, hence at least ``inf_{s >= r_B} f_B(s)``. A job ``j`` enters the set when ``s``
passes ``r_j - p_B`` and leaves it when ``s`` reaches ``r_j + p_j``; between these events every term grows with
``s``. So ``f_B`` falls only where ``s`` reaches some ``r_j + p_j`` (``j`` out of the open interval), and the
infimum is the least ``f_B`` over ``s = r_B`` and the ends ``r_j + p_j > r_B`` of the conflicting jobs. The scan
stops once ``B``'s own term reaches the least value so far.

This is the branching test of :mod:`lowerbounds.batch.branching` (jobs that cannot run beside ``B`` stopped during
its run) for the jobs that must straddle or follow the run only, but with ``B``'s exact start instead of pieces of
its window: on the whole CTC-SP2 trace a job of 306 of the 338 processors for 18 hours forces 11.56, against 10.38
for the branching, on SDSC-SP2 9.87 against 9.02. The bound is the largest over the jobs ``B`` at least
:data:`MIN_SHARE` of the cluster wide (any subset of jobs gives a valid bound).
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch.instance import BatchInstance

__all__ = ["stretch_blackout", "job_blackout", "MIN_SHARE"]

MIN_SHARE = 0.125
"""Jobs ``B`` narrower than this share of the cluster are not tried (they leave room to all but the widest jobs)."""


def job_blackout(rb: float, pb: float, rc: np.ndarray, pc: np.ndarray, above: float = -np.inf,
                 skip: int = -1) -> float:
    """``inf_s f_B(s)`` of the module docstring for ``B`` submitted at ``rb`` of duration ``pb > 0``, the conflicting
    jobs submitted at ``rc`` (sorted) with durations ``pc > 0``; the job at position ``skip`` of these (``B`` itself,
    if among them) is left out. Returns early, with a value at most ``above``, once some start shows that the
    infimum is at most ``above``."""
    leave = np.sort(rc + pc)
    cands = np.concatenate(([rb], leave[leave > rb]))
    longest = float(pc.max(initial=0.0))
    best = np.inf
    for s in cands:
        own = (s - rb + pb) / pb
        if own >= best:
            break
        lo = int(np.searchsorted(rc, s - longest, side="right"))
        hi = int(np.searchsorted(rc, s + pb, side="left"))
        value = own
        if hi > lo:
            r, p = rc[lo:hi], pc[lo:hi]
            forced = r + p > s
            if lo <= skip < hi:
                forced[skip - lo] = False
            if forced.any():
                value = max(own, float(((s + pb + p[forced] - r[forced]) / p[forced]).max()))
        best = min(best, value)
        if best <= above:
            break
    return best


def stretch_blackout(inst: BatchInstance, low: float = 1.0, *, min_share: float = MIN_SHARE) -> float:
    """The largest of ``low`` and ``inf_s f_B(s)`` (module docstring) over the jobs ``B`` of positive duration at
    least ``min_share`` of the cluster wide. One cluster only (on several, ``low`` is returned)."""
    if inst.clusters != 1 or len(inst) == 0:
        return low
    m = int(inst.procs[0])
    r, p, q = inst.release, inst.duration[:, 0], inst.width
    pos = np.flatnonzero(np.isfinite(p) & (p > 0))
    pos = pos[np.argsort(r[pos], kind="stable")]
    cand = pos[q[pos] >= min_share * m]
    cand = cand[np.argsort(-(q[cand] * p[cand]), kind="stable")]
    conflicts: dict = {}  # by width of B: the jobs that cannot run beside it, in submission order
    for b in cand:
        if q[b] not in conflicts:
            conf = pos[q[pos] > m - q[b]]
            conflicts[q[b]] = (conf, r[conf], p[conf])
        conf, rc, pc = conflicts[q[b]]
        if rc.size:
            at = -1
            if 2 * q[b] > m:  # B is among its own conflicts: find it among the jobs submitted with it
                at = int(np.searchsorted(rc, r[b], side="left"))
                while conf[at] != b:
                    at += 1
            low = max(low, job_blackout(float(r[b]), float(p[b]), rc, pc, low, at))
    return low
