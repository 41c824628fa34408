"""Lower bounds on the metrics of the time-shared servers simulator (seed 003, Caniou & Jeannot RR-5168).

The simulator (:mod:`vcsched.sim.timeshare`) runs each task in three phases on the server the
agent chose: a dedicated input transfer, a computation under processor sharing (each of the
``n`` tasks computing gets ``1/n`` of the CPU), a dedicated output transfer; metrics (§3,
:func:`vcsched.problems.timeshare.metrics`) are the makespan ``max C_i``, the sumflow
``Σ (C_i - a_i)``, the maxflow and the maxstretch ``max (C_i - a_i) / d_i`` where ``a_i`` is
the date the request reaches the agent and ``d_i`` the task's duration on *its own* server
unloaded (the tables' input + computation + output).

Every bound here is a lower bound on the value of the metric for **any** mapping of the tasks
to the servers (so for any agent, clairvoyant or not) in any run that completes every task;
a run that loses tasks to the memory model reports metrics over fewer tasks and is not
bounded. The bounds read the platform and the workload (and the real work factors, when
the instance has noise), never a policy nor the simulator.

Methods (``METHODS``):

* ``quick``: closed forms, O(n log n): every task's flow is at least its shortest unloaded
  duration; the critical path and an area bound for the makespan (also for DAGs);
* ``lp``: ``quick`` and the preemptive relaxations of :mod:`lowerbounds.timeshare.lp`: the
  interval-indexed LP for sumflow, bisection on a deadline-feasibility LP for maxstretch and
  maxflow, one LP for the makespan; for sumflow, maxflow and maxstretch also the pairwise
  processor-sharing bounds of :mod:`lowerbounds.timeshare.pairs` (``method`` is ``pairs`` when
  they give the value);
* ``exact``: the best clairvoyant mapping (:mod:`lowerbounds.timeshare.mapping`) per metric, with
  its status; its optimum is the reference itself (and a bound on every mapping's value);
* ``best``: ``lp``, then ``exact`` when the workload is small enough, keeping the larger bound.

**The stretch's denominator depends on the server chosen.** The bisection on a maxstretch
``σ`` gives task ``i`` on server ``s`` the deadline ``a_i + σ d_is`` with the denominator of
*that* server: a fraction of the task placed on ``s`` must be computed inside
``[a_i + input_is, a_i + σ d_is - output_is]``. A mapping of stretch at most ``σ`` meets the
deadline of the server it uses, so it is a feasible point; the relaxation may split a task
between servers with different deadlines, which only enlarges its feasible set.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from lowerbounds.timeshare.lp import (
    VARIABLE_BUDGET,
    bisect_threshold,
    deadline_feasible,
    makespan_lp,
    sumflow_interval_lp,
)
from lowerbounds.timeshare.pairs import (
    backlog_edges,
    computing_servers,
    default_window,
    max_group_bounds,
    spread_edges,
    sumflow_backlog_bound,
    sumflow_pair_bound,
    tracked_servers,
)
from lowerbounds.timeshare.types import INTERRUPTED, METRICS, BoundsInterrupted, MetricBound, TaskCosts
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.jitclock import clock
from vcsched.names.references import BOUND_METHODS
from vcsched.problems.timeshare import Platform, TimeshareWorkload

__all__ = ["TaskCosts", "MetricBound", "METRICS", "METHODS", "quick_bounds", "lp_bounds", "timeshare_bounds",
           "critical_path", "area_bound", "sumflow_lp_bound", "maxstretch_lp_bound", "maxflow_lp_bound",
           "makespan_lp_bound", "pairs_bounds", "merge_slow_servers", "slow_servers"]


METHODS = BOUND_METHODS
BISECTION_BUDGET = 25_000
"""Most variables of one feasibility LP of a bisection (finer than that, the grid is coarsened: still valid)."""
MAKESPAN_LP_TASKS = 60
"""The makespan LP keeps the last tasks by ``est`` only (dropping tasks is a relaxation)."""
MAX_REFINES = 2
"""Times the sumflow LP is solved again with more levels while it leaves tasks with a tail."""
EXACT_RTOL_TASKS = 100
"""Bisections stop at 1e-6 relative up to this many tasks, at 1e-3 above (each step is an LP of the whole
workload; the bound proven is valid either way)."""
"""The makespan LP keeps the last tasks (by earliest submission) only: dropping tasks is a relaxation."""


# ----------------------------------------------------------------------------- quick bounds

def critical_path(costs: TaskCosts) -> float:
    """``max_i (est_i + min_s dur_is)``: a task reaches the agent no earlier than ``est_i`` and then needs at
    least its shortest unloaded duration (a DAG task is submitted when its parents are done, each no
    earlier than its own ``est + min dur``, by induction in topological order)."""
    if costs.n == 0:
        return 0.0
    return float(np.max(costs.est + costs.dur.min(axis=1)))


def area_bound(costs: TaskCosts) -> float:
    """Makespan >= ``t0 + Σ_{est_i >= t0} min_s(λ_s p_is) / Σ_s λ_s`` for every ``t0`` in the ``est`` dates.

    Validity: the tasks with ``est_i >= t0`` are computed inside ``[t0, C_max]``; with ``x_is`` the
    (0/1) mapping, server ``s`` computes ``Σ_i x_is p_is <= C_max - t0``. Weighting server ``s`` by
    ``λ_s >= 0`` and summing: ``Σ_i Σ_s x_is λ_s p_is <= (C_max - t0) Σ λ_s``, and the left side is
    at least ``Σ_i min_s λ_s p_is`` (weak duality of the fractional assignment). ``λ_s`` is the
    server's speed (1 / its mean computation time), which makes the bound tight on related servers.
    """
    if costs.n == 0:
        return 0.0
    lam = 1.0 / costs.p.mean(axis=0)
    work = (costs.p * lam).min(axis=1)
    order = np.argsort(costs.est, kind="stable")
    suffix = np.cumsum(work[order][::-1])[::-1] / lam.sum()
    return float(np.max(costs.est[order] + suffix))


def quick_bounds(costs: TaskCosts) -> dict[str, float]:
    """The closed-form bounds of every metric (see the module docstring).

    ``sumflow >= Σ_i min_s dur_is`` and ``maxflow >= max_i min_s dur_is`` (a task's flow is at least
    its unloaded duration on the server it uses: the transfers are dedicated and processor sharing
    never computes a task faster than alone); ``maxstretch >= max_i min_s dur_is / den_is`` (1 without
    noise); the makespan is at least the critical path and the area bound.
    """
    if costs.n == 0:
        return {m: 0.0 for m in METRICS}
    dur = costs.dur
    return {"makespan": max(critical_path(costs), area_bound(costs)),
            "sumflow": float(dur.min(axis=1).sum()),
            "maxflow": float(dur.min(axis=1).max()),
            "maxstretch": float((dur / costs.den).min(axis=1).max())}


# ----------------------------------------------------------------------------- LP bounds

def _remaining(deadline: float | None) -> float | None:
    return None if deadline is None else max(deadline - clock(), 0.01)


def sumflow_lp_bound(costs: TaskCosts, *, deadline: float | None = None, budget: int = VARIABLE_BUDGET) -> float:
    """Sumflow >= the interval LP (:func:`lowerbounds.timeshare.lp.sumflow_interval_lp`) of the tasks without
    parents + ``Σ min dur`` of the others.

    A DAG task's flow is measured from its (schedule-dependent) submission, so it enters only through
    its shortest duration; dropping tasks from the LP keeps it a relaxation (the remaining tasks' pieces
    still satisfy every row). The finest grid has cells of a tenth of the shortest computation,
    coarsened to stay within ``budget`` variables; each task is time-indexed over four times its
    shortest duration after its arrival. While the LP leaves tasks with a tail (computed after their
    window, without using capacity) and time remains, it is solved again with cells twice as long and
    two more levels of coarser cells behind the window (``levels``), up to ``MAX_REFINES`` times.
    Every solve is a valid bound; the largest is returned.
    """
    idx = np.flatnonzero(costs.fixed)
    rest = float(costs.dur.min(axis=1)[~costs.fixed].sum()) if costs.n else 0.0
    if idx.size == 0:
        return rest
    sub = costs.subset(idx)
    a = sub.arrival
    window = 4.0 * sub.dur.min(axis=1)
    delta = float(sub.p.min()) / 10.0
    delta *= max(1.0, sub.p.shape[1] * float(np.sum(window / delta + 2.0)) / budget)
    best = -math.inf
    for refine in range(MAX_REFINES + 1):
        outcome, tail = sumflow_interval_lp(a, a[:, None] + sub.inp, sub.p, sub.out, window=window,
                                            delta=delta * 2 ** refine, levels=1 + 2 * refine,
                                            time_limit=_remaining(deadline))
        if outcome.objective is not None:
            best = max(best, outcome.objective)
        if outcome.objective is None or not (tail > 1e-6).any():
            break
        if deadline is not None and clock() + 2.5 * outcome.seconds > deadline:
            break  # the next solve, with more levels, would not end in time
    lower = float(sub.dur.min(axis=1).sum())
    return max(best, lower) + rest


WORK_PER_SECOND = 30_000_000
"""Work units (one state of a programme for one task: ``states × tasks``) the pair and backlog programmes of
:func:`pairs_bounds` may spend per second of their time share (about 17 ns of CPU each for the backlog programme
at 500 tasks with the dominated states left out, so about half a core: the runs are chosen by this count, not by
the clock, and a run gives the same bound on a loaded machine; the deadline only stops a run as a safety)."""


WIDE_STATE_LIMIT = 1 << 22
"""Most states (``S^K``) of the pair bound's programme when the window widens (32 MiB per value array)."""


