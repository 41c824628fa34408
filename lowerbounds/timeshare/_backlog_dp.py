"""Compiled dynamic programme of the sumflow backlog bound (:func:`lowerbounds.timeshare.pairs.sumflow_backlog_bound`).

The pair programme (:mod:`lowerbounds.timeshare._pairs_dp`) with, in the state, a lower bound on the work left on
each *tracked* server (``W``, the work-conserving recursion of the tasks placed so far), kept in buckets of width
``step``. A step adds task ``t`` on server ``s`` at the cost ``d_ts + 2 max(A, B, C)``:

* ``A`` = ``Σ u`` over the window's tasks on ``s`` (the pair programme's term);
* ``R`` = the work left, when ``t`` joins, of every earlier task on ``s`` (``W`` at the previous reference date minus
  the time elapsed since); ``B`` = :func:`far` ``(R)``;
* ``C`` = ``A + far(R - Σ p`` of the window's tasks on ``s)``.

Each of ``A``, ``B``, ``C`` is a lower bound on the service that ``t`` and the earlier tasks on ``s`` share (the
validity argument is in :mod:`lowerbounds.timeshare.pairs`). States of one window whose ``W`` fall in one bucket are
merged into one with the least value and, per server, the least ``W``: the cost of the steps that follow never
decreases with ``W``, so the merged state is a relaxation of each of them. Each tracked server has its own bucket
edges (a slow server's work left is counted in wider buckets than a fast one's), and the window may be empty
(``window = 0``: the state is the buckets alone, every cost is ``d_ts + 2 B``).

A state is not expanded when the nearest live state of its window below it on one tracked server (the buckets in between
dead) has a value and works left no larger (:func:`_dominated`; docs/bounds.md, "Dominated states"): its successors are
never below that state's, and about half the states of a run with every server tracked go, which is most of its cost.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.timeshare._pairs_dp import _slowdowns, window_sums
from vcsched.jit import njit
from vcsched.jitclock import clock

__all__ = ["backlog_bound_compiled", "bucket_tables", "far"]


@njit(cache=True)
def far(R, P, q):  # pragma: no cover - compiled
    """Least ``Σ_j min(r_j, q)`` over works left ``0 <= r_j <= P`` with ``Σ_j r_j = R`` (any number of tasks).

    ``min(., q)`` is concave, so the least sum is at a vertex of the polytope: every ``r_j`` at 0 or ``P`` but one,
    that is ``floor(R / P)`` tasks of ``P`` and one of the rest."""
    if R <= 0.0:
        return 0.0
    k = np.floor(R / P)
    return k * min(P, q) + min(R - k * P, q)


@njit(cache=True)
def _coarse_bucket(w, edges, sizes, m):  # pragma: no cover - compiled
    """The bucket of work left ``w`` above tracked server ``m``'s fine range: the last of its edges at or below ``w``
    (a scan down from the last: there are a few). Below the fine range's top ``tops[m]`` the bucket is
    ``int(w / widths[m])``, written where it is used (a call per state costs more than the rule)."""
    k = sizes[m] - 1
    while k > 0 and edges[m, k] > w:
        k -= 1
    return k


@njit(cache=True)
def _dominated(vr, state, b, place, sizes):  # pragma: no cover - compiled
    """Is state ``b`` of window ``state`` dominated by the nearest live state below it on one tracked server (the
    same buckets on the others, a value and works left no larger on every server)? Its successors are then never
    below that state's, which stands for it (the order of the buckets makes the relation acyclic, so a chain of
    dominated states ends at one kept)."""
    T = place.size
    for m in range(T):
        j = b
        for _ in range((b // place[m]) % sizes[m]):  # the nearest live state below on server ``m``
            j -= place[m]
            if vr[state, j, 0] < np.inf:
                break
        if j == b or vr[state, j, 0] > vr[state, b, 0]:
            continue
        below = True
        for mm in range(T):
            if vr[state, j, 1 + mm] > vr[state, b, 1 + mm]:
                below = False
                break
        if below:
            return True
    return False


@njit(cache=True)
def _step(vr, u, t, K, S, edges, sizes, widths, tops, join, p, dur, theta, tracked, cap,
          live0, prune):  # pragma: no cover - compiled
    """The states after adding task ``t``: state ``window * NB + bucket`` (the buckets of the ``T`` tracked servers,
    the first the most significant; ``NB`` the product of their counts ``sizes``). ``vr[window, bucket]`` holds the
    state's value, then its least work left on each tracked server (one row: a successor touches one place of
    memory). With ``prune``, the states :func:`_dominated` finds are not expanded."""
    T = tracked.size
    NB = vr.shape[1]
    SK = vr.shape[0]
    SK1 = SK // S if K > 0 else 1
    new = np.full(vr.shape, np.inf)
    digits = np.zeros(K, dtype=np.int64)
    masks = np.zeros(S, dtype=np.int64)
    acc = np.zeros(S)
    win = np.zeros(S)
    decayed = np.zeros(T)
    digit = np.zeros(T, dtype=np.int64)
    place = np.ones(T, dtype=np.int64)  # of each tracked server's bucket in the state's bucket number
    for m in range(T - 2, -1, -1):
        place[m] = place[m + 1] * sizes[m + 1]
    lab = np.full(S, -1, dtype=np.int64)
    for m in range(T):
        lab[tracked[m]] = m
    gap = theta[t] - theta[t - 1] if t >= 1 else 0.0
    added = np.zeros(S)  # the work task ``t`` has left at ``theta[t]`` on each server
    for s in range(S):
        added[s] = max(p[t, s] - (theta[t] - join[t, s]), 0.0)
    for state in range(SK):
        rem = state
        for k in range(K - 1, -1, -1):
            digits[k] = rem % S
            rem //= S
        filled = False
        for b in range(NB):
            if vr[state, b, 0] == np.inf or (prune and _dominated(vr, state, b, place, sizes)):
                continue
            if not filled:
                filled = True
                window_sums(digits, live0, K, u, masks, acc)
                for s in range(S):
                    win[s] = 0.0
                for k in range(live0, K):
                    win[digits[k]] += p[t - K + k, digits[k]]
            base = vr[state, b, 0]
            rest = (state - digits[0] * SK1) * S if K > 0 else 0
            nb0 = 0  # the bucket number of the earlier tasks' work left at ``theta[t]`` (the new task's added below)
            for mm in range(T):
                decayed[mm] = max(vr[state, b, 1 + mm] - gap, 0.0)
                w = decayed[mm]
                digit[mm] = int(w / widths[mm]) if w < tops[mm] else _coarse_bucket(w, edges, sizes, mm)
                nb0 += digit[mm] * place[mm]
            for s in range(S):
                extra = acc[s]
                m = lab[s]
                if m >= 0 and t >= 1 and join[t, s] >= theta[t - 1]:
                    R = max(vr[state, b, 1 + m] - (join[t, s] - theta[t - 1]), 0.0)
                    B = far(R, cap[m], p[t, s])  # with an empty window, C = B
                    extra = max(extra, B, acc[s] + far(R - win[s], cap[m], p[t, s]) if K > 0 else B)
                c = base + dur[t, s] + 2.0 * extra
                nb = nb0
                if m >= 0:
                    w = decayed[m] + added[s]
                    nb += ((int(w / widths[m]) if w < tops[m] else _coarse_bucket(w, edges, sizes, m)) - digit[m]) * place[m]
                ns = rest + s if K > 0 else 0
                if c < new[ns, nb, 0]:
                    new[ns, nb, 0] = c
                for mm in range(T):
                    w = decayed[mm] + added[s] if mm == m else decayed[mm]
                    if w < new[ns, nb, 1 + mm]:
                        new[ns, nb, 1 + mm] = w
    return new


def bucket_tables(edges) -> tuple:
    """``(edges, sizes, widths, tops)`` of the tracked servers' bucket edges (one array per server), for the compiled
    steps: the edges padded into rows, their counts, the width of the first buckets and the top of the range where the
    bucket is ``int(w / width)`` (the buckets of equal width at the start)."""
    sizes = np.array([e.size for e in edges], dtype=np.int64)
    table = np.full((len(edges), max(int(sizes.max(initial=1)), 1)), np.inf)
    widths, tops = np.ones(len(edges)), np.zeros(len(edges))
    for m, e in enumerate(edges):
        table[m, :e.size] = e
        G = e.size
        widths[m] = e[1] - e[0] if G > 1 else 1.0
        fine = 1
        while fine < G and abs(e[fine] - fine * widths[m]) <= 1e-9 * (1.0 + e[fine]):
            fine += 1
        tops[m] = e[fine - 1] if fine < G else e[G - 1] + widths[m]
    return table, sizes, widths, tops


def backlog_bound_compiled(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray, window: int,
                           tracked, edges, *, deadline: float | None = None, prune: bool = True) -> float | None:
    """:func:`lowerbounds.timeshare.pairs.sumflow_backlog_bound` by the compiled steps, or ``None`` when ``deadline``
    (a :func:`vcsched.jitclock.clock` date) passes before the last task. ``edges``: one array of bucket edges for
    every tracked server, or one per tracked server; ``window`` may be 0. ``prune`` (default): dominated states are
    not expanded (module docstring); both ways the value is a lower bound."""
    n, S = p.shape
    if n == 0:
        return 0.0
    K = max(0, min(int(window), n - 1 if n > 1 else 1))
    tracked = np.asarray(tracked, dtype=np.int64)
    order = np.argsort(arrival, kind="stable")
    join = np.ascontiguousarray((arrival[:, None] + inp)[order])
    pp = np.ascontiguousarray(p[order], dtype=float)
    dur = np.ascontiguousarray((inp + out)[order] + pp)
    theta = (np.maximum.accumulate(join[:, tracked].max(axis=1)) if tracked.size
             else np.zeros(n))  # every task's join on every tracked server is <= theta of its step
    cap = np.array([pp[:, s].max() for s in tracked.tolist()], dtype=float)
    if not tracked.size:
        per_server = [np.zeros(1)]
    elif np.ndim(edges[0]) == 0:
        per_server = [np.asarray(edges, dtype=float)] * tracked.size
    else:
        per_server = [np.asarray(e, dtype=float) for e in edges]
    table, sizes, widths, tops = bucket_tables(per_server)
    NB = int(np.prod(sizes[:tracked.size])) if tracked.size else 1
    vr = np.full((S ** K, NB, 1 + tracked.size), np.inf)
    vr[:, 0, :] = 0.0
    for t in range(n):
        if deadline is not None and clock() > deadline:
            return None
        u = _slowdowns(join, pp, t, K, True)
        vr = _step(vr, u, t, K, S, table, sizes, widths, tops, join, pp, dur, theta, tracked, cap, max(K - t, 0),
                   prune)
    return float(vr[:, :, 0].min())
