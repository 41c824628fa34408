"""The interface between the DIET simulator and its policies (seed 004 §4-5.2).

A SeD answers a request with a :class:`Response`; a :class:`DietPolicy` (implemented in
``heuristics.diet``) sorts them at every agent (Algorithm 1), sets the SeD concurrency limit
and may bring a :class:`MasterPolicy`, the MA's window scheduler (Algorithm 2). The simulator
(:mod:`vcsched.sim.diet`, which re-exports these) calls them and never imports a policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np

__all__ = ["Response", "MasterPolicy", "DietPolicy"]


class Response(NamedTuple):
    """What a SeD answers to a request (§4); ``None`` marks a metric the SeD cannot provide.

    A named tuple (immutable; made once per SeD and request, hundreds of thousands of times in a run).

    Attributes
    ----------
    sed : str
        Name of the SeD.
    exec_time : float or None
        Predicted execution time of the request on a dedicated processor (s).
    num_jobs : int or None
        Jobs present on the SeD (running + waiting).
    since_last_solve : float or None
        Seconds since the last solve request arrived (``inf`` if never).
    queue_wait : float or None
        Estimated wait before a new job would start (§5.1), in seconds.
    slots : int
        Jobs the SeD runs at once at full speed: ``min(cpus, limit)``.
    """

    sed: str
    exec_time: float | None
    num_jobs: int | None
    since_last_solve: float | None
    queue_wait: float | None = None
    slots: int = 1


class MasterPolicy(Protocol):
    """The MA-level window scheduler (§5.2, Algorithm 2's decisions)."""

    max_window_size: int
    min_window_time: float

    def initial_window_time(self) -> float: ...

    def window_time_after_idle(self, window_time: float) -> float: ...

    def window_time_after_schedule(self, min_queue_wait: float) -> float: ...

    def refine(self, responses: Sequence[Sequence[Response]],
               costs: Sequence[float]) -> tuple[list[str], float]:
        """Servers chosen for the window's requests (in order) and ``minQueueWait``."""
        ...


class DietPolicy(Protocol):
    """A scheduling approach: agent sorting, SeD concurrency limit, optional MA window scheduler."""

    name: str
    concurrency_limit: int | None
    master: MasterPolicy | None

    def select(self, responses: Sequence[Response], n: int, rng: np.random.Generator) -> list[Response]:
        """Agent aggregation (Algorithm 1): the ``n`` best of ``responses``, best first."""
        ...
