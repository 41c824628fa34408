"""One whole event of Algorithm 2 (reallocation with cancellation, seed 000 §2.2.1) in one compiled loop.

:meth:`heuristics.grid.realloc.Reallocation._algorithm2` is the reference: after
cancelling every waiting job it chooses a job with the heuristic, resubmits it to the
cluster of its minimum ECT, recomputes that cluster's ECT column and chooses again. With
thousands of waiting jobs and up to a million moves a month, numpy's and Python's fixed
costs per choice (about ten numpy calls, a grid submission and an estimate-plan update)
dominated the event. :func:`plan_event` does the same choices on copies of the clusters'
planning profiles, without leaving compiled code; the caller then submits the jobs to the
grid in the chosen order, which replays the same reservations on the clusters themselves.

What is replayed, per cluster ``k`` (its :meth:`vcsched.sim.Cluster.resubmission_plan`):
the profile new submissions are planned on (``T[k, :rows[k]]``, ``F[k, :rows[k]]``), the
lower bound of the next submission's start (``lower[k]``) and whether a submission raises
that bound to its own start (``advances[k]``: FCFS queues in order; EASY's estimate plan
and conservative backfilling do not). The ECT of an alive job on ``k`` is then
``earliest(width, d, lower) + d`` (``inf`` when the job is wider than the cluster), and a
resubmission is :func:`vcsched.sim.compiled.reserve` from ``lower``: the same compiled
profile rules, called with the same arguments in the same order as the engine, so the
results are the same floating-point numbers (tested: same ``jobs.csv`` byte for byte).

The choice is :func:`heuristics.grid.fastselect.select_builtin`'s on the same ECT matrix
and current ECTs as the reference (one pass per choice over the alive rows, which also
updates the column of the previous choice's cluster: :func:`_refresh_and_select`), and the
destination rule is the reference's (first cluster of minimum ECT; the previous cluster
when it is within the threshold).

An exact shortcut (``prune``): a reservation ``[s, s + d)`` only removes processors, and
only raises the lower bound (to ``s``), so no alive job can start earlier than before on
that cluster. A job whose earliest slot there is still after the new lower bound and does
not overlap ``[s, s + d)`` therefore keeps it, and is not scanned again. The plain
recompute (``prune=False``) is tested equal.

MinMin and MaxMin on FCFS clusters (:func:`plan_event_grouped`): after the FCFS lower
bound the free processors never decrease (:func:`monotone_after_lower`), so a job's
earliest start there depends on its width only, and within a group of jobs whose planned
durations are ordered on every cluster the key is monotone in those durations. Each choice
then looks at the head of each group instead of at every alive job; ties are resolved as
:func:`heuristics.grid.fastselect.select_builtin` does (tested against :func:`plan_event`
and the reference, with rounding ties).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from heuristics.grid import fastselect
from heuristics.grid.fastselect import _key, two_smallest
from vcsched.sim.compiled import earliest, earliest_many, reserve, row_of

__all__ = ["MCT", "plan_event", "plan_event_grouped", "monotone_after_lower"]

MCT = fastselect.MCT

_INF = np.inf


@njit(cache=True)
def _slot(T, F, rows, total, lower, p, d, k):
    """Earliest start of a job (width ``p``, duration ``d``) on cluster ``k`` from its lower bound; inf if too wide."""
    if p > total[k]:
        return _INF
    return earliest(T[k], F[k], rows[k], p, d, lower[k])


@njit(cache=True)
def _refresh_and_select(code, maximise, T, F, rows, total, lower, widths, D, S, E, prev, planned, use_planned, procs,
                        live, m, b, s, e, prune, todo, wp, wd, ws):
    """One pass over the alive rows ``live[:m]`` (in submission order): bring column ``b`` up to date after the
    reservation ``[s, e)`` on it (``b < 0``: nothing to update), then choose a row with the heuristic.

    The rows to update are gathered into the work arrays ``todo`` (rows), ``wp``, ``wd``
    (width, duration) and ``ws`` (their new starts), for one
    :func:`~vcsched.sim.compiled.earliest_many` call. Returns the position in ``live`` of
    the chosen row. The choice is that of
    :func:`heuristics.grid.fastselect.select_builtin` on the alive rows (same key formulas,
    :func:`fastselect._key`; the first row with the extreme key; the first NaN key wins);
    ``select_builtin`` also looks at dead rows, which can only win when every alive key is
    ``-inf`` (maximising) or ``inf`` (minimising), which no built-in key gives for a job
    that fits some cluster.
    """
    K = total.size
    if b >= 0:
        c = 0
        for r in range(m):
            i = live[r]
            x = S[i, b]
            if not (prune and x >= lower[b] and (x >= e or x + D[i, b] <= s)):
                todo[c] = i
                wp[c] = widths[i]
                wd[c] = D[i, b]
                c += 1
        earliest_many(T[b], F[b], rows[b], wp[:c], wd[:c], lower[b], ws[:c])
        for q in range(c):
            i = todo[q]
            S[i, b] = ws[q]
            E[i, b] = ws[q] + D[i, b]
    chosen = -1
    top = 0.0
    for r in range(m):
        i = live[r]
        best, second = two_smallest(E, i, K)
        key = _key(code, best, second, planned[i] if use_planned else E[i, prev[i]], procs[i])
        if key != key:
            return r
        if chosen < 0 or (key > top if maximise else key < top):
            chosen = r
            top = key
    return chosen


@njit(cache=True)
def plan_event(code, maximise, T, F, rows, total, lower, advances, widths, D, prev, planned, use_planned,
               threshold, now, prune, order, dest, start):
    """Choices of one Algorithm-2 event: ``order[step]`` (row chosen), ``dest[step]`` (its cluster) and
    ``start[step]`` (its reservation there).

    Parameters
    ----------
    code : int
        :data:`MCT` or a code of :mod:`heuristics.grid.fastselect`.
    maximise : bool
        Whether the heuristic takes the largest key.
    T, F : 2-D arrays (clusters x room), rows : int array
        Each cluster's planning profile; updated in place (room for two breakpoints per job).
    total : int array
        Processors of each cluster.
    lower : float array
        Lower bound of the next submission's start on each cluster (not before ``now``); updated in place.
    advances : bool array
        Whether a submission raises the lower bound to its start (FCFS).
    widths : int array, D : 2-D float array (jobs x clusters)
        Processors and planned durations of the waiting jobs (rows in submission order).
    prev : int array
        Cluster each job waited on before the cancellation.
    planned : float array, use_planned : bool
        MaxGain's and MaxRelGain's current ECT: ``planned`` when ``use_planned``, else the
        ECT on the previous cluster in the current state.
    threshold : float
        A job stays on its previous cluster unless another finishes it more than this earlier (0: only ties).
    now : float
    prune : bool
        Use the exact shortcut of the module notes.
    order, dest : int arrays, start : float array
        Outputs.
    """
    n = widths.size
    K = total.size
    S = np.empty((n, K))
    E = np.empty((n, K))
    live = np.arange(n)
    m = n
    todo = np.empty(n, dtype=np.int64)
    wp = np.empty(n, dtype=np.int64)
    wd = np.empty(n)
    ws = np.empty(n)
    procs = widths.astype(np.float64)
    if code != MCT:
        for k in range(K):
            for i in range(n):
                x = _slot(T, F, rows, total, lower, widths[i], D[i, k], k)
                S[i, k] = x
                E[i, k] = x + D[i, k]
    b = -1
    s = 0.0
    e = 0.0
    for step in range(n):
        if code == MCT:
            i = step
            for k in range(K):
                x = _slot(T, F, rows, total, lower, widths[i], D[i, k], k)
                S[i, k] = x
                E[i, k] = x + D[i, k]
        else:
            r = _refresh_and_select(code, maximise, T, F, rows, total, lower, widths, D, S, E, prev, planned,
                                    use_planned, procs, live, m, b, s, e, prune, todo, wp, wd, ws)
            i = live[r]
            for q in range(r + 1, m):
                live[q - 1] = live[q]
            m -= 1
        b = 0
        for k in range(1, K):
            if E[i, k] < E[i, b]:
                b = k
        p = prev[i]
        if E[i, p] <= E[i, b] + threshold:
            b = p
        order[step] = i
        dest[step] = b
        rows[b], s = reserve(T[b], F[b], rows[b], widths[i], D[i, b], now, lower[b], total[b])
        start[step] = s
        e = s + D[i, b]
        if advances[b]:
            lower[b] = s


# ---------------------------------------------------------------------------------------------- MinMin / MaxMin on FCFS
@njit(cache=True)
def monotone_after_lower(T, F, rows, lower):
    """True when every cluster's free count never decreases after its lower bound.

    This holds for FCFS plans (every reservation starts at or before the last one's start,
    which is the lower bound, so after it processors are only released), and a
    resubmission keeps it. Then the earliest start of a job from the lower bound is the
    first row with enough free processors, whatever the job's duration.
    """
    for k in range(rows.size):
        for r in range(rows[k] - 1):
            if T[k, r + 1] > lower[k] and F[k, r + 1] < F[k, r]:
                return False
    return True


@njit(cache=True)
def _group_key(A, Drow, w, K):
    """MinMin's and MaxMin's key of a row of width index ``w`` and planned durations ``Drow``: its minimum ECT,
    ``min_k A[w, k] + Drow[k]``."""
    best = _INF
    for k in range(K):
        v = A[w, k] + Drow[k]
        if v < best:
            best = v
    return best


@njit(cache=True)
def _cache_head(g, ptr, gorder, gend, blockend, alive, D, head, after, HD, AD, K):
    """Move group ``g``'s pointer to its first alive row and cache it (``head[g]``, its durations ``HD[g]``) with
    the first alive row after that row's block (``after[g]``, ``AD[g]``); -1 when there is none."""
    pos = ptr[g]
    while pos < gend[g] and not alive[gorder[pos]]:
        pos += 1
    ptr[g] = pos
    head[g] = -1
    after[g] = -1
    if pos == gend[g]:
        return
    h = gorder[pos]
    head[g] = h
    for k in range(K):
        HD[g, k] = D[h, k]
    q = blockend[pos]
    while q < gend[g] and not alive[gorder[q]]:
        q += 1
    if q < gend[g]:
        x = gorder[q]
        after[g] = x
        for k in range(K):
            AD[g, k] = D[x, k]


