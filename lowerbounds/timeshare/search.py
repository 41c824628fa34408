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

import numpy as np

from lowerbounds.reference import OPTIMAL_RTOL, Bracket, Side
from lowerbounds.timeshare._ps import server_dates
from lowerbounds.timeshare.mapping import _cost, _order, _value, evaluate_mapping, greedy_mapping, server_completion
from lowerbounds.timeshare.types import METRICS, MetricBound, TaskCosts
from vcsched.errors import InvalidInputError
from vcsched.jitclock import clock

__all__ = ["MappingSearch", "search_mapping", "timeshare_brackets", "compiled_applies", "kernel_arrays", "check_searchable",
           "good_enough"]


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
    """Per-server task lists, per-task completions and per-server aggregates of a mapping for one metric.

    Each server's dates come from the compiled event loop (:func:`lowerbounds.timeshare._ps.server_dates`)
    when no task needs memory, else from the simulator's routine with the memory model
    (:func:`~lowerbounds.timeshare.mapping.server_completion`). ``agg[s]`` is the sum (sumflow) or the
    maximum (the other metrics) of the costs of the tasks on ``s``; a refused task makes it ``inf``.
    """

    def __init__(self, costs: TaskCosts, mapping: np.ndarray, metric: str) -> None:
        self.costs, self.metric = costs, metric
        self.summed = metric == "sumflow"
        self.fast = not (costs.task_memory > 0).any() or not np.isfinite(costs.memory).any()
        self.cols = [tuple(np.ascontiguousarray(a[:, s]) for a in (costs.inp, costs.p, costs.out))
                     for s in range(costs.p.shape[1])]
        self.rank = np.empty(costs.n, dtype=np.int64)
        self.rank[_order(costs)] = np.arange(costs.n)
        self.mapping = mapping.copy()
        self.completion = np.full(costs.n, np.nan)
        self.on = [np.flatnonzero(self.mapping == s) for s in range(costs.p.shape[1])]
        self.agg = np.zeros(costs.p.shape[1])
        for s in range(costs.p.shape[1]):
            self.completion[self.on[s]], self.agg[s] = self.evaluate(self.on[s], s)

    def evaluate(self, tasks: np.ndarray, s: int) -> tuple[np.ndarray, float]:
        """Dates of ``tasks`` on server ``s`` and their aggregate cost."""
        if not tasks.size:
            return np.empty(0), 0.0
        if self.fast:
            dates = server_dates(tasks, self.costs.arrival, *self.cols[s])
        else:
            ordered = tasks[np.argsort(self.rank[tasks])]
            dates = np.empty(tasks.size)
            dates[np.argsort(self.rank[tasks])] = server_completion(self.costs, ordered.tolist(), s)
        if np.isnan(dates).any():
            return dates, math.inf
        cost = _cost(self.metric, self.costs, tasks, dates, s)
        return dates, float(cost.sum() if self.summed else cost.max())

    def value(self, agg=None) -> float:
        agg = self.agg if agg is None else agg
        return float(agg.sum() if self.summed else agg.max())

    def trial(self, changes: dict) -> tuple[float, dict]:
        """The metric's value when server ``s`` holds ``changes[s]`` (the others unchanged), and the new states."""
        agg = self.agg.copy()
        states = {}
        for s, tasks in changes.items():
            dates, agg[s] = self.evaluate(tasks, s)
            states[s] = (tasks, dates, agg[s])
        return self.value(agg), states

    def apply(self, states: dict) -> None:
        for s, (tasks, dates, agg) in states.items():
            self.on[s] = tasks
            self.mapping[tasks] = s
            self.completion[tasks] = dates
            self.agg[s] = agg


def _pick(state: _State, rng) -> int:
    """A task drawn with probability proportional to its flow (uniformly when no flow is positive)."""
    flow = np.nan_to_num(state.completion - state.costs.arrival, nan=0.0)
    flow = np.maximum(flow, 0.0)
    total = flow.sum()
    if not total > 0:
        return int(rng.integers(flow.size))
    return min(int(np.searchsorted(np.cumsum(flow), rng.random() * total, side="right")), flow.size - 1)


SWAP_PARTNERS = 6
"""Tasks of each other server tried in a swap with the drawn task: those whose arrivals are nearest to its own."""


def _moves(state: _State, j: int):
    """The moves of task ``j``: to every other server (relocation), and exchanges with the
    :data:`SWAP_PARTNERS` tasks of each other server that arrive nearest to it (swaps)."""
    a = int(state.mapping[j])
    without = state.on[a][state.on[a] != j]
    arrival = state.costs.arrival
    for b in range(len(state.on)):
        if b == a:
            continue
        yield {a: without, b: np.append(state.on[b], j)}
        others = state.on[b]
        if not others.size:
            continue
        near = others[np.argsort(np.abs(arrival[others] - arrival[j]), kind="stable")[:SWAP_PARTNERS]]
        for k in near.tolist():
            yield {a: np.append(without, k), b: np.append(others[others != k], j)}


