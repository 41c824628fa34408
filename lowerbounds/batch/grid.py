"""Time-indexed models of the batch relaxation: the grid, the LP relaxation and the exact MILP.

The grid (:func:`time_grid`)
----------------------------
Times are measured in slots of ``delta`` seconds from ``t0 = min r``: job ``j`` is
released at slot ``floor((r_j - t0) / delta)`` and takes ``d_jk = floor(p_jk / delta)``
slots on cluster ``k``. **Rounding down is a relaxation.** Map a feasible schedule
(start ``S_j`` on cluster ``k``) to slot ``s_j = floor((S_j - t0) / delta)``: it is
``>=`` the job's release slot, and if jobs ``j`` and ``i`` both occupy slot ``t`` of the
grid (``s <= t < s + d``), then, because ``floor(a) + floor(b) <= floor(a + b)``, both
have ``S < t0 + (t + 1) delta <= C``: they run together just before
``t0 + (t + 1) delta`` in the real schedule, so the grid schedule respects every
cluster's capacity. Its cost keeps the real durations: ``C_j >= t0 + s_j delta + p_jk``,
and ``C_j - r_j >= p_jk``. When every release and duration is a multiple of ``delta``
(integer times, ``delta`` = 1 or a fraction found by :func:`time_grid`) the grid
problem *is* the original one (``exact``).

Horizon. Some optimal schedule of the grid problem has no slot after the last release
where every cluster is idle (shifting everything after such a slot one slot earlier
keeps it feasible and costs no more under a non-decreasing objective), so it ends by
``H = last release slot + sum_j max_k d_jk``; starts are restricted to end by ``H``.
For the flow objective, a feasible value ``U`` (a greedy list schedule of the grid
problem) also gives each job a last start: ``cost_j <= U - sum_{i != j} min cost_i``.
Neither restriction cuts off that optimal schedule, so the LP and the MILP keep it.

The model (:func:`build_model`): ``x_jks = 1`` when job ``j`` starts at slot ``s`` on
cluster ``k``; each job starts once; at each slot of each cluster the running jobs use at
most ``m_k`` processors. Valid inequalities (Chvátal-Gomory roundings of each capacity
row by ``theta``): ``sum_j floor(q_j / theta) [j runs at t] <= floor(m_k / theta)`` for
``theta = floor(m_k / (l + 1)) + 1``, ``l = 1, 2, 3`` (``l = 1``: jobs wider than half
the cluster never overlap) and for ``theta`` each width of the cluster's jobs. They are valid for 0/1 schedules (the left side is an
integer at most ``sum q_j [j runs] / theta <= m_k / theta``) and cut fractional ones.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import scipy.sparse as sp

from lowerbounds.batch.instance import BatchInstance
from vcsched.errors import InvalidInputError
from vcsched.formulations.solve import SolveOutcome, solve_highs_lp

__all__ = ["TimeGrid", "time_grid", "Model", "build_model", "solve_arrays", "greedy_grid_schedule",
           "CG_LEVELS", "MAX_NONZEROS"]


CG_LEVELS = (1, 2, 3)
MAX_NONZEROS = 4_000_000
"""Largest number of nonzeros of a model's capacity and CG rows (a larger model is refused before it is built)."""
_DENOMINATORS = tuple(range(1, 13)) + (14, 15, 20, 21, 24, 28, 30, 35, 42, 60, 84, 105, 120, 210, 420, 840)


@dataclasses.dataclass(frozen=True)
class TimeGrid:
    """A discretisation of an instance: origin ``t0``, slot length ``delta``, release and duration slots."""

    t0: float
    delta: float
    rel: np.ndarray
    dur: np.ndarray  # (n, K) slots, -1 where the job does not fit
    horizon: int
    exact: bool


def _on_grid(values: np.ndarray, step: float) -> bool:
    x = values / step
    return bool(np.all(np.abs(x - np.round(x)) <= 1e-7 * np.maximum(1.0, np.abs(x))))


def _base_step(inst: BatchInstance, t0: float) -> float | None:
    """The largest ``1 / q`` (``q`` from a short list) on which every time is a multiple, or None."""
    times = np.concatenate([inst.release - t0, inst.duration[inst.fits]])
    for q in _DENOMINATORS:
        if _on_grid(times, 1.0 / q):
            return 1.0 / q
    return None


def _floor_slots(values: np.ndarray, delta: float) -> np.ndarray:
    """``floor(values / delta)``; 1e-9 of a slot absorbs the rounding error of times that are on the grid."""
    return np.floor(values / delta + 1e-9).astype(np.int64)


