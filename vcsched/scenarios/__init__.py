"""Builders of experiment platforms and workloads that need both the problem types and the simulator.

Modules: :mod:`vcsched.scenarios.platform` (platform JSON files of ``vcsched grid``),
:mod:`vcsched.scenarios.grid` (the grid-reallocation platforms of seed 000) and the others
listed in the README. This package imports nothing itself: import the module you need.
"""
