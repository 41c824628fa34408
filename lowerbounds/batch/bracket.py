"""The batch references as brackets: the proven bounds of :mod:`lowerbounds.batch.bounds` below, the best
clairvoyant schedules of :mod:`lowerbounds.batch.clairvoyant` above (the contract of :mod:`lowerbounds.reference`).

Time: ``quick`` runs the quick bounds and the schedule portfolio; ``lp``, ``exact`` and ``best`` give
:data:`LOWER_SHARE` of ``time_limit`` to the bounds and the rest to the schedules. With ``best`` each side
stops early when it stops improving: the window LPs once their projected sum cannot reach the
whole-workload bound (:func:`lowerbounds.batch.bounds.instance_bounds`), the schedule search after
``patience`` moves without improvement.

On an exactly solved window the MILP's optimal schedule joins the upper side (for the mean response
time and the makespan, each proven optimum is then the upper end as well). While the makespan's bracket is
open, the packings of :mod:`lowerbounds.batch.packing` (wide jobs first, with EASY backfilling or without
reservations) join it too.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from lowerbounds.batch.bounds import BatchBounds, _check_method, instance_bounds, stretch_unit
from lowerbounds.batch.clairvoyant import WORK_PER_SECOND, ClairvoyantSchedule, clairvoyant_schedules
from lowerbounds.batch.exact import exact_schedule_metrics
from lowerbounds.batch.instance import (
    METRICS,
    SIMULATOR_METRIC,
    BatchInstance,
    batch_instance,
    check_batch_schedule,
    schedule_metrics,
)
from lowerbounds.batch.packing import makespan_packings
from lowerbounds.reference import OPTIMAL_RTOL, Bracket, Side, beside
from vcsched.jitclock import clock

__all__ = ["BatchReferences", "batch_references", "instance_references", "search_budget", "LOWER_SHARE",
           "BEST_PATIENCE", "policy_references"]

LOWER_SHARE = 0.4
"""Share of the time limit given to the lower side (methods ``lp``, ``exact``, ``best``)."""
BEST_PATIENCE = 40
"""With ``best``: block moves without improvement before a metric's block search stops (twice as many list
moves); a metric's unused budget passes to the next ones, and the search ends when every metric has stopped."""


@dataclasses.dataclass(frozen=True)
class BatchReferences:
    """Per metric a :class:`~lowerbounds.reference.Bracket`, with the bounds and the schedules behind it."""

    instance: BatchInstance
    bounds: BatchBounds
    schedules: dict
    brackets: dict
    cut_short: bool = False
    """True when an interrupt stopped the lower side or the schedule portfolio: the bounds proven before it stand,
    and no schedule search ran (or its portfolio was lost)."""

    @property
    def interrupted(self) -> bool:
        """True when an interrupt stopped either side (the values are those proven or found before it)."""
        return self.cut_short or any(s.stopped == "interrupted" for s in self.schedules.values())

    def ratio(self, metric: str, value: float | None) -> list | None:
        """The interval of ``value / OPT`` for a policy's ``value`` of ``metric``."""
        return self.brackets[metric].ratio(value)

    def to_dict(self) -> dict:
        """The :class:`BatchBounds` JSON (per metric ``value``, ``method``, ``seconds``, ``detail``: the lower
        bound), each metric's entry with ``lower``, ``upper`` and ``status`` added (``upper`` also has
        ``detail``, ``evaluations`` and ``stopped``)."""
        out = self.bounds.to_dict()
        if self.interrupted:
            out["interrupted"] = True
        for m, entry in out["bounds"].items():
            entry.update(self.brackets[m].to_dict())
            sched = self.schedules.get(m)
            if sched is not None and entry["upper"] is not None and sched.value == entry["upper"]["value"]:
                entry["upper"].update(detail=sched.detail, evaluations=sched.evaluations, stopped=sched.stopped)
        return out


