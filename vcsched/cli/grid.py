"""``vcsched grid``: batch clusters on real traces, MCT meta-scheduling and task reallocation (seed 000).

``vcsched grid simulate --trace T.swf.gz --procs 100 --policy fcfs|cbf|easy -o jobs.csv``
simulates one cluster; ``--platform platform.json`` simulates several::

    {"clusters": [{"name": "bordeaux", "procs": 640, "speed": 1.0, "policy": "cbf",
                   "trace": "CTC-SP2-1996-3.1-cln.swf.gz"}],
     "meta": "mct"}

A cluster's ``trace`` is optional (a cluster may only receive jobs mapped from other
sites); a bare file name is resolved with :func:`vcsched.data.trace_path`; the optional
``start``/``end``/``days`` keys cut a window of that trace. The platform file is read by
:func:`vcsched.scenarios.platform.load_platform` (fields and ranges there and in
``docs/formats.md``). A trace is SWF (``.swf``, ``.swf.gz``) or a Batsim JSON workload
(``.json``, delay profiles). Every trace is shifted so that
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
reallocation and adds the §3.4 metrics under ``"vs_reference"``. ``--cbf-replan full``
makes CBF clusters re-plan their queue from scratch as Simbatch does
(:meth:`vcsched.sim.cbf.CBFCluster.set_replan_rule`).

Outputs: ``-o jobs.csv|jobs.parquet`` (Batsim layout; ``--jobs-layout legacy`` for the old
column names, :mod:`vcsched.sim.output`), ``--gantt out.png`` (Gantt chart and utilisation
of each cluster, drawn by evalys). Output paths are checked before the simulation starts
(an existing folder, writable, not one of the input files) and written through a
temporary file renamed into place; a write that fails (``/dev/full``) exits 2.

Limits (:mod:`vcsched.problems.grid_limits`, enforced by :class:`heuristics.grid.realloc.Reallocation`):
``--period`` is at least ``MIN_PERIOD`` seconds and the submission span of the jobs may hold at most
``MAX_REALLOC_EVENTS`` periods (a smaller period is refused
before the run with the smallest one accepted).
"""

from __future__ import annotations

import argparse
import sys

from vcsched.cli import grid_bound
from vcsched.cli.common import (
    FIGURE_FORMATS,
    add_family,
    add_json_option,
    check_output_path,
    duration_text,
    number_option,
    option_given,
    print_json,
    print_table,
    progress_bar,
    remember_defaults,
    save_output,
)
from vcsched.cli.grid_options import add_workload_options, build_workload
from vcsched.cli.seed_runs import add_seed_options, seeds_of, show_over_seeds
from vcsched.errors import InvalidInputError
from vcsched.names.grid import (
    CBF_REPLAN_RULES,
    CURRENT_ECTS,
    JOBS_LAYOUTS,
    POLICIES,
    QUEUE_ORDERS,
    REALLOC_ALGORITHMS,
    REFERENCE_METRICS,
)
from vcsched.names.grid import HEURISTICS as REALLOC_HEURISTICS
from vcsched.problems.grid_limits import MIN_PERIOD

__all__ = ["register", "cmd_simulate"]


_METRIC_COLUMNS = ["cluster", "jobs", "mean_wait", "max_wait", "mean_response", "mean_bsld", "utilization",
                   "makespan"]


