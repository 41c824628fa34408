"""Exact weighted minsum of moldable tasks: time-indexed and resource-flow MILPs solved by HiGHS.

Problem (seed 002 §2): ``m`` identical processors, ``n`` moldable tasks
released at 0, task ``i`` runs on any ``k`` of the ``m`` processors for
``p_i(k)``; minimise ``sum_i w_i C_i``. The processors are identical and need
not be contiguous, so a set of starts and allotments is feasible exactly when at
every instant the running tasks use at most ``m`` processors (the model of
:func:`vcsched.problems.moldable.check_schedule`).

Two models
----------
* :func:`build_time_indexed_model`: a binary per (task, allotment, start
  slot). Exact only when an optimal schedule starts every task on the grid;
  that holds when all ``p_i(k)`` are integer multiples of a grain (every active
  schedule starts tasks at sums of processing times). Its relaxation is strong.
* :func:`build_model` (below): continuous time, exact for any real times, but
  its big-M relaxation is weak, so it reaches only small instances.

The generators of §4.1 draw real-valued times (``uniform(1, 10)`` and
products of real factors), so no grain exists for their instances; the
``moldable-exact`` experiment rounds times up to multiples of 0.5 to use the
time-indexed model. ``formulation="auto"`` picks the time-indexed model
whenever :func:`time_grain` finds a grain and the grid is small enough.

Model (resource flow; Artigues, Michelon and Reusser, EJOR 149, 2003, with
the allotment as a decision)
----------------------------------------------------------------------------
* ``y[i,k]`` binary: task ``i`` runs on ``k`` processors, for the
  non-dominated ``k`` only (below); ``sum_k y[i,k] = 1``;
  ``q_i = sum_k k y[i,k]``, ``p_i = sum_k p_i(k) y[i,k]``.
* ``S_i >= 0``, ``C_i = S_i + p_i`` continuous.
* ``x[i,j]`` binary: ``i`` ends before ``j`` starts,
  ``S_j >= C_i - M_i (1 - x[i,j])``, ``x[i,j] + x[j,i] <= 1``.
* ``f[i,j] >= 0`` processors handed from ``i`` to ``j`` (``0`` = source,
  ``n+1`` = sink, arc source -> sink for idle processors):
  every task receives and passes on ``q_i``, the source emits ``m``,
  ``f[i,j] <= min(kmax_i, kmax_j) x[i,j]``.
  A flow exists iff the schedule never uses more than ``m`` processors
  (decompose it into ``m`` unit source-sink paths: each path is one
  processor's sequence of tasks, ordered by ``x``).

Strengthening (each valid for every feasible schedule)
------------------------------------------------------
* **Dominated allotments removed.** ``k`` is dominated when some ``k' < k``
  has ``p_i(k') <= p_i(k)``: replacing ``k`` by ``k'`` frees processors and
  does not delay ``C_i``, so an optimal schedule without dominated allotments
  exists. Allotments that cannot finish by the horizon ``H_i`` are removed too.
* **Horizon.** An optimal schedule exists among the active ones (serial
  schedule-generation scheme), whose makespan is at most
  ``sum_j max_k p_j(k)`` over kept allotments; with an incumbent of value
  ``U``, ``w_i C_i <= U - sum_{j != i} w_j min_k p_j(k)``. The smaller of
  the two bounds ``C_i`` (``H_i``) and is the big-M of the sequencing
  constraints.
* **Mean-busy-time cuts** (Queyranne's parallel inequalities on the fluid
  relaxation): with ``a_j = min_k k p_j(k) / m``, every subset ``T`` of tasks
  satisfies ``sum_T a_j C_j >= (sum_T a_j)^2 / 2 + sum_T a_j p_j / 2``.
  Proof sketch: processing the area of every task at its rate ``k_j / m`` of
  a unit-rate machine is a fluid single-machine schedule in which ``j`` has
  mean busy time ``M_j = C_j - p_j / 2``; scaling each task's rate down to
  process only ``a_j m`` (its least area) keeps ``M_j`` and the capacity, and
  on one machine ``sum_T a_j M_j >= (sum_T a_j)^2 / 2`` (Goemans et al.,
  SIAM J. Discrete Math. 15, 2002). All ``2^n - 1`` subsets are added for
  ``n <= cut_subsets_max_n`` (12), otherwise the prefixes of three orders.
* **Interval rows** (:func:`_add_interval_rows`, ``interval_ratio``): the
  refined interval relaxation of ``lowerbounds.moldable`` written on continuous
  variables linked to ``y`` and ``C``, so the root relaxation is at least that
  bound (about 0.9 of the optimum on small instances) instead of the big-M one.
  On real-valued instances of 4-6 processors and 6-7 tasks it roughly halved the
  gap left at a 30 s limit.
* **Warm start.** A feasible schedule (e.g. the bi-criteria one, given by the
  caller, since the core does not import the heuristics) gives HiGHS an
  incumbent and the horizon bound above.
* **Symmetry** (flow model). Identical tasks (same weight and times) are started in index
  order (``S_i <= S_j``), which keeps an optimal schedule (swap them).

The solution is rebuilt exactly: the allotments and the order ``x`` are read
from the MILP, and every task starts at the latest end of its predecessors
(longest path), which never starts a task later than the MILP did and respects
the flow, hence ``m``; the schedule is then verified by the checker.
"""

