"""Packing bounds for VCSched: proofs that a target yield is out of reach.

Seed 001 §2.5 and §3.1: for a fixed placement the best minimum yield is
``min(1, 1 / max_h L_h)`` with ``L_h`` the CPU need on host ``h``, so "is
yield ``Y`` achievable" is "do the tasks, as 2-D items ``(alpha_i, m_i)``,
pack into ``H`` bins of capacity ``(L, 1)`` with ``L = 1 / Y``": a vector
bin-packing feasibility question. Tasks of a parallel job (§5.1) are
identical items and may share a host, so a job is an item *type* with
demand ``T_i``. Every function here proves a "no" (more than ``H`` bins
are needed) or says it cannot; none ever claims a "yes".

Bounds, cheapest first:

* :func:`l2_bins`: the Martello-Toth bound L2 (>= the volume bound L1) for
  one dimension. On the memory alone it proves that an instance is
  infeasible (:func:`memory_bins`); on the CPU sizes scaled by ``1 / L`` it
  is the L2-style makespan bound of Dell'Amico and Martello
  (:func:`cpu_load_bound`).
* :func:`configuration_lp`: the Gilmore-Gomory configuration LP of the
  2-D problem at capacity ``(L, 1)`` by column generation. Its proof is the
  Farley/Lagrangian bound ``sum_i d_i pi_i / V`` that holds for *any* duals
  ``pi >= 0`` when ``V`` is an upper bound on the best configuration's
  dual value; ``V`` comes from the branch and bound of
  :func:`lowerbounds.vc.knapsack.knapsack_2d` (the optimum, or, when it
  stops at its node limit, the largest bound of the subtrees left), so a
  pricing stopped early still gives a valid proof.

Safe direction. All proofs use capacities ``1 + CAP_TOL`` (and
``L (1 + CAP_TOL)``), i.e. slightly *larger* bins than the heuristics and
the checker use (``1 + 1e-12``), the knapsack bound is inflated by a relative
``1e-7``, and bin counts are rounded up only after subtracting ``1e-9``.
Rounding can therefore only weaken a proof, never make a feasible target
look infeasible.

The master LP is one HiGHS object fed arrays (``highspy``), not a PuLP
model: a column generation solves hundreds of small models, and building
each as a PuLP model would cost more than solving it (the same choice as
:func:`vcsched.problems.vc.maximize_average_yield`). The pricing knapsack is
a compiled branch and bound (1-100 ms on 250 items where HiGHS's MILP
stopped at a 1 s cap with a weaker dual bound).

References
----------
S. Martello, P. Toth. Lower bounds and reduction procedures for the bin
packing problem. Discrete Applied Mathematics 28 (1990).
M. Dell'Amico, S. Martello. Optimal scheduling of tasks on identical
parallel processors. ORSA Journal on Computing 7 (1995).
P. C. Gilmore, R. E. Gomory. A linear programming approach to the
cutting-stock problem. Operations Research 9 (1961).
A. A. Farley. A note on bounding a class of linear programming problems,
including cutting stock problems. Operations Research 38 (1990).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator

import numpy as np

from vcsched.problems.vc import VCInstance

__all__ = [
    "CAP_TOL",
    "PackingItems",
    "PackingProof",
    "packing_items",
    "l2_bins",
    "memory_bins",
    "cpu_load_bound",
    "cheap_bins",
    "configuration_lp",
    "singleton_counts",
    "Column",
    "MasterLP",
    "improving_columns",
    "smoothed_pricing",
]


CAP_TOL = 1e-9
"""Relative enlargement of every bin in a proof (the safe direction)."""

_COUNT_TOL = 1e-9
_PRICE_TOL = 1e-7
_SWAP_PAIRS = 256
"""Types (most valuable first) among which a 1-2 exchange of the cheap pricing picks its pair."""
_SWAP_ITEMS = 8
"""Types at most in a configuration for the 1-2 exchanges (bins of a few large items, where they matter)."""
_SEARCH_TYPES = 2048
"""Types at most that the local search of the cheap pricing considers (the most valuable)."""
GREEDY_FIRST_TYPES = 2048
"""Above this many item types, every pricing round tries the greedy columns before the branch and bound."""
_PRICING_NODES = 1_000_000
"""Nodes at most of one pricing branch and bound (beyond, its bound is weaker but still valid)."""
_SMOOTHING = 0.5
"""Weight of the stability centre in the pricing duals (Wentges 1997 smoothing)."""

Column = tuple[np.ndarray, np.ndarray]
"""A configuration, sparse: the item types it holds and how many copies of each."""


@dataclasses.dataclass(frozen=True)
class PackingItems:
    """Item types of the packing view: sizes ``cpu``, ``mem`` and ``demand`` (tasks) per job."""

    cpu: np.ndarray
    mem: np.ndarray
    demand: np.ndarray
    hosts: int

    def expanded(self) -> tuple[np.ndarray, np.ndarray]:
        """CPU and memory of every item (one per task)."""
        return np.repeat(self.cpu, self.demand), np.repeat(self.mem, self.demand)


def packing_items(instance: VCInstance) -> PackingItems:
    """One item type per job, demand ``T_i`` (tasks of a job may share a host, §5.1)."""
    return PackingItems(instance.cpu.astype(float), instance.mem.astype(float),
                        instance.tasks.astype(np.int64), instance.hosts)


@dataclasses.dataclass(frozen=True)
class PackingProof:
    """Outcome of a packing test at one capacity ``load``.

    ``infeasible`` is True only with a proof that more than ``hosts`` bins
    are needed; ``bins_lower`` is the proven lower bound on the number of
    bins (a float, before rounding up); ``complete`` says the relaxation was
    solved to the end (False: stopped at the deadline); ``by`` names the
    bound that decided.
    """

    load: float
    infeasible: bool
    bins_lower: float
    by: str
    complete: bool = True
    iterations: int = 0
    columns: int = 0
    lp_value: float | None = None
    seconds: float = 0.0
    generated: tuple[Column, ...] = ()
    """The columns the pricing added (sparse), when asked for with ``keep_columns``."""


def _ceil(x: float) -> int:
    return int(math.ceil(x - _COUNT_TOL))


def l2_bins(sizes: np.ndarray, capacity: float = 1.0) -> int:
    """Martello-Toth lower bound L2 on the number of bins of size ``capacity``.

    For ``K`` in ``[0, C/2]``: ``J1`` = items ``> C - K``, ``J2`` = items in
    ``(C/2, C - K]``, ``J3`` = items in ``[K, C/2]``; no two items of
    ``J1 + J2`` share a bin, no ``J3`` item joins a ``J1`` item, so
    ``L(K) = |J1| + |J2| + max(0, ceil((sum J3 - (|J2| C - sum J2)) / C))``.
    ``L2 = max_K L(K)``, with ``K`` over 0 and the distinct sizes ``<= C/2``;
    ``L(0) = ceil(sum / C)`` is the volume bound L1 whenever no item exceeds
    ``C/2`` and never less otherwise. Runs in ``O(n log n)``.
    Capacities are enlarged by :data:`CAP_TOL` (safe direction).
    """
    s = np.sort(np.asarray(sizes, dtype=float) / (capacity * (1.0 + CAP_TOL)))
    n = s.size
    if n == 0:
        return 0
    if s[-1] > 1.0:
        return n + 1  # an item larger than a bin: no packing at all (reported as > any count)
    prefix = np.concatenate(([0.0], np.cumsum(s)))
    n_half = int(np.searchsorted(s, 0.5, side="right"))  # items <= 1/2 are s[:n_half]
    big = s[n_half:]
    ks = np.unique(np.concatenate(([0.0], s[:n_half])))
    # J1 = s > 1 - K, J2 = 1/2 < s <= 1 - K, J3 = K <= s <= 1/2
    first_j1 = np.searchsorted(s, 1.0 - ks, side="right")
    n_j1 = n - first_j1
    n_j2 = first_j1 - n_half
    sum_j2 = prefix[first_j1] - prefix[n_half]
    first_j3 = np.searchsorted(s, ks, side="left")
    sum_j3 = prefix[n_half] - prefix[first_j3]
    room = n_j2 - sum_j2
    extra = np.maximum(0.0, np.ceil(sum_j3 - room - _COUNT_TOL))
    best = int(np.max(n_j1 + n_j2 + extra))
    best = max(best, _ceil(float(prefix[-1])), int(big.size))
    return best


def memory_bins(items: PackingItems) -> int:
    """L2 on the memory sizes alone: > ``hosts`` proves the instance infeasible."""
    return l2_bins(np.repeat(items.mem, items.demand))


def cheap_bins(items: PackingItems, load: float) -> int:
    """``max(L2(cpu / load), L2(mem))``: a lower bound on the bins of capacity ``(load, 1)``."""
    cpu, mem = items.expanded()
    return max(l2_bins(cpu, load), l2_bins(mem))


def cpu_load_bound(items: PackingItems, lower: float, upper: float, *, steps: int = 40) -> float:
    """Largest load ``L`` in ``[lower, upper]`` proven infeasible by ``L2(cpu / L) > H``.

    The L2-style makespan bound of Dell'Amico and Martello, found by
    bisection. The value returned always carries its own proof (it is a
    load at which L2 was evaluated and exceeded ``H``), or is ``lower``
    when no load in the range could be excluded. Since a load ``L`` is
    excluded, the optimal largest load is ``> L``.
    """
    cpu, _ = items.expanded()
    H = items.hosts
    if l2_bins(cpu, lower) <= H:
        return lower
    lo, hi = lower, upper  # lo proven infeasible; hi not proven
    if l2_bins(cpu, hi) > H:
        return hi
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if l2_bins(cpu, mid) > H:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-9 * hi:
            break
    return lo


# --------------------------------------------------------------------------- configuration LP


class MasterLP:
    """The restricted master ``min sum x`` s.t. ``columns @ x >= demand``, ``x >= 0``, kept in one
    HiGHS object so that every re-solve after adding columns warm-starts from the last basis."""

    def __init__(self, demand: np.ndarray) -> None:
        from vcsched.formulations.solve import new_highs  # the project's HiGHS factory (banner silenced)

        self.highspy, self.h = new_highs()
        self.h.setOptionValue("threads", 1)
        self.h.setOptionValue("presolve", "off")  # keep the basis: warm starts after added columns
        n = demand.size
        self.inf = self.highspy.kHighsInf
        empty_i = np.array([], dtype=np.int32)
        self.h.addRows(n, demand.astype(float), np.full(n, self.inf), 0, empty_i, empty_i, np.array([]))
        self.n_cols = 0
        self.kept: list[Column] | None = None  # a list: every column added from now on is kept
        self.solves = 0  # master solves of the last :meth:`rounds`

    def add(self, col: Column) -> None:
        """One column, given as ``(indices, counts)``."""
        idx, val = col
        self.h.addCol(1.0, 0.0, self.inf, idx.size, idx.astype(np.int32), val.astype(float))
        self.n_cols += 1
        if self.kept is not None:
            self.kept.append((np.asarray(idx, dtype=np.int64), np.asarray(val, dtype=float)))

    def add_singletons(self, counts: np.ndarray) -> None:
        """Column ``i`` holds ``counts[i]`` copies of type ``i`` alone: one sparse block, ``n`` non-zeros."""
        n = counts.size
        idx = np.arange(n, dtype=np.int32)
        self.h.addCols(n, np.ones(n), np.zeros(n), np.full(n, self.inf), n, idx, idx, counts.astype(float))
        self.n_cols += n

    def solve(self, deadline: float | None = None) -> tuple[float, np.ndarray] | None:
        """(value, duals pi >= 0), or None if HiGHS did not reach an optimal basis (also when
        stopped at ``deadline``, a ``time.perf_counter()`` value)."""
        if deadline is not None:
            # HiGHS counts its time limit on the run time summed over this object's runs
            self.h.setOptionValue("time_limit", self.h.getRunTime() + max(deadline - time.perf_counter(), 0.01))
        from vcsched.formulations.solve import highs_status, run_interruptibly
        from vcsched.result import Status

        run_interruptibly(self.h)  # a signal stops the solve at once
        if highs_status(self.h)[0] is not Status.OPTIMAL:
            return None
        pi = np.maximum(np.asarray(self.h.getSolution().row_dual, dtype=float), 0.0)
        return float(self.h.getInfo().objective_function_value), pi

    def rounds(self, deadline: float | None, max_iterations: int) -> Iterator[tuple[float, np.ndarray]]:
        """Column generation's master optima: ``(value, pi)`` of :meth:`solve`, solved again each time
        the caller asks for the next one (after adding its columns), at most ``max_iterations`` times;
        ends early at the first solve without an optimal basis. :attr:`solves` counts the solves."""
        self.solves = 0
        while self.solves < max_iterations:
            self.solves += 1
            solved = self.solve(deadline)
            if solved is None:
                return
            yield solved


@dataclasses.dataclass(frozen=True)
class _Prices:
    """One pricing round: duals ``pi``, item sizes (CPU scaled to the bin), demands, bin CPU ``load``."""

    pi: np.ndarray
    cpu: np.ndarray
    mem: np.ndarray
    demand: np.ndarray
    load: float


def _fill(p: _Prices, order: np.ndarray, col: np.ndarray, used_c: float, used_m: float) -> np.ndarray:
    """Add copies of the types in ``order`` (all with ``pi > 0``) while they fit; stops once the
    bin cannot take the smallest of them."""
    cpu, mem, demand, load = p.cpu, p.mem, p.demand, p.load
    min_c, min_m = float(cpu[order].min(initial=math.inf)), float(mem[order].min(initial=math.inf))
    for i in order:
        if (load - used_c) / min_c + 1e-12 < 1 or (min_m > 0 and (1.0 - used_m) / min_m + 1e-12 < 1):
            break  # the same test as ``k > 0`` below, for the smallest type: nothing fits any more
        room = demand[i] - col[i]
        if room <= 0:
            continue
        k = min(room, math.floor((load - used_c) / cpu[i] + 1e-12))
        if mem[i] > 0:
            k = min(k, math.floor((1.0 - used_m) / mem[i] + 1e-12))
        if k > 0:
            col[i] += k
            used_c += k * cpu[i]
            used_m += k * mem[i]
    return col


def _sparse(col: np.ndarray) -> Column:
    idx = np.flatnonzero(col)
    return idx, np.asarray(col, dtype=float)[idx]


def _swap_gain(p: _Prices, a: np.ndarray, free: np.ndarray, s: int, room_c: float, room_m: float,
               pairs: bool):
    """Best exchange of one copy of ``s`` (in the configuration ``a``) for one other type, or (when
    ``pairs``) for two copies of two other types among the :data:`_SWAP_PAIRS` most valuable that
    fit: ``(gain, types added)`` or None."""
    pi, cpu, mem = p.pi, p.cpu, p.mem
    rc, rm = room_c + cpu[s], room_m + mem[s]
    ok = free & (cpu <= rc + 1e-12 * p.load) & (mem <= rm + 1e-12)
    ok[s] = False
    cand = np.flatnonzero(ok)
    if cand.size == 0:
        return None
    t = int(cand[np.argmax(pi[cand])])
    best = (float(pi[t] - pi[s]), (t,))
    if not pairs:
        return best
    cand = cand[np.argsort(-pi[cand], kind="stable")[:_SWAP_PAIRS]]
    cc, mm, pp = cpu[cand], mem[cand], pi[cand]
    fit = (cc[:, None] + cc[None, :] <= rc + 1e-12 * p.load) & (mm[:, None] + mm[None, :] <= rm + 1e-12)
    np.fill_diagonal(fit, False)
    if fit.any():
        value = np.where(fit, pp[:, None] + pp[None, :], -np.inf)
        i, j = divmod(int(np.argmax(value)), cand.size)
        if value[i, j] - pi[s] > best[0]:
            best = (float(value[i, j] - pi[s]), (int(cand[i]), int(cand[j])))
    return best


def _local_search(p: _Prices, col: Column, rounds: int = 20) -> Column:
    """Best-improvement descent on one configuration by dual value: add one copy of a type, or
    exchange one copy for one other type (1-1) or, in a configuration of at most
    :data:`_SWAP_ITEMS` types, for two others (1-2, :func:`_swap_gain`), while
    the bin ``(load, 1)`` holds it and no type exceeds its demand. Finds the columns a greedy
    fill misses when memory is tight (a few large items per bin); ``O(rounds k n)`` for ``k``
    types in the column, plus ``O(rounds k)`` pair matrices of at most ``_SWAP_PAIRS^2``. Above
    :data:`_SEARCH_TYPES` types, only the most valuable ones (by dual value, and by dual value
    per size) may enter, so that a round's cost does not grow with the instance."""
    if p.cpu.size > _SEARCH_TYPES:  # data-centre scale: among the most valuable types only
        k = _SEARCH_TYPES // 2
        by_size = p.pi / np.maximum(p.cpu / p.load + p.mem, 1e-12)
        keep = np.union1d(np.union1d(np.argpartition(-p.pi, k)[:k], np.argpartition(-by_size, k)[:k]), col[0])
        sub = _Prices(p.pi[keep], p.cpu[keep], p.mem[keep], p.demand[keep], p.load)
        idx, val = _local_search(sub, (np.searchsorted(keep, col[0]), col[1]), rounds)
        return keep[idx], val
    pi, cpu, mem, demand = p.pi, p.cpu, p.mem, p.demand
    a = np.zeros(cpu.size)
    a[col[0]] = col[1]
    for _ in range(rounds):
        room_c, room_m = p.load - float(a @ cpu), 1.0 - float(a @ mem)
        free = (pi > 0) & (a < demand)
        can = np.flatnonzero(free & (cpu <= room_c + 1e-12 * p.load) & (mem <= room_m + 1e-12))
        best: tuple | None = None
        if can.size:
            t = int(can[np.argmax(pi[can])])
            best = (float(pi[t]), (), (t,))
        inside = np.flatnonzero(a > 0)
        for s in inside:
            swap = _swap_gain(p, a, free, int(s), room_c, room_m, inside.size <= _SWAP_ITEMS)
            if swap is not None and swap[0] > (best[0] if best else 1e-12):
                best = (swap[0], (int(s),), swap[1])
        if best is None or best[0] <= 1e-12:
            break
        for s in best[1]:
            a[s] -= 1
        for t in best[2]:
            a[t] += 1
    return _sparse(a)


