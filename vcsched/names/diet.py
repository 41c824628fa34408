"""DIET names (seed 004)."""

APPROACHES = ("standard", "sed-queue", "task-scheduler")
"""The request-flow approaches of :data:`heuristics.diet.APPROACHES`."""

REFINE = ("first-free", "last-free", "minmin", "sufferage", "msf")
"""The RefinePlacement variants of :data:`heuristics.diet.refine.REFINE`."""

EXPERIMENTS = ("bursty", "add-seds", "steady")
"""The experiments of :data:`vcsched.scenarios.diet.EXPERIMENTS`."""

SORTING_READINGS = ("metrics", "literal")
"""Readings of Algorithm 1's ties (:data:`heuristics.diet.sorting.READINGS`): ``metrics`` (default) or ``literal``."""

METRICS = ("makespan", "mean_turnaround", "throughput")
"""The metrics DIET's references bracket (:data:`lowerbounds.diet.METRICS`; throughput is maximised)."""