def register(sub: argparse._SubParsersAction) -> None:
    gsub = add_family(sub, "grid",
                      help="batch clusters (FCFS / CBF / EASY) on SWF traces, several sites with MCT (seed 000)")
    from vcsched.cli import grid_convert

    grid_convert.register(gsub)
    s = gsub.add_parser("simulate", help="simulate one cluster (--trace) or a platform of clusters (--platform)")
    add_workload_options(s)
    s.add_argument("--policy", choices=POLICIES, default="fcfs", help="local batch policy (default fcfs)")
    s.add_argument("--batch", choices=["fcfs", "cbf"], default="fcfs", help="--scenario: batch policy of every "
                   "cluster (default fcfs)")
    s.add_argument("--realloc", choices=REALLOC_ALGORITHMS, default="none",
                   help="reallocation: none, no-cancel (Algorithm 1) or cancel (Algorithm 2); default none")
    s.add_argument("--heuristic", choices=REALLOC_HEURISTICS,
                   default="mct", help="reallocation heuristic (default mct)")
    s.add_argument("--period", type=number_option(float, low=MIN_PERIOD, high=1e12), default=3600.0,
                   help=f"seconds between reallocations, >= {MIN_PERIOD:g} (default 3600)")
    s.add_argument("--threshold", type=number_option(float, low=0, high=1e12), default=60.0,
                   help="Algorithm 1 moves a job only if it finishes more than this many seconds earlier (default 60)")
    s.add_argument("--queue-order", choices=QUEUE_ORDERS, default="heuristic",
                   help="Algorithm 2: queue the resubmitted jobs in the heuristic's order (default, as in the paper) "
                   "or in their original submission order")
    s.add_argument("--cancel-threshold", action="store_true",
                   help="Algorithm 2: keep a job on its previous cluster unless another one gains more than --threshold")
    s.add_argument("--current-ect", choices=CURRENT_ECTS, default="resubmit",
                   help="Algorithm 2, MaxGain/MaxRelGain: current ECT as if resubmitted to the previous cluster now "
                   "(default) or the planned completion before the cancellation")
    s.add_argument("--cbf-replan", choices=CBF_REPLAN_RULES, default="earliest",
                   help="CBF clusters, at an early end or a cancellation: move each waiting job to an earlier slot "
                   "if there is one (earliest, default) or re-plan the queue from scratch as Simbatch does (full)")
    s.add_argument("--compare", action="store_true", help="also run without reallocation and report the §3.4 metrics")
    s.add_argument("-o", "--output", help="per-job table: .csv (Batsim jobs.csv columns) or .parquet")
    s.add_argument("--jobs-layout", choices=JOBS_LAYOUTS, default="batsim",
                   help="columns of -o: batsim (current Batsim/evalys names, default) or legacy (jobID, "
                   "requested_number_of_processors, allocated_processors, ...)")
    s.add_argument("--gantt", metavar="FILE", help="draw the Gantt chart and utilisation of each cluster with evalys "
                   "(.png, .svg or .pdf)")
    add_json_option(s, "print the metrics as one JSON object (overall and per cluster)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar (it is off anyway when stderr is not a TTY)")
    s.add_argument("--bound", action="store_true", help="also bound each metric over every schedule of the workload "
                   "and report the ratio value / bound (vcsched grid bound)")
    grid_bound.add_bound_flags(s, prefix="bound-")
    add_seed_options(s)
    s.set_defaults(handler=cmd_simulate)
    remember_defaults(s, ["bound_method", "bound_time_limit"])
    grid_bound.register_bound(gsub)


def _mapping(meta_name: str):
    from heuristics.grid import make_meta

    return make_meta(meta_name)


def _policy(args: argparse.Namespace, meta_name):
    if args.realloc == "none":
        return None if meta_name is None else _mapping(meta_name)
    from heuristics.grid.realloc import Reallocation

    return Reallocation(args.realloc, args.heuristic, period=args.period, threshold=args.threshold,
                        cancel_threshold=args.cancel_threshold, queue_order=args.queue_order,
                        current_ect=args.current_ect, arrival=meta_name or "mct")


def _run(grid, no_progress: bool):
    bar, update = progress_bar(len(grid.jobs), disable=no_progress, desc="simulating", unit="job")
    try:
        return grid.run(progress=None if getattr(bar, "hidden", False) else update)
    finally:
        bar.close()


def _input_files(args: argparse.Namespace) -> list[str]:
    """The files the command reads (the trace, the platform file and its traces), which no output may overwrite."""
    from vcsched.data import trace_path

    names = [args.trace] if args.trace else []
    files = [args.platform] if args.platform else []
    if args.platform:
        from vcsched.problems.jsonfile import load_json

        try:
            spec = load_json(args.platform, what="platform file")
            names += [c["trace"] for c in spec["clusters"] if isinstance(c, dict) and isinstance(c.get("trace"), str)]
        except (InvalidInputError, KeyError, TypeError):
            pass  # reported when the platform is read
    for name in names:
        try:
            files.append(str(trace_path(name)))
        except InvalidInputError:
            pass  # reported when the trace is read
    return files


