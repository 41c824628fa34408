"""The upper side of the time-shared servers' references at scale: the best mapping found by local search.

The exact search (:func:`lowerbounds.timeshare.mapping.best_mapping`) stops at
:data:`~lowerbounds.timeshare.mapping.EXACT_MAX_TASKS` tasks. Above, :func:`search_mapping` improves the
greedy mapping (:func:`~lowerbounds.timeshare.mapping.greedy_mapping`) by moves of one task to another
server, each evaluated with the simulator's own sharing routine (:func:`~lowerbounds.timeshare.mapping.server_completion`:
processor sharing, transfers, the memory model; only the two servers a move touches are evaluated
again). A move is kept when the metric improves; a mapping that loses a task to the memory model is
never kept. The value returned is that of a mapping the simulator would run with that outcome, so it
is at least the optimum: with a proven bound it brackets the optimum (:func:`timeshare_brackets`).

Moves are drawn from ``numpy.random.default_rng(seed)``: a task with probability proportional to its flow
(the tasks that wait most first), then every other server is tried for it and the best kept when it
improves the metric (each server tried counts as one evaluation). The result depends on ``(seed, iterations)`` alone unless the time limit stops the search
first (``stopped`` says which).
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from lowerbounds.reference import Bracket, Side
from lowerbounds.timeshare.mapping import _order, greedy_mapping, server_completion
from lowerbounds.timeshare.types import METRICS, MetricBound, TaskCosts
from vcsched.errors import InvalidInputError

__all__ = ["MappingSearch", "search_mapping", "timeshare_brackets"]


@dataclasses.dataclass(frozen=True)
class MappingSearch:
    """The best mapping found for one metric: ``value``, ``mapping`` (server per task), ``evaluations`` (moves
    tried), ``stopped`` (``iterations``, ``time_limit`` or ``done``), ``seconds``."""

    metric: str
    value: float
    mapping: tuple
    evaluations: int
    stopped: str
    seconds: float


class _State:
    """Per-server task lists and per-task completions of a mapping, updated one move at a time."""

    def __init__(self, costs: TaskCosts, mapping: np.ndarray) -> None:
        self.costs = costs
        self.rank = np.empty(costs.n, dtype=np.int64)
        self.rank[_order(costs)] = np.arange(costs.n)
        self.mapping = mapping.copy()
        self.completion = np.full(costs.n, np.nan)
        for s in range(costs.p.shape[1]):
            self._refresh(s)

    def tasks_on(self, s: int) -> list:
        on = np.flatnonzero(self.mapping == s)
        return on[np.argsort(self.rank[on])].tolist()

    def _refresh(self, s: int) -> None:
        tasks = self.tasks_on(s)
        self.completion[tasks] = server_completion(self.costs, tasks, s)

    def move(self, j: int, s: int) -> None:
        old = int(self.mapping[j])
        self.mapping[j] = s
        self._refresh(old)
        self._refresh(s)

    def value(self, metric: str) -> float:
        c = self.completion
        if np.isnan(c).any():
            return math.inf
        flow = c - self.costs.arrival
        if metric == "sumflow":
            return float(flow.sum())
        if metric == "makespan":
            return float(c.max())
        if metric == "maxflow":
            return float(flow.max())
        return float((flow / self.costs.den[np.arange(self.costs.n), self.mapping]).max())


def _pick(state: _State, rng) -> int:
    """A task drawn with probability proportional to its flow (uniformly when no flow is positive)."""
    flow = np.nan_to_num(state.completion - state.costs.arrival, nan=0.0)
    flow = np.maximum(flow, 0.0)
    total = flow.sum()
    if not total > 0:
        return int(rng.integers(flow.size))
    return min(int(np.searchsorted(np.cumsum(flow), rng.random() * total, side="right")), flow.size - 1)


def search_mapping(costs: TaskCosts, metric: str = "sumflow", *, time_limit: float = 15.0, seed: int = 0,
                   iterations: int = 2000, start=None) -> MappingSearch:
    """Local search over mappings of independent tasks from ``start`` (default: the greedy mapping).

    Raises :class:`~vcsched.errors.InvalidInputError` for DAG applications (the moves map independent tasks).
    """
    if metric not in METRICS:
        raise InvalidInputError(f"unknown metric {metric!r}; choose among {', '.join(METRICS)}")
    if not costs.fixed.all():
        raise InvalidInputError("the mapping search maps independent tasks (this workload has DAG applications)")
    tic = time.perf_counter()
    mapping = np.asarray(greedy_mapping(costs, metric)[0] if start is None else start, dtype=np.int64)
    state = _State(costs, mapping)
    value = state.value(metric)
    rng = np.random.default_rng(seed)
    servers = costs.p.shape[1]
    used, stopped = 0, "done"
    while servers > 1 and costs.n:
        if used >= iterations:
            stopped = "iterations"
            break
        if time.perf_counter() - tic > time_limit:
            stopped = "time_limit"
            break
        j = _pick(state, rng)
        old = int(state.mapping[j])
        best_s, best_v = old, value
        for s in range(servers):
            if s == old:
                continue
            state.move(j, s)
            used += 1
            trial = state.value(metric)
            if trial < best_v:
                best_s, best_v = s, trial
        state.move(j, best_s)
        value = best_v
    return MappingSearch(metric, value, tuple(int(x) for x in state.mapping), used, stopped,
                         time.perf_counter() - tic)


def timeshare_brackets(costs: TaskCosts, lower: dict[str, MetricBound], *, time_limit: float = 15.0, seed: int = 0,
                       iterations: int = 2000) -> dict[str, Bracket]:
    """Per metric of ``lower``, the bracket [its value, the best mapping found] (``time_limit`` shared)."""
    out = {}
    stop = time.perf_counter() + time_limit
    names = list(lower)
    for r, m in enumerate(names):
        share = max((stop - time.perf_counter()) / (len(names) - r), 0.01)
        found = search_mapping(costs, m, time_limit=share, seed=seed, iterations=iterations)
        upper = Side(found.value, "local search", found.seconds) if math.isfinite(found.value) else None
        out[m] = lower[m].bracket(upper)
    return out
