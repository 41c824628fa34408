"""Lublin-Feitelson rigid-job size model (Lublin and Feitelson, JPDC 63(11), 2003).

Used by seed 001 §5.2 for the number of tasks of a parallel job (1 to 64).
Parameters from ``shared/data/workload-models.md`` (reference implementation
``m_lublin99``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from vcsched.errors import InvalidInputError

__all__ = ["LublinSizeParams", "LUBLIN_CLASSES", "lublin_sizes"]


@dataclasses.dataclass(frozen=True)
class LublinSizeParams:
    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float


LUBLIN_CLASSES = {
    "batch": LublinSizeParams(0.2927, 0.6686, 1.2, 5.0, 7.0, 0.875),
    "interactive": LublinSizeParams(0.1541, 0.625, 1.0, 3.0, 5.5, 0.705),
    "typeless": LublinSizeParams(0.244, 0.576, 0.8, 4.5, 7.0, 0.86),
}


def lublin_sizes(
    n: int,
    rng: np.random.Generator,
    *,
    max_size: int = 64,
    job_class: str = "typeless",
) -> np.ndarray:
    """Draw ``n`` job sizes (numbers of processors / tasks) in ``1..max_size``.

    Two-stage log-uniform: with probability ``serial_prob`` the job is serial;
    otherwise ``u = log2(size)`` is uniform on ``[ULow, UMed]`` with
    probability ``Uprob`` and on ``[UMed, UHi]`` otherwise, and with
    probability ``pow2_prob`` it is rounded to an integer (a power of two).

    Choice (the model's parameters are for a 128-processor machine): the upper
    bound becomes ``UHi = log2(max_size)`` and the middle point keeps its
    distance to it, ``UMed = UHi - (7 - UMed_128)`` (as the reference code
    does when the machine size changes). For 64 tasks and the default
    ``typeless`` class this gives ``[0.8, 3.5]`` w.p. 0.86 and ``[3.5, 6]``.
    """
    if n < 0:
        raise InvalidInputError(f"n must be >= 0, got {n}")
    if max_size < 1:
        raise InvalidInputError(f"max_size must be >= 1, got {max_size}")
    p = LUBLIN_CLASSES[job_class]
    uhi = float(np.log2(max_size))
    umed = min(uhi - (p.uhi - p.umed), uhi)
    ulow = min(p.ulow, umed)
    serial = rng.random(n) < p.serial_prob
    low_part = rng.random(n) < p.uprob
    u = np.where(low_part, rng.uniform(ulow, umed, n), rng.uniform(umed, uhi, n))
    pow2 = rng.random(n) < p.pow2_prob
    u = np.where(pow2, np.round(u), u)
    sizes = np.rint(np.exp2(u)).astype(np.int64)
    sizes = np.clip(sizes, 1, max_size)
    sizes[serial] = 1
    return sizes