from __future__ import annotations

import fractions
import itertools
import math
import time

import numpy as np
import pulp

from vcsched.errors import InvalidInputError
from vcsched.formulations.moldable_bb import solve_branch_and_bound
from vcsched.formulations.solve import new_var, solve_model
from vcsched.names.moldable import FORMULATIONS
from vcsched.problems.moldable import (
    MoldableInstance,
    Schedule,
    assign_processors,
    check_schedule,
    completion_times,
)
from vcsched.result import Result, Status, relative_gap

__all__ = ["solve_exact", "nondominated_allotments", "build_model", "build_time_indexed_model",
           "time_grain", "FORMULATIONS"]

CUT_SUBSETS_MAX_N = 12
INTERVAL_RATIO = 1.1
PARTIAL_ROWS = 16
"""The interval rows' defaults in :func:`build_model` (``interval_ratio``, ``partial_rows``)."""
BB_AUTO_MAX_TASKS = 8
"""``auto`` uses branch and bound (:mod:`vcsched.formulations.moldable_bb`) on instances without a
grain of at most this many tasks."""
MAX_SLOTS = 4000
"""``auto`` uses the time-indexed model when the grid has at most this many slots."""


def nondominated_allotments(instance: MoldableInstance) -> list[np.ndarray]:
    """Per task, the allotments ``k`` (1-based) with ``p_i(k) < min_{k' < k} p_i(k')``."""
    out = []
    for row in instance.times:
        prev = np.concatenate([[np.inf], np.minimum.accumulate(row)[:-1]])
        out.append(np.flatnonzero(row < prev) + 1)
    return out


def _horizons(instance: MoldableInstance, allots: list[np.ndarray], upper: float | None) -> np.ndarray:
    """Upper bounds ``H_i`` on ``C_i`` in some optimal schedule (module docstring)."""
    pmax = np.array([instance.times[i, a - 1].max() for i, a in enumerate(allots)])
    h = np.full(instance.n, float(pmax.sum()))
    if upper is not None:
        low = instance.weights * instance.min_time
        h = np.minimum(h, (upper - (low.sum() - low)) / instance.weights)
    return np.maximum(h, instance.min_time)


def _cut_subsets(instance: MoldableInstance, max_n: int):
    n = instance.n
    if n <= max_n:
        for r in range(1, n + 1):
            yield from itertools.combinations(range(n), r)
        return
    a = instance.min_work / instance.m
    for key in (a, -instance.weights / a, instance.min_time):
        order = np.lexsort((np.arange(n), key))
        for r in range(1, n + 1):
            yield tuple(int(i) for i in order[:r])