KICK_TASKS = 8
"""Tasks moved at random when the search has gone ``n`` steps without a new best (iterated local search)."""


def _kick(costs: TaskCosts, metric: str, mapping: np.ndarray, rng) -> _State:
    """The best mapping with :data:`KICK_TASKS` random tasks on random other servers: where the search restarts."""
    out = mapping.copy()
    servers = costs.p.shape[1]
    for j in rng.choice(costs.n, size=min(KICK_TASKS, costs.n), replace=False).tolist():
        out[j] = (out[j] + rng.integers(1, servers)) % servers
    return _State(costs, out, metric)


def check_searchable(costs: TaskCosts, metric: str, what: str) -> None:
    """Refuse (:class:`~vcsched.errors.InvalidInputError`) an unknown metric or a workload with DAG applications:
    the searches over mappings (``what``) move independent tasks."""
    if metric not in METRICS:
        raise InvalidInputError(f"unknown metric {metric!r}; choose among {', '.join(METRICS)}")
    if not costs.fixed.all():
        raise InvalidInputError(f"{what} maps independent tasks (this workload has DAG applications)")


def good_enough(target: float | None) -> float:
    """The value at which a search stops: within :data:`~lowerbounds.reference.OPTIMAL_RTOL` of the proven lower
    bound ``target`` nothing better can be found (``-inf`` without one)."""
    return -math.inf if target is None else target * (1 + OPTIMAL_RTOL)


def search_mapping(costs: TaskCosts, metric: str = "sumflow", *, time_limit: float = 15.0, seed: int = 0,
                   iterations: int = 2000, start=None, target: float | None = None,
                   compiled: bool | None = None) -> MappingSearch:
    """Local search over mappings of independent tasks from ``start`` (default: the greedy mapping).

    Each step draws a task (:func:`_pick`) and applies the best of its moves (:func:`_moves`: relocations
    and swaps; each move tried counts as one evaluation) when it improves the metric. The returned value is
    the simulator's (:func:`~lowerbounds.timeshare.mapping.evaluate_mapping` on the final mapping).

    ``target``: a proven lower bound; the search stops (``stopped``: ``bound reached``) once its best value is
    within :data:`~lowerbounds.reference.OPTIMAL_RTOL` of it, since nothing better can be found.

    ``compiled``: use the compiled kernel (:mod:`lowerbounds.timeshare._search_kernel`; default: when
    :func:`compiled_applies`; forcing it on a workload with memory needs is refused). Its moves and rules are the
    same, its random stream another (SplitMix64 seeded by ``seed``): the two paths find different mappings.

    Raises :class:`~vcsched.errors.InvalidInputError` for DAG applications (the moves map independent tasks).
    """
    check_searchable(costs, metric, "the mapping search")
    tic = clock()
    mapping = np.asarray(greedy_mapping(costs, metric)[0] if start is None else start, dtype=np.int64)
    enough = good_enough(target)
    count = [0]
    if compiled and _needs_memory(costs):
        raise InvalidInputError("the compiled mapping search does not model memory (this workload needs it)")
    if compiled or (compiled is None and compiled_applies(costs)):
        best_mapping = mapping.copy()
        try:
            stopped = _compiled_descent(costs, metric, best_mapping, seed, iterations, tic, time_limit, enough, count)
        except KeyboardInterrupt:  # the best mapping of the last chunk completed stands
            stopped = "interrupted"
    else:
        state = _State(costs, mapping, metric)
        rng = np.random.default_rng(seed)
        best_value, best_mapping = state.value(), state.mapping.copy()
        try:
            stopped = _descend(state, rng, metric, costs, tic, time_limit, iterations, best_value, best_mapping,
                               count, enough)
        except KeyboardInterrupt:  # the best mapping seen so far stands (its value is re-evaluated below)
            stopped = "interrupted"
    used = count[0]
    final = tuple(int(x) for x in best_mapping)
    exact = _value(metric, costs, evaluate_mapping(costs, final), final)
    return MappingSearch(metric, exact, final, used, stopped, clock() - tic)


