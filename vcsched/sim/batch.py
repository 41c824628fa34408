"""The batch policies by name: :data:`BATCH_POLICIES` and :func:`make_cluster`.

The base cluster is :mod:`vcsched.sim.cluster` (the rules of an instant are in its
notes); the policies are leaf modules: :mod:`vcsched.sim.fcfs` (first come, first
served), :mod:`vcsched.sim.easy` (EASY backfilling), both on the queue and estimate plan
of :mod:`vcsched.sim.queued`, and :mod:`vcsched.sim.cbf` (conservative backfilling).
"""

from __future__ import annotations

from vcsched.errors import InvalidInputError
from vcsched.sim.cbf import CBFCluster
from vcsched.sim.cluster import Cluster
from vcsched.sim.easy import EasyCluster
from vcsched.sim.fcfs import FCFSCluster

__all__ = ["BATCH_POLICIES", "make_cluster"]

BATCH_POLICIES = {"fcfs": FCFSCluster, "cbf": CBFCluster, "easy": EasyCluster}
"""Cluster class of each local batch policy."""


def make_cluster(name: str, procs: int, speed: float = 1.0, policy: str = "fcfs") -> Cluster:
    """A cluster with the local batch policy ``policy`` (``fcfs``, ``cbf`` or ``easy``)."""
    key = str(policy).lower()
    if key not in BATCH_POLICIES:
        raise InvalidInputError(f"cluster {name!r}: unknown batch policy {policy!r}; choose one of: "
                                f"{', '.join(BATCH_POLICIES)}")
    return BATCH_POLICIES[key](name, procs, speed)
