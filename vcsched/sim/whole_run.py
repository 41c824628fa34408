"""A whole run of one FCFS or EASY cluster in one compiled loop: the fast path of :meth:`vcsched.sim.Grid.run`.

When a platform is one FCFS or EASY cluster fed with its own jobs (no meta-scheduler, no
event log, no periodic action: ``grid simulate --trace``), nothing outside the cluster
looks at the run until it ends, and :func:`simulate_one` runs the same rules as
:mod:`vcsched.sim.fcfs` and :mod:`vcsched.sim.easy` without a Python call per event.
The rules of an instant (:mod:`vcsched.sim.cluster`) are kept: the jobs ending then
leave, the jobs submitted then arrive in order, one pass starts what can start, and a
job of run time 0 ends at once, which makes another round (ends, pass) at that instant.

EASY's pass is the rule as written (``EasyCluster``'s docstring): jobs start from the
head while they fit; the head's shadow time is the requested end of the running jobs, in
order of requested end (ties included), at which enough processors are free, and
*extra* the processors left over then; each later job, in queue order, starts if it fits
in the free processors and ends (by its requested time) by the shadow time or uses no
more than extra. It examines the whole queue at every pass, where ``EasyCluster`` skips
the jobs that cannot have become startable (an exact shortcut).

numba's import and the load of this module's compiled code from its cache cost a few
tenths of a second in a fresh process, so :meth:`Grid.run` takes this path from
:data:`COMPILED_FROM` jobs on. The oracle is the plain simulator of
``tests/sim/plain_batch.py`` (``tests/sim/test_sim_whole_run.py``), and the event-driven
clusters give the same schedules.
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["COMPILED_FROM", "simulate_one", "pair_position"]

COMPILED_FROM = 100_000
"""Fewest jobs for which :meth:`vcsched.sim.Grid.run` runs one FCFS/EASY cluster here (below, numba's start-up
costs more than it saves)."""


@njit(cache=True)
def _push(ht, hs, hj, size, t, s, j):
    """Push ``(t, s, j)`` on the heap ``ht, hs, hj[:size]`` ordered by (time, sequence); returns the new size."""
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if ht[parent] < t or (ht[parent] == t and hs[parent] < s):
            break
        ht[i], hs[i], hj[i] = ht[parent], hs[parent], hj[parent]
        i = parent
    ht[i], hs[i], hj[i] = t, s, j
    return size + 1


@njit(cache=True)
def _pop(ht, hs, hj, size):
    """Remove the top of the heap; returns ``(job, new size)``."""
    top = hj[0]
    size -= 1
    t, s, j = ht[size], hs[size], hj[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and (ht[c + 1] < ht[c] or (ht[c + 1] == ht[c] and hs[c + 1] < hs[c])):
            c += 1
        if t < ht[c] or (t == ht[c] and s < hs[c]):
            break
        ht[i], hs[i], hj[i] = ht[c], hs[c], hj[c]
        i = c
    ht[i], hs[i], hj[i] = t, s, j
    return top, size


@njit(cache=True)
def pair_position(rt, rj, m, t, j):
    """Row of ``(t, j)`` in the list ``rt, rj[:m]`` sorted by (time or key, job), or where it goes (the
    running list here, sorted by requested end; the queues of :mod:`lowerbounds.batch._listsched`)."""
    lo, hi = 0, m
    while lo < hi:
        mid = (lo + hi) // 2
        if rt[mid] < t or (rt[mid] == t and rj[mid] < j):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _shadow(rt, rj, m, procs, free, head):
    """EASY's shadow time and extra processors for the blocked ``head`` (``EasyCluster._shadow_extra``)."""
    need = procs[head] - free
    acc = 0
    k = 0
    while k < m:
        rend = rt[k]
        acc += procs[rj[k]]
        k += 1
        if acc >= need:
            while k < m and rt[k] == rend:
                acc += procs[rj[k]]
                k += 1
            return rend, free + acc - procs[head]
    return np.inf, 0


