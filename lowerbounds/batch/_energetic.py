"""Compiled energetic-reasoning test behind the max-stretch bound of :mod:`lowerbounds.batch.energetic`.

One cluster of capacity ``cap``; job ``j`` released at ``r_j``, of duration ``p_j`` and width ``w_j`` (a real
number: the widths may have gone through a dual feasible function), must run without interruption inside
``[r_j, r_j + S p_j]``. Its earliest completion is ``ect_j = r_j + p_j``, its latest start
``lst_j = r_j + (S - 1) p_j``. Wherever it starts, it runs at least

    ``o_j(t1, t2) = max(0, min(t2 - t1, p_j, ect_j - t1, t2 - lst_j))``

seconds inside ``[t1, t2]`` (left-shifted or right-shifted, whichever overlaps less), and the cluster offers
``cap (t2 - t1)`` processor-seconds there: ``sum_j w_j o_j(t1, t2) <= cap (t2 - t1)`` in every feasible schedule
(Baptiste, Le Pape and Nuijten, *Constraint-based scheduling*, 2001, §3.3, "energetic reasoning").

:func:`energetic_violation` checks this for ``t1`` at every release date and, for each ``t1``, at every
breakpoint ``t2`` of ``W(t1, .) = sum_j w_j o_j(t1, .)`` (a sum of ramps ``w_j clamp(t2 - b_j, 0, a_j)``, with
``b_j = max(t1, lst_j)`` and ``a_j = min(p_j, ect_j - t1)``; the excess ``W(t1, t2) - cap (t2 - t1)`` is
piecewise linear in ``t2``, so its maximum is at a breakpoint). Only the jobs with ``lst_j < t1 + horizon`` enter
the sum for ``t1``: leaving jobs out only lowers ``W``, so the test stays a relaxation.
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["energetic_violation"]


@njit(cache=True)
def _excess_from(t1, jobs, count, lst, ect, p, w, cap, slack, times, deltas):
    """The largest ``W(t1, t2) - cap (t2 - t1) - slack`` over the breakpoints ``t2`` of ``W(t1, .)``, the sum over
    the ``count`` jobs of ``jobs``; ``times``/``deltas`` are scratch arrays of at least ``2 count`` entries."""
    e = 0
    for i in range(count):
        j = jobs[i]
        a = min(p[j], ect[j] - t1)
        if a <= 0.0 or w[j] <= 0.0:
            continue
        b = max(t1, lst[j])
        times[e] = b
        deltas[e] = w[j]
        times[e + 1] = b + a
        deltas[e + 1] = -w[j]
        e += 2
    if e == 0:
        return -np.inf
    order = np.argsort(times[:e], kind="mergesort")
    value, slope, prev = 0.0, 0.0, t1
    worst = -np.inf
    for k in range(e):
        t = times[order[k]]
        value += slope * (t - prev)
        prev = t
        worst = max(worst, value - cap * (t - t1) - slack * (1.0 + abs(t)))
        slope += deltas[order[k]]
    return worst


@njit(cache=True)
def energetic_violation(release, p, w, cap, stretch, horizon, slack):
    """The first release date ``t1`` (in increasing order) at which the energetic test fails for deadlines
    ``r + stretch p``, or NaN when it holds at every ``t1`` checked (see the module docstring). ``slack`` is relative
    (``slack (1 + |t2|)`` processor-seconds are forgiven, so rounding errs towards feasibility). ``release`` need
    not be sorted."""
    n = release.size
    lst = release + (stretch - 1.0) * p
    ect = release + p
    by_lst = np.argsort(lst, kind="mergesort")
    lst_sorted = lst[by_lst]
    back = 0.0  # jobs whose latest start precedes t1 matter only while ect > t1: lst > t1 - (2 - S) p
    for j in range(n):
        back = max(back, (2.0 - stretch) * p[j])
    t1s = np.unique(release)
    jobs = np.empty(n, dtype=np.int64)
    times = np.empty(2 * n)
    deltas = np.empty(2 * n)
    lo, hi = 0, 0
    for t1 in t1s:
        while lo < n and lst_sorted[lo] < t1 - back:
            lo += 1
        while hi < n and lst_sorted[hi] < t1 + horizon:
            hi += 1
        count = 0
        for i in range(lo, hi):
            j = by_lst[i]
            if ect[j] > t1:
                jobs[count] = j
                count += 1
        if count and _excess_from(t1, jobs, count, lst, ect, p, w, cap * 1.0, slack, times, deltas) > 0.0:
            return t1
    return np.nan
