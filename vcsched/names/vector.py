"""Vector bin packing names (the heterogeneous vector-packing family of seed 001 §3.4's authors)."""

ORDERS = ("lex", "max", "sum", "maxratio", "maxdiff", "none")
"""Item (and bin) orders of :func:`heuristics.vector.packers.order_of`."""

WINDOWS = (1, 2, 3)
"""Windows of permutation and choose packing."""

HEURISTICS = (tuple(f"{rule}-{order}" for rule in ("ff", "bf") for order in ORDERS)
              + tuple(f"{kind}-w{w}" for kind in ("perm", "choose") for w in WINDOWS))
"""First fit / best fit by item order, then permutation / choose packing by window
(:data:`heuristics.vector.methods.HEURISTICS`)."""

METHODS = ("certify", "heuristics", "meta", *HEURISTICS)
"""``vc pack --method``: the certified optimum, every heuristic (META's best), META, or one heuristic."""
