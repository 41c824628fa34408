"""Baselines of seed 002 §4.1: Gang, Sequential and the three List Graham orders.

The List Graham algorithms take the allotment of the dual approximation of
[7] (:func:`heuristics.moldable.dual_approx.dual_approximation`: by default
the two-shelf 3/2 + eps algorithm, the final allotment of its schedule after
the shelf transformations; ``dual="simple"`` for the simpler knapsack-only
version) and schedule it with
:func:`heuristics.moldable.listsched.list_schedule` in three orders.
"""

from __future__ import annotations

import time

import numpy as np

from heuristics.moldable.dual_approx import dual_approximation, shelf_order
from heuristics.moldable.listsched import list_schedule, schedule_result
from heuristics.moldable.registry import REGISTRY
from vcsched.problems.moldable import MoldableInstance
from vcsched.result import Result

__all__ = ["dual_approximation", "shelf_order", "gang", "sequential", "list_shelf", "list_lptf", "list_saf"]


def _list_with(instance, method, order_key, eps, dual, t0) -> Result:
    search = dual_approximation(instance, eps=eps, dual=dual)
    allot = search.allotment
    order = order_key(instance, search, allot)
    sched = list_schedule(instance, order, allot)
    return schedule_result(method, instance, sched, t0, makespan_lb=search.lower, cmax_guess=search.guess)


@REGISTRY.register("list-shelf")
def list_shelf(instance: MoldableInstance, *, eps: float = 0.01, dual: str = "two-shelf", rng=None) -> Result:
    """List Graham with the dual-approximation allotment in its shelf order
    (:func:`heuristics.moldable.dual_approx.shelf_order`: ``S0``, ``S1``, ``S2``, small tasks).

    ``dual`` chooses the dual approximation (``"two-shelf"`` or ``"simple"``).
    """
    t0 = time.perf_counter()
    return _list_with(instance, "list-shelf", lambda inst, s, a: shelf_order(inst, s), eps, dual, t0)


@REGISTRY.register("list-lptf")
def list_lptf(instance: MoldableInstance, *, eps: float = 0.01, dual: str = "two-shelf", rng=None) -> Result:
    """List Graham, weighted LPTF: decreasing ``p_i(allot_i) / w_i`` (§4.1).

    The paper sorts "using the ratio between weight and execution time" for a
    *largest processing time first* rule; we read it as the weighted processing
    time ``p / w``, largest first (ties by index).
    """
    t0 = time.perf_counter()

    def key(inst, s, a):
        ratio = inst.times[np.arange(inst.n), a - 1] / inst.weights
        return np.lexsort((np.arange(inst.n), -ratio))

    return _list_with(instance, "list-lptf", key, eps, dual, t0)


@REGISTRY.register("list-saf")
def list_saf(instance: MoldableInstance, *, eps: float = 0.01, dual: str = "two-shelf", rng=None) -> Result:
    """List Graham, smallest area ``allot_i * p_i(allot_i)`` first (§4.1), ties by index."""
    t0 = time.perf_counter()

    def key(inst, s, a):
        area = a * inst.times[np.arange(inst.n), a - 1]
        return np.lexsort((np.arange(inst.n), area))

    return _list_with(instance, "list-saf", key, eps, dual, t0)


@REGISTRY.register("gang")
def gang(instance: MoldableInstance, *, rng=None) -> Result:
    """Gang (§4.1): every task on all ``m`` processors, one after the other, by
    decreasing ``w_i / p_i(m)`` (Smith's rule; ties by index).

    Optimal for ``sum w_i C_i`` when speedups are linear (``p_i(k) = p_i(1) / k``):
    then every schedule's minsum is at least that of the single-machine
    relaxation with processing times ``p_i(1) / m``, which Smith's order attains.
    """
    t0 = time.perf_counter()
    n, m = instance.n, instance.m
    order = np.lexsort((np.arange(n), -instance.weights / instance.times[:, m - 1]))
    sched = list_schedule(instance, order, np.full(n, m, dtype=np.int64))
    return schedule_result("gang", instance, sched, t0)


@REGISTRY.register("sequential")
def sequential(instance: MoldableInstance, *, rng=None) -> Result:
    """Sequential (§4.1): one processor per task, list scheduling by largest
    processing time ``p_i(1)`` first (ties by index)."""
    t0 = time.perf_counter()
    n = instance.n
    order = np.lexsort((np.arange(n), -instance.times[:, 0]))
    sched = list_schedule(instance, order, np.ones(n, dtype=np.int64))
    return schedule_result("sequential", instance, sched, t0)
