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

Bins of several types, each with a count (a VCSched JSON file with host
types, :class:`vcsched.problems.vbp_typed.TypedBinPacking`): the fewest bins
in all, each type's count as its limit (:mod:`heuristics.vector.typed`); the
result adds ``bin_types``.
"""

from __future__ import annotations

import time

from heuristics.vector.table import HEURISTICS, meta, run_heuristic, used_bins
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.names import vector as names
from vcsched.problems.vbp import VectorPacking, oversized_item
from vcsched.problems.vbp_typed import TypedBinPacking

__all__ = ["HEURISTICS", "METHODS", "run_heuristic", "meta", "pack", "pack_to_json", "DEFAULT_TIME_LIMIT"]

DEFAULT_TIME_LIMIT = 60.0

METHODS = list(names.METHODS)
"""Every ``--method`` of ``vc pack``."""


def _result(lower, upper, status, where, t0, lower_method, upper_method, message="") -> dict:
    from lowerbounds.vector import bins_of

    return {"lower": lower, "upper": upper, "status": status, "bins": bins_of(where) if where is not None else [],
            "seconds": time.perf_counter() - t0, "lower_method": lower_method, "upper_method": upper_method,
            "message": message}


def pack(inst: VectorPacking | TypedBinPacking, method: str = "certify", *, time_limit: float | None = None) -> dict:
    """One method on ``inst`` (module docstring); the dict of ``vc pack --json``. Bins of several types
    with counts (:class:`~vcsched.problems.vbp_typed.TypedBinPacking`) go to
    :func:`heuristics.vector.typed.pack_typed` (fewest bins in all, each count a limit; ``bin_types``
    added)."""
    from lowerbounds.vector import certify_packing, cheap_lower_bound

    method = method.strip().lower()
    if method not in METHODS:
        raise UnknownNameError(f"--method: unknown method {method!r}; choose one of: {', '.join(METHODS)}")
    if time_limit is not None and not time_limit > 0:
        raise InvalidInputError(f"time_limit: expected a number > 0, got {time_limit!r}")
    if isinstance(inst, TypedBinPacking):
        from heuristics.vector.typed import pack_typed

        return pack_typed(inst, method, time_limit=time_limit or DEFAULT_TIME_LIMIT)
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
    upper = used_bins(where)
    return _result(lower, upper, "optimal" if lower == upper else "feasible", where, t0, lower_method, upper_method)


def pack_to_json(result: dict) -> dict:
    """The contract fields of ``vc pack --json``, then ``message`` (and ``bin_types`` with typed bins)."""
    keys = ("lower", "upper", "status", "bins", "seconds", "lower_method", "upper_method", "message")
    return {k: result.get(k) for k in keys + (("bin_types",) if "bin_types" in result else ())}
