"""Hosts kept sorted by load, for the improvement step's partner selection at scale.

The descent of :mod:`heuristics.vc.improve` asks, at every step, for the most
loaded host and for the least loaded hosts (a block of them, or every host
whose load is below a threshold). Answering from the load array costs
``O(H)`` per step (``argmax``, ``argpartition``, a comparison over all
hosts), so a descent of ``O(H)`` steps costs ``O(H^2)``. :class:`HostOrder`
keeps the keys ``(load, host)`` in a :class:`sortedcontainers.SortedList`:
``O(log H)`` per host whose load changes, and the queries read only the
hosts they return.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["HostOrder"]


class HostOrder:
    """The keys ``(load[g], g)`` of every host ``g`` in increasing order.

    ``load`` is the caller's array; the caller announces a change of some hosts'
    loads with :meth:`changing` before it writes them and :meth:`changed` after
    (or :meth:`rebuild` after rewriting the array).
    """

    def __init__(self, load: np.ndarray) -> None:
        self.load = load
        self.rebuild(load)

    def rebuild(self, load: np.ndarray) -> None:
        """Re-sort every host from ``load`` (``O(H log H)``)."""
        from sortedcontainers import SortedList

        self.load = load
        self._keys = SortedList(zip(load.tolist(), range(load.size)))

    def changing(self, hosts: Iterable[int]) -> None:
        """Take out the keys of ``hosts`` (distinct) before their loads change."""
        for g in hosts:
            self._keys.remove((float(self.load[g]), g))

    def changed(self, hosts: Iterable[int]) -> None:
        """Put back the keys of ``hosts`` (those given to :meth:`changing`) with their new loads."""
        for g in hosts:
            self._keys.add((float(self.load[g]), g))

    def peak(self) -> int:
        """The most loaded host; ties: the lowest index (what ``np.argmax`` gives)."""
        top = self._keys[-1][0]
        return self._keys[self._keys.bisect_left((top, -1))][1]

    def _position(self, exclude: int) -> int:
        return self._keys.bisect_left((float(self.load[exclude]), exclude))

    def load_at(self, position: int, exclude: int) -> float:
        """The load at ``position`` of the order without ``exclude`` (``inf`` past the end)."""
        raw = position + (self._position(exclude) <= position)
        return self._keys[raw][0] if raw < len(self._keys) else np.inf

    def between(self, start: int, stop: int | None, exclude: int, bound: float = np.inf) -> np.ndarray:
        """The hosts at positions ``start`` to ``stop`` (not included; ``None``: to the end) of the
        order without ``exclude``, those whose load is ``<= bound``, in increasing ``(load, host)``."""
        keys = self._keys
        count = keys.bisect_right((bound, np.inf))
        x = self._position(exclude)
        if x < count:
            count -= 1
        end = count if stop is None else min(count, stop)
        if end <= start:
            return np.empty(0, dtype=np.int64)
        lo, hi = start + (x <= start), end + (x < end)
        return np.asarray([g for _, g in keys[lo:hi] if g != exclude], dtype=np.int64)
