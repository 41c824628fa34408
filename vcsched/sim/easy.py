"""EASY backfilling: the head job is protected by a reservation, later jobs start now when they do not delay it.

The submission-order queue and the estimate plan it shares with FCFS are in
:mod:`vcsched.sim.queued`.
"""

from __future__ import annotations

import bisect
import itertools

from vcsched.sim.cluster import INF
from vcsched.sim.queued import QueuedCluster

__all__ = ["EasyCluster"]


class EasyCluster(QueuedCluster):
    """EASY backfilling (Lifka; the textbook rule checked by the pyss reference schedules).

    A pass starts jobs from the head of the queue while they fit; then the head job's
    earliest start (the *shadow time*) is computed from the running jobs' requested end
    times, and each later job, in queue order, starts now if it fits in the free
    processors and either ends (by its requested time) no later than the shadow time or
    uses no more than the processors left over at the shadow time (*extra*); jobs
    started earlier in the same pass count as running.

    Notes
    -----
    Jobs ending exactly at the shadow time count as free at the shadow time. When no
    job ended and the head did not change since the previous pass, only the newly
    arrived jobs are examined: the others failed before and can only fail again
    (free processors and extra did not grow, time moved forward). This is an exact
    shortcut, not an approximation.
    """

    policy = "easy"

    def _reset(self) -> None:
        QueuedCluster._reset(self)
        self._by_req_end: list[tuple[float, int]] = []
        self._dirty = True
        self._last_head = -1
        self._new = 0
        self._shadow = INF
        self._extra = 0
        self.head_reservations: dict[int, float] = {}

    def _on_submit(self, j: int) -> None:
        QueuedCluster._on_submit(self, j)
        self._new += 1

    def _on_cancel(self, j: int) -> None:
        self._plan = None
        self._dirty = True
        self.head_reservations.pop(j, None)

    def _start(self, j: int) -> None:
        bisect.insort(self._by_req_end, (self.kernel.now + self.req_here[j], j))
        QueuedCluster._start(self, j)

    def _on_end(self, j: int, req_end: float) -> None:
        lst = self._by_req_end
        k = bisect.bisect_left(lst, (req_end, j))
        del lst[k]
        self._dirty = True
        if self.kernel.now < req_end:
            self._plan = None

    def _shadow_extra(self, head: int) -> tuple[float, int]:
        need = self.P[head] - self.free
        acc = 0
        P = self.P
        lst = self._by_req_end
        n = len(lst)
        k = 0
        while k < n:
            rend, j = lst[k]
            acc += P[j]
            k += 1
            if acc >= need:
                while k < n and lst[k][0] == rend:
                    acc += P[lst[k][1]]
                    k += 1
                return rend, self.free + acc - P[head]
        return INF, 0  # cannot happen when the head fits the cluster

    def _pass(self, _=None) -> None:
        self._pass_pending = False
        waiting = self.waiting_jobs
        new = self._new
        self._new = 0
        if not waiting:
            self._dirty = False
            return
        P = self.P
        head = self._head()
        while P[head] <= self.free:
            del waiting[head]
            self._fifo.popleft()
            self._start(head)
            if not waiting:
                self._dirty = False
                return
            head = self._head()
        now = self.kernel.now
        full = self._dirty or head != self._last_head
        if full:
            self._shadow, self._extra = self._shadow_extra(head)
            self._last_head = head
            self._dirty = False
            if head not in self.head_reservations:
                self.head_reservations[head] = self._shadow
        if self.free == 0 or len(waiting) == 1:
            return
        if full:
            candidates = iter(waiting)
            next(candidates)
            candidates = list(candidates)
        else:
            if new == 0:
                return
            candidates = list(itertools.islice(reversed(waiting), min(new, len(waiting) - 1)))[::-1]
        shadow, extra, free = self._shadow, self._extra, self.free
        limit = shadow - now
        req = self.req_here
        for j in candidates:
            p = P[j]
            if p > free:
                continue
            late = req[j] > limit
            if late and p > extra:
                continue
            del waiting[j]
            self._start(j)
            free -= p
            if late:
                extra -= p
            if free == 0:
                break
        self._extra = extra