def _simulate(args: argparse.Namespace, *, progress: bool = True):
    """One run of ``grid simulate`` (and its reference with ``--compare``, its bounds with ``--bound``):
    ``(result, metrics)``."""
    from vcsched.scenarios.grid_run import simulate_with_reference

    built: list = []

    def build(first: bool):
        clusters, jobs, meta_name = build_workload(args, notes=first and progress)
        _set_cbf_replan(args, clusters)
        if first:
            built.append((clusters, jobs))
        return clusters, jobs, meta_name

    no_progress = args.no_progress or not progress
    result, m = simulate_with_reference(build, lambda name: _policy(args, name), _mapping, realloc=args.realloc,
                                        compare=args.compare, run=lambda grid: _run(grid, no_progress))
    if args.bound:
        clusters, jobs = built[0]
        m["bounds"] = grid_bound.bound_report(m, jobs, clusters, method=args.bound_method,
                                              time_limit=args.bound_time_limit, result=result)
    return result, m


DURATION_COLUMNS = ("mean_wait", "max_wait", "mean_response", "makespan")
"""Columns of the text table shown as durations with units (:func:`vcsched.cli.common.duration_text`)."""

SEED_METRICS = ("mean_wait", "max_wait", "mean_response", "mean_bsld", "max_stretch", "utilization", "makespan")
"""The metrics ``grid simulate --seeds`` summarizes (overall, over every cluster)."""


def _simulate_seeds(args: argparse.Namespace, seeds: list[int]) -> int:
    """``grid simulate --seeds``: the scenario's synthetic sites drawn again per seed; every metric's mean and
    interval (and, with ``--compare``, the comparison with the reference; with ``--bound``, the ratios)."""
    if args.output or args.gantt:
        raise InvalidInputError("-o and --gantt write one run; drop them with --seeds / --repeat")
    if not args.scenario:
        raise InvalidInputError("--seeds / --repeat: only --scenario draws its workloads (the synthetic Grid'5000 "
                                "sites) from the seed; a trace or a platform file gives the same run for every seed")
    metrics = list(SEED_METRICS) + (["impacted_pct", "relative_response", "early_pct"] if args.compare else []) \
        + ([f"{k}_ratio_to_bound" for k in REFERENCE_METRICS] if args.bound else [])

    def run_one(seed: int) -> list[dict]:
        _, m = _simulate(argparse.Namespace(**{**vars(args), "seed": seed}), progress=False)
        row = {"run": _run_label(args), **m["overall"], **m.get("vs_reference", {})}
        for name, entry in m.get("bounds", {}).items():
            row[f"{name}_ratio_to_bound"] = entry["ratio_to_bound"]
        return [row]

    doc = show_over_seeds(args, run_one, seeds, "run", metrics, desc="grid simulate")
    if not args.json:
        if all((r[m].get("std") or 0) == 0 for r in doc["results"] for m in SEED_METRICS):
            print(f"note: every seed gave the same run: scenario {args.scenario} draws nothing from the seed")
    return 0


