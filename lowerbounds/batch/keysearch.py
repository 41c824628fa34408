"""Local search on the per-job keys of the list construction, with incremental re-simulation.

The list construction (:func:`lowerbounds.batch._listsched.list_schedule`: list scheduling with EASY
backfilling and exact durations) is driven by one key per job. A *move* gives job ``j`` the key of a
job ``i``, just below it (``j`` now passes ``i`` in the queue) or just above it (``i`` passes ``j``). ``j``
is drawn with probability proportional to what it adds to the metric above its own best (its wait for
the response time; a share :data:`WEIGHTED` of the draws, the rest uniform); ``i`` is a job that started
while ``j`` waited (a share :data:`TARGETED` of the draws by excess), else a job submitted near ``j`` (at
most :data:`REACH` jobs away in submission order). The schedule of the new keys is rebuilt by
:func:`lowerbounds.batch._resim.resimulate` from the last quiet point before ``j`` until it rejoins the
current schedule (the same schedule as a full construction, at a small part of its cost), and the move is
kept when the summed metric does not get worse (first improvement; moves that change nothing are kept,
so that the keys drift). The search is a function of the seed and of its stop (moves, moves without
improvement, work units), never of the clock but as a safety stop.

The value the search tracks is a running sum of differences: the caller rebuilds the final keys'
schedule in full and checks it (:class:`lowerbounds.batch.clairvoyant._Evaluator`).
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._listsched import list_schedule_counted
from lowerbounds.batch._resim import resimulate, restart_point
from lowerbounds.batch._searchstep import run_until_stopped
from lowerbounds.batch.instance import bounded_slowdown

__all__ = ["KeySearch", "search_keys", "REACH", "MOVE_WORK", "KEY_PATIENCE"]

WEIGHTED = 1.0
"""Share of the moved jobs drawn by their excess (the rest uniformly). On KTH-SP2 (mean response, 2e9 work
units, seed 0) shares 0.5 / 0.8 / 1 gave 11,695 / 11,636 / 11,614 s."""
TARGETED = 0.5
"""Share of the partners drawn among the jobs that started while the moved job waited (0.85 gave 11,624 s in the
run above)."""
REACH = 64
"""A move's partner is at most this many jobs away from the moved job in submission order."""
MOVE_WORK = 20_000
"""Work units charged per move besides the re-simulation's own steps (drawing, bookkeeping)."""
KEY_PATIENCE = 50
"""A key move is much cheaper than a whole construction: the search's patience (moves without improvement) is
this many times the patience given to the block and list moves."""


class KeySearch:
    """The current keys and their schedule (submission order), and the moves of the module docstring.

    ``release`` sorted non-decreasing, ``width``, ``duration`` (n, K), ``procs``: as for
    :func:`~lowerbounds.batch._listsched.list_schedule`; ``key`` the starting keys; ``work``: the one-element
    counter of work units (the construction's steps times ``step_work``, plus :data:`MOVE_WORK` per move);
    ``metric``: ``mean_response`` or ``mean_bounded_slowdown``.
    """

    def __init__(self, release, width, duration, procs, key, metric: str, work: np.ndarray, step_work: int = 1):
        self.release, self.width, self.duration, self.procs = release, width, duration, procs
        self.metric, self.work, self.step_work = metric, work, step_work
        self.key = np.array(key, dtype=float)
        self.n = release.size
        fin = np.isfinite(duration)
        self.pmax = float(duration[fin].max()) if fin.any() else 0.0
        self.pmin = np.where(fin, duration, np.inf).min(axis=1)
        self.cluster, self.start = self._charged(list_schedule_counted, release, width, duration, procs, self.key)
        self.total = float(self._costs(self.cluster, self.start).sum())
        self.moves = 0
        self._refresh()

    def _charged(self, fn, *args):
        w = np.zeros(1, dtype=np.int64)
        out = fn(*args, w)
        self.work[0] += self.step_work * int(w[0])
        return out

    def _costs(self, cluster, start) -> np.ndarray:
        p = self.duration[np.arange(self.n), cluster]
        resp = start + p - self.release
        if self.metric == "mean_bounded_slowdown":
            return bounded_slowdown(resp, p)
        return resp

    def _refresh(self) -> None:
        """The longest wait (the restart's reach) and the draw weights."""
        wait = self.start - self.release
        self.reach = self.pmax + float(wait.max())
        if self.metric == "mean_bounded_slowdown":
            excess = self._costs(self.cluster, self.start) - bounded_slowdown(self.pmin, self.pmin)
        else:
            excess = wait
        self.cum = np.cumsum(np.maximum(excess, 0.0))
        self.by_start = np.argsort(self.start, kind="stable")
        self.sorted_start = self.start[self.by_start]

    @property
    def value(self) -> float:
        """The metric of the current schedule (mean over the jobs)."""
        return self.total / self.n

    def _draw(self, rng) -> tuple[int, bool]:
        """The moved job, and whether it was drawn by its excess."""
        if rng.random() < WEIGHTED and self.cum[-1] > 0:
            return min(int(np.searchsorted(self.cum, rng.random() * self.cum[-1], side="right")), self.n - 1), True
        return int(rng.integers(self.n)), False

    def _partner(self, rng, j: int, weighted: bool) -> int:
        """A job that started while ``j`` waited (one draw in two when ``j`` was drawn by its excess), else a job at
        most :data:`REACH` away in submission order."""
        if weighted and rng.random() < TARGETED:
            lo, hi = np.searchsorted(self.sorted_start, (self.release[j], self.start[j]), side="left")
            if hi > lo:
                return int(self.by_start[int(rng.integers(lo, hi))])
        return int(rng.integers(max(j - REACH, 0), min(j + REACH + 1, self.n)))

    def move(self, rng) -> float:
        """One move (module docstring); returns the change of the summed metric (kept when <= 0)."""
        self.moves += 1
        self.work[0] += MOVE_WORK
        j, weighted = self._draw(rng)
        i = self._partner(rng, j, weighted)
        if i == j:
            return 0.0
        old = self.key[j]
        self.key[j] = np.nextafter(self.key[i], -np.inf if self.key[i] < old else np.inf)
        i0 = int(restart_point(self.release, j))
        cluster, start = self.cluster.copy(), self.start.copy()
        _stop, d_resp, d_bsld = self._charged(resimulate, self.release, self.width, self.duration, self.procs,
                                             self.key, self.cluster, self.start, i0, j, self.reach, cluster, start)
        delta = d_bsld if self.metric == "mean_bounded_slowdown" else d_resp
        if delta > 0:
            self.key[j] = old
            return delta
        self.cluster, self.start = cluster, start
        self.total += delta
        if delta < 0:
            self._refresh()
        return delta


def search_keys(ks: KeySearch, rng, stop, patience: int | None = None) -> str:
    """Moves on ``ks`` until ``stop(idle)`` names a reason (``idle``: moves since the last improvement), or
    ``patience`` moves pass without improvement; returns the reason."""
    return run_until_stopped(lambda: ks.move(rng) < 0, stop, patience)
