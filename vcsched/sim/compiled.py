"""Compiled loops over availability profiles and queues (numba, cached on disk after the first use).

This is the one implementation of each profile rule: :func:`add` (take or give back
processors on an interval), :func:`trim` (forget the past, merge equal steps),
:func:`earliest` / :func:`earliest_many` (the earliest slot) and :func:`reserve` (trim,
earliest slot, take it; :func:`reserve_many` for a queue of jobs in turn). :class:`vcsched.sim.profile.Profile` wraps them (the FCFS/EASY
estimate plan, ECT queries), and :class:`vcsched.sim.cbf.CBFCluster` runs on them with
the loops over its waiting jobs, :class:`vcsched.sim.cbf.CBFQueue`: :func:`replan`,
:func:`fit_before`, :func:`pop_due`, :func:`remove`, and Simbatch's re-plan from scratch
:func:`replan_full` (an option of the cluster). The CBF re-plan is the literal rule
of :class:`~vcsched.sim.cbf.CBFCluster`: every waiting job, in submission order, is released and re-inserted at its
earliest slot from now; compiled, examining every waiting job costs less than deciding
in Python which ones need examining.

The profile is ``T[:n]`` (breakpoints, increasing) and ``F[:n]`` (free processors on
``[T[k], T[k+1])``; the last step lasts forever). The queue is ``m`` waiting jobs in
submission order, the five arrays of :class:`~vcsched.sim.cbf.CBFQueue` passed
separately: ``QJ`` job row, ``QP`` width, ``QD`` planned duration, ``QS`` reservation,
``QO`` order stamp (the count of reservations given when this one was given; jobs due
at one instant start by reservation, then stamp). Arrays have spare room; the caller
makes sure there is enough before each call (a profile change inserts at most two
breakpoints).

The plain numpy implementation of the profile rules is the test oracle
(``tests/sim/plain_profile.py``); the functions here do the same floating-point
operations in the same order, so results agree bit for bit (tested, and the CBF engine
against a literal implementation built on that oracle). With ``NUMBA_DISABLE_JIT=1``
the same functions run as plain Python (slowly), for debugging.
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

_INF = np.inf


@njit(cache=True)
def _bisect_left(T, n, t, lo):
    """First row ``k >= lo`` of ``T[:n]`` with ``T[k] >= t`` (``n`` when there is none)."""
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if T[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def row_of(T, n, t):
    """Last row ``k`` of ``T[:n]`` with ``T[k] <= t`` (-1 when ``t < T[0]``)."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if t < T[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo - 1


@njit(cache=True)
def _insert(T, F, n, i, t, f):
    """Insert the breakpoint ``t`` with ``f`` free at row ``i``; returns the new row count."""
    for k in range(n, i, -1):
        T[k] = T[k - 1]
        F[k] = F[k - 1]
    T[i] = t
    F[i] = f
    return n + 1


@njit(cache=True)
def add(T, F, n, a, b, delta, total):
    """Add ``delta`` free processors on ``[a, b)``; returns the new row count.

    A breakpoint inserted before the first row (a profile trimmed past ``a``) gets
    ``total`` free: nothing is reserved there.
    """
    if not b > a:
        return n
    i = _bisect_left(T, n, a, 0)
    if i == n or T[i] != a:
        n = _insert(T, F, n, i, a, F[i - 1] if i > 0 else total)
    j = _bisect_left(T, n, b, i)
    if j == n or T[j] != b:
        n = _insert(T, F, n, j, b, F[j - 1])
    for k in range(i, j):
        F[k] += delta
    return n


@njit(cache=True)
def trim(T, F, n, now, merge):
    """Forget the steps before ``now``; with ``merge``, also the
    breakpoints between two steps with the same free count. Returns the new row count."""
    k = row_of(T, n, now)
    if k > 0:
        for r in range(k, n):
            T[r - k] = T[r]
            F[r - k] = F[r]
        n -= k
    if T[0] < now:
        T[0] = now
    if merge:
        w = 1
        for r in range(1, n):
            if F[r] != F[r - 1]:
                T[w] = T[r]
                F[w] = F[r]
                w += 1
        n = w
    return n


@njit(cache=True)
def _scan(T, F, n, k0, p, d, lower):
    """From row ``k0`` on, the start (clipped to ``lower``) of the first run of rows with at
    least ``p`` free lasting ``d``; ``inf`` when there is none."""
    start = 0.0
    in_run = False
    for k in range(k0, n):
        if F[k] >= p:
            if not in_run:
                t = T[k]
                start = t if t > lower else lower
                in_run = True
            if k + 1 == n or T[k + 1] >= start + d:
                return start
        else:
            in_run = False
    return _INF


