"""Start-up time of the ``vcsched`` command (issue 19): repeated process starts.

Run::

    .venv/bin/python benchmarks/bench_startup.py                          # this checkout, 20 starts each
    .venv/bin/python benchmarks/bench_startup.py --repeat 40 --json
    .venv/bin/python benchmarks/bench_startup.py --tree /path/to/other/checkout   # "before" of a change
    .venv/bin/python benchmarks/bench_startup.py --importtime              # the 15 slowest imports of each command
    .venv/bin/python benchmarks/bench_startup.py --paths                   # plain vs numpy path of vc solve by size

Each command is started ``--repeat`` times as a fresh ``python -m vcsched.cli ...`` process
with ``PYTHONPATH`` set to the checkout (``--tree``, default: this one) and a temporary
working folder (``python -m`` puts the working folder first on the path), after one
unmeasured warm-up start (which fills the OS file cache and Python's bytecode cache).
Reported per command: the median, the 10th and 90th percentiles of the wall time
(``time.perf_counter`` around ``subprocess.run``) and the median CPU time of the child
(user + system, from ``resource.getrusage(RUSAGE_CHILDREN)``); the CPU time is the steadier
figure on a shared machine, where the wall time includes waiting for a core. ``python -c
pass`` is measured too: the interpreter's own floor. Compiled modules are cached in a
temporary folder, as an installed package has them (``--no-bytecode-cache`` compiles every
module at every start, as with ``PYTHONDONTWRITEBYTECODE=1``).

The commands: ``vcsched --help``, and ``vcsched vc solve f.json --method mcb8`` on a
4-host, 8-job instance written to a temporary folder.

``--paths`` measures what sets the size limit of the numpy-free path of ``vc solve
--method mcb8`` (:data:`vcsched.cli.vc.PLAIN_MAX_TASKS`), in this process, on random one-task instances
of 8 jobs per host: the median seconds (CPU time of this process, ``time.process_time``) of
the plain path (read the file, MCB8, the rows) and of the numpy path (the same file, converted
to arrays, MCB8 with the numpy average-yield phase and checker, the rows), the CPU time of
``import numpy`` in a fresh interpreter (minus ``python -c pass``), and the sort of MCB8's
two lists by Python's ``sorted`` and by numpy's ``argsort`` (with the list/array
conversions). The plain path is worth taking while its time is below the numpy path's plus
numpy's import.

This is a standalone script rather than a harness experiment on purpose: it measures
whole processes and must not run inside a pool of workers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

INSTANCE = {"hosts": 4, "jobs": [{"cpu": 0.5, "mem": 0.3}, {"cpu": 0.7, "mem": 0.2}, {"cpu": 0.4, "mem": 0.4},
                                 {"cpu": 0.6, "mem": 0.1}, {"cpu": 0.3, "mem": 0.5}, {"cpu": 0.9, "mem": 0.2},
                                 {"cpu": 0.2, "mem": 0.3}, {"cpu": 0.5, "mem": 0.6}]}


def commands(instance_path: str) -> dict[str, list[str]]:
    """Name -> argv (after the interpreter) of each measured start."""
    return {
        "python -c pass": ["-c", "pass"],
        "vcsched --help": ["-m", "vcsched.cli", "--help"],
        "vcsched vc solve --method mcb8": ["-m", "vcsched.cli", "vc", "solve", instance_path, "--method", "mcb8"],
    }


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_start(python: str, argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """Wall and CPU seconds of one process start; raises if the command fails.

    ``cwd`` must not hold a checkout: ``python -m`` puts the working folder first on the path."""
    cpu0, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run([python, *argv], env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall, cpu = time.perf_counter() - t0, _child_cpu() - cpu0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return wall, cpu


def summarize(walls: list[float], cpus: list[float]) -> dict[str, float]:
    q = statistics.quantiles(walls, n=10) if len(walls) >= 2 else [walls[0]] * 9
    return {"wall_median": statistics.median(walls), "wall_p10": q[0], "wall_p90": q[-1],
            "cpu_median": statistics.median(cpus), "starts": len(walls)}


def start_env(tree: Path, tmp: str, bytecode_cache: bool) -> dict[str, str]:
    """Environment of the measured starts: ``PYTHONPATH`` = the checkout; with ``bytecode_cache``,
    compiled modules are cached under ``tmp`` (``PYTHONPYCACHEPREFIX``: nothing is written into
    the checkout), as an installed package has them; without, every start compiles the sources."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def measure(tree: Path, python: str, repeat: int, bytecode_cache: bool = True) -> dict[str, dict[str, float]]:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = start_env(tree, tmp, bytecode_cache)
        path = os.path.join(tmp, "f.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(INSTANCE, fh)
        for name, argv in commands(path).items():
            time_start(python, argv, env, tmp)  # warm-up, not measured
            runs = [time_start(python, argv, env, tmp) for _ in range(repeat)]
            out[name] = summarize([w for w, _ in runs], [c for _, c in runs])
    return out


def slowest_imports(tree: Path, python: str, argv: list[str], cwd: str, top: int = 15) -> list[tuple[int, str]]:
    """The ``top`` largest cumulative import times (microseconds) of one start, by ``python -X importtime``
    (after a start that fills the bytecode cache)."""
    env = start_env(tree, cwd, True)
    subprocess.run([python, *argv], env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc = subprocess.run([python, "-X", "importtime", *argv], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:"):].split("|")
        if not name.startswith("  "):  # top-level imports only (no double counting)
            rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


PATH_SIZES = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000)
"""Tasks (= jobs) of the instances of ``--paths``; hosts = tasks / 8."""


def _median_cpu(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def numpy_import_cpu(python: str, tree: Path, repeat: int) -> float:
    """Median CPU seconds of ``import numpy`` in a fresh interpreter, minus ``python -c pass``."""
    with tempfile.TemporaryDirectory() as tmp:
        env = start_env(tree, tmp, True)
        cost = {}
        for name, argv in (("pass", ["-c", "pass"]), ("numpy", ["-c", "import numpy"])):
            time_start(python, argv, env, tmp)
            cost[name] = statistics.median(time_start(python, argv, env, tmp)[1] for _ in range(repeat))
    return cost["numpy"] - cost["pass"]


def measure_paths(sizes=PATH_SIZES, repeat: int = 5, seed: int = 0) -> list[dict[str, float]]:
    """Per size: CPU seconds of ``vc solve --method mcb8``'s plain and numpy paths and of the two sorts."""
    import random

    rows = []
    rnd = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            doc = {"hosts": max(1, n // 8), "jobs": [{"cpu": rnd.uniform(0.01, 1.0), "mem": rnd.uniform(0.0, 0.2)}
                                                     for _ in range(n)]}
            path = os.path.join(tmp, f"{n}.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(doc, fh)
            rows.append(measure_size(path, doc, repeat))
    return rows


def measure_size(path: str, doc: dict, repeat: int) -> dict[str, float]:
    """:func:`measure_paths` on one instance (``doc``, written at ``path``)."""
    from argparse import Namespace

    import numpy as np

    from heuristics.vc.mcb_pack import _sorted_lists, _sorted_positions
    from vcsched.cli.vc import solve_plain, solve_rows
    from vcsched.problems.vc import VCInstance
    from vcsched.problems.vc_plain import load_plain_instance

    n = len(doc["jobs"])
    args = Namespace(instance=path, method="mcb8", time_limit=None, gap=None, budget_mode="memory", seed=0)
    c = [j["cpu"] * 0.5 for j in doc["jobs"]]
    m = [j["mem"] for j in doc["jobs"]]

    def numpy_sort():
        A, B = _sorted_lists(np.asarray(c), np.asarray(m), 8)
        return A.tolist(), B.tolist()

    return {"tasks": n,
            "plain_path": _median_cpu(lambda: solve_plain("mcb8", load_plain_instance(path), max_tasks=n), repeat),
            "numpy_path": _median_cpu(lambda: solve_rows(args, VCInstance.from_plain(load_plain_instance(path))), repeat),
            "python_sort": _median_cpu(lambda: _sorted_positions(c, m, 8), repeat),
            "numpy_sort": _median_cpu(numpy_sort, repeat)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure (default: this one)")
    parser.add_argument("--python", default=sys.executable, help="interpreter (default: this one)")
    parser.add_argument("--repeat", type=int, default=20, help="measured starts per command (default 20)")
    parser.add_argument("--importtime", action="store_true", help="also list the slowest top-level imports")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="compile every module at every start (PYTHONDONTWRITEBYTECODE=1)")
    parser.add_argument("--paths", action="store_true",
                        help="only measure vc solve's plain and numpy paths and the two sorts by size (docstring)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.paths:
        sys.path.insert(0, str(args.tree.resolve()))
        rows = measure_paths()
        numpy_import = numpy_import_cpu(args.python, args.tree.resolve(), args.repeat)
        if args.json:
            print(json.dumps({"numpy_import_cpu": numpy_import, "paths": rows}, indent=1))
            return 0
        print(f"import numpy: {numpy_import:.3f} s CPU (median of {args.repeat} starts, minus python -c pass)")
        print(f"{'tasks':>7s} {'plain path':>10s} {'numpy path':>10s} {'numpy + import':>14s} "
              f"{'python sort':>11s} {'numpy sort':>10s}   (CPU seconds, medians of 5)")
        for r in rows:
            print(f"{r['tasks']:7d} {r['plain_path']:10.4f} {r['numpy_path']:10.4f} "
                  f"{r['numpy_path'] + numpy_import:14.4f} {r['python_sort']:11.5f} {r['numpy_sort']:10.5f}")
        return 0
    results = measure(args.tree.resolve(), args.python, args.repeat, bytecode_cache=not args.no_bytecode_cache)
    cache = "without" if args.no_bytecode_cache else "with"
    if args.json:
        print(json.dumps({"tree": str(args.tree), "bytecode_cache": not args.no_bytecode_cache, "results": results},
                         indent=1))
    else:
        print(f"tree {args.tree}, {args.repeat} starts per command, {cache} a bytecode cache (seconds)")
        print(f"{'command':34s} {'wall median':>11s} {'p10':>7s} {'p90':>7s} {'cpu median':>10s}")
        for name, r in results.items():
            print(f"{name:34s} {r['wall_median']:11.3f} {r['wall_p10']:7.3f} {r['wall_p90']:7.3f} {r['cpu_median']:10.3f}")
    if args.importtime:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "f.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(INSTANCE, fh)
            for name, cmd in commands(path).items():
                if cmd[0] == "-c":
                    continue
                print(f"\nslowest top-level imports of {name} (cumulative ms):")
                for micros, module in slowest_imports(args.tree.resolve(), args.python, cmd, tmp):
                    print(f"  {micros / 1000:8.1f}  {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
