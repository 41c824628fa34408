"""Exact clairvoyant optima of small batch windows: the time-indexed MILP (HiGHS), mean response time and makespan.

The MILP is the model of :mod:`lowerbounds.batch.grid` with binary columns, on a grid on
which every release and duration is a multiple of the slot (integer times, or times in
multiples of ``1 / q`` for a small ``q``): there the grid problem is the original problem,
so an optimal MILP solution is a clairvoyant optimum and HiGHS's dual bound is a lower
bound on it at any time. Instances off such a grid, or larger than the limits below, are
refused (:class:`~vcsched.errors.InvalidInputError` naming the limit), never attempted.

The status is HiGHS's, translated once (:func:`vcsched.formulations.solve.translate_status`):
``optimal`` only when the gap is at most 1e-4; at the time limit, ``feasible`` with the
incumbent and the gap, or ``time_limit`` without a solution.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from lowerbounds.batch.grid import build_model, greedy_grid_schedule, solve_arrays, time_grid
from lowerbounds.batch.instance import BatchInstance, schedule_metrics
from lowerbounds.batch.lp import _caps, completion_cost, flow_cost
from vcsched.errors import InvalidInputError
from vcsched.result import Status, relative_gap

__all__ = ["ExactResult", "exact_optimum", "exact_schedule_metrics", "check_exact_size", "MAX_EXACT_JOBS", "MAX_EXACT_SLOTS",
           "MAX_EXACT_COLUMNS"]


MAX_EXACT_JOBS = 40
"""Largest number of jobs the exact method accepts."""
MAX_EXACT_SLOTS = 20_000
"""Largest horizon (slots of the exact grid) the exact method accepts."""
MAX_EXACT_COLUMNS = 200_000
"""Largest number of (job, cluster, slot) columns the exact method accepts."""


@dataclasses.dataclass(frozen=True)
class ExactResult:
    """Outcome of :func:`exact_optimum` (times in seconds; the schedule only when both MILPs are optimal)."""

    status: Status
    mean_response: float | None
    makespan: float | None
    bound: float | None
    gap: float | None
    makespan_status: Status
    makespan_bound: float | None
    makespan_gap: float | None
    seconds: float
    schedule: list | None = None

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["status"], d["makespan_status"] = str(self.status), str(self.makespan_status)
        if d["schedule"] is None:
            del d["schedule"]
        return d


def check_exact_size(inst: BatchInstance):
    """The exact grid of ``inst``, or :class:`InvalidInputError` naming the limit it breaks."""
    n = len(inst)
    if n == 0:
        raise InvalidInputError("the exact method needs at least one job")
    if n > MAX_EXACT_JOBS:
        raise InvalidInputError(f"the exact method accepts at most {MAX_EXACT_JOBS} jobs; this workload has {n} "
                                f"(cut a window with --start/--end or --days, or use --method lp)")
    grid = time_grid(inst, MAX_EXACT_SLOTS)
    if not grid.exact:
        raise InvalidInputError(f"the exact method needs times on a grid of at most {MAX_EXACT_SLOTS} slots "
                                f"(integer seconds, or multiples of 1/q for a small q, and a horizon of at most "
                                f"{MAX_EXACT_SLOTS} slots); use --method lp")
    return grid


def _solution(model, values, grid):
    pick = np.flatnonzero(values[: model.job.size] > 0.5)
    n = int(model.job.max()) + 1
    clus, start = np.zeros(n, dtype=np.int64), np.zeros(n)
    clus[model.job[pick]] = model.cluster[pick]
    start[model.job[pick]] = grid.t0 + model.slot[pick] * grid.delta
    return clus, start


def _start_vector(model, clus, slot):
    x = np.zeros(model.matrix.shape[1])
    for j, (k, s) in enumerate(zip(clus.tolist(), slot.tolist())):
        hit = np.flatnonzero((model.job == j) & (model.cluster == k) & (model.slot == s))
        x[hit[:1]] = 1.0
    return x


def _flow_milp(inst, grid, time_limit):
    cost = flow_cost(inst, grid)
    model = build_model(grid, inst, cost, last_cost=_caps(inst, grid, cost))
    if model.job.size > MAX_EXACT_COLUMNS:
        raise InvalidInputError(f"the exact model would have {model.job.size} columns, more than the limit of "
                                f"{MAX_EXACT_COLUMNS}; use --method lp")
    clus, slot = greedy_grid_schedule(grid, inst, cost)
    return model, solve_arrays(model, mip=True, time_limit=time_limit, start=_start_vector(model, clus, slot))


def _makespan_milp(inst, grid, time_limit):
    cost = completion_cost(inst, grid)
    clus, slot = greedy_grid_schedule(grid, inst, cost)
    upper = max(float(cost(j, int(clus[j]), int(slot[j]))) for j in range(len(inst)))
    model = build_model(grid, inst, cost, last_cost=np.full(len(inst), upper), makespan=True)
    x = _start_vector(model, clus, slot)
    x[-1] = upper
    return model, solve_arrays(model, mip=True, time_limit=time_limit, start=x)


def exact_optimum(inst: BatchInstance, *, time_limit: float = 60.0) -> ExactResult:
    """Clairvoyant optimum of the mean response time and of the makespan (two MILPs).

    ``time_limit`` (seconds) is shared: three quarters for the mean response time, the
    rest (at least what is left) for the makespan.
    """
    t0 = time.perf_counter()
    grid = check_exact_size(inst)
    n = len(inst)
    r0 = float(inst.release.min())
    fmodel, (fout, fval) = _flow_milp(inst, grid, 0.75 * time_limit)
    left = max(time_limit - (time.perf_counter() - t0), 0.25 * time_limit)
    _mmodel, (mout, _mval) = _makespan_milp(inst, grid, left)
    schedule = None
    if fout.status is Status.OPTIMAL and mout.status is Status.OPTIMAL:
        clus, start = _solution(fmodel, fval, grid)
        schedule = [{"job": j, "cluster": int(clus[j]), "start": float(start[j]),
                     "finish": float(start[j] + inst.duration[j, clus[j]])} for j in range(n)]
    status = fout.status if fout.status is not Status.OPTIMAL else mout.status
    scale = (lambda v: None if v is None else v / n)
    shift = (lambda v: None if v is None else v - r0)
    return ExactResult(status, scale(fout.objective), shift(mout.objective), scale(fout.bound), fout.gap,
                       mout.status, shift(mout.bound), relative_gap(shift(mout.objective), shift(mout.bound)),
                       time.perf_counter() - t0, schedule)


def exact_schedule_metrics(inst: BatchInstance, result: ExactResult) -> dict | None:
    """The four metrics of the schedule of an optimal :class:`ExactResult` (None without schedule)."""
    if result.schedule is None:
        return None
    clus = np.array([e["cluster"] for e in result.schedule])
    start = np.array([e["start"] for e in result.schedule])
    return schedule_metrics(inst, clus, start)
