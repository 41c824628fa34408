"""Starting placements of the exact VCSched models: a quick load-balancing incumbent and the best of
the placements already found (e.g. the heuristics'), so that a MILP stopped at its time limit never
reports less than a start it was given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vcsched.problems.vc import VCInstance, host_loads, placement_problem
from vcsched.problems.vc_greedy import least_loaded_placement
from vcsched.problems.vc_metrics import migration_cost
from vcsched.result import Result

__all__ = ["load_balancing_incumbent", "placement_of", "best_start", "better_placement"]


def load_balancing_incumbent(instance: VCInstance) -> np.ndarray | None:
    """A quick starting placement for the compact MILP (not a registered heuristic).

    The least-loaded-first rule (:func:`~vcsched.problems.vc_greedy.least_loaded_placement`) on
    tasks by decreasing CPU need (then by decreasing memory) and on the memory-first order; the
    one of lower peak load. ``None`` when neither fits.
    """
    best, best_peak = None, np.inf
    cpu, mem = instance.task_cpu, instance.task_mem
    for order in (np.lexsort((-mem, -cpu)), np.lexsort((-cpu, -mem))):
        task_host, _ = least_loaded_placement(instance, order)
        if task_host is not None:
            peak = host_loads(instance, task_host).max()
            if peak < best_peak:
                best, best_peak = task_host, peak
    return best


def placement_of(start: Any) -> np.ndarray | None:
    """A placement array from a placement or a Result holding an Allocation (None otherwise)."""
    solution = getattr(start, "solution", start) if isinstance(start, Result) else start
    if isinstance(start, Result) and not start.status.has_solution:
        return None
    task_host = getattr(solution, "task_host", solution)
    return None if task_host is None else np.asarray(task_host)


def best_start(instance: VCInstance, starts: Sequence[Any], limit: float | None, budget_mode: str) -> np.ndarray | None:
    """The placement of least peak load among ``starts`` that fit in memory and in the migration budget
    ``limit`` (``None``: no budget)."""
    best = None
    for start in starts:
        task_host = placement_of(start)
        if task_host is None or placement_problem(instance, task_host) is not None:
            continue
        if limit is not None:
            cost = migration_cost(instance, task_host)
            spent = cost.get("migrated_memory" if budget_mode == "memory" else "migrations", 0.0)
            if spent > limit + 1e-9:
                continue
        best = better_placement(instance, best, task_host)
    return best


def better_placement(instance: VCInstance, a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """The placement of smaller peak load (``a`` on ties; either when the other is None)."""
    if a is None or b is None:
        return b if a is None else a
    return b if host_loads(instance, b).max() < host_loads(instance, a).max() - 1e-12 else a
