"""The bounded slowdown's list moves, each placing again only the part of the list it changes.

The list moves of the clairvoyant search (:mod:`lowerbounds.batch.clairvoyant`, a squeaky-wheel move): the list is
the current schedule's start order; a job drawn with probability proportional to what it adds to the mean bounded
slowdown above its own best (its bounded slowdown less the one it would have without waiting) gets its key (its
start) lowered by a uniform share of its wait, the serial construction runs again
(:func:`lowerbounds.batch._listsched.serial_schedule`), and the move is kept when the metric improves.

A move takes one job to an earlier place ``b`` of the list and leaves the list before ``b`` as it was; the serial
construction places the jobs one after the other in list order, each against those placed before it, so every job
before ``b`` is placed where it was. :class:`ResumableSerial` keeps the construction's state (the profile of free
processors and its pointers) at every ``every``-th place of the list; a move restores the last kept state at or
before ``b`` and places the rest of the list only (:func:`lowerbounds.batch._listsched.place_range`). Its schedule is the serial
construction's over the whole new list (tested against it). A trial's value is the sum of the jobs placed again
plus the kept sum of the others; only a schedule that lowers the value is checked whole
(:func:`~lowerbounds.batch.instance.check_batch_schedule`) and has its metric read again before it is kept. After
a kept move the list is the new schedule's start order, and the states are placed again from the first place where
that list differs from the one before.

The work count is the constructions' elementary steps (as :func:`~lowerbounds.batch._listsched.serial_schedule_counted`
counts them), :data:`COPY_WORK` per element of a state copied, :data:`VALUE_WORK` per job whose bounded slowdown is
read and :data:`~lowerbounds.batch._searchstep.CHECK_WORK` per job of a checked schedule (the search's evaluator charges as much), so the search is
a function of its seed and budget. Measured on CTC-SP2 from the search's schedule at 2.1e10 units: a move resumes at
62 % of the list on average and costs 8.5e6 units and 0.026 s of CPU, against 1.42e7 and 0.050 s for the whole
construction and its check.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._listsched import place_range
from lowerbounds.batch._searchstep import CHECK_WORK, Best, Limit
from lowerbounds.batch.instance import bounded_slowdown, check_batch_schedule, schedule_metrics

__all__ = ["ResumableSerial", "bsld_list_search", "CHECKPOINTS", "COPY_WORK", "VALUE_WORK"]

CHECKPOINTS = 64
"""States kept along the list (one every ``n / CHECKPOINTS`` places, at least :data:`MIN_EVERY`)."""
MIN_EVERY = 64
"""Least number of places between two kept states."""
COPY_WORK = 0.25
"""Work units per array element of a construction state copied (restored or kept)."""
VALUE_WORK = 8
"""Work units per job whose bounded slowdown a trial reads."""


class ResumableSerial:
    """The serial construction over a list, with its state kept at every ``every``-th place (module docstring).
    Jobs are indexed in submission order (``release`` non-decreasing), as the search's evaluator keeps them."""

    def __init__(self, release, width, duration, procs, work: np.ndarray) -> None:
        self.release, self.width, self.duration, self.procs, self.work = release, width, duration, procs, work
        n, K = duration.shape
        self.n, self.K = n, K
        self.every = max(-(-n // CHECKPOINTS), MIN_EVERY)
        cap = K + 2 * n + 1
        self.bt, self.bf, self.nxt = np.zeros(cap), np.zeros(cap, dtype=np.int64), np.full(cap, -1, dtype=np.int64)
        self.ptr = np.zeros((K, n), dtype=np.int64)
        self.states: list = []
        self.order = np.zeros(0, dtype=np.int64)
        self.cluster, self.start = np.full(n, -1, dtype=np.int64), np.full(n, np.nan)
        self.gates = (np.zeros(n + 1, dtype=np.int64), np.empty(0), np.empty(0), release)  # none: the plain serial

    def _place(self, order: np.ndarray, lo: int, hi: int, size: int, ready: int, cluster, start) -> tuple[int, int]:
        return place_range(self.release, self.width, self.duration, self.procs, order, lo, hi, self.bt, self.bf,
                           self.nxt, size, self.ptr, ready, cluster, start, *self.gates, self.work)

    def _restore(self, c: int) -> tuple[int, int]:
        bt, bf, nxt, ptr, size, ready = self.states[c]
        self.bt[:size], self.bf[:size], self.nxt[:size] = bt, bf, nxt
        self.ptr[:, :ready] = ptr
        self.work[0] += int(COPY_WORK * (3 * size + ptr.size))
        return size, ready

    def _keep(self, size: int, ready: int) -> None:
        state = (self.bt[:size].copy(), self.bf[:size].copy(), self.nxt[:size].copy(), self.ptr[:, :ready].copy(),
                 size, ready)
        self.work[0] += int(COPY_WORK * (3 * size + self.K * ready))
        self.states.append(state)

    def _empty(self) -> tuple[int, int]:
        self.nxt[:] = -1
        for k in range(self.K):
            self.bt[k], self.bf[k] = -1.0, self.procs[k]
        self.ptr[:, :] = np.arange(self.K)[:, None]
        return self.K, 0

    def build(self, order: np.ndarray, first: int = 0) -> None:
        """The construction over ``order``, its states kept; the states before place ``first`` are those of the list
        before (whose places before ``first`` are the same)."""
        order = np.ascontiguousarray(order, dtype=np.int64)
        c = min(first // self.every, len(self.states) - 1) if self.states else 0
        del self.states[c + 1 if self.states else 0:]
        size, ready = self._restore(c) if self.states else self._empty()
        if not self.states:
            self._keep(size, ready)
        lo = c * self.every
        while lo < self.n:
            hi = min(lo + self.every, self.n)
            size, ready = self._place(order, lo, hi, size, ready, self.cluster, self.start)
            if hi < self.n:
                self._keep(size, ready)
            lo = hi
        self.order = order

    def trial(self, order: np.ndarray, first: int) -> tuple[np.ndarray, np.ndarray, int]:
        """The construction over ``order``, whose places before ``first`` are those of the list built last:
        ``(cluster, start, place it resumed from)`` (new arrays; the kept states are not changed)."""
        c = min(first // self.every, len(self.states) - 1)
        size, ready = self._restore(c)
        cluster, start = self.cluster.copy(), self.start.copy()
        self._place(np.ascontiguousarray(order, dtype=np.int64), c * self.every, self.n, size, ready, cluster, start)
        return cluster, start, c * self.every


def _moved(order: np.ndarray, key: np.ndarray, j: int, new: float) -> tuple[np.ndarray, int]:
    """The list ``order`` (sorted by ``key``, ties by index) with job ``j``'s key lowered to ``new``: ``(list, the
    first place that changed)``, the same as a stable argsort of the new keys."""
    rest = order[order != j]
    keys = key[rest]
    b = int(np.searchsorted(keys, new, side="left"))
    while b < rest.size and keys[b] == new and rest[b] < j:
        b += 1
    return np.insert(rest, b, j), b


def bsld_list_search(ev, best: Best, rng, limit: Limit, patience: int | None):
    """The list moves (module docstring) from ``best``'s schedule on the evaluator ``ev``'s instance (its work
    counter and count of schedules), until ``limit`` stops them or ``patience`` moves pass without a gain: (best,
    stopped). The draws are those of :func:`lowerbounds.batch.clairvoyant._list_search`."""
    rows, n = ev.order, ev.release.size
    rs = ResumableSerial(ev.release, ev.width, ev.duration, ev.procs, ev._work)
    key = best.start[rows].astype(float)
    rs.build(np.argsort(key, kind="stable"))
    draw, wait = _draws(ev, best.cluster[rows], best.start[rows])
    prefix = _prefix(ev, rs)
    idle = 0
    while True:
        stop = limit.stop(idle, patience)
        if stop:
            return best, stop
        if not draw[-1] > 0:
            return best, "done"
        j = min(int(np.searchsorted(draw, rng.random() * draw[-1], side="right")), n - 1)
        trial_order, b = _moved(rs.order, key, j, key[j] - rng.random() * wait[j])
        c2, s2, first = rs.trial(trial_order, b)
        ev.count += 1
        placed = trial_order[first:]
        ev._work[0] += VALUE_WORK * placed.size
        if not (prefix[first] + _costs(ev, c2[placed], s2[placed], placed).sum()) / n < best.value:
            idle += 1
            continue
        cl, st = np.empty_like(c2), np.empty_like(s2)
        cl[rows], st[rows] = c2, s2
        check_batch_schedule(ev.inst, cl, st)
        value = schedule_metrics(ev.inst, cl, st)["mean_bounded_slowdown"]
        ev._work[0] += CHECK_WORK * n
        if not value < best.value:
            idle += 1
            continue
        best = Best(value, "local search", best.detail.split(";")[0] + "; list moves", cl, st, "serial", best.a)
        key = s2.astype(float)
        new_order = np.argsort(key, kind="stable")
        diff = np.flatnonzero(new_order != rs.order)
        rs.build(new_order, int(diff[0]) if diff.size else n)
        draw, wait = _draws(ev, c2, s2)
        prefix, idle = _prefix(ev, rs), 0


def _draws(ev, cluster: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cumulated move weights (what each job adds above its own best) and the waits, submission order."""
    p = ev.duration[np.arange(ev.release.size), cluster]
    wait = np.maximum(start - ev.release, 0.0)
    return np.cumsum(bounded_slowdown(wait + p, p) - bounded_slowdown(p, p)), wait


def _prefix(ev, rs: ResumableSerial) -> np.ndarray:
    """``prefix[i]``: the summed bounded slowdown of the first ``i`` jobs of the list built last."""
    ev._work[0] += VALUE_WORK * rs.n
    return np.concatenate([[0.0], np.cumsum(_costs(ev, rs.cluster, rs.start)[rs.order])])


def _costs(ev, cluster: np.ndarray, start: np.ndarray, jobs: np.ndarray | None = None) -> np.ndarray:
    """Bounded slowdowns of ``jobs`` (submission order; all when None) placed on ``cluster`` at ``start``."""
    jobs = np.arange(ev.release.size) if jobs is None else jobs
    p = ev.duration[jobs, cluster]
    return bounded_slowdown(start - ev.release[jobs] + p, p)
