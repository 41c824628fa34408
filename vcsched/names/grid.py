"""Batch cluster and grid names (seed 000)."""

POLICIES = ("fcfs", "cbf", "easy")
"""Batch policies of :data:`vcsched.sim.batch.BATCH_POLICIES`."""

META_SCHEDULERS = ("mct", "origin")
"""Arrival mappings of :data:`heuristics.grid.META_SCHEDULERS`."""

REALLOC_ALGORITHMS = ("none", "no-cancel", "cancel")
"""Reallocation algorithms of :class:`heuristics.grid.realloc.Reallocation` (none, Algorithm 1, Algorithm 2)."""

HEURISTICS = ("mct", "minmin", "maxmin", "maxgain", "maxrelgain", "sufferage")
"""Reallocation heuristics of :data:`heuristics.grid.selection.HEURISTICS` (§2.2)."""

QUEUE_ORDERS = ("heuristic", "submission")
"""Algorithm 2's queue order after an event (:class:`heuristics.grid.realloc.Reallocation`): the heuristic's
resubmission order, or the original submission order."""

CURRENT_ECTS = ("resubmit", "planned")
"""Algorithm 2's ``current`` ECT (MaxGain, MaxRelGain): as if resubmitted now, or planned before the cancellation."""

CBF_REPLAN_RULES = ("earliest", "full")
"""A CBF cluster's re-plan rule at an early end or a cancellation (:meth:`vcsched.sim.cbf.CBFCluster.set_replan_rule`)."""

JOBS_LAYOUTS = ("batsim", "legacy")
"""Column layouts of the per-job table (:func:`vcsched.sim.output.jobs_columns`)."""

REFERENCE_METRICS = ("makespan", "mean_response", "mean_bounded_slowdown", "max_stretch")
"""The metrics the batch references bracket (:data:`lowerbounds.batch.instance.METRICS`; ``grid bound``'s JSON keys)."""
