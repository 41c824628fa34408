"""The pricing problem of the configuration LP: a 2-D bounded knapsack solved by branch and bound.

Seed 001 §2.5/§3.1 through :func:`lowerbounds.vc.packing.configuration_lp`:
with duals ``pi >= 0`` on the item types, the best configuration of a bin
``(L, 1)`` solves::

    max  sum_i pi_i a_i   s.t.  sum_i cpu_i a_i <= L,  sum_i mem_i a_i <= 1,
         a_i in {0, 1, ..., d_i}

:func:`knapsack_2d` solves it by depth-first branch and bound (compiled with
numba), the classical scheme of Horowitz and Sahni / Martello and Toth
extended to two dimensions by a *surrogate relaxation*: for a multiplier
``mu`` in ``[0, 1]`` the two constraints are replaced by their combination
``mu cpu_i / L + (1 - mu) mem_i <= 1``, which every feasible configuration
satisfies, so the fractional (Dantzig) bound of that 1-D knapsack is an upper
bound on the 2-D optimum. ``mu`` is the one of a small grid with the least
root bound; the items are explored in decreasing ``pi_i`` per surrogate size
(the order of the Dantzig bound), each node's bound is the value fixed so far
plus the fractional bound of the items after it that still fit both
remaining capacities on their own (an item that cannot fit is never added in
the subtree, so skipping it keeps the bound valid).

Bound returned. When the search ends within its node limit, ``bound`` is the
best value found plus the pruning tolerance (``1e-12``): the optimum. When it
stops at the limit, the subtrees not explored are each bounded at their root
and ``bound`` is the largest of these and the best value: still a valid upper
bound on the optimum (the caller's Farley bound stays a proof), only weaker.

Safe direction. The caller passes capacities already enlarged (the proofs'
``1 + CAP_TOL``); copies fit when their sizes add up to at most the
remaining capacity plus ``1e-12`` in each dimension (the checker's memory
tolerance), and every bound adds ``1e-9`` to its surrogate room, so the
bound holds for these slightly fuller configurations too: it can only rise.

Reference: E. Horowitz, S. Sahni. Computing partitions with applications to
the knapsack problem. JACM 21 (1974); S. Martello, P. Toth. Knapsack
Problems, Wiley (1990), §2.5 (branch and bound) and §5.2 (surrogate bounds of
multi-constraint knapsacks).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["KnapsackSolution", "knapsack_2d", "surrogate_multiplier", "branch_and_bound"]


PRUNE_TOL = 1e-12
"""A subtree is pruned when its bound is at most the best value plus this."""
_ROOM_TOL = 1e-9
"""Added to the surrogate room of every bound: copies fit with a tolerance of ``1e-12`` of a bin
in each dimension, so a configuration may exceed the surrogate room by as much."""

_MU_GRID = np.linspace(0.0, 1.0, 11)
_MU_GRID_LARGE = np.linspace(0.0, 1.0, 3)
_LARGE = 5000
"""Above this many candidate items, the multiplier is chosen among three values (the sorts cost)."""


@dataclasses.dataclass(frozen=True)
class KnapsackSolution:
    """Outcome of :func:`knapsack_2d` and of :func:`lowerbounds.vector.knapsack.knapsack_nd`.

    ``value``: the best configuration's value; ``counts``: its copies per item
    (dense, the caller's indexing); ``bound``: a proven upper bound on the
    optimum (``value + PRUNE_TOL`` when ``exhausted``); ``found``: the
    improving configurations met during the search, best last (sparse
    ``(indices, counts)``), the last one being ``counts``; ``nodes``: nodes
    explored.
    """

    value: float
    counts: np.ndarray
    bound: float
    exhausted: bool
    nodes: int
    found: tuple


@njit(cache=True)
def _dantzig(k, s, p, u, a, r, room):
    """Fractional bound of items ``k..`` (sorted by ``p / s``) with surrogate room ``room``,
    skipping those that do not fit the remaining capacities ``r`` alone."""
    b = 0.0
    n, d = a.shape
    for i in range(k, n):
        fits = True
        for j in range(d):
            if a[i, j] > r[j] + 1e-12:
                fits = False
                break
        if not fits:
            continue
        if s[i] * u[i] <= room:
            room -= s[i] * u[i]
            b += p[i] * u[i]
        else:
            b += p[i] * room / s[i]
            break
    return b


@njit(cache=True)
def _fit_count(k, u, a, r):
    m = float(u[k])  # in floats (np.floor keeps them): a tiny size would overflow an integer
    for j in range(a.shape[1]):
        if a[k, j] > 0:
            m = min(m, np.floor((r[j] + 1e-12) / a[k, j]))
    return int(max(m, 0.0))


@njit(cache=True)
def _weighted(v, w):
    """``sum_j w_j v_j`` summed in order (for ``d = 2``, exactly ``w_0 v_0 + w_1 v_1``)."""
    t = 0.0
    for j in range(w.size):
        t += w[j] * v[j]
    return t


@njit(cache=True)
def branch_and_bound(p, a, u, w, node_limit, n_record):
    """Depth-first branch and bound over the items in the given order, sizes ``a`` (n x d) over
    capacities 1, surrogate weights ``w`` (the node bound is the Dantzig bound of
    ``sum_j w_j a_ij x_i <= sum_j w_j r_j``). Shared by :func:`knapsack_2d` and
    :func:`lowerbounds.vector.knapsack.knapsack_nd`.

    Returns (best value, best counts, nodes, exhausted, largest bound of an unexplored subtree,
    recorded improving solutions (rows), how many were recorded)."""
    n, d = a.shape
    s = np.empty(n)
    for i in range(n):
        s[i] = _weighted(a[i], w)
    x = np.zeros(n, np.int64)
    best_x = np.zeros(n, np.int64)
    record = np.zeros((n_record, n), np.int64)
    n_found = 0
    best, nodes, exhausted, open_bound = 0.0, 0, True, 0.0
    cnt = np.full(n + 1, -1, np.int64)  # copies of item k in the current branch (-1: level not entered)
    r = np.ones(d)
    val = 0.0
    k = 0
    while k >= 0:
        if k == n:
            if val > best + PRUNE_TOL:
                best = val
                best_x[:] = x
                record[n_found % n_record, :] = x
                n_found += 1
            k -= 1
            continue
        if cnt[k] == -1:  # entering the subtree of level k
            nodes += 1
            bound = val + _dantzig(k, s, p, u, a, r, _weighted(r, w) + _ROOM_TOL)
            if nodes > node_limit:  # out of nodes: bound the subtree at its root and leave it
                exhausted = False
                open_bound = max(open_bound, bound)
                k -= 1
                continue
            if bound <= best + PRUNE_TOL:
                k -= 1
                continue
            m = _fit_count(k, u, a, r)
            cnt[k] = m
            x[k] = m
            for j in range(d):
                r[j] -= m * a[k, j]
            val += m * p[k]
            k += 1
            cnt[k] = -1
            continue
        if cnt[k] > 0:  # back at level k: one copy fewer, next subtree
            cnt[k] -= 1
            x[k] -= 1
            for j in range(d):
                r[j] += a[k, j]
            val -= p[k]
            k += 1
            cnt[k] = -1
            continue
        cnt[k] = -1
        k -= 1
    return best, best_x, nodes, exhausted, open_bound, record, n_found


def surrogate_multiplier(p: np.ndarray, a1: np.ndarray, a2: np.ndarray, u: np.ndarray) -> float:
    """The ``mu`` of a grid whose surrogate fractional bound (capacities 1) is least."""
    grid = _MU_GRID if p.size <= _LARGE else _MU_GRID_LARGE
    best_mu, best = 0.0, math.inf
    for mu in grid:
        s = np.maximum(mu * a1 + (1.0 - mu) * a2, 1e-300)
        order = np.argsort(-p / s, kind="stable")
        weight = np.cumsum(s[order] * u[order])
        full = int(np.searchsorted(weight, 1.0, side="right"))
        b = float(p[order[:full]] @ u[order[:full]])
        if full < order.size:
            room = 1.0 - (weight[full - 1] if full else 0.0)
            b += p[order[full]] * room / s[order[full]]
        if b < best:
            best, best_mu = b, float(mu)
    return best_mu


def knapsack_2d(p: np.ndarray, a1: np.ndarray, a2: np.ndarray, u: np.ndarray, *, node_limit: int = 200_000,
                record: int = 8) -> KnapsackSolution:
    """``max p a`` s.t. ``a1 a <= 1``, ``a2 a <= 1``, ``0 <= a <= u`` integer (sizes already divided
    by the capacities); items with ``p <= 0`` or that cannot fit alone are left out.

    ``O(nodes x n)`` time at worst (each node's bound scans the items after it, stopping once the
    surrogate room is used), ``O(record x n)`` memory."""
    n = p.size
    counts = np.zeros(n, dtype=np.int64)
    cand = np.flatnonzero((p > 0) & (a1 <= 1 + 1e-12) & (a2 <= 1 + 1e-12) & (u > 0))
    if cand.size == 0:
        return KnapsackSolution(0.0, counts, 0.0, True, 0, ())
    pp, b1, b2 = p[cand].astype(float), a1[cand].astype(float), a2[cand].astype(float)
    uu = u[cand].astype(np.int64)
    mu = surrogate_multiplier(pp, b1, b2, uu)
    order = np.argsort(-pp / np.maximum(mu * b1 + (1.0 - mu) * b2, 1e-300), kind="stable")
    idx = cand[order]
    a = np.ascontiguousarray(np.column_stack((b1[order], b2[order])))
    w = np.array([mu, 1.0 - mu])
    best, best_x, nodes, exhausted, open_bound, rec, n_found = branch_and_bound(
        pp[order], a, uu[order], w, node_limit, max(record, 1))
    counts[idx] = best_x
    kept = min(n_found, rec.shape[0])
    rows = [(n_found - kept + j) % rec.shape[0] for j in range(kept)]  # oldest first, best last
    found = tuple((idx[np.flatnonzero(rec[r])], rec[r][rec[r] > 0].astype(float)) for r in rows)
    bound = best + PRUNE_TOL if exhausted else max(best + PRUNE_TOL, open_bound)
    return KnapsackSolution(float(best), counts, float(bound), bool(exhausted), int(nodes), found)