COMPILED_MIN_TASKS = 64
"""Workloads of at least this many independent tasks, none needing memory, are searched by the compiled kernel
(:mod:`lowerbounds.timeshare._search_kernel`, moves evaluated on the changed busy periods only); smaller ones, or
with memory needs, by the plain loop below (same moves, NumPy's generator, whole servers evaluated again)."""
CHUNK = 20_000
"""Evaluations per call of the compiled kernel: the clock and interrupts are checked between calls."""
METRIC_CODE = {"makespan": 0, "sumflow": 1, "maxflow": 2, "maxstretch": 3}


def _needs_memory(costs: TaskCosts) -> bool:
    return bool((costs.task_memory > 0).any() and np.isfinite(costs.memory).any())


def compiled_applies(costs: TaskCosts) -> bool:
    """Does :func:`search_mapping` use the compiled kernel on ``costs`` by default?"""
    return costs.n >= COMPILED_MIN_TASKS and not _needs_memory(costs) and costs.p.shape[1] > 1


def kernel_arrays(costs: TaskCosts) -> tuple:
    """Per server (rows) and task: computation start (arrival + input), computation, output, stretch denominator."""
    rows = [(costs.arrival[:, None] + costs.inp), costs.p, costs.out, costs.den]
    return tuple(np.ascontiguousarray(np.asarray(a, dtype=float).T) for a in rows)


def _compiled_descent(costs, metric, best_mapping, seed, iterations, tic, time_limit, enough, count) -> str:
    """:func:`search_mapping` by the compiled kernel, in chunks of :data:`CHUNK` evaluations (the path does not
    depend on the chunks); ``best_mapping`` (updated after each chunk) is the best seen, ``count[0]`` the evaluations."""
    from lowerbounds.timeshare import _search_kernel as K

    if costs.p.shape[1] < 2 or costs.n == 0:  # no move exists
        return "done"
    st, p, out, den = kernel_arrays(costs)
    code = METRIC_CODE[metric]
    state = K.new_state(costs.n, costs.p.shape[1])
    state["mapping"][:] = best_mapping
    head = (st, p, out, costs.arrival, den, code, state["lst"], state["cnt"], state["pm"], state["end"],
            state["cost"], state["agg"])
    K.rebuild(state["mapping"], *head)
    best = state["mapping"].copy()
    info = np.array([float(state["agg"].sum() if code == 1 else state["agg"].max()), 0.0, 0.0])
    rng = np.array([np.uint64(int(seed) % (1 << 64))], dtype=np.uint64)
    while True:
        if info[0] <= enough:
            return "bound reached"
        if info[2] >= iterations:
            return "iterations"
        if clock() - tic > time_limit:
            return "time_limit"
        reached = K.search_chunk(*head, state["mapping"], best, info, rng, iterations, info[2] + CHUNK, enough)
        best_mapping[:] = best
        count[0] = int(info[2])
        if reached:
            return "bound reached"


def _descend(state, rng, metric, costs, tic, time_limit, iterations, best_value, best_mapping, count,
             enough: float) -> str:
    """The loop of :func:`search_mapping`: ``best_mapping`` (updated in place) is the best seen, ``count[0]`` the
    evaluations so far (both stand when an interrupt stops the loop); returns why it stopped."""
    value, stopped, stale = state.value(), "done", 0
    while len(state.on) > 1 and costs.n:
        if best_value <= enough:
            stopped = "bound reached"
            break
        if count[0] >= iterations:
            stopped = "iterations"
            break
        if clock() - tic > time_limit:
            stopped = "time_limit"
            break
        if stale >= max(costs.n, 50):
            state = _kick(costs, metric, best_mapping, rng)
            value, stale = state.value(), 0
        j = _pick(state, rng) if rng.random() < 0.5 else int(rng.integers(costs.n))
        best_v, best = value, None
        for change in _moves(state, j):
            if count[0] >= iterations:
                break
            count[0] += 1
            trial, states = state.trial(change)
            if trial < best_v:
                best_v, best = trial, states
        stale += 1
        if best is not None:
            state.apply(best)
            value = best_v
            if value < best_value * (1 - 1e-12):
                best_value, best_mapping[:], stale = value, state.mapping, 0
    return stopped


def timeshare_brackets(costs: TaskCosts, lower: dict[str, MetricBound], *, time_limit: float = 15.0, seed: int = 0,
                       iterations: int = 2000) -> dict[str, Bracket]:
    """Per metric of ``lower``, the bracket [its value, the best mapping found] (``time_limit`` shared)."""
    out = {}
    stop = clock() + time_limit
    names = list(lower)
    for r, m in enumerate(names):
        share = max((stop - clock()) / (len(names) - r), 0.01)
        found = search_mapping(costs, m, time_limit=share, seed=seed, iterations=iterations)
        upper = Side(found.value, "local search", found.seconds) if math.isfinite(found.value) else None
        out[m] = lower[m].bracket(upper)
    return out