def pairs_bounds(costs: TaskCosts, *, deadline: float | None = None, work: float | None = None) -> dict[str, float]:
    """The processor-sharing pair bounds (:mod:`lowerbounds.timeshare.pairs`) of sumflow, maxflow and maxstretch.

    Only the tasks without parents enter (a DAG task's flow starts at a schedule-dependent date);
    the others add ``Σ min dur`` to the sumflow and are covered by the quick bounds of the others.
    ``work`` (default: :data:`WORK_PER_SECOND` times the seconds to the ``deadline``, a
    :func:`vcsched.jitclock.clock` date; no refinement without either) is spent on the backlog bound's runs
    (:func:`_backlog`: the first :data:`SPREAD_AFTER` of :data:`BACKLOG_STEPS`, the run with every server tracked
    :func:`_spread` when slow servers are merged, the finer runs), then on wider windows of the pair bound
    (:func:`~lowerbounds.timeshare.pairs.sumflow_pair_bound` ``window=K+1``, ``K+2``, ...), each costing its states
    times the tasks, while the next one fits in what is left and has at most :data:`WIDE_STATE_LIMIT`
    states. The choice depends on ``work`` alone; the ``deadline`` only stops a run that overruns it (given up).
    Every window gives a valid bound (the pairs dropped have non-negative terms), a wider one keeps more pairs, and
    the largest is kept. The wider windows run with the slow servers merged into one label
    (:func:`merge_slow_servers`, when at least two are slow), which makes each window cheaper. An interrupt raises
    :class:`~lowerbounds.timeshare.types.BoundsInterrupted` with the bounds computed before it (the sumflow of the
    last window completed).
    """
    idx = np.flatnonzero(costs.fixed)
    rest = float(costs.dur.min(axis=1)[~costs.fixed].sum()) if costs.n else 0.0
    if idx.size == 0:
        return {"sumflow": rest, "maxflow": 0.0, "maxstretch": 0.0}
    if work is None and deadline is not None:
        work = WORK_PER_SECOND * max(deadline - clock(), 0.0)
    sub = costs.subset(idx)
    args = (sub.arrival, sub.inp, sub.p, sub.out)
    done: dict[str, float] = {}
    try:
        done["maxflow"], done["maxstretch"] = max_group_bounds(*args, sub.den)
        done["sumflow"] = sumflow_pair_bound(*args) + rest
        if work is not None:
            wide = merge_slow_servers(*args) or args
            left = _backlog(wide, done, rest, work, deadline, BACKLOG_STEPS[:SPREAD_AFTER])
            if wide is not args:
                left = _spread(args, done, rest, left, deadline)
            left = _backlog(wide, done, rest, left, deadline, BACKLOG_STEPS[SPREAD_AFTER:], first=False)
            _widen(wide, done, rest, default_window(sub.p.shape[1], sub.n), left, deadline)
    except KeyboardInterrupt:
        raise BoundsInterrupted(done) from None
    return done


