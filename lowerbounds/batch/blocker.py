"""The blocker bound: the whole-trace Lagrangian with the jobs that cannot run beside a wide job kept off it.

Mean response time, one cluster of ``m`` processors (docs/bounds.md, "Jobs kept off a wide job"). The Lagrangian
bound (:mod:`lowerbounds.batch.lagrangian`) prices the capacity rows and leaves each job alone, so its limit is the
time-indexed LP, which may start a wide job in fractions at several dates and run the narrow jobs beside each
fraction. Here the jobs are cut into groups: a *centre* ``c`` (a job wider than half the cluster) and *members*
``i`` with ``q_i + q_c > m``, which in every schedule end before ``c`` starts or start after it ends. At prices
``lam >= 0``

    L_G(lam) = sum_groups min over the group's starts (members off the centre) of its priced costs
               + sum_{other jobs} min_s c_j(s) - sum_u lam_u m delta,

and for any schedule each group's priced cost is at least its minimum (the schedule's starts are among those the
minimum ranges over) and the priced capacity term is ``<= 0``: ``L_G(lam)`` is a lower bound on the total response
time at every ``lam >= 0``, and at least ``L(lam)`` (a group's minimum is at least the sum of its jobs' own).
The group minimum is bounded from below slot by slot of the centre's start (:mod:`lowerbounds.batch._blocker_kernels`),
which keeps the bound. Every job is in at most one group: each member goes to the centre whose interval is nearest
to its own (``[a_i, a_i + p_i]`` against ``[a_c, a_c + p_c]``, ``a`` the least-cost starts at the prices the search
starts from, or the releases) among the centres it cannot run beside, within :data:`REACH` seconds; any
assignment keeps the bound valid.

The search (:func:`blocker_bound`) starts from the Lagrangian's best prices and takes the same deflected
subgradient steps (:func:`lowerbounds.batch.lagrangian._ascent`) on ``L_G``, sized by a work count.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._blocker_kernels import group_minima, least_costs
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.lagrangian import _ascent, lagrangian_bound, step_work
from vcsched.jitclock import clock

__all__ = ["blocker_groups", "blocker_value", "blocker_bound", "response_lagrangian", "REACH", "GROUP_WORK",
           "BLOCKER_SHARE"]

REACH = 2 * 86400.0
"""A member is kept off a centre only when its interval is within this many seconds of the centre's (a job far from
every wide job would only add work: its least cost is then the same beside every start)."""
GROUP_WORK = 2
"""Work units per priced cost evaluated by the group kernel (the units of :func:`lowerbounds.batch.lagrangian.step_work`,
about :data:`lowerbounds.batch.lagrangian.WORK_PER_SECOND` a second of one core)."""
THETA = 0.0625
"""Step factor of the first blocker step (the Lagrangian's prices are near its optimum: small steps; docs/bounds.md,
"Jobs kept off a wide job", measured against 1/8 and 1/32)."""
BLOCKER_SHARE = 0.3
"""Share of the mean response's Lagrangian work (:func:`response_lagrangian`) that the blocker steps take when the
workload has groups (none: the Lagrangian takes it all)."""


def blocker_groups(inst: BatchInstance, lo_s: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(centres, mptr, midx)``: the groups of a one-cluster instance, centre ``centres[g]`` (the jobs wider than
    half the cluster, by release) with members ``midx[mptr[g]:mptr[g + 1]]``, each assigned by the distance of its
    interval from ``lo_s`` (each job's reference start; default its release) to the centre's (module docstring);
    no group on several clusters."""
    if inst.clusters != 1 or len(inst) == 0:
        return np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64)
    m = int(inst.procs[0])
    q = inst.width.astype(np.int64)
    r = inst.release.astype(float)
    p = inst.duration[:, 0].astype(float)
    centres = np.flatnonzero(2 * q > m)
    centres = centres[np.argsort(r[centres], kind="stable")]
    owner = np.full(len(inst), -1, np.int64)
    dist = np.full(len(inst), np.inf)
    is_centre = np.zeros(len(inst), bool)
    is_centre[centres] = True
    a = r if lo_s is None else lo_s
    for g, c in enumerate(centres):
        d = np.maximum(np.maximum(a[c] - (a + p), a - (a[c] + p[c])), 0.0)
        take = (q + q[c] > m) & ~is_centre & (d <= REACH) & (d < dist)
        owner[take], dist[take] = g, d[take]
    order = np.argsort(owner, kind="stable")
    order = order[owner[order] >= 0]
    mptr = np.searchsorted(owner[order], np.arange(centres.size + 1)).astype(np.int64)
    return centres.astype(np.int64), mptr, order.astype(np.int64)


