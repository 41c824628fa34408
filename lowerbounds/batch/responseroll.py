"""Mean response time: list moves rolled over the trace piece by piece, each piece's jobs re-sequenced against the
rest of the best schedule (docs/bounds.md, upper side step 5, "Rolling pieces for the mean response time").

A list move of the whole trace (:func:`lowerbounds.batch.clairvoyant._list_search`) builds the whole schedule again,
and a window (:mod:`lowerbounds.batch.windowsearch`) re-sequences 32 jobs; :func:`rolling_pass` runs the list moves
on pieces of the trace in submission order, each against the rest of the schedule as the pieces before it left it
(as the max stretch's rolling pieces do, :mod:`lowerbounds.batch.stretchroll`):

* **Piece**: the submissions of :data:`PIECE_JOBS` consecutive jobs span ``[t_lo, t_hi)``; the jobs that *start* in
  that span are *free* (the queue carried into the piece included), every other job that runs after the earliest free
  submission and starts before the *horizon* ``h`` (the last free completion now) is *fixed*: submitted at its start,
  on its own cluster only, keyed before every free job, so the serial construction puts it back where it is. The free
  jobs' list is their order of starts now.
* **Descent**: a free job drawn with probability proportional to its wait gets its key lowered by a uniform share of
  its wait (the list moves' rule, :func:`squeaky_key`); the piece's serial construction runs again, and the move is
  kept when the free jobs' summed response time falls and every free job ends by ``h``. A piece stops after
  ``patience`` moves without a gain or its part of the work (an equal part of what the pass has left).
* **Pass**: the pieces one after the other, each from the schedule the pieces before it left; the cuts move by
  :data:`OFFSETS` from one pass to the next.

Why a piece's schedule is one of the relaxation: its fixed jobs are placed first, each at its start (they are jobs of
one valid schedule), and each free job at its earliest fit after its submission against them and the free jobs before
it, so no cluster runs more than its processors among the jobs of the piece; a free job that ends by ``h`` overlaps
only jobs that start before ``h``, all of which are in the piece (the free and fixed ones, or the jobs that end before
the earliest free submission, which no free job can meet). Every other job keeps its place, so the whole schedule stays
valid, and its summed response time falls by what the free jobs gain. On one cluster the piece's first schedule starts
every free job no later than now (the serial construction of a schedule's start order); on several, a job may move
to another cluster, so the descent starts from the schedule now and keeps only what is better. The caller
(:class:`RollSearch`) builds the serial construction of the pass's start order in full and checks it.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._listsched import serial_schedule_counted
from lowerbounds.batch._searchstep import CHECK_WORK, Best

__all__ = ["RollSearch", "rolling_pass", "piece_instance", "squeaky_key", "PIECE_JOBS", "ROLL_JOBS"]

PIECE_JOBS = 100
"""Jobs of a piece (submission order): one pass from the best schedule of the default minute's share, 1e8 work units,
gained most per unit with 100 (SDSC-SP2 85 s of mean response, KTH-SP2 32 s; pieces of 50, 250, 500, 1,000 and
2,000 jobs: 64, 66, 18, 17 and 0 s on SDSC-SP2)."""
ROLL_JOBS = 20_000
"""Jobs a workload must have for the step to run. The pieces' moves are cheaper than whole-list moves by about the
number of pieces; on lublin_256 (10,000 jobs) the whole-list moves gain far more per unit (7,877 s in 3.4e8 units,
the pieces 300 s in 1.5e8), and racing the pieces there cost 45,742 -> 46,596 at 2.5e9 units and 39,842 ->
41,230 at 2.1e10; the busiest weeks (749 and 1,201 jobs) keep their search."""
OFFSETS = (0.0, 0.5, 0.25, 0.75)
"""The first piece's size, in pieces, pass after pass (0: a whole piece): the cuts move between passes."""
_FIRST = 1e15
"""The fixed jobs' keys are below ``-_FIRST + their count``: before every free job's."""


class RollSearch:
    """Rolling passes from the best schedule, a step of the race of :func:`lowerbounds.batch.steprace.race`: each
    call runs passes (:func:`rolling_pass`, the cuts shifted by :data:`OFFSETS` from one pass to the next) within
    its limit, then builds the serial construction of the committed schedule's start order in full, checks it
    (``ev.run``) and keeps it when the mean response time falls. It stops by ``patience`` after
    ``len(OFFSETS)`` passes in a row without a gain."""

    def __init__(self, ev, rng, patience: int) -> None:
        self.ev, self.rng, self.patience, self.passes, self.idle = ev, rng, patience, 0, 0

    def __call__(self, best: Best, limit):
        ev = self.ev
        while True:
            stop = limit.stop(self.idle, len(OFFSETS))
            if stop:
                return best, stop
            cluster, start = best.cluster[ev.order].copy(), best.start[ev.order].copy()
            offset = int(OFFSETS[self.passes % len(OFFSETS)] * PIECE_JOBS)
            self.passes += 1
            gained = rolling_pass(ev.release, ev.width, ev.duration, ev.procs, cluster, start, self.rng, ev._work,
                                  limit.work_end, limit.stop, self.patience, PIECE_JOBS, offset)
            values, c2, s2 = ev.run(start, "serial")
            if values["mean_response"] < best.value:
                best = Best(values["mean_response"], "local search", best.detail.split(";")[0] + "; rolling pieces",
                            c2, s2, "serial", best.a)
                self.idle = 0
            else:
                self.idle += 1
            if gained is None:
                return best, "time_limit"


