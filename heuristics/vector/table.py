"""The table of vector-packing heuristics (one name each) and META; :mod:`heuristics.vector.methods` wires it
into ``vc pack``.

* ``ff-<order>``, ``bf-<order>``: first fit / best fit with the items in ``<order>``;
* ``perm-w<k>``, ``choose-w<k>``: permutation / choose pack with a window of ``k`` ranks;
* :func:`meta`: every heuristic, the packing with fewest bins kept (on ties, the first in table order).

With heterogeneous bins (``caps``: one row per available bin), the bins are taken in ``bin_order``
(an order name on the capacities, decreasing; default ``sum``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from heuristics.vector.packers import fit_pack, order_of, window_pack
from vcsched.errors import UnknownNameError
from vcsched.names import vector as names
from vcsched.names.vector import ORDERS, WINDOWS
from vcsched.registry import Registry

__all__ = ["HEURISTICS", "run_heuristic", "meta", "used_bins"]

Packer = Callable[[np.ndarray, "np.ndarray | None"], "np.ndarray | None"]
HEURISTICS: Registry[Packer] = Registry("vector-packing heuristic", names.HEURISTICS)


def _register_fit(best: bool, order: str) -> None:
    def run(sizes: np.ndarray, caps: np.ndarray | None = None) -> np.ndarray | None:
        return fit_pack(sizes, order_of(sizes, order), best=best, caps=caps)

    HEURISTICS.register(f"{'bf' if best else 'ff'}-{order}")(run)


def _register_window(choose: bool, w: int) -> None:
    def run(sizes: np.ndarray, caps: np.ndarray | None = None) -> np.ndarray | None:
        return window_pack(sizes, order_of(sizes, "sum"), window=w, choose=choose, caps=caps)

    HEURISTICS.register(f"{'choose' if choose else 'perm'}-w{w}")(run)


for _best in (False, True):
    for _order in ORDERS:
        _register_fit(_best, _order)
for _choose in (False, True):
    for _w in WINDOWS:
        _register_window(_choose, _w)


def used_bins(where: np.ndarray) -> int:
    return int(np.unique(where).size)


def _ordered_caps(caps: np.ndarray | None, bin_order: str) -> tuple[np.ndarray | None, np.ndarray | None]:
    if caps is None:
        return None, None
    perm = order_of(np.asarray(caps, dtype=float), bin_order)
    return np.asarray(caps, dtype=float)[perm], perm


def run_heuristic(name: str, sizes: np.ndarray, *, caps: np.ndarray | None = None,
                  bin_order: str = "sum") -> np.ndarray | None:
    """The bin of each item by heuristic ``name`` (``meta`` included), or None when it fails; with
    ``caps`` the bins are rows of ``caps`` (their indices are returned)."""
    if bin_order not in ORDERS:
        raise UnknownNameError(f"bin order {bin_order!r}: choose one of {', '.join(ORDERS)}")
    ordered, perm = _ordered_caps(caps, bin_order)
    where = meta(sizes, ordered)[1] if name == "meta" else HEURISTICS.get(name)(sizes, ordered)
    return where if where is None or perm is None else perm[where]


def meta(sizes: np.ndarray, caps: np.ndarray | None = None) -> tuple[str | None, np.ndarray | None]:
    """Every heuristic of the table; ``(name, bins)`` of the fewest bins (None, None if all failed)."""
    best: tuple[str | None, np.ndarray | None] = (None, None)
    for name in HEURISTICS.names():
        where = HEURISTICS.get(name)(sizes, caps)
        if where is not None and (best[1] is None or used_bins(where) < used_bins(best[1])):
            best = (name, where)
    return best


