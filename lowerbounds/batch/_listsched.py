"""Compiled list scheduling with exact durations and EASY backfilling, the construction of :mod:`lowerbounds.batch.clairvoyant`.

:func:`list_schedule` builds a schedule of the clairvoyant relaxation (:mod:`lowerbounds.batch.instance`)
from a static priority ``key`` per job (smaller first; ties by lower index). It is an event loop:

* at each event time ``t`` (a submission or a completion), the submitted waiting jobs form a queue in
  key order;
* the head of the queue starts at ``t`` on the cluster where it would complete first, when that
  cluster has its processors free at ``t``; this repeats while the head can start;
* otherwise the head gets a reservation on the cluster where it would complete first (its *shadow
  time*: the completion, known exactly, at which enough processors are free), and every other job
  of the queue, in key order, starts at ``t`` on a cluster with enough free processors when it does
  not delay that reservation: on another cluster, or finishing by the shadow time, or using only
  the processors left over at the shadow time (EASY backfilling, Lifka 1995, with exact run times);
* a job of zero duration starts at its submission (it occupies no processor for any time).

Every job starts at or after its submission, on a cluster where it fits, when its processors are free,
and runs for its duration without interruption: the schedule is feasible by construction (and is
checked by :func:`lowerbounds.batch.instance.check_batch_schedule` before its value is used).
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._kernels import _pop, _push
from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run
from vcsched.sim.whole_run import pair_position

__all__ = ["list_schedule", "serial_schedule", "list_schedule_counted", "serial_schedule_counted", "shadow_cache"]


@njit(cache=True)
def _queue_insert(qkey, qjob, qlen, key, j, work):
    """Insert ``j`` into the queue sorted by (key, job); returns the new length (``work[0]`` counts the shifts)."""
    lo = pair_position(qkey, qjob, qlen, key, j)
    for i in range(qlen, lo, -1):
        qkey[i] = qkey[i - 1]
        qjob[i] = qjob[i - 1]
    work[0] += qlen - lo + 1
    qkey[lo] = key
    qjob[lo] = j
    return qlen + 1


@njit(cache=True)
def _queue_remove(qkey, qjob, qlen, i, work):
    work[0] += qlen - i
    for a in range(i, qlen - 1):
        qkey[a] = qkey[a + 1]
        qjob[a] = qjob[a + 1]
    return qlen - 1


@njit(cache=True)
def cluster_state(procs, n):
    """The clusters' state of a list schedule of ``n`` jobs, empty: free processors, each cluster's run list
    (finishes, widths, jobs; at most ``max(procs) + 1`` entries), its length, and each job's row in it."""
    K, cap = procs.size, procs.max() + 1
    return (procs.copy(), np.zeros((K, cap)), np.zeros((K, cap), dtype=np.int64), np.zeros((K, cap), dtype=np.int64),
            np.zeros(K, dtype=np.int64), np.zeros(n, dtype=np.int64))


@njit(cache=True)
def complete_first(hkey, hjob, hsize, cluster, width, free, run_fin, run_wid, run_job, run_cnt, slot):
    """The running job of earliest finish (top of the heap ``hkey, hjob[:hsize]``) completes: its processors are
    freed and it leaves its cluster's run list (the list's last entry takes its row); returns the heap's size."""
    j = hjob[0]
    hsize = _pop(hkey, hjob, hsize)
    k = cluster[j]
    free[k] += width[j]
    i = slot[j]
    last = run_cnt[k] - 1
    run_fin[k, i], run_wid[k, i], run_job[k, i] = run_fin[k, last], run_wid[k, last], run_job[k, last]
    slot[run_job[k, i]] = i
    run_cnt[k] = last
    return hsize


@njit(cache=True)
def _shadow(t, need, free_k, run_fin, run_wid, count, work):
    """Earliest time at which ``need`` processors are free on a cluster (its running jobs' finishes and
    widths), and the processors left over then; ``(t, free - need)`` when they are free now."""
    if free_k >= need:
        return t, free_k - need
    hk, hj = np.empty(count), np.empty(count, dtype=np.int64)
    size = 0
    for i in range(count):  # a heap, not np.argsort: a cached kernel with numba's sort crashed once loaded beside
        size = _push(hk, hj, size, run_fin[i], i)  # another cached module's sort (lowerbounds.batch._energetic)
    work[0] += count
    avail = free_k
    while size > 0:
        f = hk[0]
        while size > 0 and hk[0] == f:  # every job ending at f frees its processors at f
            avail += run_wid[hj[0]]
            size = _pop(hk, hj, size)
        if avail >= need:
            return f, avail - need
    return np.inf, 0