def squeaky_key(key: np.ndarray, weight: np.ndarray, wait: np.ndarray, rng) -> np.ndarray | None:
    """The list moves' rule (docs/bounds.md, upper side step 4): a copy of ``key`` where one job, drawn with
    probability proportional to its ``weight``, has its key lowered by a uniform share of its ``wait``; None when
    every weight is 0."""
    total = weight.sum()
    if not total > 0:
        return None
    j = min(int(np.searchsorted(np.cumsum(weight), rng.random() * total, side="right")), weight.size - 1)
    trial = key.copy()
    trial[j] -= rng.random() * wait[j]
    return trial


def rolling_pass(release, width, duration, procs, cluster, start, rng, work: np.ndarray, work_end: float, stop,
                 patience: int, piece: int = PIECE_JOBS, offset: int = 0):
    """One rolling pass (module docstring) over the schedule ``cluster``, ``start`` (submission order, changed in
    place) of the jobs ``release`` (sorted), ``width``, ``duration`` (n, K), ``procs``; ``work``: the one-element
    counter of work units, shared by the pieces up to ``work_end``; ``offset``: the first piece's size when positive
    (the cuts shifted); ``stop()``: a reason to stop (``time_limit``: at once; another: the pieces left keep their
    places), or None. Returns the summed response time gained,
    or None when the clock stopped a piece."""
    n = release.size
    cuts = [0] + list(range(offset if offset > 0 else piece, n, piece)) + [n]
    gained = 0.0
    for i in range(len(cuts) - 1):
        reason = stop()
        if reason == "time_limit":
            return None
        if reason:  # the work is spent: the pieces after keep their places
            break
        a, b = cuts[i], cuts[i + 1]
        sub = piece_instance(release, width, duration, procs, cluster, start, release[a],
                             release[b] if b < n else np.inf)
        if sub is None:
            continue
        end = work[0] + max(work_end - work[0], 0.0) / (len(cuts) - 1 - i)
        out = _descend(sub, rng, work, lambda end=end: "budget" if work[0] >= end else stop(), patience)
        if out is None:
            return None
        c, s, gain = out
        free = sub["jobs"]
        cluster[free], start[free] = c[sub["free"]], s[sub["free"]]
        gained += gain
    return gained


def piece_instance(release, width, duration, procs, cluster, start, t_lo: float, t_hi: float) -> dict | None:
    """The instance of a piece (module docstring) of the schedule ``cluster``, ``start``: the jobs that start in
    ``[t_lo, t_hi)`` are free; the others that run after the earliest free submission and start before the horizon
    ``h`` (the last free completion) are fixed (submitted at their start, on their own cluster only). Rows sorted by
    submission; ``key``: the list (the fixed first, then the free jobs by their starts); ``free``: the free rows;
    ``jobs``: the free jobs; ``h``; ``now``: the schedule now (``(cluster, start)`` of the rows); ``total``: the free
    jobs' summed response time in it. None when no job starts in the span."""
    jobs = np.flatnonzero((start >= t_lo) & (start < t_hi))
    if jobs.size == 0:
        return None
    ends = start + duration[np.arange(release.size), cluster]
    h = float(ends[jobs].max())
    fixed = np.flatnonzero((ends > release[jobs].min()) & (start < h))
    fixed = fixed[(start[fixed] < t_lo) | (start[fixed] >= t_hi)]
    rows = np.concatenate([fixed, jobs])
    rel = np.concatenate([start[fixed], release[jobs]])
    dur = np.concatenate([np.full((fixed.size, procs.size), np.inf), duration[jobs]])
    dur[np.arange(fixed.size), cluster[fixed]] = duration[fixed, cluster[fixed]]
    key = np.concatenate([np.arange(fixed.size) - _FIRST, start[jobs]])
    order = np.argsort(rel, kind="stable")  # the constructions take the jobs sorted by submission
    rows, key, free = rows[order], key[order], np.flatnonzero(order >= fixed.size)
    arrays = (rel[order], np.ascontiguousarray(width[rows], dtype=np.int64), np.ascontiguousarray(dur[order]), procs)
    return {"arrays": arrays, "key": key, "free": free, "jobs": rows[free], "h": h, "now": (cluster[rows], start[rows]),
            "total": float((ends[jobs] - release[jobs]).sum())}


def _descend(sub: dict, rng, work: np.ndarray, stop, patience: int):
    """List moves on a piece (module docstring) from its list: the best schedule's ``(cluster, start)`` (rows of the
    piece) and the summed response time gained, or None when ``stop()`` said ``time_limit``."""
    key, free = sub["key"], sub["free"]
    best = (*sub["now"], sub["total"])
    first = _placed(sub, key, work)  # on one cluster never worse (module docstring); on several it may be
    if first[2] < best[2]:
        best = first
    idle = 0
    while idle < patience:
        reason = stop()
        if reason == "time_limit":
            return None
        if reason:
            break
        wait = np.zeros(key.size)
        wait[free] = best[1][free] - sub["arrays"][0][free]
        trial = squeaky_key(key, wait, wait, rng)
        if trial is None:
            break
        out = _placed(sub, trial, work)
        if out[2] < best[2]:
            best, idle = out, 0
            key = key.copy()
            key[free] = out[1][free]
        else:
            idle += 1
    return best[0], best[1], sub["total"] - best[2]


def _placed(sub: dict, key: np.ndarray, work: np.ndarray):
    """The piece's serial schedule of the list ``key`` and the summed response time of its free jobs: ``(cluster,
    start, total)``; the total is infinite when a free job ends after the horizon ``h`` (the fixed jobs that start
    from there on are not in the piece)."""
    rel, width, dur, procs = sub["arrays"]
    c, s = serial_schedule_counted(rel, width, dur, procs, np.argsort(key, kind="stable"), work)
    work[0] += CHECK_WORK * rel.size
    f = sub["free"]
    end = s[f] + dur[f, c[f]]
    return c, s, float((end - rel[f]).sum()) if end.max() <= sub["h"] else np.inf
