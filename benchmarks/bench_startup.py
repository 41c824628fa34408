"""Start-up time of the ``vcsched`` command: repeated process starts.

Run::

    .venv/bin/python benchmarks/bench_startup.py                          # this checkout, 20 starts each
    .venv/bin/python benchmarks/bench_startup.py --repeat 40 --json
    .venv/bin/python benchmarks/bench_startup.py --tree /path/to/other/checkout   # "before" of a change
    .venv/bin/python benchmarks/bench_startup.py --importtime              # the 15 slowest imports of each command

Each command is started ``--repeat`` times as a fresh ``python -m vcsched.cli ...`` process
with ``PYTHONPATH`` set to the checkout (``--tree``, default: this one) and a temporary
working folder (``python -m`` puts the working folder first on the path), after one
unmeasured warm-up start (which fills the OS file cache and Python's bytecode cache).
Reported per command: the median, the 10th and 90th percentiles of the wall time
(``time.perf_counter`` around ``subprocess.run``) and the median CPU time of the child
(user + system, from ``resource.getrusage(RUSAGE_CHILDREN)``); the CPU time is the steadier
figure on a shared machine, where the wall time includes waiting for a core. ``python -c
pass`` and ``python -c "import numpy"`` are measured too: the interpreter's own floor, and the floor of a
command that computes with numpy. Compiled modules are cached in a
temporary folder, as an installed package has them (``--no-bytecode-cache`` compiles every
module at every start, as with ``PYTHONDONTWRITEBYTECODE=1``).

The commands: ``vcsched --help``, and ``vcsched vc solve f.json --method mcb8`` on a
4-host, 8-job instance written to a temporary folder.

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
        "python -c 'import numpy'": ["-c", "import numpy"],
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure (default: this one)")
    parser.add_argument("--python", default=sys.executable, help="interpreter (default: this one)")
    parser.add_argument("--repeat", type=int, default=20, help="measured starts per command (default 20)")
    parser.add_argument("--importtime", action="store_true", help="also list the slowest top-level imports")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="compile every module at every start (PYTHONDONTWRITEBYTECODE=1)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
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
