"""Plain oracles for the vector-packing tests: the optimum over every item-to-bin map, and plain
first fit / best fit (the compiled packers of :mod:`heuristics.vector.packers` are checked against them)."""

from __future__ import annotations

import itertools

import numpy as np

TOL = 1e-12


def optimum_bins(sizes: np.ndarray) -> int:
    """The fewest bins ``(1, ..., 1)`` holding the items (rows of ``sizes``), over every item-to-bin map
    (bins labelled in order of first use: each map is met once up to relabelling)."""
    n = sizes.shape[0]
    best = n
    loads: list[np.ndarray] = []

    def place(i: int) -> None:
        nonlocal best
        if len(loads) >= best:
            return
        if i == n:
            best = len(loads)
            return
        for b in range(len(loads)):
            if np.all(loads[b] + sizes[i] <= 1 + TOL):
                loads[b] = loads[b] + sizes[i]
                place(i + 1)
                loads[b] = loads[b] - sizes[i]
        loads.append(sizes[i].copy())
        place(i + 1)
        loads.pop()

    place(0)
    return best


def best_configuration(p: np.ndarray, a: np.ndarray, u: np.ndarray) -> float:
    """``max p x`` s.t. ``a.T x <= 1``, ``0 <= x <= u`` integer, by enumeration."""
    best = 0.0
    for x in itertools.product(*[range(int(k) + 1) for k in u]):
        x = np.array(x, dtype=float)
        if np.all(x @ a <= 1 + TOL):
            best = max(best, float(p @ x))
    return best


def plain_fit(sizes: np.ndarray, order: np.ndarray, best: bool, caps: np.ndarray | None = None):
    """First fit / best fit (room after placing summed over the dimensions, ties: first bin)."""
    bins = [c.astype(float) for c in caps] if caps is not None else None
    loads: list[np.ndarray] = []
    where = np.full(sizes.shape[0], -1)
    for i in order:
        cap_list = bins if bins is not None else [np.ones(sizes.shape[1])] * (len(loads) + 1)
        while len(loads) < len(cap_list):
            loads.append(np.zeros(sizes.shape[1]))
        fits = [b for b in range(len(cap_list)) if np.all(loads[b] + sizes[i] <= cap_list[b] * (1 + TOL))]
        if not fits:
            return None
        b = min(fits, key=lambda b: (float(np.sum(cap_list[b] - loads[b] - sizes[i])), b)) if best else fits[0]
        loads[b] = loads[b] + sizes[i]
        where[i] = b
    return where


def plain_window(sizes: np.ndarray, order: np.ndarray, window: int, choose: bool) -> np.ndarray:
    """Permutation / choose pack into identical unit bins, as the docstring of
    :mod:`heuristics.vector.packers` states it, in plain Python."""
    n, d = sizes.shape
    w = min(max(window, 1), d)
    rank = [list(np.argsort(-sizes[i], kind="stable")) for i in range(n)]
    where = np.full(n, -1)
    b = 0
    while np.any(where < 0):
        room = np.ones(d)
        while True:
            key = list(np.argsort(-room, kind="stable"))
            best, best_score = None, -1
            for i in order:
                if where[i] >= 0 or np.any(sizes[i] > room + 1e-12):
                    continue
                if choose:
                    score = len(set(rank[i][:w]) & set(key[:w]))
                else:
                    score = next((k for k in range(w) if rank[i][k] != key[k]), w)
                if score > best_score:
                    best, best_score = i, score
            if best is None:
                break
            where[best] = b
            room = room - sizes[best]
        b += 1
    return where
