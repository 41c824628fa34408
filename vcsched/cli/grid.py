"""``vcsched grid``: batch clusters on real traces, MCT meta-scheduling and task reallocation (seed 000).

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

Reallocation (seed §2.2, :mod:`heuristics.grid.realloc`): ``--realloc no-cancel``
(Algorithm 1) or ``--realloc cancel`` (Algorithm 2) with ``--heuristic
mct|minmin|maxmin|maxgain|maxrelgain|sufferage``, every ``--period`` seconds (default
3600, first event one period after the first submission), ``--threshold`` seconds for
Algorithm 1 (default 60). Reallocation maps arrivals with MCT. ``--scenario NAME`` runs a
scenario of the paper (:mod:`vcsched.scenarios.grid`: ``jan`` .. ``jun``,
``pwa-g5k``, the extra ``pwa``) with ``--heterogeneous`` and ``--batch fcfs|cbf``
(``--days`` keeps the first days only, ``--seed`` seeds the synthetic Grid'5000 sites).
With ``--json`` the metrics include ``reallocations`` overall and per cluster (moves into
the cluster, and ``reallocations_out``); ``--compare`` also runs the reference without
reallocation and adds the §3.4 metrics under ``"vs_reference"``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vcsched.cli.common import nonneg_float, positive_float, positive_int, print_json, print_table
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
    src.add_argument("--scenario", help="a scenario of the seed paper: jan, feb, mar, apr, may, jun (platform 1), "
                     "pwa-g5k (platform 2), pwa (extra, all real traces)")
    s.add_argument("--procs", type=positive_int, default=None,
                   help="processors of the cluster (default: the trace header's MaxProcs, else MaxNodes)")
    s.add_argument("--policy", choices=["fcfs", "cbf", "easy"], default="fcfs", help="local batch policy (default fcfs)")
    s.add_argument("--speed", type=positive_float, default=1.0, help="speed of the single cluster (default 1)")
    s.add_argument("--start", type=float, default=None, help="keep jobs submitted at or after this time (trace clock, s)")
    s.add_argument("--end", type=float, default=None, help="keep jobs submitted before this time (trace clock, s)")
    s.add_argument("--days", type=positive_float, default=None, help="keep this many days from --start (or the first job)")
    s.add_argument("--no-shift", action="store_true", help="keep each trace's own clock (default: first job at time 0 "
                   "when several traces are combined)")
    s.add_argument("--heterogeneous", action="store_true", help="--scenario: speeds 1.0/1.2/1.4 (default all 1)")
    s.add_argument("--batch", choices=["fcfs", "cbf"], default="fcfs", help="--scenario: batch policy of every "
                   "cluster (default fcfs)")
    s.add_argument("--seed", type=int, default=0, help="--scenario: seed of the synthetic Grid'5000 traces (default 0)")
    s.add_argument("--realloc", choices=["none", "no-cancel", "cancel"], default="none",
                   help="reallocation: none, no-cancel (Algorithm 1) or cancel (Algorithm 2); default none")
    s.add_argument("--heuristic", choices=["mct", "minmin", "maxmin", "maxgain", "maxrelgain", "sufferage"],
                   default="mct", help="reallocation heuristic (default mct)")
    s.add_argument("--period", type=positive_float, default=3600.0, help="seconds between reallocations (default 3600)")
    s.add_argument("--threshold", type=nonneg_float, default=60.0,
                   help="Algorithm 1 moves a job only if it finishes more than this many seconds earlier (default 60)")
    s.add_argument("--compare", action="store_true", help="also run without reallocation and report the §3.4 metrics")
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


def _build(args: argparse.Namespace):
    """Clusters, job table and the name of the arrival mapping ("mct", "origin" or None)."""
    from vcsched.sim import JobTable, make_cluster

    if args.scenario:
        from vcsched.scenarios.grid import build_scenario

        clusters, jobs = build_scenario(args.scenario, heterogeneous=args.heterogeneous, batch=args.batch,
                                        days=args.days, seed=args.seed)
        return clusters, jobs, "mct"
    if args.platform:
        clusters, workloads, origins, labels, meta_name = load_platform(
            args.platform, skip_bad_lines=args.skip_bad_lines, shift=not args.no_shift)
        jobs = JobTable.from_workloads(workloads, origins, labels if len(workloads) > 1 else None)
        if not meta_name or str(meta_name).lower() in ("none", "origin"):
            meta_name = None
        return clusters, jobs, meta_name
    spec = {"start": args.start, "end": args.end, "days": args.days}
    w = _read(args.trace, spec, args.skip_bad_lines, "--trace")
    procs = args.procs or w.machine_size
    if procs is None:
        raise InvalidInputError(f"{args.trace}: the header gives neither MaxProcs nor MaxNodes; pass --procs")
    clusters = [make_cluster(_cluster_name(args.trace), procs, args.speed, args.policy)]
    return clusters, JobTable.from_workloads([w]), None


def _policy(args: argparse.Namespace, meta_name):
    if args.realloc == "none":
        if meta_name is None:
            return None
        from heuristics.grid import make_meta

        return make_meta(meta_name)
    from heuristics.grid.realloc import Reallocation

    return Reallocation(args.realloc, args.heuristic, period=args.period, threshold=args.threshold)


def _run(grid, no_progress: bool):
    bar, update = _progress_bar(len(grid.jobs), no_progress)
    try:
        return grid.run(progress=update)
    finally:
        if bar is not None:
            bar.close()


def cmd_simulate(args: argparse.Namespace) -> int:
    from vcsched.sim import Grid
    from vcsched.sim.output import metrics, write_jobs

    if not args.scenario and (args.heterogeneous or args.batch != "fcfs"):
        raise InvalidInputError("--heterogeneous and --batch apply to --scenario; for a platform file set each "
                                "cluster's \"speed\" and \"policy\"")
    clusters, jobs, meta_name = _build(args)
    if args.realloc != "none" and meta_name is None and len(clusters) > 1:
        meta_name = "mct"  # reallocation maps arrivals with MCT (seed §2.1)
    meta = _policy(args, meta_name)
    result = _run(Grid(clusters, jobs, meta=meta), args.no_progress)
    m = metrics(result)
    moves = meta.stats(clusters) if hasattr(meta, "stats") else None
    m["overall"]["reallocations"] = moves["reallocations"] if moves else 0
    for name, entry in m["clusters"].items():
        entry["reallocations"] = moves["clusters"][name]["reallocations"] if moves else 0
        entry["reallocations_out"] = moves["clusters"][name]["reallocations_out"] if moves else 0
    if moves:
        m["overall"]["realloc_events"] = moves["realloc_events"]
    if args.compare:
        from vcsched.scenarios.grid import compare_to_reference

        ref_clusters, ref_jobs, ref_meta = _build(args)
        if args.realloc != "none" and ref_meta is None and len(ref_clusters) > 1:
            ref_meta = "mct"
        ref_policy = None
        if ref_meta is not None:
            from heuristics.grid import make_meta

            ref_policy = make_meta(ref_meta)
        reference = _run(Grid(ref_clusters, ref_jobs, meta=ref_policy), args.no_progress)
        m["vs_reference"] = compare_to_reference(result, reference, reallocations=m["overall"]["reallocations"])
    if args.output:
        write_jobs(result, args.output)
    if args.json:
        print_json(m)
    else:
        rows = [dict(cluster="(all)", **m["overall"])] + [dict(cluster=k, **v) for k, v in m["clusters"].items()]
        print_table(rows, _METRIC_COLUMNS + ["reallocations"], floatfmt="{:.4g}")
        if "vs_reference" in m:
            v = m["vs_reference"]
            print(f"vs reference without reallocation: impacted {v['impacted_pct']:.2f} %, reallocations "
                  f"{v['reallocations']}, early {v['early_pct'] if v['early_pct'] is None else round(v['early_pct'], 2)} %"
                  f", relative response time {v['relative_response']}")
    return 0
