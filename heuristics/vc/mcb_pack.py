"""MCB's packing at one yield (seed 001 §3.4): the two sorted lists and the filling of the hosts.

:func:`mcb_pack` places the items ``(alpha_i * Y, m_i)`` on hosts of capacity ``(1, 1)``
by the rule that :mod:`heuristics.vc.mcb` describes, which searches over the yields ``Y``
with it. The sort and the split into the CPU-heavy and memory-heavy lists run on arrays
(:func:`_sorted_lists`); the filling of the hosts (:func:`_fill`) walks Python lists,
which is faster than numpy for its item-at-a-time scans.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

import numpy as np

from vcsched.problems.vc import MEM_EPS

__all__ = ["mcb_pack", "MCB_VARIANTS", "CPU_EPS"]

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

    __slots__ = ("order", "cpu", "mem", "n", "host", "used", "head", "pos")

    def __init__(self, order: Sequence[int], cpu: list[float], mem: list[float]):
        self.order = order
        self.cpu = cpu
        self.mem = mem
        self.n = len(self.cpu)
        self.host = [0] * self.n
        self.used = [False] * self.n
        self.head = 0
        self.pos = 0

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
        return k


class _MaxDescList(_ScanList):
    """A list of MCB8 (sorted by decreasing dominant size): same answers as the scan, fewer steps.

    The dominant size is the CPU in the CPU-heavy list and the memory in the
    memory-heavy one; it is non-increasing along the list and at least the
    other size. Items whose dominant size exceeds the free capacity in that
    dimension form a prefix, skipped by bisection; items whose dominant size
    is at most the free capacity in the other dimension fit for sure, so only
    the band in between is scanned; used items are skipped with a union-find
    "next unused" array ``nxt``.
    """

    __slots__ = ("cpu_heavy", "neg_dominant", "other", "nxt")

    def __init__(self, order: Sequence[int], cpu: list[float], mem: list[float], cpu_heavy: bool,
                 neg_dominant: list[float]):
        super().__init__(order, cpu, mem)
        self.cpu_heavy = cpu_heavy
        self.neg_dominant = neg_dominant  # minus the dominant size (cpu if cpu_heavy else mem)
        self.other = self.mem if cpu_heavy else self.cpu
        self.nxt = list(range(self.n + 1))

    def new_host(self) -> None:
        self.pos = 0

    def place_first_fit(self, rc: float, rm: float, h: int) -> int:
        r_dom, r_other = (rc, rm) if self.cpu_heavy else (rm, rc)
        nxt, other, n = self.nxt, self.other, self.n
        k = bisect_left(self.neg_dominant, -r_dom, self.pos)
        if nxt[k] != k:
            k = _find_unused(nxt, k)
        if r_other < r_dom and k < n:
            band_end = bisect_left(self.neg_dominant, -r_other, k)
            while k < band_end and other[k] > r_other:
                k += 1
                if nxt[k] != k:
                    k = _find_unused(nxt, k)
        if k == n:
            self.pos = n
            return -1
        nxt[k] = k + 1
        self.host[k] = h
        self.pos = k + 1
        return k


def _find_unused(nxt: list, k: int) -> int:
    """First unused position ``>= k`` (``nxt`` is a union-find "next unused" array), compressing the path."""
    root = k
    while nxt[root] != root:
        root = nxt[root]
    while nxt[k] != root:
        nxt[k], k = root, nxt[k]
    return root


def _lists(c: np.ndarray, m: np.ndarray, variant: int, fast: bool) -> tuple[_ScanList, _ScanList]:
    """The CPU-heavy and memory-heavy lists of ``variant`` (MCB8's searched by bisection when ``fast``)."""
    A, B = _sorted_lists(c, m, variant)
    lists = []
    for order, cpu_heavy in ((A, True), (B, False)):
        cpu, mem = c[order], m[order]
        if fast and variant == 8:
            lists.append(_MaxDescList(order, cpu.tolist(), mem.tolist(), cpu_heavy,
                                      (-(cpu if cpu_heavy else mem)).tolist()))
        else:
            lists.append(_ScanList(order, cpu.tolist(), mem.tolist()))
    return lists[0], lists[1]


def _fill(cpu_list: _ScanList, mem_list: _ScanList, hosts: int, left_cpu: float, left_mem: float) -> bool:
    """Step 3 of the module docstring: fill the hosts one at a time from the two lists (each
    item's host in ``lst.host``); True when every item is placed.

    A packing is abandoned as soon as the CPU or memory still to place (``left_cpu``,
    ``left_mem``: the totals at the start) exceeds the capacity of the hosts left by more
    than ``1e-9``: it would fail anyway.
    """
    capc, capm = 1.0 + CPU_EPS, 1.0 + MEM_EPS
    left = cpu_list.n + mem_list.n
    for h in range(hosts):
        if left_cpu > (hosts - h) * capc + 1e-9 or left_mem > (hosts - h) * capm + 1e-9:
            return False
        cpu_list.new_host()
        mem_list.new_host()
        rc, rm = capc, capm
        while True:
            items, second = (cpu_list, mem_list) if rc >= rm else (mem_list, cpu_list)
            k = items.place_first_fit(rc, rm, h)
            if k < 0:
                items, k = second, second.place_first_fit(rc, rm, h)
                if k < 0:
                    break
            ck, mk = items.cpu[k], items.mem[k]
            rc -= ck
            rm -= mk
            left_cpu -= ck
            left_mem -= mk
            left -= 1
        if left == 0:
            return True
    return False


def mcb_pack(c: np.ndarray, m: np.ndarray, hosts: int, variant: int, *, fast: bool = True) -> np.ndarray | None:
    """Pack items ``(c_k, m_k)`` into ``hosts`` unit bins with MCB ``variant``.

    Parameters
    ----------
    c, m : arrays of float, shape (K,)
        CPU (already multiplied by the target yield) and memory of each item.
    hosts : int
    variant : int in 1..8
    fast : bool, default True
        Search MCB8's lists by bisection (:class:`_MaxDescList`); ``False``
        scans every list forward. Same placement either way (tested).

    Returns
    -------
    array of int, shape (K,), or None
        Host of every item, or ``None`` when some item is left over.

    Notes
    -----
    Step 3 of the module docstring (:func:`_fill`). A forward scan is ``O(K)``
    per host, ``O(K H)`` per packing in the worst case.

    Examples
    --------
    >>> import numpy as np
    >>> mcb_pack(np.array([0.6, 0.4, 0.3]), np.array([0.1, 0.05, 0.8]), 2, 8).tolist()
    [0, 1, 0]
    """
    c, m = np.asarray(c, dtype=float), np.asarray(m, dtype=float)
    cpu_list, mem_list = _lists(c, m, variant, fast)
    if not _fill(cpu_list, mem_list, hosts, float(c.sum()), float(m.sum())):
        return None
    out = np.empty(c.shape[0], dtype=np.int64)
    out[cpu_list.order] = cpu_list.host
    out[mem_list.order] = mem_list.host
    return out
