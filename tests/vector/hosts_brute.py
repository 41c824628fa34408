"""Brute force for the max-min yield on typed hosts: every job-to-host map (the plain oracle of
:func:`lowerbounds.vector.hosts.certify_hosts`)."""

from __future__ import annotations

import itertools

import numpy as np


def brute_yield(job_cpu, job_rigid, host_cpu, host_cap, host_count) -> float | None:
    """The largest ``min(1, min_h C_h / load_h)`` over the maps whose rigid needs fit; None if none."""
    kind = np.repeat(np.arange(len(host_count)), host_count)
    H, n = kind.size, len(job_cpu)
    best = None
    for hosts in itertools.product(range(H), repeat=n):
        load = np.zeros(H)
        rigid = np.zeros((H, job_rigid.shape[1]))
        for j, h in enumerate(hosts):
            load[h] += job_cpu[j]
            rigid[h] += job_rigid[j]
        if np.any(rigid > host_cap[kind] * (1 + 1e-12)):
            continue
        y = 1.0
        for h in range(H):
            if load[h] > 0:
                y = min(y, host_cpu[kind[h]] / load[h])
        best = y if best is None else max(best, y)
    return best


def tiny_instance(rng: np.random.Generator, n: int, d: int, K: int = 2, hosts: int = 3):
    """Jobs with CPU in [0.3, 1.2] and rigid needs in [0.05, 0.45]; ``K`` host types with CPU in
    [0.5, 1.5], capacities in [0.6, 1.2], ``hosts`` hosts in all (each type at least one)."""
    job_cpu = rng.uniform(0.3, 1.2, n).round(3)
    job_rigid = rng.uniform(0.05, 0.45, (n, d)).round(3)
    host_cpu = rng.uniform(0.5, 1.5, K).round(3)
    host_cap = rng.uniform(0.6, 1.2, (K, d)).round(3)
    count = np.ones(K, dtype=np.int64)
    for _ in range(hosts - K):
        count[rng.integers(K)] += 1
    return job_cpu, job_rigid, host_cpu, host_cap, count