def _exact_upper(inst: BatchInstance, bounds: BatchBounds, schedules: dict) -> None:
    """Let an optimal MILP schedule replace a worse one (it is checked like every other)."""
    values = exact_schedule_metrics(inst, bounds.exact) if bounds.exact is not None else None
    if values is None:
        return
    clus = np.array([e["cluster"] for e in bounds.exact.schedule], dtype=np.int64)
    start = np.array([e["start"] for e in bounds.exact.schedule])
    check_batch_schedule(inst, clus, start)
    for m, v in values.items():
        old = schedules.get(m)
        if v is not None and old is not None and (old.value is None or v < old.value):
            schedules[m] = dataclasses.replace(old, value=v, method="exact", detail="the MILP's optimal schedule",
                                               cluster=clus, start=start)


def _given_upper(inst: BatchInstance, schedules: dict, given: dict) -> None:
    """Let each given schedule (``{name: (cluster, start)}``, e.g. a simulated policy's) replace a worse one; each is
    checked first (``AssertionError`` when it is not a schedule of the relaxation)."""
    for name, (clus, start) in given.items():
        clus, start = np.asarray(clus, dtype=np.int64), np.asarray(start, dtype=float)
        check_batch_schedule(inst, clus, start)
        for m, v in schedule_metrics(inst, clus, start).items():
            old = schedules.get(m)
            if v is not None and old is not None and (old.value is None or v < old.value):
                schedules[m] = dataclasses.replace(old, value=v, method="given", detail=f"the schedule of {name}",
                                                   cluster=clus, start=start)


def _packing_upper(inst: BatchInstance, bounds: BatchBounds, schedules: dict) -> None:
    """Let the best packing (:func:`lowerbounds.batch.packing.makespan_packings`, checked) replace the makespan
    schedule when it is better; only while the makespan's bracket is open (deterministic, no time limit)."""
    old = schedules.get("makespan")
    low = bounds.bounds["makespan"].value
    if old is None or old.value is None or old.value <= low * (1 + OPTIMAL_RTOL):
        return
    tic = time.perf_counter()
    found = makespan_packings(inst)
    if found is not None and found[0] < old.value:
        value, key, clus, start = found
        schedules["makespan"] = dataclasses.replace(
            old, value=value, method="packing", detail=key,
            seconds=old.seconds + time.perf_counter() - tic, cluster=clus, start=start)


def instance_references(inst: BatchInstance, *, method: str = "best", time_limit: float = 60.0, seed: int = 0,
                        iterations: int | None = None, patience: int | None = None,
                        given: dict | None = None) -> BatchReferences:
    """Brackets on a :class:`BatchInstance` (see :func:`batch_references`)."""
    _check_method(method, time_limit)
    t0 = clock()  # the safety clock without numba's compile time (:mod:`vcsched.jitclock`)
    quick = method == "quick"
    bounds = instance_bounds(inst, method=method, time_limit=LOWER_SHARE * time_limit, stop_early=method == "best")
    schedules: dict = {}
    cut_short = bounds.interrupted
    if not cut_short:
        stretch = bounds.bounds["max_stretch"].value
        if not quick and stretch is not None:  # the repair's unit (a work cap, no clock), so that
            stretch = stretch_unit(inst)  # a timed lower side cannot change the schedules a second run finds
        left = 0.95 * max(time_limit - (clock() - t0), 0.1 * time_limit)  # a margin for the last one
        if patience is None and method == "best":
            patience = BEST_PATIENCE
        try:
            schedules = clairvoyant_schedules(inst, time_limit=left, seed=seed, iterations=iterations,
                                              patience=patience, quick=quick, stretch_low=stretch,
                                              budget=search_budget(time_limit),
                                              lower={m: b.value for m, b in bounds.bounds.items()})
        except KeyboardInterrupt:  # during the portfolio: the bounds stand, no schedule is kept
            cut_short = True
        _exact_upper(inst, bounds, schedules)
        _given_upper(inst, schedules, given or {})
        _packing_upper(inst, bounds, schedules)
    brackets = {m: _bracket(m, bounds.bounds[m], schedules.get(m)) for m in METRICS}
    return BatchReferences(inst, bounds, schedules, brackets, cut_short)