@njit(cache=True)
def earliest(T, F, n, p, d, lower):
    """Earliest start no earlier than ``lower`` of a job of width ``p`` and duration ``d``:
    the start (clipped to ``lower``) of the first run of rows with at least ``p`` free
    lasting ``d``; ``inf`` when ``p`` exceeds the last step.

    The scan starts at the row holding ``lower`` (a run of rows before it that reaches
    ``lower`` continues in that row, so starting at row 0 gives the same result).
    """
    return _scan(T, F, n, max(row_of(T, n, lower), 0), p, d, lower)


@njit(cache=True)
def earliest_many(T, F, n, procs, durations, lower, out):
    """:func:`earliest` for each job ``i`` (width ``procs[i]``, duration ``durations[i]``), into ``out[i]``."""
    k0 = max(row_of(T, n, lower), 0)
    for i in range(procs.size):
        out[i] = _scan(T, F, n, k0, procs[i], durations[i], lower)


@njit(cache=True)
def reserve(T, F, n, p, d, now, lower, total):
    """Trim to ``now``, then give a job its earliest slot from ``lower >= now`` and take its processors there.

    Returns ``(n, s)``: the new row count and the reservation.
    """
    n = trim(T, F, n, now, False)
    s = earliest(T, F, n, p, d, lower)
    n = add(T, F, n, s, s + d, -p, total)
    return n, s


@njit(cache=True)
def reserve_many(T, F, n, procs, durations, now, lower, total, advances, out):
    """:func:`reserve` for each job ``i`` in turn (width ``procs[i]``, duration ``durations[i]``), its reservation
    into ``out[i]``; with ``advances`` (FCFS) each one from the previous one's start. Returns ``(n, lower)``."""
    for i in range(procs.size):
        n, s = reserve(T, F, n, procs[i], durations[i], now, lower, total)
        out[i] = s
        if advances:
            lower = s
    return n, lower


@njit(cache=True)
def fit_before(T, F, n, p, d, s, now):
    """Earliest start before ``s`` of a job (width ``p``, duration ``d``) now reserved at ``s``, else ``inf``.

    The literal rule releases the job's slot and asks for its earliest start from now.
    Released, the job always fits on ``[s, s + d)``, so only the rows before ``s``
    matter, and a run of rows with ``p`` free that reaches ``s`` is enough (a row
    straddling ``s`` has the same free count on both sides, else ``s`` would be a
    breakpoint): the result equals the literal one without changing the profile twice.
    """
    ks = _bisect_left(T, n, s, 0)
    start = 0.0
    in_run = False
    for k in range(ks):
        if F[k] >= p:
            if not in_run:
                t = T[k]
                start = t if t > now else now
                in_run = True
            end = T[k + 1] if k + 1 < n else _INF
            if end >= start + d or end >= s:
                return start
        else:
            in_run = False
    return _INF


@njit(cache=True)
def _replan(T, F, n, QP, QD, QS, QO, m, now, total, order, full):
    """:func:`replan` (``full`` False) and :func:`replan_full` (True): one loop, the rule of each in the branch."""
    n = trim(T, F, n, now, True)
    if full:
        for i in range(m):
            if QS[i] > now:
                n = add(T, F, n, QS[i], QS[i] + QD[i], QP[i], total)
    moved = 0
    nxt = _INF
    for i in range(m):
        s = QS[i]
        if s > now:
            p = QP[i]
            d = QD[i]
            if full:
                n, x = reserve(T, F, n, p, d, now, now, total)
                changed = x != s
            else:
                x = fit_before(T, F, n, p, d, s, now)
                changed = x < s
                if changed:
                    n = add(T, F, n, x, x + d, -p, total)
                    n = add(T, F, n, s, s + d, p, total)
            if changed:
                order += 1
                QS[i] = x
                QO[i] = order
                moved += 1
                s = x
        if s < nxt:
            nxt = s
    return n, order, moved, nxt


