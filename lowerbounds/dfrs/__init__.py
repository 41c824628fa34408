"""Lower bounds for dynamic fractional resource scheduling: the max-stretch bound of every
schedule, fractional or batch, by bisection on deadline-feasibility LPs (:mod:`lowerbounds.dfrs.bound`),
and its bracket under the reference contract (:func:`stretch_bracket`)."""

from lowerbounds.dfrs.bound import (
    DEFAULT_RTOL,
    DEFAULT_WINDOW,
    StretchBound,
    deadline_feasible,
    max_stretch_bound,
    stretch_bracket,
)

__all__ = ["StretchBound", "stretch_bracket", "max_stretch_bound", "deadline_feasible", "DEFAULT_WINDOW",
           "DEFAULT_RTOL"]
