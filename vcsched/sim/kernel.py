"""A generic discrete-event kernel: one heap ordered by (time, priority, sequence).

The kernel knows nothing about jobs, clusters or policies; batch clusters
(:mod:`vcsched.sim.cluster`), grid platforms (:mod:`vcsched.sim.platform`) and later
time-shared servers or agent hierarchies all schedule callbacks on it. It is built
after SimPy's ``Environment`` (``simpy/core.py``): events at the same time are
ordered by a small integer *priority* and then by a *sequence number* given at
insertion, so ties always break the same way and a run is reproducible. There is no
randomness inside; workloads and policies bring their own seeds.

Priorities used by the batch simulator (lower runs first at a given instant), see
:mod:`vcsched.sim.cluster` for the full rules of an instant:

====================  ===  ==========================================================
``PRIORITY_END``        0  a job ends and leaves its cluster
``PRIORITY_REACT``     10  a cluster reacts once to the ends of this instant (CBF re-plan)
``PRIORITY_PERIODIC``  15  periodic meta-scheduler actions (reallocation, later issues)
``PRIORITY_ARRIVAL``   20  jobs submitted at this instant arrive, in submission order
``PRIORITY_PASS``      30  one scheduling pass per cluster starts what can start
====================  ===  ==========================================================
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

__all__ = [
    "Kernel",
    "PRIORITY_END",
    "PRIORITY_REACT",
    "PRIORITY_PERIODIC",
    "PRIORITY_ARRIVAL",
    "PRIORITY_PASS",
]

PRIORITY_END = 0
PRIORITY_REACT = 10
PRIORITY_PERIODIC = 15
PRIORITY_ARRIVAL = 20
PRIORITY_PASS = 30


class Kernel:
    """Event loop: ``schedule`` callbacks, then ``run`` them in (time, priority, sequence) order.

    Attributes
    ----------
    now : float
        Time of the event being processed (the last processed one after ``run``).
    processed : int
        Number of events processed so far.

    Examples
    --------
    >>> k = Kernel()
    >>> log = []
    >>> _ = k.schedule(2.0, 0, log.append, "b")
    >>> _ = k.schedule(1.0, 5, log.append, "a")
    >>> k.run()
    >>> log
    ['a', 'b']
    """

    __slots__ = ("now", "processed", "_heap", "_seq")

    def __init__(self, start: float = 0.0) -> None:
        self.now = start
        self.processed = 0
        self._heap: list = []
        self._seq = 0

    def schedule(self, time: float, priority: int, callback: Callable[[Any], Any], arg: Any = None) -> int:
        """Run ``callback(arg)`` at ``time``; returns the event's sequence number.

        Raises
        ------
        ValueError
            When ``time`` is before the current time (events cannot go back in time).
        """
        if time < self.now:
            raise ValueError(f"cannot schedule an event at {time} before the current time {self.now}")
        self._seq += 1
        heapq.heappush(self._heap, (time, priority, self._seq, callback, arg))
        return self._seq

    def peek(self) -> float:
        """Time of the next event (``inf`` when there is none)."""
        return self._heap[0][0] if self._heap else float("inf")

    def __len__(self) -> int:
        return len(self._heap)

    def run(self, until: float | None = None) -> None:
        """Process events in order until the heap is empty or the next one is after ``until``."""
        heap = self._heap
        pop = heapq.heappop
        processed = self.processed
        try:
            if until is None:
                while heap:
                    time, _, _, callback, arg = pop(heap)
                    self.now = time
                    processed += 1
                    callback(arg)
            else:
                while heap and heap[0][0] <= until:
                    time, _, _, callback, arg = pop(heap)
                    self.now = time
                    processed += 1
                    callback(arg)
        finally:
            self.processed = processed
