"""Multi-capacity bin packing heuristics MCB1-MCB8 (seed 001 §3.4).

At a target yield ``Y`` every task is a two-dimensional item
``(alpha_i * Y, m_i)`` and hosts are bins of capacity ``(1, 1)``. The
packing of Leinberger, Karypis and Kumar (1999) for ``d = 2``:

1. split the items into a *CPU-heavy* list (``alpha_i Y >= m_i``; ties go
   here) and a *memory-heavy* list (``alpha_i Y < m_i``);
2. sort both lists by the variant's key (stable, ties keep task order):

   ====  ==========================  ===========
   MCB   key                         order
   ====  ==========================  ===========
   1, 5  memory + CPU                asc, desc
   2, 6  max - min                   asc, desc
   3, 7  max / min (``inf`` if min=0)  asc, desc
   4, 8  max                         asc, desc
   ====  ==========================  ===========

3. fill the hosts one at a time: take the first item that fits from the list
   that works against the host's current imbalance -- the CPU-heavy list when
   the free CPU is at least the free memory (so an empty host starts with the
   CPU-heavy list), else the memory-heavy list -- and, when that list has no
   item that fits, the first that fits from the other list. When neither list
   has one, move on to the next host. The packing succeeds when every item is
   placed.

A binary search on ``Y`` (§3.4) starts at half of ``Y_max = min(1, H / sum of
alpha over tasks)`` and keeps ``lo`` (a yield that packed) and ``hi`` (one
that did not, initially ``Y_max``); it stops when ``hi - lo <= tol``
(default ``1e-4``). When a packing succeeds, ``lo`` becomes the best yield of
that placement, ``min(1, 1 / max_j L_j) >= Y``, which can only shorten the
search. MCB is not monotone in ``Y``, so the returned placement is the best
of all that packed. When no probe packs, a last packing at ``Y = 0`` (memory
only; any placement it finds has a positive yield) is tried; if it fails too
the result is ``failed`` ("no Y > 0 packs").

Parallel jobs (§5): every task is an item with its job's ``alpha_i Y`` and
``m_i``; tasks of one job are placed independently and may share a host.
Every task then gets ``alpha_i Y`` CPU, the same for the tasks of a job.

Notes
-----
The reported minimum yield is that of the final placement after the
average-yield phase, i.e. ``min(1, 1 / max_j L_j)``, which is at least the
``Y`` at which it was packed.
"""

from __future__ import annotations

import time
from bisect import bisect_left

import numpy as np

from heuristics.vc._common import MEM_EPS, failed, finish, validate_instance
from vcsched.problems.vc import VCInstance, placement_min_yield
from vcsched.result import Result

__all__ = ["mcb", "mcb_pack", "MCB_VARIANTS", "DEFAULT_TOL"] + [f"mcb{v}" for v in range(1, 9)]

DEFAULT_TOL = 1e-4
"""Default stopping tolerance of the binary search: stop when ``hi - lo <= tol``."""

CPU_EPS = 1e-12
"""Slack on a host's CPU in the packing (the final yield is recomputed from loads)."""

MCB_VARIANTS = {
    1: ("sum", False),
    2: ("diff", False),
    3: ("ratio", False),
    4: ("max", False),
    5: ("sum", True),
    6: ("diff", True),
    7: ("ratio", True),
    8: ("max", True),
}
"""Variant number -> (sort key, descending)."""


def _sort_key(c: np.ndarray, m: np.ndarray, key: str) -> np.ndarray:
    hi = np.maximum(c, m)
    lo = np.minimum(c, m)
    if key == "sum":
        return c + m
    if key == "diff":
        return hi - lo
    if key == "ratio":
        out = np.full(c.shape, np.inf)
        with np.errstate(over="ignore"):
            np.divide(hi, lo, out=out, where=lo > 0)
        return out
    return hi


def _sorted_lists(c: np.ndarray, m: np.ndarray, variant: int) -> tuple[np.ndarray, np.ndarray]:
    """Task indices of the CPU-heavy and memory-heavy lists, each in the variant's order."""
    key, descending = MCB_VARIANTS[variant]
    k = _sort_key(c, m, key)
    order = np.argsort(-k if descending else k, kind="stable")
    heavy = c[order] >= m[order]
    return order[heavy], order[~heavy]


