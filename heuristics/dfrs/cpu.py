"""CPU sharing after placement (seed 001 §3.5, §5.1): the average-yield phase, or max-min fairness.

A placement is, per running job, the host of each of its tasks; every task needs ``1 / cores`` of
its host's CPU at yield 1, so a host's constraint is ``sum over its tasks of y_job <= cores``.

``avgyield`` (the default, :func:`average_yield`)
    every job first gets the placement's best minimum yield ``Y = min(1, cores / max_h n_h)``
    (``n_h`` tasks on host ``h``); then the spare CPU goes to one job at a time, each raised as far
    as all its hosts allow (``min(1 - Y, min_h spare_h / n_jh)``, ``n_jh`` its tasks on ``h``). The
    order: fewest tasks first (the least CPU per unit of yield; for one-task jobs all orders give
    the paper's optimum, since every task has the same need), ties by arrival, unless the caller
    gives another (``mcb8-per-stretch``: highest stretch first). For parallel jobs this greedy is
    our choice instead of §5.1's LP (:func:`vcsched.problems.vc.maximize_average_yield`): it runs at
    every decision and keeps the same minimum yield; the LP may give a larger sum of yields.
``maxmin`` (:func:`max_min`)
    progressive filling: all unfrozen jobs rise together; when a host saturates, the jobs with a
    task on it freeze (or at yield 1).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from vcsched.errors import UnknownNameError
from vcsched.names.dfrs import CPU_TARGETS

__all__ = ["CPU_TARGETS", "share_cpu", "average_yield", "max_min"]


def _loads(placement: dict[int, tuple[int, ...]], hosts: int) -> np.ndarray:
    load = [0] * hosts
    for placed in placement.values():
        for h in placed:
            load[h] += 1
    return np.array(load, dtype=np.int64)


def average_yield(placement: dict[int, tuple[int, ...]], hosts: int, cores: int,
                  order: list[int] | None = None) -> dict[int, float]:
    """The ``avgyield`` rule of the module docstring; ``order`` (jobs) overrides fewest-tasks-first."""
    if not placement:
        return {}
    load = _loads(placement, hosts)
    y0 = min(1.0, cores / int(load.max()))
    spare = (cores - load * y0).astype(float).tolist()
    yields = dict.fromkeys(placement, y0)
    if y0 >= 1.0:
        return yields
    jobs = order if order is not None else sorted(placement, key=lambda j: len(placement[j]))
    for j in jobs:
        placed = placement[j]
        counts = {placed[0]: 1} if len(placed) == 1 else Counter(placed)
        delta = min(1.0 - y0, min(spare[h] / c for h, c in counts.items()))
        if delta <= 1e-12:
            continue
        yields[j] = y0 + delta
        for h, c in counts.items():
            spare[h] = max(spare[h] - c * delta, 0.0)
    return yields


def max_min(placement: dict[int, tuple[int, ...]], hosts: int, cores: int) -> dict[int, float]:
    """The ``maxmin`` rule of the module docstring (progressive filling)."""
    if not placement:
        return {}
    jobs = list(placement)
    counts = [Counter(placement[j]) for j in jobs]
    frozen_load = np.zeros(hosts)
    yields: dict[int, float] = {}
    left = set(range(len(jobs)))
    while left:
        n = np.zeros(hosts)
        for k in left:
            for h, c in counts[k].items():
                n[h] += c
        used = n > 0
        level = np.full(hosts, np.inf)
        level[used] = (cores - frozen_load[used]) / n[used]
        y = min(1.0, float(level.min()))
        if y >= 1.0:
            for k in left:
                yields[jobs[k]] = 1.0
            break
        tight = level <= y * (1 + 1e-12)
        freeze = [k for k in left if any(tight[h] for h in counts[k])]
        for k in freeze:
            yields[jobs[k]] = max(y, 0.0)
            for h, c in counts[k].items():
                frozen_load[h] += c * y
            left.discard(k)
    return yields


def share_cpu(placement: dict[int, tuple[int, ...]], hosts: int, cores: int, target: str = "avgyield",
              order: list[int] | None = None) -> dict[int, float]:
    """Yields of the placed jobs by ``target`` (``avgyield`` or ``maxmin``)."""
    if target == "avgyield":
        return average_yield(placement, hosts, cores, order)
    if target == "maxmin":
        return max_min(placement, hosts, cores)
    raise UnknownNameError(f"unknown CPU target {target!r}; choose one of {CPU_TARGETS}")