@njit(cache=True)
def replan(T, F, n, QP, QD, QS, QO, m, now, total, order):
    """Re-plan every waiting job once, in submission order, at its earliest slot from now (the CBF rule).

    A job reserved at or before ``now`` starts at this instant and is left alone. A job
    that can start earlier moves: its new slot ``[x, x + d)`` is taken and its old slot
    ``[s, s + d)`` released (the profile then equals the literal release-and-reinsert),
    and it gets a new order stamp. The profile is trimmed and merged first.

    Returns ``(n, order, moved, next)``: the new row count, the last order stamp, the
    number of moves and the earliest reservation in the queue (``inf`` when empty).
    """
    return _replan(T, F, n, QP, QD, QS, QO, m, now, total, order, False)


@njit(cache=True)
def replan_full(T, F, n, QP, QD, QS, QO, m, now, total, order):
    """Simbatch's re-plan from scratch: every waiting reservation is dropped, then each waiting job
    is reserved again, in submission order, at its earliest slot from now, which may be later
    than its previous one (:attr:`vcsched.sim.cbf.CBFCluster.replan_rule` ``"full"``).

    Same arguments and result as :func:`replan`: a job reserved at or before ``now`` starts
    at this instant and is left alone; a job whose reservation changes (earlier or later)
    gets a new order stamp and counts as a move.
    """
    return _replan(T, F, n, QP, QD, QS, QO, m, now, total, order, True)


@njit(cache=True)
def pop_due(QJ, QP, QD, QS, QO, m, now, outJ, outS, outD, outO):
    """Take the jobs reserved at or before ``now`` out of the queue (which keeps its order).

    They are written to ``outJ``, ``outS`` (reservation), ``outD`` (planned duration) and
    ``outO`` (stamp). Returns ``(m, count, next)``: the new queue length, the number
    taken and the earliest reservation left (``inf`` when none).
    """
    w = 0
    c = 0
    nxt = _INF
    for i in range(m):
        s = QS[i]
        if s <= now:
            outJ[c] = QJ[i]
            outS[c] = s
            outD[c] = QD[i]
            outO[c] = QO[i]
            c += 1
        else:
            if w != i:
                QJ[w] = QJ[i]
                QP[w] = QP[i]
                QD[w] = QD[i]
                QS[w] = s
                QO[w] = QO[i]
            if s < nxt:
                nxt = s
            w += 1
    return w, c, nxt


@njit(cache=True)
def remove(QJ, QP, QD, QS, QO, m, i):
    """Remove queue entry ``i`` (the queue keeps its order); returns the new length."""
    for k in range(i + 1, m):
        QJ[k - 1] = QJ[k]
        QP[k - 1] = QP[k]
        QD[k - 1] = QD[k]
        QS[k - 1] = QS[k]
        QO[k - 1] = QO[k]
    return m - 1


@njit(cache=True)
def allocate_sweep(who, kind, procs, total, lo, hi, first, count):
    """Give processor numbers to a schedule: the sweep of :func:`vcsched.sim.output.allocate_processors`.

    ``who``/``kind`` are the events in time order (kind 0: a job's end, before kind 1:
    starts of the same instant). A starting job takes the ``procs[j]`` lowest free
    numbers, written as intervals ``lo[r]..hi[r]`` for ``r`` in ``first[j]`` to
    ``first[j] + count[j] - 1``; an ending job frees its numbers. A job whose end event
    comes before its start (zero length) gets numbers without holding them.

    Returns ``(status, at)``: ``(0, intervals written)``; ``(-1, event)`` when a start
    finds fewer free processors than it needs; ``(-2, event)`` when ``lo``/``hi`` are full.
    """
    n = procs.size
    free = np.ones(total, dtype=np.bool_)
    held = np.zeros(n, dtype=np.bool_)
    ended = np.zeros(n, dtype=np.bool_)  # zero-length job whose end came first
    used = 0
    for e in range(who.size):
        j = who[e]
        if kind[e] == 0:
            if held[j]:
                for r in range(first[j], first[j] + count[j]):
                    for x in range(lo[r], hi[r] + 1):
                        free[x] = True
                held[j] = False
            else:
                ended[j] = True
            continue
        p = procs[j]
        begin = used
        taken = 0
        x = 0
        while taken < p and x < total:
            if free[x]:
                if used > begin and hi[used - 1] == x - 1:
                    hi[used - 1] = x
                else:
                    if used == lo.size:
                        return -2, e
                    lo[used] = x
                    hi[used] = x
                    used += 1
                taken += 1
            x += 1
        first[j] = begin
        count[j] = used - begin
        if ended[j]:
            ended[j] = False
            continue
        if taken < p:
            return -1, e
        for r in range(begin, used):
            for y in range(lo[r], hi[r] + 1):
                free[y] = False
        held[j] = True
    return 0, used