@njit(cache=True)
def _tie_row(A, g, key, w, ptr, gorder, gend, blockend, alive, D, K):
    """The smallest row of group ``g`` whose key equals its head's ``key`` (a rounding tie), block by block from
    the head's: each block's first alive row, until a block's key differs."""
    pos = ptr[g]
    row = gorder[pos]
    q = blockend[pos]
    while q < gend[g]:
        r = q
        while r < blockend[q] and not alive[gorder[r]]:
            r += 1
        if r < blockend[q]:
            x = gorder[r]
            if _group_key(A, D[x], w, K) != key:
                break
            if x < row:
                row = x
        q = blockend[q]
    return row


@njit(cache=True)
def _width_starts(T, F, rows, total, lower, uw, A, k):
    """``A[w, k]``: earliest start on cluster ``k`` from its lower bound of a job of width ``uw[w]`` (``uw``
    increasing), on a profile whose free count never decreases after the lower bound.

    On such a profile the earliest start of width ``p`` is the first row from the one
    holding the lower bound with at least ``p`` free (clipped to the lower bound), whatever
    the duration: :func:`~vcsched.sim.compiled.earliest` gives the same number (tested),
    but one merge over the increasing widths and the rows costs O(widths + rows) instead
    of one search per width.
    """
    n = rows[k]
    lo = lower[k]
    r = row_of(T[k], n, lo)
    if r < 0:
        r = 0
    for w in range(uw.size):
        p = uw[w]
        if p > total[k]:
            A[w, k] = _INF
            continue
        while r < n and F[k, r] < p:
            r += 1
        if r == n:
            A[w, k] = _INF
        else:
            t = T[k, r]
            A[w, k] = t if t > lo else lo


