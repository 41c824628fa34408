"""Builders of experiment platforms that need both :mod:`vcsched.problems` and :mod:`vcsched.sim`.

Modules: :mod:`vcsched.scenarios.platform` (platform JSON files of ``vcsched grid``).
This package imports nothing itself: import the module you need.
"""
