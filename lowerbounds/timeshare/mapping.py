"""The best clairvoyant mapping of independent tasks to time-shared servers (seed 003), by branch and bound.

With the servers exactly as simulated (:mod:`vcsched.sim.timeshare`: dedicated transfers, processor
sharing of the computations, the memory model), an agent's only decision is which server gets each
task. An omniscient agent knows every arrival in advance; :func:`best_mapping` finds its best mapping
for one metric (sumflow, makespan, maxflow or maxstretch) by depth-first branch and bound over the
tasks in arrival order, and says whether it proved optimality within its time limit.

Evaluation reuses the simulator's server model: the dates of one server come from
:func:`vcsched.sim.processor_sharing.ps_completion_times` (the closed form the Historical Trace Manager
replays, equal to the simulator's event-by-event run without noise), plus the transfers; memory follows
the simulator's rule (a request that does not fit in the memory held at its arrival is refused, and
a mapping that loses a task is not a candidate).

Pruning rests on one property of processor sharing: **adding a task to a server never makes another
task on it end sooner** (the computing set only grows, so each task's share only shrinks). Hence, for
tasks ``0..j-1`` placed, each placed task's cost (flow, completion or stretch) with the tasks placed so
far, and each remaining task's cost if it were added alone to the current set of its best server, are
lower bounds on those costs in every completion of the partial mapping; the node's bound is their sum
(sumflow) or maximum (the other metrics). Servers with identical costs and memory are interchangeable:
among those still empty, only the first is tried.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from lowerbounds.timeshare.types import METRICS, MetricBound, TaskCosts
from vcsched.errors import InvalidInputError
from vcsched.jitclock import clock
from vcsched.sim.processor_sharing import ps_completion_times

__all__ = ["MappingResult", "evaluate_mapping", "server_completion", "greedy_mapping", "best_mapping", "search_applies",
           "exact_references", "EXACT_MAX_TASKS"]


EXACT_MAX_TASKS = 16
"""Largest workload the search is attempted on; above, :func:`exact_references` says so and keeps the bound."""

_SUM = ("sumflow",)


@dataclasses.dataclass(frozen=True)
class MappingResult:
    """Outcome of :func:`best_mapping`: the best mapping found, its value, a proven bound and the status."""

    metric: str
    status: str
    objective: float
    bound: float
    gap: float
    mapping: tuple
    nodes: int
    seconds: float
    message: str = ""


def search_applies(costs: TaskCosts) -> str | None:
    """``None`` when :func:`best_mapping` can search ``costs``, else the reason it cannot."""
    if not costs.fixed.all():
        return "the best mapping is searched for independent tasks only (this workload has DAG applications)"
    if costs.n > EXACT_MAX_TASKS:
        return (f"{costs.n} tasks are too many for the exact search (at most {EXACT_MAX_TASKS}); "
                f"kept the bound and the gap to a greedy mapping")
    return None


def _order(costs: TaskCosts) -> np.ndarray:
    """Tasks in the simulator's submission order: by arrival, then index."""
    return np.lexsort((np.arange(costs.n), costs.arrival))


def _cost(metric: str, costs: TaskCosts, tasks: list, completion: np.ndarray, s: int) -> np.ndarray:
    """Per-task cost of ``metric`` for ``tasks`` on server ``s`` ending at ``completion``."""
    if metric == "makespan":
        return completion
    flow = completion - costs.arrival[tasks]
    return flow / costs.den[tasks, s] if metric == "maxstretch" else flow


def _server_dates(costs: TaskCosts, tasks: list, s: int) -> np.ndarray:
    """Completion dates of ``tasks`` (independent) sharing server ``s``: the simulator's rule."""
    if not tasks:
        return np.empty(0)
    start = costs.arrival[tasks] + costs.inp[tasks, s]
    return ps_completion_times(costs.p[tasks, s], start) + costs.out[tasks, s]


