"""The time-shared servers' references as brackets: a proven lower bound and the best mapping found, per metric.

:func:`timeshare_references` is what ``vcsched timeshare bound`` prints and what ``simulate --bound``
compares each heuristic with: for each metric a :class:`~lowerbounds.reference.Bracket` whose lower end
is the bound of :func:`~lowerbounds.timeshare.bounds.timeshare_bounds` (by ``method``) and whose upper
end is the value of the best clairvoyant mapping known:

* the exact search's optimum, when it proved one (the bracket is then closed, status ``optimal``);
* otherwise the local search over mappings (:func:`~lowerbounds.timeshare.search.search_mapping`, moves
  evaluated with the simulator's own sharing routine), started from the best of the exact search's best
  mapping and the mappings given as ``starts`` (the command line gives the runs of MCT, HMCT, MP and MSF),
  or from the greedy mapping when there is none.

Work: ``quick`` gives the quick bounds and a short search (:data:`QUICK_EVALUATIONS` moves per metric);
the other methods give :data:`LOWER_SHARE` of ``time_limit`` to the lower side (sized by work units,
:data:`lowerbounds.timeshare.bounds.WORK_PER_SECOND`) and the rest to the search, :data:`SEARCH_RATE` moves per
second shared between the metrics by :data:`SEARCH_WEIGHT` (or ``iterations`` moves per metric); after every
metric's search, the metrics of :data:`RECREATE_METRICS` get :data:`RECREATE_RATE` steps per second of ruin and
recreate (:func:`~lowerbounds.timeshare.recreate.ruin_recreate`) from their best mapping (not with ``iterations``),
on the clock left. So a run's
brackets depend on ``(time_limit, seed, iterations)`` and not on the machine's load, unless the clock (the whole
time limit, a safety) stops a part first (a search's ``stopped`` then says ``time_limit``). The clock is
:func:`vcsched.jitclock.clock`, which leaves out numba's compile time: the first run after an installation compiles
the kernels (about 20 s of CPU) and gives the same brackets as the next ones. DAG workloads have no search (the
moves map independent tasks): their upper end is unknown (status ``bound``) unless the exact search closed them.

An interrupt (SIGINT) stops everything: during the lower side, each metric keeps the bound proven before it
(marked ``interrupted``) and no search runs; during a search, that metric keeps the best mapping found and the
later metrics keep their lower end only. ``stopped`` is then ``interrupted``.
"""

from __future__ import annotations

import dataclasses
import math

from lowerbounds.reference import Bracket, Side
from lowerbounds.timeshare.bounds import timeshare_bounds
from lowerbounds.timeshare.mapping import _value, evaluate_mapping, greedy_mapping
from lowerbounds.timeshare.recreate import ruin_recreate
from lowerbounds.timeshare.search import search_mapping
from lowerbounds.timeshare.types import METRICS, MetricBound, TaskCosts
from vcsched.jitclock import clock
from vcsched.problems.timeshare import Platform, TimeshareWorkload

__all__ = ["TimeshareReference", "timeshare_references", "LOWER_SHARE", "QUICK_EVALUATIONS", "SEARCH_RATE",
           "SEARCH_WEIGHT", "RECREATE_RATE", "RECREATE_METRICS"]

LOWER_SHARE = 0.5
"""Share of ``time_limit`` for the lower side (methods ``lp``, ``exact``, ``best``): at 500 tasks a second half
of search moves the upper end by 1-2 %, while a wider window of the pair bound moves the lower end by 6 %."""
QUICK_EVALUATIONS = 100
"""Moves tried per metric by ``quick``'s search."""
SEARCH_RATE = 100_000
"""Moves per second of the search's share of the time limit, ``(1 - LOWER_SHARE) time_limit``, for the other methods:
the search is sized by this count, not by the clock (the compiled search tries about 300,000 moves per CPU second on
500 tasks, so a loaded machine that gives the run a third of a core still ends it in time); ``--iterations`` sets
the moves of every metric instead. The clock (the whole time limit) stops a search only as a safety."""


