"""MCB's packing at one yield (seed 001 §3.4): the two sorted lists and the filling of the hosts.

:func:`mcb_pack` places the items ``(alpha_i * Y, m_i)`` on hosts of capacity ``(1, 1)``
by the rule that :mod:`heuristics.vc.mcb` describes, which searches over the yields ``Y``
with it. The sort and the split into the CPU-heavy and memory-heavy lists run on arrays
(:func:`_sorted_lists`); the filling of the hosts (:func:`_fill`) walks Python lists,
which is faster than numpy for its item-at-a-time scans. MCB8, whose lists are sorted by
decreasing dominant size, is filled from :data:`COMPILED_FROM` items on by
:func:`heuristics.vc.mcb_compiled.fill_max_desc`: the same first fit, found by bisection
and a segment tree in ``O(log K)`` per item instead of a scan.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vcsched.problems.vc import MEM_EPS

__all__ = ["mcb_pack", "MCB_VARIANTS", "CPU_EPS", "COMPILED_FROM"]

CPU_EPS = 1e-12
"""Slack on a host's CPU in the packing (the final yield is recomputed from loads)."""

COMPILED_FROM = 4000
"""Items from which MCB8 packs with the compiled :func:`heuristics.vc.mcb_compiled.fill_max_desc`.
MCB8 packs once per step of its bisection on the yield (about 20 to 30 packings per solve); loading
numba costs about 0.45 s once per process, and at 4,000 items the compiled fill pays it back after
about 6 packings, at 2,000 after about 25 (``python benchmarks/bench_thresholds.py --rule mcb8``:
0.078 s against 0.0007 s per packing at 4,000 items)."""

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
    """The variant's sort key of every item."""
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
    """Task indices of the CPU-heavy (``c >= m``) and memory-heavy lists, each sorted by the
    variant's key (stable: ties keep task order; descending sorts the negated key)."""
    key, descending = MCB_VARIANTS[variant]
    k = _sort_key(c, m, key)
    order = np.argsort(-k if descending else k, kind="stable")
    heavy = c[order] >= m[order]
    return order[heavy], order[~heavy]


class _ScanList:
    """One list of a packing, searched by a forward scan (any variant).

    ``order`` holds the items' indices in list order (a list or an array),
    ``cpu``/``mem`` their sizes in that order (lists). Within one host the
    free capacities only shrink, so an item skipped once never fits later on
    that host: the search resumes from ``pos``, which only moves forward
    (it is set past the end when nothing fits).
    """

    __slots__ = ("order", "cpu", "mem", "n", "host", "used", "head", "pos", "placed")

    def __init__(self, order: Sequence[int], cpu: list[float], mem: list[float]):
        self.order = order
        self.cpu = cpu
        self.mem = mem
        self.n = len(self.cpu)
        self.host = [0] * self.n
        self.used = [False] * self.n
        self.head = 0
        self.pos = 0
        self.placed = 0

    def new_host(self) -> None:
        """Restart the scan at the first unused item."""
        used, n = self.used, self.n
        head = self.head
        while head < n and used[head]:
            head += 1
        self.head = self.pos = head

    def place_first_fit(self, rc: float, rm: float, h: int) -> int:
        """Put on host ``h`` the first unused item at or after ``pos`` with ``cpu <= rc`` and ``mem <= rm``.

        Returns its position, or ``-1`` (and ``pos`` past the end) when none fits.
        """
        cpu, mem, used, n = self.cpu, self.mem, self.used, self.n
        k = self.pos
        while k < n and (used[k] or cpu[k] > rc or mem[k] > rm):
            k += 1
        if k == n:
            self.pos = n
            return -1
        used[k] = True
        self.host[k] = h
        self.pos = k + 1
        self.placed += 1
        return k


def _lists(c: np.ndarray, m: np.ndarray, variant: int) -> tuple[_ScanList, _ScanList]:
    """The CPU-heavy and memory-heavy lists of ``variant``, searched by a forward scan."""
    A, B = _sorted_lists(c, m, variant)
    return tuple(_ScanList(order, c[order].tolist(), m[order].tolist()) for order in (A, B))