@njit(cache=True)
def shadow_cache(K):
    """An empty cache of shadow times: per cluster the job it was computed for (-1: none), the time, the leftover."""
    return np.full(K, -1, dtype=np.int64), np.zeros(K), np.zeros(K, dtype=np.int64)


@njit(cache=True)
def _head_choice(t, j, width, duration, free, run_fin, run_wid, run_cnt, sh_job, sh_time, sh_extra, work):
    """Cluster where job ``j`` completes first (ties: earlier start, lower index), its start and leftover.

    A cluster's shadow time for ``j`` is kept in the cache (``sh_job[k] == j``) until a job starts on that cluster
    other than as a backfill that respects ``j``'s reservation there (:func:`_pass` clears the entry). The cached
    value stays exact: durations are exact, so the running jobs complete at the finishes the shadow was computed
    from (a completion frees processors already counted at its finish), and a backfill that respects the reservation
    ends by the shadow time or uses the leftover processors, which :func:`_pass` lowers in the cache."""
    best_k, best_c, best_s, best_x = -1, np.inf, np.inf, 0
    for k in range(free.size):
        p = duration[j, k]
        if not np.isfinite(p):
            continue
        if free[k] < width[j] and sh_job[k] == j:
            s, extra = sh_time[k], sh_extra[k]
        else:
            s, extra = _shadow(t, width[j], free[k], run_fin[k], run_wid[k], run_cnt[k], work)
            if s > t:
                sh_job[k], sh_time[k], sh_extra[k] = j, s, extra
        c = s + p
        if c < best_c or (c == best_c and s < best_s):
            best_k, best_c, best_s, best_x = k, c, s, extra
    return best_k, best_s, best_x


@njit(cache=True)
def list_schedule(release, width, duration, procs, key):
    """Schedule every job by list scheduling with EASY backfilling in ``key`` order (see the module docstring).

    Parameters: ``release`` (n,) sorted non-decreasing; ``width`` (n,) int; ``duration`` (n, K) with
    ``inf`` where a job does not fit; ``procs`` (K,) int; ``key`` (n,) float. Returns ``(cluster, start)``.
    """
    return list_schedule_counted(release, width, duration, procs, key, np.zeros(1, dtype=np.int64))


@njit(cache=True)
def list_schedule_counted(release, width, duration, procs, key, work):
    """:func:`list_schedule`, adding to ``work[0]`` the elementary steps it took (events, queue entries shifted
    or scanned, running jobs sorted): a machine-independent measure of its cost, the unit of the search's
    budget (:mod:`lowerbounds.batch.clairvoyant`)."""
    n, K = duration.shape
    cluster = np.full(n, -1, dtype=np.int64)
    start = np.full(n, np.nan)
    free, run_fin, run_wid, run_job, run_cnt, slot = cluster_state(procs, n)
    sh_job, sh_time, sh_extra = shadow_cache(K)
    hkey = np.empty(n)
    hjob = np.empty(n, dtype=np.int64)
    hsize = 0
    qkey = np.empty(n)
    qjob = np.empty(n, dtype=np.int64)
    qlen = 0
    nxt = 0
    done = 0
    while done < n:
        work[0] += 1
        t = release[nxt] if nxt < n else np.inf
        if hsize > 0 and hkey[0] < t:
            t = hkey[0]
        while hsize > 0 and hkey[0] <= t:  # completions at t
            hsize = complete_first(hkey, hjob, hsize, cluster, width, free, run_fin, run_wid, run_job, run_cnt, slot)
            done += 1
        while nxt < n and release[nxt] <= t:  # submissions at t
            j = nxt
            nxt += 1
            k0 = np.argmin(duration[j])
            if duration[j, k0] == 0.0:
                cluster[j], start[j] = k0, t
                done += 1
            else:
                qlen = _queue_insert(qkey, qjob, qlen, key[j], j, work)
        qlen, hsize = _pass(t, width, duration, free, run_fin, run_wid, run_job, run_cnt, slot, cluster, start,
                            qkey, qjob, qlen, hkey, hjob, hsize, sh_job, sh_time, sh_extra, work)
    return cluster, start


