"""Time of MCB-d (heterogeneous VCSched) at scale: 1,000 hosts of 4 types, d = 3, 10,000 jobs by default.

Run::

    python benchmarks/bench_vc_hetero_mcb.py [--repeat 5] [--method mcb8]

The instance is ``generate_hetero(1000, 10000, resources=3, host_types=4, slack=0.3, rng=1)``
(1,000 hosts of 4 types, d = 3, 10,000 jobs). The method is called once unmeasured (numba's
load), then ``--repeat`` times; printed as JSON: the median wall (``Result.seconds``) and CPU
(``time.process_time``) seconds, the probes of the yield search and the minimum yield.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(method: str, repeat: int) -> dict:
    from heuristics.vc_hetero.methods import solve
    from vcsched.generators.vc_hetero import generate_hetero

    inst = generate_hetero(1000, 10000, resources=3, host_types=4, slack=0.3, rng=1)
    result = solve(inst, method)
    wall, cpu = [], []
    for _ in range(repeat):
        c0 = time.process_time()
        result = solve(inst, method)
        cpu.append(time.process_time() - c0)
        wall.append(result.seconds)
    return {"method": method, "status": str(result.status), "min_yield": result.objective,
            "probes": result.extra.get("probes"), "median_wall_s": statistics.median(wall),
            "median_cpu_s": statistics.median(cpu)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--method", default="mcb8")
    args = p.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    print(json.dumps(measure(args.method, args.repeat)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
