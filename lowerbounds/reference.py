"""The reference contract of every simulated family, and what the references of :mod:`lowerbounds.diet` and
:mod:`lowerbounds.timeshare` share.

**The contract** (:class:`Bracket`): per metric (named as the simulator names it), an interval that
contains the clairvoyant optimum,

* ``lower``: a :class:`Side` (``value``, ``method``, ``seconds``) at most the optimum,
* ``upper``: a :class:`Side` at least the optimum,
* ``status``: ``optimal`` when the two meet within :data:`OPTIMAL_RTOL` relative, ``bracketed``
  otherwise (``bound`` while only the lower side is known),

and :func:`ratio_interval`, the one function that turns a policy's value into the interval of its ratio to
the optimum: ``[value / upper, value / lower]``. For a metric to minimise (response times, slowdowns,
stretch, makespan, sumflow) the lower end is the proven bound and the upper end the value of the best
clairvoyant solution found (a schedule, mapping or placement); for a metric to maximise (DIET's
throughput) the roles swap (the upper end is the proven bound, the lower end the best solution
found) and the interval is the same formula: a policy's ratio to the optimum is then at most 1, and
``value / upper`` is its guaranteed share of the optimum. Either way ``value / upper <= value / OPT <=
value / lower`` for a positive value.

A metric's reference is a bound (a lower bound; an upper bound for a metric to maximise) from a
quick or relaxed method, or the outcome of an exact search over the clairvoyant solutions:
its status, the optimum when it is proved, the gap of the best solution found to the bound, and
the solution itself (DIET's placement, the time-shared servers' mapping). Each module keeps its
own class, with its own solution field and JSON form, on this base.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from vcsched.errors import InternalError

__all__ = ["MetricReference", "Side", "Bracket", "ratio_interval", "bracket_status", "OPTIMAL_RTOL", "beside",
           "beside_columns", "BRACKET_COLUMNS"]

OPTIMAL_RTOL = 1e-4
"""Relative distance under which the two ends of a bracket are said to meet (status ``optimal``)."""
BRACKET_COLUMNS = ("metric", "lower", "upper", "upper/lower", "status", "lower method", "upper method", "seconds")
"""The columns of a ``bound`` command's table, one row per metric (:meth:`Bracket.row`)."""


@dataclasses.dataclass(frozen=True)
class Side:
    """One end of a bracket: its ``value`` (None when unknown), the ``method`` that gave it, the ``seconds`` spent."""

    value: float | None
    method: str
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "method": self.method, "seconds": self.seconds}


def bracket_status(lower: float | None, upper: float | None, *, rtol: float = OPTIMAL_RTOL) -> str:
    """``optimal`` when ``upper - lower <= rtol * max(|upper|, |lower|)``, ``bracketed`` when both are known,
    else ``bound``."""
    if lower is None or upper is None:
        return "bound"
    return "optimal" if upper - lower <= rtol * max(abs(upper), abs(lower)) else "bracketed"


def ratio_interval(value: float | None, lower: float | None, upper: float | None) -> list | None:
    """``[value / upper, value / lower]``: the interval of ``value / OPT`` when ``lower <= OPT <= upper``.

    None when ``value`` is unknown. An end whose divisor is unknown or not positive is None (a lower end
    of 0 says nothing about the ratio's upper end). The same formula serves metrics to maximise, whose
    ``lower`` is the best solution found and ``upper`` the proven bound (see the module docstring).
    """
    if value is None:
        return None

    def _div(d):
        return None if d is None or not d > 0 else float(value) / float(d)

    return [_div(upper), _div(lower)]