@njit(cache=True)
def _start(t, j, k, width, duration, free, run_fin, run_wid, run_job, run_cnt, slot, cluster, start, hkey, hjob,
           hsize):
    cluster[j], start[j] = k, t
    free[k] -= width[j]
    i = run_cnt[k]
    run_fin[k, i], run_wid[k, i], run_job[k, i] = t + duration[j, k], width[j], j
    slot[j] = i
    run_cnt[k] = i + 1
    return _push(hkey, hjob, hsize, t + duration[j, k], j)


@njit(cache=True)
def _pass(t, width, duration, free, run_fin, run_wid, run_job, run_cnt, slot, cluster, start, qkey, qjob, qlen,
          hkey, hjob, hsize, sh_job, sh_time, sh_extra, work):
    """One scheduling pass at time ``t``: start heads while they fit, then backfill around the reservation (the
    shadow times cached in ``sh_job, sh_time, sh_extra``, :func:`_head_choice`)."""
    res_k, shadow, extra = -1, np.inf, 0
    head = -1
    while qlen > 0:
        j = qjob[0]
        k, s, x = _head_choice(t, j, width, duration, free, run_fin, run_wid, run_cnt, sh_job, sh_time, sh_extra,
                               work)
        if s > t:
            res_k, shadow, extra, head = k, s, x, j
            break
        sh_job[k] = -1
        hsize = _start(t, j, k, width, duration, free, run_fin, run_wid, run_job, run_cnt, slot, cluster, start,
                       hkey, hjob, hsize)
        qlen = _queue_remove(qkey, qjob, qlen, 0, work)
    i = 1
    while i < qlen:
        work[0] += 1
        most = free.max()
        if most == 0:
            break
        j = qjob[i]
        best_k, best_c = -1, np.inf
        if width[j] <= most:
            for k in range(free.size):
                p = duration[j, k]
                if free[k] < width[j] or not np.isfinite(p):
                    continue
                if k == res_k and t + p > shadow and width[j] > extra:
                    continue
                if t + p < best_c:
                    best_k, best_c = k, t + p
        if best_k < 0:
            i += 1
            continue
        if best_k == res_k and sh_job[best_k] == head:  # the reservation is respected: the cache stays exact
            if best_c > shadow:
                extra -= width[j]
                sh_extra[best_k] = extra
        else:
            if best_k == res_k and best_c > shadow:
                extra -= width[j]
            sh_job[best_k] = -1
        hsize = _start(t, j, best_k, width, duration, free, run_fin, run_wid, run_job, run_cnt, slot, cluster, start,
                       hkey, hjob, hsize)
        qlen = _queue_remove(qkey, qjob, qlen, i, work)
    return qlen, hsize


@njit(cache=True)
def _earliest_fit(bt, bf, nxt, node, r, q, p, work):
    """Earliest ``s >= r`` with ``q`` processors free during ``[s, s + p)`` on a profile (linked breakpoints
    ``bt`` (time), ``bf`` (free processors until the next breakpoint), ``nxt``); ``node`` is a breakpoint
    at or before ``r``. Returns ``(s, the breakpoint at or before s)``."""
    cur, cand = node, r
    while True:
        work[0] += 1
        if bf[cur] < q:
            cur = nxt[cur]
            cand = bt[cur]
            continue
        x = _blocked_at(bt, bf, nxt, cur, cand + p, q, work)
        if x < 0:
            return cand, cur
        cur = nxt[x]
        cand = bt[cur]


@njit(cache=True, inline="always")
def _blocked_at(bt, bf, nxt, cur, end, q, work):
    """The first breakpoint after ``cur`` and before ``end`` with fewer than ``q`` free processors (-1: none; no run
    that overlaps it fits, so the next start to try is its successor's)."""
    x = cur
    while nxt[x] != -1 and bt[nxt[x]] < end:
        x = nxt[x]
        work[0] += 1
        if bf[x] < q:
            return x
    return -1


@njit(cache=True)
def _occupy(bt, bf, nxt, size, cur, s, e, q, work):
    """Take ``q`` processors during ``[s, e)`` from the profile (``cur``: a breakpoint at or before ``s``);
    returns the new number of breakpoints."""
    if bt[cur] < s:
        bt[size], bf[size], nxt[size] = s, bf[cur], nxt[cur]
        nxt[cur] = size
        cur = size
        size += 1
    x = cur
    while True:
        work[0] += 1
        nx = nxt[x]
        if nx == -1 or bt[nx] > e:
            bt[size], bf[size], nxt[size] = e, bf[x], nx
            nxt[x] = size
            size += 1
            bf[x] -= q
            return size
        bf[x] -= q
        if bt[nx] == e:
            return size
        x = nx