MERGE_RATIO = 4.0
"""Servers whose mean computation time is at least this many times the fastest server's are merged into one
label of the wider pair windows (:func:`merge_slow_servers`)."""


def slow_servers(p: np.ndarray) -> np.ndarray:
    """Per server, whether its mean computation time is at least :data:`MERGE_RATIO` times the fastest server's."""
    mean = p.mean(axis=0)
    return mean >= MERGE_RATIO * mean.min()


def merge_slow_servers(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray) -> tuple | None:
    """The pair bound's inputs with the slow servers (mean computation at least :data:`MERGE_RATIO` times the
    fastest's) merged into one label that has no pair terms, or ``None`` when fewer than two servers are slow.

    Validity: for any mapping, relabel the tasks on slow servers with the merged label. Its cost per task,
    ``min`` over the slow servers of the unloaded duration (given as the input time, with no computation, so
    that it shares nothing), is at most the task's cost on its server; the pair terms of tasks on the slow servers
    are dropped (they are >= 0); the other servers' pair terms, and the window's sharing on them, are unchanged.
    So the relabelled objective is at most the mapping's, and the programme's minimum over the labels is a lower
    bound on every mapping's sumflow. With fewer labels (``S' < S``) the programme affords wider windows: at high
    load the fast servers' backlog, which wider windows see, matters more than the little sharing on slow ones.
    """
    slow = slow_servers(p)
    if slow.sum() < 2:
        return None
    keep = np.flatnonzero(~slow)
    dur = (inp + p + out)[:, slow].min(axis=1)
    zero = np.zeros((p.shape[0], 1))
    return (arrival, np.hstack([inp[:, keep], dur[:, None]]), np.hstack([p[:, keep], zero]),
            np.hstack([out[:, keep], zero]))