def _greedy_columns(pi: np.ndarray, cpu: np.ndarray, mem: np.ndarray, demand: np.ndarray,
                    load: float, seeds: int = 6) -> list[Column]:
    """Configurations filled greedily by dual value per size (three weightings, and the
    third one again after forcing each of the ``seeds`` highest-value types in), each also
    improved by :func:`_local_search`: cheap pricing.
    Only types with ``pi > 0`` are considered; the columns are sparse."""
    out = []
    prices = _Prices(pi, cpu, mem, demand, load)
    keys = (pi / np.maximum(cpu / load, 1e-12), pi / np.maximum(mem, 1e-12),
            pi / np.maximum(cpu / load + mem, 1e-12))
    for key in keys:
        order = np.argsort(-key, kind="stable")
        order = order[pi[order] > 0]
        out.append(_sparse(_fill(prices, order, np.zeros(cpu.size), 0.0, 0.0)))
    order = np.argsort(-keys[2], kind="stable")
    order = order[pi[order] > 0]
    for i in np.argsort(-pi, kind="stable")[:seeds]:
        if pi[i] <= 0:
            break
        col = np.zeros(cpu.size)
        col[i] = 1
        out.append(_sparse(_fill(prices, order, col, float(cpu[i]), float(mem[i]))))
    return out + [_local_search(prices, col) for col in out]


