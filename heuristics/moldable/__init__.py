"""Moldable-task heuristics of seed 002 (Dutot, Eyraud, Mounié, Trystram, SPAA 2004).

Every algorithm is a function ``f(instance, *, rng=None, **options) -> Result``
registered by name in :data:`REGISTRY`:

``bicriteria``   the knapsack-batch bi-criteria algorithm (§3.2)
``gang``         every task on all m processors, Smith's order (§4.1)
``sequential``   one processor each, LPTF list scheduling (§4.1)
``list-shelf``   dual-approximation allotment, its shelf order (§4.1)
``list-lptf``    dual-approximation allotment, weighted LPTF order (§4.1)
``list-saf``     dual-approximation allotment, smallest area first (§4.1)

The dual approximation itself (the two-shelf 3/2 + eps algorithm of [7]/[17],
:mod:`heuristics.moldable.dual_approx`) gives ``C*_max`` and the allotments;
:func:`two_shelf` returns its own schedule as a Result (not registered: it
optimises the makespan only). Every function of the registry except ``gang``
and ``sequential`` takes ``dual="two-shelf"`` (default) or ``"simple"``.

The result's ``objective`` is ``sum w_i C_i``; ``extra["makespan"]`` and
``extra["minsum"]`` hold both criteria; ``solution`` is a
:class:`vcsched.problems.moldable.Schedule` with explicit processors, which
passes :func:`vcsched.problems.moldable.check_schedule`.
"""

from heuristics.moldable.baselines import dual_approximation, gang, list_lptf, list_saf, list_shelf, sequential
from heuristics.moldable.bicriteria import batch_selection, bicriteria, knapsack_max_weight
from heuristics.moldable.dual_approx import (
    DualApproximation,
    ShelfTest,
    simple_search,
    two_shelf,
    two_shelf_search,
    two_shelf_test,
)
from heuristics.moldable.listsched import list_schedule
from heuristics.moldable.registry import REGISTRY

__all__ = [
    "REGISTRY",
    "list_schedule",
    "DualApproximation",
    "ShelfTest",
    "two_shelf",
    "two_shelf_search",
    "two_shelf_test",
    "simple_search",
    "gang",
    "sequential",
    "list_shelf",
    "list_lptf",
    "list_saf",
    "dual_approximation",
    "bicriteria",
    "knapsack_max_weight",
    "batch_selection",
]
