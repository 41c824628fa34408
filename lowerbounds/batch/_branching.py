"""Compiled test behind the max-stretch bound of :mod:`lowerbounds.batch.branching`: the start of one job ``B`` is
branched on, and each branch's blackout (the time ``B`` surely runs) is checked by preemptive EDF.

One cluster of ``cap`` processors; jobs sorted by release, job ``j`` of duration ``p_j`` and width ``q_j``, deadline
``r_j + S p_j``. The tests, for a blackout ``[a, b]`` during which ``B`` runs (the validity argument is in
:mod:`lowerbounds.batch.branching`):

0. every other job, work ``q_j p_j``, on a machine of rate ``cap`` that drops to ``cap - q_B`` during ``[a, b]``;
1. the jobs with ``q_j > cap - q_B`` (they cannot run beside ``B``), the same machine stopped during ``[a, b]``;
2. the jobs with ``2 q_j > cap`` and ``q_j > cap - q_B`` (no two of them overlap, none overlaps ``B``), work
   ``p_j`` on a machine of rate 1 stopped during ``[a, b]``.

A machine whose rate varies over time is a machine of rate 1 on the clock of its cumulated capacity
``tau(t)``, which is nondecreasing: releases and deadlines keep their order, and preemptive EDF on that clock
meets every deadline whenever some preemptive schedule does (Horn 1974).
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._kernels import edf_feasible
from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["branch_infeasible", "blackout_feasible"]

_SLACK = 1e-9
"""Relative slack of each EDF test (rounding errs towards feasibility, so towards a lower bound)."""


@njit(cache=True)
def _tau(t, rate, a, b, inner):
    """Cumulated capacity from ``a`` to ``t`` (negative before ``a``): rate ``inner`` on ``[a, b]``, ``rate`` else."""
    if t <= a:
        return rate * (t - a)
    if t <= b:
        return inner * (t - a)
    return inner * (b - a) + rate * (t - b)


@njit(cache=True)
def blackout_feasible(release, work, deadline, rate, a, b, inner):
    """True when preemptive EDF meets every deadline on a machine of ``rate``, ``inner`` during ``[a, b]``
    (``release`` sorted; a relative slack of 1e-9 forgiven)."""
    n = release.size
    if n == 0:
        return True
    tr = np.empty(n)
    td = np.empty(n)
    base = _tau(release[0], rate, a, b, inner)  # the EDF loop's clock starts at 0: no release before it
    top = 0.0
    for i in range(n):
        tr[i] = _tau(release[i], rate, a, b, inner) - base
        td[i] = _tau(deadline[i], rate, a, b, inner) - base
        top = max(top, td[i])
    return edf_feasible(tr, work, td, 1.0, _SLACK * (1.0 + top))


@njit(cache=True)
def _subset(mask, release, values, deadline):
    idx = np.flatnonzero(mask)
    return release[idx], values[idx], deadline[idx]


@njit(cache=True)
def branch_infeasible(B, release, p, q, cap, stretch, first, last, pieces):
    """True when, for every piece of ``B``'s possible starts ``[r_B, r_B + (S - 1) p_B]`` (cut into ``pieces``
    equal pieces), one of the tests of the module docstring fails on the jobs ``first..last-1`` (sorted by release;
    ``B`` among them) with the blackout ``[end of the piece, start of the piece + p_B]``; False as soon as a piece
    passes them all, or when the pieces are longer than ``p_B`` (no blackout)."""
    lo = release[B]
    length = (stretch - 1.0) * p[B] / pieces
    if length >= p[B]:
        return False
    r = release[first:last]
    pp = p[first:last]
    qq = q[first:last]
    d = r + stretch * pp
    other = np.ones(r.size, dtype=np.bool_)
    other[B - first] = False
    all_r, all_w, all_d = _subset(other, r, qq * pp, d)
    wide_r, wide_w, wide_d = _subset(other & (qq > cap - q[B]), r, qq * pp, d)
    half_r, half_w, half_d = _subset(other & (2.0 * qq > cap) & (qq > cap - q[B]), r, pp, d)
    for k in range(pieces):
        a = lo + (k + 1) * length
        b = lo + k * length + p[B]
        if not blackout_feasible(half_r, half_w, half_d, 1.0, a, b, 0.0):
            continue
        if not blackout_feasible(wide_r, wide_w, wide_d, cap, a, b, 0.0):
            continue
        if not blackout_feasible(all_r, all_w, all_d, cap, a, b, cap - q[B]):
            continue
        return False
    return True
