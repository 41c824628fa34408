"""Compiled single-machine fluid schedules behind the quick batch bounds (:mod:`lowerbounds.batch.quick`).

One compiled loop runs a preemptive schedule of "work" (speed-normalised processor-seconds) on
one machine that processes ``rate`` units per second, jobs arriving at their release dates; it
serves two bounds:

* :func:`wspt_mean_busy_times`: priority to the largest ``weight / work`` (preemptive
  WSPT); returns each job's mean busy time (Goemans 1997).
* :func:`edf_feasible`: priority to the earliest deadline (preemptive EDF), which meets
  every deadline whenever any preemptive schedule does (Horn 1974).

The heaps are arrays (key, job) so numba compiles them (``cache=True``: compiled once per
installation).
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["wspt_mean_busy_times", "edf_feasible"]


@njit(cache=True)
def _push(keys, ids, size, key, j):
    i = size
    keys[i] = key
    ids[i] = j
    while i > 0:
        parent = (i - 1) // 2
        if keys[parent] < keys[i] or (keys[parent] == keys[i] and ids[parent] < ids[i]):
            break
        keys[i], keys[parent] = keys[parent], keys[i]
        ids[i], ids[parent] = ids[parent], ids[i]
        i = parent
    return size + 1


@njit(cache=True)
def _pop(keys, ids, size):
    size -= 1
    keys[0] = keys[size]
    ids[0] = ids[size]
    i = 0
    while True:
        a = 2 * i + 1
        b = a + 1
        m = i
        if a < size and (keys[a] < keys[m] or (keys[a] == keys[m] and ids[a] < ids[m])):
            m = a
        if b < size and (keys[b] < keys[m] or (keys[b] == keys[m] and ids[b] < ids[m])):
            m = b
        if m == i:
            break
        keys[i], keys[m] = keys[m], keys[i]
        ids[i], ids[m] = ids[m], ids[i]
        i = m
    return size


@njit(cache=True)
def _fluid(release, work, key, rate, busy, slack):
    """The preemptive schedule by smallest ``key`` (ties: lowest index), ``release`` sorted: both loops.

    With ``busy``: ``(mean busy time of each job, True)``. Without: ``(empty, feasible)``, where
    ``key`` holds deadlines and ``feasible`` is False as soon as a job runs past its deadline plus
    ``slack`` (finishing or not). Jobs of zero work never enter the heap.
    """
    n = release.size
    out = np.empty(n if busy else 0)
    acc = np.zeros(n if busy else 0)
    rem = work.copy()
    keys = np.empty(n)
    ids = np.empty(n, dtype=np.int64)
    size = 0
    t = 0.0
    i = 0
    while i < n or size > 0:
        if size == 0 and release[i] > t:
            t = release[i]
        while i < n and release[i] <= t:
            if work[i] > 0.0:
                size = _push(keys, ids, size, key[i], i)
            elif busy:
                out[i] = release[i]
            i += 1
        if size == 0:
            continue
        j = ids[0]
        nxt = release[i] if i < n else np.inf
        end = t + rem[j] / rate
        finished = end <= nxt
        if finished:
            done, stop = rem[j], end
            rem[j] = 0.0
            size = _pop(keys, ids, size)
        else:
            done, stop = (nxt - t) * rate, nxt
            rem[j] -= done
        if busy:
            acc[j] += 0.5 * (t + stop) * done
            if finished:
                out[j] = acc[j] / work[j]
        elif stop > key[j] + slack:
            return out, False
        t = stop
    return out, True


@njit(cache=True)
def wspt_mean_busy_times(release, work, key, rate):
    """Mean busy time of each job in the preemptive schedule by smallest ``key`` (ties: lowest index).

    ``release`` must be sorted. A job of zero work has mean busy time its release date.
    """
    return _fluid(release, work, key, rate, True, 0.0)[0]


@njit(cache=True)
def edf_feasible(release, work, deadline, rate, slack):
    """True when preemptive EDF meets every deadline (within ``slack`` seconds); ``release`` sorted."""
    return _fluid(release, work, deadline, rate, False, slack)[1]