BACKLOG_STEPS = ((1, 8), (1, 16), (1, 32), (2, 32), (1, 64), (2, 64))
"""The backlog bound's runs (:func:`_backlog`): ``(window, d)``, buckets ``d`` times finer than the least computation
on a tracked server; each run is done when its cost fits in the work left."""
SPREAD_AFTER = 3
"""The runs of :data:`BACKLOG_STEPS` done before the run with every server tracked (:func:`_spread`); the finer ones
come after it. On scenario (b) at mu = 15 the run with every server tracked at buckets 1/8 gives more than the finer
runs on the merged labels at the same work (seed 0: 34,861 against 33,976 at the default minute's work), so it takes
the work first."""


def _backlog(args: tuple, done: dict, rest: float, work: float, deadline: float | None,
             steps: tuple = BACKLOG_STEPS, first: bool = True) -> float:
    """:func:`pairs_bounds`'s backlog bounds (:func:`~lowerbounds.timeshare.pairs.sumflow_backlog_bound`, on the
    labels of :func:`merge_slow_servers`), raising ``done["sumflow"]`` as each run completes; returns the work left.

    The runs are those of ``steps`` (a part of :data:`BACKLOG_STEPS`) with at most :data:`WIDE_STATE_LIMIT` states,
    each costing its states times the tasks, in that order (each finer than the last) while the next one's cost fits
    in the work left; with ``first`` the first one is always run. Each completed run's bound stands, so a run the
    safety deadline stops loses only its own refinement."""
    p = args[2]
    tracked = tracked_servers(p)
    if not tracked:
        return work
    least = float(min(p[:, s].min() for s in tracked))
    if not least > 0:
        return work
    runs = []
    for window, finer in steps:
        size = p.shape[1] ** window * backlog_edges(p, tracked, least / finer).size ** len(tracked)
        if size <= WIDE_STATE_LIMIT:
            runs.append((window, least / finer, size * p.shape[0]))
    for r, (window, step, cost) in enumerate(runs):
        if (r or not first) and cost > work:
            break
        work -= cost
        value = sumflow_backlog_bound(*args, window=window, step=step, tracked=tracked, deadline=deadline)
        if value is None:
            return 0.0
        done["sumflow"] = max(done["sumflow"], value + rest)
    return max(work, 0.0)


SPREAD_STEPS = (8, 10, 12, 16)
"""The runs of the backlog bound with every server tracked (:func:`_spread`): the fast servers' buckets this many times
finer than their least computation (:func:`~lowerbounds.timeshare.pairs.spread_edges`), window 0."""
SPREAD_UNIT = 3
"""Work units one state of a run with every server tracked costs per task (it computes the buckets of every server
for each of its successors: about 3 times the CPU of a state of the runs on the merged labels, 50 ns against
17-19 ns on 500 tasks, with the dominated states left out)."""


