"""Yield search and packers of the heterogeneous VCSched heuristics (seed 001 §3.4).

A *packer* places every job at a probed yield ``Y`` (items ``(job_cpu * Y, job_rigid)`` into the
hosts) or returns None. :func:`yield_search` is the binary search of §3.4 around it:
``Y_max = min(1, total host CPU / total CPU need, min_j (largest CPU of a type that holds j's
rigid needs) / job_cpu[j])``; probe ``Y_max``, then bisect ``[lo, hi]`` until ``hi - lo <= tol``
(a success raises ``lo`` to the placement's own best yield, :func:`placement_min_yield`, which is
``>= Y``); the best placement found is kept (the packers are not monotone in ``Y``). When no probe
packs, ``Y = 0`` (rigid needs only) is tried; when that fails too the heuristic reports
``failed``. Every placement goes through the average-yield phase and the checker
(:func:`vcsched.problems.vc_hetero.check_hetero`); a placement that fails the checker is ``error``.

Packers (:func:`mcb_packer`, :func:`vector_packer`) and GR/SG (:func:`greedy`, no yield search:
one pass) are wrapped by :mod:`heuristics.vc_hetero.methods`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from heuristics.vc_hetero.kernels import greedy_fill, mcb_fill
from vcsched.problems.vc_hetero import HeteroInstance, allocation_from_placement, check_hetero, placement_min_yield
from vcsched.result import Result, Status

__all__ = ["yield_search", "mcb_packer", "mcb_lists", "host_fill_order", "vector_packer", "greedy", "y_max",
           "finish", "DEFAULT_TOL", "MCB_KEYS"]

DEFAULT_TOL = 1e-4
"""Stop the binary search when ``hi - lo <= tol`` (as the 2-D MCB)."""

MCB_KEYS = {1: ("sum", False), 2: ("diff", False), 3: ("ratio", False), 4: ("max", False),
            5: ("sum", True), 6: ("diff", True), 7: ("ratio", True), 8: ("max", True)}
"""Variant -> (key on an item's relative needs, descending): §3.4's eight orders, read over the
``D`` dimensions (sum; max - min; max / min, ``inf`` when min = 0; max)."""

Packer = Callable[[HeteroInstance, float], "np.ndarray | None"]


def item_sizes(inst: HeteroInstance, y: float) -> np.ndarray:
    """Items at yield ``y``: column 0 ``job_cpu * y``, then the rigid needs, shape (n, d + 1)."""
    return np.ascontiguousarray(np.column_stack((inst.job_cpu * y, inst.job_rigid)))


def type_caps(inst: HeteroInstance) -> np.ndarray:
    """Capacities of each host type, CPU first, shape (K, d + 1)."""
    return np.ascontiguousarray(np.column_stack((inst.host_cpu, inst.host_cap)))


def y_max(inst: HeteroInstance) -> float:
    """The start of the search (module docstring); 0 when a job fits no type (none can)."""
    fits = np.all(inst.job_rigid[:, None, :] <= inst.host_cap[None, :, :] * (1 + 1e-12) + 1e-15, axis=2)
    best_cpu = np.where(fits, inst.host_cpu[None, :], 0.0).max(axis=1)
    total = math.fsum(inst.job_cpu.tolist())
    return float(min(1.0, float(np.dot(inst.host_cpu, inst.host_count)) / total, float(np.min(best_cpu / inst.job_cpu))))


def _relative(sizes: np.ndarray, caps: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = sizes / caps[None, :]
    rel[(sizes == 0)] = 0.0
    return rel


def _key(rel: np.ndarray, key: str) -> np.ndarray:
    hi, lo = rel.max(axis=1), rel.min(axis=1)
    if key == "sum":
        return rel.sum(axis=1)
    if key == "diff":
        return hi - lo
    if key == "ratio":
        out = np.full(hi.shape, np.inf)
        with np.errstate(over="ignore", invalid="ignore"):
            np.divide(hi, lo, out=out, where=lo > 0)
        return out
    return hi


def mcb_lists(sizes: np.ndarray, caps: np.ndarray, variant: int) -> tuple[np.ndarray, np.ndarray]:
    """Per host type: the items by list (heaviest relative dimension, ties to the lowest), each
    list sorted by the variant's key (stable); ``(orders (K, n), bounds (K, D + 1))``."""
    key, descending = MCB_KEYS[variant]
    K, D = caps.shape
    orders = np.empty((K, sizes.shape[0]), np.int64)
    bounds = np.zeros((K, D + 1), np.int64)
    for k in range(K):
        rel = _relative(sizes, caps[k])
        value = _key(rel, key)
        order = np.argsort(-value if descending else value, kind="stable")
        heavy = np.argmax(rel, axis=1)
        orders[k] = order[np.argsort(heavy[order], kind="stable")]
        bounds[k, 1:] = np.cumsum(np.bincount(heavy, minlength=D))
    return orders, bounds


def host_fill_order(inst: HeteroInstance) -> np.ndarray:
    """Hosts in fill order: types by decreasing size (sum over CPU and resources of the capacity
    over the mean capacity of the types), ties to the lower type; hosts of a type in index order."""
    caps = type_caps(inst)
    mean = caps.mean(axis=0)
    size = (caps / np.where(mean > 0, mean, 1.0)).sum(axis=1)
    types = np.argsort(-size, kind="stable")
    starts = np.concatenate(([0], np.cumsum(inst.host_count)))
    return np.concatenate([np.arange(starts[k], starts[k + 1]) for k in types])


def mcb_packer(variant: int) -> Packer:
    """MCB ``variant`` in ``d + 1`` dimensions at a yield (:func:`heuristics.vc_hetero.kernels.mcb_fill`)."""
    def pack(inst: HeteroInstance, y: float) -> np.ndarray | None:
        sizes, caps = item_sizes(inst, y), type_caps(inst)
        orders, bounds = mcb_lists(sizes, caps, variant)
        hosts = host_fill_order(inst)
        where, ok = mcb_fill(sizes, orders, bounds, inst.host_type[hosts], caps)
        return hosts[where] if ok else None
    return pack


def vector_packer(name: str) -> Packer:
    """Heuristic ``name`` of the vector-packing family (:mod:`heuristics.vector.methods`) at a yield,
    the hosts as its bins (taken in its ``sum`` bin order)."""
    from heuristics.vector.methods import run_heuristic

    def pack(inst: HeteroInstance, y: float) -> np.ndarray | None:
        return run_heuristic(name, item_sizes(inst, y), caps=type_caps(inst)[inst.host_type])
    return pack


def finish(inst: HeteroInstance, method: str, job_host: np.ndarray | None, t0: float, message: str = "",
           extra: dict | None = None) -> Result:
    """Average-yield phase and checker on a placement (None: ``failed`` with ``message``)."""
    if job_host is None:
        return Result(method, Status.FAILED, None, None, None, None, time.perf_counter() - t0, message, extra or {})
    alloc = allocation_from_placement(inst, job_host)
    report = check_hetero(inst, alloc)
    if not report.valid:
        return Result(method, Status.ERROR, None, None, None, None, time.perf_counter() - t0,
                      f"the placement fails the checker: {report.message}", extra or {})
    return Result(method, Status.FEASIBLE, report.min_yield, None, None, alloc, time.perf_counter() - t0,
                  message, extra or {})


def yield_search(inst: HeteroInstance, pack: Packer, method: str, *, tol: float = DEFAULT_TOL) -> Result:
    """The binary search of the module docstring around ``pack``."""
    t0 = time.perf_counter()
    lo, hi = 0.0, y_max(inst)
    best, best_y, probes = None, -1.0, 0
    y = hi
    while True:
        probes += 1
        where = pack(inst, y) if y > 0 else None
        if where is not None:
            got = placement_min_yield(inst, where)
            if got > best_y:
                best, best_y = where, got
            lo = max(lo, y, got)
        else:
            hi = y
        if hi - lo <= tol or lo >= hi:
            break
        y = (lo + hi) / 2
    if best is None:
        probes += 1
        best = pack(inst, 0.0)
    return finish(inst, method, best, t0, "" if best is not None else "no yield Y >= 0 packs", {"probes": probes})


def greedy(inst: HeteroInstance, method: str, *, sort: bool) -> Result:
    """GR (jobs in index order) or SG (by decreasing largest relative rigid need, the rigid needs
    over the largest capacity of each resource; stable), one pass of
    :func:`heuristics.vc_hetero.kernels.greedy_fill`."""
    t0 = time.perf_counter()
    order = np.arange(inst.n_jobs)
    if sort:
        top = inst.host_cap.max(axis=0)
        rel = np.divide(inst.job_rigid, top, out=np.zeros_like(inst.job_rigid), where=top > 0)
        order = np.argsort(-rel.max(axis=1), kind="stable")
    where, ok = greedy_fill(item_sizes(inst, 1.0), order.astype(np.int64), inst.hosts_cpu, inst.hosts_cap)
    return finish(inst, method, where if ok else None, t0, "" if ok else "a job fits on no host's free rigid room")
