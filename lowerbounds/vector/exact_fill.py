"""Exactly full bins: a packing that meets a volume bound with no slack, as an exact cover by pairs and triplets.

The fact used. If in dimension ``r`` the items' total demand is exactly
``L * C_r`` (``L`` a proven lower bound, ``C_r`` the capacity), every packing
into ``L`` bins fills every bin exactly in ``r``: no bin holds more than
``C_r``, and ``L`` bins hold ``L * C_r``. Call such dimensions *tight*. The
perfect-triplet class is the extreme case (every dimension tight, ``L = n / 3``).

The search (a primal heuristic of :func:`lowerbounds.vector.certify.certify_packing`;
nothing found proves nothing):

1. the bins of one, two or three items that are exactly full in every tight
   dimension and within the capacity in the others. For a pair of item types
   ``i <= j`` the third item's demand in the tight dimensions is
   ``C - w_i - w_j``, found among the types by a linear hash of the integer
   demands (``sum_r R_r w_r`` modulo ``2^64``, ``R`` fixed random odd
   multipliers: the hash of the complement is ``h(C) - h(w_i) - h(w_j)``), every
   hit then checked exactly, copies counted (a type used twice needs two copies).
   ``O(m^2)`` pairs for ``m`` item types, in row blocks;
2. the exact cover: ``sum_p a_ip x_p = b_i`` with ``x`` integer over these
   columns, by HiGHS (:func:`exact_cover`); a cover has ``L`` bins exactly.

Only for integer demands and capacities below ``2^50`` (exact arithmetic), at
least one tight dimension, ``n <= 3 L`` (bins of at most three items can hold
the items in ``L`` bins) and at most :data:`MAX_TYPES` item types.
"""

from __future__ import annotations

import time

import numpy as np

from lowerbounds.vector.upper import bins_from_counts, column_arrays, solve_integer_columns
from vcsched.problems.vbp import VectorPacking

__all__ = ["tight_dimensions", "exact_columns", "exact_fill_packing", "exact_cover", "MAX_TYPES"]

MAX_TYPES = 4000
"""Most item types searched (the pairs are ``O(m^2)``)."""
_BLOCK = 256
_EXACT = 2.0 ** 50
_FIT = 1e-12


def tight_dimensions(inst: VectorPacking, lower: int) -> np.ndarray:
    """The dimensions whose total demand is exactly ``lower`` capacities (integer data only; none otherwise)."""
    w, c = inst.demand, inst.capacity
    if not (np.all(w == np.round(w)) and np.all(c == np.round(c)) and np.abs(w).max(initial=0) < _EXACT
            and float(inst.count @ w.max(axis=1) if w.size else 0) < _EXACT):
        return np.zeros(0, dtype=np.int64)
    total = inst.count.astype(np.float64) @ w
    return np.flatnonzero(total == lower * c)


def _hashes(w: np.ndarray, tight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20260529)
    mult = rng.integers(1, 2 ** 62, size=tight.size, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    with np.errstate(over="ignore"):
        return (w[:, tight].astype(np.int64).astype(np.uint64) * mult).sum(axis=1, dtype=np.uint64), mult


def _fits(inst: VectorPacking, tight: np.ndarray, types: tuple[int, ...]) -> bool:
    load = inst.demand[list(types)].sum(axis=0)
    mask = np.zeros(inst.d, dtype=bool)
    mask[tight] = True
    if not np.all(load[mask] == inst.capacity[mask]) or np.any(load[~mask] > inst.capacity[~mask] * (1 + _FIT)):
        return False
    idx, cnt = np.unique(types, return_counts=True)
    return bool(np.all(cnt <= inst.count[idx]))


def exact_columns(inst: VectorPacking, tight: np.ndarray, *, deadline: float | None = None) -> list:
    """Step 1 of the module docstring: the columns ``(type indices, copies)`` of the exactly full bins of
    one to three items (each multiset once)."""
    m = inst.n_types
    keys, mult = _hashes(inst.demand, tight)
    with np.errstate(over="ignore"):
        target = (inst.capacity[tight].astype(np.int64).astype(np.uint64) * mult).sum(dtype=np.uint64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    found: set[tuple[int, ...]] = set()

    def members(key: np.uint64) -> np.ndarray:
        lo, hi = np.searchsorted(sorted_keys, key, "left"), np.searchsorted(sorted_keys, key, "right")
        return order[lo:hi]

    def consider(types: tuple[int, ...]) -> None:
        t = tuple(sorted(types))
        if t not in found and _fits(inst, tight, t):
            found.add(t)

    with np.errstate(over="ignore"):
        for i in members(target):
            consider((int(i),))
        for i in range(m):
            for j in members(target - keys[i]):
                if j >= i:
                    consider((i, int(j)))
        for start in range(0, m, _BLOCK):
            if deadline is not None and time.perf_counter() > deadline:
                break
            rows = np.arange(start, min(start + _BLOCK, m))
            comp = target - keys[rows][:, None] - keys[None, :]
            pos = np.searchsorted(sorted_keys, comp)
            hit = sorted_keys[np.minimum(pos, m - 1)] == comp
            for a, j in zip(*np.nonzero(hit)):
                i = int(rows[a])
                if j < i:
                    continue
                for k in members(comp[a, j]):
                    if k >= j:
                        consider((i, int(j), int(k)))
    out = []
    for t in sorted(found):
        idx, cnt = np.unique(t, return_counts=True)
        out.append((idx.astype(np.int64), cnt.astype(float)))
    return out


def exact_fill_packing(inst: VectorPacking, lower: int, *, deadline: float) -> np.ndarray | None:
    """A packing into ``lower`` bins, every bin exactly full in the tight dimensions (module docstring): the
    bin of every item, or None (none found, or the conditions of the module docstring do not hold)."""
    if lower <= 0 or inst.n_types > MAX_TYPES or inst.n_items > 3 * lower:
        return None
    tight = tight_dimensions(inst, lower)
    if tight.size == 0:
        return None
    columns = exact_columns(inst, tight, deadline=deadline)
    covered = np.zeros(inst.n_types)
    for idx, val in columns:
        covered[idx] += val
    if not columns or np.any(covered[inst.count > 0] == 0) or time.perf_counter() >= deadline:
        return None
    where = exact_cover(inst.count, columns, time_limit=deadline - time.perf_counter())
    if where is None or np.unique(where).size > lower:
        return None
    return where


def exact_cover(count: np.ndarray, columns: list, *, time_limit: float) -> np.ndarray | None:
    """Step 2: ``sum_p a_ip x_p = b_i`` for every item type, ``x`` integer ``>= 0``, by HiGHS within
    ``time_limit`` (no objective: every exactly full cover has the same number of bins). The bin of every
    item, or None."""
    from vcsched.formulations.solve import new_highs

    highspy, h = new_highs()
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", max(time_limit, 0.01))
    m, n = len(columns), count.size
    empty = np.array([], dtype=np.int32)
    h.addRows(n, count.astype(float), count.astype(float), 0, empty, empty, np.array([]))
    upper = np.array([np.min(np.floor(count[c[0]] / c[1])) for c in columns])
    x = solve_integer_columns(h, highspy, np.zeros(m), upper, column_arrays(columns))
    if x is None:
        return None
    where = bins_from_counts(count, columns, x)
    if where is None:
        return None
    return where
