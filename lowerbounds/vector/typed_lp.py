"""Bounded multi-type vector bin packing: can item types ``(S_i, b_i)`` be packed into ``N_k`` bins of type ``k``?

Items: ``n`` types with sizes ``S`` (``n x D``, absolute) and counts ``b``;
bins: ``K`` types with capacities ``caps`` (``K x D``) and counts ``N``. The
configuration LP, in its phase-one form (slacks ``s`` cost one each)::

    min sum_i s_i   s.t.  sum_{k,p} a_ip x_kp + s_i >= b_i   (every item type i)
                          sum_p x_kp <= N_k                 (every bin type k)
                          x, s >= 0

over the configurations ``a_p`` of each bin type (copies per item type that fit
one bin of that type), by column generation. Pricing: for duals ``pi >= 0`` on
the item rows and ``mu_k = -sigma_k >= 0`` on the type rows, a configuration
of type ``k`` improves when ``pi . a > mu_k``; the best one is the
d-dimensional knapsack :func:`lowerbounds.vector.knapsack.knapsack_nd` on the
sizes divided by ``caps_k``, one per bin type.

Proof of infeasibility (Farkas). If some ``pi >= 0`` has
``pi . b > sum_k N_k V_k(pi)``, with ``V_k(pi)`` an upper bound on the best
configuration value of type ``k``, the items cannot be packed, not even
fractionally: any packing uses at most ``N_k`` configurations of type ``k``,
each worth at most ``V_k``, and covers every item, which is worth ``pi . b``.
At the end of column generation with a positive LP value this holds at the
master's duals (the bound equals the LP value); before the end, it is
checked at every round's duals. The LP value reaching zero proves the
*relaxation* feasible (no more proof is possible), and the columns are
passed to the upper side (:func:`integer_packing`, :func:`dive_packing`).

Safe direction: the pricing runs on sizes divided by ``1 + CAP_TOL`` (bins
slightly larger than the checker's), its bound is inflated by a relative
``1e-7``, and the proof asks ``pi . b`` to exceed ``sum_k N_k V_k`` by a
relative ``1e-7`` plus ``1e-9``. Zero capacities: an item needing any of
such a resource never fits that bin type.

References: P. C. Gilmore, R. E. Gomory (1961) for the configuration LP;
F. Vanderbeck. Computational study of a column generation algorithm for bin
packing and cutting stock problems. Mathematical Programming 86 (1999) for
the restricted integer master; R. Sadykov et al. Primal heuristics for
branch and price: the assets of diving methods. INFORMS JoC 31 (2019).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from lowerbounds.vc.packing import CAP_TOL
from lowerbounds.vector.knapsack import knapsack_nd
from lowerbounds.vector.upper import solve_integer_columns

__all__ = ["TypedPacking", "normalised", "PackingTest", "packing_test", "integer_packing", "dive_packing",
           "hosts_from_counts", "price_type"]

_PRICE_TOL = 1e-7
_FIT = 1e-12
_QUICK_NODES = 20_000
_NODES = 300_000
_ZERO = 1e-9
_INT_TOL = 1e-6


def normalised(sizes: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """``sizes / caps`` per dimension; a positive size over a zero capacity is ``inf`` (never fits)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = sizes / caps
    return np.where(sizes <= 0, 0.0, np.where(caps > 0, a, np.inf))


@dataclasses.dataclass
class TypedPacking:
    """An instance: item ``sizes`` (n x D), ``count`` (n), bin ``caps`` (K x D), ``avail`` (K)."""

    sizes: np.ndarray
    count: np.ndarray
    caps: np.ndarray
    avail: np.ndarray

    def __post_init__(self) -> None:
        self.scaled = [normalised(self.sizes, c) for c in self.caps]
        """Sizes over the capacities of each bin type."""

    def singletons(self, k: int) -> np.ndarray:
        """Copies of each item type that one bin of type ``k`` holds alone (0 when none fits)."""
        top = self.scaled[k].max(axis=1) if self.sizes.shape[1] else np.zeros(self.count.size)
        with np.errstate(divide="ignore"):
            fit = np.where(top > 0, np.floor(1.0 / np.maximum(top, 1e-300) + _FIT), self.count)
        return np.where(top <= 1 + _FIT, np.minimum(fit, self.count), 0).astype(float)

    def fits(self, k: int, col) -> bool:
        """Whether configuration ``col = (indices, counts)`` fits a checker's bin of type ``k``."""
        idx, val = col
        return bool(np.all(val @ self.scaled[k][idx] <= 1 + _FIT))


