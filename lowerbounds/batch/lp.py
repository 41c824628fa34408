"""LP relaxations of the batch relaxation on one window of jobs (the time-indexed model of :mod:`lowerbounds.batch.grid`).

Each function bounds the optimum of the jobs it is given *alone*; :mod:`lowerbounds.batch`
combines windows (sums for the flow objectives, maxima for makespan and stretch).

Objective coefficients of a column ``(j, k, s)`` (a job starting in slot ``s`` of cluster
``k`` really starts at some ``S`` in ``[t0 + s delta, t0 + (s + 1) delta)``, see the grid's
docstring), each a lower bound on the job's term of the metric in every such schedule:

* response time: ``max(t0 + s delta + p_jk - r_j, p_jk)``;
* bounded slowdown: ``max(1, that / max(p_jk, tau))`` (the denominator of the cluster the
  column puts the job on, as in the simulator's metric);
* completion (makespan): ``t0 + s delta + p_jk``; the model minimises ``z >= completion_j``;
* stretch: a column whose response bound exceeds ``S p_jk`` is removed; if the LP is then
  infeasible, no schedule has max stretch ``<= S``.

The flow and makespan bounds go one step beyond the LP: HiGHS solves the model as a MILP
limited to its root node (:data:`ROOT_NODES`) within :data:`WINDOW_SECONDS`, adding its
own cuts to the LP relaxation, and the bound is HiGHS's dual bound at the stop. A dual
bound of a MILP is a lower bound on its optimum whatever the reason it stopped, and the
MILP's optimum (the grid problem) is at most the window's optimum, so the bound is valid;
it is at least the LP relaxation once the root LP is solved, and None before.
The stretch test uses the plain LP (a test that is not proved infeasible counts as feasible).
A model above :data:`lowerbounds.batch.grid.MAX_NONZEROS` is not built: the window keeps
its quick bound (and a stretch test counts as feasible).
"""

from __future__ import annotations

import time

import numpy as np

from lowerbounds.batch.grid import Model, build_model, greedy_grid_schedule, solve_arrays, time_grid
from lowerbounds.batch.instance import BSLD_TAU, BatchInstance
from vcsched.errors import InvalidInputError
from vcsched.result import Status

__all__ = ["flow_cost", "bsld_cost", "completion_cost", "lp_flow", "lp_bsld", "lp_makespan", "lp_stretch",
           "LP_SLOTS"]


LP_SLOTS = 240
"""Slots of the grid of one LP window (a finer grid is more precise and larger)."""
ROOT_NODES = 1
"""Branch-and-bound nodes HiGHS may explore for a window bound (1: the root node and its cuts)."""
WINDOW_SECONDS = 5.0
"""Longest time for one window's bound (HiGHS's time limit; its dual bound at the stop is used)."""


def flow_cost(inst: BatchInstance, grid):
    def cost(j, k, s):
        p = inst.duration[j, k]
        return np.maximum(grid.t0 + s * grid.delta + p - inst.release[j], p)
    return cost


def bsld_cost(inst: BatchInstance, grid, tau: float = BSLD_TAU):
    flow = flow_cost(inst, grid)

    def cost(j, k, s):
        return np.maximum(1.0, flow(j, k, s) / np.maximum(inst.duration[j, k], tau))
    return cost


def completion_cost(inst: BatchInstance, grid):
    def cost(j, k, s):
        return grid.t0 + s * grid.delta + inst.duration[j, k]
    return cost


def _caps(inst: BatchInstance, grid, cost) -> np.ndarray:
    """Last admissible cost of each job: ``U - sum_{i != j} min cost_i`` (U from a greedy grid schedule)."""
    clus, slot = greedy_grid_schedule(grid, inst, cost)
    rows = np.arange(len(inst))
    upper = float(sum(float(cost(j, int(clus[j]), int(slot[j]))) for j in rows))
    low = np.array([min(float(cost(j, k, int(grid.rel[j]))) for k in range(inst.clusters) if grid.dur[j, k] >= 0)
                    for j in rows])
    return upper - (low.sum() - low)


def _solve_sum(inst: BatchInstance, make_cost, max_slots: int, time_limit: float | None,
               root: bool = True) -> float | None:
    if len(inst) == 0:
        return 0.0
    grid = time_grid(inst, max_slots)
    cost = make_cost(inst, grid)
    try:
        model = build_model(grid, inst, cost, last_cost=_caps(inst, grid, cost))
    except InvalidInputError:  # too many nonzeros: no LP bound for this window
        return None
    return _root_bound(model, time_limit, root)


def _root_bound(model, time_limit: float | None, root: bool = True) -> float | None:
    """The larger of the LP optimum and HiGHS's dual bound after the root node and its cuts (None if neither);
    ``root=False``: the LP optimum alone."""
    limit = WINDOW_SECONDS if time_limit is None else min(time_limit, WINDOW_SECONDS)
    t0 = time.perf_counter()
    lp, _ = solve_arrays(model, mip=False, time_limit=limit)
    best = lp.objective if lp.status is Status.OPTIMAL else None
    left = limit - (time.perf_counter() - t0)
    if best is None or left <= 0 or not root:
        return best
    out, _ = solve_arrays(model, mip=True, time_limit=left, options={"mip_max_nodes": ROOT_NODES})
    if out.status not in (Status.INFEASIBLE, Status.ERROR) and out.bound is not None:
        best = max(best, out.bound)
    return best


