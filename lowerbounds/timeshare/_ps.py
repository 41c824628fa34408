"""Compiled processor sharing of one server for the mapping search (:mod:`lowerbounds.timeshare.search`).

:func:`server_dates` computes the same dates as :func:`lowerbounds.timeshare.mapping._server_dates`
(the simulator's closed form, :func:`vcsched.sim.processor_sharing.ps_completion_times`, plus the
transfers) by an event loop in virtual time: between events ``V`` advances at rate ``1 / n`` (``n``
tasks computing), a task joining at ``V_j`` with work ``w`` ends when ``V`` reaches ``V_j + w``. The
operations differ, so the dates agree to rounding only (tested against the plain routine); the search
re-evaluates its final mapping with the plain routine, so the value it reports is the simulator's.
Memory is not modelled here: the search uses it only where no task needs memory.
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit

__all__ = ["server_dates", "next_finish", "share_list", "share_until"]


@njit(cache=True)
def next_finish(tag, active, n, t, v):
    """The next of the ``n`` active tasks to finish under processor sharing at time ``t`` and virtual time ``v``:
    its row in ``active`` (smallest virtual finish tag, the first on ties), the task, and its finish date."""
    best = 0
    for a in range(1, n):
        if tag[active[a]] < tag[active[best]]:
            best = a
    i = active[best]
    return best, i, t + (tag[i] - v) * n


@njit(cache=True, inline="always")
def share_until(tag, active, n, t, v, tj, ends):
    """Processor sharing from date ``t`` (virtual time ``v``, ``n`` tasks in ``active``) up to date ``tj``: each
    task that finishes by ``tj`` leaves ``active`` with its finish date in ``ends``; returns ``(n, t, v)`` at ``tj``
    (at the last finish when ``tj`` is infinite), the state in which a task joining at ``tj`` gets its tag."""
    while n > 0:
        best, i, end = next_finish(tag, active, n, t, v)
        if end > tj:
            return n, tj, v + (tj - t) / n
        t = end
        v = tag[i]
        ends[i] = end
        n -= 1
        active[best] = active[n]
    return 0, (tj if tj < np.inf else t), v


@njit(cache=True)
def share_list(lst, lo, hi, st, p, ends, tag, active):  # pragma: no cover - compiled
    """Processor sharing of the tasks ``lst[lo:hi]`` (sorted by start ``st``, the server idle at the first one's
    start; work ``p``): their computation's finish dates into ``ends`` (``tag`` and ``active`` are scratch)."""
    n = 0
    t = st[lst[lo]]
    v = 0.0
    nxt = lo
    while nxt < hi or n > 0:
        tj = st[lst[nxt]] if nxt < hi else np.inf
        n, t, v = share_until(tag, active, n, t, v, tj, ends)
        if nxt >= hi:
            break
        i = lst[nxt]
        tag[i] = v + p[i]
        active[n] = i
        n += 1
        nxt += 1


@njit(cache=True)
def server_dates(tasks, arrival, inp, p, out):  # pragma: no cover - compiled
    """End dates (output transfer included) of ``tasks`` sharing one server whose columns are ``inp``, ``p``,
    ``out`` (per task of the workload): computation from ``arrival + inp`` for ``p`` seconds alone."""
    k = tasks.size
    res = np.empty(k)
    if k == 0:
        return res
    start = np.empty(k)
    for i in range(k):
        start[i] = arrival[tasks[i]] + inp[tasks[i]]
    order = np.argsort(start, kind="mergesort")
    work = np.empty(k)
    for i in range(k):
        work[i] = p[tasks[i]]
    share_list(order, 0, k, start, work, res, np.empty(k), np.empty(k, dtype=np.int64))
    for i in range(k):
        res[i] += out[tasks[i]]
    return res
