"""MinMin and MaxMin of Algorithm 2 on FCFS clusters of one speed: the choice by blocks of widths, compiled.

Seed 000 §2.2.1 (Algorithm 2) and §2.2.2 (MinMin, MaxMin). This is
:func:`heuristics.grid.fastevent.plan_event_grouped` for the case where every cluster plans
a job for the same duration (clusters of one speed: every column of the planned durations
``D`` is the same), with the same choices and reservations, found with less work per choice.

After an FCFS cluster's lower bound its free processors never decrease
(:func:`~vcsched.sim.planning.monotone_after_lower`), so the earliest start there of a job
of width ``p`` is the start of the first *record row* after the lower bound (a row with
more free processors than every row before it, from the one holding the lower bound) with
at least ``p`` free, clipped to the lower bound (:func:`~vcsched.sim.planning.width_starts`
computes the same numbers width by width). A cluster's starts are thus a step function
``A_k(p)`` with one step per record row (a handful), and with one duration ``d`` per job
the key of MinMin and MaxMin is

    ``min_k fl(A_k(p) + d) = fl(c(p) + d)``,  ``c(p) = min_k A_k(p)``

(rounding is monotone, so the minimum commutes with adding ``d``), where ``c`` is
nondecreasing in ``p``. The groups are the widths (:func:`heuristics.grid.realloc._comparable_groups`),
each ordered from its best key to its worst, so a width's best key is
``fl(c(p) + head duration)``. The widths are cut into blocks of :data:`BLOCK` consecutive
widths, and each block keeps the best head duration of its widths: ``fl(c(last width) +
largest head duration)`` bounds every key of the block from above (MaxMin; MinMin:
``fl(c(first width) + smallest head duration)`` from below). A choice computes the blocks'
bounds, reads the widths of the block with the best bound, then only the blocks whose bound
can still reach the best key found (ties included). Ties are broken as in
``plan_event_grouped``: the smallest row among the keys equal to the best, rounding ties
inside a width found block by block. After a reservation only the reserved cluster's steps
are rebuilt and merged with the others' into ``c`` (O(steps), not O(widths)).
"""

from __future__ import annotations

import numpy as np

from heuristics.grid.fastevent import _cache_head, _destination, _tie_row
from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run
from vcsched.sim.compiled import row_of
from vcsched.sim.planning import reserve_on

__all__ = ["BLOCK", "plan_event_widths"]

_INF = np.inf

BLOCK = 16
"""Consecutive widths per block of :func:`plan_event_widths`."""


@njit(cache=True, inline="always")
def _steps(T, F, rows, lower, totals, k, SP, SC):
    """Cluster ``k``'s record rows after its lower bound (profile ``T``, ``F``, ``rows`` of a
    :class:`~vcsched.sim.planning.PlanState`): free counts ``SP[k, :m]`` (increasing, at most the cluster's
    processors) and starts ``SC[k, :m]`` (clipped to the lower bound); returns ``m``."""
    n = rows[k]
    lo = lower[k]
    Tk, Fk = T[k], F[k]
    total = totals[k]
    r = row_of(Tk, n, lo)
    if r < 0:
        r = 0
    m = 0
    for q in range(r, n):
        f = min(Fk[q], total)
        if m == 0 or f > SP[k, m - 1]:
            t = Tk[q]
            SP[k, m] = f
            SC[k, m] = t if t > lo else lo
            m += 1
    return m


@njit(cache=True, inline="always")
def _merge(SP, SC, ns, MP, MC, at):
    """``c(p) = min_k A_k(p)`` as steps: thresholds ``MP[:m]`` (increasing) and values ``MC[:m]`` (``c(p)`` is
    ``MC`` at the first threshold at least ``p``; ``inf`` past the last). Returns ``m``."""
    K = ns.size
    for k in range(K):
        at[k] = 0
    m = 0
    while True:
        p = -1
        for k in range(K):
            if at[k] < ns[k] and (p < 0 or SP[k, at[k]] < p):
                p = SP[k, at[k]]
        if p < 0:
            return m
        c = _INF
        for k in range(K):
            if at[k] < ns[k]:
                v = SC[k, at[k]]
                if v < c:
                    c = v
                if SP[k, at[k]] == p:
                    at[k] += 1
        MP[m] = p
        MC[m] = c
        m += 1


@njit(cache=True, inline="always")
def _step_value(P, C, m, p):
    """The value at the first threshold of ``P[:m]`` at least ``p``; ``inf`` when there is none."""
    for j in range(m):
        if P[j] >= p:
            return C[j]
    return _INF


@njit(cache=True, inline="always")
def _block_extreme(hv, a, b, maximise):
    """The largest (``maximise``) or smallest head duration of widths ``a .. b-1``."""
    e = -_INF if maximise else _INF
    for w in range(a, b):
        v = hv[w]
        if (v > e) if maximise else (v < e):
            e = v
    return e


