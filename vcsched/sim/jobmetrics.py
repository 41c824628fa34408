"""The per-job metrics of seed 000 §3.4 that more than one room computes.

The simulator's tables (:mod:`vcsched.sim.output`), the reallocation report
(:mod:`vcsched.scenarios.grid`) and the batch references
(:mod:`lowerbounds.batch.instance`) read the bounded slowdown and the max stretch
from here, so that a bound and the policy it is compared with measure the same thing.
The compiled kernels of the batch search inline the bounded slowdown for speed; their
tests compare them with :func:`bounded_slowdown`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BSLD_TAU", "bounded_slowdown", "max_stretch"]

BSLD_TAU = 10.0
"""Threshold of the bounded slowdown (s): a job shorter than this counts as this long (seed 000 §3.4)."""


def bounded_slowdown(response, p, tau: float = BSLD_TAU):
    """Each job's bounded slowdown ``max(1, response / max(p, tau))`` (seed 000 §3.4); arrays or numbers."""
    return np.maximum(1.0, response / np.maximum(p, tau))


def max_stretch(response: np.ndarray, p: np.ndarray) -> float | None:
    """``max response / p`` over the jobs of positive execution time ``p`` (None if there is none)."""
    pos = p > 0
    return float((response[pos] / p[pos]).max()) if pos.any() else None
