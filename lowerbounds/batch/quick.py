"""Quick lower bounds of the batch relaxation (:mod:`lowerbounds.batch.instance`), about O(n log n).

All of them relax the clusters into **one fluid machine**: cluster ``k`` processes at
most ``m_k s_k`` units of work per second (work of job ``j``: ``W_j = q_j p_jk s_k``, the
same on every cluster where it fits), so the platform processes at most
``R = sum_k m_k s_k``. Any schedule of the relaxation, seen this way, is a preemptive
(even processor-sharing) schedule of the works ``W_j`` on a machine of rate ``R`` that
starts no job's work before its release; job ``j``'s work is processed at the constant
rate ``q_j s_k`` during ``[S_j, C_j)``.

Bounds (each with its validity argument in the function's docstring):

* :func:`makespan_quick`: the largest of the per-job bound, the area bound after each
  release date and the chain of the wide jobs;
* :func:`flow_quick` (mean response time and mean bounded slowdown): Goemans' mean busy
  time bound, with each job's own duration added (``C_j = M_j + p_j / 2``) and a
  per-job bound for the jobs it leaves out;
* :func:`stretch_quick`: bisection on the stretch with an EDF feasibility test on the fluid machine.

References
----------
M. X. Goemans, *Improved approximation algorithms for scheduling with release dates*,
SODA 1997 (preemptive WSPT minimises the weighted mean busy time on one machine).
W. A. Horn, *Some simple scheduling algorithms*, NRLQ 21 (1974) (EDF and deadlines).
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._kernels import edf_feasible, wspt_mean_busy_times
from lowerbounds.batch.instance import BSLD_TAU, BatchInstance

__all__ = ["makespan_quick", "flow_quick", "weighted_flow_quick", "bsld_quick", "stretch_quick",
           "platform_rate"]


def platform_rate(inst: BatchInstance) -> float:
    """``R = sum_k m_k s_k``: work the whole platform processes per second."""
    return float((inst.procs * inst.speed).sum())


def makespan_quick(inst: BatchInstance) -> float:
    """Lower bound on the makespan ``max C - min r``.

    * per job: ``C_j >= r_j + min_k p_jk``;
    * area: the jobs released at or after ``t`` need their work ``sum W_j`` after ``t``,
      at rate at most ``R``: ``max C >= t + sum_{r_j >= t} W_j / R`` for each release ``t``;
    * wide jobs: a job wider than half of every cluster where it fits shares no cluster
      with another such job at any instant, so these jobs run on at most ``K_w`` clusters
      one at a time (``K_w`` clusters where one of them fits):
      ``max C >= t + sum_{wide, r_j >= t} min_k p_jk / K_w``.
    """
    if len(inst) == 0:
        return 0.0
    r0 = float(inst.release.min())
    best = float((inst.release + inst.pmin).max())
    best = max(best, _tail_bound(inst.release, inst.work / platform_rate(inst)))
    half = inst.fits & (2 * inst.width[:, None] > inst.procs[None, :])
    wide = (half | ~inst.fits).all(axis=1)
    if wide.any():
        kw = int(inst.fits[wide].any(axis=0).sum())
        best = max(best, _tail_bound(inst.release[wide], inst.pmin[wide] / kw))
    return best - r0


def _tail_bound(release: np.ndarray, length: np.ndarray) -> float:
    """``max_t (t + sum_{r_j >= t} length_j)`` over the release dates ``t``."""
    order = np.argsort(release, kind="stable")
    r = release[order]
    suffix = np.cumsum(length[order][::-1])[::-1]
    return float((r + suffix).max())


def _mean_busy_bound(inst: BatchInstance, weight: np.ndarray, rows: np.ndarray, work: np.ndarray,
                     rate: float) -> np.ndarray:
    """Per job of ``rows``: ``M_j + pmin_j / 2 - r_j`` for the WSPT schedule of ``rows`` alone (``work`` at ``rate``)."""
    r = inst.release[rows]
    order = np.argsort(r, kind="stable")
    w, W = weight[rows][order], work[rows][order]
    with np.errstate(divide="ignore", invalid="ignore"):
        key = np.where(W > 0, -w / np.where(W > 0, W, 1.0), -np.inf)
    busy = wspt_mean_busy_times(np.ascontiguousarray(r[order]), np.ascontiguousarray(W), key, float(rate))
    out = np.empty(rows.size)
    out[order] = busy + inst.pmin[rows][order] / 2.0 - r[order]
    return out


def _subset_bound(inst, weight, own, rows, work, rate, rounds) -> float:
    """Best over a few subsets ``A`` of ``rows``: WSPT bound of ``A`` alone plus ``own`` of the other rows."""
    if rows.size == 0:
        return 0.0
    best = float(own[rows].sum())
    active = rows
    for _ in range(rounds):
        term = _mean_busy_bound(inst, weight, active, work, rate)
        value = float((weight[active] * term).sum() + own[rows].sum() - own[active].sum())
        best = max(best, value)
        keep = active[weight[active] * term > own[active]]
        if keep.size == active.size or keep.size == 0:
            break
        active = keep
    return best


def wide_thresholds(inst: BatchInstance, count: int = 3) -> list[int]:
    """Width thresholds ``theta = floor(M / 2^l) + 1`` (``M`` the largest cluster), at least 2, at most ``count``."""
    big = int(inst.procs.max())
    out = []
    for level in range(1, 32):
        theta = big // 2 ** level + 1
        if theta < 2 or len(out) == count:
            break
        if theta not in out:
            out.append(theta)
    return out


def weighted_flow_quick(inst: BatchInstance, weight: np.ndarray, *, own: np.ndarray | None = None,
                        rounds: int = 3) -> float:
    """Lower bound on ``sum_j f_j`` where ``f_j >= w_j (C_j - r_j)`` and ``f_j >= own_j`` (weights ``w_j >= 0``).

    With ``own`` left out, ``own_j = w_j min_k p_jk`` and ``f_j = w_j (C_j - r_j)``.

    Validity. For a subset ``A`` of the jobs, the schedule's fluid image restricted to
    ``A`` is a preemptive schedule of ``A``'s works on the rate-``R`` machine, in which job
    ``j``'s mean busy time is ``M_j = S_j + p_jk / 2`` (its work is processed at a
    constant rate during ``[S_j, C_j)``). Preemptive WSPT (largest ``w_j / W_j`` first)
    minimises ``sum_A w_j M_j`` over all such schedules (Goemans 1997, a polymatroid
    argument that covers processor sharing). Hence
    ``sum_A w_j (C_j - r_j) = sum_A w_j (M_j + p_jk / 2 - r_j) >= sum_A w_j (M^WSPT_j + pmin_j / 2 - r_j)``,
    and each job outside ``A`` has ``f_j >= own_j``. The bound is the best of a few subsets:
    all jobs, then repeatedly the jobs whose WSPT term exceeds their own bound.

    Wide jobs. For a threshold ``theta``, at most ``floor(m_k / theta)`` jobs of width
    ``>= theta`` run at once on cluster ``k``, each processing ``s_k`` units of its work
    ``p_jk s_k`` per second: these jobs alone form a fluid machine of rate
    ``sum_k floor(m_k / theta) s_k`` on which the same argument holds. The jobs split into
    the wide ones and the others, and the two sums are bounded separately (each subset
    alone); the bound is the best of the whole-platform bound and these splits
    (:func:`wide_thresholds`).
    """
    n = len(inst)
    if n == 0:
        return 0.0
    weight = np.asarray(weight, dtype=float)
    own = weight * inst.pmin if own is None else np.asarray(own, dtype=float)
    rows = np.arange(n)
    best = _subset_bound(inst, weight, own, rows, inst.work, platform_rate(inst), rounds)
    unit_work = inst.work / inst.width
    for theta in wide_thresholds(inst):
        wide = inst.width >= theta
        rate = float(((inst.procs // theta) * inst.speed).sum())
        if not wide.any() or wide.all() or rate <= 0:
            continue
        value = (_subset_bound(inst, weight, own, rows[wide], unit_work, rate, rounds)
                 + _subset_bound(inst, weight, own, rows[~wide], inst.work, platform_rate(inst), rounds))
        best = max(best, value)
    return best


def flow_quick(inst: BatchInstance) -> float:
    """Lower bound on the total response time ``sum_j (C_j - r_j)`` (:func:`weighted_flow_quick`, weights 1)."""
    return weighted_flow_quick(inst, np.ones(len(inst)))


def bsld_weights(inst: BatchInstance, tau: float = BSLD_TAU) -> np.ndarray:
    """``1 / max(max_k p_jk, tau)``: a lower bound on ``1 / max(p_{j,k(j)}, tau)`` wherever the job runs."""
    return 1.0 / np.maximum(inst.pmax, tau)


def bsld_quick(inst: BatchInstance, tau: float = BSLD_TAU) -> float:
    """Lower bound on the total bounded slowdown ``sum_j max(1, (C_j - r_j) / max(p_{j,k(j)}, tau))``.

    Validity. The denominator is the duration on the cluster where the job runs, at most
    ``max_k p_jk``, so ``x_j = (C_j - r_j) / max(p_{j,k(j)}, tau) >= w_j (C_j - r_j)``
    with ``w_j = 1 / max(max_k p_jk, tau)``; and ``max(1, x_j) >= max(1, min_k p_jk / max(p_jk, tau))``
    (the job's own term when it does not wait). :func:`weighted_flow_quick` bounds the sum
    of ``f_j = max(1, x_j)`` with these two per-job facts; the bound is also at least ``n``.
    """
    n = len(inst)
    if n == 0:
        return 0.0
    ratio = np.where(inst.fits, inst.duration / np.maximum(np.where(inst.fits, inst.duration, tau), tau), np.inf)
    own = np.maximum(1.0, ratio.min(axis=1))
    return max(float(n), weighted_flow_quick(inst, bsld_weights(inst, tau), own=own))


def stretch_quick(inst: BatchInstance, *, rel_tol: float = 1e-6) -> float | None:
    """Lower bound on the max stretch ``max_j (C_j - r_j) / p_{j,k(j)}`` (jobs with ``p > 0``).

    Validity. A schedule of max stretch ``S`` completes job ``j`` by
    ``r_j + S p_{j,k(j)} <= d_j(S) = r_j + S max_k p_jk``; its fluid image then meets
    these deadlines on the rate-``R`` machine, and preemptive EDF meets every deadline
    whenever some preemptive schedule does. So if EDF misses a deadline, no schedule has
    max stretch ``<= S``: the optimum exceeds ``S``. The bisection returns the largest
    ``S`` found infeasible (at least 1: ``C_j - r_j >= p_{j,k(j)}``). EDF is run with a
    slack of ``1e-9`` relative on the deadlines, so rounding errs towards feasibility
    (a lower bound).

    Wide jobs (one cluster of ``m`` processors): jobs with ``(l + 1) q_j > m`` never run more
    than ``l`` at a time, each at rate 1 (it runs for ``p_j``). Their schedule is then a schedule
    of works ``p_j`` on a machine of rate ``l``, and the same EDF bisection applies to them
    alone, for ``l = 1, 2, 3``; the bound is the largest of these and the fluid one.

    Returns None when no job has a positive duration.
    """
    pos = inst.pmax > 0
    if not pos.any():
        return None
    sub = inst.subset(np.flatnonzero(pos))
    order = np.argsort(sub.release, kind="stable")
    r = np.ascontiguousarray(sub.release[order])
    pmax = np.ascontiguousarray(sub.pmax[order])
    value = _edf_bisection(r, np.ascontiguousarray(sub.work[order]), pmax, platform_rate(sub), rel_tol)
    if sub.clusters == 1:
        m = int(sub.procs[0])
        q = sub.width[order]
        for machines in (1, 2, 3):
            wide = (machines + 1) * q > m
            if wide.any():
                value = max(value, _edf_bisection(r[wide], pmax[wide], pmax[wide], float(machines), rel_tol))
    return value


def _edf_bisection(r, work, p, rate: float, rel_tol: float) -> float:
    """The largest ``S`` (bisection, relative ``rel_tol``) at which preemptive EDF on a machine of ``rate`` misses
    a deadline ``r + S p``; 1 when it meets them all at ``S = 1``. ``r`` sorted."""
    r, work = np.ascontiguousarray(r), np.ascontiguousarray(work)

    def feasible(s: float) -> bool:
        d = r + s * p
        slack = 1e-9 * (1.0 + float(np.abs(d).max()))
        return bool(edf_feasible(r, work, np.ascontiguousarray(d), rate, slack))

    lo, hi = 1.0, 2.0
    if feasible(lo):
        return 1.0
    while not feasible(hi):
        lo, hi = hi, 2.0 * hi
    while hi - lo > rel_tol * lo:
        mid = 0.5 * (lo + hi)
        if feasible(mid):
            hi = mid
        else:
            lo = mid
    return lo
