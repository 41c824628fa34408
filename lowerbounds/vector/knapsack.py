"""The pricing problem of the d-dimensional configuration LP: a bounded knapsack in d dimensions.

With duals ``pi >= 0`` on the item types, the best configuration of a bin
``(1, ..., 1)`` (sizes normalised) solves::

    max  sum_i pi_i a_i   s.t.  sum_i A_ik a_i <= 1  (k = 1..d),   a_i in {0, ..., u_i}

:func:`knapsack_nd` generalises :func:`lowerbounds.vc.knapsack.knapsack_2d`
to ``d`` dimensions with the same search,
:func:`lowerbounds.vc.knapsack.branch_and_bound` (one implementation): a depth-first branch and
bound (Horowitz-Sahni / Martello-Toth) whose node bound is the fractional
(Dantzig) bound of a *surrogate relaxation* ``sum_k w_k A_ik a_i <= sum_k
w_k`` (any weights ``w >= 0`` summing to 1 give a valid bound: Martello and
Toth 1990, §5.2), restricted to the items after the node that still fit every
remaining capacity alone. ``w`` is the candidate with the least root bound
among: the uniform weights, each unit vector ``e_k``, and each ``(1/d +
e_k) / 2``. Items are explored in decreasing ``pi_i`` per surrogate size.

Bound returned: when the search ends within ``node_limit`` nodes, ``bound``
is the optimum plus ``1e-12``; otherwise the largest root bound of the
subtrees left, still an upper bound on the optimum (a Farley bound built
on it stays a proof). Copies fit when their sizes add up to at most the
remaining capacity plus ``1e-12`` in each dimension; every bound adds
``1e-9`` to its surrogate room, so it holds for these configurations too.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.vc.knapsack import PRUNE_TOL, KnapsackSolution, branch_and_bound

__all__ = ["knapsack_nd", "surrogate_weights"]


def _root_bound(p: np.ndarray, a: np.ndarray, u: np.ndarray, w: np.ndarray) -> float:
    s = np.maximum(a @ w, 1e-300)
    order = np.argsort(-p / s, kind="stable")
    weight = np.cumsum(s[order] * u[order])
    full = int(np.searchsorted(weight, 1.0, side="right"))
    b = float(p[order[:full]] @ u[order[:full]])
    if full < order.size:
        b += p[order[full]] * (1.0 - (weight[full - 1] if full else 0.0)) / s[order[full]]
    return b


def surrogate_weights(p: np.ndarray, a: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The candidate weights (module docstring) of least root fractional bound."""
    d = a.shape[1]
    eye = np.eye(d)
    cands = [np.full(d, 1.0 / d)] + [eye[k] for k in range(d)] + [(1.0 / d + eye[k]) / 2 for k in range(d)]
    cands = [c / c.sum() for c in cands]
    return min(cands, key=lambda w: _root_bound(p, a, u, w))


def knapsack_nd(p: np.ndarray, a: np.ndarray, u: np.ndarray, *, node_limit: int = 200_000,
                record: int = 8) -> KnapsackSolution:
    """``max p x`` s.t. ``a.T x <= 1`` (``a``: (n, d) sizes divided by the capacities), ``0 <= x <= u``
    integer; items with ``p <= 0`` or that fit no bin alone are left out. ``O(nodes n d)`` time."""
    n = p.size
    counts = np.zeros(n, dtype=np.int64)
    cand = np.flatnonzero((p > 0) & np.all(a <= 1 + 1e-12, axis=1) & (u > 0))
    if cand.size == 0:
        return KnapsackSolution(0.0, counts, 0.0, True, 0, ())
    pp, aa, uu = p[cand].astype(float), np.ascontiguousarray(a[cand], dtype=float), u[cand].astype(np.int64)
    w = surrogate_weights(pp, aa, uu)
    order = np.argsort(-pp / np.maximum(aa @ w, 1e-300), kind="stable")
    idx = cand[order]
    best, best_x, nodes, exhausted, open_bound, rec, n_found = branch_and_bound(
        pp[order], np.ascontiguousarray(aa[order]), uu[order], w, node_limit, max(record, 1))
    counts[idx] = best_x
    kept = min(n_found, rec.shape[0])
    rows = [(n_found - kept + j) % rec.shape[0] for j in range(kept)]
    found = tuple((idx[np.flatnonzero(rec[r])], rec[r][rec[r] > 0].astype(float)) for r in rows)
    bound = best + PRUNE_TOL if exhausted else max(best + PRUNE_TOL, open_bound)
    return KnapsackSolution(float(best), counts, float(bound), bool(exhausted), int(nodes), found)
