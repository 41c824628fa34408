"""Lagrangian bound of the whole workload: the capacity of each time slot priced, each job alone (docs/bounds.md).

Relaxation. Cut time into ``T`` slots ``[t0 + u delta, t0 + (u + 1) delta)`` (``t0`` the first
release). In every schedule of the relaxation (:mod:`lowerbounds.batch.instance`) cluster ``k``
runs at most ``m_k`` processors at each instant, so over slot ``u`` the jobs on ``k`` use an area

    sum_{j on k} q_j |[S_j, S_j + p_jk) cap slot u| <= m_k delta                        (A)

(an integral of the instantaneous capacity; nothing is rounded: starts stay continuous). Keep
each job's own constraints (one cluster, ``S_j >= r_j``, non-preemptive) and move the rows (A)
into the objective with prices ``lam[k, u] >= 0``:

    L(lam) = sum_j min_{k, s >= r_j} [f_j(s, k) + q_j sum_u lam[k, u] |[s, s + p_jk) cap slot u|]
             - sum_{k, u} lam[k, u] m_k delta.

For any schedule and any ``lam >= 0`` the priced term of (A) is ``<= 0``, and each job's bracket is
at least its minimum, so ``L(lam) <= sum_j f_j`` of that schedule: ``L(lam)`` is a lower bound on
the optimum of ``sum_j f_j`` **at every price vector**, whatever the slot length and however the
prices were found. ``f_j`` is the job's response time ``C_j - r_j`` (mean response, ``mode`` 0) or
its bounded slowdown ``max(1, (C_j - r_j) / max(p_jk, tau))`` (``mode`` 1). Each minimum is exact
(:mod:`lowerbounds.batch._lagrange_kernels`: the cost is piecewise linear in ``s``). Prices are
improved by projected subgradient steps (Polyak steps towards a target above the best value, the
step factor halved after :data:`_STALL` steps without improvement and carried from one grid to the
next); the bound is the best ``L`` seen, less a relative ``1e-9`` for rounding.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._lagrange_kernels import job_minima
from lowerbounds.batch.instance import BSLD_TAU, BatchInstance
from vcsched.jitclock import clock

__all__ = ["lagrangian_bound", "lagrangian_value", "slot_grid", "step_work", "SLOTS", "WORK_PER_SECOND"]

SLOTS = 16384
"""Slots of the price grid over the horizon."""
_STALL = 30
PLATEAU = (200, 1e-4)
"""``(steps, gain)``: a level that has a finer one after it ends once its best value rose by less than ``gain``
(relative) over the last ``steps`` steps, so that the finer grids, which can still raise the bound, get the work
left (the finest level goes on until its step factor has converged or its work is spent)."""
THETA_FLOOR = 0.125
"""Least step factor a level starts with: each level starts at the factor the previous one ended with (its steps
were sized for the same prices), raised to this floor when that level had converged (its factor gone to ~0)."""
DEFLECT = 0.5
"""Weight of the previous direction in the next step's direction (deflected subgradient; 0: plain subgradient)."""
_LEVELS = 5
FINEST_SHARE = 16
"""Grids finer than ``slots`` are searched only while a slot stays at least ``1 / FINEST_SHARE`` of the shortest
job: below that, starts rounded to slots already move every job by less than that share of its duration, and on a
small workload (a few jobs over a short horizon) the finer grids would only spend the time limit."""
CANDIDATE_WORK = (1, 1)
"""Work units per candidate start priced, mean response (mode 0) and bounded slowdown (mode 1)."""
JOB_WORK = 18
"""Work units per job and step (its cost at its release, the scans' set-up, its usage)."""
PRICE_WORK = 7
"""Work units per price and step (the cumulated prices, the subgradient, direction, projection)."""
STEP_WORK = 1800
"""Work units per step (the Python calls around the kernel)."""
WORK_PER_SECOND = 250_000_000
"""Work units (:func:`step_work`) that a step takes about a second of one core to do; callers derive a work cap
from their time limit with it. Fitted, with the unit costs above, on full steps at the searched prices of KTH-SP2,
CTC-SP2, SDSC-SP2, HPC2N, lublin_256 and CTC-SP2's busiest week, 1,024 to 131,072 slots, both modes (4 ns a
candidate, 71 ns a job, 29 ns a price, 7 us a step; each step within 0.6-1.35 x of its fit)."""
SLOTS_PER_JOB = 8
"""Nor beyond this many slots per job: a whole trace (tens of thousands of jobs) refines up to ``refine x slots``,
a window of a few jobs does not refine at all."""