def _add_interval_rows(prob, instance: MoldableInstance, allots, horizon, y, C, ratio: float, partial_rows: int):
    """Interval-completion rows linked to the schedule (the refined bound of
    ``lowerbounds.moldable.refined_interval_bound``, one column per allotment).

    ``u[i,k,J] >= 0`` is the share of "task ``i`` on ``k`` processors completes in
    ``(a_J, b_J]``": ``sum_J u[i,k,J] = y[i,k]``, ``C_i >= sum u max(a_J, p_i(k))``,
    ``C_i <= sum u b_J``, and for every end ``b_J`` the area of the tasks done by
    ``b_J`` plus the area that later ones already used (``k max(0, b_J - b_J' + p)``)
    is at most ``m b_J``. Every schedule satisfies them with ``u`` the indicator of
    its completion interval, so the optimum is unchanged (``u`` continuous) while the
    relaxation becomes at least the refined bound.
    """
    n, m, times = instance.n, instance.m, instance.times
    first, last = float(instance.min_time.min()), float(horizon.max())
    count = max(1, int(math.ceil(math.log(max(last / first, 1.0)) / math.log(ratio))) + 1)
    ends = first * ratio ** np.arange(count)
    ends[-1] = max(ends[-1], last)
    lows = np.concatenate([[0.0], ends[:-1]])
    done: list[list] = [[] for _ in range(count)]
    running: list[list] = [[] for _ in range(count)]
    for i in range(n):
        lo_terms, hi_terms = [], []
        for k in allots[i]:
            p, area = float(times[i, k - 1]), float(k * times[i, k - 1])
            terms = []
            for J in range(count):
                if p > ends[J] * (1 + 1e-12) or lows[J] >= horizon[i]:
                    continue
                u = new_var(f"u_{i}_{k}_{J}", 0, 1)
                terms.append((u, 1.0))
                lo_terms.append((u, max(float(lows[J]), p)))
                hi_terms.append((u, float(ends[J])))
                done[J].append((u, area))
                for r in range(J - 1, max(-1, J - 1 - partial_rows), -1):
                    share = k * (ends[r] - ends[J] + p)
                    if share <= 0:
                        break
                    running[r].append((u, float(min(share, area))))
            prob += pulp.LpAffineExpression(terms + [(y[i, int(k)], -1.0)]) == 0, f"ucover_{i}_{k}"
        prob += C[i] >= pulp.LpAffineExpression(lo_terms), f"ulow_{i}"
        prob += C[i] <= pulp.LpAffineExpression(hi_terms), f"uhigh_{i}"
    cum: list = []
    for J in range(count):
        cum = cum + done[J]
        prob += pulp.LpAffineExpression(cum + running[J]) <= float(m * ends[J]), f"uarea_{J}"


