"""References of the time-shared servers simulator (seed 003): lower bounds and the best clairvoyant mapping.

Modules, bottom up: :mod:`~lowerbounds.timeshare.types` (costs as simulated, the result type),
:mod:`~lowerbounds.timeshare.lp` and :mod:`~lowerbounds.timeshare.pairs` (relaxations),
:mod:`~lowerbounds.timeshare.mapping` (exact search), :mod:`~lowerbounds.timeshare.bounds` (the method table,
:func:`timeshare_bounds`).
"""

from lowerbounds.timeshare.bounds import (
    METHODS,
    area_bound,
    critical_path,
    lp_bounds,
    makespan_lp_bound,
    maxflow_lp_bound,
    maxstretch_lp_bound,
    pairs_bounds,
    quick_bounds,
    sumflow_lp_bound,
    timeshare_bounds,
)
from lowerbounds.timeshare.types import METRICS, MetricBound, TaskCosts

__all__ = ["TaskCosts", "MetricBound", "METRICS", "METHODS", "quick_bounds", "lp_bounds", "timeshare_bounds",
           "sumflow_lp_bound", "maxstretch_lp_bound", "maxflow_lp_bound", "makespan_lp_bound", "pairs_bounds", "area_bound", "critical_path"]