SEARCH_WEIGHT = {"makespan": 1.0, "sumflow": 4.0, "maxflow": 1.0, "maxstretch": 1.0}
"""Relative shares of the search's moves (what a metric leaves unused goes to the next ones): sumflow, whose bracket
the mapping search moves most, gets four times the others'."""
RECREATE_RATE = 300
"""Steps of ruin and recreate (:func:`lowerbounds.timeshare.recreate.ruin_recreate`, after the local search) per second
of the search's share of the time limit, for the metrics of :data:`RECREATE_METRICS` (methods other than ``quick``,
without ``--iterations``): 9,000 steps in the default minute, about 5 s of CPU on 500 tasks."""
RECREATE_METRICS = ("sumflow",)
"""The metrics whose upper end ruin and recreate improves after the local search."""


@dataclasses.dataclass(frozen=True)
class TimeshareReference:
    """One metric's ``bound`` (the lower side as :func:`timeshare_bounds` gives it), its ``bracket``, and the
    ``mapping`` (server per task) behind the upper end, with the search's ``evaluations``, ``stopped`` and
    ``start`` (the name of the mapping it started from); ``recreate_steps``: the ruin-and-recreate steps run after
    the local search."""

    bound: MetricBound
    bracket: Bracket
    mapping: tuple | None = None
    evaluations: int = 0
    stopped: str = ""
    start: str = ""
    recreate_steps: int = 0

    def to_dict(self) -> dict:
        """The bound's JSON (``value``, ``method``, ``seconds`` of the lower bound; the exact search's own
        ``status`` is ``search_status``), then ``lower``, ``upper`` and ``status`` (``optimal`` or
        ``bracketed``: the contract of :mod:`lowerbounds.reference`)."""
        out = self.bound.to_dict()
        if "status" in out:
            out["search_status"] = out.pop("status")
        out.update(self.bracket.to_dict())
        if out["upper"] is not None:
            out["upper"].update(evaluations=self.evaluations, stopped=self.stopped)
            if self.start:
                out["upper"]["start"] = self.start
            if self.recreate_steps:
                out["upper"]["recreate_steps"] = self.recreate_steps
        return out


def timeshare_references(platform: Platform, workload: TimeshareWorkload, *, work_factor=None, method: str = "best",
                         time_limit: float = 60.0, seed: int = 0, iterations: int | None = None,
                         metrics=METRICS, starts=None) -> dict[str, TimeshareReference]:
    """Per metric, the bracket ``[bound, best mapping found]`` (module docstring).

    ``starts``: ``{name: mapping}`` (server per task, e.g. the heuristics' runs); the search of each metric
    starts from the best of them and the exact search's mapping (evaluated with the simulator's routine; a
    mapping that loses a task is not a start), else from the greedy mapping; the JSON's ``upper.start``
    names it."""
    tic = clock()
    lower_limit = time_limit if method == "quick" else time_limit * LOWER_SHARE
    bounds = timeshare_bounds(platform, workload, work_factor=work_factor, method=method, time_limit=lower_limit,
                              metrics=metrics)
    costs = TaskCosts.of(platform, workload, work_factor)
    budget = None if iterations is not None or method == "quick" else SEARCH_RATE * (1 - LOWER_SHARE) * time_limit
    steps = 0 if budget is None else int(RECREATE_RATE * (1 - LOWER_SHARE) * time_limit)
    stop = tic + time_limit
    names = list(metrics)
    out = {}
    for r, metric in enumerate(names):
        if any(b.interrupted for b in bounds.values()) or any(ref.stopped == "interrupted" for ref in out.values()):
            out[metric] = TimeshareReference(bounds[metric], bounds[metric].bracket(None), None, 0, "interrupted")
            continue
        if budget is None:
            moves = iterations if iterations is not None else QUICK_EVALUATIONS
        else:
            moves = int(budget * SEARCH_WEIGHT.get(metric, 1.0) / sum(SEARCH_WEIGHT.get(m, 1.0) for m in names[r:]))
        share = max(stop - clock(), 0.05)
        try:
            out[metric] = _reference(costs, bounds[metric], share=share, seed=seed, iterations=moves, starts=starts)
        except KeyboardInterrupt:  # before the search had a mapping (choosing its start): no upper end
            out[metric] = TimeshareReference(bounds[metric], bounds[metric].bracket(None), None, 0, "interrupted")
        if budget is not None:
            budget -= out[metric].evaluations
    for metric in (m for m in names if m in RECREATE_METRICS and steps > 0):  # after every metric's search
        if any(ref.stopped == "interrupted" for ref in out.values()):
            break
        try:
            out[metric] = _ruin_and_recreate(costs, out[metric], steps=steps, seed=seed,
                                             share=max(stop - clock(), 0.05))
        except KeyboardInterrupt:  # before its first step: the local search's mapping stands
            out[metric] = dataclasses.replace(out[metric], stopped="interrupted")
    return out


