"""DIET scheduling policies (seed 004): agent sorting, SeD queues, MA window scheduling.

The three approaches of §6.1.3, registered in :data:`APPROACHES` and built by
:func:`make_approach`; each is a :class:`DietApproach`, the policy object that
:func:`vcsched.sim.diet.simulate_diet` takes:

``standard``        Algorithm 1 sorting at every agent, jobs start at once on the SeD (no limit)
``sed-queue``       the same, plus at most ``limit`` (2) concurrent solves per SeD, FIFO (§5.1)
``task-scheduler``  SeD queue plus the MA's window scheduler, Algorithm 2, with RefinePlacement
                    (Algorithm 3 ``first-free``, the figure to the letter ``last-free``, or
                    ``minmin`` / ``sufferage`` / ``msf``, §7.2)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from heuristics.diet.refine import (
    REFINE,
    min_queue_wait,
    refine_first_free,
    refine_last_free,
    refine_minmin,
    refine_msf,
    refine_sufferage,
)
from heuristics.diet.sorting import READINGS, select_best_n, sort_key, sort_key_literal
from heuristics.diet.window import GlobalTaskManager, WindowParams, window_time_after_idle, window_time_after_schedule
from vcsched.errors import InvalidInputError
from vcsched.names import diet as names
from vcsched.registry import Registry
from vcsched.sim.diet_policy import Response

__all__ = [
    "APPROACHES", "REFINE", "DietApproach", "make_approach", "standard", "sed_queue", "task_scheduler",
    "select_best_n", "sort_key", "sort_key_literal", "READINGS", "WindowParams", "GlobalTaskManager", "window_time_after_idle",
    "window_time_after_schedule", "min_queue_wait", "refine_first_free", "refine_last_free", "refine_minmin",
    "refine_sufferage", "refine_msf",
]


@dataclasses.dataclass(frozen=True)
class DietApproach:
    """A policy for :func:`vcsched.sim.diet.simulate_diet` (implements ``DietPolicy``).

    ``sorter(responses, n, rng, reading=sorting)`` ranks the SeD answers at every agent
    (Algorithm 1; ``sorting`` is ``"metrics"`` or ``"literal"``, see :mod:`heuristics.diet.sorting`).
    """

    name: str
    concurrency_limit: int | None = None
    master: GlobalTaskManager | None = None
    sorter: Callable[..., list[Response]] = select_best_n
    sorting: str = "metrics"

    def select(self, responses: Sequence[Response], n: int, rng: np.random.Generator) -> list[Response]:
        return self.sorter(responses, n, rng, reading=self.sorting)


APPROACHES: Registry = Registry("DIET approach", names.APPROACHES)


def _limit(limit: int) -> int:
    if int(limit) != limit or limit < 1:
        raise InvalidInputError(f"SeD concurrency limit must be an integer >= 1, got {limit}")
    return int(limit)


def _sorting(reading: str) -> str:
    if reading not in READINGS:
        raise InvalidInputError(f"unknown --sorting {reading!r}; choose one of: {', '.join(READINGS)}")
    return reading


@APPROACHES.register("standard")
def standard(*, sorting: str = "metrics", **_: Any) -> DietApproach:
    """Standard DIET: on-line scheduling, every solve starts at once on its SeD (§4, §6.1.3).

    ``sorting`` is the reading of Algorithm 1's ties (:data:`heuristics.diet.sorting.READINGS`).
    """
    return DietApproach("standard", sorting=_sorting(sorting))


@APPROACHES.register("sed-queue")
def sed_queue(*, limit: int = 2, sorting: str = "metrics", **_: Any) -> DietApproach:
    """SeD Queue: Standard at the agents, at most ``limit`` concurrent solves per SeD, FIFO release (§5.1)."""
    return DietApproach("sed-queue", concurrency_limit=_limit(limit), sorting=_sorting(sorting))


@APPROACHES.register("task-scheduler")
def task_scheduler(*, limit: int = 2, window: WindowParams | None = None, refine: str = "first-free",
                   sorting: str = "metrics", **_: Any) -> DietApproach:
    """Task Scheduler: SeD queue plus the MA's GlobalTaskManager (Algorithm 2) with ``refine`` (Algorithm 3 by default)."""
    master = GlobalTaskManager(window or WindowParams(), REFINE.get(refine))
    name = "task-scheduler" if refine == "first-free" else f"task-scheduler/{refine}"
    return DietApproach(name, concurrency_limit=_limit(limit), master=master, sorting=_sorting(sorting))


def make_approach(name: str, **options: Any) -> DietApproach:
    """Build the approach registered as ``name`` (``standard``, ``sed-queue``, ``task-scheduler``)."""
    return APPROACHES.get(name)(**options)