def _spread(args: tuple, done: dict, rest: float, work: float, deadline: float | None) -> float:
    """:func:`pairs_bounds`'s backlog bound with every server tracked, the slow ones too (on the servers as they are,
    not merged: the merged label shares nothing, so a mapping that sends many tasks to the slow servers is charged
    their durations alone), raising ``done["sumflow"]``; returns the work left.

    It runs the finest of :data:`SPREAD_STEPS` with at most :data:`WIDE_STATE_LIMIT` states whose cost,
    :data:`SPREAD_UNIT` times its states times the tasks, fits in the work left (none when even the first does not):
    a finer run sees more than a coarser one, so the budget goes to one run."""
    p = args[2]
    slow = slow_servers(p)
    tracked = computing_servers(p)
    if not all(p[:, s].min() > 0 for s in tracked):  # a bucket width is a share of a least computation
        return work
    chosen = None
    for finer in SPREAD_STEPS:
        edges = spread_edges(p, slow, finer)
        states = int(np.prod([e.size for e in edges]))
        cost = SPREAD_UNIT * states * p.shape[0]
        if states > WIDE_STATE_LIMIT or cost > work:
            break
        chosen = edges, cost
    if chosen is None:
        return work
    edges, cost = chosen
    value = sumflow_backlog_bound(*args, window=0, tracked=tracked, edges=edges, deadline=deadline)
    if value is None:
        return 0.0
    done["sumflow"] = max(done["sumflow"], value + rest)
    return max(work - cost, 0.0)


def _widen(args: tuple, done: dict, rest: float, K: int, work: float, deadline: float | None) -> None:
    """:func:`pairs_bounds`'s wider windows, raising ``done["sumflow"]`` as each one completes (window ``K`` costs
    ``S^K`` times the tasks of ``work``)."""
    S, n = args[2].shape[1], args[2].shape[0]
    while K + 1 < n and S ** (K + 1) <= WIDE_STATE_LIMIT and S ** (K + 1) * n <= work:
        K += 1
        work -= S ** K * n
        wider = sumflow_pair_bound(*args, window=K, deadline=deadline)
        if wider is None:
            return
        done["sumflow"] = max(done["sumflow"], wider + rest)


def _grid_for(release: np.ndarray, deadline: np.ndarray, p: np.ndarray, budget: int) -> float | None:
    """``None`` (exact breakpoints) when their variables fit in ``budget``, else the finest grid that does."""
    ok = np.isfinite(release) & np.isfinite(deadline) & (deadline > release)
    points = np.unique(np.concatenate([release[ok], deadline[ok]]))
    count = int(np.sum(np.searchsorted(points, deadline[ok]) - np.searchsorted(points, release[ok])))
    if count <= budget:
        return None
    grid = float(p.min()) / 8.0
    while np.sum(np.ceil(deadline[ok] / grid) - np.floor(release[ok] / grid)) > budget:
        grid *= 2.0
    return grid


def _bisect_deadlines(release: np.ndarray, deadline_of, p: np.ndarray, lo: float, *, deadline: float | None,
                      budget: int, rtol: float | None) -> float:
    """Bisection (:func:`lowerbounds.timeshare.lp.bisect_threshold`) on ``deadline_feasible(release, deadline_of(v))``."""
    def feasible(value: float) -> bool | None:
        d = deadline_of(value)
        grid = _grid_for(release, d, p, budget)
        ok, _ = deadline_feasible(release, d, p, grid=grid, time_limit=_remaining(deadline))
        return ok

    if rtol is None:
        rtol = 1e-6 if release.shape[0] <= EXACT_RTOL_TASKS else 1e-3
    bound, _, _ = bisect_threshold(feasible, lo, rtol=rtol, deadline=deadline)
    return bound


