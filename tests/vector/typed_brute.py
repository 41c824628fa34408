"""Brute force for the fewest typed bins with counts (the oracle of :mod:`lowerbounds.vector.typed_bins`)."""

from __future__ import annotations

import itertools

import numpy as np


def _partitions(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        for b in range(len(part)):
            yield part[:b] + [[first] + part[b]] + part[b + 1:]
        yield [[first]] + part


def brute_fewest_bins(demand: np.ndarray, caps: np.ndarray, avail: np.ndarray) -> int | None:
    """The fewest bins (each counting one), at most ``avail[k]`` of type ``k``, holding every item (rows of
    ``demand``), by every set partition and every type of each block; None when none exists."""
    n = demand.shape[0]
    best = None
    for part in _partitions(list(range(n))):
        if best is not None and len(part) >= best:
            continue
        loads = [demand[block].sum(axis=0) for block in part]
        options = [[k for k in range(caps.shape[0]) if np.all(load <= caps[k] * (1 + 1e-12))] for load in loads]
        if any(not o for o in options):
            continue
        for choice in itertools.product(*options):
            if np.all(np.bincount(choice, minlength=caps.shape[0]) <= avail):
                best = len(part)
                break
    return best
