"""``vc pack`` on bins of several types with limited counts (a VCSched JSON file with host types).

The objective is that of :mod:`vcsched.problems.vbp_typed`: the fewest bins in
all, each type's count as its limit. Methods (the names of
:mod:`heuristics.vector.methods`):

* one heuristic (``ff-sum``, ``choose-w2``, ...): the items (every dimension
  divided by the largest capacity of any type, so that the item orders compare
  dimensions alike) into the list of every available bin (at most one per item
  of each type), bins by decreasing ``sum`` of their capacities, so large
  bins are opened first; ``failed`` when some item finds no room;
* ``meta`` / ``heuristics``: every heuristic, the fewest bins kept (ties to
  the first in table order), with the volume bound beside it;
* ``certify``: META's packing, then :func:`lowerbounds.vector.typed_bins.certify_typed`; with one bin
  type (of positive capacities), first the identical-bin engine
  :func:`lowerbounds.vector.certify_packing` (price-and-dive), whose answer stands when its bound
  exceeds the count or its packing fits within it.

The result has the fields of ``vc pack --json`` and ``bin_types`` (the type
of every bin, in the order of ``bins``).
"""

from __future__ import annotations

import time

import numpy as np

from vcsched.problems.vbp_typed import TypedBinPacking, typed_bins_problem, typed_oversized_item

__all__ = ["pack_typed", "typed_heuristic", "typed_meta", "bins_of_placement"]


