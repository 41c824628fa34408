"""VCSched names (seed 001)."""

HEURISTICS = {
    **{f"mcb{v}": "heuristics.vc.mcb" for v in range(1, 9)},
    "gr": "heuristics.vc.greedy", "sg": "heuristics.vc.greedy", "gb": "heuristics.vc.greedy",
    "sgb": "heuristics.vc.greedy", "rrnd": "heuristics.vc.rounding", "rrnz": "heuristics.vc.rounding",
}
"""Heuristic name -> module defining the function of that name, in registry order."""

ADAPT_POLICIES = ("none", "exact", "mcb8", "mcb8-sticky", "local-search")
"""Adaptation policies of :mod:`heuristics.vc.adapt` (§6)."""

ADAPT_METHODS = ("none", "mcb8", "mcb8-sticky", "local-search")
"""The adaptation policies offered as ``adapt-<name>`` methods of ``vc solve`` (``exact`` is ``milp``)."""

CERTIFY_HEURISTICS = ("mcb8", "sg", "gr")
"""Heuristics whose placements ``certify`` starts from (with the core greedy)."""

BUDGET_MODES = ("memory", "count")
"""What a migration budget counts (:mod:`vcsched.formulations.vc_milp`): migrated memory, or migrated tasks."""
