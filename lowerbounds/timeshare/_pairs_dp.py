"""Compiled dynamic programme of the sumflow pair bound (:func:`lowerbounds.timeshare.pairs.sumflow_pair_bound`).

The same bound, step for step: tasks in arrival order, the state is the servers of the last ``K`` tasks (slot 0
the oldest, the most significant digit in base ``S``), and a step adds task ``t`` on server ``s`` at the cost
``d_ts + 2 Σ u`` over the window tasks on ``s``, where ``u`` is the slow-down the pair shares (the pair property
of :mod:`lowerbounds.timeshare.pairs`) with, when ``shared``, the earlier task's work left taken from processor
sharing among the window's tasks on ``s``. Here the state is never materialised with its ``S`` successors, so the
window can grow to ``S^K`` of about four million states; the plain version (NumPy) stays the reference it is
tested against. :func:`pair_bound_compiled` runs one compiled step per task and gives up (``None``) when a
``deadline`` passes, so a caller keeps its previous bound.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.timeshare._ps import next_finish
from vcsched.jit import njit
from vcsched.jitclock import clock

__all__ = ["pair_bound_compiled"]


@njit(cache=True)
def _work_left(start, work, until):  # pragma: no cover - compiled
    """Work left at ``until`` of tasks sharing one server from ``start`` (processor sharing among them alone;
    a task joining at ``until`` or later keeps its work, one ending at ``until`` has none)."""
    m = start.size
    left = work.copy()
    order = np.argsort(start, kind="mergesort")
    tag = np.zeros(m)
    done = np.zeros(m, dtype=np.bool_)
    active = np.empty(m, dtype=np.int64)
    n = 0
    nxt = 0
    t = start[order[0]]
    v = 0.0
    while True:
        tj = start[order[nxt]] if nxt < m and start[order[nxt]] <= until else until
        while n > 0:
            best, i, end = next_finish(tag, active, n, t, v)
            if end > tj:
                break
            t, v = end, tag[i]
            done[i] = True
            n -= 1
            active[best] = active[n]
        if n > 0:
            v += (tj - t) / n
        t = tj
        if nxt < m and start[order[nxt]] <= until:
            i = order[nxt]
            tag[i] = v + work[i]
            active[n] = i
            n += 1
            nxt += 1
        else:
            break
    for a in range(n):
        i = active[a]
        left[i] = max(tag[i] - v, 0.0)
    for i in range(m):
        if done[i]:
            left[i] = 0.0
    return left


@njit(cache=True)
def _slowdowns(join, p, t, K, shared):  # pragma: no cover - compiled
    """``u[s, mask, k]`` of :func:`lowerbounds.timeshare.pairs._window_slowdowns` for task ``t`` and its window."""
    S = p.shape[1]
    u = np.zeros((S, 1 << K, K))
    for s in range(S):
        jl = join[t, s]
        for k in range(K):
            j = t - K + k
            if j < 0:
                continue
            je = join[j, s]
            if je <= jl:
                alone = min(max(p[j, s] - (jl - je), 0.0), p[t, s])
            else:
                alone = min(max(p[t, s] - (je - jl), 0.0), p[j, s])
            for mask in range(1 << K):
                u[s, mask, k] = alone
        if not shared:
            continue
        for mask in range(1, 1 << K):
            members = np.empty(K, dtype=np.int64)
            c = 0
            for k in range(K):
                if (mask >> k) & 1 and t - K + k >= 0:
                    members[c] = k
                    c += 1
            if c < 2:
                continue
            idx = members[:c] + (t - K)
            left = _work_left(join[idx, s], p[idx, s], jl)
            for a in range(c):
                k = members[a]
                if join[idx[a], s] <= jl:
                    u[s, mask, k] = max(u[s, mask, k], min(left[a], p[t, s]))
    return u


@njit(cache=True)
def window_sums(digits, live0, K, u, masks, acc):  # pragma: no cover - compiled
    """For the state ``digits`` (the server of each of the ``K`` recent tasks), filled in place per server ``s``: the
    mask of its live tasks (from ``live0``) in ``masks[s]`` and the sum of their unary terms ``u[s, mask, k]`` in
    ``acc[s]``."""
    for s in range(masks.size):
        masks[s] = 0
        acc[s] = 0.0
    for k in range(live0, K):
        masks[digits[k]] |= 1 << k
    for k in range(live0, K):
        d = digits[k]
        acc[d] += u[d, masks[d], k]


@njit(cache=True)
def _step(value, u, dur_t, K, live0):  # pragma: no cover - compiled
    """The values after adding one task: ``new[rest * S + s] = min over the oldest slot of value + cost``."""
    S = dur_t.size
    SK = value.size
    SK1 = SK // S
    new = np.full(SK, np.inf)
    digits = np.zeros(K, dtype=np.int64)  # of ``state``, advanced like an odometer (no division per state)
    masks = np.zeros(S, dtype=np.int64)
    acc = np.zeros(S)
    for state in range(SK):
        if state:
            k = K - 1
            digits[k] += 1
            while digits[k] == S:
                digits[k] = 0
                k -= 1
                digits[k] += 1
        window_sums(digits, live0, K, u, masks, acc)
        base = value[state]
        rest = (state - digits[0] * SK1) * S  # the state without its oldest slot, shifted
        for s in range(S):
            c = base + dur_t[s] + 2.0 * acc[s]
            if c < new[rest + s]:
                new[rest + s] = c
    return new


def pair_bound_compiled(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray, window: int, *,
                        shared: bool = True, deadline: float | None = None) -> float | None:
    """:func:`lowerbounds.timeshare.pairs.sumflow_pair_bound` with ``window`` (``K``) by the compiled steps, or
    ``None`` when ``deadline`` (a :func:`vcsched.jitclock.clock` date) passes before the last task."""
    n, S = p.shape
    if n == 0:
        return 0.0
    K = max(1, min(int(window), n - 1 if n > 1 else 1))
    order = np.argsort(arrival, kind="stable")
    join = np.ascontiguousarray((arrival[:, None] + inp)[order])
    pp = np.ascontiguousarray(p[order], dtype=float)
    dur = np.ascontiguousarray((inp + out)[order] + pp)
    value = np.zeros(S ** K)
    for t in range(n):
        if deadline is not None and clock() > deadline:
            return None
        u = _slowdowns(join, pp, t, K, shared)
        value = _step(value, u, dur[t], K, max(K - t, 0))
    return float(value.min())
