"""Compiled packings of the heterogeneous VCSched heuristics.

Items have ``D = d + 1`` dimensions (column 0 is the CPU at the probed yield, ``job_cpu * Y``; the
others the rigid needs); hosts have the capacities of their type. The plain versions these are
tested against are in ``tests/vc_hetero/plain.py``.

* :func:`mcb_fill` -- MCB in ``D`` dimensions (seed 001 §3.4, Leinberger et al.'s permutation pack
  with a window of one rank): each host type ``k`` has ``D`` lists (an item is in the list of its
  heaviest dimension *relative to type k's capacities*, ties to the lowest dimension, so the CPU
  as in the 2-D MCB), each sorted by the variant's key. Hosts are filled one at a time: take the
  first item that fits from the list of the host's freest dimension (relative free room, ties to
  the lowest dimension); when that list has none, the list of the next freest dimension, and so
  on; when no list has one, go to the next host. With ``d = 1`` and unit hosts this is the 2-D
  MCB of :mod:`heuristics.vc.mcb_pack` (tested equal).
* :func:`greedy_fill` -- GR/SG in ``D`` dimensions: the items in the given order, each to the host
  of least relative CPU load ``L_h / C_h`` (ties to the lowest index) whose free rigid room holds it.
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit

__all__ = ["mcb_fill", "greedy_fill", "FIT_EPS"]

FIT_EPS = 1e-12
"""Relative slack on a capacity when testing whether an item fits (the vector packers' tolerance)."""


@njit(cache=True)
def _fits(sizes, i, room, caps_k):
    for q in range(sizes.shape[1]):
        if sizes[i, q] > room[q] + caps_k[q] * 1e-12:
            return False
    return True


@njit(cache=True)
def _first_fitting(sizes, order, pos, q, end, placed, room, caps_k):
    """The first unplaced item of ``order[pos[q]:end]`` that fits, ``pos[q]`` moved past it. Within
    one host the room only shrinks, so an item skipped once is never looked at again there."""
    for p in range(pos[q], end):
        i = order[p]
        if not placed[i] and _fits(sizes, i, room, caps_k):
            pos[q] = p + 1
            return i
    pos[q] = end
    return -1


@njit(cache=True)
def _fill_host(sizes, order_k, bounds_k, ptr_k, caps_k, placed, where, h):
    """Fill one host of a type (``order_k``: its lists back to back, ``bounds_k``: their starts,
    ``ptr_k``: the first possibly unplaced position of each list)."""
    D = sizes.shape[1]
    room = caps_k.copy()
    rel = np.empty(D)
    count = 0
    for q in range(D):
        while ptr_k[q] < bounds_k[q + 1] and placed[order_k[ptr_k[q]]]:
            ptr_k[q] += 1
    pos = ptr_k.copy()
    while True:
        for q in range(D):
            rel[q] = room[q] / caps_k[q] if caps_k[q] > 0 else 0.0
        dims = np.argsort(-rel, kind="mergesort")
        chosen = -1
        for t in range(D):
            q = dims[t]
            chosen = _first_fitting(sizes, order_k, pos, q, bounds_k[q + 1], placed, room, caps_k)
            if chosen >= 0:
                break
        if chosen < 0:
            return count
        placed[chosen] = True
        where[chosen] = h
        count += 1
        for q in range(D):
            room[q] -= sizes[chosen, q]


@njit(cache=True)
def mcb_fill(sizes, orders, bounds, host_type, caps):
    """Host of every item (``-1`` if left out) and whether all were placed.

    ``orders`` (K, n): per host type, the item lists back to back; ``bounds`` (K, D + 1): where
    each list starts; ``host_type`` (H,): the type of each host in fill order (hosts are returned
    by position in that order); ``caps`` (K, D).
    """
    n = sizes.shape[0]
    placed = np.zeros(n, np.bool_)
    where = np.full(n, -1, np.int64)
    ptr = bounds[:, :-1].copy()
    left = n
    for h in range(host_type.shape[0]):
        if left == 0:
            break
        k = host_type[h]
        left -= _fill_host(sizes, orders[k], bounds[k], ptr[k], caps[k], placed, where, h)
    return where, left == 0


@njit(cache=True)
def greedy_fill(sizes, order, host_cpu, host_cap):
    """GR/SG (module docstring): host of every item in ``order``; ``ok`` False when one fits nowhere."""
    n, D = sizes.shape
    H = host_cpu.shape[0]
    load = np.zeros(H)
    rigid = np.zeros((H, D - 1))
    where = np.full(n, -1, np.int64)
    for t in range(n):
        i = order[t]
        best, best_rel = -1, np.inf
        for h in range(H):
            rel = load[h] / host_cpu[h]
            if rel >= best_rel:
                continue
            fits = True
            for q in range(D - 1):
                if rigid[h, q] + sizes[i, q + 1] > host_cap[h, q] * (1.0 + 1e-12) + 1e-15:
                    fits = False
                    break
            if fits:
                best, best_rel = h, rel
        if best < 0:
            return where, False
        where[i] = best
        load[best] += sizes[i, 0]
        for q in range(D - 1):
            rigid[best, q] += sizes[i, q + 1]
    return where, True