def _exact_pricing(pi: np.ndarray, cpu: np.ndarray, mem: np.ndarray, demand: np.ndarray, load: float,
                   node_limit: int = _PRICING_NODES) -> tuple[float, list[Column]]:
    """Best configuration's dual value: (proven upper bound ``V``, improving columns found).

    ``max pi a`` s.t. ``cpu a <= load (1 + CAP_TOL)``, ``mem a <= 1 + CAP_TOL``,
    ``0 <= a_i <= d_i`` integer, by the branch and bound of
    :func:`lowerbounds.vc.knapsack.knapsack_2d`; ``V`` is its bound (the
    optimum when the search ended within ``node_limit`` nodes, a weaker
    valid bound otherwise) inflated by a relative ``1e-7``. The columns are the
    configurations the search improved on its way, best last.
    """
    from lowerbounds.vc.knapsack import knapsack_2d

    sol = knapsack_2d(pi, cpu / (load * (1 + CAP_TOL)), mem / (1 + CAP_TOL), demand, node_limit=node_limit)
    return sol.bound * (1 + _PRICE_TOL) + 1e-12, list(sol.found)


def singleton_counts(cpu: np.ndarray, mem: np.ndarray, demand: np.ndarray, load: float) -> np.ndarray:
    """Copies of each item type that fit one bin alone (at least one, at most the demand): the
    diagonal of the master's starting columns, kept as a vector (``n`` non-zeros, not ``n x n``)."""
    fit_c = np.floor(load / cpu + 1e-12)
    fit_m = np.where(mem > 0, np.floor(1.0 / np.maximum(mem, 1e-300) + 1e-12), demand)
    return np.maximum(np.minimum(np.minimum(fit_c, fit_m), demand), 1).astype(float)