def maxstretch_lp_bound(costs: TaskCosts, *, deadline: float | None = None, budget: int = BISECTION_BUDGET,
                        rtol: float | None = None, lower: float = 0.0) -> float:
    """Maxstretch >= the smallest ``σ`` at which the preemptive relaxation meets every deadline
    ``a_i + σ d_is`` (bisection to ``rtol``).

    The fraction of task ``i`` on server ``s`` is computed inside ``[a_i + input_is, a_i + σ den_is -
    output_is]``, with the denominator ``den_is`` of that server (see the module docstring). Only
    tasks without parents enter (their arrival is known); the quick bound covers the others.
    Infeasibility at ``σ`` proves that no mapping has a maxstretch ``<= σ``, so the largest ``σ``
    proven infeasible is a bound (:func:`lowerbounds.timeshare.lp.deadline_feasible`). The search
    starts from ``lower`` when it is a larger valid bound (e.g. :func:`pairs_bounds`'s).
    """
    return _deadline_bound(costs, "maxstretch", lambda sub, a, v: a + v * sub.den - sub.out, deadline=deadline,
                           budget=budget, rtol=rtol, lower=lower)


def maxflow_lp_bound(costs: TaskCosts, *, deadline: float | None = None, budget: int = BISECTION_BUDGET,
                     rtol: float | None = None, lower: float = 0.0) -> float:
    """Maxflow >= the smallest ``F`` at which the preemptive relaxation meets every deadline ``a_i + F``
    (bisection from ``max(quick, lower)``; same argument as :func:`maxstretch_lp_bound` with one deadline
    per task)."""
    return _deadline_bound(costs, "maxflow", lambda sub, a, v: a + v - sub.out, deadline=deadline, budget=budget,
                           rtol=rtol, lower=lower)


def _deadline_bound(costs: TaskCosts, metric: str, due, *, deadline, budget, rtol, lower: float) -> float:
    """The bisection shared by the maxstretch and maxflow bounds: the tasks without parents, the
    windows ``[a_i + input_is, due(sub, a, v)]``, from ``max(quick bound, lower)``."""
    lo = max(quick_bounds(costs)[metric], lower)
    idx = np.flatnonzero(costs.fixed)
    if idx.size == 0:
        return lo
    sub = costs.subset(idx)
    a = sub.arrival[:, None]
    return max(lo, _bisect_deadlines(a + sub.inp, lambda v: due(sub, a, v), sub.p, lo,
                                     deadline=deadline, budget=budget, rtol=rtol))


def makespan_lp_bound(costs: TaskCosts, *, deadline: float | None = None, tasks: int = MAKESPAN_LP_TASKS) -> float:
    """Makespan >= the least makespan of the preemptive relaxation (:func:`lowerbounds.timeshare.lp.makespan_lp`)
    of the last ``tasks`` tasks by ``est``, each released at ``est_i + input_is``.

    Validity: a task reaches the agent no earlier than ``est_i`` (:func:`critical_path`), so these
    windows contain every real schedule's; dropping the other tasks and the DAG's precedences only
    relaxes the problem.
    """
    lo = quick_bounds(costs)["makespan"]
    if costs.n == 0:
        return lo
    idx = np.argsort(costs.est, kind="stable")[-tasks:]
    outcome = makespan_lp(costs.est[idx, None] + costs.inp[idx], costs.p[idx], costs.out[idx], lo,
                          time_limit=_remaining(deadline))
    return lo if outcome.objective is None else max(lo, outcome.objective)


PAIR_SHARE = 0.75
"""Share of ``lp_bounds``'s time limit that sizes the pair and backlog bounds' work (:data:`WORK_PER_SECOND` per
second of it; at 500 tasks they, not the interval LP, give the sumflow bound, and the bisections' LPs do not improve
on the group bounds). The clock stops them only at the whole time limit, as a safety."""
TIME_SHARE = {"makespan": 0.1, "sumflow": 0.5, "maxflow": 0.2, "maxstretch": 0.2}
"""Share of the time limit of each metric's LP bound (the time one leaves unused goes to the next ones)."""
BISECTED = ("maxflow", "maxstretch")
"""The metrics whose LP bound is a bisection: it runs to its tolerance (a count of LPs: about a dozen at 500 tasks,
3 s of CPU each metric on scenario (b)), the end of the whole time limit only a safety, so that its value does not
depend on the machine's load (cut at its share, a loaded machine's bound was lower)."""

LP_BOUNDS = {"makespan": makespan_lp_bound, "sumflow": sumflow_lp_bound, "maxflow": maxflow_lp_bound,
             "maxstretch": maxstretch_lp_bound}


