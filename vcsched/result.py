"""One result type for every solver, bound, heuristic and simulation.

Every algorithm of the toolkit returns a :class:`Result`; its ``status`` is
one of the :class:`Status` values and nothing else:

``optimal``     solved to proven optimality (within the solver's tolerances)
``feasible``    a solution was found but optimality is not proven (time or gap limit)
``infeasible``  proven to have no solution
``time_limit``  stopped at a limit before any solution was found
``failed``      a heuristic found no solution (says nothing about feasibility)
``error``       the backend failed; ``message`` says how

An ``optimal`` result that carries both an objective and a bound has them
within :data:`OPTIMAL_GAP` (relative, :func:`relative_gap`) of each other: the
constructor checks it for every method (exact models, certification, bounds,
simulation references) and raises :class:`~vcsched.errors.InternalError`
otherwise, so a contradiction can never be printed as an optimum.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from typing import Any

from vcsched.errors import InternalError

__all__ = ["Status", "Result", "relative_gap", "OPTIMAL_GAP"]

OPTIMAL_GAP = 1e-4
"""Largest relative gap between objective and bound of a result reported ``optimal``."""


class Status(str, enum.Enum):
    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIME_LIMIT = "time_limit"
    FAILED = "failed"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value

    @property
    def has_solution(self) -> bool:
        return self in (Status.OPTIMAL, Status.FEASIBLE)


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """|bound - objective| / max(|bound|, 1e-12), or None when either is missing."""
    if objective is None or bound is None:
        return None
    if not (math.isfinite(objective) and math.isfinite(bound)):
        return None
    return abs(bound - objective) / max(abs(bound), 1e-12)


@dataclasses.dataclass(frozen=True)
class Result:
    """Outcome of one algorithm on one instance.

    Attributes
    ----------
    method : str
        Registered name of the algorithm (``"milp"``, ``"mcb8"``...).
    status : Status
    objective : float or None
        Value of the solution (e.g. the minimum yield), None without solution.
    bound : float or None
        Best proven bound on the optimum (an upper bound for maximisation).
    gap : float or None
        Relative gap between objective and bound.
    solution : object
        Problem-specific solution (e.g. :class:`vcsched.problems.vc.Allocation`).
    seconds : float
        Wall-clock time of the whole call.
    message : str
        Human-readable detail (why it failed, solver status...).
    extra : mapping
        Method-specific measurements (phase timings, iterations...).
    """

    method: str
    status: Status
    objective: float | None = None
    bound: float | None = None
    gap: float | None = None
    solution: Any = None
    seconds: float = 0.0
    message: str = ""
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        if self.status is Status.OPTIMAL:
            gap = relative_gap(self.objective, self.bound)
            if gap is not None and gap > OPTIMAL_GAP:
                raise InternalError(
                    f"method {self.method!r} reported status optimal with objective {self.objective!r} "
                    f"and bound {self.bound!r} (relative gap {gap:.3g} > {OPTIMAL_GAP}); this is a bug, "
                    f"please report it with the instance")

    @property
    def success(self) -> bool:
        return self.status.has_solution

    def to_dict(self) -> dict[str, Any]:
        """Flat dictionary for result tables (the solution is left out)."""
        row = {
            "method": self.method,
            "status": self.status.value,
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "seconds": self.seconds,
            "message": self.message,
        }
        for key, value in self.extra.items():
            row[key] = value
        return row

    def replace(self, **changes: Any) -> Result:
        return dataclasses.replace(self, **changes)