def _value(pi: np.ndarray, col: Column) -> float:
    return float(pi[col[0]] @ col[1])


def improving_columns(pi: np.ndarray, columns) -> list[Column]:
    """The columns of dual value above ``1 + 1e-9`` (a negative reduced cost in ``min sum x``)."""
    return [c for c in columns if _value(pi, c) > 1 + 1e-9]


def smoothed_pricing(pi: np.ndarray, center: np.ndarray | None, best: float, demand: np.ndarray,
                     price: Callable[[np.ndarray], tuple[float, list[Column]]]
                     ) -> tuple[list[Column], float, float, np.ndarray | None]:
    """One pricing round of a configuration LP's column generation, with Wentges smoothing and Farley's bound.

    ``price(y)`` gives ``(V, columns met)``, ``V`` a proven upper bound on the best configuration's dual
    value at the duals ``y``; for any ``y >= 0``, ``(y . demand) / max(V, 1)`` is a proven lower bound on
    the bins (Farley), and the duals of the best one so far are the stability centre. The round prices at
    ``pi`` moved towards the centre (``_SMOOTHING``), and at ``pi`` itself when that point found no column
    improving at ``pi`` (mispriced). Returns ``(columns improving at pi, V of the last pricing, best bound,
    centre)``.
    """
    sep = pi if center is None else _SMOOTHING * center + (1.0 - _SMOOTHING) * pi
    v, found = price(sep)
    new = improving_columns(pi, found)
    bins = float(sep @ demand) / max(v, 1.0)  # Farley: valid for any duals >= 0
    if bins > best:
        best, center = bins, sep
    if not new and sep is not pi:  # mispriced at the smoothed point: price at the master's duals
        v, found = price(pi)
        new = improving_columns(pi, found)
        bins = float(pi @ demand) / max(v, 1.0)
        if bins > best:
            best, center = bins, pi
    return new, v, best, center