def _run_label(args: argparse.Namespace) -> str:
    return args.realloc if args.realloc == "none" else f"{args.realloc}:{args.heuristic}"


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse bad output paths before any work (:func:`vcsched.cli.common.check_output_path`)."""
    inputs = _input_files(args)
    if args.output:
        check_output_path(args.output, option="-o", inputs=inputs, formats=(".csv", ".parquet", ".pq"))  # .pq: docs/formats.md
    if args.gantt:
        check_output_path(args.gantt, option="--gantt", inputs=inputs, formats=FIGURE_FORMATS, devices=False,
                          others=[("-o", args.output)])


def _set_cbf_replan(args: argparse.Namespace, clusters) -> None:
    """``--cbf-replan``: the re-plan rule of every CBF cluster (an error when there is none and the rule is not the default)."""
    cbf = [c for c in clusters if c.policy == "cbf"]
    if args.cbf_replan != "earliest" and not cbf:
        raise InvalidInputError("--cbf-replan applies to CBF clusters; use --policy cbf, --batch cbf or a platform "
                                "cluster with \"policy\": \"cbf\"")
    for c in cbf:
        c.set_replan_rule(args.cbf_replan)


def cmd_simulate(args: argparse.Namespace) -> int:
    from vcsched.cli.startup import modules_loaded, one_blas_thread

    one_blas_thread()  # the simulators do no linear algebra
    with modules_loaded():
        from vcsched.scenarios.grid_build import build  # noqa: F401 - loaded here, used by build_workload
        from vcsched.scenarios.grid_run import simulate_with_reference  # noqa: F401 - used by _simulate
        from vcsched.sim.output import write_jobs

    if not args.scenario and (args.heterogeneous or args.batch != "fcfs"):
        raise InvalidInputError("--heterogeneous and --batch apply to --scenario; for a platform file set each "
                                "cluster's \"speed\" and \"policy\"")
    if not args.scenario and (args.max_load is not None or args.overestimate != 10.0):
        raise InvalidInputError("--max-load and --overestimate shape the synthetic workloads of --scenario; "
                                "they do not apply to --trace or --platform")
    if args.realloc != "cancel" and (args.queue_order != "heuristic" or args.cancel_threshold
                                     or args.current_ect != "resubmit"):
        raise InvalidInputError("--queue-order, --cancel-threshold and --current-ect apply to --realloc cancel "
                                "(Algorithm 2)")
    for dest in ("bound_method", "bound_time_limit"):
        if not args.bound and option_given(args, dest):
            flag = "--" + dest.replace("_", "-")
            raise InvalidInputError(f"{flag} applies with --bound (it chooses how the bounds are computed); add "
                                    f"--bound or drop {flag}")
    if args.jobs_layout != "batsim" and not args.output:
        raise InvalidInputError("--jobs-layout applies to the table written with -o; give -o jobs.csv")
    _check_outputs(args)
    seeds = seeds_of(args)
    if seeds is not None:
        return _simulate_seeds(args, seeds)
    result, m = _simulate(args)
    if args.output:
        save_output(args.output, lambda tmp: write_jobs(result, tmp, layout=args.jobs_layout), option="-o",
                    keep_suffix=True)
    if args.gantt:
        from vcsched.sim.output import draw_gantt

        ends: list = []
        save_output(args.gantt, lambda tmp: ends.append(draw_gantt(result, tmp)), option="--gantt", keep_suffix=True)
        if ends and ends[0] is not None:
            from vcsched.sim.output import GANTT_MAX_JOBS

            print(f"vcsched: note: --gantt draws the first {GANTT_MAX_JOBS:,} jobs (started before t = {ends[0]:.0f} s): "
                  "a whole trace is unreadable; choose the window with --days", file=sys.stderr)
    if args.json:
        print_json(m)
    else:
        rows = [dict(cluster="(all)", **m["overall"])] + [dict(cluster=k, **v) for k, v in m["clusters"].items()]
        for row in rows:  # durations with units (the JSON keeps seconds)
            for key in DURATION_COLUMNS:
                row[key] = duration_text(row.get(key))
        print_table(rows, _METRIC_COLUMNS + ["reallocations"], floatfmt="{:.4g}")
        if "vs_reference" in m:
            v = m["vs_reference"]
            print(f"vs reference without reallocation: impacted {v['impacted_pct']:.2f} %, reallocations "
                  f"{v['reallocations']}, early {v['early_pct'] if v['early_pct'] is None else round(v['early_pct'], 2)} %"
                  f", relative response time "
                  f"{'-' if v['relative_response'] is None else format(v['relative_response'], '.4f')}")
        if "bounds" in m:
            grid_bound.print_bound_table(m["bounds"])
    return 0
