"""Gates of the max-stretch repair: the starts of a wide job that surely make another job late.

Let a job ``B`` of width ``q_B`` start at ``s`` on one cluster of ``m`` processors, and let ``c`` be a job with
``q_c > m - q_B`` (it cannot run beside ``B``) submitted at ``r_c < s`` that cannot end by ``s``
(``r_c + p_c > s``). Then ``c`` starts at ``s + p_B`` or later, and it meets its deadline ``r_c + S p_c`` at target
stretch ``S`` only if ``s <= r_c + (S - 1) p_c - p_B``. A job ``c`` submitted during ``B``'s run
(``s <= r_c < s + p_B``) waits for its end just the same. So each start ``s`` in the open interval

    ``(r_c + (S - 1) p_c - p_B, r_c + p_c)``

(non-empty when ``p_B > (S - 2) p_c``) makes ``c`` late, whatever the rest of the schedule: these intervals are
``B``'s *gates* at target ``S``. They are the events of :func:`lowerbounds.batch.blackout.job_blackout`, whose bound
is the least ``S`` at which some start of ``B``'s window ``[r_B, r_B + (S - 1) p_B]`` lies outside every gate.

The repair's construction (:func:`lowerbounds.batch._stretchgate.gated_serial_counted`) places each gated job at
its earliest fit outside its gates, so that a long wide job waits for a quiet moment instead of blocking the short
jobs about to arrive. Only the jobs at least :data:`GATE_SHARE` of the cluster wide are gated (one cluster).
"""

from __future__ import annotations

import numpy as np

__all__ = ["GATE_SHARE", "GATE_WORK", "stretch_gates"]

GATE_SHARE = 0.25
"""Jobs narrower than this share of the cluster are not gated."""
GATE_WORK = 4
"""Work units charged per conflicting job examined when the gates are computed."""


def _merge(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of the open intervals ``(lo, hi)`` as sorted disjoint open intervals (touching ones kept apart:
    their common end is outside both)."""
    if lo.size == 0:
        return lo, hi
    o = np.argsort(lo, kind="stable")
    lo, hi = lo[o], hi[o]
    top = np.maximum.accumulate(hi)
    first = np.ones(lo.size, dtype=bool)
    first[1:] = lo[1:] >= top[:-1]
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], lo.size) - 1
    return lo[starts], top[ends]


def stretch_gates(release, width, p, procs: int, target: float, work: np.ndarray | None = None,
                  share: float = GATE_SHARE):
    """Gates (module docstring) of every job at least ``share`` of the ``procs`` processors wide, at ``target``;
    ``release`` sorted, ``p`` the durations on the one cluster. Returns ``(gptr, glo, ghi, glast)``: job ``j``'s
    gates are ``(glo[i], ghi[i])`` for ``gptr[j] <= i < gptr[j + 1]``, clipped to its window, whose end is
    ``glast[j] = r_j + (S - 1) p_j``; ``work[0]`` counts :data:`GATE_WORK` per conflicting job examined."""
    n = release.size
    s = float(target)
    glast = release + (s - 1.0) * p
    pos = np.flatnonzero(p > 0)
    counts = np.zeros(n, dtype=np.int64)
    parts_lo, parts_hi = [], []
    classes: dict = {}
    gated = pos[width[pos] >= share * procs]
    for b in gated:
        qb = int(width[b])
        if qb not in classes:
            conf = pos[width[pos] > procs - qb]
            classes[qb] = (conf, release[conf], p[conf])
        conf, rc, pc = classes[qb]
        pb = p[b]
        reach = pb / (s - 2.0) if s > 2.0 else np.inf
        a = int(np.searchsorted(rc, release[b] - reach, side="right"))
        z = int(np.searchsorted(rc, glast[b] + pb, side="left"))
        if work is not None:
            work[0] += GATE_WORK * (z - a)
        sel = (pc[a:z] < reach) & (conf[a:z] != b)
        lo = rc[a:z][sel] + (s - 1.0) * pc[a:z][sel] - pb
        hi = rc[a:z][sel] + pc[a:z][sel]
        keep = (hi > release[b]) & (lo < glast[b])
        lo, hi = _merge(lo[keep], hi[keep])
        counts[b] = lo.size
        parts_lo.append(lo)
        parts_hi.append(hi)
    gptr = np.zeros(n + 1, dtype=np.int64)
    gptr[1:] = np.cumsum(counts)
    glo = np.empty(int(gptr[-1]))
    ghi = np.empty(int(gptr[-1]))
    for b, lo, hi in zip(gated, parts_lo, parts_hi):
        glo[gptr[b]:gptr[b + 1]] = lo
        ghi[gptr[b]:gptr[b + 1]] = hi
    return gptr, glo, ghi, glast


class Gates:
    """The gates of the repair's construction (:class:`~lowerbounds.batch.stretchrepair.StretchRepair`'s
    ``gates``), at the larger of the repair's target and the best max stretch it has built so far: a job is kept
    off only the starts that would make another job late even at a value already reached, so that the gates do not
    push wide jobs away for a target still out of reach. Computed once per value (work counted in ``work``).
    ``release`` sorted, ``p`` the durations on the one cluster of ``procs`` processors."""

    def __init__(self, release, width, p, procs: int, work: np.ndarray, share: float = GATE_SHARE) -> None:
        self.args = (release, width, p, int(procs))
        self.work, self.share = work, share
        self._at, self._gates = None, None

    def __call__(self, target: float, best: float):
        at = max(target, best) if np.isfinite(best) else target
        if at != self._at:
            self._at = at
            self._gates = stretch_gates(*self.args, at, self.work, self.share)
        return self._gates
