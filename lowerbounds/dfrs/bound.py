"""A lower bound on the maximum stretch of every DFRS or batch schedule of a workload.

Relaxation (clairvoyant, offline, preemption and migration free): a schedule of max stretch at most
``S`` finishes job ``j`` by ``d_j = r_j + S p_j``. Cut time at every ``r_j`` and ``d_j``; in interval
``k`` of length ``L_k`` let ``x_jk`` be the work of job ``j`` done there (yield integrated over time).
Every schedule of max stretch ``<= S`` gives ``x`` with

* ``x_jk = 0`` outside ``[r_j, d_j]`` and ``0 <= x_jk <= L_k`` (yield at most 1),
* ``sum_k x_jk = p_j``,
* CPU: ``sum_j q_j x_jk <= hosts * cores * L_k`` (a job of ``q`` tasks at yield ``y`` uses ``q y / cores``
  of the hosts' total CPU ``hosts``),
* memory (``memory=True``): ``sum_j q_j m_j x_jk <= hosts * L_k`` (a job runs at least ``x_jk`` seconds
  of the interval, holding ``q_j m_j`` of the hosts' total memory ``hosts`` meanwhile).

A batch schedule on ``hosts x cores`` processors (one core per task, yield 1) satisfies every row but
memory, which it does not model: with ``cores = 1`` a task is alone on its host, so memory holds too;
with ``cores > 1`` the memory rows must be left out (``memory=False``) to bound the batch baselines.

When the LP (maximise ``sum x``, feasible iff it reaches ``sum p``; HiGHS through
:func:`scipy.optimize.linprog`) is infeasible at ``S``, every schedule has max stretch ``> S``.
Feasibility is monotone in ``S`` (later deadlines), so a bisection gives the bound: the largest ``S``
proven infeasible (at least 1). Dropping jobs relaxes the LP, so the workload is cut into windows of
consecutive jobs (by submit time, half-overlapping) and the bound is the largest over the windows
(method ``lp-windows``); a window is skipped when its jobs all fit at yield 1 from their releases
(:func:`dedicated_fits`), and bisected only when it is infeasible at the best bound so far.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import csr_matrix

from lowerbounds.reference import Bracket, Side
from vcsched.problems.dfrs import DfrsJobs, DfrsPlatform

__all__ = ["StretchBound", "stretch_bracket", "max_stretch_bound", "deadline_feasible", "DEFAULT_WINDOW", "DEFAULT_RTOL"]

DEFAULT_WINDOW = 64
"""Jobs per window of the LP (windows overlap by half)."""
DEFAULT_RTOL = 1e-3
"""Bisection stops when ``hi / lo - 1 <= rtol``; the bound returned is ``lo``, proven."""
FEAS_RTOL = 1e-7


@dataclasses.dataclass(frozen=True)
class StretchBound:
    value: float
    method: str
    seconds: float
    lps: int

    def to_dict(self) -> dict:
        return {"value": self.value, "method": self.method, "seconds": self.seconds}


def stretch_bracket(bound: StretchBound, schedules: dict[str, tuple[float | None, float]]) -> Bracket:
    """The reference contract (:class:`lowerbounds.reference.Bracket`) for the max stretch: the lower side is
    ``bound``; the upper side the smallest max stretch of the simulated ``schedules`` (``{policy: (max stretch,
    seconds)}``), each a valid schedule of the workload (method ``policy:<name>``), hence at least the optimum
    of the relaxation; ``None`` when no schedule is given. Status ``bracketed`` (or ``optimal`` when they meet)."""
    known = {name: v for name, v in schedules.items() if v[0] is not None}
    lower = Side(bound.value, bound.method, bound.seconds)
    if not known:
        return Bracket("max_stretch", lower)
    best = min(known, key=lambda n: known[n][0])
    return Bracket("max_stretch", lower, Side(float(known[best][0]), f"policy:{best}", float(known[best][1])))


def deadline_feasible(r: np.ndarray, p: np.ndarray, q: np.ndarray, m: np.ndarray, hosts: int, cores: int,
                      s: float, *, memory: bool = True) -> bool | None:
    """Whether the LP of the module docstring is feasible at stretch ``s`` (``None`` if HiGHS fails)."""
    d = r + s * p
    cuts = np.unique(np.concatenate([r, d]))
    length = np.diff(cuts)
    first = np.searchsorted(cuts, r)
    last = np.searchsorted(cuts, d)  # intervals first..last-1
    counts = last - first
    n_var = int(counts.sum())
    job = np.repeat(np.arange(r.size), counts)
    interval = np.arange(n_var) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(first, counts)
    rows = [csr_matrix((np.ones(n_var), (job, np.arange(n_var))), shape=(r.size, n_var))]
    rhs = [p]
    rows.append(csr_matrix((q[job].astype(float), (interval, np.arange(n_var))), shape=(length.size, n_var)))
    rhs.append(hosts * cores * length)
    if memory:
        rows.append(csr_matrix((q[job] * m[job], (interval, np.arange(n_var))), shape=(length.size, n_var)))
        rhs.append(hosts * length)
    from scipy.sparse import vstack

    res = linprog(-np.ones(n_var), A_ub=vstack(rows).tocsr(), b_ub=np.concatenate(rhs),
                  bounds=np.column_stack([np.zeros(n_var), length[interval]]), method="highs")
    if res.status != 0:
        return None
    return -res.fun >= p.sum() * (1 - FEAS_RTOL) - 1e-9


def dedicated_fits(r: np.ndarray, p: np.ndarray, q: np.ndarray, m: np.ndarray, hosts: int, cores: int, *,
                   memory: bool = True) -> bool:
    """Whether running every job at yield 1 from its release (``[r_j, r_j + p_j)``) never exceeds the hosts'
    total CPU nor (``memory``) their total memory: then the LP is feasible at ``S = 1``, so at every ``S``,
    and the window cannot raise the bound (a sufficient test that spares the LP)."""
    t = np.concatenate([r, r + p])
    order = np.lexsort((np.concatenate([np.ones(r.size), np.zeros(r.size)]), t))  # ends before starts
    cpu = np.concatenate([q, -q]).astype(float)[order]
    if np.cumsum(cpu).max(initial=0.0) > hosts * cores + 1e-9:
        return False
    if memory:
        mem = np.concatenate([q * m, -q * m])[order]
        return bool(np.cumsum(mem).max(initial=0.0) <= hosts + 1e-9)
    return True


def _bisect(test: Callable[[float], bool], lo: float, rtol: float) -> tuple[float, int]:
    """``lo`` is infeasible (or the floor 1); the largest ``S`` proven infeasible, and the LPs solved."""
    lps = 0
    hi = max(lo * 2.0, 2.0)
    while not test(hi):
        lps += 1
        lo, hi = hi, hi * 2.0
    lps += 1
    while hi / lo - 1.0 > rtol:
        mid = (lo * hi) ** 0.5
        lps += 1
        if test(mid):
            hi = mid
        else:
            lo = mid
    return lo, lps


def max_stretch_bound(jobs: DfrsJobs, platform: DfrsPlatform, *, memory: bool = True, window: int = DEFAULT_WINDOW,
                      rtol: float = DEFAULT_RTOL, progress: Callable[[int], None] | None = None) -> StretchBound:
    """The lower bound of the module docstring over the jobs of positive run time (1.0 without any)."""
    t0 = time.perf_counter()
    pos = jobs.run > 0
    r, p = jobs.submit[pos], jobs.run[pos]
    q, m = jobs.tasks[pos], jobs.mem[pos]
    best, lps = 1.0, 0
    step = max(window // 2, 1)
    starts = range(0, max(r.size - step, 1), step) if r.size else ()
    for count, a in enumerate(starts):
        sl = slice(a, min(a + window, r.size))

        def test(s: float, sl=sl) -> bool:
            ok = deadline_feasible(r[sl], p[sl], q[sl], m[sl], platform.hosts, platform.cores, s, memory=memory)
            return True if ok is None else ok  # a failed LP proves nothing: treated as feasible

        if dedicated_fits(r[sl], p[sl], q[sl], m[sl], platform.hosts, platform.cores, memory=memory):
            if progress is not None:
                progress(count + 1)
            continue
        lps += 1
        if not test(best * (1 + rtol)):
            value, used = _bisect(test, best * (1 + rtol), rtol)
            best, lps = max(best, value), lps + used
        if progress is not None:
            progress(count + 1)
    return StretchBound(best, "lp-windows" if r.size else "trivial", time.perf_counter() - t0, lps)