def lp_flow(inst: BatchInstance, *, max_slots: int = LP_SLOTS, time_limit: float | None = None,
            root: bool = True) -> float | None:
    """Lower bound on ``sum_j (C_j - r_j)`` of these jobs alone (None if the LP is not solved).

    ``root=False`` gives the plain LP relaxation (with the CG rows), without HiGHS's root cuts.
    """
    return _solve_sum(inst, flow_cost, max_slots, time_limit, root)


def lp_bsld(inst: BatchInstance, *, max_slots: int = LP_SLOTS, time_limit: float | None = None) -> float | None:
    """LP lower bound on the total bounded slowdown of these jobs alone."""
    return _solve_sum(inst, bsld_cost, max_slots, time_limit)


def lp_makespan(inst: BatchInstance, *, max_slots: int = LP_SLOTS, time_limit: float | None = None,
                root: bool = True) -> float | None:
    """Lower bound on ``max_j C_j`` (absolute time) of these jobs alone.

    Two bounds, the larger is returned:

    * deadline test: for a candidate ``D`` (one of the columns' completion bounds), the
      LP with only the columns of completion bound ``<= D``. An optimal schedule maps to
      columns whose completion bounds are at most its makespan, so the LP is feasible at
      the largest of them, ``c* <= OPT``; the smallest candidate found feasible by binary
      search is therefore ``<= c* <= OPT``. A test not proved infeasible counts as feasible.
    * the model minimising ``z >= completion_j`` (with the root cuts when ``root``).

    The caps come from a greedy schedule of makespan ``U``: every completion of an optimal
    schedule is at most ``U``.
    """
    if len(inst) == 0:
        return None
    t0 = time.perf_counter()
    grid = time_grid(inst, max_slots)
    cost = completion_cost(inst, grid)
    clus, slot = greedy_grid_schedule(grid, inst, cost)
    upper = max(float(cost(j, int(clus[j]), int(slot[j]))) for j in range(len(inst)))
    try:
        model = build_model(grid, inst, cost, last_cost=np.full(len(inst), upper), makespan=True)
    except InvalidInputError:
        return None
    deadline = _deadline_bound(model, inst, time_limit)
    left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
    zbound = _root_bound(model, left, root) if left is None or left > 0 else None
    values = [v for v in (deadline, zbound) if v is not None]
    return max(values) if values else None


def _deadline_bound(model, inst: BatchInstance, time_limit: float | None) -> float | None:
    """Smallest candidate deadline whose restricted LP is not proved infeasible (binary search over the candidates)."""
    t0 = time.perf_counter()
    n = len(inst)
    cols = np.arange(model.job.size)
    completion = -model.matrix[-n:, :model.job.size].toarray().sum(axis=0)  # rows z - sum c x >= 0
    candidates = np.unique(np.round(completion, 9))
    lo, hi = 0, candidates.size - 1  # the LP at candidates[hi] holds the greedy schedule: feasible
    while lo < hi:
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            return None if lo == 0 else float(candidates[lo])
        mid = (lo + hi) // 2
        keep = cols[completion <= candidates[mid] + 1e-9 * (1 + abs(candidates[mid]))]
        if _restricted_feasible(model, n, keep):
            hi = mid
        else:
            lo = mid + 1
    return float(candidates[lo])


def _restricted_feasible(model, n: int, keep: np.ndarray) -> bool:
    """Is the assignment + capacity LP on the columns ``keep`` (objective 0) not proved infeasible?"""
    if np.bincount(model.job[keep], minlength=n).min() == 0:
        return False
    rows = model.matrix.shape[0] - n  # drop the makespan rows and the z column
    sub = Model(model.job[keep], model.cluster[keep], model.slot[keep], np.zeros(keep.size),
                model.matrix[:rows][:, keep], model.row_lo[:rows], model.row_hi[:rows])
    out, _ = solve_arrays(sub, mip=False, time_limit=None)
    return out.status is not Status.INFEASIBLE


def _stretch_feasible(inst: BatchInstance, grid, stretch: float, time_limit: float | None) -> bool:
    flow = flow_cost(inst, grid)

    def allowed(j, k, s):
        p = inst.duration[j, k]
        return (p <= 0) | (flow(j, k, s) <= stretch * p * (1 + 1e-9))

    try:
        model = build_model(grid, inst, lambda j, k, s: np.zeros(np.size(s)), allowed=allowed)
    except InvalidInputError:
        return True  # not tested: counts as feasible (no bound gained)
    if (np.bincount(model.job, minlength=len(inst)) == 0).any():
        return False
    out, _ = solve_arrays(model, mip=False, time_limit=time_limit)
    return out.status is not Status.INFEASIBLE


def lp_stretch(inst: BatchInstance, low: float, *, max_slots: int = LP_SLOTS, time_limit: float | None = None,
               rel_tol: float = 1e-3, iterations: int = 14) -> float:
    """Raise the lower bound ``low`` on the max stretch by bisection on the LP feasibility test.

    ``low`` must be a valid lower bound (e.g. :func:`lowerbounds.batch.quick.stretch_quick`).
    A test that is not proved infeasible (optimal, or stopped at a limit) counts as
    feasible, so the returned value is always a stretch proved infeasible, or ``low``.
    """
    if len(inst) == 0 or not (inst.pmax > 0).any():
        return low
    grid = time_grid(inst, max_slots)
    hi = max(2.0 * low, low + 1.0)
    for _ in range(8):
        if _stretch_feasible(inst, grid, hi, time_limit):
            break
        low, hi = hi, 2.0 * hi
    else:
        return low
    for _ in range(iterations):
        if hi - low <= rel_tol * low:
            break
        mid = 0.5 * (low + hi)
        if _stretch_feasible(inst, grid, mid, time_limit):
            hi = mid
        else:
            low = mid
    return low
