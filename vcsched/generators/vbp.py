"""Seeded generator of d-dimensional vector bin packing instances, and the shipped ``.vbp`` set.

Bins have the integer capacity ``C = 1000`` in every dimension; demands are
integers. Classes (after Spieksma 1994 and Caprara and Toth 2001, read for
``d`` dimensions):

* ``uniform``: every demand uniform in ``[100, 400]``, independently;
* ``correlated``: a base ``b`` uniform in ``[100, 400]`` per item, each demand
  ``b + e`` with ``e`` uniform in ``[-50, 50]``;
* ``anticorrelated``: a base ``b`` uniform in ``[100, 400]`` per item; the even
  dimensions (1st, 3rd, ...) take ``b + e``, the odd ones ``500 - b + e``
  (``e`` uniform in ``[-25, 25]``): an item large in one half is small in the other;
* ``triplets``: ``n / 3`` bins filled exactly: in each dimension, the bin's
  capacity is split into ``a, b`` uniform in ``[C/4 + 1, C/2 - 1]`` and
  ``C - a - b``; the three items are the three parts, so the optimum is
  exactly ``n / 3`` bins (the volume bound), and list heuristics rarely find it.

Equal demand vectors are merged into one item type with its count (the
``.vbp`` form). ``n`` is rounded down to a multiple of 3 for ``triplets``.
"""

from __future__ import annotations

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.vbp import VectorPacking

__all__ = ["CLASSES", "CAPACITY", "generate_vbp", "SHIPPED_DIMENSIONS", "SHIPPED_ITEMS", "shipped_set", "write_shipped_set"]

CAPACITY = 1000
CLASSES = ("uniform", "correlated", "anticorrelated", "triplets")
SHIPPED_DIMENSIONS = (3, 5, 10)
SHIPPED_ITEMS = (30, 60, 120)


def _demands(kind: str, n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    c = CAPACITY
    if kind == "uniform":
        return rng.integers(100, 401, size=(n, d))
    base = rng.integers(100, 401, size=(n, 1))
    if kind == "correlated":
        return np.clip(base + rng.integers(-50, 51, size=(n, d)), 1, c)
    if kind == "anticorrelated":
        sign = np.where(np.arange(d) % 2 == 0, base, 500 - base)
        return np.clip(sign + rng.integers(-25, 26, size=(n, d)), 1, c)
    bins = n // 3
    a = rng.integers(c // 4 + 1, c // 2, size=(bins, d))
    b = rng.integers(c // 4 + 1, c // 2, size=(bins, d))
    items = np.concatenate([a, b, c - a - b], axis=0)
    return items[rng.permutation(items.shape[0])]


def generate_vbp(kind: str, n: int, d: int, rng: np.random.Generator | int = 0, name: str = "") -> VectorPacking:
    """An instance of class ``kind`` with ``n`` items in ``d`` dimensions (module docstring)."""
    if kind not in CLASSES:
        raise InvalidInputError(f"vbp class {kind!r}: choose one of {', '.join(CLASSES)}")
    if n < (3 if kind == "triplets" else 1) or d < 1:
        raise InvalidInputError(f"vbp generator: n = {n}, d = {d}; need n >= 1 (3 for triplets) and d >= 1")
    rng = np.random.default_rng(rng)
    w = _demands(kind, n, d, rng).astype(np.int64)
    types, count = np.unique(w, axis=0, return_counts=True)
    order = np.lexsort(tuple(-types[:, k] for k in range(d - 1, -1, -1)))
    return VectorPacking(np.full(d, float(CAPACITY)), types[order].astype(float), count[order].astype(np.int64),
                         name=name)


def shipped_set(seed: int = 37) -> list[tuple[str, VectorPacking]]:
    """The set shipped in ``benchmarks/data/vbp``: every class x ``d`` in :data:`SHIPPED_DIMENSIONS` x
    ``n`` in :data:`SHIPPED_ITEMS`, one instance each, file names ``<class>_d<d>_n<n>.vbp``; each
    instance's generator is seeded by ``(seed, class index, d, n)``."""
    out = []
    for ci, kind in enumerate(CLASSES):
        for d in SHIPPED_DIMENSIONS:
            for n in SHIPPED_ITEMS:
                name = f"{kind}_d{d}_n{n}.vbp"
                out.append((name, generate_vbp(kind, n, d, np.random.default_rng([seed, ci, d, n]), name=name)))
    return out


def write_shipped_set(folder: str, seed: int = 37) -> list[str]:
    """Write :func:`shipped_set` as ``.vbp`` files into ``folder`` (created if missing); the paths."""
    import pathlib

    from vcsched.problems.vbp import write_vbp

    out = pathlib.Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, inst in shipped_set(seed):
        write_vbp(inst, out / name)
        paths.append(str(out / name))
    return paths
