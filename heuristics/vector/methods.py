"""The vector-packing method table, and :func:`pack`, the one function behind ``vcsched vc pack``.

Heuristics (:data:`HEURISTICS`, one name each, all of :mod:`heuristics.vector.packers`):

* ``ff-<order>``, ``bf-<order>``: first fit / best fit with the items in
  ``<order>`` (``lex``, ``max``, ``sum``, ``maxratio``, ``maxdiff``, ``none``);
* ``perm-w<k>``, ``choose-w<k>``: permutation / choose pack with a window of
  ``k`` ranks (``k`` = 1, 2, 3; capped at ``d``), ties in ``sum`` order;
* ``meta``: every heuristic above, the packing with fewest bins kept (on
  ties, the first in the table's order).

With heterogeneous bins (Python API, ``caps``: one row per available bin),
the bins are taken in ``bin_order`` (an order name on the capacities,
decreasing; default ``sum``).

:func:`pack` runs one method on a :class:`vcsched.problems.vbp.VectorPacking`:
``certify`` (META's packing, then the certified engine
:func:`lowerbounds.vector.certify_packing`), ``heuristics`` (META, with the
cheap lower bounds) or one heuristic's name. The result has the fields of
``vc pack --json``: ``lower``, ``upper``, ``status`` (``optimal`` only when
``lower == upper``, ``feasible``, ``infeasible`` when an item fits no bin,
``failed`` when a heuristic found no packing), ``bins``, ``seconds``,
``lower_method``, ``upper_method`` (and ``message``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from heuristics.vector.packers import fit_pack, order_of, window_pack
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.names import vector as names
from vcsched.names.vector import ORDERS, WINDOWS
from vcsched.problems.vbp import VectorPacking, oversized_item
from vcsched.registry import Registry

__all__ = ["HEURISTICS", "METHODS", "run_heuristic", "meta", "pack", "pack_to_json", "DEFAULT_TIME_LIMIT"]

DEFAULT_TIME_LIMIT = 60.0

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


def _used(where: np.ndarray) -> int:
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
        if where is not None and (best[1] is None or _used(where) < _used(best[1])):
            best = (name, where)
    return best


METHODS = list(names.METHODS)
"""Every ``--method`` of ``vc pack``."""


def _result(lower, upper, status, where, t0, lower_method, upper_method, message="") -> dict:
    from lowerbounds.vector import bins_of

    return {"lower": lower, "upper": upper, "status": status, "bins": bins_of(where) if where is not None else [],
            "seconds": time.perf_counter() - t0, "lower_method": lower_method, "upper_method": upper_method,
            "message": message}


def pack(inst: VectorPacking, method: str = "certify", *, time_limit: float | None = None) -> dict:
    """One method on ``inst`` (module docstring); the dict of ``vc pack --json``."""
    from lowerbounds.vector import certify_packing, cheap_lower_bound

    method = method.strip().lower()
    if method not in METHODS:
        raise UnknownNameError(f"--method: unknown method {method!r}; choose one of: {', '.join(METHODS)}")
    if time_limit is not None and not time_limit > 0:
        raise InvalidInputError(f"time_limit: expected a number > 0, got {time_limit!r}")
    t0 = time.perf_counter()
    too_big = oversized_item(inst)
    if too_big is not None:
        return _result(None, None, "infeasible", None, t0, None, None, too_big)
    sizes = inst.item_sizes()
    if method in ("certify", "heuristics", "meta"):
        name, where = meta(sizes)
        upper_method = f"meta:{name}"
    else:
        name, where = method, HEURISTICS.get(method)(sizes, None)
        upper_method = method
    if method == "certify":
        left = (time_limit or DEFAULT_TIME_LIMIT) - (time.perf_counter() - t0)
        cert = certify_packing(inst, start=[(upper_method, where)] if where is not None else [],
                               time_limit=max(left, 0.01))
        return {**_result(cert.lower, cert.upper, cert.status, None, t0, cert.lower_method, cert.upper_method,
                          cert.message), "bins": cert.bins}
    lower, lower_method = cheap_lower_bound(inst.sizes(), inst.count)
    if where is None:
        return _result(lower, None, "failed", None, t0, lower_method, None, f"{name} found no packing")
    upper = _used(where)
    return _result(lower, upper, "optimal" if lower == upper else "feasible", where, t0, lower_method, upper_method)


def pack_to_json(result: dict) -> dict:
    """The contract fields of ``vc pack --json``, then ``message``."""
    keys = ("lower", "upper", "status", "bins", "seconds", "lower_method", "upper_method", "message")
    return {k: result.get(k) for k in keys}
