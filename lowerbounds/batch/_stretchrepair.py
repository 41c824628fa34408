"""Compiled steps of the max-stretch repair (:mod:`lowerbounds.batch.stretchrepair`): the promotion of a job that
misses its deadline in a serial list schedule.

The serial construction (:func:`lowerbounds.batch._listsched.serial_schedule`) places each job of its list at its
earliest feasible start given the jobs **before it in the list** only. So a job ``j`` moved up the list to just
before job ``i`` is placed against the jobs of rank below ``rank_i``, placed exactly as before (the prefix of the
list is unchanged): if, on a cluster ``k``, those jobs leave ``q_j`` processors free during ``[s, s + p_jk)``, then
``j`` completes by ``s + p_jk`` (its earliest fit on ``k`` is at ``s`` or before, and the construction keeps the
cluster where it completes first). :func:`promotions` finds, for each late job, the smallest such jump: over the
clusters where it fits and a few starts ``s`` of its window ``[r_j, r_j + S p_jk - p_jk]``, the fewest jobs of
highest rank to pass among those running during ``[s, s + p_jk)`` (a binary search on how many, the peak use of
the rest computed by a sweep).
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["promotions", "START_POINTS"]

START_POINTS = 8
"""Starts tried in a late job's window: evenly spaced from its submission to its latest start, both included."""


@njit(cache=True)
def _peak(s0, s1, starts, fins, widths, first, count, work):
    """Largest number of processors used during ``[s0, s1)`` by the intervals ``first .. count - 1`` of the arrays
    (half-open ``[start, fin)``, clipped to the window): a sweep, finishes before starts at equal times."""
    m = count - first
    if m <= 0:
        return 0
    a = np.empty(m)
    b = np.empty(m)
    for x in range(m):
        a[x] = max(starts[first + x], s0)
        b[x] = min(fins[first + x], s1)
    oa, ob = np.argsort(a), np.argsort(b)
    work[0] += 4 * m
    use, peak, ia, ib = 0, 0, 0, 0
    while ia < m:
        if ib < m and b[ob[ib]] <= a[oa[ia]]:
            use -= widths[first + ob[ib]]
            ib += 1
        else:
            use += widths[first + oa[ia]]
            ia += 1
            if use > peak:
                peak = use
    return peak


@njit(cache=True)
def _jump(j, k, s, p, release, width, procs, cluster, start, duration, rank, target, by_start, sorted_start, pmax,
          buf_s, buf_f, buf_w, buf_r, buf_t, work):
    """The rank to move ``j`` before so that it fits at ``s`` on cluster ``k`` (``rank_j`` when it already does), and
    the harm of that jump: how many of the jobs passed that run during ``[s, s + p)`` have less slack (deadline
    minus completion) than ``p``, so that a delay of ``p`` would make them late."""
    lo = np.searchsorted(sorted_start, s - pmax, side="right")
    hi = np.searchsorted(sorted_start, s + p, side="left")
    cnt = 0
    for x in range(lo, hi):
        i = by_start[x]
        work[0] += 1
        if i == j or cluster[i] != k or rank[i] > rank[j]:
            continue
        f = start[i] + duration[i, k]
        if f <= s or duration[i, k] <= 0.0:
            continue
        buf_s[cnt], buf_f[cnt], buf_w[cnt], buf_r[cnt] = start[i], f, width[i], rank[i]
        buf_t[cnt] = release[i] + target * duration[i, k] - f < p
        cnt += 1
    if cnt == 0:
        return rank[j], 0
    order = np.argsort(-buf_r[:cnt])  # highest rank first: those are passed first
    ss, ff, ww, rr = buf_s[:cnt][order], buf_f[:cnt][order], buf_w[:cnt][order], buf_r[:cnt][order]
    room = procs[k] - width[j]
    if _peak(s, s + p, ss, ff, ww, 0, cnt, work) <= room:
        return rank[j], 0
    lo_m, hi_m = 1, cnt  # pass the first m of the list: the peak of the rest is non-increasing in m
    while lo_m < hi_m:
        mid = (lo_m + hi_m) // 2
        if _peak(s, s + p, ss, ff, ww, mid, cnt, work) <= room:
            hi_m = mid
        else:
            lo_m = mid + 1
    tight = buf_t[:cnt][order]
    return rr[lo_m - 1], int(tight[:lo_m].sum())


@njit(cache=True)
def promotions(late, release, width, duration, procs, cluster, start, rank, target, work):
    """For each job of ``late`` (completing after ``r_j + target p_j`` on its cluster), the rank of the job it must
    move just before to complete by its deadline ``r_j + target p_jk`` on some cluster ``k`` (module docstring); the
    largest such rank over the clusters and :data:`START_POINTS` starts (the smallest jump), or ``rank_j`` when
    none is needed. ``rank``: each job's position in the list."""
    n, K = duration.shape
    by_start = np.argsort(start, kind="mergesort")
    sorted_start = start[by_start]
    pmax = 0.0
    for i in range(n):
        d = duration[i, cluster[i]]
        if d > pmax:
            pmax = d
    buf_s, buf_f = np.empty(n), np.empty(n)
    buf_w, buf_r = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    buf_t = np.empty(n, dtype=np.bool_)
    out = np.empty(late.size, dtype=np.int64)
    for a in range(late.size):
        j = late[a]
        best, best_harm = -1, n + 1
        for k in range(K):
            p = duration[j, k]
            if not np.isfinite(p) or p <= 0.0:
                continue
            latest = release[j] + (target - 1.0) * p
            for c in range(START_POINTS):
                s = release[j] + (latest - release[j]) * c / (START_POINTS - 1)
                r, harm = _jump(j, k, s, p, release, width, procs, cluster, start, duration, rank, target, by_start,
                                sorted_start, pmax, buf_s, buf_f, buf_w, buf_r, buf_t, work)
                if harm < best_harm or (harm == best_harm and r > best):
                    best, best_harm = r, harm
        out[a] = best
    return out