def _fill_host(cpu_list: _ScanList, mem_list: _ScanList, h: int, capc: float, capm: float) -> tuple[float, float]:
    """Fill host ``h`` from the two lists, from the list of the dimension with more room left first;
    returns the CPU and memory it took."""
    rc, rm = capc, capm
    while True:
        items, second = (cpu_list, mem_list) if rc >= rm else (mem_list, cpu_list)
        k = items.place_first_fit(rc, rm, h)
        if k < 0:
            items, k = second, second.place_first_fit(rc, rm, h)
            if k < 0:
                return capc - rc, capm - rm
        rc -= items.cpu[k]
        rm -= items.mem[k]


def _fill(cpu_list: _ScanList, mem_list: _ScanList, hosts: int, left_cpu: float, left_mem: float) -> bool:
    """Step 3 of the module docstring: fill the hosts one at a time from the two lists (each
    item's host in ``lst.host``); True when every item is placed.

    A packing is abandoned as soon as the CPU or memory still to place (``left_cpu``,
    ``left_mem``: the totals at the start) exceeds the capacity of the hosts left by more
    than ``1e-9``: it would fail anyway.
    """
    capc, capm = 1.0 + CPU_EPS, 1.0 + MEM_EPS
    items = cpu_list.n + mem_list.n
    for h in range(hosts):
        if left_cpu > (hosts - h) * capc + 1e-9 or left_mem > (hosts - h) * capm + 1e-9:
            return False
        cpu_list.new_host()
        mem_list.new_host()
        took_cpu, took_mem = _fill_host(cpu_list, mem_list, h, capc, capm)
        left_cpu -= took_cpu
        left_mem -= took_mem
        if cpu_list.placed + mem_list.placed == items:
            return True
    return False


def mcb_pack(c: np.ndarray, m: np.ndarray, hosts: int, variant: int, *, fast: bool = True,
             compiled_from: int = COMPILED_FROM) -> np.ndarray | None:
    """Pack items ``(c_k, m_k)`` into ``hosts`` unit bins with MCB ``variant``.

    Parameters
    ----------
    c, m : arrays of float, shape (K,)
        CPU (already multiplied by the target yield) and memory of each item.
    hosts : int
    variant : int in 1..8
    fast : bool, default True
        MCB8 with at least :data:`COMPILED_FROM` items by the compiled
        :func:`heuristics.vc.mcb_compiled.fill_max_desc` (``O(K log K)``); ``False`` (or fewer items)
        scans every list forward (:func:`_fill`). Same placement either way (tested).
    compiled_from : int, default :data:`COMPILED_FROM`
        Items from which the compiled path is taken (a caller that packs thousands of times, such as
        the DFRS simulator, lowers it: numba's load is then paid once).

    Returns
    -------
    array of int, shape (K,), or None
        Host of every item, or ``None`` when some item is left over.

    Notes
    -----
    Step 3 of the module docstring (:func:`_fill`). A forward scan is ``O(K)``
    per host, ``O(K H)`` per packing in the worst case; MCB8's fast path
    ``O(K log K)`` per packing.

    Examples
    --------
    >>> import numpy as np
    >>> mcb_pack(np.array([0.6, 0.4, 0.3]), np.array([0.1, 0.05, 0.8]), 2, 8).tolist()
    [0, 1, 0]
    """
    c, m = np.asarray(c, dtype=float), np.asarray(m, dtype=float)
    out = np.empty(c.shape[0], dtype=np.int64)
    if fast and variant == 8 and c.shape[0] >= compiled_from:
        from heuristics.vc.mcb_compiled import fill_max_desc  # numba: loaded only for large packings

        A, B = _sorted_lists(c, m, variant)
        host_a, host_b, ok = fill_max_desc(c[A], m[A], c[B], m[B], hosts, float(c.sum()), float(m.sum()),
                                            1.0 + CPU_EPS, 1.0 + MEM_EPS)
        if not ok:
            return None
        out[A], out[B] = host_a, host_b
        return out
    cpu_list, mem_list = _lists(c, m, variant)
    if not _fill(cpu_list, mem_list, hosts, float(c.sum()), float(m.sum())):
        return None
    out[cpu_list.order] = cpu_list.host
    out[mem_list.order] = mem_list.host
    return out