def time_grid(inst: BatchInstance, max_slots: int) -> TimeGrid:
    """The finest grid whose horizon has at most ``max_slots`` slots (exact when the times allow it)."""
    t0 = float(inst.release.min())
    base = _base_step(inst, t0)
    span = float(inst.release.max() - t0 + inst.pmax.sum())
    step = base if base is not None else max(span / max_slots, 1e-9)
    while True:
        rel = _floor_slots(inst.release - t0, step)
        dur = np.where(inst.fits, _floor_slots(np.where(inst.fits, inst.duration, 0.0), step), -1)
        horizon = int(rel.max() + dur.max(axis=1).clip(0).sum()) if len(inst) else 0
        if horizon <= max_slots:
            break
        step *= max(1.5, horizon / max_slots)
    exact = base is not None and math.isclose(step, base) and _on_grid(inst.duration[inst.fits], step)
    return TimeGrid(t0, step, rel, dur, max(horizon, 1), exact)


def greedy_grid_schedule(grid: TimeGrid, inst: BatchInstance, cost) -> tuple[np.ndarray, np.ndarray]:
    """A feasible grid schedule: jobs by release slot, each at the (cluster, slot) of least cost."""
    K = inst.clusters
    free = np.repeat(inst.procs[:, None], grid.horizon + 1, axis=1).astype(np.int64)
    clus = np.zeros(len(inst), dtype=np.int64)
    slot = np.zeros(len(inst), dtype=np.int64)
    for j in np.argsort(grid.rel, kind="stable"):
        best = None
        for k in range(K):
            d = int(grid.dur[j, k])
            if d < 0:
                continue
            s = int(grid.rel[j])
            while d > 0 and (free[k, s:s + d] < inst.width[j]).any():
                s += 1
            c = cost(j, k, s)
            if best is None or c < best[0]:
                best = (c, k, s)
        _, k, s = best
        free[k, s:s + int(grid.dur[j, k])] -= inst.width[j]
        clus[j], slot[j] = k, s
    return clus, slot


@dataclasses.dataclass
class Model:
    """Columns ``(job, cluster, slot)`` and the sparse rows of the time-indexed model."""

    job: np.ndarray
    cluster: np.ndarray
    slot: np.ndarray
    cost: np.ndarray
    matrix: sp.csr_matrix
    row_lo: np.ndarray
    row_hi: np.ndarray


def _columns(grid: TimeGrid, inst: BatchInstance, last_cost: np.ndarray | None, cost_of, allowed):
    """Every (job, cluster, slot) with the job inside the horizon (and under its cost cap when given)."""
    J, Kc, S = [], [], []
    for j in range(len(inst)):
        for k in range(inst.clusters):
            d = int(grid.dur[j, k])
            if d < 0:
                continue
            s = np.arange(int(grid.rel[j]), grid.horizon - d + 1)
            if allowed is not None:
                s = s[allowed(j, k, s)]
            if last_cost is not None:
                s = s[cost_of(j, k, s) <= last_cost[j] + 1e-9 * (1 + abs(last_cost[j]))]
            J.append(np.full(s.size, j)), Kc.append(np.full(s.size, k)), S.append(s)
    cat = (lambda a: np.concatenate(a).astype(np.int64) if a else np.zeros(0, dtype=np.int64))
    return cat(J), cat(Kc), cat(S)