def _first_fit(c: list, m: list, used: list, p: int, rc: float, rm: float) -> int:
    """First index ``>= p`` of an unused item with ``c <= rc`` and ``m <= rm`` (len if none)."""
    n = len(c)
    while p < n:
        if not used[p] and c[p] <= rc and m[p] <= rm:
            return p
        p += 1
    return n


def _find_unused(nxt: list, k: int) -> int:
    """First unused position ``>= k`` (``nxt`` is a union-find "next unused" array)."""
    root = k
    while nxt[root] != root:
        root = nxt[root]
    while nxt[k] != root:
        nxt[k], k = root, nxt[k]
    return root


def _first_fit_max_desc(neg_key: list, other: list, nxt: list, p: int, r_key: float, r_other: float) -> int:
    """First fit in a list sorted by decreasing dominant size (MCB8).

    ``-neg_key`` is the item's dominant size (CPU in the CPU-heavy list,
    memory in the memory-heavy one), non-increasing along the list, and
    ``other <= -neg_key`` the other size. Items with dominant size above
    ``r_key`` form a prefix (found by bisection); beyond the position where
    the dominant size drops to ``r_other`` every item fits, so only the band
    in between is scanned. Same answer as a plain scan, fewer steps.
    """
    k = bisect_left(neg_key, -r_key, p)
    if nxt[k] != k:
        k = _find_unused(nxt, k)
    if r_other >= r_key or k >= len(other):
        return k
    band_end = bisect_left(neg_key, -r_other, k)
    while k < band_end:
        if other[k] <= r_other:
            return k
        k += 1
        if nxt[k] != k:
            k = _find_unused(nxt, k)
    return k


def _pack_max_desc(c: np.ndarray, m: np.ndarray, hosts: int) -> np.ndarray | None:
    """:func:`mcb_pack` for MCB8: same result as the plain scan (tested), faster.

    Each list is sorted by decreasing dominant size (CPU in the CPU-heavy
    list, memory in the memory-heavy one). Items whose dominant size exceeds
    the host's free capacity in that dimension form a prefix, skipped by
    bisection; items whose dominant size is at most the free capacity in the
    other dimension fit for sure, so only the band in between is scanned;
    used items are skipped with a union-find "next unused" array. The search
    of :func:`_first_fit_max_desc` is inlined (this is the hot loop).
    """
    A, B = _sorted_lists(c, m, 8)
    cA, mA, cB, mB = c[A].tolist(), m[A].tolist(), c[B].tolist(), m[B].tolist()
    negA = (-c[A]).tolist()
    negB = (-m[B]).tolist()
    nA, nB = len(cA), len(cB)
    nxtA, nxtB = list(range(nA + 1)), list(range(nB + 1))
    hostA, hostB = [0] * nA, [0] * nB
    capc, capm = 1.0 + CPU_EPS, 1.0 + MEM_EPS
    left_cpu = float(c.sum())
    left_mem = float(m.sum())
    left = nA + nB
    find = _find_unused
    for h in range(hosts):
        if left_cpu > (hosts - h) * capc + 1e-9 or left_mem > (hosts - h) * capm + 1e-9:
            return None
        pA = pB = 0
        rc, rm = capc, capm
        while True:
            if rc >= rm:
                k = bisect_left(negA, -rc, pA)
                if nxtA[k] != k:
                    k = find(nxtA, k)
                if rm < rc and k < nA:
                    band_end = bisect_left(negA, -rm, k)
                    while k < band_end:
                        if mA[k] <= rm:
                            break
                        k += 1
                        if nxtA[k] != k:
                            k = find(nxtA, k)
                if k < nA:
                    nxtA[k] = k + 1
                    hostA[k] = h
                    rc -= cA[k]
                    rm -= mA[k]
                    left_cpu -= cA[k]
                    left_mem -= mA[k]
                    pA = k + 1
                    left -= 1
                    continue
                pA = nA
                k = bisect_left(negB, -rm, pB)
                if nxtB[k] != k:
                    k = find(nxtB, k)
                if rc < rm and k < nB:
                    band_end = bisect_left(negB, -rc, k)
                    while k < band_end:
                        if cB[k] <= rc:
                            break
                        k += 1
                        if nxtB[k] != k:
                            k = find(nxtB, k)
                if k < nB:
                    nxtB[k] = k + 1
                    hostB[k] = h
                    rc -= cB[k]
                    rm -= mB[k]
                    left_cpu -= cB[k]
                    left_mem -= mB[k]
                    pB = k + 1
                    left -= 1
                    continue
                pB = nB
            else:
                k = bisect_left(negB, -rm, pB)
                if nxtB[k] != k:
                    k = find(nxtB, k)
                if rc < rm and k < nB:
                    band_end = bisect_left(negB, -rc, k)
                    while k < band_end:
                        if cB[k] <= rc:
                            break
                        k += 1
                        if nxtB[k] != k:
                            k = find(nxtB, k)
                if k < nB:
                    nxtB[k] = k + 1
                    hostB[k] = h
                    rc -= cB[k]
                    rm -= mB[k]
                    left_cpu -= cB[k]
                    left_mem -= mB[k]
                    pB = k + 1
                    left -= 1
                    continue
                pB = nB
                k = bisect_left(negA, -rc, pA)
                if nxtA[k] != k:
                    k = find(nxtA, k)
                if rm < rc and k < nA:
                    band_end = bisect_left(negA, -rm, k)
                    while k < band_end:
                        if mA[k] <= rm:
                            break
                        k += 1
                        if nxtA[k] != k:
                            k = find(nxtA, k)
                if k < nA:
                    nxtA[k] = k + 1
                    hostA[k] = h
                    rc -= cA[k]
                    rm -= mA[k]
                    left_cpu -= cA[k]
                    left_mem -= mA[k]
                    pA = k + 1
                    left -= 1
                    continue
                pA = nA
            break
        if left == 0:
            out = np.empty(c.shape[0], dtype=np.int64)
            out[A] = hostA
            out[B] = hostB
            return out
    return None


