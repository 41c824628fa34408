"""The choices of one event of Algorithm 2 (reallocation with cancellation, seed 000 §2.2.1), compiled.

After cancelling every waiting job, Algorithm 2 repeatedly chooses a job with the
heuristic, resubmits it to the cluster of its minimum ECT, and chooses again on the ECTs
that resubmission changed. With thousands of waiting jobs and up to a million moves a
month, Python's and numpy's fixed costs per choice dominated the event, so the whole
event runs here as one compiled loop on a planning snapshot of the grid
(:class:`vcsched.sim.planning.PlanningSnapshot`): the snapshot answers the ECTs
(:func:`~vcsched.sim.planning.start_on`, :func:`~vcsched.sim.planning.refresh_column`)
and takes the reservations (:func:`~vcsched.sim.planning.reserve_on`) with the
clusters' own planning rules; this module supplies only the choice rule. The caller then
submits the jobs to the grid in the order reserved (:meth:`vcsched.sim.Grid.submit_many`).

The choice (:func:`_select`) is :func:`heuristics.grid.fastselect.select_builtin`'s on the
same ECT matrix and current ECTs (same key formulas; the first row with the extreme key;
the first NaN key wins). ``select_builtin`` also looks at dead rows, which can only win
when every alive key is ``-inf`` (maximising) or ``inf`` (minimising), which no built-in
key gives for a job that fits some cluster. The destination (:func:`_destination`) is the
first cluster of minimum ECT, or the job's previous cluster when that one is within the
threshold. A plain Python oracle of the same event, one grid query and submission at a
time, is in ``tests/grid/realloc_oracle.py``; both give the same ``jobs.csv`` byte for byte.

MinMin and MaxMin on FCFS clusters (:func:`plan_event_grouped`): after the FCFS lower
bound the free processors never decrease
(:func:`~vcsched.sim.planning.monotone_after_lower`), so a job's earliest start there
depends on its width only (:func:`~vcsched.sim.planning.width_starts`), and within a
group of jobs whose planned durations are ordered on every cluster the key is monotone in
those durations. Each choice then looks at the head of each group instead of at every
alive job; ties are resolved as ``select_builtin`` does (tested against
:func:`plan_event` and the oracle, with rounding ties).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from heuristics.grid.fastselect import MCT, _key, two_smallest
from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run
from vcsched.sim.planning import refresh_column, reserve_on, start_on, width_starts

__all__ = ["Choice", "Groups", "plan_event", "plan_event_grouped"]

_INF = np.inf


class Choice(NamedTuple):
    """The choice rule of an event: heuristic ``code`` (:mod:`heuristics.grid.fastselect`) and direction,
    each job's previous cluster ``prev``, the ``current`` ECT of MaxGain and MaxRelGain (``planned`` when
    ``use_planned``, else the ECT on ``prev`` in the current state), the ``threshold`` of the destination rule
    (0: only ties keep a job where it was) and whether the exact shortcut ``prune`` is used."""

    code: int
    maximise: bool
    prev: np.ndarray
    planned: np.ndarray
    use_planned: bool
    threshold: float
    prune: bool


class Groups(NamedTuple):
    """Groups of comparable jobs of :func:`plan_event_grouped` (built by
    :func:`heuristics.grid.realloc._comparable_groups`): distinct widths ``uw`` and each row's width index ``rw``;
    the rows of group ``g`` are ``order[start[g]:end[g]]`` from the best key to the worst; ``blockend[pos]`` ends
    the run of equal duration rows holding position ``pos``."""

    uw: np.ndarray
    rw: np.ndarray
    order: np.ndarray
    start: np.ndarray
    end: np.ndarray
    blockend: np.ndarray


@njit(cache=True)
def _fill(st, i, S, E, K):
    """Start and completion of row ``i`` on every cluster."""
    for k in range(K):
        x = start_on(st, i, k)
        S[i, k] = x
        E[i, k] = x + st.D[i, k]


@njit(cache=True)
def _select(ch, E, live, m, procs):
    """Position in ``live[:m]`` of the row chosen by the heuristic (see the module notes)."""
    K = E.shape[1]
    code, maximise, planned, use_planned, prev = ch.code, ch.maximise, ch.planned, ch.use_planned, ch.prev
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
def _destination(ch, Erow, i):
    """Cluster of row ``i`` with completions ``Erow``: the first of minimum ECT, or its previous one within the
    threshold."""
    b = 0
    for k in range(1, Erow.size):
        if Erow[k] < Erow[b]:
            b = k
    p = ch.prev[i]
    if Erow[p] <= Erow[b] + ch.threshold:
        b = p
    return b


@njit(cache=True)
def plan_event(st, ch):
    """Choose, one after the other, every job of the snapshot ``st`` with the rule ``ch``, and reserve each on
    its destination (:func:`~vcsched.sim.planning.reserve_on`: the order, clusters and starts are the
    snapshot's reservations)."""
    n, K = st.D.shape
    S = np.empty((n, K))
    E = np.empty((n, K))
    live = np.arange(n)
    m = n
    procs = st.widths.astype(np.float64)
    if ch.code != MCT:
        for i in range(n):
            _fill(st, i, S, E, K)
    b = -1
    s = 0.0
    e = 0.0
    for step in range(n):
        if ch.code == MCT:
            i = step
            _fill(st, i, S, E, K)
        else:
            if b >= 0:
                refresh_column(st, b, live, m, S, E, s, e, ch.prune)
            r = _select(ch, E, live, m, procs)
            i = live[r]
            for q in range(r + 1, m):
                live[q - 1] = live[q]
            m -= 1
        b = _destination(ch, E[i], i)
        s = reserve_on(st, i, b)
        e = s + st.D[i, b]


# ---------------------------------------------------------------------------------------------- MinMin / MaxMin on FCFS
@njit(cache=True)
def _row_key(A, M, r, w, K):
    """MinMin's and MaxMin's key of row ``r`` of ``M`` (planned durations), of width index ``w``: its minimum ECT,
    ``min_k A[w, k] + M[r, k]``, read in place (no row view per call)."""
    best = _INF
    for k in range(K):
        v = A[w, k] + M[r, k]
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
            if _row_key(A, D, x, w, K) != key:
                break
            if x < row:
                row = x
        q = blockend[q]
    return row


@njit(cache=True)
def plan_event_grouped(st, ch, gr):
    """:func:`plan_event` for MinMin (``ch.maximise`` False) and MaxMin (True) when every cluster is FCFS and
    :func:`~vcsched.sim.planning.monotone_after_lower` holds: the same choices, without scanning every alive
    row at each choice.

    ``A[w, k]`` is the earliest start on cluster ``k`` of width ``gr.uw[w]``, recomputed
    for the resubmission's cluster only. In a group (:class:`Groups`) the key is monotone
    along its order, so the group's best alive row is its first one, or a later one whose
    key is equal (a rounding tie, looked for block by block). Each group's first alive row
    (``head``, durations ``HD``) and the first alive row after its block (``after``,
    ``AD``) are cached (:func:`_cache_head`, refreshed for the chosen row's group only), so
    a choice reads, per group, two rows and ``A[w]``; only when these two keys are equal is
    the group walked block by block (:func:`_tie_row`).

    The loop keeps its arrays as local variables rather than in named tuples: numba passes
    a tuple of arrays with a reference-count update per member at every access and call,
    which cost a third of this loop's time on the six-month runs.
    """
    n, K = st.D.shape
    uw, rw, gorder, gstart, gend, blockend = gr
    D = st.D
    W = uw.size
    G = gstart.size
    A = np.empty((W, K))
    for k in range(K):
        width_starts(st, uw, A, k)
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
    maximise = ch.maximise
    for _ in range(n):
        chosen = -1
        top = 0.0
        for g in range(G):
            h = head[g]
            if h < 0:
                continue
            w = width[g]
            key = _row_key(A, HD, g, w, K)
            if chosen >= 0 and (key < top if maximise else key > top):
                continue  # cannot win: its row does not matter
            row = h
            if after[g] >= 0 and _row_key(A, AD, g, w, K) == key:  # a rounding tie further down the group
                row = _tie_row(A, g, key, w, ptr, gorder, gend, blockend, alive, D, K)
            if chosen < 0 or (key > top if maximise else key < top) or (key == top and row < chosen):
                chosen = row
                top = key
        i = chosen
        alive[i] = False
        _cache_head(group[i], ptr, gorder, gend, blockend, alive, D, head, after, HD, AD, K)
        for k in range(K):
            E[k] = A[rw[i], k] + D[i, k]
        b = _destination(ch, E, i)
        reserve_on(st, i, b)
        width_starts(st, uw, A, b)
