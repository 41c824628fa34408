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
decreases with ``W``, so the merged state is a relaxation of each of them.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.timeshare._pairs_dp import _slowdowns, window_sums
from vcsched.jit import njit
from vcsched.jitclock import clock

__all__ = ["backlog_bound_compiled", "far"]


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
def _step(value, rep, u, t, K, S, G, edges, join, p, dur, theta, tracked, cap, live0):  # pragma: no cover - compiled
    """The values after adding task ``t``: state ``window * G^T + bucket`` (``T`` tracked servers, ``G`` buckets each)."""
    T = tracked.size
    NB = value.shape[1]
    SK = value.shape[0]
    SK1 = SK // S
    new = np.full(value.shape, np.inf)
    nrep = np.full(rep.shape, np.inf)
    digits = np.zeros(K, dtype=np.int64)
    masks = np.zeros(S, dtype=np.int64)
    acc = np.zeros(S)
    win = np.zeros(S)
    nw = np.zeros(T)
    lab = np.full(S, -1, dtype=np.int64)
    for m in range(T):
        lab[tracked[m]] = m
    gap = theta[t] - theta[t - 1] if t >= 1 else 0.0
    step = edges[1] - edges[0] if G > 1 else 1.0
    fine = 1
    while fine < G and abs(edges[fine] - fine * step) <= 1e-9 * (1.0 + edges[fine]):
        fine += 1
    top = edges[fine - 1] if fine < G else edges[G - 1] + step  # below it, the bucket is int(w / step)
    for state in range(SK):
        rem = state
        for k in range(K - 1, -1, -1):
            digits[k] = rem % S
            rem //= S
        filled = False
        for b in range(NB):
            if value[state, b] == np.inf:
                continue
            if not filled:
                filled = True
                window_sums(digits, live0, K, u, masks, acc)
                for s in range(S):
                    win[s] = 0.0
                for k in range(live0, K):
                    win[digits[k]] += p[t - K + k, digits[k]]
            base = value[state, b]
            rest = (state - digits[0] * SK1) * S
            for s in range(S):
                extra = acc[s]
                m = lab[s]
                if m >= 0 and t >= 1 and join[t, s] >= theta[t - 1]:
                    R = max(rep[state, b, m] - (join[t, s] - theta[t - 1]), 0.0)
                    extra = max(extra, far(R, cap[m], p[t, s]), acc[s] + far(R - win[s], cap[m], p[t, s]))
                c = base + dur[t, s] + 2.0 * extra
                nb = 0
                for mm in range(T):
                    w = max(rep[state, b, mm] - gap, 0.0)
                    if tracked[mm] == s:
                        w += max(p[t, s] - (theta[t] - join[t, s]), 0.0)
                    nw[mm] = w
                    nb = nb * G + (int(w / step) if w < top else max(np.searchsorted(edges, w, side="right") - 1, 0))
                ns = rest + s
                if c < new[ns, nb]:
                    new[ns, nb] = c
                for mm in range(T):
                    if nw[mm] < nrep[ns, nb, mm]:
                        nrep[ns, nb, mm] = nw[mm]
    return new, nrep


def backlog_bound_compiled(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray, window: int,
                           tracked, edges, *, deadline: float | None = None) -> float | None:
    """:func:`lowerbounds.timeshare.pairs.sumflow_backlog_bound` by the compiled steps, or ``None`` when ``deadline``
    (a :func:`vcsched.jitclock.clock` date) passes before the last task."""
    n, S = p.shape
    if n == 0:
        return 0.0
    K = max(1, min(int(window), n - 1 if n > 1 else 1))
    tracked = np.asarray(tracked, dtype=np.int64)
    order = np.argsort(arrival, kind="stable")
    join = np.ascontiguousarray((arrival[:, None] + inp)[order])
    pp = np.ascontiguousarray(p[order], dtype=float)
    dur = np.ascontiguousarray((inp + out)[order] + pp)
    theta = (np.maximum.accumulate(join[:, tracked].max(axis=1)) if tracked.size
             else np.zeros(n))  # every task's join on every tracked server is <= theta of its step
    cap = np.array([pp[:, s].max() for s in tracked.tolist()], dtype=float)
    edges = np.asarray(edges, dtype=float) if tracked.size else np.zeros(1)
    G = edges.size
    value = np.full((S ** K, G ** tracked.size), np.inf)
    value[:, 0] = 0.0
    rep = np.zeros((S ** K, G ** tracked.size, tracked.size))
    for t in range(n):
        if deadline is not None and clock() > deadline:
            return None
        u = _slowdowns(join, pp, t, K, True)
        value, rep = _step(value, rep, u, t, K, S, G, edges, join, pp, dur, theta, tracked, cap,
                           max(K - t, 0))
    return float(value.min())
