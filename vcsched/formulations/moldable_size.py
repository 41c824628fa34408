"""Size of the exact moldable MILPs, estimated before they are built.

:mod:`vcsched.formulations.moldable_milp` builds its models with PuLP, whose
memory and building time grow with the number of nonzero coefficients (about
0.5 KB and a few microseconds each). The estimates here are upper bounds on the
variables and nonzeros of :func:`~vcsched.formulations.moldable_milp.build_model`
(resource flow) and :func:`~vcsched.formulations.moldable_milp.build_time_indexed_model`,
computed in ``O(n m)`` from the instance alone, so a caller can refuse a model
(or choose the other formulation) before any of it exists.

Why they are upper bounds: both models use the non-dominated allotments
(:func:`~vcsched.formulations.moldable_milp.nondominated_allotments`) and a
horizon ``H_i`` that is at most ``H = sum_j max_k p_j(k)`` over those
allotments (an incumbent only lowers it); every count below takes ``H`` for
``H_i`` and counts each row's terms at their largest (a completion ``C_j`` is
``S_j`` plus one term per allotment).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from vcsched.formulations.moldable_milp import CUT_SUBSETS_MAX_N, INTERVAL_RATIO, PARTIAL_ROWS, nondominated_allotments
from vcsched.problems.moldable import MoldableInstance

__all__ = ["ModelSize", "flow_model_size", "time_indexed_model_size", "MAX_EXACT_NONZEROS"]

MAX_EXACT_NONZEROS = 2_000_000
"""Largest exact moldable model built (estimated nonzeros): about 1 GB and a minute of building in PuLP."""


@dataclasses.dataclass(frozen=True)
class ModelSize:
    """Upper bounds on an exact model's ``variables`` and ``nonzeros``; ``formulation`` names the model."""

    formulation: str
    variables: int
    nonzeros: int

    def text(self) -> str:
        return f"{self.formulation} model of about {self.variables:,} variables and {self.nonzeros:,} nonzeros"


def _horizon(instance: MoldableInstance, allots: list[np.ndarray]) -> float:
    return float(sum(float(instance.times[i, a - 1].max()) for i, a in enumerate(allots)))


def flow_model_size(instance: MoldableInstance) -> ModelSize:
    """Upper bounds on the resource-flow model's variables and nonzeros (with its interval rows)."""
    n = instance.n
    allots = nondominated_allotments(instance)
    sizes = np.array([len(a) for a in allots], dtype=np.int64)
    A = int(sizes.sum())
    pairs = n * (n - 1)
    horizon = _horizon(instance, allots)
    first = float(instance.min_time.min())
    count = max(1, math.ceil(math.log(max(horizon / first, 1.0)) / math.log(INTERVAL_RATIO)) + 1)
    ends = first * INTERVAL_RATIO ** np.arange(count)
    ends[-1] = max(ends[-1], horizon)
    # u[i,k,J] exists for the intervals J from the first end >= p_i(k) on; each sits in the
    # cumulative area rows of its J and all later ones
    p = np.concatenate([instance.times[i, a - 1] for i, a in enumerate(allots)]) if A else np.zeros(0)
    per = count - np.searchsorted(ends * (1 + 1e-12), p, side="left")
    u = int(per.sum())
    area = int((per * (per + 1) // 2).sum())
    completion = 1 + sizes  # terms of C_j = S_j + sum_k p_j(k) y_jk
    variables = A + n + 2 * pairs + 2 * n + 1 + u
    nz = int(completion.sum())  # objective
    nz += A  # allot rows
    nz += 2 * pairs + int(((n - 1) * (2 + completion)).sum())  # cap rows; seq rows (S_j, C_i, x_ij)
    nz += pairs  # order rows
    nz += (n + 1) + 2 * (n + pairs + A)  # source, in, out rows
    if n <= CUT_SUBSETS_MAX_N:
        cut_terms = (2 ** (n - 1)) * int((2 * completion).sum())  # each task is in half of the subsets
    else:
        cut_terms = 3 * int((np.arange(n, 0, -1) * 2 * int(completion.max(initial=1))).sum())
    nz += cut_terms
    nz += n * (n - 1) // 2  # symmetry rows, at most one per pair
    nz += (u + A) + 2 * (u + n) + area + PARTIAL_ROWS * u  # ucover, ulow/uhigh, uarea (cumulative)
    return ModelSize("flow", int(variables), int(nz))


def time_indexed_model_size(instance: MoldableInstance, grain: float) -> ModelSize:
    """Upper bounds on the time-indexed model's variables and nonzeros on the grid ``grain``."""
    allots = nondominated_allotments(instance)
    slots = math.floor(_horizon(instance, allots) / grain + 1e-9)
    variables = nonzeros = 0
    for i, a in enumerate(allots):
        P = np.rint(instance.times[i, a - 1] / grain).astype(np.int64)
        starts = np.maximum(slots - P + 1, 0)
        variables += int(starts.sum())
        nonzeros += int((starts * (P + 2)).sum())  # objective, 'once' and P load terms per start
    return ModelSize("time-indexed", variables, nonzeros)
