"""Performance of the batch simulator on the whole CTC-SP2 trace, beside AccaSim.

Run::

    .venv/bin/python benchmarks/bench_batch_ctc.py                      # FCFS, EASY, CBF; AccaSim if installed
    .venv/bin/python benchmarks/bench_batch_ctc.py --policies fcfs easy --no-accasim
    .venv/bin/python benchmarks/bench_batch_ctc.py --jobs 5000           # first 5000 jobs only (quick)

One cluster with the trace header's 338 processors. Times are ``time.perf_counter``
wall times (and ``time.process_time`` CPU times, less sensitive to a shared machine);
loading the trace is reported separately from simulating it. FCFS and EASY are run
``--repeat`` times (default 3) and the fastest run is kept (the slowest is reported
too); AccaSim runs once. CBF's first use in a process imports numba and compiles its
kernels (about 2 s the first time after installation, then loaded from numba's disk
cache in about 0.4 s): a three-job warm-up does it before the timed runs, and its time
is reported on its own line.

AccaSim (optional: ``pip install accasim``) is run on the same jobs written back as SWF
with our job model (run time capped at the requested time, a requested time of -1
replaced by the run time, processors from field 8 or 5), on one node of 338 cores (its
fastest configuration), with its FIFO and EASY dispatchers and the first-fit
allocator. Its FIFO start times are compared with ours (they agree except after
zero-length jobs, which AccaSim handles differently); its EASY does not protect the
head job's reservation, so only its speed is compared.

This is a standalone script rather than a harness experiment on purpose: it measures
one process's wall time and must not run inside a pool of workers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

TRACE = "CTC-SP2-1996-3.1-cln.swf.gz"


def _timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def warm_up_cbf() -> tuple[float, float]:
    """Simulate three jobs with CBF: numba's import and the compilation (or the load from
    its on-disk cache) of :mod:`vcsched.sim.compiled` happen here, timed apart from the runs."""
    from vcsched.problems.workload import from_arrays
    from vcsched.sim import JobTable, make_cluster, simulate_grid

    tiny = JobTable.from_workloads([from_arrays(np.array([0.0, 1.0, 2.0]), np.array([1.0, 5.0, 1.0]),
                                                np.array([10.0, 5.0, 2.0]), np.array([4, 8, 8]))])
    _, wall, cpu = _timed(lambda: simulate_grid([make_cluster("warm", 8, policy="cbf")], tiny))
    return wall, cpu


def run_ours(workload, policies, procs, repeat: int = 3):
    """Simulate each policy ``repeat`` times and keep the fastest run (as ``timeit`` does)."""
    from vcsched.sim import JobTable, make_cluster, simulate_grid

    jobs, t_table, _ = _timed(lambda: JobTable.from_workloads([workload]))
    rows, results = [], {}
    for pol in policies:
        runs = [_timed(lambda: simulate_grid([make_cluster("ctc", procs, policy=pol)], jobs))
                for _ in range(max(repeat, 1))]
        res, wall, cpu = min(runs, key=lambda r: r[1])
        results[pol] = res
        rows.append({"simulator": "vcsched", "policy": pol, "jobs": len(jobs), "wall_s": wall, "cpu_s": cpu,
                     "jobs_per_s": len(jobs) / wall, "table_s": t_table,
                     "slowest_wall_s": max(r[1] for r in runs)})
    return rows, results


def _accasim_swf(workload, path: Path) -> None:
    """Write the jobs with our job model as an SWF file AccaSim reads (integer fields)."""
    f = workload.fields.copy()
    req = workload.requested_time
    f[:, 3] = np.minimum(workload.run_time, req)
    f[:, 8] = req
    f[:, 7] = workload.processors
    f[:, 4] = workload.processors
    f[:, 6] = -1  # no memory model: drop used and requested memory
    f[:, 9] = -1
    f[:, 1] = f[:, 1] - f[0, 1]
    with open(path, "w") as fh:
        for row in f.astype(np.int64):
            fh.write(" ".join(map(str, row.tolist())) + "\n")


def run_accasim(workload, procs, out_dir: Path, dispatchers=("fifo", "easy")):
    import collections
    import collections.abc

    for _name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Callable"):
        # AccaSim 1.1.3 imports these from ``collections`` (removed in Python 3.10): alias them for it
        if not hasattr(collections, _name):
            setattr(collections, _name, getattr(collections.abc, _name))
    try:
        from accasim.base.allocator_class import FirstFit
        from accasim.base.scheduler_class import EASYBackfilling, FirstInFirstOut
        from accasim.base.simulator_class import Simulator
    except ImportError:
        return [], {}
    swf = out_dir / "ctc_model.swf"
    _accasim_swf(workload, swf)
    cfg = out_dir / "sys.config"
    cfg.write_text(json.dumps({"groups": {"g0": {"core": procs}}, "resources": {"g0": 1},
                               "equivalence": {"processor": {"core": 1}}, "start_time": 0}))
    rows, starts = [], {}
    for name in dispatchers:
        cls = FirstInFirstOut if name == "fifo" else EASYBackfilling
        res_dir = out_dir / f"accasim-{name}"
        sim = Simulator(str(swf), str(cfg), cls(FirstFit()), RESULTS_FOLDER_PATH=str(res_dir),
                        scheduling_output=name == "fifo", statistics_output=False, show_statistics=False,
                        pprint_output=False, benchmark_output=False)
        _, wall, cpu = _timed(lambda: sim.start_simulation())
        rows.append({"simulator": "accasim", "policy": name, "jobs": len(workload), "wall_s": wall, "cpu_s": cpu,
                     "jobs_per_s": len(workload) / wall, "table_s": None})
        if name == "fifo":
            starts[name] = _read_accasim_starts(res_dir)
    return rows, starts


def _read_accasim_starts(res_dir: Path) -> dict:
    """job id -> start time (seconds) from AccaSim's dispatching plan ``sched-*`` file."""
    from datetime import datetime

    out = {}
    for path in res_dir.glob("sched-*"):
        for line in path.read_text().splitlines():
            parts = line.split("__")
            if len(parts) < 3:
                continue
            job_id = parts[0].split(";")[0]
            start = parts[2].split(";")[0]
            try:
                out[int(job_id)] = float(start)
            except ValueError:
                out[int(job_id)] = datetime.strptime(start, "%Y-%m-%d %H:%M:%S").timestamp()
    return out


