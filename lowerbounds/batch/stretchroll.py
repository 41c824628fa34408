"""Max stretch: the deadline repair rolled over the trace piece by piece, from the best schedule (docs/bounds.md,
upper side step 2, "Rolling pieces").

On a whole trace every round of :class:`~lowerbounds.batch.stretchrepair.StretchRepair` builds the whole list, and
its target is one for the whole trace, so a stall in one burst (CTC-SP2 at day 35 or 300) stops the descent
everywhere. :func:`rolling_schedule` runs the same repair on pieces of the trace in submission order instead, each
against what the pieces before it placed, from a given schedule's start order:

* **Piece** ``i``: its :data:`PIECE_JOBS` jobs (submission order), the jobs carried from the pieces before (placed
  at or after the piece's first submission) and the next :data:`LOOKAHEAD` jobs are *free*; the jobs already
  committed that end after the earliest submission among the free ones are *frozen*: each is keyed before every
  free job, in start order, with its submission moved to its start and only its own cluster, so the serial
  construction puts it back exactly where it was (it fits there: the jobs placed before it are some of a valid
  schedule's), and the repair never moves it (``frozen``).
* The free jobs start in the given schedule's start order, at its max stretch as the first target; the repair
  descends while the piece's part of the work lasts (:data:`SPREAD`), down to the *floor*: the largest stretch
  already committed (the whole cannot end lower by this piece) or the lower bound.
* **Commit**: the free jobs of the piece and those carried that start before the next piece's first submission
  keep their cluster and start; the others are carried. The last piece commits every job.

Every job is committed as a serial construction placed it against the frozen jobs, which are all the committed jobs
that can overlap it (a committed job that ends before the earliest free submission cannot), so the committed
schedule respects every cluster's capacity, and each job starts after its submission. The caller rebuilds the list
of its start order in full (each job then starts no later: the serial construction of a schedule's start order)
and checks it.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._listsched import serial_schedule_counted
from lowerbounds.batch.stretchrepair import ROUNDS, StretchRepair, max_stretch, search_stretch

__all__ = ["rolling_schedule", "PIECE_JOBS", "LOOKAHEAD"]

PIECE_JOBS = 4000
"""Jobs of a piece (submission order)."""
LOOKAHEAD = 2000
"""Jobs after the piece that its search sees, free, without committing them."""
SPREAD = 4.0
"""A piece may use ``SPREAD`` times an equal part of the work left (all of it when fewer pieces are left): a piece
whose descent ends early leaves its part to the next, and the one that holds the largest stretch needs more than an
equal part (on CTC-SP2, the pieces around day 35)."""
_FROZEN_KEY = -1e15
"""Keys of the frozen jobs (``_FROZEN_KEY + their start rank``): before every free key."""


def rolling_schedule(release, width, duration, procs, start, value: float, low: float, work: np.ndarray,
                     work_end: float, stop, patience: int = ROUNDS, piece: int = PIECE_JOBS,
                     lookahead: int = LOOKAHEAD, offset: int = 0):
    """The committed schedule of the rolling repair (module docstring) of the jobs ``release`` (sorted),
    ``width``, ``duration`` (n, K), ``procs``, from the schedule of starts ``start`` and max stretch ``value``;
    ``low``: a lower bound on the max stretch (the least floor); ``work``: the one-element counter of work units,
    shared by the pieces up to ``work_end``; ``offset``: the first piece's size when positive (the cuts shifted);
    ``stop()``: a reason to stop the rounds (``time_limit``: stop at once), or None. Returns ``(cluster, start,
    rounds)``, or None when the clock stopped a piece."""
    n = release.size
    cluster = np.full(n, -1, dtype=np.int64)
    placed = np.full(n, np.nan)
    committed = np.zeros(n, dtype=bool)
    carried = np.zeros(0, dtype=np.int64)
    cuts = [0] + list(range(offset if offset > 0 else piece, n, piece)) + [n]
    worst, rounds = max(low, 1.0), 0
    for i in range(len(cuts) - 1):
        a, b = cuts[i], cuts[i + 1]
        free = np.concatenate([carried, np.arange(a, min(b + lookahead, n))])
        sub = _piece(release, width, duration, procs, cluster, placed, committed, free)
        key = np.where(sub["frozen"], sub["key"], start[sub["jobs"]])
        sr = StretchRepair(*sub["arrays"], key, value, work, patience, frozen=sub["frozen"], floor=worst)
        end = work[0] + max(work_end - work[0], 0.0) * min(1.0, SPREAD / (len(cuts) - 1 - i))
        if search_stretch(sr, lambda end=end: "budget" if work[0] >= end else stop()) == "time_limit":
            return None
        rounds += sr.rounds
        c, s = _placed(sub, sr.best_key, work)
        own = free[free < b]
        go = s[sub["row"][own]] < (release[b] if b < n else np.inf)
        take = own[go]
        cluster[take], placed[take] = c[sub["row"][take]], s[sub["row"][take]]
        committed[take] = True
        carried = own[~go]
        worst = max(worst, max_stretch(release, duration, np.maximum(cluster, 0), placed, committed)[0])
    return cluster, placed, rounds


def _piece(release, width, duration, procs, cluster, start, committed, free) -> dict:
    """The instance of a piece's search: the frozen jobs (committed, ending after the earliest free submission,
    submitted at their start, on their own cluster only) and the free ones, sorted by submission; ``key``: the
    frozen jobs' keys (in start order, before any other), ``row[j]``: job ``j``'s row (-1 when absent)."""
    done = np.flatnonzero(committed)
    ends = start[done] + duration[done, cluster[done]]
    fixed = done[ends > release[free].min()]
    fixed = fixed[np.argsort(start[fixed], kind="stable")]
    jobs = np.concatenate([fixed, free])
    rel = np.concatenate([start[fixed], release[free]])
    dur = duration[jobs].copy()
    dur[:fixed.size] = np.inf
    dur[np.arange(fixed.size), cluster[fixed]] = duration[fixed, cluster[fixed]]
    order = np.argsort(rel, kind="stable")
    frozen = order < fixed.size
    key = np.zeros(jobs.size)
    key[frozen] = _FROZEN_KEY + np.arange(fixed.size)  # the stable sort kept the start order
    jobs = jobs[order]
    row = np.full(release.size, -1, dtype=np.int64)
    row[jobs] = np.arange(jobs.size)
    arrays = (rel[order], np.ascontiguousarray(width[jobs]), np.ascontiguousarray(dur[order]), procs)
    return {"arrays": arrays, "key": key, "frozen": frozen, "row": row, "jobs": jobs}


def _placed(sub: dict, key: np.ndarray, work: np.ndarray):
    """The piece's schedule of the list ``key`` (serial construction)."""
    rel, width, dur, procs = sub["arrays"]
    return serial_schedule_counted(rel, width, dur, procs, np.argsort(key, kind="stable"), work)
