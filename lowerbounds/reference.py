"""What the simulation references of :mod:`lowerbounds.diet` and :mod:`lowerbounds.timeshare` share.

A metric's reference is a bound (a lower bound; an upper bound for a metric to maximise) from a
quick or relaxed method, or the outcome of an exact search over the clairvoyant solutions:
its status, the optimum when it is proved, the gap of the best solution found to the bound, and
the solution itself (DIET's placement, the time-shared servers' mapping). Each module keeps its
own class, with its own solution field and JSON form, on this base.
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["MetricReference"]


@dataclasses.dataclass(frozen=True)
class MetricReference:
    """One metric's reference: ``value``, the ``method`` that gave it and the ``seconds`` it took; from an
    exact search also ``status``, ``optimum`` (when optimal), ``gap`` and ``message``."""

    metric: str
    value: float | None
    method: str
    seconds: float
    status: str | None = None
    optimum: float | None = None
    gap: float | None = None
    message: str | None = None

    def _summary(self) -> dict[str, Any]:
        """The JSON fields every reference has: ``value``, ``method``, ``seconds``."""
        return {"value": self.value, "method": self.method, "seconds": self.seconds}

    def _search(self, bound: float | None, **solution: Any) -> dict[str, Any]:
        """The JSON fields of an exact search: ``status``, ``optimum``, ``bound``, ``gap``, then ``solution``."""
        return {"status": self.status, "optimum": self.optimum, "bound": bound, "gap": self.gap, **solution}
