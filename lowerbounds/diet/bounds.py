"""The DIET references by method (seed 004 §5-6): what ``vcsched diet bound --method`` computes."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from lowerbounds.diet.instance import DietInstance, MetricBound, diet_instance
from lowerbounds.diet.quick import quick_bounds
from vcsched.arguments import integer, number
from vcsched.errors import InvalidInputError
from vcsched.names.references import BOUND_METHODS
from vcsched.problems.diet_limits import MAX_TIME_LIMIT

__all__ = ["lp_bounds", "diet_bounds", "METHODS", "EXACT_MAX_TASKS", "MAX_TIME_LIMIT", "INTERRUPTED"]

INTERRUPTED = "interrupted: the bound proven before the interrupt"
"""The ``message`` of a bound an interrupt (SIGINT) cut short (its value is the one proven before it)."""


def lp_bounds(inst: DietInstance, *, time_limit: float = 60.0) -> dict[str, float]:
    """The interval-indexed preemptive LP (:mod:`lowerbounds.diet.lp`); quick bounds for sequential users."""
    from lowerbounds.diet.lp import preemptive_lp_bounds

    if inst.users:
        return quick_bounds(inst)
    return preemptive_lp_bounds(inst, time_limit=time_limit)


def _timed(fn, *args, **kwargs) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


# ----------------------------------------------------------------------------------------------------------------
# The method table: what ``vcsched diet bound --method`` computes
# ----------------------------------------------------------------------------------------------------------------
METHODS = BOUND_METHODS
EXACT_MAX_TASKS = 200
"""Largest number of requests the exact placement search is tried on (beyond: bound and list-scheduling gap)."""


def _relaxation(inst: DietInstance, method: str, time_limit: float) -> dict[str, MetricBound]:
    quick, tq = _timed(quick_bounds, inst)
    out = {k: MetricBound(k, float(v), "quick", tq, kind="upper" if k == "throughput" else "lower")
           for k, v in quick.items()}
    if method in ("lp", "best") and not inst.users:
        try:
            lp, tl = _timed(lp_bounds, inst, time_limit=time_limit)
        except KeyboardInterrupt:  # the quick bounds stand, marked
            return {k: dataclasses.replace(b, message=INTERRUPTED, interrupted=True) for k, b in out.items()}
        for k, v in lp.items():
            better = v < quick[k] if k == "throughput" else v > quick[k]
            if method == "lp" or better:
                out[k] = MetricBound(k, float(v), "lp" if better or method == "lp" else "quick", tq + tl,
                                     kind=out[k].kind)
    return out


def _exact(inst: DietInstance, time_limit: float) -> dict[str, MetricBound]:
    relax = _relaxation(inst, "best", time_limit)
    if any(b.interrupted for b in relax.values()):
        return relax
    if inst.users:
        msg = ("exact placement search not available for sequential users (the number of requests depends on the "
               "placement); reporting the bounds")
        return {k: dataclasses.replace(b, message=msg) for k, b in relax.items()}
    try:
        return _exact_search(inst, relax, time_limit)
    except KeyboardInterrupt:  # the relaxation's bounds stand; a search's incumbent is not kept
        return {k: dataclasses.replace(b, message=INTERRUPTED, interrupted=True) for k, b in relax.items()}


def _exact_search(inst: DietInstance, relax: dict[str, MetricBound], time_limit: float) -> dict[str, MetricBound]:
    """The exact placement search of each objective (``time_limit`` each), throughput from the makespan's."""
    from lowerbounds.diet.placement import best_placement

    limit = time_limit if inst.n <= EXACT_MAX_TASKS else 0.0
    out: dict[str, MetricBound] = {}
    for metric in ("makespan", "mean_turnaround"):
        res = best_placement(inst, metric, time_limit=limit, root_bound=relax[metric].value)
        msg = res.message
        if inst.n > EXACT_MAX_TASKS:
            msg = (f"too large for the exact search ({inst.n} requests > {EXACT_MAX_TASKS}); bound and gap of "
                   "list scheduling")
        out[metric] = MetricBound(metric, res.value, "exact", res.seconds, status=str(res.status),
                                  optimum=res.value if res.status.value == "optimal" else None, bound=res.bound,
                                  gap=res.gap, placement=res.placement, message=msg or None)
    ms = out["makespan"]
    tp = relax["throughput"]
    value = inst.n / ms.value if ms.value else None
    bound = inst.n / ms.bound if ms.bound and ms.bound > 0 else tp.value
    out["throughput"] = MetricBound("throughput", value, "exact", ms.seconds, kind="upper", status=ms.status,
                                    optimum=value if ms.optimum is not None else None, bound=bound,
                                    gap=None if value is None else abs(bound - value) / bound,
                                    placement=ms.placement, message=ms.message)
    return out


def diet_bounds(scenario: Any, *, seed: int = 0, method: str = "best",
                time_limit: float = 60.0) -> dict[str, MetricBound]:
    """Bounds on ``makespan``, ``mean_turnaround`` (lower) and ``throughput`` (upper) of ``scenario``'s runs.

    ``method``: ``quick`` (closed forms), ``lp`` (the preemptive LP, :mod:`lowerbounds.diet.lp`), ``best`` (the
    stronger of the two for each metric) -- bounds valid for every policy; ``exact`` -- the best clairvoyant
    placement (:mod:`lowerbounds.diet.placement`) with its status, bound, gap and placement, within
    ``time_limit`` seconds per metric. ``seed`` is the run's seed (its execution-noise factors).
    """
    if method not in METHODS:
        raise InvalidInputError(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    number(time_limit, "time_limit", low=0, low_open=True, high=MAX_TIME_LIMIT)
    if not (hasattr(scenario, "platform") and hasattr(scenario, "workload")):
        raise InvalidInputError(f"scenario must be a DIET scenario (vcsched.scenarios.diet.Scenario), got "
                                f"{type(scenario).__name__}")
    integer(seed, "seed", low=0)
    inst = diet_instance(scenario, seed=seed)
    if method == "exact":
        return _exact(inst, time_limit)
    return _relaxation(inst, method, time_limit)