def search_budget(time_limit: float) -> float:
    """The schedule search's work budget for a ``time_limit``: :data:`~lowerbounds.batch.clairvoyant.WORK_PER_SECOND`
    times the search's nominal share, ``0.9 (1 - LOWER_SHARE) time_limit``. A count, not a clock: two runs with
    the same seed build the same schedules (the clock stops a search only as a safety stop, reported as
    ``stopped: time_limit``)."""
    return WORK_PER_SECOND * 0.9 * (1 - LOWER_SHARE) * time_limit


def _bracket(metric: str, low, sched: ClairvoyantSchedule | None) -> Bracket:
    upper = None if sched is None or sched.value is None else Side(sched.value, sched.method, sched.seconds)
    return Bracket(metric, Side(low.value, low.method, low.seconds), upper)


def batch_references(jobs, clusters, *, method: str = "best", time_limit: float = 60.0, seed: int = 0,
                     iterations: int | None = None, patience: int | None = None,
                     given: dict | None = None) -> BatchReferences:
    """Per metric, an interval containing the clairvoyant optimum: proven bound below, best schedule found above.

    Parameters
    ----------
    jobs, clusters, method
        As for :func:`lowerbounds.batch.batch_bounds` (``method`` is the lower side's; ``quick`` also keeps the
        upper side to its portfolio).
    time_limit : float
        Seconds for both sides.
    seed, iterations, patience
        The schedule search's seed, a cap on its schedules per metric (default none: the search is sized by
        :func:`search_budget`, a count of work units, so that a run is reproducible), and moves without
        improvement before a metric's search stops (default :data:`BEST_PATIENCE` with ``best``, else no early
        stop).
    given : dict, optional
        ``{name: (cluster, start)}``: schedules known to be feasible (a simulated policy's: every simulated
        schedule is one of the relaxation, :mod:`lowerbounds.batch.instance`); each is checked, and replaces the
        upper end of a metric where it is better (method ``given``).

    Returns
    -------
    BatchReferences
        ``brackets[metric]`` for ``makespan, mean_response, mean_bounded_slowdown, max_stretch``;
        ``schedules[metric]`` the best schedule found (rows of ``jobs``).
    """
    return instance_references(batch_instance(jobs, clusters), method=method, time_limit=time_limit, seed=seed,
                               iterations=iterations, patience=patience, given=given)


def _simulated(result: Any, jobs: Any) -> dict:
    """The simulated schedule as a candidate upper end, when it is of the same jobs and every job ran."""
    if result is None or len(result.jobs) != len(jobs) or not np.array_equal(result.jobs.submit, jobs.submit):
        return {}
    if not (np.isfinite(result.start).all() and (result.cluster >= 0).all()):
        return {}
    return {"the simulated run": (result.cluster, result.start)}


def policy_references(overall: dict, jobs: Any, clusters: Any, *, method: str = "best", time_limit: float = 60.0,
                      result: Any = None) -> dict:
    """A simulated policy beside the references: ``overall`` is the run's overall metrics
    (:func:`vcsched.sim.output.metrics`, names mapped by :data:`~lowerbounds.batch.instance.SIMULATOR_METRIC`). Per metric: the simulated ``value``, its ``bound``, ``ratio_to_bound``, the bound's ``method`` and ``seconds``,
    the ``upper`` end, ``ratio_to_opt`` (``[value / upper, value / bound]``) and the ``status``. With the simulation
    ``result``, its own schedule is a candidate for the upper end (so ``ratio_to_opt`` never starts above 1)."""
    refs = batch_references(jobs, clusters, method=method, time_limit=time_limit, given=_simulated(result, jobs))
    if refs.cut_short:  # the caller's own interrupt handling reports it (no half-filled table)
        raise KeyboardInterrupt
    out = {}
    for name, b in refs.bounds.bounds.items():
        value = overall.get(SIMULATOR_METRIC[name])
        br = refs.brackets[name]
        out[name] = {"value": value, **beside(value, br), "method": b.method, "seconds": b.seconds,
                     "status": br.status}
    return out
