"""Where a compiled path starts paying: the plain and the compiled version of a rule, timed in fresh processes.

Two rules of VCSched run plain (Python and numpy) below a size and compiled (numba) above it, with
the same result (tested against each other):

* MCB8's fill, :func:`heuristics.vc.mcb_pack.mcb_pack` (compiled from
  :data:`heuristics.vc.mcb_pack.COMPILED_FROM` items);
* the least-loaded-first placement of GR and SG,
  :func:`vcsched.problems.vc_greedy.least_loaded_placement` (compiled from
  :data:`vcsched.problems.vc_greedy.COMPILED_FROM` tasks).

The compiled path costs numba's load (about half a second with a warm cache) once per process,
which a small solve never earns back. For each size, this script runs both versions in a fresh
process (``PYTHONPATH`` = this checkout), each forced by setting the module's threshold to 0 or to
infinity, and reports the CPU time (``time.process_time``) of the import of the path's modules plus
a first call, then of a second call, medians over ``--rounds``, and after how many calls in one
process the compiled path is cheaper in total::

    python benchmarks/bench_thresholds.py                 # both rules, default sizes, 3 rounds
    python benchmarks/bench_thresholds.py --rule mcb8 --sizes 1000 4000 16000 --rounds 5 --json

A first run compiles into numba's cache (``warm-up``, not reported).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

SETUP = {
    "mcb8": ("heuristics.vc.mcb_pack", "import numpy as np\n"
             "rng = np.random.default_rng(1)\n"
             "c = rng.uniform(0.05, 0.6, N) * 0.5\n"
             "m = rng.uniform(0.02, 0.4, N)\n"
             "hosts = int(max(m.sum(), c.sum()) * 1.3) + 1\n",
             "from heuristics.vc.mcb_pack import mcb_pack\n"
             "mcb_pack(c, m, hosts, 8)\n"),
    "least-loaded": ("vcsched.problems.vc_greedy", "import numpy as np\n"
                     "from vcsched.problems.vc import VCInstance\n"
                     "rng = np.random.default_rng(1)\n"
                     "J = max(N // 4, 1)  # jobs of 4 tasks: up to 400,000 tasks within the 100,000-job limit\n"
                     "inst = VCInstance.from_arrays(max(N // 100, 1), rng.uniform(0.1, 1, J), rng.uniform(1e-3, 1e-2, J),\n"
                     "                              [4] * J)\n"
                     "order = np.lexsort((-inst.task_cpu, -inst.task_mem))\n",
                     "from vcsched.problems.vc_greedy import least_loaded_placement\n"
                     "least_loaded_placement(inst, order)\n"),
}
DEFAULT_SIZES = {"mcb8": (500, 1000, 2000, 4000, 8000, 16000),
                 "least-loaded": (20_000, 50_000, 100_000, 200_000, 300_000)}


def _script(rule: str, n: int, compiled: bool) -> str:
    module, setup, call = SETUP[rule]
    threshold = 0 if compiled else 10**12
    return (f"N = {n}\n{setup}"
            f"import importlib, time\n"
            f"t0 = time.process_time()\n"
            f"mod = importlib.import_module({module!r})\n"
            f"mod.COMPILED_FROM = {threshold}\n"
            + ("import heuristics.vc.mcb_pack as mp\nmp.mcb_pack.__kwdefaults__['compiled_from'] = "
               f"{threshold}\n" if rule == "mcb8" else "")
            + f"{call}"
            f"first = time.process_time() - t0\n"
            f"t1 = time.process_time()\n"
            f"{call.splitlines()[-1]}\n"
            f"print(first, time.process_time() - t1)\n")


def _run(rule: str, n: int, compiled: bool) -> tuple[float, float]:
    """CPU seconds of (import + first call, a second call) in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _script(rule, n, compiled)], capture_output=True, text=True,
                         env=env)
    if out.returncode:
        raise SystemExit(f"{rule} at size {n}: {out.stderr.strip().splitlines()[-1]}")
    first, again = out.stdout.strip().splitlines()[-1].split()
    return float(first), float(again)


def _medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def measure(rule: str, sizes, rounds: int) -> list[dict]:
    """One row per size: median CPU seconds of the plain and the compiled path, for the first call
    (with the imports: numba's load for the compiled one) and for a call after it; ``pays_after``
    is how many calls a process must make before the compiled path is cheaper in total."""
    _run(rule, sizes[0], True)  # warm-up: compile into numba's cache
    rows = []
    for n in sizes:
        plain, plain_again = _medians([_run(rule, n, False) for _ in range(rounds)])
        comp, comp_again = _medians([_run(rule, n, True) for _ in range(rounds)])
        saving = plain_again - comp_again
        pays = 1 if comp <= plain else (int((comp - plain) / saving) + 2 if saving > 0 else None)
        rows.append({"rule": rule, "size": n, "plain_first_s": round(plain, 4), "compiled_first_s": round(comp, 4),
                     "plain_call_s": round(plain_again, 4), "compiled_call_s": round(comp_again, 4),
                     "pays_after_calls": pays})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rule", choices=sorted(SETUP), action="append", help="a rule (default: both)")
    ap.add_argument("--sizes", type=int, nargs="+", help="sizes (default: around each threshold)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for rule in args.rule or sorted(SETUP):
        rows += measure(rule, args.sizes or DEFAULT_SIZES[rule], args.rounds)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'rule':<14}{'size':>8}{'plain 1st':>11}{'compiled 1st':>14}{'plain call':>12}{'compiled call':>15}"
              f"{'pays after':>12}")
        for r in rows:
            pays = "never" if r["pays_after_calls"] is None else f"{r['pays_after_calls']} calls"
            print(f"{r['rule']:<14}{r['size']:>8}{r['plain_first_s']:>11.4f}{r['compiled_first_s']:>14.4f}"
                  f"{r['plain_call_s']:>12.4f}{r['compiled_call_s']:>15.4f}{pays:>12}")
        print(f"(load average {os.getloadavg()[0]:.1f}; CPU seconds: the first call with the imports, then one more "
              f"call; median of {args.rounds})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
