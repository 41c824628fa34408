"""Price-and-dive: a packing at a given load by diving in the configuration LP.

Seed 001 §2.5/§3.1: a placement with largest load ``<= L`` is a packing of
the tasks, as 2-D items ``(alpha_i, m_i)``, into ``H`` bins of capacity
``(L, 1)``. When the configuration LP
(:func:`lowerbounds.vc.packing.configuration_lp`) cannot exclude ``L`` (its
value is ``<= H``), a packing may still exist; the restricted integer master
(:mod:`lowerbounds.vc.integer_master`) searches only the columns generated so
far. Diving generates the columns a packing needs as it builds it
(Vanderbeck 1999, "pure diving"; Sadykov et al. 2019):

1. solve the configuration LP by column generation, priced by the exact
   knapsack of :mod:`lowerbounds.vc.knapsack` (at most ``rounds`` pricing
   rounds per step after the first, which runs to the end);
2. if every ``x_p`` is integer, the columns with their counts are the packing;
3. otherwise *fix*: raise the lower bound of every column whose value above
   its bound is ``>= fix_at`` by the integer part of that excess (at least
   one), or, when none is, of the column with the largest excess by one;
   then back to 1 (the master keeps its basis: a warm start);
4. when the LP of the fixed master exceeds ``H`` (checked after the pricing
   ran to the end), undo the last fixing and forbid it (the columns it
   raised may not exceed their former bound); at most ``backtracks`` times.

Choice: the columns fit the checker's bins exactly (``(L, 1)``, the
knapsack's fit tolerance ``1e-12``), not the proofs' enlarged ones, so a
packing found is a placement that the checker accepts; the caller re-checks
it all the same. This is a heuristic: "not found" proves nothing.

References: F. Vanderbeck. Computational study of a column generation
algorithm for bin packing and cutting stock problems. Mathematical
Programming 86 (1999). R. Sadykov, F. Vanderbeck, A. Pessoa, I. Tahiri,
E. Uchoa. Primal heuristics for branch and price: the assets of diving
methods. INFORMS Journal on Computing 31 (2019).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from lowerbounds.vc.knapsack import knapsack_2d
from lowerbounds.vc.packing import Column, MasterLP, PackingItems, improving_columns, singleton_counts

__all__ = ["DiveResult", "dive_packing"]


_INT_TOL = 1e-6
_NODES = 300_000
"""Nodes at most of one pricing search in the dive (a heuristic: a weaker search only costs columns)."""


@dataclasses.dataclass(frozen=True)
class DiveResult:
    """``status``: ``"found"`` (``columns`` with ``counts`` cover every demand in at most ``H``
    bins), ``"failed"`` (the LP exceeded ``H`` and no backtrack was left), ``"time_limit"``;
    ``steps`` fixings, ``backtracks`` undone, ``seconds``."""

    status: str
    columns: list
    counts: np.ndarray | None
    steps: int
    backtracks: int
    seconds: float


class _Dive:
    """The master with its columns, and the pricing at one load."""

    def __init__(self, items: PackingItems, load: float, columns, deadline: float | None) -> None:
        self.items, self.load, self.deadline = items, load, deadline
        self.master = MasterLP(items.demand)
        singles = singleton_counts(items.cpu, items.mem, items.demand, load)
        self.master.add_singletons(singles)
        self.columns: list[Column] = [(np.array([i]), singles[i:i + 1]) for i in range(items.demand.size)]
        for col in columns:
            idx, val = np.asarray(col[0]), np.asarray(col[1], dtype=float)
            if float(val @ items.cpu[idx]) <= load and float(val @ items.mem[idx]) <= 1.0:
                self.add(idx, val)

    def add(self, idx: np.ndarray, val: np.ndarray) -> None:
        self.master.add((idx, val))
        self.columns.append((idx, val))

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def generate(self, rounds: float) -> tuple[float, bool] | None:
        """Column generation from the current master: (value, priced to the end), None if the LP failed."""
        it = 0
        while True:
            solved = self.master.solve(self.deadline)
            if solved is None:
                return None
            value, pi = solved
            if it >= rounds or self.expired():
                return value, False
            it += 1
            sol = knapsack_2d(pi, self.items.cpu / self.load, self.items.mem, self.items.demand, node_limit=_NODES)
            new = improving_columns(pi, sol.found)
            if not new:
                return value, True
            for idx, val in new:
                self.add(idx, val)

    def values(self) -> np.ndarray:
        return np.asarray(self.master.h.getSolution().col_value, dtype=float)

    def set_lower(self, cols: np.ndarray, lower: np.ndarray, upper: np.ndarray | None = None) -> None:
        inf = self.master.inf
        for k, p in enumerate(cols):
            hi = inf if upper is None else float(upper[k])
            self.master.h.changeColBounds(int(p), float(lower[k]), hi)


def _fixing(x: np.ndarray, lower: np.ndarray, fix_at: float) -> tuple[np.ndarray, np.ndarray]:
    """Step 3: the columns to raise and their new lower bounds."""
    excess = x - lower
    cols = np.flatnonzero(excess >= fix_at)
    if cols.size:
        return cols, lower[cols] + np.maximum(np.floor(excess[cols] + _INT_TOL), 1.0)
    p = int(np.argmax(np.where(excess > _INT_TOL, excess, -1.0)))
    return np.array([p]), lower[[p]] + 1.0


def dive_packing(items: PackingItems, load: float, *, deadline: float | None = None, columns=(),
                 fix_at: float = 0.5, rounds: int = 2, backtracks: int = 10) -> DiveResult:
    """A packing of ``items`` into ``items.hosts`` bins of capacity ``(load, 1)`` by diving in the
    configuration LP, warm-started with ``columns`` (those that fit); ``deadline`` is a
    ``time.perf_counter()`` value. See the module docstring for the steps."""
    t0 = time.perf_counter()
    H = items.hosts
    if np.any(items.cpu > load * (1 + 1e-12)) or np.any(items.mem > 1 + 1e-12):  # an item fits no bin
        return DiveResult("failed", [], None, 0, 0, time.perf_counter() - t0)
    dive = _Dive(items, load, columns, deadline)
    state = dive.generate(np.inf)
    lower = np.zeros(len(dive.columns))
    history: list[tuple[np.ndarray, np.ndarray]] = []
    steps = undone = 0

    def result(status: str, counts=None) -> DiveResult:
        return DiveResult(status, dive.columns, counts, steps, undone, time.perf_counter() - t0)

    while True:
        if state is None or dive.expired():
            return result("time_limit")
        value, priced = state
        if value > H + _INT_TOL and not priced:
            state = dive.generate(np.inf)
            continue
        lower = np.concatenate((lower, np.zeros(len(dive.columns) - lower.size)))
        if value > H + _INT_TOL:
            if not history or undone >= backtracks:
                return result("failed")
            cols, before = history.pop()
            dive.set_lower(cols, before, upper=before)  # undo, and forbid the same raise
            lower[cols] = before
            undone += 1
            state = dive.generate(rounds)
            continue
        x = dive.values()
        if np.all(np.abs(x - np.round(x)) <= _INT_TOL):
            return result("found", np.round(x).astype(np.int64))
        cols, raised = _fixing(x, lower, fix_at)
        history.append((cols, lower[cols].copy()))
        dive.set_lower(cols, raised)
        lower[cols] = raised
        steps += 1
        state = dive.generate(rounds)
