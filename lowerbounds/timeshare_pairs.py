"""A sumflow bound specific to processor sharing: pairwise slow-downs, minimised over mappings by dynamic programming.

The preemptive relaxation (:mod:`lowerbounds.timeshare_lp`) lets a server run one task at a time at
full speed, which shortest-remaining-time-first exploits: two equal tasks arriving together then
have flows ``p`` and ``2p`` where processor sharing gives ``2p`` and ``2p``. This bound keeps the
sharing.

**Pair property.** Let tasks ``e`` and ``l`` share server ``s``, ``e`` joining the computation first
(at ``r_e <= r_l``, the end of its input transfer). Alone with ``e``, ``l`` would find ``e`` with
``R = max(p_e - (r_l - r_e), 0)`` work left; with other tasks on the server, ``e`` has received at
most ``r_l - r_e`` seconds of service by then, so it has at least ``R`` left. While both compute,
processor sharing gives them the same service, until one ends; so each receives at least
``u_el = min(R, p_l)`` while the other is present. A task's computation lasts at least the CPU time
the server spends during it: its own ``p_i`` plus, for every other task ``j`` on the server, the
service ``j`` receives while ``i`` is present. Hence, for any mapping,

    flow_i >= d_is + Σ_{j on s, j != i} u_ij^s        (d_is: unloaded duration, u_ij = u_ji)

and ``sumflow >= Σ_i d_{i,s(i)} + 2 Σ_{i<j, s(i)=s(j)} u_ij^{s(i)}``. With all tasks arriving together
this is processor sharing's sumflow exactly (``Σ p + 2 Σ_{i<j} min(p_i, p_j)``).

**Minimum over mappings.** The right side is a sum of a per-task cost and pairwise costs. Dropping
the pairs more than ``K`` tasks apart in arrival order (the terms are >= 0) leaves a chain, which a
dynamic programme over the tasks in arrival order minimises exactly, with the servers of the last
``K`` tasks as its state (``S^K`` states). The result is a lower bound on every mapping's sumflow.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pair_slowdowns", "sumflow_pair_bound", "window_for", "max_pair_bound"]

STATE_LIMIT = 1 << 15
"""Most entries of one step of the dynamic programme (``S^(K+1)``)."""


def window_for(servers: int, n: int) -> int:
    """The largest ``K <= min(n - 1, 10)`` with ``servers^(K+1) <= STATE_LIMIT`` (at least 1)."""
    k = 1
    while k + 1 <= min(n - 1, 10) and servers ** (k + 2) <= STATE_LIMIT:
        k += 1
    return k


def pair_slowdowns(join: np.ndarray, p: np.ndarray, earlier: np.ndarray, later: int) -> np.ndarray:
    """``u`` between task ``later`` and each of ``earlier`` on every server, shape (len(earlier), S).

    ``join``, ``p``: (n, S) computation start (alone) and computation time.
    """
    je, jl = join[earlier], join[later][None, :]
    pe, pl = p[earlier], p[later][None, :]
    first_e = je <= jl
    r_first = np.where(first_e, je, jl)
    r_second = np.where(first_e, jl, je)
    p_first = np.where(first_e, pe, pl)
    p_second = np.where(first_e, pl, pe)
    left = np.maximum(p_first - (r_second - r_first), 0.0)
    return np.minimum(left, p_second)


def sumflow_pair_bound(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray, *,
                       window: int | None = None) -> float:
    """``min over mappings of Σ_i d_{i,s(i)} + 2 Σ u_ij`` over pairs at most ``window`` apart in arrival order.

    Parameters
    ----------
    arrival : ndarray (n,)
        Arrival dates of independent tasks.
    inp, p, out : ndarray (n, S)
        Input, computation and output times per task and server.
    window : int, optional
        ``K``; default :func:`window_for`.
    """
    n, S = p.shape
    if n == 0:
        return 0.0
    order = np.argsort(arrival, kind="stable")
    join = (arrival[:, None] + inp)[order]
    p = p[order]
    dur = (inp + out)[order] + p
    K = window_for(S, n) if window is None else max(1, min(int(window), n - 1 if n > 1 else 1))
    value = np.zeros((S,) * K)  # axes: the servers of the last K tasks (the oldest first); none yet
    eye = np.eye(S)
    for t in range(n):
        cost = np.broadcast_to(dur[t], (S,) * (K + 1)).copy()
        first = max(0, t - K)
        if t > first:
            u = pair_slowdowns(join, p, np.arange(first, t), t)  # (t - first, S)
            for k in range(t - first):
                axis = K - (t - first) + k  # where task first + k sits in the state
                shape = [1] * (K + 1)
                shape[axis] = S
                shape[K] = S
                cost += (2.0 * eye * u[k][None, :]).reshape(shape)
        value = (value[..., None] + cost).min(axis=0)
    return float(value.min())


def max_pair_bound(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray,
                   den: np.ndarray | None = None, *, group: int | None = None) -> float:
    """Maxflow (or, with ``den``, maxstretch) >= ``max`` over groups of ``group`` consecutive tasks (in arrival
    order) of ``min`` over the group's mappings of ``max_i (d_{i,s(i)} + Σ_{j in group, s(j)=s(i)} u_ij) / den``.

    Validity: for any mapping, ``flow_i >= d_is + Σ_j u_ij`` over the tasks ``j`` sharing its server (module
    docstring); keeping only the group's pairs drops terms >= 0, and the group's own mapping is one of those
    the minimum ranges over. ``den`` is the stretch's denominator per task and server (the tables'
    duration). ``group`` defaults to the largest with ``S^group <= 1024`` (at most 6).
    """
    n, S = p.shape
    if n == 0:
        return 0.0
    if group is None:
        group = 1
        while group < 6 and S ** (group + 1) <= 1024:
            group += 1
    group = max(1, min(group, n))
    order = np.argsort(arrival, kind="stable")
    join = (arrival[:, None] + inp)[order]
    p = p[order]
    dur = (inp + out)[order] + p
    den = np.ones_like(p) if den is None else den[order]
    maps = np.array(np.unravel_index(np.arange(S ** group), (S,) * group)).T  # (S^group, group)
    same = maps[:, :, None] == maps[:, None, :]
    np.einsum("akk->ak", same)[:] = False
    rows = np.arange(group)
    best = 0.0
    for w in range(n - group + 1):
        tasks = np.arange(w, w + group)
        u = np.zeros((group, group, S))
        for k in range(1, group):
            u[:k, k] = pair_slowdowns(join, p, tasks[:k], tasks[k])
            u[k, :k] = u[:k, k]
        served = u[rows[None, :, None], rows[None, None, :], maps[:, :, None]]  # (maps, k, m): u on k's server
        flows = dur[tasks[None, :], maps] + (served * same).sum(axis=2)
        value = (flows / den[tasks[None, :], maps]).max(axis=1).min()
        best = max(best, float(value))
    return best
