"""MCB8's packing compiled (numba): the first fit of :func:`heuristics.vc.mcb_pack._fill`, in ``O(log K)`` per item.

MCB8 (seed 001 §3.4) keeps two lists, CPU-heavy and memory-heavy, each sorted by
decreasing *dominant* size (the larger of an item's two sizes). On a host with free
capacities ``(rc, rm)`` the first item of a list that fits has its dominant size
``<=`` the free capacity of its dimension (a suffix of the list, found by bisection)
and its other size ``<=`` the other free capacity: the first such position is found
in a min segment tree over the other sizes of the unused items. The placement is the
forward scan's (tested); :func:`heuristics.vc.mcb_pack.mcb_pack` uses this module from
:data:`heuristics.vc.mcb_pack.COMPILED_FROM` items on and imports it only then, so that
small solves do not load numba.
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["fill_max_desc"]


@njit(cache=True)
def _tree(values: np.ndarray) -> np.ndarray:
    """Min segment tree over ``values`` (leaves at ``size + i``, padding ``inf``)."""
    size = 1
    while size < values.size:
        size *= 2
    tree = np.full(2 * size, np.inf)
    tree[size:size + values.size] = values
    for i in range(size - 1, 0, -1):
        tree[i] = min(tree[2 * i], tree[2 * i + 1])
    return tree


@njit(cache=True)
def _first_at_most(tree: np.ndarray, start: int, x: float) -> int:
    """Least position ``>= start`` whose leaf is ``<= x``, or -1: climb to the first subtree to
    the right whose minimum is ``<= x``, then descend into it; ``O(log n)``."""
    size = tree.size // 2
    if start >= size:
        return -1
    i = start + size
    while tree[i] > x:
        while i & 1:  # a right child: its right neighbours are those of its parent
            i >>= 1
        if i == 0:
            return -1
        i += 1
    while i < size:
        i = 2 * i if tree[2 * i] <= x else 2 * i + 1
    return i - size


@njit(cache=True)
def _remove(tree: np.ndarray, k: int) -> None:
    """Mark position ``k`` used (its leaf ``inf``) and update the minima above it."""
    i = k + tree.size // 2
    tree[i] = np.inf
    i >>= 1
    while i:
        tree[i] = min(tree[2 * i], tree[2 * i + 1])
        i >>= 1


@njit(cache=True)
def _place_max_desc(neg_dom: np.ndarray, tree: np.ndarray, pos: int, r_dom: float, r_other: float) -> int:
    """First unused position ``>= pos`` of an MCB8 list that fits ``(r_dom, r_other)`` (its
    dominant size ``<= r_dom``: a suffix found by bisection; its other size ``<= r_other``: the
    tree), or -1."""
    k = pos + np.searchsorted(neg_dom[pos:], -r_dom)
    if k >= neg_dom.size:
        return -1
    return _first_at_most(tree, k, r_other)


@njit(cache=True)
def fill_max_desc(cpu_a, mem_a, cpu_b, mem_b, hosts, left_cpu, left_mem, cap_cpu, cap_mem):
    """:func:`heuristics.vc.mcb_pack._fill` for MCB8's two lists (CPU-heavy ``a``, memory-heavy ``b``, each by decreasing
    dominant size), compiled: the same first fit, found in ``O(log K)`` per item by bisection on the
    dominant size and a min segment tree on the other size over the unused items. Returns the
    hosts of the items of ``a`` and ``b`` and whether every item was placed."""
    host_a = np.zeros(cpu_a.size, np.int64)
    host_b = np.zeros(cpu_b.size, np.int64)
    neg_a, neg_b = -cpu_a, -mem_b
    tree_a, tree_b = _tree(mem_a), _tree(cpu_b)
    left = cpu_a.size + cpu_b.size
    for h in range(hosts):
        if left_cpu > (hosts - h) * cap_cpu + 1e-9 or left_mem > (hosts - h) * cap_mem + 1e-9:
            return host_a, host_b, False
        pos_a = pos_b = 0
        rc, rm = cap_cpu, cap_mem
        while True:
            first_a = rc >= rm
            for attempt in range(2):
                use_a = first_a if attempt == 0 else not first_a
                if use_a:
                    k = _place_max_desc(neg_a, tree_a, pos_a, rc, rm)
                else:
                    k = _place_max_desc(neg_b, tree_b, pos_b, rm, rc)
                if k >= 0:
                    break
                if use_a:
                    pos_a = cpu_a.size
                else:
                    pos_b = cpu_b.size
            if k < 0:
                break
            if use_a:
                _remove(tree_a, k)
                host_a[k], pos_a = h, k + 1
                ck, mk = cpu_a[k], mem_a[k]
            else:
                _remove(tree_b, k)
                host_b[k], pos_b = h, k + 1
                ck, mk = cpu_b[k], mem_b[k]
            rc -= ck
            rm -= mk
            left_cpu -= ck
            left_mem -= mk
            left -= 1
        if left == 0:
            return host_a, host_b, True
    return host_a, host_b, False