def _thetas(inst: BatchInstance, k: int, widths: np.ndarray) -> list[int]:
    """Divisors of the CG rows of cluster ``k``: ``floor(m / (l + 1)) + 1`` and the widths of its jobs (> 1)."""
    m = int(inst.procs[k])
    cand = {m // (lvl + 1) + 1 for lvl in CG_LEVELS} | {int(w) for w in np.unique(widths) if 1 < w <= m}
    return sorted(t for t in cand if 1 < t <= m)


def _capacity_rows(grid: TimeGrid, inst: BatchInstance, job, clus, slot, extra_cols: int):
    """Capacity rows (``theta = 1``) and CG rows of every cluster: one row per (cluster, theta, slot)."""
    d = grid.dur[job, clus]
    T = grid.horizon
    blocks_r, blocks_c, blocks_v, hi = [], [], [], []
    nrow = 0
    for k in range(inst.clusters):
        m = int(inst.procs[k])
        on = (clus == k) & (d > 0)
        for theta in [1] + _thetas(inst, k, inst.width[job[on]]):
            coef = (inst.width[job] // theta).astype(float)
            cols = np.flatnonzero(on & (coef > 0))
            if cols.size == 0:
                continue
            reps = d[cols]
            c_idx = np.repeat(cols, reps)
            offs = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
            t = slot[c_idx] + offs
            blocks_r.append(nrow + t), blocks_c.append(c_idx), blocks_v.append(coef[c_idx])
            hi.append(np.full(T, float(m // theta)))
            nrow += T
    if not blocks_r:
        return sp.csr_matrix((0, job.size + extra_cols)), np.zeros(0)
    mat = sp.csr_matrix((np.concatenate(blocks_v), (np.concatenate(blocks_r), np.concatenate(blocks_c))),
                        shape=(nrow, job.size + extra_cols))
    return mat, np.concatenate(hi)


def _check_size(grid: TimeGrid, inst: BatchInstance, job, clus) -> None:
    """Refuse (:class:`InvalidInputError` naming :data:`MAX_NONZEROS`) a model whose rows would be too large."""
    d = grid.dur[job, clus].clip(0)
    total = 0
    for k in range(inst.clusters):
        on = clus == k
        total += int(d[on].sum()) * (1 + len(_thetas(inst, k, inst.width[job[on]])))
    if total > MAX_NONZEROS:
        raise InvalidInputError(f"the time-indexed model would have {total:,} nonzeros, more than the limit of "
                                f"{MAX_NONZEROS:,}")


def build_model(grid: TimeGrid, inst: BatchInstance, cost_of, *, last_cost=None, allowed=None,
                makespan: bool = False) -> Model:
    """The time-indexed model: assignment rows (``= 1``), capacity and CG rows (``<=``).

    ``cost_of(j, k, s)`` gives the objective coefficient of the columns; with
    ``makespan=True`` one more column ``z`` is minimised with rows ``z >= sum cost x_j``.
    """
    job, clus, slot = _columns(grid, inst, last_cost, cost_of, allowed)
    _check_size(grid, inst, job, clus)
    n = len(inst)
    cost = np.concatenate([cost_of(job[clus == k], k, slot[clus == k]) for k in range(inst.clusters)]) \
        if job.size else np.zeros(0)
    order = np.concatenate([np.flatnonzero(clus == k) for k in range(inst.clusters)]) if job.size else job
    cost_full = np.empty(job.size)
    cost_full[order] = cost
    extra = 1 if makespan else 0
    assign = sp.csr_matrix((np.ones(job.size), (job, np.arange(job.size))), shape=(n, job.size + extra))
    cap, cap_hi = _capacity_rows(grid, inst, job, clus, slot, extra)
    blocks, lo, hi = [assign, cap], [np.ones(n), np.full(cap_hi.size, -np.inf)], [np.ones(n), cap_hi]
    if makespan:
        rows = sp.csr_matrix((np.concatenate([-cost_full, np.ones(n)]),
                              (np.concatenate([job, np.arange(n)]),
                               np.concatenate([np.arange(job.size), np.full(n, job.size)]))),
                             shape=(n, job.size + 1))
        blocks.append(rows), lo.append(np.zeros(n)), hi.append(np.full(n, np.inf))
        obj = np.zeros(job.size + 1)
        obj[-1] = 1.0
    else:
        obj = cost_full
    return Model(job, clus, slot, obj, sp.vstack(blocks).tocsr(), np.concatenate(lo), np.concatenate(hi))


def solve_arrays(model: Model, *, mip: bool, time_limit: float | None, start: np.ndarray | None = None,
                 options: dict | None = None) -> tuple[SolveOutcome, np.ndarray | None]:
    """Solve the model with HiGHS (``mip``: binary columns) through
    :func:`vcsched.formulations.solve.solve_highs_lp` (statuses, objective check, interrupts).

    ``options``: extra HiGHS options by name (``{"mip_max_nodes": 50}``).
    """
    import highspy

    A = model.matrix.tocsc()
    ncol = A.shape[1]
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = ncol, A.shape[0]
    lp.col_cost_ = model.cost
    lp.col_lower_ = np.zeros(ncol)
    upper = np.ones(ncol)
    if ncol > model.job.size:
        upper[model.job.size:] = inf
    lp.col_upper_ = upper
    lp.row_lower_ = np.where(np.isfinite(model.row_lo), model.row_lo, -inf)
    lp.row_upper_ = np.where(np.isfinite(model.row_hi), model.row_hi, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = ncol, A.shape[0]
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    if mip:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * model.job.size + [highspy.HighsVarType.kContinuous] * (
            ncol - model.job.size)
    starts = (np.arange(ncol, dtype=np.int32), np.asarray(start, dtype=float)) if start is not None and mip else None
    return solve_highs_lp(lp, mip, time_limit=None if time_limit is None else max(float(time_limit), 0.01),
                          start=starts, options=options)