def mcb_pack(c: np.ndarray, m: np.ndarray, hosts: int, variant: int) -> np.ndarray | None:
    """Pack items ``(c_k, m_k)`` into ``hosts`` unit bins with MCB ``variant``.

    Parameters
    ----------
    c, m : arrays of float, shape (K,)
        CPU (already multiplied by the target yield) and memory of each item.
    hosts : int
    variant : int in 1..8

    Returns
    -------
    array of int, shape (K,), or None
        Host of every item, or ``None`` when some item is left over.

    Notes
    -----
    Within one host the free capacities only shrink, so an item skipped once
    never fits later on that host: each list is scanned from a per-host
    pointer that only moves forward, ``O(K)`` per host, ``O(K H)`` per
    packing in the worst case. A packing is abandoned as soon as the CPU
    or memory still to place exceeds the capacity of the hosts left (it would
    fail anyway).
    """
    if variant == 8:
        return _pack_max_desc(c, m, hosts)
    return _pack_generic(c, m, hosts, variant)


def _pack_generic(c: np.ndarray, m: np.ndarray, hosts: int, variant: int) -> np.ndarray | None:
    """Plain forward scans (any variant); the reference for the MCB8 fast path."""
    A, B = _sorted_lists(c, m, variant)
    cA, mA, cB, mB = c[A].tolist(), m[A].tolist(), c[B].tolist(), m[B].tolist()
    nA, nB = len(cA), len(cB)
    usedA, usedB = [False] * nA, [False] * nB
    hostA, hostB = [0] * nA, [0] * nB
    capc, capm = 1.0 + CPU_EPS, 1.0 + MEM_EPS
    left_cpu = float(c.sum())
    left_mem = float(m.sum())
    left = nA + nB
    hA = hB = 0
    for h in range(hosts):
        if left_cpu > (hosts - h) * capc + 1e-9 or left_mem > (hosts - h) * capm + 1e-9:
            return None
        while hA < nA and usedA[hA]:
            hA += 1
        while hB < nB and usedB[hB]:
            hB += 1
        pA, pB = hA, hB
        rc, rm = capc, capm
        while True:
            if rc >= rm:
                pA = _first_fit(cA, mA, usedA, pA, rc, rm)
                if pA < nA:
                    usedA[pA] = True
                    hostA[pA] = h
                    rc -= cA[pA]
                    rm -= mA[pA]
                    left_cpu -= cA[pA]
                    left_mem -= mA[pA]
                    pA += 1
                    left -= 1
                    continue
                pB = _first_fit(cB, mB, usedB, pB, rc, rm)
                if pB < nB:
                    usedB[pB] = True
                    hostB[pB] = h
                    rc -= cB[pB]
                    rm -= mB[pB]
                    left_cpu -= cB[pB]
                    left_mem -= mB[pB]
                    pB += 1
                    left -= 1
                    continue
            else:
                pB = _first_fit(cB, mB, usedB, pB, rc, rm)
                if pB < nB:
                    usedB[pB] = True
                    hostB[pB] = h
                    rc -= cB[pB]
                    rm -= mB[pB]
                    left_cpu -= cB[pB]
                    left_mem -= mB[pB]
                    pB += 1
                    left -= 1
                    continue
                pA = _first_fit(cA, mA, usedA, pA, rc, rm)
                if pA < nA:
                    usedA[pA] = True
                    hostA[pA] = h
                    rc -= cA[pA]
                    rm -= mA[pA]
                    left_cpu -= cA[pA]
                    left_mem -= mA[pA]
                    pA += 1
                    left -= 1
                    continue
            break
        if left == 0:
            out = np.empty(c.shape[0], dtype=np.int64)
            out[A] = hostA
            out[B] = hostB
            return out
    return None


