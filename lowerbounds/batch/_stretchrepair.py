"""Compiled steps of the max-stretch repair (:mod:`lowerbounds.batch.stretchrepair`): the promotion of a job that
misses its deadline in a serial list schedule.

The serial construction (:func:`lowerbounds.batch._listsched.serial_schedule`) places each job of its list at its
earliest feasible start given the jobs **before it in the list** only. So a job ``j`` moved up the list to just
before job ``i`` is placed against the jobs of rank below ``rank_i``, placed exactly as before (the prefix of the
list is unchanged): if, on a cluster ``k``, those jobs leave ``q_j`` processors free during ``[s, s + p_jk)``, then
``j`` completes by ``s + p_jk`` (its earliest fit on ``k`` is at ``s`` or before, and the construction keeps the
cluster where it completes first). :func:`promotions` finds, for each late job, the smallest such jump: over the
clusters where it fits and a few starts ``s`` of its window ``[r_j, r_j + S p_jk - p_jk]``, the fewest jobs of
highest rank to pass among those running during ``[s, s + p_jk)`` (passed in decreasing rank until the peak use of
the rest, kept in a max tree over their starts, leaves room for ``j``).
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["promotions", "START_POINTS"]

START_POINTS = 8
"""Starts tried in a late job's window: evenly spaced from its submission to its latest start, both included."""


@njit(cache=True)
def _tree_add(t, d, size, lo, hi, v):
    """Add ``v`` to the leaves ``lo .. hi - 1`` of the max tree ``t`` (pending additions ``d``; ``t[1]`` the
    maximum over the leaves)."""
    lo += size
    hi += size
    l0, r0 = lo, hi - 1
    while lo < hi:
        if lo & 1:
            t[lo] += v
            d[lo] += v
            lo += 1
        if hi & 1:
            hi -= 1
            t[hi] += v
            d[hi] += v
        lo >>= 1
        hi >>= 1
    for x in (l0, r0):
        while x > 1:
            x >>= 1
            t[x] = max(t[2 * x], t[2 * x + 1]) + d[x]


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
    # the use during [s, s + p) changes only at the (clipped) starts: one leaf per start, in time order
    xs = np.sort(np.maximum(buf_s[:cnt], s))
    size = 1
    while size < cnt:
        size *= 2
    t = np.zeros(2 * size, dtype=np.int64)
    d = np.zeros(2 * size, dtype=np.int64)
    first = np.searchsorted(xs, np.maximum(buf_s[:cnt], s), side="left")
    last = np.searchsorted(xs, buf_f[:cnt], side="left")
    work[0] += 8 * cnt
    for x in range(cnt):
        _tree_add(t, d, size, first[x], last[x], buf_w[x])
    room = procs[k] - width[j]
    passed, harm = 0, 0
    while t[1] > room:  # pass the job of highest rank left (the peak of the rest only falls)
        x = order[passed]
        _tree_add(t, d, size, first[x], last[x], -buf_w[x])
        harm += buf_t[x]
        passed += 1
    work[0] += 4 * passed
    if passed == 0:
        return rank[j], 0
    return buf_r[order[passed - 1]], harm


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
            latest = release[j] + max(target - 1.0, 0.0) * p
            for c in range(START_POINTS):
                s = release[j] + (latest - release[j]) * c / (START_POINTS - 1)
                r, harm = _jump(j, k, s, p, release, width, procs, cluster, start, duration, rank, target, by_start,
                                sorted_start, pmax, buf_s, buf_f, buf_w, buf_r, buf_t, work)
                if harm < best_harm or (harm == best_harm and r > best):
                    best, best_harm = r, harm
        out[a] = best
    return out