def _fits(costs: TaskCosts, tasks: list, dates: np.ndarray, j: int, s: int) -> bool:
    """Does task ``j`` fit in server ``s``'s memory at its arrival, beside ``tasks`` (placed before it)?

    The simulator's rule (``TimeshareSimulation._submit``): refused when the memory held plus the
    task's need exceeds the capacity (+1e-9); the tasks accepted before it hold their memory until
    their completion, and one completing at the arrival date has freed it (ends come before
    submissions at one instant). Tested against the simulator.
    """
    need = costs.task_memory[j]
    if need <= 0 or not math.isfinite(costs.memory[s]):
        return True
    held = float(costs.task_memory[tasks][dates > costs.arrival[j]].sum()) if tasks else 0.0
    return held + need <= costs.memory[s] + 1e-9


def server_completion(costs: TaskCosts, tasks, s: int) -> np.ndarray:
    """Completion dates of ``tasks`` (independent, in the simulator's submission order) mapped to server ``s``,
    ``nan`` for a task refused by the memory model: one server's part of :func:`evaluate_mapping`."""
    kept: list[int] = []
    out = np.full(len(tasks), np.nan)
    bounded = math.isfinite(costs.memory[s])
    for j in tasks:
        if not bounded or costs.task_memory[j] <= 0 or _fits(costs, kept, _server_dates(costs, kept, s), j, s):
            kept.append(j)
    if kept:
        pos = {j: i for i, j in enumerate(tasks)}
        out[[pos[j] for j in kept]] = _server_dates(costs, kept, s)
    return out


def evaluate_mapping(costs: TaskCosts, mapping) -> np.ndarray:
    """Completion dates of independent tasks under ``mapping`` (server per task), ``nan`` for a refused task.

    Tasks are submitted in arrival order; a task that does not fit in its server's memory is lost
    (it never computes), as in the simulator with a one-server ranking. Servers are independent
    (:func:`server_completion`).
    """
    mapping = np.asarray(mapping, dtype=np.int64)
    order = _order(costs)
    completion = np.full(costs.n, np.nan)
    for s in range(costs.p.shape[1]):
        tasks = order[mapping[order] == s].tolist()
        completion[tasks] = server_completion(costs, tasks, s)
    return completion


def _value(metric: str, costs: TaskCosts, completion: np.ndarray, mapping) -> float:
    if np.isnan(completion).any():
        return math.inf
    servers = np.asarray(mapping)
    rows = np.arange(costs.n)
    flow = completion - costs.arrival
    if metric == "sumflow":
        return float(flow.sum())
    if metric == "makespan":
        return float(completion.max())
    if metric == "maxflow":
        return float(flow.max())
    return float((flow / costs.den[rows, servers]).max())


def greedy_mapping(costs: TaskCosts, metric: str) -> tuple[tuple, float]:
    """Each task in arrival order to the server that least increases ``metric`` over the tasks placed so far
    (a feasible mapping, the search's first incumbent); returns the mapping and its value."""
    S = costs.p.shape[1]
    sets: list[list[int]] = [[] for _ in range(S)]
    agg = np.zeros(S)
    mapping = np.zeros(costs.n, dtype=np.int64)
    combine = np.sum if metric in _SUM else np.max
    for j in _order(costs).tolist():
        best = (math.inf, 0, 0.0)
        for s in range(S):
            dates = _server_dates(costs, sets[s], s)
            if not _fits(costs, sets[s], dates, j, s):
                continue
            tasks = sets[s] + [j]
            new = float(combine(_cost(metric, costs, tasks, _server_dates(costs, tasks, s), s)))
            trial = combine(np.concatenate([np.delete(agg, s), [new]]))
            if trial < best[0]:
                best = (trial, s, new)
        mapping[j] = best[1]
        sets[best[1]].append(j)
        agg[best[1]] = best[2]
    completion = evaluate_mapping(costs, mapping)
    return tuple(int(s) for s in mapping), _value(metric, costs, completion, mapping)


class _Stop(Exception):
    pass


class _Done(Exception):
    pass