class Master:
    """The phase-one master of the module docstring in one HiGHS object (warm starts); with
    ``slack_cost`` and ``column_cost`` the same rows price other objectives (the fewest bins:
    :mod:`lowerbounds.vector.typed_bins`)."""

    def __init__(self, inst: TypedPacking, *, slack_cost: float = 1.0, column_cost: float = 0.0) -> None:
        from vcsched.formulations.solve import new_highs

        self.highspy, self.h = new_highs()
        self.h.setOptionValue("threads", 1)
        self.h.setOptionValue("presolve", "off")
        self.inf = self.highspy.kHighsInf
        n, K = inst.count.size, inst.avail.size
        self.n, self.K = n, K
        e = np.array([], dtype=np.int32)
        self.h.addRows(n, inst.count.astype(float), np.full(n, self.inf), 0, e, e, np.array([]))
        self.h.addRows(K, np.zeros(K), inst.avail.astype(float), 0, e, e, np.array([]))
        idx = np.arange(n, dtype=np.int32)
        self.h.addCols(n, np.full(n, float(slack_cost)), np.zeros(n), np.full(n, self.inf), n, idx, idx, np.ones(n))
        self.column_cost = float(column_cost)
        self.columns: list[tuple[int, np.ndarray, np.ndarray]] = []

    def add(self, k: int, col) -> None:
        idx, val = np.asarray(col[0], dtype=np.int64), np.asarray(col[1], dtype=float)
        rows = np.concatenate((idx, [self.n + k])).astype(np.int32)
        self.h.addCol(self.column_cost, 0.0, self.inf, rows.size, rows, np.concatenate((val, [1.0])))
        self.columns.append((k, idx, val))

    def solve(self, deadline: float | None):
        """(value, pi, mu) or None when HiGHS did not reach an optimal basis."""
        from vcsched.formulations.solve import highs_status, run_interruptibly
        from vcsched.result import Status

        if deadline is not None:
            self.h.setOptionValue("time_limit", self.h.getRunTime() + max(deadline - time.perf_counter(), 0.01))
        run_interruptibly(self.h)
        if highs_status(self.h)[0] is not Status.OPTIMAL:
            return None
        dual = np.asarray(self.h.getSolution().row_dual, dtype=float)
        return float(self.h.getInfo().objective_function_value), np.maximum(dual[:self.n], 0), \
            np.maximum(-dual[self.n:], 0)

    def x(self) -> np.ndarray:
        return np.asarray(self.h.getSolution().col_value, dtype=float)[self.n:]


def price_type(inst: TypedPacking, k: int, pi: np.ndarray, mu: float, quick: bool) -> tuple[float, list, bool]:
    """(proven bound on the best configuration value of type ``k``, improving configurations, exhausted)."""
    a = inst.scaled[k] / (1 + CAP_TOL)
    sol = knapsack_nd(pi, a, inst.count, node_limit=_QUICK_NODES)
    better = [c for c in sol.found if float(pi[c[0]] @ c[1]) > mu + _ZERO]
    if not quick and not sol.exhausted and not better:
        sol = knapsack_nd(pi, a, inst.count, node_limit=_NODES)
        better = [c for c in sol.found if float(pi[c[0]] @ c[1]) > mu + _ZERO]
    return sol.bound * (1 + _PRICE_TOL) + 1e-12, better, sol.exhausted