def compare_fifo(workload, ours, acca_starts: dict) -> dict:
    if not acca_starts:
        return {}
    ids = workload.job_id
    origin = workload.submit_time[0]
    ours_start = ours.start - origin
    theirs = np.array([acca_starts.get(int(i), np.nan) for i in ids])
    if np.isnan(theirs).all():
        return {"compared": 0}
    # AccaSim dates may be absolute: align on the first job's start
    theirs = theirs - np.nanmin(theirs) + np.nanmin(ours_start)
    eff = np.minimum(workload.run_time, workload.requested_time)
    first_zero = int(np.flatnonzero(eff == 0)[0]) if (eff == 0).any() else len(ids)
    same = np.isclose(ours_start, theirs)
    return {"compared": int((~np.isnan(theirs)).sum()), "identical_starts": int(same.sum()),
            "identical_before_first_zero_length_job": bool(same[:first_zero].all()),
            "first_zero_length_job_index": first_zero}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", nargs="+", default=["fcfs", "easy", "cbf"], choices=["fcfs", "easy", "cbf"])
    ap.add_argument("--jobs", type=int, default=None, help="only the first N jobs (default: the whole trace)")
    ap.add_argument("--no-accasim", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="runs per policy, the fastest is kept")
    ap.add_argument("--out", default="results/bench_batch_ctc",
                    help="folder for results.json / results.md (default: results/bench_batch_ctc)")
    args = ap.parse_args(argv)

    from vcsched.data import trace_path
    from vcsched.problems.workload import read_swf

    workload, load_wall, load_cpu = _timed(lambda: read_swf(trace_path(TRACE)))
    if args.jobs:
        workload = workload.select(np.arange(min(args.jobs, len(workload))))
    procs = workload.max_procs or 338
    print(f"loaded {len(workload)} jobs of {TRACE} in {load_wall:.3f} s wall ({load_cpu:.3f} s CPU); {procs} processors; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    warm = None
    if "cbf" in args.policies:
        warm = warm_up_cbf()
        print(f"CBF warm-up (numba import, compilation or cache load): {warm[0]:.3f} s wall ({warm[1]:.3f} s CPU)",
              flush=True)
    rows, ours = run_ours(workload, args.policies, procs, args.repeat)
    for r in rows:
        print(f"vcsched {r['policy']:5s} {r['wall_s']:8.3f} s wall {r['cpu_s']:8.3f} s CPU {r['jobs_per_s']:10.0f} jobs/s",
              flush=True)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    comparison = {}
    if not args.no_accasim:
        arows, astarts = run_accasim(workload, procs, out_dir)
        if not arows:
            print("accasim not installed (pip install accasim): skipped")
        for r in arows:
            print(f"accasim {r['policy']:5s} {r['wall_s']:8.3f} s wall {r['cpu_s']:8.3f} s CPU {r['jobs_per_s']:10.0f} jobs/s",
                  flush=True)
        rows += arows
        if "fcfs" in ours and astarts.get("fifo"):
            comparison = compare_fifo(workload, ours["fcfs"], astarts["fifo"])
            print("FIFO start times vs AccaSim:", comparison)
        by = {(r["simulator"], r["policy"]): r["jobs_per_s"] for r in rows}
        for mine, theirs in (("fcfs", "fifo"), ("easy", "easy")):
            if ("vcsched", mine) in by and ("accasim", theirs) in by:
                print(f"speed-up {mine} vs AccaSim {theirs}: {by[('vcsched', mine)] / by[('accasim', theirs)]:.1f}x")
    summary = {"trace": TRACE, "jobs": len(workload), "procs": procs, "load_wall_s": load_wall, "load_cpu_s": load_cpu,
               "load_average": os.getloadavg()[0], "cbf_warm_up_wall_s": warm[0] if warm else None, "rows": rows, "fifo_comparison": comparison}
    (out_dir / "results.json").write_text(json.dumps(summary, indent=1, default=float))
    lines = ["| simulator | policy | jobs | wall (s) | CPU (s) | jobs/s |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['simulator']} | {r['policy']} | {r['jobs']} | {r['wall_s']:.3f} | {r['cpu_s']:.3f} | "
              f"{r['jobs_per_s']:.0f} |" for r in rows]
    (out_dir / "results.md").write_text("\n".join(lines) + "\n")
    print(f"results in {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