@dataclasses.dataclass(frozen=True)
class Bracket:
    """The contract for one metric: ``lower <= OPT <= upper`` (see the module docstring).

    ``maximise`` says which end is the proven bound (``upper`` for a metric to maximise). Building a
    bracket whose lower end exceeds its upper end (beyond a relative 1e-9, rounding) raises ValueError:
    one of the two sides is wrong.
    """

    metric: str
    lower: Side
    upper: Side | None = None
    maximise: bool = False

    def __post_init__(self) -> None:
        lo, hi = self.lower.value, None if self.upper is None else self.upper.value
        if lo is not None and hi is not None and lo - hi > 1e-9 * max(abs(lo), abs(hi), 1e-300):
            raise InternalError(f"{self.metric}: lower end {lo} above upper end {hi} ({self.lower.method} vs "
                             f"{self.upper.method})")

    @property
    def status(self) -> str:
        return bracket_status(self.lower.value, None if self.upper is None else self.upper.value)

    @property
    def width(self) -> float | None:
        """``upper / lower`` (None when an end is unknown or the lower end is not positive)."""
        lo, hi = self.lower.value, None if self.upper is None else self.upper.value
        return None if lo is None or hi is None or not lo > 0 else hi / lo

    def ratio(self, value: float | None) -> list | None:
        """:func:`ratio_interval` of a policy's ``value`` on this bracket."""
        return ratio_interval(value, self.lower.value, None if self.upper is None else self.upper.value)

    def row(self) -> dict[str, Any]:
        """The bracket as one row of a ``bound`` command's table (:data:`BRACKET_COLUMNS`): both ends, the width,
        the status, both methods, and the seconds of both sides together."""
        lo, up = self.lower, self.upper
        return {"metric": self.metric, "lower": lo.value, "upper": None if up is None else up.value,
                "upper/lower": self.width, "status": self.status, "lower method": lo.method,
                "upper method": None if up is None else up.method,
                "seconds": lo.seconds + (0.0 if up is None else up.seconds)}

    def to_dict(self) -> dict[str, Any]:
        """``{"lower": {...}, "upper": {...} or None, "status": ...}``."""
        return {"lower": self.lower.to_dict(), "upper": None if self.upper is None else self.upper.to_dict(),
                "status": self.status}


def beside(value: float | None, bracket: Bracket, *, bound: float | None = None, comparable: bool = True) -> dict:
    """A policy's ``value`` of one metric beside that metric's ``bracket``, the fields every simulated family
    reports:

    * ``bound``: the proven end (the lower end of a metric to minimise, the upper end of one to maximise), or
      the given ``bound`` (DIET reports its relaxation's, whose end an exact search may have tightened);
    * ``ratio_to_bound`` = ``value / bound``;
    * ``upper``: the value of the best solution found, the bracket's other end (its upper end for a metric to
      minimise, its lower end for one to maximise);
    * ``ratio_to_opt`` = :meth:`Bracket.ratio` ``(value)``, ``[value / upper, value / lower]``.

    The ratios are None when ``value`` is unknown, the bound is not positive (``ratio_to_bound``), or the run
    is not ``comparable`` with the references (a time-shared run that lost tasks: its metrics cover fewer
    tasks than the references do).
    """
    lo, hi = bracket.lower.value, None if bracket.upper is None else bracket.upper.value
    proven, found = (hi, lo) if bracket.maximise else (lo, hi)
    bound = proven if bound is None else bound
    known = comparable and value is not None
    return {"bound": bound, "ratio_to_bound": value / bound if known and bound is not None and bound > 0 else None,
            "upper": found, "ratio_to_opt": bracket.ratio(value) if known else None}


def beside_columns(metric: str, value: float | None, bracket: Bracket, **kwargs) -> dict:
    """:func:`beside` as a result row's columns: each field prefixed by ``<metric>_``, and the two ends of
    ``ratio_to_opt`` also as ``<metric>_opt_ratio_low`` and ``<metric>_opt_ratio_high`` (numbers for the
    tables and the seed statistics)."""
    fields = beside(value, bracket, **kwargs)
    low, high = fields["ratio_to_opt"] or (None, None)
    return {**{f"{metric}_{k}": v for k, v in fields.items()}, f"{metric}_opt_ratio_low": low,
            f"{metric}_opt_ratio_high": high}


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

    def bracket(self, upper: Side | None = None, *, maximise: bool = False) -> Bracket:
        """This reference as one end of a :class:`Bracket` (the lower end; the upper one when ``maximise``)."""
        mine = Side(self.value, self.method, self.seconds)
        if maximise:
            return Bracket(self.metric, upper or Side(None, "none", 0.0), mine, maximise=True)
        return Bracket(self.metric, mine, upper)

    def _summary(self) -> dict[str, Any]:
        """The JSON fields every reference has: ``value``, ``method``, ``seconds``."""
        return {"value": self.value, "method": self.method, "seconds": self.seconds}

    def _search(self, bound: float | None, **solution: Any) -> dict[str, Any]:
        """The JSON fields of an exact search: ``status``, ``optimum``, ``bound``, ``gap``, then ``solution``."""
        return {"status": self.status, "optimum": self.optimum, "bound": bound, "gap": self.gap, **solution}
