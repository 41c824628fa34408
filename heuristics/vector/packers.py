"""List heuristics of multi-dimensional vector bin packing, on normalised sizes.

Seed 001 §3.4 and the heterogeneous vector-packing family of Stillwell,
Vivien and Casanova (IPDPS 2012): items (rows of ``sizes``, each dimension
divided by a reference capacity) go into bins (rows of ``caps`` in the same
units; identical bins ``(1, ..., 1)`` when ``caps`` is None, as many as
needed). Every packer returns the bin of each item, or None when some item
fits no bin (a heuristic that fails says so).

* :func:`fit_pack`: *first fit* (the first bin, in bin order, that holds the
  item) or *best fit* (the bin that holds it with the least room left,
  measured as the sum over the dimensions of the room after placing it; on
  ties the first in bin order), items in a given order.
* :func:`window_pack`: Leinberger, Karypis and Kumar's *permutation pack*
  and *choose pack* (ICPP 1999), one bin at a time: the bin's dimensions
  ranked by decreasing room give a key, each item's dimensions ranked by
  decreasing size give its own; among the items that fit, the one whose first
  ``w`` ranks agree best with the bin's (permutation: the length of the
  common prefix, up to ``w``; choose: the size of the intersection of the two
  top-``w`` sets, order ignored) goes in, ties broken by the item order;
  when no item fits, the next bin opens. Choice: an item matching no rank is
  still taken when nothing better fits (score 0), so the bin is always
  filled as far as the items allow (the paper's fall-back to less
  matching lists).

Item orders (all decreasing, on the normalised sizes): ``lex`` (dimension 1,
then 2, ...), ``max``, ``sum``, ``maxratio`` (max / min), ``maxdiff``
(max - min); ``none`` keeps the input order. Bin orders (heterogeneous
bins) take the same keys on the capacities, decreasing. Capacities
tolerate a relative ``1e-12`` (:data:`vcsched.problems.vbp.FIT_TOL`).

Compiled with numba: ``O(n B d)`` for the fit packers (``B`` bins scanned; with
identical bins, only the open ones and one empty bin), ``O(n^2 d)`` for the
window packers.
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run
from vcsched.names.vector import ORDERS
from vcsched.problems.vbp import FIT_TOL

__all__ = ["ORDERS", "order_of", "fit_pack", "window_pack"]

def order_of(sizes: np.ndarray, name: str) -> np.ndarray:
    """Indices of the rows of ``sizes`` in decreasing ``name`` order (stable: ties keep the input order)."""
    n = sizes.shape[0]
    if name == "none" or n == 0:
        return np.arange(n)
    if name == "lex":
        return np.lexsort(tuple(-sizes[:, k] for k in range(sizes.shape[1] - 1, -1, -1)))
    hi, lo = sizes.max(axis=1), sizes.min(axis=1)
    key = {"max": hi, "sum": sizes.sum(axis=1), "maxratio": hi / np.maximum(lo, 1e-12), "maxdiff": hi - lo}[name]
    return np.argsort(-key, kind="stable")


@njit(cache=True)
def _fit_kernel(sizes, order, caps, identical, best):
    n, d = sizes.shape
    nb = caps.shape[0]
    load = np.zeros((nb, d))
    where = np.full(n, -1, np.int64)
    opened = 0
    for t in range(n):
        i = order[t]
        chosen, chosen_room = -1, np.inf
        last = min(opened + 1, nb) if identical else nb
        for b in range(last):
            fits = True
            room = 0.0
            for k in range(d):
                after = load[b, k] + sizes[i, k]
                if after > caps[b, k] * (1.0 + 1e-12):
                    fits = False
                    break
                room += caps[b, k] - after
            if fits:
                if not best:
                    chosen = b
                    break
                if room < chosen_room:
                    chosen, chosen_room = b, room
        if chosen < 0:
            return where, False
        for k in range(d):
            load[chosen, k] += sizes[i, k]
        where[i] = chosen
        if chosen >= opened:
            opened = chosen + 1
    return where, True


def _bins(n: int, d: int, caps: np.ndarray | None) -> tuple[np.ndarray, bool]:
    if caps is None:
        return np.ones((max(n, 1), d)), True
    return np.asarray(caps, dtype=float), False


def fit_pack(sizes: np.ndarray, order: np.ndarray, *, best: bool = False,
             caps: np.ndarray | None = None) -> np.ndarray | None:
    """First fit (``best=False``) or best fit of the items in ``order`` into the bins ``caps`` (rows,
    in bin order; None: identical unit bins). The bin of every item, or None if one fits no bin."""
    assert FIT_TOL == 1e-12  # the kernel's tolerance
    sizes = np.ascontiguousarray(sizes, dtype=float)
    bins, identical = _bins(sizes.shape[0], sizes.shape[1], caps)
    where, ok = _fit_kernel(sizes, np.asarray(order, dtype=np.int64), bins, identical, best)
    return where if ok else None


@njit(cache=True)
def _score(rank_item, rank_bin, w, choose):
    s = 0
    if choose:
        for a in range(w):
            for b in range(w):
                if rank_item[a] == rank_bin[b]:
                    s += 1
        return s
    for a in range(w):
        if rank_item[a] != rank_bin[a]:
            break
        s += 1
    return s


@njit(cache=True)
def _window_kernel(sizes, order, caps, identical, w, choose):
    n, d = sizes.shape
    nb = caps.shape[0]
    ranks = np.empty((n, d), np.int64)
    for i in range(n):
        ranks[i] = np.argsort(-sizes[i], kind="mergesort")
    where = np.full(n, -1, np.int64)
    left = n
    for b in range(nb):
        if left == 0:
            break
        room = caps[b].copy()
        while True:
            rank_bin = np.argsort(-room, kind="mergesort")
            chosen, chosen_score = -1, -1
            for t in range(n):
                i = order[t]
                if where[i] >= 0:
                    continue
                fits = True
                for k in range(d):
                    if sizes[i, k] > room[k] + caps[b, k] * 1e-12:
                        fits = False
                        break
                if not fits:
                    continue
                sc = _score(ranks[i], rank_bin, w, choose)
                if sc > chosen_score:
                    chosen, chosen_score = i, sc
                    if sc == w:
                        break
            if chosen < 0:
                break
            where[chosen] = b
            left -= 1
            for k in range(d):
                room[k] -= sizes[chosen, k]
    return where, left == 0


def window_pack(sizes: np.ndarray, order: np.ndarray, *, window: int = 1, choose: bool = False,
                caps: np.ndarray | None = None) -> np.ndarray | None:
    """Permutation pack (``choose=False``) or choose pack with ``window`` ranks compared (``1 <=
    window <= d``), ties by ``order``, bins ``caps`` (None: identical unit bins). The bin of
    every item, or None when some item fits no bin."""
    sizes = np.ascontiguousarray(sizes, dtype=float)
    n, d = sizes.shape
    if n and np.any(sizes > 1 + 1e-12) and caps is None:
        return None
    bins, identical = _bins(n, d, caps)
    where, ok = _window_kernel(sizes, np.asarray(order, dtype=np.int64), bins, identical,
                               int(min(max(window, 1), d)), choose)
    return where if ok else None