class _Search:
    """Depth-first branch and bound over the tasks in arrival order (see the module docstring)."""

    def __init__(self, costs: TaskCosts, metric: str, deadline: float, incumbent: tuple, value: float,
                 lower: float) -> None:
        self.costs, self.metric, self.deadline, self.lower = costs, metric, deadline, lower
        self.root = lower
        self.order = _order(costs).tolist()
        self.S = costs.p.shape[1]
        self.sum = metric in _SUM
        self.best, self.best_value = incumbent, value
        self.nodes = 0
        self.twin = self._twins()
        self.mapping = [0] * costs.n

    def _twins(self) -> list[int]:
        """``twin[s]``: the first server with the same costs and memory as ``s``."""
        c = self.costs
        key = [(c.p[:, s].tobytes(), c.inp[:, s].tobytes(), c.out[:, s].tobytes(), c.den[:, s].tobytes(),
                float(c.memory[s])) for s in range(self.S)]
        return [key.index(k) for k in key]

    def _combine(self, values) -> float:
        return float(sum(values)) if self.sum else float(max(values, default=0.0))

    def _column(self, sets: list, s: int, rest: list) -> np.ndarray:
        """Cost of each task of ``rest`` if it were added alone to server ``s``'s current set."""
        out = np.empty(len(rest))
        for r, m in enumerate(rest):
            tasks = sets[s] + [m]
            out[r] = _cost(self.metric, self.costs, tasks, _server_dates(self.costs, tasks, s), s)[-1]
        return out

    def bound(self, agg: list, extra: np.ndarray) -> float:
        """Node bound: placed tasks' costs (``agg`` per server) with each remaining task's best alone-cost."""
        own = extra.min(axis=1) if extra.size else np.empty(0)
        return self._combine(list(agg) + [self._combine(own.tolist())] if own.size else agg)

    def run(self) -> float:
        sets: list[list[int]] = [[] for _ in range(self.S)]
        extra = np.column_stack([self._column(sets, s, self.order) for s in range(self.S)])
        self.root = max(self.lower, self.bound([0.0] * self.S, extra))
        if self.best_value <= self.root * (1 + 1e-12):
            return self.root
        try:
            self.dfs(0, sets, [0.0] * self.S, extra)
        except _Done:
            pass
        return self.root

    def dfs(self, depth: int, sets: list, agg: list, extra: np.ndarray) -> None:
        if depth == len(self.order):
            value = self._combine(agg)
            if value < self.best_value * (1 - 1e-12):
                self.best_value, self.best = value, tuple(self.mapping)
                if value <= self.root * (1 + 1e-12):
                    raise _Done
            return
        self.nodes += 1
        if self.nodes % 256 == 0 and clock() > self.deadline:
            raise _Stop
        j = self.order[depth]
        rest = self.order[depth + 1:]
        for s in np.argsort(extra[0], kind="stable").tolist():
            if not sets[s] and any(not sets[t] for t in range(self.twin[s], s) if self.twin[t] == self.twin[s]):
                continue
            self._branch(depth, sets, agg, extra, j, s, rest)

    def _branch(self, depth, sets, agg, extra, j, s, rest) -> None:
        if self.bound(agg, extra[1:]) >= self.best_value * (1 - 1e-12):
            return
        dates = _server_dates(self.costs, sets[s], s)
        if not _fits(self.costs, sets[s], dates, j, s):
            return
        tasks = sets[s] + [j]
        new_agg = list(agg)
        new_agg[s] = self._combine(_cost(self.metric, self.costs, tasks, _server_dates(self.costs, tasks, s),
                                         s).tolist())
        rest_extra = extra[1:].copy()
        if self.bound(new_agg, rest_extra) >= self.best_value * (1 - 1e-12):
            return
        new_sets = list(sets)
        new_sets[s] = tasks
        if rest:
            rest_extra[:, s] = self._column(new_sets, s, rest)
            if self.bound(new_agg, rest_extra) >= self.best_value * (1 - 1e-12):
                return
        self.mapping[j] = s
        self.dfs(depth + 1, new_sets, new_agg, rest_extra)


