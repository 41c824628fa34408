"""Time of MCB8 (seed 001 §3.4) on the README's 64-host, 500-job instance, in this process.

Run::

    .venv/bin/python benchmarks/bench_vc_mcb.py                      # this checkout
    .venv/bin/python benchmarks/bench_vc_mcb.py --tree /path/to/other/checkout --repeat 100

The instance is ``generate_vc_instance(64, 500, 0.5, 0.25, 0.25, rng=1)``; ``mcb8`` is called
through ``heuristics.vc.REGISTRY`` once unmeasured, then ``--repeat`` times. Reported: the
medians of ``Result.seconds`` (total), of ``extra["seconds_first_phase"]`` (without the
average-yield phase, what the paper reports) and of the CPU time of this process around the
call (``time.process_time``: the steadier figure on a shared machine), in milliseconds, and
the minimum yield found (the same before and after a change that keeps the behaviour).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(repeat: int) -> dict[str, float]:
    from heuristics.vc import REGISTRY
    from vcsched.generators.vc import generate_vc_instance

    inst = generate_vc_instance(64, 500, 0.5, 0.25, 0.25, rng=1)
    mcb8 = REGISTRY.get("mcb8")
    result = mcb8(inst)
    total, first, cpu = [], [], []
    for _ in range(repeat):
        c0 = time.process_time()
        result = mcb8(inst)
        cpu.append(time.process_time() - c0)
        total.append(result.seconds)
        first.append(result.extra["seconds_first_phase"])
    return {"total_ms": 1e3 * statistics.median(total), "first_phase_ms": 1e3 * statistics.median(first),
            "cpu_ms": 1e3 * statistics.median(cpu), "min_yield": result.objective, "calls": repeat}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure (default: this one)")
    parser.add_argument("--repeat", type=int, default=60, help="measured calls (default 60)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.tree.resolve()))
    print(json.dumps({"tree": str(args.tree), **measure(args.repeat)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
