"""Heuristics for d-dimensional vector bin packing (identical or heterogeneous bins).

:mod:`~heuristics.vector.packers` (first fit / best fit by item and bin orders, permutation and
choose packing with a window) and :mod:`~heuristics.vector.methods` (the name table, META, and
:func:`~heuristics.vector.methods.pack`, the function behind ``vcsched vc pack``).
"""

from heuristics.vector.methods import HEURISTICS, METHODS, meta, pack, run_heuristic

__all__ = ["HEURISTICS", "METHODS", "meta", "pack", "run_heuristic"]
