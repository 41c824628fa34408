"""Batch cluster and grid names (seed 000)."""

POLICIES = ("fcfs", "cbf", "easy")
"""Batch policies of :data:`vcsched.sim.batch.BATCH_POLICIES`."""

META_SCHEDULERS = ("mct", "origin")
"""Arrival mappings of :data:`heuristics.grid.META_SCHEDULERS`."""

REALLOC_ALGORITHMS = ("none", "no-cancel", "cancel")
"""Reallocation algorithms of :class:`heuristics.grid.realloc.Reallocation` (none, Algorithm 1, Algorithm 2)."""

HEURISTICS = ("mct", "minmin", "maxmin", "maxgain", "maxrelgain", "sufferage")
"""Reallocation heuristics of :data:`heuristics.grid.selection.HEURISTICS` (§2.2)."""
