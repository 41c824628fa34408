"""Method names of VCSched with d rigid resources and host types (:mod:`heuristics.vc_hetero.methods`)."""

from vcsched.names.vector import HEURISTICS as VECTOR_HEURISTICS

MCB = tuple(f"mcb{v}" for v in range(1, 9))
"""MCB1-MCB8 in ``d + 1`` dimensions with the yield search (seed 001 §3.4)."""

GREEDY = ("gr", "sg")
"""GR and SG in ``d`` rigid dimensions, one pass (seed 001 §3.3)."""

VECTOR = tuple(f"vp-{name}" for name in VECTOR_HEURISTICS) + ("vp-meta",)
"""The vector-packing family at a probed yield (``vp-`` + a :data:`vcsched.names.vector.HEURISTICS`
name), and ``vp-meta``: every one of them, the best minimum yield kept."""

EXACT = ("milp", "lp")
"""The MILP (exact, proven) and its LP relaxation (an upper bound)."""

CERTIFY = ("certify",)
"""The certified bracket of the general case (:func:`lowerbounds.vector.certify_hosts`, through
:func:`heuristics.vc_hetero.methods.certify_hook`)."""

HEURISTICS = MCB + GREEDY + VECTOR
METHODS = HEURISTICS + EXACT + CERTIFY

PRESETS = ("random", "grid5000")
"""Host-type presets of the generator (:func:`vcsched.generators.vc_hetero.generate_hetero`)."""
