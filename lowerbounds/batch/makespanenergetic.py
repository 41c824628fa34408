"""Makespan lower bound by energetic reasoning with a common deadline (the unfinished parts of the earlier jobs).

Energetic reasoning (Baptiste, Le Pape and Nuijten, *Constraint-based scheduling*, 2001, §3.3; the max-stretch
form is :mod:`lowerbounds.batch.energetic`) with every job's deadline at the makespan's end ``C``: in an interval
``[t, C]`` job ``j`` does at least its left-shifted part, all of its work when ``r_j >= t`` and, when it is
released before ``t``, the part it cannot do before ``t`` even if it starts at ``r_j``. On the fluid machine of
:mod:`lowerbounds.batch.quick` (rate ``R = sum_k m_k s_k``, job ``j`` carrying ``W_j = q_j p_jk s_k`` on every
cluster) this reads, for every release date ``t``:

    ``max C >= t + (sum_{r_j >= t} W_j + sum_{r_j < t} W_j max(0, 1 - (t - r_j) / min_k p_jk)) / R``.

Validity. Job ``j`` runs on some cluster ``k`` during ``[S_j, S_j + p_jk)`` with ``S_j >= r_j``, processing
``q_j s_k`` units a second, so it processes at least ``q_j s_k max(0, r_j + p_jk - t) = W_j max(0, 1 - (t - r_j) /
p_jk)`` after ``t``, and that is at least the term above because ``min_k p_jk <= p_jk``. The platform processes at
most ``R`` units a second, so the work left at ``t`` takes at least its ``/ R`` seconds after ``t``. Without the
second sum this is the area bound of :func:`~lowerbounds.batch.quick.makespan_quick`; the second sum counts the
long jobs released just before ``t`` (on the busiest week of CTC-SP2 it adds 0.73 % to that bound).

The same holds for the wide jobs of :func:`~lowerbounds.batch.quick.makespan_quick` (a job wider than half of every
cluster where it fits shares no cluster with another such job): on the ``K_w`` clusters where one fits they are a
chain of at most ``K_w`` at a time, each for its duration, so ``max C >= t + (sum_{wide, r_j >= t} p_j + sum_{wide,
r_j < t} max(0, r_j + p_j - t)) / K_w`` with ``p_j = min_k p_jk``.

Intervals ``[t1, t2]`` ending before ``C`` (the right-shifted parts of the long jobs) were tried too, with the
compiled test of :mod:`lowerbounds.batch._energetic` and a bisection on ``C``, with and without dual feasible
functions of the widths: on the busiest weeks of CTC-SP2 and SDSC-SP2 they gave exactly this bound, so only this
closed form, O(n log n), is computed.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.quick import platform_rate

__all__ = ["makespan_energetic", "tail_parts_bound"]

_SLACK = 1e-9
"""Relative slack taken off the bound (the sweep's sums round; rounding errs towards a lower bound)."""


def tail_parts_bound(release: np.ndarray, amount: np.ndarray, duration: np.ndarray) -> float:
    """``max_t (t + sum_{r_j >= t} a_j + sum_{r_j < t} a_j max(0, 1 - (t - r_j) / d_j))`` over the release dates
    ``t`` (``a``: ``amount``, ``d``: ``duration``; jobs of zero duration count only from their release), in
    O(n log n): the running parts are ``sum (a_j e_j / d_j) - t sum (a_j / d_j)`` over the jobs with ``r_j < t <
    e_j = r_j + d_j``, from prefix sums over the releases and over the ends. Times are taken from the first release
    (smaller sums, less rounding); the result, in the input's times, is lowered by a relative ``1e-9``."""
    r = np.asarray(release, dtype=float)
    if r.size == 0:
        return 0.0
    r0 = float(r.min())
    r = r - r0
    a = np.asarray(amount, dtype=float)
    d = np.asarray(duration, dtype=float)
    pos = d > 0
    rate = np.where(pos, a / np.where(pos, d, 1.0), 0.0)
    end = r + np.where(pos, d, 0.0)
    t = np.unique(r)
    by_r = np.argsort(r, kind="stable")
    r_sorted = r[by_r]
    suffix = np.concatenate((np.cumsum(a[by_r][::-1])[::-1], [0.0]))
    before = np.searchsorted(r_sorted, t, side="left")  # jobs with r_j < t
    after_sum = suffix[before]
    cum_rate = np.concatenate(([0.0], np.cumsum(rate[by_r])))
    cum_rate_end = np.concatenate(([0.0], np.cumsum((rate * end)[by_r])))
    by_e = np.argsort(end, kind="stable")
    e_sorted = end[by_e]
    cum_rate_e = np.concatenate(([0.0], np.cumsum(rate[by_e])))
    cum_rate_end_e = np.concatenate(([0.0], np.cumsum((rate * end)[by_e])))
    ended = np.searchsorted(e_sorted, t, side="right")  # jobs with e_j <= t (all released before t)
    running = (cum_rate_end[before] - cum_rate_end_e[ended]) - t * (cum_rate[before] - cum_rate_e[ended])
    value = float((t + after_sum + np.maximum(running, 0.0)).max())
    return r0 + value - _SLACK * (1.0 + abs(value))


def makespan_energetic(inst: BatchInstance) -> float:
    """Lower bound on the makespan ``max C - min r``: the larger of the fluid and the wide-job forms of the module
    docstring (at least the per-job bound ``max (r_j + min_k p_jk) - min r``)."""
    if len(inst) == 0:
        return 0.0
    r0 = float(inst.release.min())
    pmin = inst.pmin
    best = float((inst.release + pmin).max())
    best = max(best, tail_parts_bound(inst.release, inst.work / platform_rate(inst), pmin))
    half = inst.fits & (2 * inst.width[:, None] > inst.procs[None, :])
    wide = (half | ~inst.fits).all(axis=1)
    if wide.any():
        kw = int(inst.fits[wide].any(axis=0).sum())
        best = max(best, tail_parts_bound(inst.release[wide], pmin[wide] / kw, pmin[wide]))
    return best - r0
