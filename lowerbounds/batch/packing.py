"""Packings for the makespan: the wide jobs first, with EASY backfilling or without reservations (its upper side).

The clairvoyant portfolio (:mod:`lowerbounds.batch.clairvoyant`) builds schedules with EASY backfilling or the
serial construction: the head of the queue keeps a reservation, and the processors it waits for idle while the
queue holds jobs that would fill them. For the mean response that protects the head; for the makespan it is
idle time, and on an overloaded trace (lublin_256: a queue of 50 to 400 jobs for most of the trace) it is 3 %
of the makespan, mostly while the queue's wide jobs wait. :func:`greedy_pack` never idles a processor that a queued
job could use:

* at each event ``t`` (a submission or a completion), the submitted waiting jobs are taken in ``key`` order
  (smaller first, ties by index), and each one that fits in the processors free at ``t`` on some cluster starts
  at ``t`` on the cluster where it would complete first (Graham's list scheduling for rigid parallel jobs, with
  release dates, without reservations).

Every job starts at or after its submission, on a cluster where it fits, when its processors are free, and runs
its duration without interruption: a schedule of the relaxation (:mod:`lowerbounds.batch.instance`), so its
makespan is at least the optimum's; it is checked by :func:`~lowerbounds.batch.instance.check_batch_schedule`
before it is used. :func:`makespan_packings` tries the constructions and keys of :data:`PACKINGS`: the portfolio's
EASY construction and :func:`greedy_pack`, with the wide jobs first (widest first then longest, or largest
width × duration first: the wide jobs, which cannot share the machine with each other, start as soon as they can,
and the narrow ones fill around them), and :func:`greedy_pack` longest first; it keeps the best. The portfolio's
keys (submission, shortest or longest first, ...) do not put the wide jobs first: on lublin_256 EASY widest first
is 1.008 times the bound against the portfolio's 1.034.

:func:`greedy_pack` is plain Python with a sorted queue (no compiled kernel): about 0.3 s per key on lublin_256's
10,000 jobs.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
from sortedcontainers import SortedList

from lowerbounds.batch.instance import BatchInstance, check_batch_schedule
from lowerbounds.batch.makespankeys import PACKING_KEYS, packing_keys

__all__ = ["greedy_pack", "makespan_packings", "packing_keys", "PACKING_KEYS", "PACKINGS"]


def greedy_pack(inst: BatchInstance, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(cluster, start)`` of the list schedule without reservations in ``key`` order (module docstring)."""
    n = len(inst)
    cluster, start = np.zeros(n, dtype=np.int64), np.full(n, np.nan)
    if n == 0:
        return cluster, start
    dur = inst.duration.tolist()
    width = inst.width.tolist()
    free = inst.procs.astype(np.int64).tolist()
    order = np.argsort(inst.release, kind="stable").tolist()
    release = inst.release.tolist()
    keys = np.asarray(key, dtype=float).tolist()
    queue: SortedList = SortedList()
    running: list = []  # (finish, job, cluster)
    i, t = 0, release[order[0]]
    while True:
        while i < n and release[order[i]] <= t:
            queue.add((keys[order[i]], order[i]))
            i += 1
        _start_fitting(queue, t, dur, width, free, running, cluster, start)
        nxt = min(running[0][0] if running else math.inf, release[order[i]] if i < n else math.inf)
        if nxt == math.inf:
            break
        t = nxt
        while running and running[0][0] <= t:
            _, j, k = heapq.heappop(running)
            free[k] += width[j]
    return cluster, start


def _start_fitting(queue, t, dur, width, free, running, cluster, start) -> None:
    """Start at ``t``, in queue order, every job that fits on some cluster (on the one where it completes first)."""
    room = max(free)
    if not queue or room == 0:
        return
    started = []
    for item in queue:
        j = item[1]
        if width[j] > room:
            continue
        best, end = -1, math.inf
        for k, f in enumerate(free):
            if width[j] <= f and t + dur[j][k] < end:
                best, end = k, t + dur[j][k]
        if best < 0:
            continue
        free[best] -= width[j]
        cluster[j], start[j] = best, t
        heapq.heappush(running, (end, j, best))
        started.append(item)
        room = max(free)
        if room == 0:
            break
    for item in started:
        queue.remove(item)


PACKINGS = (("easy", "widest first"), ("easy", "largest area first"), ("greedy", "widest first"),
            ("greedy", "largest area first"), ("greedy", "longest first"))
"""The constructions and keys :func:`makespan_packings` tries: EASY backfilling
(:func:`lowerbounds.batch.clairvoyant.run_key`, the portfolio's compiled construction) and :func:`greedy_pack`."""


def makespan_packings(inst: BatchInstance, packings=PACKINGS) -> tuple[float, str, np.ndarray, np.ndarray] | None:
    """The best of ``packings`` (pairs of a construction, ``easy`` or ``greedy``, and a key name of
    :data:`PACKING_KEYS`): ``(makespan, name, cluster, start)``, the makespan measured as
    :func:`~lowerbounds.batch.instance.schedule_metrics` does (``max C - min r``); ``None`` for an empty instance.
    Each schedule is checked before it counts."""
    from lowerbounds.batch.clairvoyant import run_key

    if len(inst) == 0:
        return None
    table = packing_keys(inst)
    rows = np.arange(len(inst))
    best = None
    for kernel, name in packings:
        if kernel == "easy":
            _, cluster, start = run_key(inst, table[name], "easy")
        else:
            cluster, start = greedy_pack(inst, table[name])
        check_batch_schedule(inst, cluster, start)
        value = float((start + inst.duration[rows, cluster]).max() - inst.release.min())
        label = f"EASY backfilling, {name}" if kernel == "easy" else f"list scheduling without reservations, {name}"
        if best is None or value < best[0]:
            best = (value, label, cluster, start)
    return best