@njit(cache=True)
def plan_event_grouped(maximise, T, F, rows, total, lower, uw, rw, D, prev, threshold, now, gorder, gstart, gend,
                       blockend, order, dest, start):
    """:func:`plan_event` for MinMin (``maximise`` False) and MaxMin (True) when every cluster is FCFS and
    :func:`monotone_after_lower` holds: the same choices, without scanning every alive row at each choice.

    With a non-decreasing profile after the lower bound, a job's earliest start on cluster
    ``k`` depends on its width only: ``A[w, k]`` for the distinct widths ``uw`` (``rw[i]``:
    row ``i``'s width index), recomputed for the resubmission's cluster only. The rows are
    split into groups whose planned durations are ordered componentwise (same width, and
    ``D`` rows comparable: the caller checks it), listed in ``gorder[gstart[g]:gend[g]]``
    from the best key to the worst (largest durations first when maximising), ties of
    equal ``D`` rows by row. In a group the key is monotone along that order, so the
    group's best alive row is its first one, or a later one whose key is equal (a
    rounding tie, looked for block by block: ``blockend[pos]`` ends the run of equal ``D``
    rows holding ``pos``). The choice over the groups is the extreme key, ties to the
    first row, as :func:`heuristics.grid.fastselect.select_builtin`.

    Each group's first alive row and the first alive row after its block are cached with
    their durations (:func:`_cache_head`, refreshed for the chosen row's group only), so a
    choice reads, per group, two contiguous rows and ``A[w]``; only when these two keys are
    equal is the group walked block by block (:func:`_tie_row`).
    """
    n = rw.size
    K = total.size
    W = uw.size
    G = gstart.size
    A = np.empty((W, K))
    for k in range(K):
        _width_starts(T, F, rows, total, lower, uw, A, k)
    alive = np.ones(n, dtype=np.bool_)
    ptr = gstart.copy()
    group = np.empty(n, dtype=np.int64)
    width = np.empty(G, dtype=np.int64)
    head = np.empty(G, dtype=np.int64)
    after = np.empty(G, dtype=np.int64)
    HD = np.empty((G, K))
    AD = np.empty((G, K))
    for g in range(G):
        for pos in range(gstart[g], gend[g]):
            group[gorder[pos]] = g
        width[g] = rw[gorder[gstart[g]]]
        _cache_head(g, ptr, gorder, gend, blockend, alive, D, head, after, HD, AD, K)
    E = np.empty(K)
    for step in range(n):
        chosen = -1
        top = 0.0
        for g in range(G):
            h = head[g]
            if h < 0:
                continue
            w = width[g]
            key = _group_key(A, HD[g], w, K)
            if chosen >= 0 and (key < top if maximise else key > top):
                continue  # cannot win: its row does not matter
            row = h
            if after[g] >= 0 and _group_key(A, AD[g], w, K) == key:  # a rounding tie further down the group
                row = _tie_row(A, g, key, w, ptr, gorder, gend, blockend, alive, D, K)
            if chosen < 0 or (key > top if maximise else key < top) or (key == top and row < chosen):
                chosen = row
                top = key
        i = chosen
        alive[i] = False
        _cache_head(group[i], ptr, gorder, gend, blockend, alive, D, head, after, HD, AD, K)
        for k in range(K):
            E[k] = A[rw[i], k] + D[i, k]
        b = 0
        for k in range(1, K):
            if E[k] < E[b]:
                b = k
        p = prev[i]
        if E[p] <= E[b] + threshold:
            b = p
        order[step] = i
        dest[step] = b
        rows[b], s = reserve(T[b], F[b], rows[b], uw[rw[i]], D[i, b], now, lower[b], total[b])
        start[step] = s
        lower[b] = s
        _width_starts(T, F, rows, total, lower, uw, A, b)