@njit(cache=True)
def serial_schedule(release, width, duration, procs, order):
    """Serial schedule generation: the jobs in list ``order``, each at its earliest start ``>= r_j`` where its
    processors are free during its whole run given the jobs placed before it, on the cluster where it
    completes first (ties: earlier start, lower index). Jobs of zero duration start at their submission.

    Unlike :func:`list_schedule` the list sees every job at once (a job placed early keeps its place
    against jobs submitted before it): run over all lists it produces every active schedule (Kolisch
    1996). ``release`` sorted non-decreasing; returns ``(cluster, start)``.
    """
    return serial_schedule_counted(release, width, duration, procs, order, np.zeros(1, dtype=np.int64))


@njit(cache=True)
def serial_schedule_counted(release, width, duration, procs, order, work):
    """:func:`serial_schedule`, adding to ``work[0]`` the breakpoints it visited (its cost, see
    :func:`list_schedule_counted`)."""
    none = np.zeros(release.size + 1, dtype=np.int64)
    return gated_serial_counted(release, width, duration, procs, order, none, np.empty(0), np.empty(0), release,
                                work)


@njit(cache=True)
def _gated_fit(bt, bf, nxt, s0, n0, q, p, glo, ghi, g, ge, last, work):
    """Earliest fit of ``q`` processors for ``p`` outside the open intervals ``(glo[i], ghi[i])``, ``g <= i < ge``
    (sorted, disjoint), from the ungated earliest fit ``s0`` (breakpoint ``n0`` at or before it); that fit when the
    gated start is after ``last``."""
    s, node = s0, n0
    while g < ge:
        while g < ge and ghi[g] <= s:
            g += 1
        if g == ge or glo[g] >= s:
            break
        cand = ghi[g]
        if cand > last:
            return s0, n0
        while nxt[node] != -1 and bt[nxt[node]] <= cand:
            node = nxt[node]
            work[0] += 1
        s, node = _earliest_fit(bt, bf, nxt, node, cand, q, p, work)
    if s > last:
        return s0, n0
    return s, node


FIT_CLASSES = 8
"""Classes of width (``floor(log2 q)``, the last one for every wider job) of the earliest fits a serial construction
remembers (:func:`_fit_floor`)."""


@njit(cache=True)
def fit_memo(K):
    """Empty remembered fits, per cluster and class of width (:func:`_fit_floor`): the fit's width (-1: none),
    duration, submission, start and the breakpoint at or before that start, side by side."""
    memo = np.zeros((K, FIT_CLASSES, 5))
    memo[:, :, 0] = -1.0
    return memo


@njit(cache=True, inline="always")
def _fit_class(q):
    c = 0
    while c < FIT_CLASSES - 1 and q >> (c + 1) >= 1:
        c += 1
    return c


@njit(cache=True, inline="always")
def _fit_floor(memo, k, r, q, p, work):
    """A start before which no run of ``q`` processors for ``p`` from ``r`` fits on cluster ``k``, and a breakpoint
    at or before it (``(r, -1)`` when none is known): the latest remembered earliest fit of a job no wider, no
    longer and submitted no later (docs/bounds.md, "Remembered fits"). Within one serial construction the free
    processors only fall, so whatever fits at ``s`` now also fitted that smaller job then, from ``r`` on."""
    lb, node = r, -1
    for c in range(_fit_class(q) + 1):
        work[0] += 1
        if 0.0 <= memo[k, c, 0] <= q and memo[k, c, 1] <= p and memo[k, c, 2] <= r and memo[k, c, 3] > lb:
            lb, node = memo[k, c, 3], int(memo[k, c, 4])
    return lb, node


@njit(cache=True, inline="always")
def _remembered_fit(bt, bf, nxt, memo, k, a, r, q, p, work):
    """The earliest fit of ``q`` processors for ``p`` from ``r`` on cluster ``k`` (``a``: its breakpoint at or before
    ``r``), the same as :func:`_earliest_fit`'s: at ``r`` when the processors are free there; else searched from the
    later of the next start to try and the remembered floor (:func:`_fit_floor`), and remembered in its class (the
    latest fit of a class is kept)."""
    node, t = a, r
    if bf[a] >= q:
        x = _blocked_at(bt, bf, nxt, a, r + p, q, work)
        if x < 0:
            return r, a
        node = nxt[x]
        t = bt[node]
    lb, known = _fit_floor(memo, k, r, q, p, work)
    if lb > t:
        node, t = known, lb
    s0, n0 = _earliest_fit(bt, bf, nxt, node, t, q, p, work)
    c = _fit_class(q)
    memo[k, c, 0], memo[k, c, 1], memo[k, c, 2], memo[k, c, 3], memo[k, c, 4] = q, p, r, s0, n0
    work[0] += 1
    return s0, n0