def _generate(master: MasterLP, items: PackingItems, sizes_c: np.ndarray, cap: float, deadline: float | None,
              max_iterations: int) -> tuple[float, float | None, int, bool]:
    """The column generation of :func:`configuration_lp`: ``(best proven bins, last master value,
    iterations, complete)``; ``complete`` is True when the test decided (a proof, a master value
    ``<= H``, or the LP solved: no configuration of dual value above 1 + 1e-9 exists)."""
    H, demand = items.hosts, items.demand
    best_bins, lp_value, complete = 0.0, None, False
    center = None  # the duals of the best Farley bound so far (the stability centre)
    greedy_first = demand.size > GREEDY_FIRST_TYPES

    def price(y: np.ndarray) -> tuple[float, list[Column]]:
        return _exact_pricing(y, sizes_c, items.mem, demand, cap)

    for value, pi in master.rounds(deadline, max_iterations):
        lp_value = value
        if _ceil(value) <= H:
            complete = True  # the LP optimum is <= value <= H: no proof possible
            break
        if deadline is not None and time.perf_counter() > deadline:
            break
        if greedy_first:
            new = improving_columns(pi, _greedy_columns(pi, sizes_c, items.mem, demand, cap))
            if new:
                for col in new:
                    master.add(col)
                continue
        new, v, best_bins, center = smoothed_pricing(pi, center, best_bins, demand, price)
        if _ceil(best_bins) > H:
            complete = True
            break
        if not new and not greedy_first and v > 1 + 1e-9 + 2 * _PRICE_TOL:  # the search stopped at its node limit
            new = improving_columns(pi, _greedy_columns(pi, sizes_c, items.mem, demand, cap))
        if not new:
            complete = v <= 1 + 1e-9 + 2 * _PRICE_TOL  # the LP is solved: best_bins is its value
            break
        for col in new:
            master.add(col)
    return best_bins, lp_value, master.solves, complete