def build_model(instance: MoldableInstance, *, upper: float | None = None,
                cut_subsets_max_n: int = CUT_SUBSETS_MAX_N, interval_ratio: float | None = INTERVAL_RATIO,
                partial_rows: int = PARTIAL_ROWS):
    """The PuLP model of the module docstring; returns ``(problem, parts)``.

    ``parts`` maps ``"y"``, ``"S"``, ``"x"``, ``"f"`` to the variables and
    ``"allots"``, ``"horizon"`` to the pruned allotments and horizons.
    """
    n, m = instance.n, instance.m
    times, w = instance.times, instance.weights
    allots = nondominated_allotments(instance)
    horizon = _horizons(instance, allots, upper)
    allots = [a[times[i, a - 1] <= horizon[i] * (1 + 1e-12)] for i, a in enumerate(allots)]
    prob = pulp.LpProblem("moldable_minsum_exact", pulp.LpMinimize)
    y = {(i, int(k)): new_var(f"y_{i}_{k}", 0, 1, pulp.LpInteger) for i in range(n) for k in allots[i]}
    S = [new_var(f"S_{i}", 0, float(horizon[i] - times[i, allots[i] - 1].min())) for i in range(n)]
    dur = [pulp.LpAffineExpression([(y[i, int(k)], float(times[i, k - 1])) for k in allots[i]]) for i in range(n)]
    procs = [pulp.LpAffineExpression([(y[i, int(k)], float(k)) for k in allots[i]]) for i in range(n)]
    C = [S[i] + dur[i] for i in range(n)]
    kmax = [int(a.max()) for a in allots]
    prob += pulp.lpSum(float(w[i]) * C[i] for i in range(n))
    for i in range(n):
        prob += pulp.lpSum(y[i, int(k)] for k in allots[i]) == 1, f"allot_{i}"
    x, f = {}, {}
    for i, j in itertools.permutations(range(n), 2):
        x[i, j] = new_var(f"x_{i}_{j}", 0, 1, pulp.LpInteger)
        f[i, j] = new_var(f"f_{i}_{j}", 0, None)
        prob += f[i, j] <= min(kmax[i], kmax[j]) * x[i, j], f"cap_{i}_{j}"
        prob += S[j] >= C[i] - float(horizon[i]) * (1 - x[i, j]), f"seq_{i}_{j}"
    for i, j in itertools.combinations(range(n), 2):
        prob += x[i, j] + x[j, i] <= 1, f"order_{i}_{j}"
    src = {j: new_var(f"f_src_{j}", 0, kmax[j]) for j in range(n)}
    snk = {i: new_var(f"f_{i}_snk", 0, kmax[i]) for i in range(n)}
    idle = new_var("f_src_snk", 0, m)
    prob += pulp.lpSum(src.values()) + idle == m, "source"
    for j in range(n):
        prob += src[j] + pulp.lpSum(f[i, j] for i in range(n) if i != j) == procs[j], f"in_{j}"
        prob += snk[j] + pulp.lpSum(f[j, k] for k in range(n) if k != j) == procs[j], f"out_{j}"
    a = instance.min_work / m
    for c, T in enumerate(_cut_subsets(instance, cut_subsets_max_n)):
        at = a[list(T)]
        rhs = 0.5 * float(at.sum()) ** 2
        prob += (pulp.lpSum(float(a[j]) * C[j] for j in T) - pulp.lpSum(0.5 * float(a[j]) * dur[j] for j in T)
                 >= rhs), f"mbt_{c}"
    for i, j in itertools.combinations(range(n), 2):
        if w[i] == w[j] and np.array_equal(times[i], times[j]):
            prob += S[i] <= S[j], f"sym_{i}_{j}"
    if interval_ratio is not None:
        _add_interval_rows(prob, instance, allots, horizon, y, C, interval_ratio, partial_rows)
    parts = {"y": y, "S": S, "x": x, "f": f, "src": src, "snk": snk, "idle": idle,
             "allots": allots, "horizon": horizon}
    return prob, parts


def _start_values(instance: MoldableInstance, schedule: Schedule, parts) -> dict:
    """MILP values of a feasible schedule: allotments, starts, order and processor flows."""
    n = instance.n
    procs = [assign_processors(instance, schedule)[i] for i in range(n)]
    end = completion_times(instance, schedule)
    eps = 1e-9 * max(1.0, float(end.max()))
    values = {}
    for i in range(n):
        values[parts["y"][i, int(schedule.procs[i])]] = 1.0
        values[parts["S"][i]] = float(schedule.start[i])
    for (i, j), var in parts["x"].items():
        values[var] = 1.0 if end[i] <= schedule.start[j] + eps else 0.0
    # each processor's task sequence gives one unit path source -> ... -> sink
    per_proc: dict[int, list[int]] = {}
    for i in range(n):
        for p in procs[i]:
            per_proc.setdefault(p, []).append(i)
    flow: dict = {}
    for p in range(instance.m):
        seq = sorted(per_proc.get(p, []), key=lambda i: (schedule.start[i], end[i]))
        arcs = [("src", seq[0])] + list(zip(seq, seq[1:])) + [(seq[-1], "snk")] if seq else [("src", "snk")]
        for arc in arcs:
            flow[arc] = flow.get(arc, 0) + 1
    for (u, v), amount in flow.items():
        if u == "src" and v == "snk":
            var = parts["idle"]
        elif u == "src":
            var = parts["src"][v]
        elif v == "snk":
            var = parts["snk"][u]
        else:
            var = parts["f"][u, v]
        values[var] = float(amount)
    return values


