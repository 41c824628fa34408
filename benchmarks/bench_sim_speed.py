"""End-to-end speed of ``vcsched grid simulate --trace T --policy P -o jobs.csv``, stage by stage, beside a plain simulator.

Run::

    python benchmarks/bench_sim_speed.py                                  # CTC-SP2, fcfs easy cbf, 5 rounds
    python benchmarks/bench_sim_speed.py --traces HPC2N-2002-2.2-cln.swf.gz --policies easy --rounds 3
    python benchmarks/bench_sim_speed.py --no-plain --json                # without the plain reference
    python benchmarks/bench_sim_speed.py --make-repeated SDSC-BLUE-2000-4.2-cln.swf.gz 10 /tmp/blue10.swf
    python benchmarks/bench_sim_speed.py --traces /tmp/blue10.swf --policies easy --rounds 1 --no-plain

For each trace and policy, each round runs, one after the other in fresh processes
(``PYTHONPATH`` = this checkout, the working folder a temporary one):

* ``cli``: ``python -m vcsched.cli grid simulate --trace T --policy P -o jobs.csv --no-progress``,
  its wall time (``time.perf_counter`` around the process) and peak memory (the child's
  ``ru_maxrss`` from ``os.wait4``);
* ``stages``: the same work by the functions the command calls, timed stage by stage
  inside the process: ``imports`` (vcsched and what the run needs), ``reading`` (the
  trace), ``building`` (job table, cluster, platform), ``simulating``, ``metrics``,
  ``writing`` (``jobs.csv``); ``startup`` is the rest of the process's wall time (the
  interpreter and its exit);
* ``plain``: the plain pure-Python simulator of ``tests/sim/plain_batch.py`` on the same
  trace (the speed reference and the oracle: its ``jobs.csv`` must be byte-identical to
  the command's, which is checked and reported).

Medians over ``--rounds`` rounds are reported, and the ratio of the command's wall time
(and CPU time: user + system, from the same ``os.wait4``) to the plain simulator's,
measured side by side in the same rounds. Wall times on a
shared machine include waiting for a core: the load average is printed with the table.

``--make-repeated TRACE COPIES OUT`` writes the large workload of the issue: the trace's
jobs ``COPIES`` times, copy ``k`` shifted by ``k * (span + 1)`` seconds (``span``: last
submit minus first submit, so each copy starts after the previous one's last submission)
and its job ids by ``k`` times the largest id; SDSC-BLUE ten times is 2.3 million jobs.

This is a standalone script rather than a harness experiment on purpose: it measures
whole processes and must not run inside a pool of workers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("startup", "imports", "reading", "building", "simulating", "metrics", "writing")

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from vcsched.scenarios.platform import read_trace
from vcsched.scenarios.grid_run import realloc_metrics
from vcsched.sim import Grid, JobTable, make_cluster
from vcsched.sim.output import write_jobs
trace, policy, out = sys.argv[1:4]
t1 = time.perf_counter()
w = read_trace(trace, {}, skip_bad_lines=False, where="--trace")
t2 = time.perf_counter()
name = trace.rsplit("/", 1)[-1]
for suffix in (".gz", ".swf", ".json"):
    name = name[: -len(suffix)] if name.endswith(suffix) else name
grid = Grid([make_cluster(name, w.machine_size, 1.0, policy)], JobTable.from_workloads([w]))
t3 = time.perf_counter()
result = grid.run()
t4 = time.perf_counter()
m = realloc_metrics(result, None, grid.clusters)
t5 = time.perf_counter()
write_jobs(result, out)
t6 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "reading": t2 - t1, "building": t3 - t2, "simulating": t4 - t3,
                  "metrics": t5 - t4, "writing": t6 - t5, "jobs": len(w)}))
"""


