"""Max stretch: the jobs wider than half the cluster, each kept off its gates, on one machine.

One cluster of ``m`` processors. Two jobs wider than ``m / 2`` never run at the same time, so these jobs (``K``)
form a one-machine problem. In a schedule of max stretch ``<= S`` each job ``B`` of ``K`` starts in its window
``[r_B, r_B + (S - 1) p_B]`` and outside its gates at ``S`` (:func:`lowerbounds.batch.stretchgate.stretch_gates`:
the open intervals of starts that make a job that cannot run beside ``B`` late, whatever the rest of the
schedule). So ``B``'s start lies in a union of closed intervals, its *domain* (:func:`domains`).

The one-machine problem with these domains is tested by constraint propagation (:func:`disjunctive_infeasible`,
Baptiste, Le Pape and Nuijten 2001, ch. 2), to a fixed point:

* **Compulsory part.** If ``lst_j < est_j + p_j`` (earliest and latest start of ``j``'s domain), ``j`` runs during
  ``[lst_j, est_j + p_j)`` wherever it starts, so no other job ``i`` of ``K`` starts in the open interval
  ``(lst_j - p_i, est_j + p_j)``.
* **Detectable precedence.** If ``est_i + p_i > lst_j``, ``i`` cannot end before ``j`` starts, so ``j`` runs
  before ``i``: ``i`` starts at ``est_j + p_j`` or later, and ``j`` at ``lst_i - p_j`` or earlier.

An empty domain proves that no schedule has max stretch ``<= S``. Every deduction is shrunk by ``1e-9`` relative
(gates and removed intervals narrower, precedences detected only beyond it), so rounding errs towards
feasibility. :func:`stretch_chain` bisects on ``S`` above a valid bound, as the energetic bisection does.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch.energetic import gallop_infeasible
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.stretchgate import stretch_gates
from vcsched.jitclock import clock

__all__ = ["domains", "disjunctive_infeasible", "chain_infeasible", "stretch_chain", "MAX_SWEEPS", "CHAIN_WORK"]

MAX_SWEEPS = 50
"""Sweeps of the propagation at most (a test that reaches it without a fixed point proves nothing)."""
CHAIN_WORK = 1e8
"""Work cap of :func:`stretch_chain` (pairs of jobs looked at, over all its tests): a test that reaches it proves
nothing, so the bound is a function of the instance (0.02-1 million pairs per test on the whole traces)."""
_EPS = 1e-9


def _complement(lo: float, hi: float, glo: np.ndarray, ghi: np.ndarray) -> list:
    """``[lo, hi]`` minus the open intervals ``(glo[i], ghi[i])`` (sorted by ``glo``), as closed intervals."""
    out, cur = [], lo
    for a, b in zip(glo, ghi):
        if b <= cur:
            continue
        if a >= hi:
            break
        if a >= cur:
            out.append((cur, a))
        cur = max(cur, b)
    if cur <= hi:
        out.append((cur, hi))
    return out


def domains(release, width, p, procs: int, stretch: float) -> tuple[np.ndarray, list]:
    """The jobs wider than ``procs / 2`` (positive durations; ``release`` sorted) and the domain of each (module
    docstring): ``(rows, doms)``, each domain a list of closed intervals ``(a, b)`` in increasing order (empty when
    every start is in a gate)."""
    gptr, glo, ghi, glast = stretch_gates(release, width, p, procs, stretch, share=0.5)
    rows = np.flatnonzero((2 * width > procs) & (p > 0))
    doms = []
    for b in rows:
        lo, hi = glo[gptr[b]:gptr[b + 1]], ghi[gptr[b]:gptr[b + 1]]
        eps = _EPS * (1.0 + np.abs(hi))
        doms.append(_complement(float(release[b]), float(glast[b]), lo + eps, hi - eps))
    return rows, doms


def _remove(dom: list, x: float, y: float) -> list:
    """``dom`` minus the open interval ``(x, y)``."""
    out = []
    for a, b in dom:
        if b <= x or a >= y:
            out.append((a, b))
            continue
        if a <= x:
            out.append((a, x))
        if b >= y:
            out.append((y, b))
    return out


def _clip(dom: list, lo: float, hi: float) -> list:
    return [(max(a, lo), min(b, hi)) for a, b in dom if max(a, lo) <= min(b, hi)]


def disjunctive_infeasible(doms: list, p: np.ndarray, max_sweeps: int = MAX_SWEEPS, work: np.ndarray | None = None,
                           max_work: float = np.inf) -> bool:
    """True when the propagation of the module docstring empties a domain: the jobs (durations ``p``, start
    domains ``doms``, each a list of closed intervals) cannot run one at a time. ``doms`` is left as found.
    ``work[0]`` counts the pairs looked at; once it passes ``max_work`` the test stops unproved (False)."""
    doms = [list(d) for d in doms]
    if any(not d for d in doms):
        return True
    k = len(doms)
    p = np.asarray(p, dtype=float)
    est = np.array([d[0][0] for d in doms])
    lst = np.array([d[-1][1] for d in doms])
    for _ in range(max_sweeps):
        changed = False
        for i in range(k):
            if work is not None:
                work[0] += k
                if work[0] > max_work:
                    return False
            eps = _EPS * (1.0 + abs(lst[i]) + p[i])
            other = np.arange(k) != i
            comp = np.flatnonzero(other & (lst < est + p - eps))
            new = doms[i]
            for j in comp[np.argsort(lst[comp], kind="stable")]:
                new = _remove(new, lst[j] - p[i] + eps, est[j] + p[j] - eps)
            before = other & (est[i] + p[i] > lst + eps)  # i cannot precede them: they precede i
            after = other & (est + p > lst[i] + eps)  # they cannot precede i: i precedes them
            lo = float((est[before] + p[before]).max()) - eps if before.any() else -np.inf
            hi = float((lst[after] - p[i]).min()) + eps if after.any() else np.inf
            new = _clip(new, lo, hi)
            if not new:
                return True
            if new != doms[i]:
                doms[i], changed = new, True
                est[i], lst[i] = new[0][0], new[-1][1]
        if not changed:
            return False
    return False


def chain_infeasible(release, width, p, procs: int, stretch: float, work: np.ndarray | None = None,
                     max_work: float = np.inf) -> bool:
    """True when the propagation proves that no schedule of these jobs (one cluster; ``release`` sorted) has max
    stretch ``<= stretch`` (``work``, ``max_work``: as :func:`disjunctive_infeasible`'s)."""
    rows, doms = domains(release, width, p, procs, stretch)
    return bool(rows.size) and disjunctive_infeasible(doms, p[rows], work=work, max_work=max_work)


def stretch_chain(inst: BatchInstance, low: float, *, time_limit: float | None = None, rel_tol: float = 1e-3,
                  max_work: float = CHAIN_WORK) -> float:
    """Raise the max-stretch lower bound ``low`` (a valid one) by the test of :func:`chain_infeasible`.

    One cluster only (on several, ``low`` is returned as is). As :func:`~lowerbounds.batch.energetic.stretch_energetic`:
    ``low (1 + rel_tol)`` first, the bisection only when that is proved infeasible; a test begun before
    ``time_limit`` seconds runs to its end, none starts after; the tests share the work cap ``max_work``. Returns
    the largest stretch proved infeasible, or ``low``."""
    if inst.clusters != 1 or len(inst) == 0:
        return low
    deadline = np.inf if time_limit is None else clock() + time_limit
    o = np.argsort(inst.release, kind="stable")
    r, q, p = inst.release[o], inst.width[o].astype(np.int64), inst.duration[o, 0]
    procs = int(inst.procs[0])
    work = np.zeros(1)

    def infeasible(s: float) -> bool | None:
        if clock() > deadline or work[0] > max_work:
            return None
        return chain_infeasible(r, q, p, procs, s, work, max_work)

    return gallop_infeasible(infeasible, low, rel_tol)