@njit(cache=True)
def simulate_one(submit, run, req, procs, total, easy, start, finish, head_res):
    """Simulate one cluster of ``total`` processors, FCFS (``easy`` False) or EASY, over jobs in submission order.

    ``run``, ``req``: each job's run and requested time on the cluster; ``procs`` its
    width (at most ``total``). Fills ``start`` and ``finish``, and for EASY ``head_res``
    (NaN beforehand): the shadow time a job got when it first was the blocked head
    (``EasyCluster.head_reservations``). Returns the number of scheduling passes.
    """
    n = submit.size
    sent = n  # the queue: a doubly linked list of the waiting rows in submission order, sentinel n
    nxt = np.empty(n + 1, dtype=np.int64)
    prv = np.empty(n + 1, dtype=np.int64)
    nxt[sent] = sent
    prv[sent] = sent
    ht, hs, hj = np.empty(n), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    size, seq = 0, 0
    rt, rj = np.empty(n), np.empty(n, dtype=np.int64)  # running jobs by requested end (EASY)
    m = 0
    free, a, passes = total, 0, 0
    while a < n or size > 0:
        t = submit[a] if a < n else np.inf
        if size > 0 and ht[0] < t:
            t = ht[0]
        first = True
        while True:
            while size > 0 and ht[0] == t:
                j, size = _pop(ht, hs, hj, size)
                finish[j] = t
                free += procs[j]
                if easy:
                    k = pair_position(rt, rj, m, start[j] + req[j], j)
                    rt[k:m - 1] = rt[k + 1:m]
                    rj[k:m - 1] = rj[k + 1:m]
                    m -= 1
            while first and a < n and submit[a] == t:
                last = prv[sent]
                nxt[last], prv[a], nxt[a], prv[sent] = a, last, sent, a
                a += 1
            first = False
            passes += 1
            h = nxt[sent]
            while h != sent and procs[h] <= free:  # from the head while the jobs fit (FCFS's whole pass)
                nxt[sent], prv[nxt[h]] = nxt[h], sent
                start[h] = t
                free -= procs[h]
                seq += 1
                size = _push(ht, hs, hj, size, t + run[h], seq, h)
                if easy:
                    k = pair_position(rt, rj, m, t + req[h], h)
                    rt[k + 1:m + 1] = rt[k:m].copy()
                    rj[k + 1:m + 1] = rj[k:m].copy()
                    rt[k], rj[k] = t + req[h], h
                    m += 1
                h = nxt[sent]
            if easy and h != sent:
                seq, size, m, free = _backfill(t, h, sent, nxt, prv, procs, run, req, start, head_res, ht, hs, hj,
                                               size, seq, rt, rj, m, free)
            if not (size > 0 and ht[0] == t):
                break
    return passes


@njit(cache=True)
def _backfill(t, h, sent, nxt, prv, procs, run, req, start, head_res, ht, hs, hj, size, seq, rt, rj, m, free):
    """EASY's pass after the head ``h`` is blocked: its shadow time, then the later jobs that may start now."""
    shadow, extra = _shadow(rt, rj, m, procs, free, h)
    if np.isnan(head_res[h]):
        head_res[h] = shadow
    limit = shadow - t
    j = nxt[h]
    while j != sent and free > 0:
        after = nxt[j]
        p = procs[j]
        if p <= free:
            late = req[j] > limit
            if not late or p <= extra:
                nxt[prv[j]], prv[after] = after, prv[j]
                start[j] = t
                free -= p
                if late:
                    extra -= p
                seq += 1
                size = _push(ht, hs, hj, size, t + run[j], seq, j)
                k = pair_position(rt, rj, m, t + req[j], j)
                rt[k + 1:m + 1] = rt[k:m].copy()
                rj[k + 1:m + 1] = rj[k:m].copy()
                rt[k], rj[k] = t + req[j], j
                m += 1
        j = after
    return seq, size, m, free
