"""The fewest bins of several types, each type with a limited count: a proven lower bound and a packing.

Instance (:class:`lowerbounds.vector.typed_lp.TypedPacking`): item types with
sizes ``S`` (absolute) and counts ``b``; bin types with capacities ``caps``
and counts ``N``. Objective: the fewest bins, every bin counting one whatever
its type, at most ``N_k`` of type ``k`` (the choice written in
:mod:`vcsched.problems.vbp_typed`). The configuration LP::

    min sum_{k,p} x_kp   s.t.  sum_{k,p} a_p x_kp >= b   (pi >= 0, one row per item type)
                               sum_p x_kp <= N_k          (mu_k >= 0, one row per bin type)

Lower bound (Lagrangian; valid for *any* ``pi, mu >= 0``, so the master's
duals need not be exact): relaxing the item rows and keeping
``sum_p x_kp <= N_k`` in the inner problem gives::

    LB(pi, mu) = pi . b - mu . N + sum_k N_k min(0, 1 + mu_k - V_k(pi))

with ``V_k(pi)`` a proven upper bound on ``max_p pi . a_p`` over the
configurations of type ``k`` (the knapsack's bound, inflated; pricing on bins
slightly larger than the checker's, :func:`lowerbounds.vector.typed_lp.price_type`),
and also ``pi . b / max_k V_k(pi)`` (every column covers at most that much of
``pi . b``). The bin count is an integer, so ``ceil(LB - 1e-6)`` is proven. At
the end of column generation LB equals the LP value.

Steps (:func:`certify_typed`), each skipped once the bound meets the best packing:

1. an item that fits no bin type of positive count: ``infeasible`` (named);
2. the volume bound per dimension with the counts (:func:`typed_volume_bound`);
   more volume than every bin together: ``infeasible``;
3. the best of the caller's packings that pass the checker;
4. no packing: the phase-one test at the full counts
   (:func:`lowerbounds.vector.typed_lp.packing_test`), which may prove that none exists;
5. column generation on the master above (slacks of cost ``n + 1`` keep it
   feasible), the bound LB at every round, within ``lp_share`` of the time;
6. the restricted integer master over its columns with at most ``upper - 1``
   bins (:func:`lowerbounds.vector.typed_lp.integer_packing`) in the time left.

Status: ``optimal`` only when the proven bound equals the bins of a checked
packing; ``feasible`` otherwise; ``infeasible`` with a proof; ``unknown``
when no packing was found and none was proven impossible.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from lowerbounds.vector.typed_lp import Master, TypedPacking, integer_packing, packing_test, price_type

__all__ = ["TypedCertificate", "certify_typed", "typed_volume_bound", "placement_problem", "lagrangian_bound"]

_SAFE = 1e-9
_FIT = 1e-12


@dataclasses.dataclass(frozen=True)
class TypedCertificate:
    """``lower`` (proven), ``upper`` (bins of ``placement``), ``status``, ``placement`` (n x 2: the bin
    type and the index within that type of every item, items numbered type by type; None without a
    packing), ``seconds``, ``lower_method``, ``upper_method``, ``message``."""

    lower: int | None
    upper: int | None
    status: str
    placement: np.ndarray | None
    seconds: float
    lower_method: str | None
    upper_method: str | None
    message: str = ""


def typed_volume_bound(inst: TypedPacking) -> int | None:
    """The fewest bins whose capacities, largest first within the counts, reach the items' total size, in
    the worst dimension; None when every bin together holds less (then no packing exists)."""
    total = inst.sizes.T @ inst.count.astype(float)
    caps = np.repeat(inst.caps, np.maximum(inst.avail, 0).astype(np.int64), axis=0)
    best = 0
    for r in range(inst.sizes.shape[1]):
        if total[r] <= 0:
            continue
        cum = np.cumsum(np.sort(caps[:, r])[::-1]) * (1 + _SAFE)
        k = int(np.searchsorted(cum, total[r], side="left"))
        if k >= cum.size:
            return None
        best = max(best, k + 1)
    return best


def placement_problem(inst: TypedPacking, placement: np.ndarray) -> str | None:
    """The checker on a placement (n x 2): every item in a bin of a type with that index below the type's
    count, no bin over its capacity (relative ``1e-12``); None or the reason."""
    size = np.repeat(inst.sizes, inst.count, axis=0)
    p = np.asarray(placement, dtype=np.int64)
    if p.shape != (size.shape[0], 2):
        return "placement has the wrong shape"
    if size.shape[0] == 0:
        return None
    k, i = p[:, 0], p[:, 1]
    if k.min() < 0 or k.max() >= inst.avail.size or i.min() < 0 or np.any(i >= inst.avail[k]):
        return "an item is in a bin that does not exist (type or index out of range)"
    keys, slot = np.unique(p, axis=0, return_inverse=True)
    load = np.zeros((keys.shape[0], size.shape[1]))
    np.add.at(load, slot.reshape(-1), size)
    over = load > inst.caps[keys[:, 0]] * (1 + _FIT)
    if over.any():
        b = int(np.flatnonzero(over.any(axis=1))[0])
        return f"bin {int(keys[b, 1])} of type {int(keys[b, 0])} is over its capacity"
    return None


def n_bins(placement: np.ndarray) -> int:
    return int(np.unique(placement, axis=0).shape[0]) if len(placement) else 0


def lagrangian_bound(inst: TypedPacking, pi: np.ndarray, mu: np.ndarray, v: np.ndarray) -> float:
    """``max(LB(pi, mu), pi . b / max_k V_k)`` of the module docstring (``v``: bounds ``V_k``, types with
    a zero count ignored)."""
    on = inst.avail > 0
    n_k = inst.avail[on].astype(float)
    total = float(pi @ inst.count)
    lb = total - float(mu[on] @ n_k) + float(n_k @ np.minimum(0.0, 1.0 + mu[on] - v[on]))
    top = float(v[on].max()) if on.any() else 0.0
    return max(lb, total / top if top > 0 else 0.0)


class _Best:
    def __init__(self, inst: TypedPacking) -> None:
        self.inst = inst
        self.placement: np.ndarray | None = None
        self.upper, self.upper_method = None, None
        self.lower, self.lower_method = 0, None

    def offer(self, placement, method: str) -> None:
        if placement is None or placement_problem(self.inst, placement) is not None:
            return
        bins = n_bins(placement)
        if self.upper is None or bins < self.upper:
            self.placement, self.upper, self.upper_method = np.asarray(placement, dtype=np.int64), bins, method

    def prove(self, lower: int, method: str) -> None:
        if lower > self.lower:
            self.lower, self.lower_method = lower, method

    @property
    def closed(self) -> bool:
        return self.upper is not None and self.lower >= self.upper


def _start_columns(inst: TypedPacking, placement: np.ndarray) -> list:
    """The configuration of every bin of a placement, as ``(type, (indices, counts))``."""
    item_type = np.repeat(np.arange(inst.count.size), inst.count)
    out = []
    keys, slot = np.unique(placement, axis=0, return_inverse=True)
    for b in range(keys.shape[0]):
        idx, cnt = np.unique(item_type[slot.reshape(-1) == b], return_counts=True)
        out.append((int(keys[b, 0]), (idx, cnt.astype(float))))
    return out


def _column_generation(inst: TypedPacking, best: _Best, deadline: float) -> tuple[Master, str]:
    """Step 5: the master with cost one per bin, the Lagrangian bound at every round."""
    n = int(inst.count.sum())
    master = Master(inst, slack_cost=n + 1.0, column_cost=1.0)
    for k in np.flatnonzero(inst.avail > 0):
        s = inst.singletons(int(k))
        for i in np.flatnonzero(s > 0):
            master.add(int(k), (np.array([i]), s[i:i + 1]))
    if best.placement is not None:
        for k, col in _start_columns(inst, best.placement):
            master.add(k, col)
    it, complete = 0, False
    while not best.closed and time.perf_counter() < deadline:
        it += 1
        solved = master.solve(deadline)
        if solved is None:
            break
        _, pi, mu = solved
        v, new = np.zeros(inst.avail.size), []
        for quick in (True, False):
            for k in np.flatnonzero(inst.avail > 0):
                v[k], better, _ = price_type(inst, int(k), pi, 1.0 + float(mu[k]), quick)
                new += [(int(k), c) for c in better]
            if new:
                break
        best.prove(math.ceil(lagrangian_bound(inst, pi, mu, v) - 1e-6), "configuration-lp")
        if not new:
            complete = True
            break
        for k, col in new:
            master.add(k, col)
    return master, f"configuration LP: {it} rounds, {len(master.columns)} columns" + \
        ("" if complete or best.closed else " (stopped before the LP was solved)")


def certify_typed(inst: TypedPacking, *, start=(), time_limit: float = 60.0,
                  lp_share: float = 0.6) -> TypedCertificate:
    """Steps of the module docstring; ``start``: ``(name, placement)`` pairs (placement n x 2)."""
    t0 = time.perf_counter()
    deadline = t0 + time_limit

    def done(status: str, best: _Best | None, message: str) -> TypedCertificate:
        if best is None:
            return TypedCertificate(None, None, status, None, time.perf_counter() - t0, None, None, message)
        return TypedCertificate(best.lower, best.upper, status, best.placement, time.perf_counter() - t0,
                                best.lower_method, best.upper_method, message)

    if inst.count.sum() == 0:
        return TypedCertificate(0, 0, "optimal", np.zeros((0, 2), dtype=np.int64), 0.0, "empty", "empty")
    best = _Best(inst)
    volume = typed_volume_bound(inst)
    if volume is None:
        return done("infeasible", None, "the items need more volume than every bin together holds in some dimension")
    best.prove(volume, "volume")
    for name, placement in start:
        best.offer(placement, name)
    message = ""
    if best.placement is None:
        test = packing_test(inst, deadline=t0 + lp_share * time_limit / 2)
        if test.status == "infeasible":
            return done("infeasible", None, "no packing into every bin of every type: the configuration LP "
                                            "is infeasible (Farkas proof)")
        best.offer(integer_packing(inst, test.master, time_limit=max(deadline - time.perf_counter(), 0.01) / 4),
                   "integer-master")
    if not best.closed:
        master, message = _column_generation(inst, best, t0 + lp_share * time_limit)
        left = deadline - time.perf_counter()
        if not best.closed and left > 0:
            most = int(inst.count.sum()) if best.upper is None else best.upper - 1
            best.offer(integer_packing(inst, master, time_limit=left, most_bins=most), "integer-master")
            message += f"; integer master {time.perf_counter() - t0 - (time_limit - left):.2f} s"
    if best.placement is None:
        return done("unknown", best, message or "no packing found and none proven impossible")
    return done("optimal" if best.closed else "feasible", best, message)
