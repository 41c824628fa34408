"""DIET's references as brackets (seed 004 §5-6): a proven bound and the best clairvoyant placement found, per metric.

:func:`diet_references` is what ``vcsched diet bound`` prints and what ``diet simulate --bound`` compares each
approach with. For each metric a :class:`~lowerbounds.reference.Bracket` that contains the clairvoyant optimum:

* ``makespan`` and ``mean_turnaround`` (to minimise): the lower end is the larger of the relaxation's bound
  (:func:`~lowerbounds.diet.bounds.diet_bounds` with ``quick``, ``lp`` or ``best``) and the bound the placement
  search proves; the upper end is the value of the best placement found by
  :func:`~lowerbounds.diet.placement.best_placement` (list scheduling, the local search of
  :func:`~lowerbounds.diet.placement.improve`, then branch and bound and, for the makespan, the MILP, within
  the time given), evaluated with the placement model's own routine
  (:func:`~lowerbounds.diet.placement.evaluate`). Every such placement can be played by the simulator (the
  agent holds each request until its CPU frees), so its value is at least the optimum.
* ``throughput`` (to maximise, ``n / makespan``): the roles swap. The upper end is the proven bound, the
  smaller of the relaxation's throughput bound and ``n`` over the makespan's lower end; the lower end is
  ``n`` over the best placement's makespan.

Time: ``quick`` gives the closed forms and the placement search's work of :data:`QUICK_SECONDS` per objective
(without the MILP); the other methods give :data:`LOWER_SHARE` of ``time_limit`` to the relaxation and the rest
to the search, shared by the two objectives. The search is sized by counts (``node_limit``, or rates per second of its share: nodes, MILP nodes
and local-search rounds), so a run gives the same brackets on any load; the clock stops it only as a safety, at the
end of ``time_limit`` counted from the call (each objective leaves :data:`LATER_RESERVE` of the time left to each
one after it), so that the lower side's unused time serves as margin on a loaded machine.

Workloads of sequential users (the steady experiment) have no placement search (the number of requests depends
on the placement); their feasible end is the clairvoyant closed-loop list schedule of
:func:`lowerbounds.diet.users.closed_loop_schedule` (a schedule of the same placement model, so its window's
makespan and mean turnaround are at least the optimum's and its throughput at most the optimum's), against the
relaxation's bounds (``quick``: ``lp`` does not apply to sequential users; ``exact`` says so and gives the same).

An interrupt (SIGINT) keeps what was proven: during the relaxation's LP, the quick bounds; during a search, the
metrics done before it. The others keep their proven end only, marked ``interrupted`` (nothing else runs).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from lowerbounds.diet.bounds import INTERRUPTED, diet_bounds
from lowerbounds.diet.instance import MetricBound, diet_instance
from lowerbounds.diet.placement import OBJECTIVES, best_placement
from lowerbounds.reference import Bracket, Side
from vcsched.errors import InvalidInputError
from vcsched.names.references import BOUND_METHODS

__all__ = ["DietReference", "diet_references", "LOWER_SHARE", "QUICK_SECONDS"]

LOWER_SHARE = 0.4
"""Share of ``time_limit`` for the relaxation (methods ``lp``, ``best``, ``exact``)."""
QUICK_SECONDS = 1.0
"""Nominal seconds of placement search per objective for ``quick`` (its work is sized by the rates below)."""
SEARCH_NODES_PER_SECOND = 2_000
"""Without ``node_limit``: branch-and-bound nodes per second of an objective's search share (the search is sized by
these counts, so that a run gives the same brackets on any load; the clock stops it only as a safety)."""
MILP_NODES_PER_SECOND = 10
"""Without ``node_limit``: HiGHS branch-and-bound nodes of the makespan MILP per second of its share."""
LATER_RESERVE = 0.25
"""Fraction of the time left that an objective's safety stop leaves to each objective searched after it (at the
default minute on add-seds the makespan's work takes about 15 s of CPU, its nominal share 18 s: without this margin
a machine at load 3 cut its MILP after 2 of its 180 nodes and changed the bracket)."""
POLISH_ROUNDS_PER_SECOND = 2
"""Without ``node_limit``: improvements of the local search (:func:`~lowerbounds.diet.placement.improve`) per second
of an objective's share (each round scans every move: about 40 ms of CPU on add-seds' 54 requests)."""


@dataclasses.dataclass(frozen=True)
class DietReference:
    """One metric's ``bound`` (the relaxation's, as :func:`diet_bounds` gives it), its ``bracket``, the
    ``placement`` behind the best solution found (rows of SeD CPU and start), and the search's ``status``."""

    bound: MetricBound
    bracket: Bracket
    placement: list | None = None
    search_status: str | None = None
    message: str = ""
    interrupted: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The bound's JSON (``value``, ``method``, ``seconds``, ``kind``: the relaxation's bound as before), then
        ``lower``, ``upper`` and ``status`` (the contract of :mod:`lowerbounds.reference`)."""
        out = self.bound.to_dict()
        if "status" in out:
            out["search_status"] = out.pop("status")
        out.update(self.bracket.to_dict())
        if self.search_status is not None:
            out["search_status"] = self.search_status
        if self.message:
            out["message"] = self.message
        if self.interrupted:
            out["interrupted"] = True
        return out


def diet_references(scenario: Any, *, seed: int = 0, method: str = "best", time_limit: float = 60.0,
                    node_limit: int | None = None) -> dict[str, DietReference]:
    """Per metric of :data:`lowerbounds.diet.METRICS`, the bracket of the optimum (module docstring).

    ``method`` ``exact`` is :func:`diet_bounds`'s exact search (``time_limit`` per objective), read as brackets
    (:func:`_from_exact`); the other methods search too, sized by :func:`_work` for their share of ``time_limit`` (the
    clock stops them only as a safety). ``node_limit`` bounds the branch and bound and the MILP by that many nodes
    (and the local search by 200 improvements) instead.
    """
    if method not in BOUND_METHODS:
        raise InvalidInputError(f"--method must be one of {', '.join(BOUND_METHODS)}, got {method!r}")
    if method == "exact":
        exact = diet_bounds(scenario, seed=seed, method="exact", time_limit=time_limit)
        if any(b.interrupted for b in exact.values()):
            return _interrupted(exact, {})
        inst = diet_instance(scenario, seed=seed)
        return _users(inst, exact) if inst.users else {m: _from_exact(b) for m, b in exact.items()}
    tic = time.perf_counter()
    lower_limit = time_limit * (1.0 if method == "quick" else LOWER_SHARE)
    bounds = diet_bounds(scenario, seed=seed, method=method, time_limit=lower_limit)
    inst = diet_instance(scenario, seed=seed)
    if inst.users:
        return _users(inst, bounds)
    out: dict[str, DietReference] = {}
    if any(b.interrupted for b in bounds.values()):
        return _interrupted(bounds, out)
    stop = tic + time_limit
    nominal = QUICK_SECONDS if method == "quick" else (time_limit - lower_limit) / len(OBJECTIVES)
    work = _work(nominal, node_limit, milp=method != "quick")
    try:
        for r, objective in enumerate(OBJECTIVES):
            share = _safety(stop - time.perf_counter(), len(OBJECTIVES) - 1 - r)
            out[objective] = _minimise(inst, bounds[objective], share, *work)
    except KeyboardInterrupt:
        if "makespan" in out:
            out["throughput"] = _throughput(inst.n, bounds["throughput"], out["makespan"])
        return _interrupted(bounds, out)
    out["throughput"] = _throughput(inst.n, bounds["throughput"], out["makespan"])
    return out


def _interrupted(bounds: dict[str, MetricBound], done: dict[str, DietReference]) -> dict[str, DietReference]:
    """After an interrupt (SIGINT): the metrics ``done`` before it as they are, the others with their proven end
    only, marked ``interrupted``."""
    out = {}
    for m, b in bounds.items():
        if m in done:
            out[m] = done[m]
        else:
            out[m] = DietReference(b, b.bracket(None, maximise=m == "throughput"), message=INTERRUPTED,
                                   interrupted=True)
    return out


USERS_METHOD = "closed-loop list schedule"
"""The ``upper.method`` (``lower.method`` for throughput) of sequential users' feasible end."""


