"""Job keys for the makespan (smaller first): the wide jobs first, which cannot share the machine with each other.

Read by the packings (:mod:`lowerbounds.batch.packing`) and by the starts of the forward-backward search
(:mod:`lowerbounds.batch.makespanfbi`).
"""

from __future__ import annotations

from lowerbounds.batch.instance import BatchInstance

__all__ = ["packing_keys", "PACKING_KEYS"]


def packing_keys(inst: BatchInstance) -> dict:
    """The keys of :data:`PACKING_KEYS` (smaller first), by rows of ``inst``."""
    p, q = inst.pmin, inst.width.astype(float)
    scale = float(p.max()) + 1.0 if p.size else 1.0
    return {"widest first": -q * scale - p, "largest area first": -q * p, "longest first": -p}


PACKING_KEYS = ("widest first", "largest area first", "longest first")
"""The keys of :func:`packing_keys`: ``-(width, duration)`` lexicographically, ``-width × duration``, ``-duration``
(durations: the shortest over the clusters)."""