@dataclasses.dataclass
class PackingTest:
    """``status``: ``infeasible`` (proven), ``relaxed`` (the LP relaxation is feasible) or ``unknown``
    (deadline or iteration cap first); ``master`` (its columns feed the upper side), ``iterations``,
    ``margin`` (the best ``pi . b - sum_k N_k V_k`` met, normalised by ``pi . b``)."""

    status: str
    master: Master
    iterations: int
    margin: float


def packing_test(inst: TypedPacking, *, start=(), deadline: float | None = None,
                 max_iterations: int = 10_000) -> PackingTest:
    """Column generation on the phase-one master (module docstring) from the singletons and ``start``
    (``(bin type, (indices, counts))`` pairs that fit), until a proof, a feasible relaxation, the
    deadline (``time.perf_counter()``) or ``max_iterations`` master solves."""
    master = Master(inst)
    for k in range(inst.avail.size):
        if inst.avail[k] <= 0:
            continue
        s = inst.singletons(k)
        for i in np.flatnonzero(s > 0):
            master.add(k, (np.array([i]), s[i:i + 1]))
    for k, col in start:
        if inst.avail[k] > 0 and inst.fits(k, col):
            master.add(k, col)
    margin, it = -np.inf, 0
    while it < max_iterations:
        it += 1
        solved = master.solve(deadline)
        if solved is None:
            return PackingTest("unknown", master, it, margin)
        value, pi, mu = solved
        if value <= _ZERO:
            return PackingTest("relaxed", master, it, margin)
        total, new, quick = float(pi @ inst.count), [], it % 5 != 0
        bounds = np.zeros(inst.avail.size)
        for k in np.flatnonzero(inst.avail > 0):
            bounds[k], better, _ = price_type(inst, int(k), pi, float(mu[k]), quick)
            new += [(int(k), c) for c in better]
        if not new and quick:  # a short search found nothing: the full one, for the proof or columns
            for k in np.flatnonzero(inst.avail > 0):
                bounds[k], better, _ = price_type(inst, int(k), pi, float(mu[k]), False)
                new += [(int(k), c) for c in better]
        spent = float(inst.avail @ bounds)
        margin = max(margin, (total - spent) / max(total, 1e-300))
        if total > spent * (1 + _PRICE_TOL) + 1e-9:
            return PackingTest("infeasible", master, it, margin)
        if not new or (deadline is not None and time.perf_counter() > deadline):
            return PackingTest("unknown", master, it, margin)
        for k, col in new:
            master.add(k, col)
    return PackingTest("unknown", master, it, margin)


def hosts_from_counts(inst: TypedPacking, columns, x: np.ndarray) -> np.ndarray | None:
    """``(n_items, 2)``: the bin type and index of every item (items numbered type by type) when ``x``
    copies of the columns, at most ``N_k`` of type ``k``, cover every count; None otherwise."""
    start = np.concatenate(([0], np.cumsum(inst.count))).astype(np.int64)
    nxt = start[:-1].copy()
    where = np.full((int(start[-1]), 2), -1, dtype=np.int64)
    used = np.zeros(inst.avail.size, dtype=np.int64)
    for p in np.flatnonzero(x):
        k, idx, val = columns[p]
        for _ in range(int(x[p])):
            took = False
            for i, a in zip(idx.tolist(), val.tolist()):
                c = min(int(round(a)), int(start[i + 1] - nxt[i]))
                if c > 0:
                    where[nxt[i]:nxt[i] + c] = (k, used[k])
                    nxt[i] += c
                    took = True
            used[k] += took
    if np.any(where[:, 0] < 0) or np.any(used > inst.avail):
        return None
    return where