def _start(costs: TaskCosts, bound: MetricBound, starts) -> tuple[str, tuple]:
    """The best start of the search for ``bound.metric``: ``(name, mapping)``."""
    candidates = {} if bound.mapping is None else {"exact search": tuple(bound.mapping)}
    for name, mapping in (starts or {}).items():
        mapping = tuple(int(x) for x in mapping)
        if len(mapping) == costs.n and min(mapping, default=0) >= 0:
            candidates[name] = mapping
    if not candidates:  # the greedy mapping costs seconds at 500 tasks: only when nothing else is known
        candidates["greedy"] = greedy_mapping(costs, bound.metric)[0]
    values = {name: _value(bound.metric, costs, evaluate_mapping(costs, m), m) for name, m in candidates.items()}
    name = min(values, key=values.get)
    return name, candidates[name]


def _reference(costs: TaskCosts, bound: MetricBound, *, share: float, seed: int, iterations: int,
               starts=None) -> TimeshareReference:
    """The bracket of one metric: closed by a proven optimum, else the search's best mapping."""
    if bound.status == "optimal" and bound.mapping is not None:
        upper = Side(bound.value, "exact", bound.seconds)
        return TimeshareReference(bound, bound.bracket(upper), bound.mapping, 0, "optimal")
    if not costs.fixed.all() or costs.n == 0:
        return TimeshareReference(bound, bound.bracket(None), None, 0, "no search (DAG applications)")
    name, start = _start(costs, bound, starts)
    found = search_mapping(costs, bound.metric, time_limit=share, seed=seed, iterations=iterations, start=start,
                           target=bound.value)
    if not math.isfinite(found.value):
        return TimeshareReference(bound, bound.bracket(None), None, found.evaluations, found.stopped)
    upper = Side(found.value, "local search", found.seconds)
    return TimeshareReference(bound, bound.bracket(upper), found.mapping, found.evaluations, found.stopped, name)


def _ruin_and_recreate(costs: TaskCosts, ref: TimeshareReference, *, steps: int, seed: int,
                       share: float) -> TimeshareReference:
    """``ref`` after ``steps`` of ruin and recreate from its mapping (on the clock left, ``share``), when its local
    search ran its moves; the upper end is the better of the two mappings."""
    if ref.mapping is None or ref.stopped not in ("iterations", "done") or ref.bracket.upper is None:
        return ref
    found = ruin_recreate(costs, ref.bound.metric, ref.mapping, iterations=steps, seed=seed, time_limit=share,
                          target=ref.bound.value)
    before = ref.bracket.upper
    value, mapping = (found.value, found.mapping) if found.value <= before.value else (before.value, ref.mapping)
    upper = Side(value, "local search, ruin and recreate", before.seconds + found.seconds)
    return dataclasses.replace(ref, bracket=ref.bound.bracket(upper), mapping=mapping, stopped=found.stopped,
                               recreate_steps=found.evaluations)
