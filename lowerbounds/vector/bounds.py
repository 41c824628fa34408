"""Cheap lower bounds on the bins of a vector packing (sizes normalised: bins ``(1, ..., 1)``).

* :func:`volume_bound`: ``max_k ceil(sum_i s_ik)`` (L1 per dimension).
* :func:`l2_bound`: the Martello-Toth bound L2 in each dimension
  (:func:`lowerbounds.vc.packing.l2_bins`), the largest.
* :func:`large_items_bound`: a set of items no two of which share a bin
  (``s_i + s_j > 1`` in some dimension for every pair) needs one bin each;
  the set is grown greedily over the types by decreasing largest size, all
  copies of a type entering when two of them conflict, one otherwise (a
  clique of the conflict graph; any clique is a valid bound).

Safe direction: sums are compared with ``1 + 1e-9`` (a bin that fits with the
checker's ``1e-12`` tolerance never conflicts) and counts are rounded up after
subtracting ``1e-9``.

References: S. Martello, P. Toth. Lower bounds and reduction procedures for
the bin packing problem. Discrete Applied Mathematics 28 (1990); F. C. R.
Spieksma. A branch-and-bound algorithm for the two-dimensional vector
packing problem. Computers & Operations Research 21 (1994) (the conflict
clique as a bound).
"""

from __future__ import annotations

import math

import numpy as np

from lowerbounds.vc.packing import l2_bins

__all__ = ["volume_bound", "l2_bound", "large_items_bound", "cheap_lower_bound"]

_TOL = 1e-9
_CLIQUE_TYPES = 3000
"""Types at most considered by the clique (the largest ones): the conflict test is ``O(m^2 d)``."""


def volume_bound(sizes: np.ndarray, count: np.ndarray) -> int:
    """``max_k ceil(sum_i count_i s_ik)``."""
    if sizes.size == 0:
        return 0
    return int(math.ceil(float((count @ sizes).max()) - _TOL))


def l2_bound(sizes: np.ndarray, count: np.ndarray) -> int:
    """The largest one-dimensional L2 bound over the dimensions."""
    if sizes.size == 0:
        return 0
    return max(l2_bins(np.repeat(sizes[:, k], count)) for k in range(sizes.shape[1]))


def large_items_bound(sizes: np.ndarray, count: np.ndarray) -> int:
    """Size of a greedy clique of pairwise conflicting items (module docstring)."""
    m = sizes.shape[0]
    if m == 0:
        return 0
    order = np.argsort(-sizes.max(axis=1), kind="stable")[:_CLIQUE_TYPES]
    order = order[count[order] > 0]
    clique: list[int] = []
    total = 0
    for i in order:
        if clique:
            pair = sizes[clique] + sizes[i]
            if not np.all(np.any(pair > 1 + _TOL, axis=1)):
                continue
        clique.append(int(i))
        total += int(count[i]) if np.any(2 * sizes[i] > 1 + _TOL) else 1
    return total


def cheap_lower_bound(sizes: np.ndarray, count: np.ndarray) -> tuple[int, str]:
    """The best of the three bounds and its name (``volume``, ``l2``, ``large-items``)."""
    found = [(volume_bound(sizes, count), "volume"), (l2_bound(sizes, count), "l2"),
             (large_items_bound(sizes, count), "large-items")]
    return max(found, key=lambda t: t[0])
