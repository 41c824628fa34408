"""Lower bounds and exact clairvoyant optima for batch clusters and grids (seed 000 §2.2, §3.1-3.4).

Public entry points (they take the simulator's own objects, a
:class:`vcsched.sim.JobTable` and the list of clusters):

* :func:`batch_bounds` (``vcsched grid bound``): lower bounds on the makespan, the mean
  response time, the mean bounded slowdown and the max stretch that *every* schedule of
  the clairvoyant relaxation (:mod:`lowerbounds.batch.instance`) reaches, so every
  simulated policy (FCFS, EASY, CBF, MCT, reallocation) too;
* :func:`exact_batch`: the exact optimum of a small window (:mod:`lowerbounds.batch.exact`).

Methods (:data:`METHODS`, the one table the API and the command line share):

``quick``  the bounds of :mod:`lowerbounds.batch.quick` on the whole workload, O(n log n);
``lp``     ``quick``, then for the max stretch branching on long jobs' starts and energetic reasoning
           (:mod:`lowerbounds.batch.branching`, :mod:`lowerbounds.batch.energetic`, one cluster), then the LP
           relaxations of :mod:`lowerbounds.batch.lp` on windows of
           :data:`WINDOW_JOBS` consecutive jobs (by submission) within half of the time limit,
           then the Lagrangian bound of the whole workload (:mod:`lowerbounds.batch.lagrangian`,
           mean response time and mean bounded slowdown, method ``lagrangian``) until the limit;
``exact``  ``lp`` (half of the time), then the MILP (the rest); refuses a workload above
           the exact limits;
``best``   ``exact`` when the workload is within the exact limits, else ``lp``.

On a tiny workload (at most :data:`~lowerbounds.batch.exhaust.EXHAUST_CAP` schedules to enumerate: 7 jobs on one
cluster) ``lp``, ``exact`` and ``best`` replace the max-stretch searches, the LP windows and the Lagrangian bound by
the enumeration of :mod:`lowerbounds.batch.exhaust`, a proof of each metric's optimum (method ``exhaustive``);
``exact`` and ``best`` then give the MILP the whole time limit.

In every method the makespan's bound is raised by energetic reasoning with a common deadline
(:mod:`lowerbounds.batch.makespanenergetic`, O(n log n), method ``energetic``; in ``lp``, ``exact`` and ``best``
unless the enumeration proves the optimum).

Time limits are safety stops on :func:`vcsched.jitclock.clock`, which leaves out numba's compile time.

Decomposition (how window bounds combine). Restricting an optimal schedule of all jobs
to a subset gives a feasible schedule of the subset, so the subset's optimum alone is at
most the subset's share of the whole optimum. For a partition into windows the shares
add up: ``sum_w OPT(w) <= OPT`` for the total response time and the total bounded
slowdown, and each ``OPT(w)`` may be replaced by any lower bound of it (the larger of its
LP and its quick bound; windows the time limit leaves out keep their quick bound). For
the makespan and the max stretch a subset's optimum is at most the whole one's (its
completions are among the whole's and its first release is no earlier), so the maximum
over windows is a bound. The final bound of each metric is the larger of the bound on
the whole workload and the combination over windows.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from lowerbounds.batch.blackout import stretch_blackout
from lowerbounds.batch.blocker import response_lagrangian
from lowerbounds.batch.branching import PASSES as BRANCH_PASSES
from lowerbounds.batch.branching import QUICK_BRANCH_WORK, branching_pass, stretch_branching
from lowerbounds.batch.energetic import stretch_energetic
from lowerbounds.batch.exact import MAX_EXACT_JOBS, ExactResult, check_exact_size, exact_optimum
from lowerbounds.batch.exhaust import EXHAUST_CAP, enumeration_size, exhaustive_schedules
from lowerbounds.batch.instance import METRICS, BatchInstance, batch_instance
from lowerbounds.batch.lagrangian import WORK_PER_SECOND, lagrangian_bound, slot_grid
from lowerbounds.batch.lp import lp_bsld, lp_flow, lp_makespan, lp_stretch
from lowerbounds.batch.makespanenergetic import makespan_energetic
from lowerbounds.batch.quick import bsld_quick, flow_quick, makespan_quick, stretch_quick
from lowerbounds.batch.stretchchain import stretch_chain
from lowerbounds.batch.stretchfit import stretch_fit
from vcsched.arguments import of_type
from vcsched.errors import InvalidInputError
from vcsched.jitclock import clock
from vcsched.names.references import BOUND_METHODS
from vcsched.sim.jobs import JobTable

__all__ = ["METHODS", "WINDOW_JOBS", "MetricBound", "BatchBounds", "batch_bounds", "instance_bounds",
           "exact_batch", "batch_instance", "BatchInstance", "ExactResult", "stretch_unit"]


METHODS = BOUND_METHODS
WINDOW_JOBS = 16
"""Jobs per LP window."""
_LP_SHARE = {"mean_response": 0.4, "mean_bounded_slowdown": 0.25, "max_stretch": 0.25, "makespan": 0.1}


@dataclasses.dataclass(frozen=True)
class MetricBound:
    """A lower bound on one metric: its value, the method that gave it (``detail`` says how), the seconds spent."""

    value: float | None
    method: str
    seconds: float
    detail: str = ""

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class BatchBounds:
    """Bounds on the four metrics of a workload, and the exact result when the exact method ran."""

    jobs: int
    bounds: dict
    exact: ExactResult | None = None
    interrupted: bool = False
    """True when an interrupt (Ctrl-C) stopped the computation: each bound is the one proven before it (a metric
    not reached yet has value None, method ``interrupted``)."""

    def to_dict(self) -> dict:
        out = {"jobs": self.jobs, "bounds": {m: b.to_dict() for m, b in self.bounds.items()}}
        if self.exact is not None:
            out["exact"] = self.exact.to_dict()
        if self.interrupted:
            out["interrupted"] = True
        return out


def _check_method(method: str, time_limit: float) -> None:
    if method not in METHODS:
        raise InvalidInputError(f"method {method!r} is unknown; choose one of: {', '.join(METHODS)}")
    if not (time_limit > 0 and np.isfinite(time_limit)):
        raise InvalidInputError(f"time_limit must be a positive number of seconds, got {time_limit}")


def _quick(inst: BatchInstance, out: dict) -> dict:
    """The quick bounds, each stored in ``out`` as soon as it is proven (an interrupt keeps those already there)."""
    n = len(inst)
    for name, fn in (("makespan", makespan_quick), ("mean_response", lambda i: flow_quick(i) / n),
                     ("mean_bounded_slowdown", lambda i: bsld_quick(i) / n), ("max_stretch", _stretch_quick)):
        t0 = time.perf_counter()
        value = fn(inst)
        out[name] = MetricBound(value, "quick", time.perf_counter() - t0, _QUICK_DETAIL[name])
    return out


_QUICK_DETAIL = {"makespan": "per-job, area and wide-job bounds", "mean_response": "mean busy time (Goemans)",
                 "mean_bounded_slowdown": "weighted mean busy time",
                 "max_stretch": "EDF bisection on the fluid machine and on the wide jobs, then branching on long jobs' "
                 "starts (first pass), the jobs that cannot run beside a wide job, and the wide jobs kept off their gates on one "
                 "machine"}


def _stretch_quick(inst: BatchInstance) -> float | None:
    """:func:`stretch_unit`, raised by the wide jobs kept off their gates on one machine
    (:func:`~lowerbounds.batch.stretchchain.stretch_chain`, a work cap, no clock); on several clusters, the same on
    the jobs that fit on a part of the platform only (:mod:`lowerbounds.batch.stretchfit`)."""
    value = stretch_unit(inst)
    if value is None:
        return None
    if inst.clusters > 1:
        return max(value, stretch_fit(inst, _stretch_quick) or value)
    return stretch_chain(inst, value)


def stretch_unit(inst: BatchInstance) -> float | None:
    """:func:`~lowerbounds.batch.quick.stretch_quick`, raised by the first pass of
    :func:`~lowerbounds.batch.branching.stretch_branching` (a deterministic work cap, no clock) and by the jobs
    that cannot run beside a wide job (:func:`~lowerbounds.batch.blackout.stretch_blackout`): a lower bound, and
    the unit of the max-stretch repair's first targets (:data:`~lowerbounds.batch.stretchsearch.STRETCH_STARTS`,
    whose factors were chosen with it)."""
    value = stretch_quick(inst)
    if value is None:
        return None
    pieces, horizon, min_width = BRANCH_PASSES[0]
    value = branching_pass(inst, value, pieces=pieces, horizon=horizon, min_width=min_width,
                           max_work=QUICK_BRANCH_WORK)[0]
    return stretch_blackout(inst, value)


def _windows(inst: BatchInstance, size: int) -> list[np.ndarray]:
    order = np.argsort(inst.release, kind="stable")
    return [order[i:i + size] for i in range(0, order.size, size)]


_PATIENCE = 2.0
"""Seconds of window LPs after which ``stop_early`` may give up (see :func:`_hopeless`)."""


def _hopeless(total: float, done: int, windows: int, target: float | None, started: float) -> bool:
    """True when, after :data:`_PATIENCE` seconds, the window sum extrapolated at its mean so far
    (``total / done * windows``) stays below 99 % of ``target``, the bound it has to beat: a heuristic
    stop only; the bound reported is valid whatever stops the loop."""
    if target is None or done == 0 or clock() - started < _PATIENCE:
        return False
    return total / done * windows < 0.99 * target


def _lp_sum(inst, windows, lp_fn, quick_fn, deadline, target=None):
    """``sum_w max(LP_w, quick_w)`` over the windows (quick only once the deadline has passed); LP windows solved.
    Once the sum cannot reach ``target`` (:func:`_hopeless`) the loop stops and gives no sum (``None``, 0): the
    remaining windows' quick bounds would only cost time (9 s of CPU on HPC2N's 12,681 windows)."""
    total, solved = 0.0, 0
    started = clock()
    for i, rows in enumerate(windows):
        if _hopeless(total, i, len(windows), target, started):
            return None, 0
        sub = inst.subset(rows)
        value = quick_fn(sub)
        left = deadline - clock()
        if left > 0:
            lp = lp_fn(sub, time_limit=left)
            if lp is not None:
                solved += 1
                value = max(value, lp)
        total += value
    return total, solved


def _lp_stretch(inst, windows, deadline, target=None):
    """Max over windows of the LP stretch bisection; with ``target``, stops after :data:`_PATIENCE` seconds
    unless a window has reached it."""
    best, solved = None, 0
    started = clock()
    for rows in windows:
        left = deadline - clock()
        late = target is not None and clock() - started >= _PATIENCE
        if left <= 0 or (late and (best is None or best < target)):
            break
        sub = inst.subset(rows)
        low = stretch_quick(sub)
        if low is None:
            continue
        value = lp_stretch(sub, low, time_limit=left)
        solved += 1
        best = value if best is None else max(best, value)
    return best, solved


def _improve(bounds: dict, name: str, value, method: str, seconds: float, detail: str) -> None:
    """Keep the larger bound (a proven optimum, method ``exhaustive``, is never replaced: a MILP dual bound may
    exceed it by the solver's tolerance)."""
    old = bounds[name]
    total = old.seconds + seconds
    if value is not None and old.method != EXHAUSTIVE and (old.value is None or value > old.value):
        bounds[name] = MetricBound(float(value), method, total, detail)
    else:
        bounds[name] = dataclasses.replace(old, seconds=total)


def _apply_lp(inst: BatchInstance, bounds: dict, budget: float, window: int, stop_early: bool = False) -> None:
    n = len(inst)
    windows = _windows(inst, window)
    tag = f"LP on {len(windows)} window(s) of {window} jobs"
    for name, lp_fn, quick_fn in (("mean_response", lp_flow, flow_quick), ("mean_bounded_slowdown", lp_bsld, bsld_quick)):
        t0 = time.perf_counter()
        target = bounds[name].value * n if stop_early else None
        total, solved = _lp_sum(inst, windows, lp_fn, quick_fn, clock() + _LP_SHARE[name] * budget, target)
        _improve(bounds, name, total / n if solved else None, "lp", time.perf_counter() - t0,
                 f"{tag}, {solved} solved by LP, the others by their quick bound")
    t0 = time.perf_counter()
    last = lp_makespan(inst.subset(windows[-1]), time_limit=_LP_SHARE["makespan"] * budget)
    _improve(bounds, "makespan", None if last is None else last - float(inst.release.min()), "lp",
             time.perf_counter() - t0, f"LP on the last window of {windows[-1].size} jobs")
    t0 = time.perf_counter()
    value, solved = _lp_stretch(inst, windows, clock() + _LP_SHARE["max_stretch"] * budget,
                                bounds["max_stretch"].value if stop_early else None)
    _improve(bounds, "max_stretch", value, "lp", time.perf_counter() - t0,
             f"LP feasibility bisection on {solved} of {len(windows)} window(s)")


_LAGRANGE_SAFETY = 2.0
"""The Lagrangian bound's safety clock: at least this many times the seconds its work cap takes at
:data:`lowerbounds.batch.lagrangian.WORK_PER_SECOND` (its cap is at least half the LP time's worth, :data:`_LAGRANGE_SECONDS`, so this is at least the LP time),
whatever the window LPs and the max-stretch searches before it left of the LP time. Their time is a clock; the
Lagrangian's result is a count, and on an idle machine the count, not the clock, must end it for a second run to give
the same bound (with what the others left, about 60 % of its work's time on CTC-SP2, the clock ended it)."""
_LAGRANGE_SHARE = {"mean_response": 0.6, "mean_bounded_slowdown": 1.0}
"""Share of the Lagrangian time each flow metric takes (of what is left when its turn comes)."""
_LAGRANGE_WORK = {"mean_response": 0.6, "mean_bounded_slowdown": 0.4}
"""Share of the Lagrangian seconds (:func:`lagrangian_work`) each flow metric's search takes."""
_LAGRANGE_SECONDS = (0.5, 0.8, 7.2)
"""``(a, b, c)``: the Lagrangian searches are sized to ``max(a T, b T - c)`` seconds of an LP time of ``T`` seconds.
What the LP time leaves them is about ``0.8 T`` (the max-stretch searches take ``0.2 T``) less the window loops'
nearly fixed seconds (their patience, :data:`_PATIENCE`, per metric, and the makespan's last window): at the default
minute's ``T = 24`` both terms give 12 s (7.2 to the mean response), at ``--time-limit 600``'s ``T = 240`` the second
gives 185 s (111 to the mean response)."""
_LAGRANGE_REFINE = 8
"""Finest price grid: up to this many times :data:`lowerbounds.batch.lagrangian.SLOTS` slots, reached only when the
coarser grids have converged before the time limit."""


def lagrangian_work(lp_time: float) -> dict:
    """Work units of each flow metric's Lagrangian search when the LP time is ``lp_time`` seconds
    (:data:`_LAGRANGE_SECONDS`, :data:`lowerbounds.batch.lagrangian.WORK_PER_SECOND` units a second): a count, not a
    clock, so that the same command gives the same bound on an idle machine (the clock stays as a safety stop)."""
    a, b, c = _LAGRANGE_SECONDS
    seconds = max(a * lp_time, b * lp_time - c)
    return {name: share * WORK_PER_SECOND * seconds for name, share in _LAGRANGE_WORK.items()}


def _apply_lagrangian(inst: BatchInstance, bounds: dict, deadline: float, quick: dict, lp_time: float) -> None:
    """The Lagrangian bound (:mod:`lowerbounds.batch.lagrangian`) of the whole workload for the mean response time
    (``mode`` 0) and the mean bounded slowdown (``mode`` 1), each started from its ``quick`` bound (not from the
    window LPs, whose value depends on the clock) within :func:`lagrangian_work` of ``lp_time`` (the method's
    nominal LP time), before ``deadline`` (a :func:`vcsched.jitclock.clock` date, a safety stop)."""
    n = len(inst)
    work = lagrangian_work(lp_time)
    for mode, name in enumerate(("mean_response", "mean_bounded_slowdown")):
        t0 = time.perf_counter()
        left = _LAGRANGE_SHARE[name] * (deadline - clock())
        if left <= 0:
            break
        blocked = None
        if mode == 0:  # the mean response's work shared with the blocker steps (lowerbounds.batch.blocker)
            value, steps, slots, blocked, more = response_lagrangian(inst, time_limit=left, start=quick[name] * n,
                                                                     refine=_LAGRANGE_REFINE, work=work[name])
        else:
            value, steps, slots = lagrangian_bound(inst, mode, time_limit=left, start=quick[name] * n,
                                                   refine=_LAGRANGE_REFINE, work=work[name])
        delta = slot_grid(inst, slots)[1]
        _improve(bounds, name, value / n, "lagrangian", time.perf_counter() - t0,
                 f"capacity of {slots} slots of {delta:.6g} s priced (coarse to fine), {steps} deflected "
                 "subgradient steps")
        if blocked is not None and blocked > value:
            _improve(bounds, name, blocked / n, "blocker", 0.0, f"the Lagrangian's prices, then {more} steps with "
                     "the jobs that cannot run beside a wide job kept off it")


def _apply_makespan(inst: BatchInstance, bounds: dict) -> None:
    """Above the makespan bound so far: energetic reasoning with a common deadline
    (:mod:`lowerbounds.batch.makespanenergetic`, O(n log n), no clock)."""
    t0 = time.perf_counter()
    value = makespan_energetic(inst)
    _improve(bounds, "makespan", value if value > bounds["makespan"].value else None, "energetic",
             time.perf_counter() - t0, "energetic reasoning on [t, C] from each release date t: the area after t "
             "with the parts of the earlier jobs that cannot end by t (fluid and wide-job forms)")


_STRETCH_SHARE = 0.2
"""Share of the LP time after which the max-stretch searches (branching, then energetic reasoning) start no new
test (the first test of each always runs)."""


def _apply_stretch(inst: BatchInstance, bounds: dict, time_limit: float) -> None:
    """Above the max-stretch bound so far: branching on long jobs' starts (:mod:`lowerbounds.batch.branching`),
    then energetic reasoning (:mod:`lowerbounds.batch.energetic`)."""
    if bounds["max_stretch"].value is None:
        return
    start, t0 = clock(), time.perf_counter()
    value, tried = stretch_branching(inst, bounds["max_stretch"].value, time_limit=0.8 * time_limit,
                                     passes=BRANCH_PASSES[1:])  # the first one ran with the quick bound
    _improve(bounds, "max_stretch", value if value > bounds["max_stretch"].value else None, "branching",
             time.perf_counter() - t0, f"the start of each of {tried} candidate jobs (longest first) branched on; "
             "preemptive EDF in each branch, with the job's blackout")
    t0 = time.perf_counter()
    low = bounds["max_stretch"].value
    value = stretch_energetic(inst, low, time_limit=max(time_limit - (clock() - start), 0.0))
    _improve(bounds, "max_stretch", value if value > low else None, "energetic", time.perf_counter() - t0,
             "energetic reasoning bisection (intervals from each release date, widths also through dual feasible "
             "functions)")


def _apply_exact(inst: BatchInstance, bounds: dict, time_limit: float) -> ExactResult:
    result = exact_optimum(inst, time_limit=time_limit)
    _improve(bounds, "mean_response", result.bound, "exact", result.seconds, f"MILP dual bound ({result.status})")
    _improve(bounds, "makespan", result.makespan_bound, "exact", 0.0, f"MILP dual bound ({result.makespan_status})")
    return result


EXHAUSTIVE = "exhaustive"
_EXHAUSTIVE_DETAIL = ("the optimum: serial generation over every list and cluster assignment gives every active "
                      "schedule, and one of them is optimal")


def _apply_exhaustive(inst: BatchInstance, bounds: dict) -> bool:
    """On a workload small enough for the enumeration of :mod:`lowerbounds.batch.exhaust` (``n!`` times the cluster
    assignments at most :data:`~lowerbounds.batch.exhaust.EXHAUST_CAP`: 7 jobs on one cluster), each metric's
    optimum becomes its bound (method ``exhaustive``): the best schedule over every active schedule, and some
    optimal schedule of each metric (all four are regular) is active. Returns True when it did: every metric is
    then at its optimum, and the relaxations (LP, Lagrangian, branching) have nothing left to prove."""
    if enumeration_size(inst) > EXHAUST_CAP:
        return False
    t0 = time.perf_counter()
    found = exhaustive_schedules(inst, METRICS)
    if found is None:
        return False
    seconds = time.perf_counter() - t0
    for name, (value, _cluster, _start) in found.items():  # a metric without value (no stretch) keeps its bound
        bounds[name] = MetricBound(float(value), EXHAUSTIVE, bounds[name].seconds + seconds, _EXHAUSTIVE_DETAIL)
    return True


def _exact_eligible(inst: BatchInstance) -> bool:
    if len(inst) > MAX_EXACT_JOBS:
        return False
    try:
        check_exact_size(inst)
    except InvalidInputError:
        return False
    return True


def instance_bounds(inst: BatchInstance, *, method: str = "best", time_limit: float = 60.0,
                    window: int = WINDOW_JOBS, stop_early: bool = False) -> BatchBounds:
    """Bounds on a :class:`BatchInstance` (see :func:`batch_bounds`); ``stop_early``: the window LPs stop once
    their projected sum cannot beat the whole-workload bound (:func:`_hopeless`)."""
    _check_method(method, time_limit)
    if len(inst) == 0:
        raise InvalidInputError("the workload has no job")
    t_start = clock()
    if method == "exact":
        check_exact_size(inst)
    use_exact = method == "exact" or (method == "best" and _exact_eligible(inst))
    bounds: dict = {}
    try:
        _quick(inst, bounds)
        if method == "quick":
            _apply_makespan(inst, bounds)
            return BatchBounds(len(inst), bounds)
        return BatchBounds(len(inst), bounds, _relaxed(inst, bounds, method, time_limit, t_start, window,
                                                         stop_early, use_exact))
    except KeyboardInterrupt:  # every bound stored so far is proven; the others are marked
        for name in _QUICK_DETAIL:
            bounds.setdefault(name, MetricBound(None, "interrupted", 0.0, "interrupted before this bound"))
        return BatchBounds(len(inst), {m: bounds[m] for m in _QUICK_DETAIL}, None, True)


def _relaxed(inst: BatchInstance, bounds: dict, method: str, time_limit: float, t_start: float, window: int,
             stop_early: bool, use_exact: bool) -> ExactResult | None:
    """The enumeration's optima on a tiny workload (:func:`_apply_exhaustive`), else the max-stretch searches, the LP
    windows and the Lagrangian bound; then (``use_exact``) the MILP on the time left. Each step improves ``bounds``
    in place. Returns the exact result, if any. The Lagrangian's work is sized by the method's nominal LP time
    (``time_limit``, half of it with the MILP), not by the time the quick bounds left: a count, so that the bound
    does not depend on how fast the quick bounds ran."""
    if not _apply_exhaustive(inst, bounds):
        lp_nominal = 0.5 * time_limit if use_exact else time_limit
        lp_budget = lp_nominal if use_exact else max(time_limit - (clock() - t_start), 0.0)
        lp_end = clock() + lp_budget
        quick = {name: bounds[name].value for name in ("mean_response", "mean_bounded_slowdown")}
        _apply_makespan(inst, bounds)
        _apply_stretch(inst, bounds, _STRETCH_SHARE * lp_budget)
        _apply_lp(inst, bounds, 0.5 * lp_budget, window, stop_early)
        safety = _LAGRANGE_SAFETY * sum(lagrangian_work(lp_nominal).values()) / WORK_PER_SECOND
        _apply_lagrangian(inst, bounds, max(lp_end, clock() + safety), quick, lp_nominal)
    if not use_exact:
        return None
    left = max(time_limit - (clock() - t_start), 0.1 * time_limit)
    try:
        return _apply_exact(inst, bounds, left)
    except InvalidInputError:  # the model is above the size limit: only "exact" reports it
        if method == "exact":
            raise
    return None


def batch_bounds(jobs, clusters, *, method: str = "best", time_limit: float = 60.0,
                 window: int = WINDOW_JOBS) -> BatchBounds:
    """Lower bounds on makespan, mean response time, mean bounded slowdown and max stretch.

    Parameters
    ----------
    jobs : vcsched.sim.JobTable
    clusters : list of vcsched.sim.Cluster
        As given to :func:`vcsched.sim.simulate_grid`.
    method : {"quick", "lp", "exact", "best"}
    time_limit : float
        Seconds for the LP and MILP parts (the quick bounds always run).
    window : int
        Jobs per LP window.

    Returns
    -------
    BatchBounds
        ``bounds[metric]`` is a :class:`MetricBound` for each of
        ``makespan, mean_response, mean_bounded_slowdown, max_stretch`` (the metric's
        definition is the simulator's, :mod:`lowerbounds.batch.instance`).
    """
    _check_method(method, time_limit)
    of_type(jobs, "jobs", JobTable)
    if isinstance(clusters, (str, bytes)) or not hasattr(clusters, "__len__") or len(clusters) == 0:
        raise InvalidInputError(f"clusters must be a non-empty list of clusters, got {clusters!r:.60}")
    return instance_bounds(batch_instance(jobs, clusters), method=method, time_limit=time_limit, window=window)


def exact_batch(jobs, clusters, *, time_limit: float = 60.0) -> ExactResult:
    """Exact clairvoyant optimum (mean response time, makespan) of a small workload; see :mod:`lowerbounds.batch.exact`."""
    return exact_optimum(batch_instance(jobs, clusters), time_limit=time_limit)
