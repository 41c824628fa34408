"""The interval-indexed preemptive LP relaxation of a DIET run of independent submissions (seed 004 §5-6).

Relaxation: time is cut at the requests' releases ``r_j`` (:meth:`lowerbounds.diet.DietInstance.release`), at the
capacity changes and on a regular grid; ``x[j, i]`` is the work of request ``j`` done in interval ``i``. A job
computes only after its release, at most ``v_max`` per second (it never has more than one CPU), and all jobs
together at most the capacity ``cap_i`` of the SeDs present (``sum cpus x speed``; interference, queues and
hand-offs only lower what a SeD gives). Every run of the simulator, whatever the policy, processor sharing
included, yields such an ``x``. Works: without execution noise each request's cost; with noise the least
possible, ``cost x`` the run's smallest factor (the factors go to the requests in an order the policy can
change, :mod:`lowerbounds.diet`), so the LP stays valid but is weaker than the closed forms there.

* makespan: the last interval ends at a variable ``E`` (all computations done); minimise ``E``. With equal
  CPU speeds this is the preemptive optimum (McNaughton's wrap-around inside each interval).
* mean turnaround: a job processed at rate at most ``v`` ends no earlier than its mean busy time plus
  ``w / (2 v)``, and its mean busy time is at least the work-weighted mean of its intervals' start times; and it
  ends no earlier than ``r_j + w_j / v``. The last interval is open (unbounded capacity, start time ``H``, the
  end of list scheduling), so no run is excluded.

The LP optimum is a bound only when HiGHS proves it optimal; it is lowered by ``1e-6`` relative to absorb the
solver's tolerances. Otherwise the caller keeps the closed-form bounds.
"""

from __future__ import annotations

import math

import numpy as np
import pulp

from lowerbounds.diet.instance import DietInstance
from lowerbounds.diet.quick import quick_bounds
from vcsched.formulations.solve import new_var, solve_model

__all__ = ["preemptive_lp_bounds", "GRID_STEPS"]


GRID_STEPS = 40
"""Regular grid points added between the first release and the horizon (turnaround LP)."""
_SAFETY = 1e-6


def _works(inst: DietInstance) -> np.ndarray:
    return inst.cost * float(np.min(inst.factors))


def _cap_at(inst: DietInstance, t: float, *, upto: float | None = None) -> float:
    """Capacity at ``t``; with ``upto`` = inf, the largest capacity from ``t`` on."""
    times, caps = inst.capacity_steps()
    k = np.searchsorted(times, t, side="right") - 1
    now = caps[k] if k >= 0 else 0.0
    if upto is None:
        return float(now)
    later = caps[times > t]
    return float(max(now, *later)) if len(later) else float(now)


def _lp_makespan(inst: DietInstance, rel: np.ndarray, w: np.ndarray, time_limit: float) -> float | None:
    v = inst.v_max
    times, _ = inst.capacity_steps()
    last = float(np.max(rel))
    cuts = sorted({*rel.tolist(), *[t for t in times if rel.min() < t < last]})
    prob = pulp.LpProblem("diet_makespan", pulp.LpMinimize)
    end = new_var("E", last)
    load = {}
    for i, a in enumerate(cuts):
        b = cuts[i + 1] if i + 1 < len(cuts) else None
        cap = _cap_at(inst, a) if b is not None else _cap_at(inst, a, upto=math.inf)
        length = (b - a) if b is not None else (end - a)
        xs = []
        for j in range(inst.n):
            if rel[j] <= a + 1e-12:
                x = new_var(f"x_{j}_{i}", 0)
                prob += x <= v * length
                load.setdefault(j, []).append(x)
                xs.append(x)
        if xs:
            prob += pulp.lpSum(xs) <= cap * length
    for j in range(inst.n):
        prob += pulp.lpSum(load.get(j, [])) == w[j]
    prob += end
    out = solve_model(prob, time_limit=time_limit, mip=False)
    if out.status.value != "optimal" or out.objective is None:
        return None
    return out.objective * (1 - _SAFETY) + float(np.min(inst.d_out)) - float(np.min(inst.submit))


def _lp_turnaround(inst: DietInstance, rel: np.ndarray, w: np.ndarray, horizon: float,
                   time_limit: float) -> float | None:
    v = inst.v_max
    times, _ = inst.capacity_steps()
    start = float(rel.min())
    grid = np.linspace(start, horizon, GRID_STEPS + 1)
    cuts = sorted({*rel.tolist(), *grid.tolist(), *[t for t in times if start < t < horizon]})
    prob = pulp.LpProblem("diet_turnaround", pulp.LpMinimize)
    ends = [new_var(f"C_{j}", float(rel[j] + w[j] / v)) for j in range(inst.n)]
    busy: dict[int, list] = {}
    for i, a in enumerate(cuts):
        b = cuts[i + 1] if i + 1 < len(cuts) else None
        xs = []
        for j in range(inst.n):
            if rel[j] <= a + 1e-12:
                x = new_var(f"x_{j}_{i}", 0)
                if b is not None:
                    prob += x <= v * (b - a)
                busy.setdefault(j, []).append((x, a))
                xs.append(x)
        if xs and b is not None:
            prob += pulp.lpSum(xs) <= _cap_at(inst, a) * (b - a)
    for j in range(inst.n):
        prob += pulp.lpSum(x for x, _ in busy[j]) == w[j]
        prob += ends[j] >= pulp.lpSum(x * (a / w[j]) for x, a in busy[j]) + w[j] / (2 * v)
    prob += pulp.lpSum(ends)
    out = solve_model(prob, time_limit=time_limit, mip=False)
    if out.status.value != "optimal" or out.objective is None:
        return None
    total = out.objective * (1 - _SAFETY) + float(np.sum(inst.d_out)) - float(np.sum(inst.submit))
    return total / inst.n


def preemptive_lp_bounds(inst: DietInstance, *, time_limit: float = 60.0) -> dict[str, float]:
    """``makespan`` and ``mean_turnaround`` lower bounds from the LP (module docstring), each at least the
    closed form's (the larger of the two is kept), and the ``throughput`` upper bound they imply."""
    from lowerbounds.diet.placement import greedy_placement

    quick = quick_bounds(inst)
    if inst.n == 0:
        return quick
    rel = inst.release()
    w = _works(inst)
    plan = greedy_placement(inst)
    horizon = float(np.max(plan[0] + inst.work / inst.v_max)) if plan is not None else float(rel.max() + w.sum())
    ms = _lp_makespan(inst, rel, w, time_limit)
    ta = _lp_turnaround(inst, rel, w, max(horizon, float(rel.max()) + 1.0), time_limit)
    makespan = max(quick["makespan"], ms if ms is not None else -math.inf)
    return {"makespan": makespan,
            "mean_turnaround": max(quick["mean_turnaround"], ta if ta is not None else -math.inf),
            "throughput": min(quick["throughput"], inst.n / makespan if makespan > 0 else math.inf)}
