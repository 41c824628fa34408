"""References of the DIET simulator (seed 004 §5-6): bounds on makespan, mean turnaround and throughput, and
the best clairvoyant placement.

Modules, bottom up: :mod:`~lowerbounds.diet.instance` (what a run cannot escape, the result type),
:mod:`~lowerbounds.diet.quick` (closed forms), :mod:`~lowerbounds.diet.lp` (the preemptive LP),
:mod:`~lowerbounds.diet.placement` and :mod:`~lowerbounds.diet.milp` (the exact placement search),
:mod:`~lowerbounds.diet.bounds` (the method table, :func:`diet_bounds`).
"""

from lowerbounds.diet.bounds import EXACT_MAX_TASKS, MAX_TIME_LIMIT, METHODS, diet_bounds, lp_bounds
from lowerbounds.diet.instance import METRICS, DietInstance, Machine, MetricBound, diet_instance
from lowerbounds.diet.quick import makespan_bound, quick_bounds, sed_rate, throughput_bound, turnaround_bound

__all__ = ["DietInstance", "Machine", "diet_instance", "MetricBound", "quick_bounds", "lp_bounds",
           "makespan_bound", "turnaround_bound", "throughput_bound", "sed_rate", "diet_bounds", "METRICS",
           "METHODS", "EXACT_MAX_TASKS", "MAX_TIME_LIMIT"]
