"""Scale run of :func:`lowerbounds.vector.certify_hosts`: typed hosts, ``d`` rigid resources, max-min yield.

``python -m benchmarks.bench_hosts_certify [--jobs 10000] [--hosts 1000] [--types 4] [--d 3] [--seed 37]
[--rigid-max 0.12] [--time-limit 50]`` generates one instance (:func:`generate_hosts`) and prints one JSON line: sizes,
lower, upper, status, seconds, methods. Measure CPU and memory with ``/usr/bin/time -v``.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

__all__ = ["generate_hosts", "main"]


def generate_hosts(n_jobs: int, n_hosts: int, n_types: int, d: int, seed: int, rigid_max: float = 0.12):
    """Seeded instance: host types are generations with CPU ``0.5, 1, 1.5, 2, ...`` (type ``k``:
    ``0.5 (k + 1)``) and rigid capacities equal to their CPU times a factor in [0.8, 1.2] per
    resource; host counts a uniform split of ``n_hosts`` (each type at least one); jobs' CPU needs
    uniform in [0.02, 0.23] and rigid needs uniform in [0.01, rigid_max] (default 0.12: about 10 jobs per host at
    1,000 hosts and 10,000 jobs: the CPU oversubscribed, the rigid resources about 2/3 full)."""
    rng = np.random.default_rng(seed)
    host_cpu = 0.5 * (np.arange(n_types) + 1.0)
    host_cap = host_cpu[:, None] * rng.uniform(0.8, 1.2, (n_types, d))
    split = rng.multinomial(n_hosts - n_types, np.full(n_types, 1.0 / n_types)) + 1
    job_cpu = rng.uniform(0.02, 0.23, n_jobs)
    job_rigid = rng.uniform(0.01, rigid_max, (n_jobs, d))
    return job_cpu, job_rigid, host_cpu, host_cap, split.astype(np.int64)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=10_000)
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--types", type=int, default=4)
    ap.add_argument("--d", type=int, default=3)
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--rigid-max", type=float, default=0.12)
    ap.add_argument("--time-limit", type=float, default=50.0)
    a = ap.parse_args(argv)
    from lowerbounds.vector import certify_hosts

    inst = generate_hosts(a.jobs, a.hosts, a.types, a.d, a.seed, a.rigid_max)
    r = certify_hosts(*inst, time_limit=a.time_limit, seed=a.seed)
    row = {"jobs": a.jobs, "hosts": a.hosts, "types": a.types, "d": a.d, "seed": a.seed, "rigid_max": a.rigid_max, "lower": r.lower,
           "upper": r.upper, "status": r.status, "seconds": round(r.seconds, 2), "lower_method": r.methods["lower"],
           "upper_method": r.methods["upper"], "tests": [(round(y, 6), o) for y, o in r.methods["tests"]]}
    print(json.dumps(row))
    return row


if __name__ == "__main__":
    main()
