"""Vector bin packing into bins of several types, each with a limited count (``vc pack`` on a JSON file with host types).

A :class:`TypedBinPacking` holds ``m`` item types (``d`` demands and a count
each; items numbered type by type) and ``K`` bin types (``d`` capacities and
a count each). A packing opens bins of the types, at most ``bin_count[k]`` of
type ``k``, and puts every item into one open bin, no bin over its capacity
in any dimension (relative tolerance :data:`vcsched.problems.vbp.FIT_TOL`).

Objective (a choice, since hosts of different types are not interchangeable):
the fewest bins in all, every bin counting one whatever its type, with each
type's count as its limit. When the items do not fit into every bin of every
type together, there is no packing (status ``infeasible``).

A VCSched JSON file with host types (:mod:`vcsched.problems.vc_hetero`) with
every job at yield 1 is such an instance (:func:`packing_from_hetero`): one
item per job with demands ``(cpu, rigid needs...)``, one bin type per host type
with capacities ``(cpu, capacities...)`` and its ``count``. A job larger than
every host type in some dimension is not an error here: the packing commands
report status ``infeasible`` naming it (:func:`typed_oversized_item`).
:func:`load_packing` reads any file of ``vc pack``: ``.vbp``, or JSON in either form.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from vcsched.problems.vbp import FIT_TOL, ItemTypes, VectorPacking, items_once_problem, packing_from_vc, read_vbp

__all__ = ["TypedBinPacking", "packing_from_hetero", "typed_oversized_item", "typed_bins_problem", "load_packing"]


@dataclasses.dataclass(frozen=True)
class TypedBinPacking(ItemTypes):
    """``demand`` (m, d) and ``count`` (m,) per item type; ``bin_caps`` (K, d) and ``bin_count`` (K,) per
    bin type; ``dims`` (d names), ``name``."""

    demand: np.ndarray
    count: np.ndarray
    bin_caps: np.ndarray
    bin_count: np.ndarray
    dims: tuple[str, ...] = ()
    name: str = ""

    @property
    def d(self) -> int:
        return int(self.demand.shape[1])

    @property
    def n_bin_types(self) -> int:
        return int(self.bin_count.size)

    def dim_name(self, k: int) -> str:
        return self.dims[k] if k < len(self.dims) else f"dimension {k + 1}"


def packing_from_hetero(inst, name: str = "") -> TypedBinPacking:
    """Every job of a :class:`~vcsched.problems.vc_hetero.HeteroInstance` at yield 1: item ``j`` is job
    ``j`` with demands ``(cpu, rigid...)``; bin type ``k`` is host type ``k``."""
    demand = np.column_stack((inst.job_cpu, inst.job_rigid)).astype(float)
    caps = np.column_stack((inst.host_cpu, inst.host_cap)).astype(float)
    return TypedBinPacking(demand, np.ones(inst.n_jobs, dtype=np.int64), caps, inst.host_count.astype(np.int64),
                           dims=("cpu", *inst.resources), name=name)


def _fits(demand: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """(m, K): whether one item of each type fits alone into a bin of each type."""
    return np.all(demand[:, None, :] <= caps[None, :, :] * (1 + FIT_TOL), axis=2)


def typed_oversized_item(inst: TypedBinPacking) -> str | None:
    """The first item that fits alone into no bin type (of positive count), named with the dimension it
    exceeds on the largest such bin; None when every item fits some bin."""
    avail = inst.bin_count > 0
    fits = _fits(inst.demand, inst.bin_caps[avail]).any(axis=1) if avail.any() else np.zeros(inst.count.size, bool)
    bad = np.flatnonzero(~fits & (inst.count > 0))
    if bad.size == 0:
        return None
    i = int(bad[0])
    caps = inst.bin_caps[avail] if avail.any() else inst.bin_caps
    over = inst.demand[i][None, :] > caps * (1 + FIT_TOL)
    k = int(np.argmax(over.any(axis=0)))
    item = int(inst.count[:i].sum())
    label = f"item {item} (job {i})" if np.all(inst.count == 1) else f"item {item} (type {i + 1})"
    return (f"{label} needs {inst.demand[i, k]:g} of {inst.dim_name(k)}, and no host type with that "
            f"room holds it (largest {inst.dim_name(k)}: {caps[:, k].max():g}): no packing exists")


def typed_bins_problem(inst: TypedBinPacking, bins, bin_types) -> str | None:
    """The checker: None when ``bins`` (item indices per bin) with ``bin_types`` (the type of each bin) hold
    every item exactly once, use at most ``bin_count[k]`` bins of type ``k``, and no bin exceeds its
    capacity in any dimension; else the reason."""
    n = inst.n_items
    if len(bins) != len(bin_types):
        return f"{len(bins)} bins but {len(bin_types)} bin types"
    types = np.asarray(bin_types, dtype=np.int64).reshape(-1)
    if types.size and (types.min() < 0 or types.max() >= inst.n_bin_types):
        return f"a bin type outside 0..{inst.n_bin_types - 1}"
    used = np.bincount(types, minlength=inst.n_bin_types)
    if np.any(used > inst.bin_count):
        k = int(np.flatnonzero(used > inst.bin_count)[0])
        return f"{int(used[k])} bins of type {k}, more than its count {int(inst.bin_count[k])}"
    demand = inst.item_demand()

    def overfull(b: int, idx: np.ndarray) -> str | None:
        cap = inst.bin_caps[types[b]]
        over = demand[idx].sum(axis=0) > cap * (1 + FIT_TOL)
        if np.any(over):
            k = int(np.argmax(over))
            return f"bin {b} (type {int(types[b])}) exceeds its {inst.dim_name(k)} capacity {cap[k]:g}"
        return None

    return items_once_problem(n, bins, overfull)


def load_packing(path: str | os.PathLike) -> VectorPacking | TypedBinPacking:
    """A ``.vbp`` file, or a VCSched ``.json`` instance, by its suffix: the 2-D form (``"hosts": N``)
    gives a :class:`~vcsched.problems.vbp.VectorPacking` (:func:`~vcsched.problems.vbp.packing_from_vc`:
    identical unit hosts, as many as needed, ``N`` not a limit); the form with host types gives a
    :class:`TypedBinPacking` (each type's ``count`` a limit)."""
    source = os.fspath(path)
    if source.lower().endswith(".json"):
        from vcsched.problems.jsonfile import load_json
        from vcsched.problems.vc import parse_instance
        from vcsched.problems.vc_hetero import is_new_form, parse_hetero

        data = load_json(source, what="VCSched instance")
        if is_new_form(data):
            return packing_from_hetero(parse_hetero(data, source, check_fits=False), name=os.path.basename(source))
        return packing_from_vc(parse_instance(data, source), name=os.path.basename(source))
    return read_vbp(source)
