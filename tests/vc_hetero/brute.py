"""Plain oracles for the heterogeneous VCSched tests: brute force over every job-to-host map."""

import numpy as np

from vcsched.problems.vc_hetero import HeteroInstance


def brute_force(inst: HeteroInstance) -> tuple[float | None, np.ndarray | None]:
    """The best minimum yield over every job-to-host map and one map reaching it (None, None: no map fits)."""
    n, hosts = inst.n_jobs, inst.n_hosts
    maps = np.indices((hosts,) * n).reshape(n, -1).T  # every map, shape (H^n, n)
    best = -1.0
    cap, cpu = inst.hosts_cap, inst.hosts_cpu
    ok = np.ones(maps.shape[0], dtype=bool)
    worst = np.full(maps.shape[0], 1.0)
    for h in range(hosts):
        on = (maps == h).astype(float)
        ok &= np.all(on @ inst.job_rigid <= cap[h] + 1e-9, axis=1)
        load = on @ inst.job_cpu
        with np.errstate(divide="ignore"):
            worst = np.minimum(worst, np.where(load > 0, cpu[h] / np.where(load > 0, load, 1.0), 1.0))
    if not ok.any():
        return None, None
    i = int(np.argmax(np.where(ok, worst, best)))
    return float(worst[i]), maps[i]


def tiny_instance(rng: np.random.Generator, *, d: int, n: int) -> HeteroInstance:
    """2 host types with 1-2 hosts each (2-4 hosts), ``d`` rigid resources, ``n`` jobs."""
    counts = rng.integers(1, 3, size=2)
    return HeteroInstance(resources=tuple(f"r{k}" for k in range(d)), host_cpu=rng.choice([0.5, 1.0, 1.5], 2),
                          host_cap=rng.uniform(0.6, 1.4, size=(2, d)), host_count=counts.astype(np.int64),
                          job_cpu=rng.uniform(0.3, 1.2, size=n), job_rigid=rng.uniform(0.0, 0.45, size=(n, d)))