def _run_measured(argv: list[str], cwd: str) -> tuple[float, float, str, float]:
    """Wall time (s), peak memory (MB, the child's own ``ru_maxrss`` from ``os.wait4``), standard output and CPU
    time (user + system, s) of one fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryFile("w+") as out_f, tempfile.TemporaryFile("w+") as err_f:
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *argv], cwd=cwd, env=env, stdout=out_f, stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_f.seek(0)
        err_f.seek(0)
        if proc.returncode:
            raise SystemExit(f"{' '.join(argv)}: exit {proc.returncode}: {err_f.read().strip()[-400:]}")
        return wall, usage.ru_maxrss / 1024, out_f.read(), usage.ru_utime + usage.ru_stime


def measure(trace: Path, policy: str, rounds: int, plain: bool, work: str) -> dict:
    """Medians over ``rounds`` of the command, its stages and (with ``plain``) the plain simulator."""
    runs: dict[str, list] = {"cli": [], "cli_mb": [], "cli_cpu": [], "stages_wall": [], "stages_mb": [], "plain": [],
                             "plain_mb": [], "plain_cpu": []}
    stages: dict[str, list] = {s: [] for s in STAGES}
    identical = None
    for _ in range(rounds):
        out = os.path.join(work, "cli.csv")
        wall, mb, _, cpu = _run_measured(["-m", "vcsched.cli", "grid", "simulate", "--trace", str(trace), "--policy",
                                          policy, "-o", out, "--no-progress", "--json"], work)
        runs["cli"].append(wall)
        runs["cli_mb"].append(mb)
        runs["cli_cpu"].append(cpu)
        wall, mb, text, _ = _run_measured(["-c", _CHILD, str(trace), policy, os.path.join(work, "stages.csv")], work)
        inner = json.loads(text.strip().splitlines()[-1])
        runs["stages_wall"].append(wall)
        runs["stages_mb"].append(mb)
        for s in STAGES[1:]:
            stages[s].append(inner[s])
        stages["startup"].append(wall - sum(inner[s] for s in STAGES[1:]))
        if plain:
            ref = os.path.join(work, "plain.csv")
            wall, mb, _, cpu = _run_measured([str(ROOT / "tests" / "sim" / "plain_batch.py"), str(trace), policy, ref],
                                             work)
            runs["plain"].append(wall)
            runs["plain_mb"].append(mb)
            runs["plain_cpu"].append(cpu)
            same = Path(out).read_bytes() == Path(ref).read_bytes()
            identical = same if identical is None else identical and same
    med = {k: statistics.median(v) if v else None for k, v in runs.items()}
    row = {"trace": trace.name, "policy": policy, "jobs": inner["jobs"], "rounds": rounds,
           "cli_s": med["cli"], "cli_cpu_s": med["cli_cpu"], "cli_peak_mb": med["cli_mb"],
           **{f"{s}_s": statistics.median(stages[s]) for s in STAGES},
           "stages_peak_mb": med["stages_mb"], "plain_s": med["plain"], "plain_cpu_s": med["plain_cpu"],
           "plain_peak_mb": med["plain_mb"],
           "ratio_to_plain": (statistics.median(c / p for c, p in zip(runs["cli"], runs["plain"]))
                              if runs["plain"] else None),
           "cpu_ratio_to_plain": (statistics.median(c / p for c, p in zip(runs["cli_cpu"], runs["plain_cpu"]))
                                  if runs["plain"] else None),
           "identical_to_plain": identical}
    return row


def make_repeated(trace: Path, copies: int, out: Path) -> int:
    """Write ``copies`` shifted copies of ``trace`` as one SWF file (see the module docstring); returns the jobs."""
    import dataclasses

    import numpy as np

    from vcsched.problems.workload import read_swf, write_swf

    w = read_swf(trace)
    f = w.fields
    span = float(f[:, 1].max() - f[:, 1].min())
    top = float(np.abs(f[:, 0]).max())
    parts = []
    for k in range(copies):
        part = f.copy()
        part[:, 1] += k * (span + 1)
        part[:, 0] += k * top
        parts.append(part)
    big = dataclasses.replace(w, fields=np.concatenate(parts))
    write_swf(big, out)
    return len(big)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", nargs="+", default=["CTC-SP2-1996-3.1-cln.swf.gz"],
                    help="trace files or names in $VCSCHED_TRACES (default ../shared/data/traces)")
    ap.add_argument("--policies", nargs="+", default=["fcfs", "easy", "cbf"], choices=["fcfs", "easy", "cbf"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-plain", action="store_true", help="skip the plain simulator")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--make-repeated", nargs=3, metavar=("TRACE", "COPIES", "OUT"),
                    help="write TRACE repeated COPIES times, each copy after the previous one, to OUT, and stop")
    args = ap.parse_args(argv)
    folder = Path(os.environ.get("VCSCHED_TRACES", ROOT / ".." / "shared" / "data" / "traces"))
    if args.make_repeated:
        name, copies, out = args.make_repeated
        trace = Path(name) if Path(name).exists() else folder / name
        print(f"{out}: {make_repeated(trace, int(copies), Path(out)):,} jobs")
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in args.traces:
            trace = Path(name) if Path(name).exists() else folder / name
            for policy in args.policies:
                rows.append(measure(trace.resolve(), policy, args.rounds, not args.no_plain, work))
                if not args.json:
                    _print_row(rows[-1])
    if args.json:
        print(json.dumps({"load_average": os.getloadavg(), "rows": rows}, indent=1))
    else:
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def _print_row(r: dict) -> None:
    stages = "  ".join(f"{s} {r[f'{s}_s']:.3f}" for s in STAGES)
    plain = "" if r["plain_s"] is None else (
        f" | plain {r['plain_s']:.2f} s (CPU {r['plain_cpu_s']:.2f} s), {r['plain_peak_mb']:.0f} MB, ratio "
        f"{r['ratio_to_plain']:.2f} (CPU {r['cpu_ratio_to_plain']:.2f}), identical {r['identical_to_plain']}")
    print(f"{r['trace']} {r['policy']} ({r['jobs']:,} jobs): command {r['cli_s']:.3f} s (CPU {r['cli_cpu_s']:.3f} s), "
          f"{r['cli_peak_mb']:.0f} MB"
          f"{plain}\n    stages (s): {stages}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