def integer_packing(inst: TypedPacking, master: Master, *, time_limit: float,
                    most_bins: int | None = None) -> np.ndarray | None:
    """The restricted integer master: the master's columns that fit the checker's bins, ``x`` integer,
    no slack, solved by HiGHS within ``time_limit`` (price-and-branch). A packing
    (:func:`hosts_from_counts`) or None (nothing proven). With ``most_bins``: the fewest bins, at most
    ``most_bins`` of them (one more row, every column costs one)."""
    from vcsched.formulations.solve import new_highs

    cols = [c for c in master.columns if inst.fits(c[0], (c[1], c[2]))]
    if not cols:
        return None
    highspy, h = new_highs()
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", max(time_limit, 0.01))
    n, K, inf = inst.count.size, inst.avail.size, highspy.kHighsInf
    e = np.array([], dtype=np.int32)
    h.addRows(n, inst.count.astype(float), np.full(n, inf), 0, e, e, np.array([]))
    h.addRows(K, np.zeros(K), inst.avail.astype(float), 0, e, e, np.array([]))
    rows = [np.concatenate((c[1], [n + c[0]])).astype(np.int32) for c in cols]
    vals = [np.concatenate((c[2], [1.0])) for c in cols]
    starts = np.concatenate(([0], np.cumsum([r.size for r in rows])[:-1])).astype(np.int32)
    m = len(cols)
    upper = inst.avail[[c[0] for c in cols]].astype(float)
    if most_bins is not None:
        h.addRows(1, np.zeros(1), np.array([float(most_bins)]), 0, e, e, np.array([]))
        rows = [np.concatenate((r, [n + K])).astype(np.int32) for r in rows]
        vals = [np.concatenate((v, [1.0])) for v in vals]
        starts = np.concatenate(([0], np.cumsum([r.size for r in rows])[:-1])).astype(np.int32)
    cost = np.ones(m) if most_bins is not None else np.zeros(m)
    x = solve_integer_columns(h, highspy, cost, upper, (starts, np.concatenate(rows).astype(np.int32),
                                                        np.concatenate(vals).astype(float)))
    return None if x is None else hosts_from_counts(inst, cols, x)


def _fix(x: np.ndarray, lower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns to raise and their new lower bounds: every column at least 1/2 above its bound by the
    integer part of its excess (at least one), or else the largest excess by one."""
    excess = x - lower
    cols = np.flatnonzero(excess >= 0.5)
    if cols.size:
        return cols, lower[cols] + np.maximum(np.floor(excess[cols] + _INT_TOL), 1.0)
    cols = np.array([int(np.argmax(excess))])
    return cols, lower[cols] + 1.0


def dive_packing(inst: TypedPacking, master: Master, *, deadline: float | None) -> np.ndarray | None:
    """Pure diving from a master whose relaxation is feasible: fix columns (:func:`_fix`), re-run the
    column generation, until the LP solution is integer with no slack (a packing) or the LP needs
    slack (fail: None, which proves nothing). The master is modified."""
    lower = np.zeros(0)
    while deadline is None or time.perf_counter() < deadline:
        x = master.x()
        lower = np.concatenate((lower, np.zeros(x.size - lower.size)))
        if np.all(np.abs(x - np.round(x)) <= _INT_TOL):
            cols = [c for c in master.columns]
            if all(inst.fits(c[0], (c[1], c[2])) for c, v in zip(cols, x) if v > 0.5):
                return hosts_from_counts(inst, cols, np.round(x).astype(np.int64))
            return None
        cols, raised = _fix(x, lower)
        for p, r in zip(cols.tolist(), raised.tolist()):
            master.h.changeColBounds(int(master.n + p), float(r), master.inf)
        lower[cols] = raised
        if not _regenerate(inst, master, deadline):
            return None
    return None


def _regenerate(inst: TypedPacking, master: Master, deadline: float | None) -> bool:
    """Column generation after a fixing until the slack is zero (True) or no column helps (False)."""
    while True:
        solved = master.solve(deadline)
        if solved is None:
            return False
        value, pi, mu = solved
        if value <= _ZERO:
            return True
        if deadline is not None and time.perf_counter() > deadline:
            return False
        new = []
        for k in np.flatnonzero(inst.avail > 0):
            new += [(int(k), c) for c in price_type(inst, int(k), pi, float(mu[k]), True)[1]]
        if not new:
            return False
        for k, col in new:
            master.add(k, col)
