"""``certify`` for vector bin packing: a lower bound and a packing, optimal when they meet.

Steps, each skipped once the lower bound equals the best packing's bins:

1. an item larger than the bin in some dimension: status ``infeasible``;
2. the cheap bounds of :mod:`lowerbounds.vector.bounds` (volume, L2, large items);
3. the best of the caller's packings (heuristics; none: one item per bin);
3b. when the bound of step 2 leaves no slack in some dimension (the total demand
   is exactly that many capacities), a packing of exactly full bins of one to
   three items (:func:`lowerbounds.vector.exact_fill.exact_fill_packing`, an exact
   cover; the perfect-triplet class), within ``exact_share`` of the time;
4. the configuration LP (:func:`lowerbounds.vector.configuration.configuration_lp`)
   warm-started with the configurations of that packing, stopped once its proven
   bound reaches the packing's bins, within ``lp_share`` of the time;
5. price-and-dive (:func:`lowerbounds.vector.upper.dive`), once for each
   threshold of :data:`DIVE_FIX_AT` (a dive is cheap and its outcome depends on
   the fixing rule), within ``dive_share`` of the time left;
6. the restricted integer master over the columns of step 4
   (:func:`lowerbounds.vector.upper.integer_master`) in the time left, looking
   only for packings better than the best so far.

Status: ``optimal`` only when the proven lower bound equals the bins of a
packing that passed the checker (:func:`vcsched.problems.vbp.bins_problem`),
both integers; otherwise ``feasible``. ``lower_method`` and ``upper_method``
name the step that gave each side.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from lowerbounds.vector.bounds import cheap_lower_bound
from lowerbounds.vector.configuration import columns_of_bins, configuration_lp
from lowerbounds.vector.exact_fill import exact_fill_packing
from lowerbounds.vector.upper import dive, integer_master
from vcsched.errors import InternalError
from vcsched.problems.vbp import VectorPacking, bins_problem, oversized_item

__all__ = ["PackingCertificate", "certify_packing", "bins_of", "DIVE_FIX_AT"]

DIVE_FIX_AT = (0.5, 1.0, 0.9, 2.0)
"""The fixing thresholds of the successive dives (a column is raised when its value exceeds its
bound by this much; none: the largest one, by one)."""


@dataclasses.dataclass(frozen=True)
class PackingCertificate:
    """``lower`` (proven), ``upper`` (bins of ``bins``), ``status`` (``optimal``, ``feasible`` or
    ``infeasible``), ``bins`` (item indices per bin), ``seconds``, ``lower_method``, ``upper_method``,
    ``message``."""

    lower: int | None
    upper: int | None
    status: str
    bins: list
    seconds: float
    lower_method: str | None
    upper_method: str | None
    message: str = ""


def bins_of(where: np.ndarray) -> list[list[int]]:
    """Item indices per bin, bins numbered by their first item, empty bins dropped."""
    out: dict[int, list[int]] = {}
    for i, b in enumerate(where.tolist()):
        out.setdefault(b, []).append(i)
    return list(out.values())


def _n_bins(where: np.ndarray) -> int:
    return int(np.unique(where).size)


class _Best:
    """The best checked packing so far and the best proven bound."""

    def __init__(self, inst: VectorPacking) -> None:
        self.inst = inst
        self.where = np.arange(inst.n_items)
        self.upper, self.upper_method = inst.n_items, "one-per-bin"
        self.lower, self.lower_method = 0, None

    def offer(self, where: np.ndarray | None, method: str) -> None:
        if where is None or _n_bins(where) >= self.upper:
            return
        problem = bins_problem(self.inst, bins_of(where))
        if problem is not None:
            raise InternalError(f"certify: the packing of {method} fails the checker: {problem}")
        self.where, self.upper, self.upper_method = where, _n_bins(where), method

    def prove(self, lower: int, method: str) -> None:
        if lower > self.lower:
            self.lower, self.lower_method = lower, method

    @property
    def closed(self) -> bool:
        return self.lower >= self.upper


def certify_packing(inst: VectorPacking, *, start=(), time_limit: float = 60.0, lp_share: float = 0.6,
                    dive_share: float = 0.5, exact_share: float = 0.25) -> PackingCertificate:
    """Steps of the module docstring; ``start`` is a sequence of ``(name, bin of each item)``."""
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    too_big = oversized_item(inst)
    if too_big is not None:
        return PackingCertificate(None, None, "infeasible", [], time.perf_counter() - t0, None, None, too_big)
    if inst.n_items == 0:
        return PackingCertificate(0, 0, "optimal", [], time.perf_counter() - t0, "empty", "empty")
    sizes, count = inst.sizes(), inst.count.astype(np.int64)
    best = _Best(inst)
    best.prove(*cheap_lower_bound(sizes, count))
    for name, where in start:
        best.offer(where, name)
    message = ""
    if not best.closed:
        best.offer(exact_fill_packing(inst, best.lower, deadline=t0 + exact_share * time_limit), "exact-fill")
    if not best.closed:
        item_type = inst.item_type()
        lp = configuration_lp(sizes, count, start_columns=columns_of_bins(item_type, best.where),
                              stop_at=best.upper, deadline=t0 + lp_share * time_limit)
        best.prove(lp.lower, "configuration-lp")
        message = f"configuration LP: {lp.iterations} iterations, {len(lp.columns)} columns" + \
            ("" if lp.complete else " (stopped before the LP was solved)")
        message += f" in {lp.seconds:.2f} s"
        t1 = time.perf_counter()
        dive_end = t1 + dive_share * (deadline - t1)
        for fix_at in DIVE_FIX_AT:
            if best.closed or time.perf_counter() >= dive_end:
                break
            best.offer(dive(sizes, count, lp.columns, deadline=dive_end, fix_at=fix_at, target=best.lower),
                       f"dive({fix_at:g})")
            message += f"; dive({fix_at:g}) {time.perf_counter() - t1:.2f} s"
            t1 = time.perf_counter()
        if not best.closed and time.perf_counter() < deadline:
            t1 = time.perf_counter()
            best.offer(integer_master(sizes, count, lp.columns, time_limit=deadline - t1, cutoff=best.upper - 1),
                       "integer-master")
            message += f"; integer master {time.perf_counter() - t1:.2f} s"
    status = "optimal" if best.closed else "feasible"
    return PackingCertificate(best.lower, best.upper, status, bins_of(best.where), time.perf_counter() - t0,
                              best.lower_method, best.upper_method, message)
