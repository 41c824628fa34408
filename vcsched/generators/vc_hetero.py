"""Random heterogeneous VCSched instances: ``d`` rigid resources, ``K`` host types.

Distributions (all draws from one ``numpy.random.Generator``):

* host types (``random``): CPU of type ``k`` uniform on ``[0.5, 2]``, each rigid capacity uniform on
  ``[0.5, 2]``; the ``hosts`` are split among the types by a multinomial draw with equal
  probabilities, at least one host per type;
* host types (``grid5000``): four host generations of a Grid'5000-like cluster (illustrative
  proportions, not measured data), resources ``mem``, ``disk``, ``net`` (``d`` and ``K`` are then
  3 and 4; a request with other values is refused): :data:`GRID5000`;
* jobs: CPU need uniform on ``[0.5, 1.5] * mean_cpu``; the rigid need of resource ``r`` uniform on
  ``[0, 2 mu_r]`` with ``mu_r = (1 - slack) * (total capacity of r) / jobs`` (so the rigid
  resources are filled to about ``1 - slack`` on average), then capped at the capacity of the
  largest host type (largest total capacity) so that every job fits a type.
"""

from __future__ import annotations

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.names.vc_hetero import PRESETS
from vcsched.problems.vc_hetero import HeteroInstance

__all__ = ["generate_hetero", "GRID5000", "PRESETS"]

GRID5000 = {
    "resources": ("mem", "disk", "net"),
    "cpu": (0.5, 1.0, 2.0, 4.0),
    "cap": ((0.5, 1.0, 0.5), (1.0, 1.0, 1.0), (2.0, 0.5, 1.0), (4.0, 2.0, 2.5)),
    "share": (0.2, 0.4, 0.3, 0.1),
}
"""Four host generations (oldest first): CPU, (mem, disk, net) capacities in unit-host units, and
the share of the hosts of each."""


def _random_types(rng: np.random.Generator, hosts: int, d: int, K: int) -> tuple:
    counts = rng.multinomial(hosts - K, np.full(K, 1.0 / K)) + 1
    return tuple(f"r{k}" if k else "mem" for k in range(d)), rng.uniform(0.5, 2.0, K), rng.uniform(0.5, 2.0, (K, d)), counts


def _grid5000_types(rng: np.random.Generator, hosts: int) -> tuple:
    counts = rng.multinomial(hosts - 4, np.asarray(GRID5000["share"])) + 1
    return GRID5000["resources"], np.asarray(GRID5000["cpu"]), np.asarray(GRID5000["cap"]), counts


def generate_hetero(hosts: int, jobs: int, *, resources: int = 2, host_types: int = 2, slack: float = 0.5,
                    mean_cpu: float = 0.5, preset: str = "random", rng: np.random.Generator | int | None = None
                    ) -> HeteroInstance:
    """One instance with the distributions of the module docstring."""
    rng = np.random.default_rng(rng)
    if preset not in PRESETS:
        raise InvalidInputError(f"preset {preset!r}: choose one of {', '.join(PRESETS)}")
    if host_types > hosts:
        raise InvalidInputError(f"--host-types {host_types} is more than --hosts {hosts}: every type has a host")
    if preset == "grid5000":
        if hosts < 4:
            raise InvalidInputError("preset grid5000 has 4 host types: give --hosts 4 or more")
        names, cpu, cap, counts = _grid5000_types(rng, hosts)
    else:
        names, cpu, cap, counts = _random_types(rng, hosts, resources, host_types)
    total = (cap * counts[:, None]).sum(axis=0)
    mu = (1.0 - slack) * total / jobs
    rigid = rng.uniform(0.0, 2.0, (jobs, len(names))) * mu
    largest = int(np.argmax(cap.sum(axis=1)))
    rigid = np.minimum(rigid, cap[largest])
    job_cpu = rng.uniform(0.5, 1.5, jobs) * mean_cpu
    return HeteroInstance(tuple(names), cpu.astype(float), cap.astype(float), counts.astype(np.int64),
                          job_cpu, rigid)
