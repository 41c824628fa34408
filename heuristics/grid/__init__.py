"""Grid meta-scheduling policies for the batch-cluster engine (:mod:`vcsched.sim.platform`).

The engine never imports this package: a policy object is passed to
:func:`vcsched.sim.simulate_grid` (or :class:`vcsched.sim.Grid`) as ``meta``. This module holds
the mapping used at arrival (seed §2.1: "we consider that the meta-scheduler uses a MCT
policy"); the reallocation algorithms 1 and 2 and the offline heuristics (MinMin,
MaxMin, MaxGain, MaxRelGain, Sufferage, §2.2) are in :mod:`heuristics.grid.realloc` and
plug in through ``start(grid)`` with :meth:`vcsched.sim.Grid.every`.
"""

from __future__ import annotations

from vcsched.names import grid as names
from vcsched.registry import Registry

__all__ = ["MCT", "OriginMapping", "META_SCHEDULERS", "make_meta", "mct_cluster", "first_min"]

META_SCHEDULERS: Registry = Registry("grid meta-scheduler", names.META_SCHEDULERS)


def first_min(values) -> int:
    """``numpy.argmin`` of a short sequence of floats read one at a time: the first minimum, or the first NaN when
    there is one (a handful of clusters: cheaper than an array and its argmin)."""
    best, low = 0, values[0]
    if low != low:
        return 0
    for k in range(1, len(values)):
        e = values[k]
        if e != e:
            return k
        if e < low:
            best, low = k, e
    return best


def mct_cluster(grid, job: int) -> int:
    """The MCT rule (seed §2.1): the cluster of minimum estimated completion time for ``job``
    (:meth:`vcsched.sim.Grid.ect`, the entries of :meth:`~vcsched.sim.Grid.ect_all`), ties to the first cluster in
    platform order: :func:`first_min`, ``numpy.argmin`` of ``ect_all`` without the array."""
    return first_min([grid.ect(job, k) for k in range(len(grid.clusters))])


@META_SCHEDULERS.register("mct")
class MCT:
    """Minimum Completion Time mapping (seed §2.1, §2.2.2 "MCT").

    Each arriving job goes to the cluster with the minimum estimated completion time
    (:meth:`vcsched.sim.Grid.ect_all`: planned with requested times, scaled by the
    cluster's speed). Ties go to the first cluster in platform order (``numpy.argmin``).
    """

    name = "mct"

    def map(self, grid, job: int) -> int:
        return mct_cluster(grid, job)


@META_SCHEDULERS.register("origin")
class OriginMapping:
    """Submit each job to the cluster of its own trace (no meta-scheduling)."""

    name = "origin"

    def map(self, grid, job: int) -> int:
        return int(grid.jobs.origin[job])


def make_meta(name: str):
    """An instance of the meta-scheduler registered as ``name`` (``mct``, ``origin``)."""
    return META_SCHEDULERS.get(name)()

