"""Ranges of DIET's platform and references that the command line needs before numpy is imported.

:mod:`vcsched.problems.diet` and :mod:`lowerbounds.diet.bounds` (which import numpy) re-read them from here, so
that ``vcsched --help`` stays light and ``diet simulate``/``diet bound`` refuse what the Python calls refuse.
"""

MAX_INTERFERENCE = 1.0
"""Largest accepted :attr:`vcsched.problems.diet.DietPlatform.interference` (at 1, 2x oversubscription halves the
throughput)."""

MAX_TIME_LIMIT = 86400.0
"""Largest ``time_limit`` of :func:`lowerbounds.diet.diet_bounds` (seconds; ``diet bound --time-limit``'s range is
(0, this])."""