def best_mapping(costs: TaskCosts, metric: str = "sumflow", *, time_limit: float = 60.0,
                 lower: float | None = None) -> MappingResult:
    """The mapping of independent tasks with the least ``metric`` (``METRICS``), by branch and bound.

    Parameters
    ----------
    costs : TaskCosts
        The workload and platform (:meth:`TaskCosts.of`); independent tasks only.
    metric : {"sumflow", "makespan", "maxflow", "maxstretch"}
    time_limit : float
        Seconds; at the limit the status is ``time_limit`` with the best mapping found, a proven
        bound (the larger of ``lower`` and the root's bound) and the gap.
    lower : float, optional
        A known lower bound (e.g. the LP's): optimality is declared as soon as the incumbent meets it.

    Returns
    -------
    MappingResult
        ``status`` is ``optimal`` (``bound == objective``), ``time_limit``, ``too_large`` (not
        searched: see :func:`search_applies`; the greedy mapping, the bound and the gap) or
        ``not_searched`` (DAG applications: the bound alone).
    """
    if metric not in METRICS:
        raise InvalidInputError(f"unknown metric {metric!r}; choose among {', '.join(METRICS)}")
    tic = clock()
    mapping, value = greedy_mapping(costs, metric) if costs.fixed.all() else ((), math.inf)
    lower = -math.inf if lower is None else float(lower)
    reason = search_applies(costs)
    if reason is not None:
        status = "too_large" if costs.fixed.all() else "not_searched"
        return _result(metric, status, value, lower, mapping, 0, tic, reason)
    search = _Search(costs, metric, tic + time_limit, mapping, value, lower)
    try:
        root = search.run()
    except _Stop:
        return _result(metric, "time_limit", search.best_value, search.root, search.best, search.nodes, tic,
                       f"stopped at the time limit ({time_limit:g} s) after {search.nodes} nodes")
    if not math.isfinite(search.best_value):
        return _result(metric, "infeasible", math.inf, max(lower, root), (), search.nodes, tic,
                       "every mapping loses a task to the memory model")
    return _result(metric, "optimal", search.best_value, search.best_value, search.best, search.nodes, tic,
                   f"proved optimal after {search.nodes} nodes")


def _result(metric, status, objective, bound, mapping, nodes, tic, message) -> MappingResult:
    gap = (objective - bound) / bound if bound > 0 and math.isfinite(objective) and math.isfinite(bound) else None
    return MappingResult(metric, status, float(objective), float(bound), gap, tuple(mapping), nodes,
                         clock() - tic, message)


def exact_references(costs: TaskCosts, lower: dict[str, MetricBound], *, time_limit: float,
                     metrics=METRICS) -> dict[str, MetricBound]:
    """:func:`best_mapping` of each metric (sumflow first), sharing ``time_limit``, as :class:`MetricBound`.

    ``value`` is the optimum when the status is ``optimal``, else the proven bound (at least
    ``lower``'s); ``gap`` is the relative gap of the best mapping found to that bound; ``seconds``
    include those of ``lower``.
    """
    ordered = [m for m in ("sumflow", "makespan", "maxstretch", "maxflow") if m in metrics]
    stop = clock() + time_limit
    out = {}
    for r, metric in enumerate(ordered):
        share = max((stop - clock()) / (len(ordered) - r), 0.05)
        res = best_mapping(costs, metric, time_limit=share, lower=lower[metric].value)
        value = max(res.bound, lower[metric].value)
        gap = (res.objective - value) / value if value > 0 and math.isfinite(res.objective) else None
        out[metric] = MetricBound(metric, value, "exact", lower[metric].seconds + res.seconds, status=res.status,
                                  optimum=res.objective if res.status == "optimal" else None,
                                  gap=0.0 if res.status == "optimal" else gap, mapping=res.mapping or None,
                                  message=res.message)
    return {m: out[m] for m in metrics}