def mcb(instance: VCInstance, variant: int = 8, *, rng=None, tol: float = DEFAULT_TOL) -> Result:
    """MCB heuristic ``variant`` (§3.4) with binary search on the yield.

    Parameters
    ----------
    instance : VCInstance
    variant : int in 1..8
        Sort key and order, see the module docstring.
    rng : ignored
        MCB is deterministic.
    tol : float, default 1e-4
        Stop the binary search when ``hi - lo <= tol``.

    Returns
    -------
    Result
        ``feasible`` with the best placement found after the average-yield
        phase, or ``failed``. ``extra``: ``avg_yield``,
        ``seconds_first_phase``, ``probes`` (packings tried), ``y_lo``,
        ``y_hi`` (final search interval), ``y_max``.

    References
    ----------
    W. Leinberger, G. Karypis, V. Kumar. Multi-capacity bin packing
    algorithms with applications to job scheduling under multiple
    constraints. ICPP 1999.
    """
    t0 = time.perf_counter()
    validate_instance(instance)
    if variant not in MCB_VARIANTS:
        raise ValueError(f"`variant` must be an integer in 1..8, got {variant!r}")
    if not (isinstance(tol, (int, float)) and 0 < tol < 1):
        raise ValueError(f"`tol` must be a number in (0, 1), got {tol!r}")
    method = f"mcb{variant}"
    alpha = instance.task_cpu
    mem = instance.task_mem
    H = instance.hosts
    y_max = min(1.0, H / float(alpha.sum()))
    lo, hi = 0.0, y_max
    best, best_y = None, -1.0
    y = y_max / 2.0
    probes = 0
    while True:
        placement = mcb_pack(alpha * y, mem, H, variant)
        probes += 1
        if placement is not None:
            yy = placement_min_yield(instance, placement)
            if yy > best_y:
                best, best_y = placement, yy
            lo = max(lo, y, yy)
        else:
            hi = min(hi, y)
        if hi - lo <= tol:
            break
        y = 0.5 * (lo + hi)
    if best is None:
        best = mcb_pack(np.zeros_like(alpha), mem, H, variant)
        probes += 1
    t1 = time.perf_counter()
    extra = {"probes": probes, "y_lo": lo, "y_hi": hi, "y_max": y_max}
    if best is None:
        return failed(method, t0, "no yield Y > 0 packs (not even memory alone)", extra)
    return finish(instance, method, best, t0, t1, extra)


def _make(variant: int):
    def heuristic(instance: VCInstance, *, rng=None, tol: float = DEFAULT_TOL) -> Result:
        return mcb(instance, variant, rng=rng, tol=tol)

    key, desc = MCB_VARIANTS[variant]
    heuristic.__name__ = heuristic.__qualname__ = f"mcb{variant}"
    heuristic.__doc__ = (f"MCB{variant} (§3.4): lists sorted by {key}, "
                         f"{'descending' if desc else 'ascending'}; see :func:`mcb`.")
    return heuristic


mcb1, mcb2, mcb3, mcb4, mcb5, mcb6, mcb7, mcb8 = (_make(v) for v in range(1, 9))
