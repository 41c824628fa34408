"""The state of one ``certify`` run: the incumbent, the proven load, the clock and the steps that change them.

:func:`lowerbounds.vc.certification.certify` decides *when* each step runs; :class:`Run`
holds what the steps share and does each step once: :meth:`Run.offer` (a
candidate placement, checked by the checker's memory rule, kept if it lowers
the largest load), :meth:`Run.improve_for` (the improvement step with a share of
the time left), :meth:`Run.prove` (the cheap L2 bound, then the configuration LP
at a load), :meth:`Run.dive` (price-and-dive, :mod:`lowerbounds.vc.dive`) and
:meth:`Run.integer_master` (:mod:`lowerbounds.vc.integer_master`). Seed 001
§2.5/§3.1: a load ``L`` is reached iff the tasks pack into ``H`` bins ``(L, 1)``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from lowerbounds.vc.integer_master import placement_from_configurations, solve_integer_master
from lowerbounds.vc.packing import Column, PackingItems, cheap_bins, configuration_lp
from vcsched.problems.vc import VCInstance, host_loads, placement_problem

if TYPE_CHECKING:  # pragma: no cover
    from lowerbounds.vc.options import CertifyOptions

__all__ = ["Run", "Clock", "fits", "host_columns", "TIMINGS"]


TIMINGS = ("seconds_cheap_bounds", "seconds_heuristics", "seconds_improve", "seconds_configuration_lp",
            "seconds_integer_master", "seconds_dive")
_DIVE_COUNTERS = ("tries", "found", "not_better", "failed", "time_limit")
"""``extra["dive"]``: dives; packings kept; packings not kept; dives whose LP exceeded ``H``; dives stopped by the clock."""
_IM_COUNTERS = ("tests", "found", "not_better", "infeasible", "time_limit", "not-run")
"""``extra["integer_master"]``: runs; packings kept; packings not kept (no lower load, or refused by the
memory check); restricted masters without a packing (proven, or at the time limit); runs without time."""


def fits(instance: VCInstance, task_host: Any) -> np.ndarray | None:
    """The placement as an int array when it is one of ``instance`` and fits memory
    (:func:`vcsched.problems.vc.placement_problem`, the heuristics' own test), else None."""
    if task_host is None or placement_problem(instance, task_host) is not None:
        return None
    return np.asarray(task_host).astype(np.int64)


def host_columns(instance: VCInstance, task_host: np.ndarray) -> list[Column]:
    """Each used host of a placement as a sparse configuration (job types and tasks of each),
    hosts in index order; ``O(T log T)`` time and ``O(T)`` memory for ``T`` tasks."""
    key = task_host.astype(np.int64) * instance.n_jobs + instance.task_job
    pairs, counts = np.unique(key, return_counts=True)
    hosts, jobs = np.divmod(pairs, instance.n_jobs)
    cuts = np.flatnonzero(np.diff(hosts)) + 1
    return [(j, c.astype(float)) for j, c in zip(np.split(jobs, cuts), np.split(counts, cuts))]


class Clock:
    """Deadline and time per part, on the clock ``now``."""

    def __init__(self, time_limit: float | None, now: Callable[[], float]) -> None:
        self.now = now
        self.t0 = now()
        self.deadline = None if time_limit is None else self.t0 + time_limit
        self.parts: dict[str, float] = {}

    def left(self) -> float:
        return math.inf if self.deadline is None else self.deadline - self.now()

    def add(self, part: str, since: float) -> None:
        self.parts[part] = self.parts.get(part, 0.0) + self.now() - since


@dataclasses.dataclass
class Run:
    """The state of one certify run: the incumbent, the proven load, the log and the clock."""

    instance: VCInstance
    items: PackingItems
    clock: Clock
    options: CertifyOptions
    stop_gap: float
    improve: Callable[..., tuple[np.ndarray, dict]] | None
    rng: np.random.Generator
    log: dict
    load_lo: float = 0.0
    closed_by: str = "load-bound"
    best: np.ndarray | None = None
    best_peak: float = math.inf
    columns: list | None = None
    pool: list = dataclasses.field(default_factory=list)
    """Configurations for the integer master: the LP tests' columns, the placements' hosts."""
    dive_failed: float = math.inf
    """The least load at which a dive failed."""
    dive_stopped: bool = False
    """A dive ran out of its time: the next ones would get less, no more dives."""

    def met(self) -> bool:
        return self.best_peak <= self.load_lo * (1 + self.stop_gap) + 1e-15

    def offer(self, task_host: Any, by: str | None = None) -> bool:
        """Keep ``task_host`` if it fits memory and lowers the largest load; True if kept
        (``by``, the step that found it, is then logged as ``incumbent_method``)."""
        th = fits(self.instance, task_host)
        if th is None:
            return False
        peak = float(host_loads(self.instance, th).max())
        if peak < self.best_peak - 1e-15:
            self.best, self.best_peak, self.columns = th, peak, None
            if by is not None:
                self.log["incumbent_method"] = by
            return True
        return False

    def improve_for(self, share: float) -> dict | None:
        """``improve`` with ``share`` of the time left; its counters (None if not run)."""
        if self.improve is None or self.met() or self.clock.left() <= 0:
            return None
        t = self.clock.now()
        budget = None if self.clock.deadline is None else max(self.clock.left() * share, 0.01)
        th, stats = self.improve(self.instance, self.best, target_load=self.load_lo * (1 + self.stop_gap),
                                 time_limit=budget, rng=self.rng)
        self.offer(th, "improve")
        counters = self.log.setdefault("improve", {})
        for k, v in dict(stats).items():
            if k != "seconds" and isinstance(v, (int, float)):
                counters[k] = counters.get(k, 0) + v
        self.clock.add("seconds_improve", t)
        return dict(stats)

    def prove(self, load: float, cap: float) -> tuple[str | None, bool]:
        """(name of the bound proving ``load`` infeasible or None, whether the test ran to the end):
        cheap L2 first, then the configuration LP with at most ``cap`` seconds."""
        t = self.clock.now()
        cheap = cheap_bins(self.items, load) > self.items.hosts
        self.clock.add("seconds_cheap_bounds", t)
        if cheap:
            return "l2", True
        t = self.clock.now()
        if self.columns is None:
            self.columns = host_columns(self.instance, self.best)
        budget = min(cap, self.options.lp_share * self.clock.left())
        proof = configuration_lp(self.items, load, deadline=time.perf_counter() + budget, start_columns=self.columns,
                                 keep_columns=self.options.integer_master_share > 0)
        self.clock.add("seconds_configuration_lp", t)
        self.log["lp_tests"] += 1
        self.log["lp_iterations"] += proof.iterations
        if not proof.complete:
            self.log["lp_incomplete"] += 1
        self.pool.extend(proof.generated)
        if not proof.infeasible and proof.lp_value is not None and math.ceil(proof.lp_value - 1e-9) <= self.items.hosts:
            self.integer_master(load, cap)  # the LP cannot exclude ``load``: look for a packing at it
        return ("configuration-lp" if proof.infeasible else None), proof.complete

    def dive(self, load: float) -> bool:
        """Price-and-dive (:mod:`lowerbounds.vc.dive`) at ``load`` with at most ``dive_share`` of
        the time left (``closing_dive_share`` when a packing at ``load`` closes the gap: it ends
        the run), warm-started with the pool's columns; True if its packing, re-checked by
        :meth:`offer`, became the incumbent."""
        from lowerbounds.vc.dive import dive_packing

        left = self.clock.left()
        if self.options.dive_share <= 0 or left <= 0.05 or self.best_peak <= load:
            return False
        t = self.clock.now()
        closes = load <= self.load_lo * (1 + self.stop_gap) + 1e-15
        share = max(self.options.dive_share, self.options.closing_dive_share) if closes else self.options.dive_share
        deadline = None if math.isinf(left) else time.perf_counter() + share * left
        out = dive_packing(self.items, load, deadline=deadline, columns=self.pool)
        kept = False
        if out.counts is not None:
            kept = self.offer(placement_from_configurations(self.instance, out.columns, out.counts), "dive")
        if not kept:  # failed, stopped by the clock, or refused: the next dive aims higher
            self.dive_failed = min(self.dive_failed, load)
        self.dive_stopped = self.dive_stopped or out.status == "time_limit"
        counters = self.log.setdefault("dive", dict.fromkeys(_DIVE_COUNTERS, 0))
        counters["tries"] += 1
        counters["found" if kept else "not_better" if out.counts is not None else out.status] += 1
        self.clock.add("seconds_dive", t)
        return kept

    def integer_master(self, load: float, cap: float) -> bool:
        """The restricted integer master at ``load`` over the pool and the incumbent's hosts, with at
        most ``cap`` seconds and ``integer_master_share`` of the time left; True if its packing,
        re-checked by :meth:`offer`, became the incumbent."""
        share = self.options.integer_master_share
        budget = min(cap, share * self.clock.left()) if share > 0 else 0.0  # 0 x inf (no limit) is nan
        if budget < 0.05 or self.best_peak <= load:
            return False
        t = self.clock.now()
        if self.columns is None:
            self.columns = host_columns(self.instance, self.best)
        im = solve_integer_master(self.items, load, self.pool + self.columns, time_limit=budget)
        kept = False
        if im.counts is not None:
            kept = self.offer(placement_from_configurations(self.instance, im.columns, im.counts), "integer-master")
        counters = self.log.setdefault("integer_master", dict.fromkeys(_IM_COUNTERS, 0))
        counters["tests"] += 1
        counters["found" if kept else "not_better" if im.counts is not None else im.status] += 1
        self.clock.add("seconds_integer_master", t)
        return kept