@njit(cache=True, inline="always")
def _scan_block(a, b, uw, MP, MC, nm, hv, head, after, AD, top, chosen, maximise,
                ptr, gorder, gend, blockend, alive, D):
    """Widths ``a .. b-1`` read against the best ``(top, chosen)`` so far; returns the new best."""
    j = 0
    while j < nm and MP[j] < uw[a]:
        j += 1
    for w in range(a, b):
        p = uw[w]
        while j < nm and MP[j] < p:
            j += 1
        h = head[w]
        if h < 0:
            continue
        c = MC[j] if j < nm else _INF
        key = c + hv[w]
        if chosen >= 0 and (key < top if maximise else key > top):
            continue  # cannot win: its row does not matter
        row = h
        if after[w] >= 0 and c + AD[w, 0] == key:  # a rounding tie further down the width
            row = _tie_row(np.full((1, 1), c), w, key, 0, ptr, gorder, gend, blockend, alive, D, 1)
        if chosen < 0 or (key > top if maximise else key < top) or (key == top and row < chosen):
            chosen = row
            top = key
    return top, chosen


@njit(cache=True, inline="always")
def _bounds(nb, W, uw, MP, MC, nm, bext, bound, maximise):
    """Each block's bound on its keys (``nan``: no alive row); returns the block with the best bound."""
    j = 0
    best = -1
    for blk in range(nb):
        a = blk * BLOCK
        b = min(a + BLOCK, W)
        e = bext[blk]
        p = uw[b - 1] if maximise else uw[a]
        while j < nm and MP[j] < p:
            j += 1
        if e == (-_INF if maximise else _INF):
            bound[blk] = np.nan
            continue
        c = MC[j] if j < nm else _INF
        v = c + e
        bound[blk] = v
        if best < 0 or (v > bound[best] if maximise else v < bound[best]):
            best = blk
    return best


@njit(cache=True)
def plan_event_widths(st, ch, gr):
    """:func:`heuristics.grid.fastevent.plan_event_grouped` when every cluster plans a job for the same
    duration and the groups are the widths (``gr`` from :func:`heuristics.grid.realloc._comparable_groups`
    on such clusters): the same choices and reservations, by blocks of widths (see the module notes)."""
    n, K = st.D.shape
    uw, rw, gorder, gstart, gend, blockend = gr
    D, T, F, rows, lower, totals = st.D, st.T, st.F, st.rows, st.lower, st.total
    W = uw.size
    maximise = ch.maximise
    alive = np.ones(n, dtype=np.bool_)
    ptr = gstart.copy()
    head = np.empty(W, dtype=np.int64)
    after = np.empty(W, dtype=np.int64)
    HD = np.empty((W, K))
    AD = np.empty((W, K))
    hv = np.empty(W)
    empty = -_INF if maximise else _INF
    for w in range(W):
        _cache_head(w, ptr, gorder, gend, blockend, alive, D, head, after, HD, AD, K)
        hv[w] = HD[w, 0] if head[w] >= 0 else empty
    nb = (W + BLOCK - 1) // BLOCK
    bext = np.empty(nb)
    for blk in range(nb):
        bext[blk] = _block_extreme(hv, blk * BLOCK, min(blk * BLOCK + BLOCK, W), maximise)
    bound = np.empty(nb)
    room = T.shape[1]
    SP = np.empty((K, room), dtype=np.int64)
    SC = np.empty((K, room))
    ns = np.empty(K, dtype=np.int64)
    for k in range(K):
        ns[k] = _steps(T, F, rows, lower, totals, k, SP, SC)
    MP = np.empty(K * room, dtype=np.int64)
    MC = np.empty(K * room)
    at = np.empty(K, dtype=np.int64)
    nm = _merge(SP, SC, ns, MP, MC, at)
    E = np.empty(K)
    for _ in range(n):
        first = _bounds(nb, W, uw, MP, MC, nm, bext, bound, maximise)
        a = first * BLOCK
        top, chosen = _scan_block(a, min(a + BLOCK, W), uw, MP, MC, nm, hv, head, after, AD, 0.0, -1, maximise,
                                  ptr, gorder, gend, blockend, alive, D)
        for blk in range(nb):
            v = bound[blk]
            if blk == first or v != v or (v < top if maximise else v > top):
                continue
            a = blk * BLOCK
            top, chosen = _scan_block(a, min(a + BLOCK, W), uw, MP, MC, nm, hv, head, after, AD, top, chosen,
                                      maximise, ptr, gorder, gend, blockend, alive, D)
        i = chosen
        alive[i] = False
        w = rw[i]
        _cache_head(w, ptr, gorder, gend, blockend, alive, D, head, after, HD, AD, K)
        hv[w] = HD[w, 0] if head[w] >= 0 else empty
        blk = w // BLOCK
        bext[blk] = _block_extreme(hv, blk * BLOCK, min(blk * BLOCK + BLOCK, W), maximise)
        p = uw[w]
        for k in range(K):
            E[k] = _step_value(SP[k], SC[k], ns[k], p) + D[i, k]
        b = _destination(ch, E, i)
        reserve_on(st, i, b)
        ns[b] = _steps(T, F, rows, lower, totals, b, SP, SC)
        nm = _merge(SP, SC, ns, MP, MC, at)