def _scaled(inst: TypedBinPacking) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item sizes, bin rows, type of each row), every dimension over the largest capacity of a type with
    a positive count; at most one bin per item of each type."""
    on = inst.bin_count > 0
    ref = inst.bin_caps[on].max(axis=0) if on.any() else np.ones(inst.d)
    ref = np.where(ref > 0, ref, 1.0)
    per_type = np.minimum(inst.bin_count, inst.n_items).astype(np.int64)
    row_type = np.repeat(np.arange(inst.n_bin_types), per_type)
    return inst.item_demand() / ref, inst.bin_caps[row_type] / ref, row_type


def _placement(where: np.ndarray, row_type: np.ndarray, inst: TypedBinPacking) -> np.ndarray:
    """Bin rows (type-major) to ``(type, index within the type)``."""
    first = np.concatenate(([0], np.cumsum(np.minimum(inst.bin_count, inst.n_items))[:-1]))
    k = row_type[where]
    return np.column_stack((k, where - first[k])).astype(np.int64)


def typed_heuristic(inst: TypedBinPacking, name: str) -> np.ndarray | None:
    """The placement (n x 2) by heuristic ``name`` (``meta`` included), or None when it fails."""
    from heuristics.vector.table import run_heuristic

    if inst.n_items == 0:
        return np.zeros((0, 2), dtype=np.int64)
    sizes, rows, row_type = _scaled(inst)
    if name == "meta":
        return typed_meta(inst)[1]
    where = run_heuristic(name, sizes, caps=rows, bin_order="sum")
    return None if where is None else _placement(where, row_type, inst)


def typed_meta(inst: TypedBinPacking) -> tuple[str | None, np.ndarray | None]:
    """Every heuristic; ``(name, placement)`` with the fewest bins (None, None if all failed)."""
    from heuristics.vector.table import HEURISTICS
    from lowerbounds.vector.typed_bins import n_bins

    best: tuple[str | None, np.ndarray | None] = (None, None)
    for name in HEURISTICS.names():
        p = typed_heuristic(inst, name)
        if p is not None and (best[1] is None or n_bins(p) < n_bins(best[1])):
            best = (name, p)
    return best


def bins_of_placement(placement: np.ndarray) -> tuple[list[list[int]], list[int]]:
    """Item indices per bin and the type of each bin, bins numbered by their first item."""
    out: dict[tuple[int, int], list[int]] = {}
    for i, (k, b) in enumerate(np.asarray(placement).tolist()):
        out.setdefault((k, b), []).append(i)
    return list(out.values()), [k for k, _ in out]


def _typed_lp_instance(inst: TypedBinPacking):
    from lowerbounds.vector.typed_lp import TypedPacking

    return TypedPacking(inst.demand.astype(float), inst.count.astype(np.int64), inst.bin_caps.astype(float),
                        inst.bin_count.astype(np.int64))


def _row(lower, upper, status, placement, t0, lower_method, upper_method, message="") -> dict:
    bins, types = bins_of_placement(placement) if placement is not None else ([], [])
    return {"lower": lower, "upper": upper, "status": status, "bins": bins, "seconds": time.perf_counter() - t0,
            "lower_method": lower_method, "upper_method": upper_method, "message": message, "bin_types": types}


def _one_type(inst: TypedBinPacking) -> bool:
    on = np.flatnonzero(inst.bin_count > 0)
    return on.size == 1 and bool(np.all(inst.bin_caps[on[0]] > 0))


def _certify_one_type(inst: TypedBinPacking, placement, upper_method: str, t0: float, time_limit: float) -> dict | None:
    """One bin type with positive capacities: the identical-bin engine
    (:func:`lowerbounds.vector.certify_packing`, with its dives); its answer stands when its lower bound
    exceeds the count (``infeasible``) or its packing fits within the count; else None (the typed engine
    goes on in the time left)."""
    from heuristics.vector.table import HEURISTICS
    from lowerbounds.vector import certify_packing
    from vcsched.problems.vbp import VectorPacking

    k = int(np.flatnonzero(inst.bin_count > 0)[0])
    flat = VectorPacking(inst.bin_caps[k].astype(float), inst.demand.astype(float), inst.count.astype(np.int64))
    start = [(upper_method, placement[:, 1])] if placement is not None else []
    name, where = upper_method, None
    if placement is None:  # within the count every heuristic failed: as many bins as it needs
        name = "ff-sum"
        where = HEURISTICS.get(name)(flat.item_sizes(), None)
        start = [(name, where)] if where is not None else []
    cert = certify_packing(flat, start=start, time_limit=max(time_limit * 0.6 - (time.perf_counter() - t0), 0.01))
    count = int(inst.bin_count[k])
    if cert.lower is not None and cert.lower > count:
        return _row(None, None, "infeasible", None, t0, cert.lower_method, None,
                    f"at least {cert.lower} hosts are needed ({cert.lower_method}) and the instance has {count}")
    if cert.upper is None or cert.upper > count:
        return None
    where = np.empty(inst.n_items, dtype=np.int64)
    for b, items in enumerate(cert.bins):
        where[items] = b
    return _row(cert.lower, cert.upper, cert.status, np.column_stack((np.full(inst.n_items, k), where)), t0,
                cert.lower_method, cert.upper_method, cert.message)


def _certify(inst: TypedBinPacking, lp_inst, placement, upper_method: str, t0: float, time_limit: float) -> dict:
    """``certify``: the one-type shortcut when it decides, else the typed engine in the time left."""
    from lowerbounds.vector.typed_bins import certify_typed

    if _one_type(inst):
        row = _certify_one_type(inst, placement, upper_method, t0, time_limit)
        if row is not None:
            return row
    left = time_limit - (time.perf_counter() - t0)
    cert = certify_typed(lp_inst, start=[(upper_method, placement)] if placement is not None else [],
                         time_limit=max(left, 0.01))
    return _row(cert.lower, cert.upper, cert.status, cert.placement, t0, cert.lower_method, cert.upper_method,
                cert.message)


def pack_typed(inst: TypedBinPacking, method: str, *, time_limit: float = 60.0) -> dict:
    """One method (module docstring) on ``inst``; the dict of ``vc pack --json`` with ``bin_types``.
    ``method`` is a checked name of :data:`heuristics.vector.methods.METHODS`; ``time_limit`` is for
    ``certify`` (seconds, wall clock)."""
    from lowerbounds.vector.typed_bins import n_bins, typed_volume_bound

    t0 = time.perf_counter()
    too_big = typed_oversized_item(inst)
    if too_big is not None:
        return _row(None, None, "infeasible", None, t0, None, None, too_big)
    if method in ("certify", "heuristics", "meta"):
        name, placement = typed_meta(inst)
        upper_method = f"meta:{name}"
    else:
        name, placement, upper_method = method, typed_heuristic(inst, method), method
    lp_inst = _typed_lp_instance(inst)
    if method == "certify":
        row = _certify(inst, lp_inst, placement, upper_method, t0, time_limit)
    else:
        volume = typed_volume_bound(lp_inst)
        if volume is None:
            return _row(None, None, "infeasible", None, t0, "volume", None,
                        "the items need more volume than every host together holds in some dimension")
        if placement is None:
            return _row(volume, None, "failed", None, t0, "volume", None, f"{name} found no packing")
        upper = n_bins(placement)
        row = _row(volume, upper, "optimal" if volume == upper else "feasible", placement, t0, "volume",
                   upper_method)
    problem = None if not row["bins"] else typed_bins_problem(inst, row["bins"], row["bin_types"])
    if problem is not None:
        from vcsched.errors import InternalError

        raise InternalError(f"vc pack: the packing of {row['upper_method']} fails the checker: {problem}")
    return row
