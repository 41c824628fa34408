"""Compiled single-machine fluid schedules behind the quick batch bounds (:mod:`lowerbounds.batch_quick`).

Both loops run a preemptive schedule of "work" (speed-normalised processor-seconds) on one
machine that processes ``rate`` units per second, jobs arriving at their release dates:

* :func:`wspt_mean_busy_times`: priority to the largest ``weight / work`` (preemptive
  WSPT); returns each job's mean busy time (Goemans 1997).
* :func:`edf_feasible`: priority to the earliest deadline (preemptive EDF), which meets
  every deadline whenever any preemptive schedule does (Horn 1974).

The heaps are arrays (key, job) so numba compiles them (``cache=True``: compiled once per
installation).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["wspt_mean_busy_times", "edf_feasible"]


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _run_piece(release, work, key, rate, rem, keys, ids, size, t, i):
    """One piece of the fluid schedule, shared by both loops.

    Admits the jobs released by ``t`` (first moving an idle machine to the next release;
    jobs of zero work never enter the heap), then runs the job of smallest ``key`` until it
    finishes or the next release, whichever is first, and charges its work to ``rem``.
    Returns ``(size, t, i, j, start, done, finished)``: the heap size, the new time and the
    next job to admit, then the job that ran (``-1`` if none), when it started, how much
    work it did and whether it finished.
    """
    n = release.size
    if size == 0 and release[i] > t:
        t = release[i]
    while i < n and release[i] <= t:
        if work[i] > 0.0:
            size = _push(keys, ids, size, key[i], i)
        i += 1
    if size == 0:
        return size, t, i, -1, t, 0.0, False
    j = ids[0]
    nxt = release[i] if i < n else np.inf
    end = t + rem[j] / rate
    if end <= nxt:
        done = rem[j]
        rem[j] = 0.0
        return _pop(keys, ids, size), end, i, j, t, done, True
    done = (nxt - t) * rate
    rem[j] -= done
    return size, nxt, i, j, t, done, False


@numba.njit(cache=True)
def wspt_mean_busy_times(release, work, key, rate):
    """Mean busy time of each job in the preemptive schedule by smallest ``key`` (ties: lowest index).

    ``release`` must be sorted. A job of zero work has mean busy time its release date.
    """
    n = release.size
    out = release.astype(np.float64)
    acc = np.zeros(n)
    rem = work.copy()
    keys, ids = np.empty(n), np.empty(n, dtype=np.int64)
    size, t, i = 0, 0.0, 0
    while i < n or size > 0:
        size, t, i, j, start, done, finished = _run_piece(release, work, key, rate, rem, keys, ids, size, t, i)
        if j < 0:
            continue
        acc[j] += 0.5 * (start + t) * done
        if finished:
            out[j] = acc[j] / work[j]
    return out


@numba.njit(cache=True)
def edf_feasible(release, work, deadline, rate, slack):
    """True when preemptive EDF meets every deadline (within ``slack`` seconds); ``release`` sorted.

    A job that runs past its deadline plus ``slack`` (finishing or not) misses it.
    """
    n = release.size
    rem = work.copy()
    keys, ids = np.empty(n), np.empty(n, dtype=np.int64)
    size, t, i = 0, 0.0, 0
    while i < n or size > 0:
        size, t, i, j, _, _, _ = _run_piece(release, work, deadline, rate, rem, keys, ids, size, t, i)
        if j >= 0 and t > deadline[j] + slack:
            return False
    return True
