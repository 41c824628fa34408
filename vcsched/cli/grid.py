"""``vcsched grid``: batch clusters on real traces (issue 10; reallocation options come later).

``vcsched grid simulate --trace T.swf.gz --procs 100 --policy fcfs|cbf|easy -o jobs.csv``
simulates one cluster; ``--platform platform.json`` simulates several::

    {"clusters": [{"name": "bordeaux", "procs": 640, "speed": 1.0, "policy": "cbf",
                   "trace": "CTC-SP2-1996-3.1-cln.swf.gz"}],
     "meta": "mct"}

A cluster's ``trace`` is optional (a cluster may only receive jobs mapped from other
sites); a bare file name is resolved with :func:`vcsched.data.trace_path`; the optional
``start``/``end``/``days`` keys cut a window of that trace. Every trace is shifted so that
its first job is submitted at time 0 when there are several (seed §3.3 builds one
scenario from several traces), unless ``--no-shift``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vcsched.cli.common import positive_float, positive_int, print_json, print_table
from vcsched.errors import InvalidInputError

__all__ = ["register", "cmd_simulate", "load_platform"]

_METRIC_COLUMNS = ["cluster", "jobs", "mean_wait", "max_wait", "mean_response", "mean_bsld", "utilization",
                   "makespan"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("grid", help="batch clusters (FCFS / CBF / EASY) on SWF traces, several sites with MCT (seed 000)")
    gsub = p.add_subparsers(dest="grid_command", metavar="ACTION")
    gsub.required = True
    s = gsub.add_parser("simulate", help="simulate one cluster (--trace) or a platform of clusters (--platform)")
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--trace", help="SWF trace (.swf or .swf.gz; a bare name is looked up in the traces folder)")
    src.add_argument("--platform", help="platform JSON: {\"clusters\": [{name, procs, speed, policy, trace}], \"meta\": \"mct\"}")
    s.add_argument("--procs", type=positive_int, default=None,
                   help="processors of the cluster (default: the trace header's MaxProcs, else MaxNodes)")
    s.add_argument("--policy", choices=["fcfs", "cbf", "easy"], default="fcfs", help="local batch policy (default fcfs)")
    s.add_argument("--speed", type=positive_float, default=1.0, help="speed of the single cluster (default 1)")
    s.add_argument("--start", type=float, default=None, help="keep jobs submitted at or after this time (trace clock, s)")
    s.add_argument("--end", type=float, default=None, help="keep jobs submitted before this time (trace clock, s)")
    s.add_argument("--days", type=positive_float, default=None, help="keep this many days from --start (or the first job)")
    s.add_argument("--no-shift", action="store_true", help="keep each trace's own clock (default: first job at time 0 "
                   "when several traces are combined)")
    s.add_argument("--skip-bad-lines", action="store_true", help="skip malformed SWF lines (count logged) instead of failing")
    s.add_argument("-o", "--output", help="per-job table: .csv (Batsim jobs.csv columns) or .parquet")
    s.add_argument("--json", action="store_true", help="print the metrics as one JSON object (overall and per cluster)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar (it is off anyway when stderr is not a TTY)")
    s.set_defaults(handler=cmd_simulate)


def _read(trace: str, spec: dict, skip_bad_lines: bool, where: str):
    from vcsched.data import trace_path
    from vcsched.problems.workload import read_swf, time_window

    w = read_swf(trace_path(trace), skip_bad_lines=skip_bad_lines)
    if w.skipped:
        print(f"vcsched: note: {trace}: skipped {w.skipped} job(s) (processors <= 0, run time < 0 or malformed line)",
              file=sys.stderr)
    if any(spec.get(k) is not None for k in ("start", "end", "days")):
        w = time_window(w, start=spec.get("start"), end=spec.get("end"), days=spec.get("days"))
    if len(w) == 0:
        raise InvalidInputError(f"{where}: no job left in {trace} after the time window; widen --start/--end/--days")
    return w


def _field(spec: dict, key: str, kind, where: str, default=None):
    value = spec.get(key, default)
    if value is None:
        return None
    try:
        if kind is int and (isinstance(value, bool) or float(value) != int(value)):
            raise ValueError
        return kind(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{where}: field {key!r} must be a {kind.__name__}, got {value!r}") from None


def load_platform(path: str, *, skip_bad_lines: bool = False, shift: bool = True):
    """Read a platform JSON file: returns ``(clusters, workloads, origins, labels, meta_name)``."""
    from vcsched.problems.workload import shift_to_origin
    from vcsched.sim import make_cluster

    try:
        with open(path, encoding="utf-8") as fh:
            spec = json.load(fh)
    except FileNotFoundError:
        raise InvalidInputError(f"{path}: no such platform file") from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); fix the platform file") from None
    if not isinstance(spec, dict) or not isinstance(spec.get("clusters"), list) or not spec["clusters"]:
        raise InvalidInputError(f"{path}: expected an object with a non-empty \"clusters\" list")
    clusters, workloads, origins, labels = [], [], [], []
    for k, c in enumerate(spec["clusters"]):
        where = f"{path}: clusters[{k}]"
        if not isinstance(c, dict):
            raise InvalidInputError(f"{where}: expected an object with name, procs, speed, policy, trace")
        name = str(c.get("name", f"cluster{k}"))
        procs = _field(c, "procs", int, where)
        if procs is None:
            raise InvalidInputError(f"{where}: field 'procs' is required (number of processors)")
        speed = _field(c, "speed", float, where, 1.0)
        clusters.append(make_cluster(name, procs, speed, str(c.get("policy", "fcfs"))))
        if c.get("trace"):
            w = _read(str(c["trace"]), c, skip_bad_lines, where)
            workloads.append(w)
            origins.append(k)
            labels.append(name)
    if not workloads:
        raise InvalidInputError(f"{path}: no cluster has a \"trace\"; give at least one")
    if shift and len(workloads) > 1:
        workloads = [shift_to_origin(w, 0.0) for w in workloads]
    meta = spec.get("meta", "mct")
    return clusters, workloads, origins, labels, meta


def _progress_bar(total: int, disable: bool):
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None, None
    bar = tqdm(total=total, unit="job", file=sys.stderr, disable=disable or not sys.stderr.isatty(),
               desc="simulating")

    def update(done: int) -> None:
        bar.update(done - bar.n)

    return bar, update


def _cluster_name(trace: str) -> str:
    name = Path(trace).name
    for suffix in (".gz", ".swf"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def cmd_simulate(args: argparse.Namespace) -> int:
    from vcsched.sim import JobTable, Grid, make_cluster
    from vcsched.sim.output import metrics, write_jobs

    if args.platform:
        clusters, workloads, origins, labels, meta_name = load_platform(
            args.platform, skip_bad_lines=args.skip_bad_lines, shift=not args.no_shift)
        jobs = JobTable.from_workloads(workloads, origins, labels if len(workloads) > 1 else None)
        meta = None
        if meta_name and str(meta_name).lower() not in ("none", "origin"):
            from heuristics.grid import make_meta

            meta = make_meta(meta_name)
    else:
        spec = {"start": args.start, "end": args.end, "days": args.days}
        w = _read(args.trace, spec, args.skip_bad_lines, "--trace")
        procs = args.procs or w.machine_size
        if procs is None:
            raise InvalidInputError(f"{args.trace}: the header gives neither MaxProcs nor MaxNodes; pass --procs")
        clusters = [make_cluster(_cluster_name(args.trace), procs, args.speed, args.policy)]
        jobs = JobTable.from_workloads([w])
        meta = None
    grid = Grid(clusters, jobs, meta=meta)
    bar, update = _progress_bar(len(jobs), args.no_progress)
    try:
        result = grid.run(progress=update)
    finally:
        if bar is not None:
            bar.close()
    m = metrics(result)
    if args.output:
        write_jobs(result, args.output)
    if args.json:
        print_json(m)
    else:
        rows = [dict(cluster="(all)", **m["overall"])] + [dict(cluster=k, **v) for k, v in m["clusters"].items()]
        print_table(rows, _METRIC_COLUMNS, floatfmt="{:.4g}")
    return 0