def lp_bounds(costs: TaskCosts, *, time_limit: float = 60.0, metrics=METRICS) -> dict[str, MetricBound]:
    """``quick`` and the LP bound of each metric (the larger; ``method`` says which), sharing ``time_limit``.

    An interrupt (SIGINT) stops the computation: each metric keeps the bound proven before it (at least the
    quick one, and the pair bounds computed by then), marked ``interrupted`` unless it was complete."""
    quick = quick_bounds(costs)
    out = {}
    stop = clock() + time_limit
    ordered = [m for m in METRICS if m in metrics]
    tic = clock()
    interrupted = False
    try:
        pairs = (pairs_bounds(costs, deadline=tic + time_limit, work=WORK_PER_SECOND * PAIR_SHARE * time_limit)
                 if set(ordered) & {"sumflow", "maxflow", "maxstretch"} else {})
    except BoundsInterrupted as exc:
        pairs, interrupted = exc.partial, True
    pair_seconds = clock() - tic
    for r, metric in enumerate(ordered):
        tic = clock()
        share = (stop - tic) * TIME_SHARE[metric] / sum(TIME_SHARE[m] for m in ordered[r:])
        pair = pairs.get(metric, -math.inf)
        floor = max(quick[metric], pair)
        value = -math.inf
        if not interrupted:
            options = {"lower": floor} if metric in ("maxflow", "maxstretch") else {}
            try:
                safety = stop if metric in BISECTED else tic + max(share, 0.05)
                value = LP_BOUNDS[metric](costs, deadline=safety, **options)
            except KeyboardInterrupt:
                interrupted = True
        method = "lp" if value > floor * (1 + 1e-12) else "pairs" if pair > quick[metric] * (1 + 1e-12) else "quick"
        seconds = clock() - tic + (pair_seconds / 3 if metric in pairs else 0.0)
        out[metric] = MetricBound(metric, max(value, floor), method, seconds, message=INTERRUPTED if interrupted
                                  else "", interrupted=interrupted)
    return {m: out[m] for m in metrics}


def _quick(costs: TaskCosts, metrics) -> dict[str, MetricBound]:
    tic = clock()
    q = quick_bounds(costs)
    seconds = clock() - tic
    return {m: MetricBound(m, q[m], "quick", seconds) for m in metrics}


def timeshare_bounds(platform: Platform, workload: TimeshareWorkload, *, work_factor=None, method: str = "best",
                     time_limit: float = 60.0, metrics=METRICS) -> dict[str, MetricBound]:
    """References of each metric for ``workload`` on ``platform`` by ``method`` (``METHODS``).

    ``quick`` and ``lp`` return lower bounds; ``exact`` searches the best mapping of each metric
    (:func:`lowerbounds.timeshare.mapping.best_mapping`; sumflow first) with ``time_limit`` shared
    between the metrics, and reports its status, the optimum or the bound and gap, and the mapping
    (a workload too large for the search, or with DAGs, says so and keeps the LP bound); ``best``
    runs ``lp`` on half the time, then ``exact`` when the search applies, and keeps the larger
    value.
    """
    if method not in METHODS:
        raise UnknownNameError(f"unknown bound method {method!r}; choose one of {', '.join(METHODS)}")
    if not (time_limit > 0 and math.isfinite(time_limit)):
        raise InvalidInputError(f"time limit must be a positive number of seconds, got {time_limit}")
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise UnknownNameError(f"unknown metric {unknown[0]!r}; choose among {', '.join(METRICS)}")
    costs = TaskCosts.of(platform, workload, work_factor)
    if method == "quick":
        return _quick(costs, metrics)
    from lowerbounds.timeshare.mapping import exact_references, search_applies

    if method == "lp" or (method == "best" and search_applies(costs) is not None):
        return lp_bounds(costs, time_limit=time_limit, metrics=metrics)
    start = clock()
    lower = lp_bounds(costs, time_limit=time_limit / 2, metrics=metrics)
    if any(b.interrupted for b in lower.values()):
        return lower
    rest = max(time_limit - (clock() - start), 0.1)
    try:
        exact = exact_references(costs, lower, time_limit=rest, metrics=metrics)
    except KeyboardInterrupt:  # the LP bounds stand; the search's progress is not a proof
        return {m: dataclasses.replace(b, message=INTERRUPTED, interrupted=True) for m, b in lower.items()}
    if method == "exact":
        return exact
    return {m: exact[m] if exact[m].value >= lower[m].value else lower[m] for m in metrics}
