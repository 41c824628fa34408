"""Moldable-task names (seed 002)."""

HEURISTICS = ("bicriteria", "gang", "sequential", "list-shelf", "list-lptf", "list-saf")
"""The heuristics of :data:`heuristics.moldable.REGISTRY`, in the order of the tables (the paper's §4)."""

EXACT = "exact"
"""The exact MILP (:mod:`vcsched.formulations.moldable_milp`): a method of ``solve``, not part of ``all``."""

BOUND_METHODS = ("interval", "refined")
"""The minsum bounds of :mod:`lowerbounds.moldable`."""

FORMULATIONS = ("auto", "time-indexed", "flow", "branch-and-bound")
"""The exact method's formulations."""

DUALS = ("two-shelf", "simple")
"""The dual approximations the list heuristics start from."""

KINDS = ("weak", "high", "mixed", "cirne")
"""The generator's instance kinds (:mod:`vcsched.generators.moldable`)."""
