"""Limits of the grid reallocation study (seed 000 §2.2) that the command line reads before numpy is imported.

:class:`heuristics.grid.realloc.Reallocation` enforces them; ``vcsched grid simulate`` checks ``--period``'s
range at parse time from the same numbers.
"""

__all__ = ["MIN_PERIOD", "MAX_REALLOC_EVENTS"]

MIN_PERIOD = 1.0
"""Smallest reallocation period accepted (seconds)."""
MAX_REALLOC_EVENTS = 10**6
"""Largest number of reallocation periods in the submission span of the jobs."""