def _rebuild(instance: MoldableInstance, parts) -> Schedule:
    """Earliest starts for the MILP's allotments and order (longest path over ``x``)."""
    n = instance.n
    procs = np.array([max(parts["allots"][i], key=lambda k: parts["y"][i, int(k)].varValue or 0.0)
                      for i in range(n)], dtype=np.int64)
    milp_start = np.array([parts["S"][i].varValue or 0.0 for i in range(n)])
    dur = instance.times[np.arange(n), procs - 1]
    preds = {j: [i for i in range(n) if i != j and (parts["x"][i, j].varValue or 0.0) > 0.5] for j in range(n)}
    start = np.zeros(n)
    for j in np.lexsort((np.arange(n), milp_start)):  # x respects the MILP's start order
        start[j] = max([start[i] + dur[i] for i in preds[j]], default=0.0)
    return Schedule(start, procs)


def time_grain(instance: MoldableInstance, *, max_denominator: int = 1000) -> float | None:
    """Largest ``delta`` with every ``p_i(k)`` an integer multiple of it (``None`` if none).

    Times are read as fractions with denominators up to ``max_denominator``
    (within a relative ``1e-9``); ``delta`` is the gcd of those fractions.
    """
    num, den = 0, 1
    for v in np.unique(instance.times):
        f = fractions.Fraction(float(v)).limit_denominator(max_denominator)
        if abs(float(f) - v) > 1e-9 * max(1.0, v):
            return None
        den_new = math.lcm(den, f.denominator)
        num = math.gcd(num * (den_new // den), f.numerator * (den_new // f.denominator))
        den = den_new
    return num / den if num else None


def build_time_indexed_model(instance: MoldableInstance, grain: float, *, upper: float | None = None):
    """Time-indexed model on the grid ``delta = grain`` (exact when every time is a multiple of it).

    ``z[i,k,s] = 1`` when task ``i`` starts at ``s * delta`` on ``k`` processors,
    ``s = 0..H_i/delta - p_i(k)/delta`` (horizons and dominated allotments as in
    the flow model); for every slot ``t`` the tasks running in it use at most
    ``m`` processors. Exactness: an optimal schedule exists among the active
    ones, which start every task at 0 or at another task's completion, hence at
    a multiple of ``delta``. Returns ``(problem, parts)`` with ``parts["z"]``
    mapping ``(i, k, s)`` to variables.
    """
    n, m = instance.n, instance.m
    times, w = instance.times, instance.weights
    allots = nondominated_allotments(instance)
    horizon = _horizons(instance, allots, upper)
    slots = np.floor(horizon / grain + 1e-9).astype(np.int64)
    prob = pulp.LpProblem("moldable_minsum_time_indexed", pulp.LpMinimize)
    z: dict = {}
    obj, once = [], [[] for _ in range(n)]
    load: dict[int, list] = {}
    for i in range(n):
        for k in allots[i]:
            P = int(round(times[i, k - 1] / grain))
            for s in range(int(slots[i]) - P + 1):
                var = new_var(f"z_{i}_{k}_{s}", 0, 1, pulp.LpInteger)
                z[i, int(k), s] = var
                obj.append((var, float(w[i] * (s * grain + times[i, k - 1]))))
                once[i].append((var, 1.0))
                for t in range(s, s + P):
                    load.setdefault(t, []).append((var, float(k)))
    prob += pulp.LpAffineExpression(obj)
    for i in range(n):
        prob += pulp.LpAffineExpression(once[i]) == 1, f"once_{i}"
    for t, terms in sorted(load.items()):
        if sum(c for _, c in terms) > m:
            prob += pulp.LpAffineExpression(terms) <= m, f"procs_{t}"
    return prob, {"z": z, "grain": grain, "slots": int(slots.max())}


def _time_indexed_start(instance: MoldableInstance, schedule: Schedule, parts) -> dict | None:
    """Values of ``z`` for a schedule whose starts are on the grid (``None`` otherwise)."""
    s = np.asarray(schedule.start) / parts["grain"]
    if np.any(np.abs(s - np.round(s)) > 1e-6):
        return None
    values = {}
    for i in range(instance.n):
        var = parts["z"].get((i, int(schedule.procs[i]), int(round(s[i]))))
        if var is None:
            return None
        values[var] = 1.0
    return values


def _time_indexed_rebuild(instance: MoldableInstance, parts) -> Schedule:
    start = np.zeros(instance.n)
    procs = np.ones(instance.n, dtype=np.int64)
    best = np.full(instance.n, -1.0)
    for (i, k, s), var in parts["z"].items():
        v = var.varValue or 0.0
        if v > best[i]:
            best[i], start[i], procs[i] = v, s * parts["grain"], k
    return Schedule(start, procs)


def _choose(instance: MoldableInstance, formulation: str, grain: float | None, upper: float | None):
    if formulation not in FORMULATIONS:
        raise InvalidInputError(f"formulation: unknown {formulation!r}; choose one of {', '.join(FORMULATIONS)}")
    if formulation in ("flow", "branch-and-bound"):
        return formulation, None
    if grain is None:
        grain = time_grain(instance)
        if grain is None and formulation == "time-indexed":
            raise InvalidInputError("formulation 'time-indexed': the processing times are not multiples of a common "
                                    "grain (denominators up to 1000); use 'flow' or 'auto'")
    elif not (grain > 0 and math.isfinite(grain)):
        raise InvalidInputError(f"grain must be a positive number, got {grain}")
    fallback = "branch-and-bound" if instance.n <= BB_AUTO_MAX_TASKS else "flow"
    if grain is None:
        return fallback, None
    horizon = _horizons(instance, nondominated_allotments(instance), upper)
    slots = float(horizon.max()) / grain
    if formulation == "auto" and slots > MAX_SLOTS:
        return fallback, None
    return "time-indexed", grain


def solve_exact(instance: MoldableInstance, *, time_limit: float | None = 60.0,
                start: Schedule | None = None, formulation: str = "auto", grain: float | None = None,
                lower_bound: float | None = None, upper: float | None = None, threads: int = 1,
                cut_subsets_max_n: int = CUT_SUBSETS_MAX_N) -> Result:
    """Minimum ``sum w_i C_i`` of a moldable instance, proven by HiGHS.

    Parameters
    ----------
    instance : MoldableInstance
    time_limit : float or None
        Seconds for HiGHS (default 60; ``None`` = no limit).
    start : Schedule, optional
        A feasible schedule used as incumbent and for the horizon (checked
        first; an infeasible one raises :class:`InvalidInputError`).
    formulation : {"auto", "time-indexed", "flow", "branch-and-bound"}
        ``time-indexed`` (:func:`build_time_indexed_model`) needs every time to
        be a multiple of a grain; ``flow`` (:func:`build_model`) is exact for any
        real times but its relaxation is weak; ``branch-and-bound``
        (:func:`vcsched.formulations.moldable_bb.solve_branch_and_bound`, no
        HiGHS) is exact for any real times on a few tasks; ``auto`` (default)
        takes the time-indexed model when a grain exists and the grid has at most
        :data:`MAX_SLOTS` slots, else branch and bound up to
        :data:`BB_AUTO_MAX_TASKS` tasks, else the flow model.
    grain : float, optional
        The grid step (default: :func:`time_grain`); every time must be a
        multiple of it.
    lower_bound : float, optional
        A valid lower bound on the optimum from elsewhere (e.g.
        ``lowerbounds.moldable.refined_interval_bound``, which the core cannot
        import): the reported ``bound`` is the larger of it and HiGHS's, and a
        solution that meets it (relative 1e-6) is ``optimal``.
    upper : float, optional
        A value at least the optimum (e.g. a schedule's minsum found elsewhere), used only
        to shorten the horizons (module docstring); the smaller of it and ``start``'s.
    threads : int
        HiGHS threads (1 by default, one solve per core in sweeps).

    Returns
    -------
    Result
        ``method="exact"``; ``status`` ``optimal`` (proven, relative gap
        <= 1e-6), ``feasible`` at the limit (``bound`` = HiGHS's proven dual
        bound, ``gap``), ``time_limit`` without a solution. ``solution`` is a
        checked :class:`Schedule`; ``extra`` has ``makespan``, ``minsum``,
        ``formulation``, ``grain``, ``nodes``, ``variables``, ``constraints``.
    """
    t0 = time.perf_counter()
    if upper is not None and not math.isfinite(upper):
        raise InvalidInputError(f"upper must be a finite number, got {upper}")
    start_value, upper = _start_and_upper(instance, start, upper)
    if lower_bound is not None and not math.isfinite(lower_bound):
        raise InvalidInputError(f"lower_bound must be a finite number, got {lower_bound}")
    if grain is not None and not time_grain_ok(instance, grain):
        raise InvalidInputError(f"grain {grain}: some processing times are not multiples of it")
    chosen, grain = _choose(instance, formulation, grain, upper)
    if chosen == "branch-and-bound":
        return solve_branch_and_bound(instance, time_limit=time_limit, start=start, lower_bound=lower_bound)
    if chosen == "flow":
        prob, parts = build_model(instance, upper=upper, cut_subsets_max_n=cut_subsets_max_n)
        values = _start_values(instance, start, parts) if start is not None else None
    else:
        prob, parts = build_time_indexed_model(instance, grain, upper=upper)
        values = _time_indexed_start(instance, start, parts) if start is not None else None
    variables = list(prob.variables())
    out = solve_model(prob, time_limit=time_limit, threads=threads, variables=variables, start=values,
                      gap_rel=1e-6)
    extra = {"formulation": chosen, "grain": grain, "nodes": out.nodes, "variables": len(variables),
             "constraints": len(prob.constraints), "solver_seconds": out.seconds}
    if not out.status.has_solution:
        if out.status is Status.INFEASIBLE:  # pragma: no cover - the model always has a schedule
            message = out.message + " (a modelling error: every instance has a schedule)"
            return Result("exact", Status.ERROR, message=message, seconds=time.perf_counter() - t0, extra=extra)
        return Result("exact", out.status, bound=out.bound, message=out.message,
                      seconds=time.perf_counter() - t0, extra=extra)
    schedule = _rebuild(instance, parts) if chosen == "flow" else _time_indexed_rebuild(instance, parts)
    return _exact_result(instance, schedule, start, start_value, out, lower_bound, extra, t0)


def _start_and_upper(instance: MoldableInstance, start: Schedule | None, upper: float | None):
    """``(the start's minsum or None, the upper bound for the horizons)``; an infeasible start is refused."""
    if start is None:
        return None, upper
    report = check_schedule(instance, start)
    if not report.valid:
        raise InvalidInputError(f"start schedule is infeasible: {report.violations[0]}; pass a checked schedule")
    return report.minsum, report.minsum if upper is None else min(upper, report.minsum)


def _exact_result(instance: MoldableInstance, schedule: Schedule, start: Schedule | None, start_value, out,
                  lower_bound: float | None, extra: dict, t0: float) -> Result:
    """The checked schedule (the start when better), the larger of the MILP's and the given bound, and
    ``optimal`` when they meet (relative 1e-6)."""
    report = check_schedule(instance, schedule)
    if not report.valid:  # pragma: no cover - would be a bug of the model
        raise RuntimeError(f"exact MILP produced an invalid schedule: {report.violations[0]}")
    if start is not None and start_value < report.minsum:  # keep the better of the incumbent and HiGHS's solution
        schedule, report = start, check_schedule(instance, start)
    bound = max([b for b in (out.bound, lower_bound) if b is not None], default=None)
    status, message = out.status, out.message
    if bound is not None:
        bound = min(bound, report.minsum)
        if status is Status.FEASIBLE and relative_gap(report.minsum, bound) <= 1e-6:
            status, message = Status.OPTIMAL, f"{message}; the objective meets the given lower bound"
    extra.update(makespan=report.makespan, minsum=report.minsum, milp_bound=out.bound)
    return Result("exact", status, objective=report.minsum, bound=bound, gap=relative_gap(report.minsum, bound),
                  solution=schedule, seconds=time.perf_counter() - t0, message=message, extra=extra)


def time_grain_ok(instance: MoldableInstance, grain: float) -> bool:
    """Whether every ``p_i(k)`` is an integer multiple of ``grain`` (relative 1e-9), at least one grain
    when it is positive: a grain longer than a time is not one (the time would count as 0 grains;
    only a time of exactly 0, as in a rounded-down instance, is 0 grains)."""
    q = instance.times / grain
    return bool(np.all(np.abs(q - np.round(q)) <= 1e-9 * np.maximum(1.0, q))
                and np.all((np.round(q) >= 1) | (instance.times == 0)))