def _users(inst, bounds: dict[str, MetricBound]) -> dict[str, DietReference]:
    """Sequential users: the relaxation's bounds against the closed-loop schedule of
    :func:`lowerbounds.diet.users.closed_loop_schedule` (its window's values; the proven end of throughput
    is the upper one)."""
    from lowerbounds.diet.users import closed_loop_schedule, user_metrics

    if any(b.interrupted for b in bounds.values()):
        return _interrupted(bounds, {})
    try:
        schedule = closed_loop_schedule(inst)
    except KeyboardInterrupt:
        return _interrupted(bounds, {})
    found = None if schedule is None else user_metrics(inst, schedule)
    out = {}
    for m, b in bounds.items():
        value = None if found is None else found[m]
        side = None if value is None else Side(float(value), USERS_METHOD, schedule.seconds)
        proven = Side(b.value, b.method, b.seconds)
        if m == "throughput":
            bracket = Bracket(m, side or Side(None, "none", 0.0), proven, maximise=True)
        else:
            bracket = Bracket(m, proven, side)
        message = b.message or ("" if side is not None else "no feasible closed-loop schedule (a request fits on "
                                                              "no CPU)")
        out[m] = DietReference(b, bracket, None, None, message)
    return out


def _from_exact(b: MetricBound) -> DietReference:
    """A metric of :func:`diet_bounds`'s ``exact`` method as a bracket: its ``bound`` is the proven end, its
    ``value`` (the best placement's) the other; without a placement (sequential users) the relaxation's bound."""
    maximise = b.metric == "throughput"
    if b.bound is None or b.value is None or b.method != "exact":
        return DietReference(b, b.bracket(None, maximise=maximise), message=b.message or "")
    proven = Side(float(b.bound), "exact search bound", b.seconds)
    found = Side(float(b.value), "exact" if b.status == "optimal" else "placement search", b.seconds)
    bracket = Bracket(b.metric, found, proven, maximise=True) if maximise else Bracket(b.metric, proven, found)
    return DietReference(b, bracket, b.placement, None, "")