def configuration_lp(items: PackingItems, load: float | None, *, deadline: float | None = None,
                     start_columns: list[Column | np.ndarray] | None = None, max_iterations: int = 2000,
                     keep_columns: bool = False) -> PackingProof:
    """Gilmore-Gomory configuration LP at capacity ``(load, 1)`` (``load=None``: memory only).

    Column generation: the master ``min sum_p x_p`` s.t. every type ``i`` is
    covered ``d_i`` times; columns priced by the exact 2-D knapsack branch
    and bound (:func:`_exact_pricing`, every improving configuration it met
    enters), preceded, above :data:`GREEDY_FIRST_TYPES` types, by greedy
    columns improved by a local search (:func:`_local_search`), which also
    stand in when the branch and bound stops at its node limit with no
    improving column. Whenever an exact pricing gives ``V``, the
    Farley bound ``z(pi) / V`` with ``z(pi) = sum_i d_i pi_i`` is a proven
    lower bound on the bins (any ``pi >= 0``); the test stops as soon as

    * that bound, rounded up, exceeds ``H`` (``infeasible=True``, a proof), or
    * the master value drops to ``<= H`` (the LP cannot prove a "no"), or
    * the LP is solved (``V <= 1``), or the deadline passes
      (``complete=False``; the best proven bin bound is still reported).

    Parameters
    ----------
    items : PackingItems
    load : float or None
        CPU capacity of a bin (``1 / Y``); None drops the CPU dimension.
    deadline : float, optional
        ``time.perf_counter()`` value at which to stop.
    start_columns : list of columns, optional
        Feasible configurations to start from (e.g. the hosts of a
        heuristic's placement, when they fit ``load``), each a sparse
        ``(indices, counts)`` pair or a dense array of counts per type.
    keep_columns : bool
        Return the columns the pricing generated in ``generated`` (the
        restricted integer master of :mod:`lowerbounds.vc.integer_master`
        starts from them); they fit ``(load (1 + CAP_TOL), 1 + CAP_TOL)``.

    Notes
    -----
    Memory: the master starts from one column per type (:func:`singleton_counts`,
    ``n`` non-zeros) plus the start columns, and every generated column is
    sparse, so the memory is linear in the types plus the master's non-zeros.
    """
    t0 = time.perf_counter()
    H = items.hosts
    sizes_c = items.cpu if load is not None else np.full_like(items.cpu, 1e-12)
    cap = load if load is not None else 1.0
    demand = items.demand
    if load is not None and np.any(items.cpu > load * (1 + CAP_TOL)):
        return PackingProof(load, True, math.inf, "item-too-large", seconds=time.perf_counter() - t0)
    if np.any(items.mem > 1 + CAP_TOL):
        return PackingProof(load or math.inf, True, math.inf, "item-too-large", seconds=time.perf_counter() - t0)
    master = MasterLP(demand)
    master.add_singletons(singleton_counts(sizes_c, items.mem, demand, cap))
    for col in start_columns or []:
        idx, val = col if isinstance(col, tuple) else _sparse(np.asarray(col, dtype=float))
        if float(val @ sizes_c[idx]) <= cap * (1 + CAP_TOL) and float(val @ items.mem[idx]) <= 1 + CAP_TOL:
            master.add((np.asarray(idx), np.asarray(val, dtype=float)))
    if keep_columns:
        master.kept = []
    best_bins, lp_value, it, complete = _generate(master, items, sizes_c, cap, deadline, max_iterations)
    infeasible = _ceil(best_bins) > H
    return PackingProof(load if load is not None else math.inf, infeasible, best_bins,
                        "configuration-lp" if infeasible else "none", complete, it, master.n_cols, lp_value,
                        time.perf_counter() - t0, tuple(master.kept or ()))