@njit(cache=True)
def place_range(release, width, duration, procs, order, lo, hi, bt, bf, nxt, size, ptr, ready, cluster, start, gptr,
                glo, ghi, glast, work):
    """The serial construction's places ``lo .. hi - 1`` of the list ``order`` on the state ``(bt, bf, nxt, size,
    ptr, ready)``: the profile of free processors (a linked list of breakpoints per cluster) and, per cluster, a
    breakpoint at or before each submission (``ptr[:, :ready]`` walked). Each job takes the cluster where it
    completes first, at its earliest fit outside its gates (:func:`gated_serial_counted`); fills ``cluster`` and
    ``start`` of the jobs placed, adds the elementary steps to ``work[0]``; returns ``(size, ready)``. Each
    earliest fit is searched from the latest remembered fit of a smaller job (:func:`_fit_floor`; the same start,
    fewer breakpoints walked). The bounded slowdown's list moves resume it from kept states
    (:mod:`lowerbounds.batch.bsldlist`)."""
    K = procs.size
    memo = fit_memo(K)  # remembered fits hold while the profile only loses room: this call's placements
    for i in range(lo, hi):
        j = order[i]
        work[0] += 1
        while ready <= j:
            for k in range(K):
                a = ptr[k, ready - 1] if ready > 0 else k
                while nxt[a] != -1 and bt[nxt[a]] <= release[ready]:
                    a = nxt[a]
                    work[0] += 1
                ptr[k, ready] = a
            ready += 1
        best_k, best_c, best_s, best_node = -1, np.inf, np.inf, -1
        for k in range(K):
            p = duration[j, k]
            if not np.isfinite(p):
                continue
            a = ptr[k, j]
            while nxt[a] != -1 and bt[nxt[a]] <= release[j]:
                a = nxt[a]
                work[0] += 1
            ptr[k, j] = a
            if p == 0.0:
                s, node = release[j], a
            else:
                s0, n0 = _remembered_fit(bt, bf, nxt, memo, k, a, release[j], width[j], p, work)
                s, node = _gated_fit(bt, bf, nxt, s0, n0, width[j], p, glo, ghi, gptr[j], gptr[j + 1], glast[j],
                                     work)
            if s + p < best_c or (s + p == best_c and s < best_s):
                best_k, best_c, best_s, best_node = k, s + p, s, node
        cluster[j], start[j] = best_k, best_s
        if duration[j, best_k] > 0.0:
            size = _occupy(bt, bf, nxt, size, best_node, best_s, best_c, width[j], work)
    return size, ready


@njit(cache=True)
def gated_serial_counted(release, width, duration, procs, order, gptr, glo, ghi, glast, work):
    """:func:`serial_schedule_counted` where job ``j`` may not start inside its *gates*, the open intervals
    ``(glo[i], ghi[i])`` for ``gptr[j] <= i < gptr[j + 1]`` (sorted, disjoint): it takes its earliest fit outside
    them, searched from its submission (from the end of each gate its fit falls in), or its earliest fit when that
    start is after ``glast[j]`` (:mod:`lowerbounds.batch.stretchgate`). Without gates (``gptr`` all 0) this is the
    serial construction."""
    n, K = duration.shape
    cap = K + 2 * n + 1
    bt = np.zeros(cap)
    bf = np.zeros(cap, dtype=np.int64)
    nxt = np.full(cap, -1, dtype=np.int64)
    for k in range(K):
        bt[k], bf[k] = -1.0, procs[k]
    ptr = np.zeros((K, n), dtype=np.int64)  # ptr[k, i]: a breakpoint of cluster k at or before release[i]
    for k in range(K):
        ptr[k, :] = k
    cluster = np.full(n, -1, dtype=np.int64)
    start = np.full(n, np.nan)
    place_range(release, width, duration, procs, order, 0, order.size, bt, bf, nxt, K, ptr, 0, cluster, start, gptr,
                glo, ghi, glast, work)
    return cluster, start