def slot_grid(inst: BatchInstance, slots: int = SLOTS) -> tuple[float, float, int]:
    """``(t0, delta, T)``: ``T`` slots from the first release to past every job's release plus its longest
    duration and the fluid area bound (any horizon is valid: rows left out only weaken the bound)."""
    t0 = float(inst.release.min())
    area = float(inst.work.sum() / (inst.procs * inst.speed).sum())
    end = max(float((inst.release + inst.pmin).max()), t0 + area) + float(inst.pmin.max())
    delta = max((end - t0) / slots, 1e-9)
    return t0, delta, int(slots)


def lagrangian_value(inst: BatchInstance, lam: np.ndarray, mode: int, t0: float, delta: float,
                     tau: float = BSLD_TAU, work: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """``(L(lam), subgradient)`` at prices ``lam`` (shape ``(K, T)``, ``>= 0``): a lower bound on ``sum_j f_j``.
    ``work`` (one int64), if given, is increased by the step's :func:`step_work`."""
    lam = np.ascontiguousarray(np.maximum(lam, 0.0), dtype=float)
    usage = np.zeros_like(lam)
    count = np.zeros(1, dtype=np.int64)
    minima = job_minima(int(mode), np.ascontiguousarray(inst.release, dtype=float),
                        np.ascontiguousarray(inst.width, dtype=np.int64), np.ascontiguousarray(inst.duration, dtype=float),
                        lam, float(t0), float(delta), float(tau), usage, count)
    if work is not None:
        work[0] += step_work(int(count[0]), len(inst), lam.size, int(mode))
    cap = (inst.procs.astype(float) * delta)[:, None]
    priced = float((lam * cap).sum())
    total = float(minima.sum())
    value = total - priced
    value -= 1e-9 * (abs(total) + priced)
    return value, usage - cap


def step_work(candidates: int, jobs: int, prices: int, mode: int = 0) -> int:
    """Work units of one step: the candidate starts priced (:data:`CANDIDATE_WORK` each, by ``mode``),
    :data:`JOB_WORK` per job, :data:`PRICE_WORK` per price (the step's array operations) and :data:`STEP_WORK`. A
    count, the same on every machine: about :data:`WORK_PER_SECOND` of them take a second of one core."""
    return CANDIDATE_WORK[mode] * int(candidates) + JOB_WORK * int(jobs) + PRICE_WORK * int(prices) + STEP_WORK


def lagrangian_bound(inst: BatchInstance, mode: int, *, time_limit: float = 10.0, slots: int = SLOTS,
                     iterations: int = 10_000, start: float | None = None, tau: float = BSLD_TAU,
                     refine: int = 1, work: float | None = None, prices: list | None = None) -> tuple[float, int, int]:
    """Best ``L(lam)`` found within ``time_limit`` seconds, ``iterations`` steps and ``work`` work units
    (:func:`step_work`; None: no cap): ``(bound on sum_j f_j, steps, slots of the finest grid searched)``.

    Coarse to fine: the prices are first searched on ``slots / 2^l`` slots (:data:`_LEVELS` levels), and each
    level's best prices, every slot split in two at the same price, start the next (the same ``L`` on the finer
    grid, which it can only improve). When the level of ``slots`` slots has converged (with ``refine > 1``: reached
    its plateau, :data:`PLATEAU`, as the coarser levels do) with time and steps left, the grid keeps doubling, up to
    ``refine x slots`` (while a slot stays at least ``1 / FINEST_SHARE`` of the
    shortest job and there are at most ``SLOTS_PER_JOB`` slots per job). ``start``, a known lower bound on the sum,
    sets the first target. Each level starts with the step factor the previous one ended with, at least
    :data:`THETA_FLOOR` (the first with 1). ``prices``, a list, receives ``[lam, t0, delta]``: the best prices of
    the last grid searched (the best value's: each level starts from the previous one's best) and that grid.

    Each level gets its share of what is left, ``1 / (levels left among the first 5)``: of the work units when
    ``work`` is given (so the search, and the bound, are the same on every run whenever the clock does not stop
    it first; the clock is then a safety stop for the whole search), else of the time. The clock is
    :func:`vcsched.jitclock.clock`, which leaves out numba's compile time.
    """
    if len(inst) == 0:
        return 0.0, 0, 0
    deadline = clock() + time_limit
    cap = np.inf if work is None else float(work)
    spent = np.zeros(1, dtype=np.int64)
    best, steps, lam, theta = -np.inf, 0, None, 1.0
    levels = _levels(inst, slots, refine)
    for i, T in enumerate(levels):
        t0, delta, T = slot_grid(inst, T)
        lam = np.zeros((inst.clusters, T)) if lam is None else np.repeat(lam, T // lam.shape[1], axis=1)
        share = 1.0 / max(_LEVELS - i, 1)
        now = clock()
        stage_end = deadline if work is not None else now + (deadline - now) * share
        limits = (stage_end, iterations - steps, spent[0] + (cap - spent[0]) * share, spent)
        value, lam, done, theta = _ascent(inst, mode, lam, t0, delta, tau, limits, max(best, start or 0.0),
                                          1e-4 if i >= _LEVELS - 1 else 1e-2, max(theta, THETA_FLOOR),
                                          i < len(levels) - 1)
        best, steps = max(best, value), steps + done
        if steps >= iterations or spent[0] >= cap or clock() >= deadline:
            break
    if prices is not None:
        prices[:] = [lam, t0, delta]
    return float(best), steps, T


def _levels(inst: BatchInstance, slots: int, refine: int) -> list[int]:
    """Slot counts searched in turn: ``slots / 2^l`` (:data:`_LEVELS` levels), then up to ``refine x slots``."""
    levels = [max(slots >> level, 1) for level in range(_LEVELS - 1, -1, -1)]
    shortest = float(inst.pmin.min())
    return levels + [slots << level for level in range(1, max(int(refine), 1).bit_length())
                     if slot_grid(inst, slots << level)[1] * FINEST_SHARE >= shortest
                     and slots << level <= SLOTS_PER_JOB * len(inst)]


def _ascent(inst, mode, lam, t0, delta, tau, limits, start, min_theta, theta=1.0, plateau=False, value_fn=None):
    """Projected subgradient steps from ``lam``: ``(best L, its prices, steps, last step factor)``; Polyak steps
    towards ``1.1 x`` the best value so far (or ``start``) along the deflected direction ``d = g + DEFLECT d_prev``
    (projected like ``g``), the step factor (first ``theta``) halved (back at the best prices, the direction reset)
    after :data:`_STALL` steps without improvement, until it falls below ``min_theta`` or, with ``plateau``, the
    best value stops rising (:data:`PLATEAU`). ``limits``: ``(clock
    deadline, steps, work units level, spent)``, the steps stopping at the deadline, after ``steps`` or once
    ``spent[0]`` (increased by each step's work) reaches the level. ``value_fn`` (default :func:`lagrangian_value`,
    same arguments and result) gives the bound and its subgradient at the prices."""
    deadline, iterations, work_end, spent = limits
    best, best_lam = -np.inf, lam
    stall, steps, direction, history = 0, 0, None, []
    window, gain = PLATEAU
    value_fn = value_fn or lagrangian_value
    while steps < iterations and spent[0] < work_end and clock() < deadline:
        value, g = value_fn(inst, lam, mode, t0, delta, tau, spent)
        steps += 1
        if value > best * (1 + 1e-6) if best > 0 else value > best:
            best, best_lam, stall = value, lam, 0
        else:
            stall += 1
            if stall >= _STALL:
                theta, stall, lam, direction = theta / 2, 0, best_lam, None
                if theta < min_theta:
                    break
                continue
        history.append(best)
        if plateau and len(history) > window and best < history[-1 - window] + gain * abs(history[-1 - window]):
            break
        direction = g if direction is None else g + DEFLECT * direction
        direction = np.where((lam <= 0) & (direction < 0), 0.0, direction)
        norm = float((direction * direction).sum())
        if norm <= 0:
            break
        target = max(best, start) * 1.1 + 1.0
        lam = np.maximum(lam + theta * (target - value) / norm * direction, 0.0)
    return best, best_lam, steps, theta