def _work(seconds: float, node_limit: int | None, *, milp: bool = True) -> tuple[int, int, int]:
    """``(nodes, MILP nodes, polish rounds)`` of one objective's search: ``node_limit`` for both node counts and 200
    rounds when given, else the rates per second of ``seconds`` (:data:`SEARCH_NODES_PER_SECOND`,
    :data:`MILP_NODES_PER_SECOND`, :data:`POLISH_ROUNDS_PER_SECOND`; at least one round). ``milp=False``
    (method ``quick``): no MILP (building it and solving its root alone take seconds on add-seds' 54 requests)."""
    if node_limit is not None:
        return node_limit, node_limit if milp else 0, 200
    return (int(SEARCH_NODES_PER_SECOND * seconds), int(MILP_NODES_PER_SECOND * seconds) if milp else 0,
            max(1, int(POLISH_ROUNDS_PER_SECOND * seconds)))


def _safety(left: float, later: int) -> float:
    """Seconds of one objective's safety stop: the ``left`` seconds of the time limit less :data:`LATER_RESERVE` of
    them per objective searched ``later`` (at least 0.1). The search is sized by :func:`_work`; this clock stops it
    only on a machine too loaded to do that work in time."""
    return max(left * (1.0 - LATER_RESERVE * later), 0.1)


def _minimise(inst, bound: MetricBound, share: float, nodes: int, milp_nodes: int, rounds: int) -> DietReference:
    """The bracket of ``makespan`` or ``mean_turnaround``: the best placement found against the larger bound."""
    res = best_placement(inst, bound.metric, time_limit=share, root_bound=bound.value, node_limit=nodes,
                         milp_node_limit=milp_nodes, polish_rounds=rounds)
    lower = Side(bound.value, bound.method, bound.seconds)
    if res.bound is not None and res.bound > bound.value:
        lower = Side(float(res.bound), "exact search bound", bound.seconds + res.seconds)
    if res.value is None:
        return DietReference(bound, Bracket(bound.metric, lower, None), None, str(res.status), res.message)
    method = "exact" if str(res.status) == "optimal" else "placement search"
    upper = Side(float(res.value), method, res.seconds)
    return DietReference(bound, Bracket(bound.metric, lower, upper), res.placement, str(res.status), res.message)


def _throughput(n: int, bound: MetricBound, makespan: DietReference) -> DietReference:
    """``n / makespan`` at both ends: the best placement's (lower end) and the smaller of the relaxation's
    throughput bound and ``n`` over the makespan's lower end (upper end, the proven one)."""
    proven = Side(bound.value, bound.method, bound.seconds)
    ms_low = makespan.bracket.lower
    if ms_low.value and ms_low.value > 0 and n / ms_low.value < bound.value:
        proven = Side(n / ms_low.value, f"n / makespan {ms_low.method}", ms_low.seconds)
    ms_up = makespan.bracket.upper
    found = None
    if ms_up is not None and ms_up.value and ms_up.value > 0:
        found = Side(n / ms_up.value, f"n / makespan {ms_up.method}", ms_up.seconds)
    return DietReference(bound, Bracket("throughput", found or Side(None, "none", 0.0), proven, maximise=True),
                         makespan.placement, makespan.search_status)
