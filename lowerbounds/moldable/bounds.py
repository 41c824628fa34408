"""Lower bounds for moldable tasks (seed 002 §3.3): makespan and weighted minsum.

* :func:`dual_approximation_search` -- the rejection test of the dual
  approximation of Mounié, Rapine and Trystram (the paper's ref [7]) inside a
  binary search on the guess ``lambda``: a proven lower bound on ``C_max`` and
  an accepted guess (the "approximate C*_max" of §3.2). The heuristics start
  from it (``heuristics.moldable``), as ``docs/architecture.md`` allows for relaxations.
* :func:`makespan_lower_bound` -- max of the area bound, the longest minimal
  task and the dual approximation's bound.
* :func:`interval_bound` -- the interval formulation of §3.3 (LP relaxation or
  integer programme, HiGHS), a valid lower bound on ``sum w_i C_i``.
* :func:`brute_force_optimum` -- exact optimum of tiny instances by
  enumeration (used to validate the bounds).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time

import numpy as np
import pulp

from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.formulations.solve import new_var, solve_model
from vcsched.names.moldable import BOUND_METHODS
from vcsched.problems.moldable import MoldableInstance, serial_schedule
from vcsched.result import Result, Status, relative_gap

__all__ = [
    "DualSearch",
    "smallest_allotment",
    "dual_test",
    "dual_approximation_search",
    "makespan_lower_bound",
    "batch_times",
    "interval_bound",
    "brute_force_optimum",
    "refined_interval_bound",
    "BOUND_METHODS",
    "minsum_bound",
    "DEFAULT_RATIO",
    "MAX_INTERVAL_VARIABLES",
    "check_interval_model_size",
]


# --------------------------------------------------------------------------- dual approximation

def smallest_allotment(instance: MoldableInstance, length: float) -> np.ndarray:
    """Smallest ``k`` with ``p_i(k) <= length`` per task, 0 where none fits.

    This is the allotment rule used throughout (``gamma(i, length)`` in [7]);
    for non-monotonic tasks it is still "the smallest allotment that fits",
    which need not be the one of least work.
    """
    if instance.monotonic:
        k = (instance.times > length).sum(axis=1) + 1
        k[k > instance.m] = 0
        return k
    fits = instance.times <= length
    k = np.argmax(fits, axis=1) + 1
    k[~fits.any(axis=1)] = 0
    return k


def _min_work_within(instance: MoldableInstance, length: float, gamma: np.ndarray | None = None) -> np.ndarray:
    """``min {k p_i(k) : p_i(k) <= length}`` per task (inf if none).

    For monotonic tasks it is the work at the smallest fitting allotment ``gamma``.
    """
    if instance.monotonic:
        g = smallest_allotment(instance, length) if gamma is None else gamma
        out = np.full(instance.n, np.inf)
        ok = g > 0
        out[ok] = instance.work[np.flatnonzero(ok), g[ok] - 1]
        return out
    return np.where(instance.times <= length, instance.work, np.inf).min(axis=1)


def _knapsack_two_shelves(size1: np.ndarray, cost1: np.ndarray, cost2: np.ndarray, m: int,
                          keep_choices: bool = False):
    """Min total cost choosing per item shelf 1 (size ``size1``, cost ``cost1``) or
    shelf 2 (cost ``cost2``, no size), with the sizes of shelf 1 at most ``m``.

    ``O(n m)`` dynamic programme, vectorised over the capacity. Returns the
    minimum and, with ``keep_choices``, a boolean "in shelf 1" per item
    (ties go to shelf 2).
    """
    n = len(size1)
    # items whose two costs are equal (or shelf 1 is dearer) always go to shelf 2
    free2 = cost2 <= cost1
    base = float(cost2[free2].sum())
    f = np.full(m + 1, base)
    choices = np.zeros((n, m + 1), dtype=bool) if keep_choices else None
    for i in np.flatnonzero(~free2):
        a = int(size1[i])
        new = f + cost2[i]
        if 1 <= a <= m:
            cand = f[: m + 1 - a] + cost1[i]
            better = cand < new[a:]
            new[a:] = np.where(better, cand, new[a:])
            if keep_choices:
                choices[i, a:] = better
        f = new
    if not keep_choices:
        return float(f[m]), None
    in1 = np.zeros(n, dtype=bool)
    c = m
    for i in range(n - 1, -1, -1):
        if choices[i, c]:
            in1[i] = True
            c -= int(size1[i])
    return float(f[m]), in1


def dual_test(instance: MoldableInstance, guess: float, *, keep_choices: bool = False):
    """The rejection test of the two-shelf dual approximation for ``guess``.

    Returns ``(accepted, in_first_shelf)``. A rejection proves
    ``C*_max > guess`` for *any* input (monotonic or not): in a schedule of
    length ``guess`` the tasks longer than ``guess / 2`` all run at instant
    ``guess / 2`` (so their processor counts, each at least
    ``gamma(i, guess)``, sum to at most ``m``) and every task's work is at
    least the least work among its allotments that fit in its length; the
    knapsack minimises that total work and rejects when it exceeds
    ``m * guess``. For monotonic tasks this is exactly the knapsack of [7]
    (the least work is reached at ``gamma``).
    """
    g1 = smallest_allotment(instance, guess)
    if np.any(g1 == 0):
        return False, None
    c1 = _min_work_within(instance, guess, g1)
    c2 = _min_work_within(instance, guess / 2.0)
    total, in1 = _knapsack_two_shelves(g1, c1, c2, instance.m, keep_choices)
    return total <= instance.m * guess * (1 + 1e-12), in1


@dataclasses.dataclass(frozen=True)
class DualSearch:
    """Outcome of :func:`dual_approximation_search`.

    Attributes
    ----------
    lower : float
        Proven lower bound on the optimal makespan.
    guess : float
        Smallest accepted guess found (``guess <= (1 + eps) * lower``); the
        "approximate C*_max" of §3.2.
    in_first_shelf : ndarray of bool
        Shelf of every task in the knapsack solution at ``guess``.
    allotment : ndarray of int
        ``gamma(i, guess)`` in the first shelf, ``gamma(i, guess / 2)`` in the second.
    iterations : int
    """

    lower: float
    guess: float
    in_first_shelf: np.ndarray
    allotment: np.ndarray
    iterations: int


def dual_approximation_search(instance: MoldableInstance, *, eps: float = 0.01) -> DualSearch:
    """Binary search on the guess of the dual approximation of [7].

    Starts from ``lo = max(area bound, longest minimal task)`` (a proven lower
    bound) and ``hi = sum_i min_k p_i(k)`` (the makespan of running the tasks
    one after the other, each at its fastest: always accepted), and halves
    ``[lo, hi]`` until ``hi <= (1 + eps) lo``. Every rejected guess is a proven
    lower bound; the accepted ``hi`` gives the allotment.

    Notes
    -----
    ``O(n m log((hi / lo) / eps))``. The shelf transformations of [7] that turn
    the allotment into a ``3/2 * guess`` schedule are not implemented: the
    allotment is scheduled by a list algorithm (``heuristics.moldable``), so the
    3/2 + eps guarantee is not claimed for our schedules.
    """
    if not eps > 0:
        raise InvalidInputError(f"eps must be > 0, got {eps}")
    lo = max(float(instance.min_work.sum() / instance.m), float(instance.min_time.max()))
    hi = float(instance.min_time.sum())
    iterations = 0
    ok, _ = dual_test(instance, lo)
    iterations += 1
    if ok:
        hi = lo
    while hi > lo * (1 + eps):
        mid = 0.5 * (lo + hi)
        ok, _ = dual_test(instance, mid)
        iterations += 1
        if ok:
            hi = mid
        else:
            lo = mid
    ok, in1 = dual_test(instance, hi, keep_choices=True)
    if not ok:  # pragma: no cover - hi is always accepted (sum of minimal times)
        raise RuntimeError("dual approximation: the upper guess was rejected")
    allot = np.where(in1, smallest_allotment(instance, hi), smallest_allotment(instance, hi / 2.0))
    return DualSearch(lower=lo, guess=hi, in_first_shelf=in1, allotment=allot, iterations=iterations)


def makespan_lower_bound(instance: MoldableInstance, *, eps: float = 0.01, search: DualSearch | None = None) -> dict:
    """Lower bounds on ``C*_max``: area, longest minimal task, dual approximation (§3.3).

    Returns a dict with ``area`` (``sum_i min_k k p_i(k) / m``), ``longest``
    (``max_i min_k p_i(k)``), ``dual`` and ``bound`` (their maximum).
    """
    search = search or dual_approximation_search(instance, eps=eps)
    area = float(instance.min_work.sum() / instance.m)
    longest = float(instance.min_time.max())
    return {"area": area, "longest": longest, "dual": search.lower, "bound": max(area, longest, search.lower)}


# --------------------------------------------------------------------------- interval formulation

def batch_times(cmax: float, tmin: float, ratio: float = 2.0) -> np.ndarray:
    """``t_j = C*_max / ratio^(K - j)`` for ``j = 0..K+1``, ``K = floor(log_ratio(C*_max / t_min))`` (§3.2)."""
    if not (cmax > 0 and tmin > 0 and ratio > 1):
        raise InvalidInputError("need cmax > 0, tmin > 0 and ratio > 1")
    K = max(0, int(math.floor(math.log(cmax / tmin) / math.log(ratio) + 1e-12)))
    return cmax / ratio ** (K - np.arange(K + 2))


def _interval_model(instance: MoldableInstance, lows: np.ndarray, highs: np.ndarray, integer: bool):
    """The interval LP/ILP of :func:`interval_bound` on the intervals ``(lows[J], highs[J]]``:
    ``(problem, variables)``."""
    n, m = instance.n, instance.m
    pmin = instance.min_time
    w = instance.weights
    cat = pulp.LpBinary if integer else pulp.LpContinuous
    prob = pulp.LpProblem("moldable_interval_bound", pulp.LpMinimize)
    variables: list = []
    per_task: list[list] = [[] for _ in range(n)]
    area_terms: list[list] = [[] for _ in range(len(lows))]
    obj = []
    times, work = instance.times, instance.work
    for J, (a, b) in enumerate(zip(lows, highs)):
        if math.isinf(b):
            S = instance.min_work
        else:
            S = np.where(times <= b, work, np.inf).min(axis=1)
        for i in np.flatnonzero(np.isfinite(S)):
            x = new_var(f"x_{i}_{J}", 0, 1, cat)
            variables.append(x)
            per_task[i].append(x)
            obj.append((x, float(w[i] * max(a, pmin[i]))))
            area_terms[J].append((x, float(S[i])))
    prob += pulp.LpAffineExpression(obj)
    for i in range(n):
        prob += pulp.LpAffineExpression([(x, 1.0) for x in per_task[i]]) >= 1, f"once_{i}"
    prev = None
    for J, b in enumerate(highs):
        if math.isinf(b):
            break
        A = new_var(f"area_{J}", 0, None)
        variables.append(A)
        terms = [(A, 1.0)] + [(x, -s) for x, s in area_terms[J]]
        if prev is not None:
            terms.append((prev, -1.0))
        prob += pulp.LpAffineExpression(terms) == 0, f"cum_{J}"
        prob += pulp.LpAffineExpression([(A, 1.0)]) <= float(m * b), f"area_{J}"
        prev = A
    return prob, variables


def interval_bound(instance: MoldableInstance, *, integer: bool = False, time_limit: float | None = None,
                   ratio: float = 2.0, eps: float = 0.01, search: DualSearch | None = None) -> Result:
    """Lower bound on ``sum w_i C_i`` by the interval formulation of §3.3.

    Parameters
    ----------
    integer : bool
        Solve the integer programme (``x`` binary; the bound is HiGHS's proven
        dual bound, also when stopped by ``time_limit``) instead of the LP.
    time_limit : float, optional
        Seconds for HiGHS.
    ratio : float
        Growth of the interval ends (2 in the paper); smaller values give
        more intervals and a tighter bound.

    Returns
    -------
    Result
        ``method`` ``"interval-lp"`` or ``"interval-ilp"``; ``bound`` is the
        valid lower bound on the minsum (``objective`` the relaxation's value
        when solved); ``extra`` has ``makespan_lb`` and ``intervals``.

    Notes
    -----
    Validity, which the paper glosses over, is ensured as follows.

    * Interval ends: ``0 < t_0 < ... < t_{K+1}`` with ``t_j`` of §3.2 built
      from the dual approximation's guess; the intervals are ``(0, t_0]``,
      ``(t_j, t_{j+1}]`` and a last, unbounded ``(t_{K+1}, +inf)``. So every
      completion time of any schedule (one ending before ``t_0``, or an
      optimal minsum schedule longer than ``C*_max``) falls in exactly one
      interval: no horizon has to be guessed.
    * Cost of task ``i`` in ``(a, b]``: ``w_i max(a, min_k p_i(k))``, never more
      than ``w_i C_i`` for a task completing in it (the paper's ``w_i t_j``,
      strengthened by the task's own shortest time; the first interval costs
      ``w_i min_k p_i(k)``).
    * Area of task ``i`` in ``(a, b]``: ``S_i = min {k p_i(k) : p_i(k) <= b}``
      (``min_k k p_i(k)`` in the last interval); a variable whose set is empty
      is not created. For every finite end ``b``, the areas of the tasks ending
      by ``b`` sum to at most ``m b``.

    The cumulative area constraints are written with one running-sum
    variable per interval, so the model has ``O(n K)`` non-zeros.
    """
    check_interval_model_size(instance, ratio)
    t0 = time.perf_counter()
    search = search or dual_approximation_search(instance, eps=eps)
    mk = makespan_lower_bound(instance, search=search)
    ts = batch_times(search.guess, float(instance.times.min()), ratio)
    lows = np.concatenate([[0.0], ts])
    trivial = float(np.dot(instance.weights, instance.min_time))
    prob, variables = _interval_model(instance, lows, np.concatenate([ts, [np.inf]]), integer)
    out = solve_model(prob, time_limit=time_limit, mip=integer, variables=variables)
    bound = out.bound if out.bound is not None else None
    lb = trivial if bound is None else max(trivial, float(bound))
    status = out.status
    if status is Status.FEASIBLE:
        message = f"{out.message}; bound is HiGHS's dual bound"
    else:
        message = out.message
    if bound is None:
        message += "; fell back to sum_i w_i min_k p_i(k)"
    return Result(
        method="interval-ilp" if integer else "interval-lp",
        status=status,
        objective=out.objective,
        bound=lb,
        gap=relative_gap(out.objective, lb),
        seconds=time.perf_counter() - t0,
        message=message,
        extra={"makespan_lb": mk["bound"], "intervals": int(len(lows)), "solver_seconds": out.seconds},
    )


# --------------------------------------------------------------------------- exhaustive search

def brute_force_optimum(instance: MoldableInstance, *, criterion: str = "minsum", max_evaluations: int = 200_000) -> Result:
    """Exact optimum of a tiny instance by enumerating every allotment vector
    and every order of the serial scheme (:func:`serial_schedule`).

    ``criterion`` is ``"minsum"`` (``sum w_i C_i``) or ``"makespan"``. Raises
    ``ValueError`` when ``m^n n!`` exceeds ``max_evaluations``.
    """
    n, m = instance.n, instance.m
    count = m ** n * math.factorial(n)
    if count > max_evaluations:
        raise InvalidInputError(f"brute force needs {count} evaluations (> {max_evaluations}); use a smaller instance")
    t0 = time.perf_counter()
    best, best_sched = math.inf, None
    idx = np.arange(n)
    for allot in itertools.product(range(1, m + 1), repeat=n):
        allot_a = np.asarray(allot)
        p = instance.times[idx, allot_a - 1]
        for order in itertools.permutations(range(n)):
            s = serial_schedule(instance, order, allot_a)
            end = s.start + p
            val = float(np.dot(instance.weights, end)) if criterion == "minsum" else float(end.max())
            if val < best - 1e-12:
                best, best_sched = val, s
    return Result(method=f"brute-force-{criterion}", status=Status.OPTIMAL, objective=best, bound=best, gap=0.0,
                  solution=best_sched, seconds=time.perf_counter() - t0)


# --------------------------------------------------------------------------- refined interval bound

def _refined_ends(instance: MoldableInstance, ratio: float, horizon: float | None) -> np.ndarray:
    """Finite interval ends: from the shortest time any task can end, growing by ``ratio``, up to ``horizon``."""
    first = float(instance.min_time.min())
    if horizon is None:
        horizon = 3.0 * max(float(instance.min_work.sum() / instance.m), float(instance.min_time.max()))
    count = max(1, int(math.ceil(math.log(max(horizon / first, 1.0)) / math.log(ratio))) + 1)
    return first * ratio ** np.arange(count)


def refined_interval_bound(instance: MoldableInstance, *, ratio: float = 1.1, horizon: float | None = None,
                           partial_rows: int = 16, merge_late: bool = True, time_limit: float | None = None,
                           column_generation: bool = True) -> Result:
    """Lower bound on ``sum w_i C_i``: the interval LP of §3.3 with finer intervals,
    one column per (task, allotment, interval), and the area that unfinished tasks
    already occupy.

    Parameters
    ----------
    ratio : float
        Growth of the interval ends (1.1 by default; the paper's is 2).
    horizon : float, optional
        Last finite interval end (default ``3 max(area bound, longest task)``);
        any value gives a valid bound (later completions fall in the unbounded
        last interval).
    merge_late : bool
        One column per (task, interval) for the allotments whose time falls in
        the interval (default) instead of one per Pareto-optimal allotment:
        about three times fewer columns for a bound lower by well under 1 % on
        small instances.
    partial_rows : int
        Per column, the area of a task still running at ``b`` is added to the
        constraints of at most this many ends ``b`` before its interval (the
        nearest, where it is largest; 0 drops the partial areas). Any number
        gives a valid bound; more is tighter and slower.
    time_limit : float, optional
        Seconds for the LP.
    column_generation : bool
        Solve the LP by column generation (default; :mod:`lowerbounds.moldable.refined`):
        the bound is a Lagrangian bound computed from the master's duals, valid at every
        iteration and equal to the LP value when no column prices out. ``False`` hands the
        whole LP to HiGHS's primal simplex (the same value; for checking, and slower from a
        few hundred tasks on).

    Returns
    -------
    Result
        ``method="refined"``; ``bound`` is the valid lower bound (the LP value, the best
        Lagrangian bound when column generation stops at the time limit, or
        ``sum_i w_i min_k p_i(k)`` if there is neither).

    Notes
    -----
    The model, its validity proof, how it differs from the paper's (§3.3) and the
    certified Lagrangian bound of column generation: :mod:`lowerbounds.moldable.refined`.
    """
    if not ratio > 1:
        raise InvalidInputError(f"ratio must be > 1, got {ratio}")
    from lowerbounds.moldable.refined import build_pool, solve_by_columns, solve_full

    check_interval_model_size(instance, ratio)
    t0 = time.perf_counter()
    ends = _refined_ends(instance, ratio, horizon)
    pool = build_pool(instance, ends, partial_rows, merge_late)
    out = solve_by_columns(pool, time_limit) if column_generation else solve_full(pool, time_limit)
    L, w = len(ends), instance.weights
    trivial = float(np.dot(w, instance.min_time))
    lb = trivial if out.bound is None else max(trivial, float(out.bound))
    message = out.message + ("" if out.bound is not None else "; fell back to sum_i w_i min_k p_i(k)")
    return Result(method="refined", status=out.status, objective=out.objective, bound=lb,
                  gap=relative_gap(out.objective, lb), seconds=time.perf_counter() - t0, message=message,
                  extra={"intervals": L + 1, "columns": pool.n_cols + L, "solver_seconds": out.seconds})


DEFAULT_RATIO = {"interval": 2.0, "refined": 1.1}
"""Default growth of the interval ends per bound method (the paper's 2; 1.1 for the refined LP)."""
MAX_INTERVAL_VARIABLES = 2_000_000
"""Most task x interval variables of the interval LP/ILP, estimated before building it from ``ratio`` and the
spread of the times (:func:`check_interval_model_size`)."""


def check_interval_model_size(instance: MoldableInstance, ratio: float) -> None:
    """Refuse ``--ratio`` when the interval model could exceed :data:`MAX_INTERVAL_VARIABLES`.

    The model has at most ``n (K + 3)`` task x interval variables with
    ``K = floor(log_ratio(C_max guess / t_min))`` (``lowerbounds.moldable.batch_times``);
    the dual approximation's guess is at most ``sum_i min_k p_i(k) <= sum_i p_i(1)`` (its
    starting upper end), doubled here for safety, so the bound is computed before any solve.
    """
    horizon = 2.0 * float(instance.min_time.sum())
    intervals = math.floor(math.log(horizon / float(instance.times.min())) / math.log(ratio)) + 3
    if instance.n * intervals > MAX_INTERVAL_VARIABLES:
        raise InvalidInputError(f"--ratio {ratio:.10g}: the interval model could have {instance.n:,} tasks x {intervals:,} "
                                f"intervals = {instance.n * intervals:,} variables, more than the limit of "
                                f"{MAX_INTERVAL_VARIABLES:,}; use a larger --ratio (2 in the paper)")

"""Names of the minsum lower bounds (``vcsched moldable bound --method``); ``interval`` is the paper's."""


def minsum_bound(instance: MoldableInstance, method: str = "interval", **options) -> Result:
    """The minsum lower bound ``method`` (one of :data:`BOUND_METHODS`) with its options.

    ``interval`` is :func:`interval_bound` (seed 002 §3.3), ``refined``
    :func:`refined_interval_bound`.
    """
    if method not in BOUND_METHODS:
        raise UnknownNameError(f"unknown bound method {method!r}; choose one of {', '.join(BOUND_METHODS)}")
    if method == "interval":
        return interval_bound(instance, **options)
    return refined_interval_bound(instance, **options)
