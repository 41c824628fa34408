"""Ranges of VCSched instance values that the command line needs before numpy is imported.

:mod:`vcsched.problems.vc` (which imports numpy) re-reads them from here, so that
``vcsched --help`` stays light and the file format and the generator's options share one
definition.
"""

MIN_CPU = 1e-9
"""Smallest CPU need accepted (``cpu`` in ``[1e-9, 1]``): the heuristics divide by
``alpha_i`` and sort by ratios of needs, which overflow for needs near the
smallest float (``5e-324``); a VM needing less than a billionth of a host is
not a meaningful model."""

MAX_RELABEL_HOSTS = 1_000
"""Most hosts for which a heuristic's placement is relabelled to keep the most in place (an H x H
assignment problem, :func:`heuristics.vc.adapt.relabel_to_keep`): the ``adapt-*`` methods and ``vc adapt``
run up to this many hosts."""

MAX_GENERATE = 100_000
"""Most hosts and most jobs of a generated instance (:func:`vcsched.generators.vc.generate_vc_instance`,
``vc generate``)."""

MAX_CV = 10.0
"""Largest coefficient of variation of a generated instance's needs (a round of redrawing keeps >= ~8 % of the
draws)."""

MAX_EXPECTED_ARRIVALS = 20_000
"""Most expected arrivals (rate x duration) of a Poisson workload of the dynamic simulation
(:func:`vcsched.scenarios.vc_dynamic.poisson_workload`, ``vc adapt``)."""
