"""References of batch clusters and grids (seed 000 §2.2, §3.1-3.4): lower bounds and exact clairvoyant optima.

Modules, bottom up: :mod:`~lowerbounds.batch.instance` (the relaxation, its checker and metrics),
:mod:`~lowerbounds.batch.quick` (fluid bounds), :mod:`~lowerbounds.batch.grid` (time-indexed models),
:mod:`~lowerbounds.batch.lp` (window LPs), :mod:`~lowerbounds.batch.exact` (window MILPs),
:mod:`~lowerbounds.batch.bounds` (the method table, :func:`batch_bounds`), :mod:`~lowerbounds.batch.clairvoyant`
(the best clairvoyant schedules, the upper side), :mod:`~lowerbounds.batch.bracket` (both sides as the brackets of
:mod:`lowerbounds.reference`, :func:`batch_references`).
"""

from lowerbounds.batch.bounds import (
    METHODS,
    WINDOW_JOBS,
    BatchBounds,
    MetricBound,
    batch_bounds,
    exact_batch,
    instance_bounds,
)
from lowerbounds.batch.bracket import BatchReferences, batch_references, instance_references, policy_references
from lowerbounds.batch.clairvoyant import ClairvoyantSchedule, clairvoyant_schedules
from lowerbounds.batch.exact import ExactResult
from lowerbounds.batch.instance import SIMULATOR_METRIC, BatchInstance, batch_instance

__all__ = ["METHODS", "WINDOW_JOBS", "MetricBound", "BatchBounds", "batch_bounds", "instance_bounds",
           "exact_batch", "batch_instance", "BatchInstance", "ExactResult", "BatchReferences", "batch_references",
           "instance_references", "ClairvoyantSchedule", "clairvoyant_schedules", "policy_references", "SIMULATOR_METRIC"]