def blocker_value(inst: BatchInstance, lam: np.ndarray, t0: float, delta: float, groups: tuple,
                  work: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """``(L_G(lam), subgradient)`` at prices ``lam`` (shape ``(1, T)``, ``>= 0``): a lower bound on the total
    response time. ``work`` (one int64), if given, is increased by the step's work units."""
    lam = np.ascontiguousarray(np.maximum(lam, 0.0), dtype=float)
    usage = np.zeros_like(lam)
    count = np.zeros(1, dtype=np.int64)
    centres, mptr, midx = groups
    in_groups, others = group_minima(np.ascontiguousarray(inst.release, dtype=float),
                                     np.ascontiguousarray(inst.width, dtype=np.int64),
                                     np.ascontiguousarray(inst.duration[:, 0], dtype=float), lam[0], float(t0),
                                     float(delta), centres, mptr, midx, usage, count)
    if work is not None:
        work[0] += step_work(GROUP_WORK * int(count[0]), len(inst), lam.size, 0)
    cap = float(inst.procs[0]) * delta
    priced = float(lam.sum() * cap)
    total = in_groups + others
    value = total - priced - 1e-9 * (abs(total) + priced)
    return value, usage - cap


def blocker_bound(inst: BatchInstance, lam: np.ndarray, t0: float, delta: float, *, work: float,
                  time_limit: float = 1e9, start: float = 0.0) -> tuple[float, int]:
    """Best ``L_G`` found by subgradient steps from the prices ``lam`` (shape ``(1, T)``, the Lagrangian's) within
    ``work`` units and ``time_limit`` seconds (a safety stop on :func:`vcsched.jitclock.clock`): ``(bound on the
    total response time, steps)``; ``(-inf, 0)`` without a group. The members are assigned by their least-cost
    starts at ``lam`` (:func:`blocker_groups`). ``start`` (a known bound on the total) sets the first target."""
    lam = np.ascontiguousarray(lam, dtype=float)
    if inst.clusters != 1 or len(inst) == 0 or work <= 0:
        return -np.inf, 0
    lo_s = least_costs(np.ascontiguousarray(inst.release, dtype=float), np.ascontiguousarray(inst.width, dtype=np.int64),
                       np.ascontiguousarray(inst.duration[:, 0], dtype=float), lam[0], float(t0), float(delta))[1]
    groups = blocker_groups(inst, lo_s)
    if groups[0].size == 0:
        return -np.inf, 0
    spent = np.zeros(1, dtype=np.int64)

    def value_fn(inst_, lam_, mode, t0_, delta_, tau, spent_):
        return blocker_value(inst_, lam_, t0_, delta_, groups, spent_)

    limits = (clock() + time_limit, 10**9, float(work), spent)
    best, _, steps, _ = _ascent(inst, 0, lam, t0, delta, 0.0, limits, start, 1e-4, THETA,
                                value_fn=value_fn)
    return float(best), steps


def response_lagrangian(inst: BatchInstance, *, time_limit: float, start: float, refine: int,
                        work: float) -> tuple[float, int, int, float, int]:
    """The mean response's whole-workload bounds within ``work`` units: the Lagrangian
    (:func:`lowerbounds.batch.lagrangian.lagrangian_bound`, ``1 - BLOCKER_SHARE`` of the work when the workload has a
    group, else all of it), then :func:`blocker_bound` from its best prices with the rest.
    ``(Lagrangian bound, its steps, its finest slots, blocker bound or -inf, its steps)``, totals."""
    share = BLOCKER_SHARE if inst.clusters == 1 and bool((2 * inst.width > inst.procs[0]).any()) else 0.0
    end = clock() + time_limit
    prices: list = []
    value, steps, slots = lagrangian_bound(inst, 0, time_limit=time_limit, start=start, refine=refine,
                                           work=work * (1.0 - share), prices=prices)
    if not share or not prices:
        return value, steps, slots, -np.inf, 0
    blocked, more = blocker_bound(inst, prices[0], prices[1], prices[2], work=work * share,
                                  time_limit=end - clock(), start=max(value, start))
    return value, steps, slots, blocked, more
