"""Randomized rounding heuristics RRND and RRNZ (seed 001 §3.2).

Both start from the LP relaxation of the MILP solved by HiGHS
(:func:`lowerbounds.vc.lp_relaxation`; not the closed form of §3.1, whose
solution is uniform). ``e[i, j]`` is the fraction of job ``i`` on host ``j``.
Jobs are taken in index order (the paper's "arbitrary order"); the task of
job ``i`` goes to host ``j`` with probability ``e[i, j]``; if its memory does
not fit there, that host's probability is set to zero and the draw repeated
with the remaining probabilities renormalised; when no host is left the
heuristic fails. RRNZ first replaces every zero ``e[i, j]`` by
``epsilon = 0.01``.

Implementation: the retry loop draws from ``e[i]`` conditioned on the hosts
whose memory fits, and the host finally chosen has exactly that distribution:
``P(j) = e[i, j] / sum of e[i, k] over fitting k``. So one uniform number per
task suffices (inverse-CDF sampling over the fitting hosts); the result is
identical in distribution to the paper's loop, and reproducible for a seed.

Parallel jobs (§5): every task of job ``i`` is drawn independently from
``e[i]`` (the LP's share of the job's tasks on each host), so tasks of a job
may share a host.

The LP can be solved once per instance and shared with the bound:
``rrnd(instance, lp=lp_relaxation(instance))``. ``seconds_first_phase``
includes the LP time only when the LP is solved inside the call;
``extra["lp_seconds"]`` reports it either way.
"""

from __future__ import annotations

import time

import numpy as np

from heuristics.vc._common import failed, finish, validate_instance
from vcsched.errors import InvalidInputError
from vcsched.problems.vc import MEM_EPS, VCInstance
from vcsched.result import Result

__all__ = ["rrnd", "rrnz", "round_lp", "RRNZ_EPSILON"]

RRNZ_EPSILON = 0.01


def round_lp(instance: VCInstance, e: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """Round the fractional assignment ``e`` (jobs x hosts) to a placement.

    Returns the host of every task, or ``None`` when a task fits on no host
    of positive probability.
    """
    H = instance.hosts
    e = np.asarray(e, dtype=float)
    if e.shape != (instance.n_jobs, H):
        raise InvalidInputError(f"`e` must have shape {(instance.n_jobs, H)}, got {e.shape}")
    task_job = instance.task_job
    tm = instance.task_mem
    u = rng.random(instance.n_tasks)
    mem = np.zeros(H)
    out = np.empty(instance.n_tasks, dtype=np.int64)
    cap = 1.0 + MEM_EPS
    for k in range(instance.n_tasks):
        p = np.where(mem + tm[k] <= cap, e[task_job[k]], 0.0)
        cdf = np.cumsum(p)
        total = cdf[-1]
        if not total > 0.0:
            return None
        j = int(np.searchsorted(cdf, u[k] * total, side="right"))
        j = min(j, H - 1)
        while p[j] <= 0.0:  # guard against landing on a zero-width interval by rounding
            j -= 1
        out[k] = j
        mem[j] += tm[k]
    return out


def _solve_lp(instance: VCInstance, lp):
    if lp is not None:
        return lp, False
    from lowerbounds.vc import lp_relaxation

    return lp_relaxation(instance), True


def _rounding(instance: VCInstance, method: str, rng, lp, epsilon: float | None) -> Result:
    t0 = time.perf_counter()
    validate_instance(instance)
    generator = np.random.default_rng(rng)
    t_lp = time.perf_counter()
    lp, solved_here = _solve_lp(instance, lp)
    lp_seconds = time.perf_counter() - t_lp if solved_here else float(getattr(lp, "seconds", 0.0))
    extra = {"lp_seconds": lp_seconds, "lp_shared": not solved_here}
    if not lp.status.has_solution or lp.solution is None:
        return failed(method, t0, f"LP relaxation has no solution ({lp.status.value}): {lp.message}", extra)
    e = np.array(lp.solution.e, dtype=float)
    if epsilon is not None:
        e[e <= 0.0] = epsilon
    placement = round_lp(instance, e, generator)
    t1 = time.perf_counter()
    if placement is None:
        return failed(method, t0, "a job fits on no host of positive probability", extra)
    return finish(instance, method, placement, t0, t1, extra)


def rrnd(instance: VCInstance, *, rng=None, lp: Result | None = None) -> Result:
    """Randomized rounding (RRND, §3.2) of the LP relaxation's ``e_ij``.

    Parameters
    ----------
    instance : VCInstance
    rng : None, int, SeedSequence or Generator
        Normalised with ``np.random.default_rng``; the same seed gives the
        same result.
    lp : Result, optional
        A precomputed :func:`lowerbounds.vc.lp_relaxation` of ``instance``
        (solve it once and share it with the bound and RRNZ).

    Returns
    -------
    Result
        ``feasible`` or ``failed`` (also when the LP has no solution).
    """
    return _rounding(instance, "rrnd", rng, lp, None)


def rrnz(instance: VCInstance, *, rng=None, lp: Result | None = None, epsilon: float = RRNZ_EPSILON) -> Result:
    """RRND with no zero probability (RRNZ, §3.2): zeros of ``e`` become ``epsilon`` (0.01)."""
    if not (isinstance(epsilon, (int, float)) and epsilon > 0):
        raise InvalidInputError(f"`epsilon` must be a positive number, got {epsilon!r}")
    return _rounding(instance, "rrnz", rng, lp, float(epsilon))
