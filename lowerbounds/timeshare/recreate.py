"""Ruin and recreate over mappings: the upper side of the time-shared servers' sumflow after the local search.

The local search (:mod:`lowerbounds.timeshare.search`) moves one task, or exchanges two, at a time. On a
congested workload (scenario (b) at mu = 15: the fast servers overloaded) its best mappings sit in a basin that
single moves do not leave: a better mapping moves several tasks of one busy period together. A step of
:func:`ruin_recreate` takes out a block of :data:`RUIN_BLOCK` consecutive tasks in arrival order (the first drawn
uniformly), then puts them back one at a time in a random order, each on the server where the metric of the tasks
placed so far is least (the later tasks of the block still out). The new mapping is kept when its value is not
worse than the current one (plateaus are crossed). Each server's dates come from the search's evaluation
(:class:`lowerbounds.timeshare.search._State`: the compiled processor sharing, or the simulator's routine with the
memory model), so the value returned, that of the simulator's own routine on the final mapping, is the value of a
mapping the simulator runs: an upper end of the bracket.

Randomness from ``numpy.random.default_rng(seed)``; the result depends on ``(seed, iterations)`` alone unless the
clock (a safety) stops it first (``stopped`` says ``time_limit``).
"""

from __future__ import annotations

import math

import numpy as np

from lowerbounds.timeshare.mapping import _order, _value, evaluate_mapping
from lowerbounds.timeshare.search import MappingSearch, _State, check_searchable, good_enough
from lowerbounds.timeshare.types import TaskCosts
from vcsched.jitclock import clock

__all__ = ["ruin_recreate", "RUIN_BLOCK"]

RUIN_BLOCK = 8
"""Consecutive tasks (in arrival order) taken out and put back by one step. On scenario (b), mu = 15, seed 0, from the
local search's best mapping: 8 gains more per step than 20 or 40 (which, put back greedily, rarely give a mapping as
good as the one they left)."""


def _recreate(state: _State, block: np.ndarray, rng) -> tuple[float, dict]:
    """The mapping with ``block`` taken out and put back in a random order, each task on its best server: the value
    and the new server states (``{s: (tasks, dates, aggregate)}``) for :meth:`_State.apply`."""
    out = set(block.tolist())
    S = len(state.on)
    lists = [np.array([x for x in state.on[s].tolist() if x not in out], dtype=np.int64) for s in range(S)]
    states = {s: (lists[s], *state.evaluate(lists[s], s)) for s in range(S)}
    agg = np.array([states[s][2] for s in range(S)])
    for t in block[rng.permutation(block.size)].tolist():
        best, best_s, best_state = math.inf, -1, None
        for s in range(S):
            tasks = np.append(states[s][0], t)
            dates, a = state.evaluate(tasks, s)
            trial = agg.copy()
            trial[s] = a
            v = state.value(trial)
            if v < best:
                best, best_s, best_state = v, s, (tasks, dates, a)
        if best_state is None:  # every server refuses it (memory): the block cannot be put back
            return math.inf, {}
        states[best_s] = best_state
        agg[best_s] = best_state[2]
    return state.value(agg), states


def ruin_recreate(costs: TaskCosts, metric: str, start, *, iterations: int, seed: int = 0, block: int = RUIN_BLOCK,
                  time_limit: float = math.inf, target: float | None = None) -> MappingSearch:
    """Ruin and recreate (module docstring) from the mapping ``start`` for ``iterations`` steps.

    ``target``: a proven lower bound; the search stops (``bound reached``) once its value is within
    :data:`~lowerbounds.reference.OPTIMAL_RTOL` of it. ``evaluations`` counts the steps. The value returned is the
    simulator's (:func:`~lowerbounds.timeshare.mapping.evaluate_mapping` on the final mapping), never above
    ``start``'s. Raises :class:`~vcsched.errors.InvalidInputError` for DAG applications or an unknown metric."""
    check_searchable(costs, metric, "ruin and recreate")
    tic = clock()
    state = _State(costs, np.asarray(start, dtype=np.int64), metric)
    order = _order(costs)
    size = min(int(block), costs.n)
    rng = np.random.default_rng(seed)
    enough = good_enough(target)
    value, done, stopped = state.value(), 0, "iterations"
    try:
        while True:
            if value <= enough:
                stopped = "bound reached"
                break
            if done >= iterations or size == 0 or len(state.on) < 2:
                stopped = "iterations" if done >= iterations else "done"
                break
            if clock() - tic > time_limit:
                stopped = "time_limit"
                break
            first = int(rng.integers(0, costs.n - size + 1))
            trial, states = _recreate(state, order[first:first + size], rng)
            done += 1
            if trial <= value:
                state.apply(states)
                value = trial
    except KeyboardInterrupt:  # the current mapping stands (it is re-evaluated below)
        stopped = "interrupted"
    final = tuple(int(x) for x in state.mapping)
    exact = _value(metric, costs, evaluate_mapping(costs, final), final)
    return MappingSearch(metric, exact, final, done, stopped, clock() - tic)
