"""The Master Agent's window scheduler: Algorithm 2 (``GlobalTaskManager``) of seed 004 §5.2.

The simulator (:mod:`vcsched.sim.diet`) runs the loop; this module holds its
decisions: the window-time rules and the refinement of a window's placements.

Window-time rules (Algorithm 2, literally):

* no request waiting: ``windowTime <- max(windowTime / 2, minWinTime)``;
* after a window: ``taskLatency`` if ``minQueueWait < taskLatency``, else
  ``winAdaptFactor * minQueueWait`` (this can be below ``taskLatency`` when
  ``winAdaptFactor < 1``; we keep the paper's rule as written).

``minQueueWait`` (not defined by the paper's pseudocode): the smallest
queue-wait estimate among all responses of the window (the best any server
offered when the window was scheduled; 0 if no response carries one), see
:func:`heuristics.diet.refine.min_queue_wait`.

Defaults: ``minWinTime`` = 5 ms and ``taskLatency`` = 1 s are the paper's
values; ``maxWinSize`` should equal the agents' ``maxResponses`` (§5.2), so it
defaults to :class:`~vcsched.problems.diet.DietPlatform`'s ``n_best`` (8);
``winAdaptFactor`` is not given by the paper: 0.5 is our assumption (release
the next window when half of the smallest predicted wait has elapsed).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

from vcsched.errors import InvalidInputError
from vcsched.sim.diet_policy import Response

__all__ = ["WindowParams", "window_time_after_idle", "window_time_after_schedule", "GlobalTaskManager"]


@dataclasses.dataclass(frozen=True)
class WindowParams:
    """Parameters of Algorithm 2 (seconds, requests)."""

    min_win_time: float = 0.005
    max_win_size: int = 8
    win_adapt_factor: float = 0.5
    task_latency: float = 1.0

    def __post_init__(self) -> None:
        if not (self.min_win_time > 0 and math.isfinite(self.min_win_time)):
            raise InvalidInputError(f"minWinTime must be a positive number of seconds, got {self.min_win_time}")
        if int(self.max_win_size) < 1:
            raise InvalidInputError(f"maxWinSize must be an integer >= 1, got {self.max_win_size}")
        if not self.win_adapt_factor > 0:
            raise InvalidInputError(f"winAdaptFactor must be > 0, got {self.win_adapt_factor}")
        if not self.task_latency >= 0:
            raise InvalidInputError(f"taskLatency must be >= 0 seconds, got {self.task_latency}")


def window_time_after_idle(window_time: float, params: WindowParams) -> float:
    """Algorithm 2, no request waiting: halve the window time, not below ``minWinTime``."""
    return max(window_time / 2.0, params.min_win_time)


def window_time_after_schedule(min_queue_wait: float, params: WindowParams) -> float:
    """Algorithm 2, after a window: ``taskLatency`` if ``minQueueWait < taskLatency`` else ``winAdaptFactor * minQueueWait``."""
    if min_queue_wait < params.task_latency:
        return params.task_latency
    return params.win_adapt_factor * min_queue_wait


@dataclasses.dataclass(frozen=True)
class GlobalTaskManager:
    """The MA-level policy of the Task Scheduler approach (implements :class:`vcsched.sim.diet_policy.MasterPolicy`).

    ``refine_fn(responses, costs) -> (servers, minQueueWait)`` is Algorithm 3
    or a variant (:data:`heuristics.diet.refine.REFINE`).
    """

    params: WindowParams
    refine_fn: Callable[[Sequence[Sequence[Response]], Sequence[float]], tuple[list[str], float]]

    @property
    def max_window_size(self) -> int:
        return int(self.params.max_win_size)

    @property
    def min_window_time(self) -> float:
        return self.params.min_win_time

    def initial_window_time(self) -> float:
        return self.params.min_win_time

    def window_time_after_idle(self, window_time: float) -> float:
        return window_time_after_idle(window_time, self.params)

    def window_time_after_schedule(self, min_queue_wait: float) -> float:
        return window_time_after_schedule(min_queue_wait, self.params)

    def refine(self, responses: Sequence[Sequence[Response]], costs: Sequence[float]) -> tuple[list[str], float]:
        return self.refine_fn(responses, costs)
