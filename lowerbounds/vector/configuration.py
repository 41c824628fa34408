"""The Gilmore-Gomory configuration LP of d-dimensional vector bin packing, by column generation.

Sizes normalised (bins ``(1, ..., 1)``), item types with counts ``b_i``::

    min sum_p x_p   s.t.   sum_p a_ip x_p >= b_i  (every type i),   x >= 0

over the configurations ``a_p`` (copies per type that fit one bin). The
master is :class:`lowerbounds.vc.packing.MasterLP` (one HiGHS object, warm
starts); the pricing is the d-dimensional knapsack branch and bound of
:func:`lowerbounds.vector.knapsack.knapsack_nd`, every improving
configuration it meets entering the master. As in
:func:`lowerbounds.vc.packing.configuration_lp`, the proof is Farley's
bound ``sum_i b_i pi_i / V`` (valid for any duals ``pi >= 0`` when ``V``
bounds the best configuration's dual value from above), priced at
Wentges-smoothed duals; its round-up is a lower bound on the bins.

Safe direction: the pricing runs on sizes divided by ``1 + CAP_TOL``
(bins slightly larger than the checker's), its bound is inflated by a
relative ``1e-7``, and bins are rounded up after subtracting ``1e-9``. The
columns kept for the upper side (:mod:`lowerbounds.vector.upper`) are
filtered there with the checker's tolerance.

References: P. C. Gilmore, R. E. Gomory (1961); A. A. Farley (1990);
P. Wentges. Weighted Dantzig-Wolfe decomposition for linear mixed-integer
programming. International Transactions in OR 4 (1997).
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from lowerbounds.vc.packing import CAP_TOL, Column, MasterLP, improving_columns, smoothed_pricing
from lowerbounds.vector.knapsack import knapsack_nd

__all__ = ["ConfigurationLP", "singletons", "columns_of_bins", "configuration_lp"]

_PRICE_TOL = 1e-7
_NODES = 1_000_000
"""Nodes at most of one pricing branch and bound (beyond, its bound is weaker but still valid)."""
_QUICK_NODES = 20_000
"""Nodes of the first, short pricing search of a round."""


def singletons(sizes: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Copies of each type that one bin holds alone (at least 1, at most the count)."""
    top = np.max(sizes, axis=1) if sizes.size else np.zeros(0)
    fit = np.where(top > 0, np.floor(1.0 / np.maximum(top, 1e-300) + 1e-12), count)
    return np.maximum(np.minimum(fit, count), 1).astype(float)


def columns_of_bins(item_type: np.ndarray, where: np.ndarray) -> list[Column]:
    """The configurations of a packing (the bin of each item), one per distinct bin."""
    out = {}
    for b in np.unique(where):
        types, cnt = np.unique(item_type[where == b], return_counts=True)
        out[(tuple(types), tuple(cnt))] = (types.astype(np.int64), cnt.astype(float))
    return list(out.values())


@dataclasses.dataclass
class ConfigurationLP:
    """Outcome: ``lower`` (proven bins, rounded up), ``bound`` (the Farley value before rounding),
    ``lp_value`` (the last master value), ``complete`` (the LP solved to the end), ``columns``
    generated (and start columns), ``iterations``, ``seconds``."""

    lower: int
    bound: float
    lp_value: float | None
    complete: bool
    columns: list
    iterations: int
    seconds: float


def _ceil(x: float) -> int:
    return int(math.ceil(x - 1e-9))


def _price(pi: np.ndarray, sizes: np.ndarray, count: np.ndarray) -> tuple[float, list[Column]]:
    """(proven bound ``V`` on the best configuration's dual value, improving configurations met):
    a short search first (:data:`_QUICK_NODES`), the long one (:data:`_NODES`) only when the short
    one stopped at its limit without an improving configuration."""
    scaled = sizes / (1 + CAP_TOL)
    sol = knapsack_nd(pi, scaled, count, node_limit=_QUICK_NODES)
    if not sol.exhausted and not improving_columns(pi, sol.found):
        sol = knapsack_nd(pi, scaled, count, node_limit=_NODES)
    return sol.bound * (1 + _PRICE_TOL) + 1e-12, list(sol.found)


def configuration_lp(sizes: np.ndarray, count: np.ndarray, *, start_columns=(), stop_at: int | None = None,
                     deadline: float | None = None, max_iterations: int = 5000) -> ConfigurationLP:
    """Column generation until the LP is solved, the proven bound reaches ``stop_at`` (a known
    packing's bins: nothing more to prove), the deadline (``time.perf_counter()``) passes or
    ``max_iterations`` master solves. Every column that entered is returned in ``columns``."""
    t0 = time.perf_counter()
    master = MasterLP(count)
    master.kept = []
    master.add_singletons(singletons(sizes, count))
    for col in start_columns:
        master.add(col)
    best, center, lp_value, complete = 0.0, None, None, False
    for value, pi in master.rounds(deadline, max_iterations):
        lp_value = value
        new, v, best, center = smoothed_pricing(pi, center, best, count, lambda y: _price(y, sizes, count))
        if not new:
            complete = v <= 1 + 1e-9 + 2 * _PRICE_TOL
            break
        if (stop_at is not None and _ceil(best) >= stop_at) or (deadline is not None and time.perf_counter() > deadline):
            break
        for col in new:
            master.add(col)
    return ConfigurationLP(_ceil(best), best, lp_value, complete, list(master.kept), master.solves,
                           time.perf_counter() - t0)
