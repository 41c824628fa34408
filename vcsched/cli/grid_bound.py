"""``vcsched grid bound`` and ``grid simulate --bound``: the interval that contains the clairvoyant optimum.

``vcsched grid bound`` takes the workload and platform options of ``grid simulate``
(``--trace F --procs P``, ``--platform F``, ``--scenario S [--heterogeneous]``, ``--days D``
...), and ``--method quick|lp|exact|best`` (default ``best``) within ``--time-limit``
seconds (default 60) for both sides (:func:`lowerbounds.batch.batch_references`). It prints one row per
metric (lower, upper, upper/lower, status, both methods), or with
``--json`` ``{"jobs": n, "bounds": {"makespan": {...}, "mean_response": {...},
"mean_bounded_slowdown": {...}, "max_stretch": {...}}}`` (each entry ``value``,
``method``, ``seconds``, ``detail`` of the lower bound, and ``lower`` and ``upper`` (each ``value``,
``method``, ``seconds``) and ``status``, ``optimal`` or ``bracketed``: the contract of
:mod:`lowerbounds.reference`); with ``--method exact`` also ``"exact"``
(``status``, ``mean_response``, ``makespan``, ``bound``, ``gap``, the makespan's own
status, bound and gap, and the ``schedule`` when optimal: per job its row ``job`` and ``job_id``,
``cluster`` (index) and ``cluster_name``, ``start`` and ``finish``). The bounds are computed by
:func:`lowerbounds.batch.batch_bounds` on the job table and clusters that
``grid simulate`` would simulate.

``--window busiest`` keeps the ``--days``-long window (default 7) of the ``--trace`` with the largest offered
work (:func:`busiest_start`: ``sum q p`` of the jobs submitted in it) and adds ``"window": {"start", "days"}``
to the JSON (``start`` on the trace's clock).

``--schedule DIR`` writes the best schedule found for each metric as ``DIR/<metric>.csv`` (the columns of
the simulator's ``jobs.csv``, :func:`vcsched.sim.output.write_jobs`); the folder is created if needed and
refused before any work when it cannot be written. ``--search-seed`` and ``--iterations`` set the schedule
search. The search is sized by a work budget proportional to ``--time-limit``
(:func:`lowerbounds.batch.bracket.search_budget`), a count and not a clock, so a second run with the same seed
finds the same schedules; the wall clock is only a safety stop (``stopped: time_limit`` in the JSON).

An interrupt (Ctrl-C) on either side prints what was proven and found before it (``"interrupted": true`` in the
JSON; a metric whose bound was not reached has lower method ``interrupted``), one line on standard error, and exits
130 without writing a ``--schedule`` file.

``grid simulate ... --bound`` adds ``"bounds"`` to the JSON: per metric, the simulated
``value``, the ``bound`` (the lower end), ``ratio_to_bound`` (value / bound), ``method`` and ``seconds``,
``upper`` (the best clairvoyant schedule's value), ``ratio_to_opt`` (``[value / upper, value / bound]``, the
interval of the policy's ratio to the optimum) and ``status``; the text output gets a table with the columns
``bound``, ``upper``, ``ratio_to_bound`` and the two ends of ``ratio_to_opt`` beside each metric's value.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from vcsched.cli.common import add_json_option, nonneg_int, number_option, print_json, print_table
from vcsched.cli.grid_options import add_workload_options, build_workload
from vcsched.errors import InvalidInputError
from vcsched.names.references import BOUND_METHODS

__all__ = ["register_bound", "add_bound_flags", "cmd_bound", "bound_report", "print_bound_table",
           "BOUND_METHODS"]




def add_bound_flags(s: argparse.ArgumentParser, *, prefix: str = "") -> None:
    """``--method``/``--time-limit`` (``grid bound``) or ``--bound-method``/``--bound-time-limit`` (simulate)."""
    s.add_argument(f"--{prefix}method", choices=list(BOUND_METHODS), default="best",
                   help="quick (O(n log n)), lp (LP windows), exact (MILP, small workloads), best (default: exact "
                   "when the workload is small enough, else lp)")
    s.add_argument(f"--{prefix}time-limit", type=number_option(float, low=0, low_open=True, high=1e6), default=60.0,
                   help="seconds for both sides: the lower bounds (LP and MILP parts) and the best clairvoyant "
                   "schedules (default 60)")


def register_bound(gsub) -> None:
    """Add ``grid bound`` to the ``grid`` sub-commands."""
    s = gsub.add_parser("bound", help="lower bounds (and exact optima of small windows) on makespan, mean response "
                        "time, mean bounded slowdown and max stretch of any schedule of the workload")
    add_workload_options(s)
    add_bound_flags(s)
    add_json_option(s, "print one JSON object")
    s.add_argument("--schedule", metavar="DIR", default=None,
                   help="write each metric's best clairvoyant schedule as DIR/<metric>.csv (jobs.csv columns)")
    s.add_argument("--search-seed", type=nonneg_int, default=0, help="seed of the schedule search (default 0)")
    s.add_argument("--window", choices=["busiest"], default=None,
                   help="busiest: keep the --days (default 7) window of the --trace with the largest offered work "
                   "(sum of processors x run time of the jobs submitted in it); sets --start")
    s.add_argument("--iterations", type=number_option(int, low=0, high=10**7), default=None,
                   help="cap on the schedules per metric in the search's improvement step (default: none, the "
                   "search is sized by a work budget proportional to --time-limit; the list moves get 5 times as "
                   "many)")
    s.set_defaults(handler=cmd_bound, policy="fcfs", batch="fcfs")


def busiest_start(workload, days: float, procs: int) -> float:
    """Submission time (trace clock) that starts the ``days``-long window of largest offered work
    ``sum q_j p_j`` over the jobs submitted in ``[start, start + days)`` that fit on ``procs`` processors, ``p_j``
    the run time the simulator uses (capped at the requested time); the earliest such start on ties."""
    import numpy as np

    fit = np.asarray(workload.processors) <= procs
    r = np.asarray(workload.submit_time, dtype=float)[fit]
    work = (np.asarray(workload.processors, dtype=float) * np.asarray(workload.effective_run_time, dtype=float))[fit]
    order = np.argsort(r, kind="stable")
    r, work = r[order], work[order]
    cum = np.concatenate(([0.0], np.cumsum(work)))
    end = np.searchsorted(r, r + days * 86400.0, side="left")
    return float(r[int(np.argmax(cum[end] - cum[np.arange(r.size)]))])


def _busiest(args: argparse.Namespace) -> None:
    """``--window busiest``: set ``args.start`` (and ``args.days``, default 7) to the busiest window of the trace."""
    from vcsched.scenarios.platform import read_trace

    if not args.trace:
        raise InvalidInputError("--window busiest applies to --trace; give one trace")
    if args.start is not None or args.end is not None:
        raise InvalidInputError("--window busiest chooses --start itself; drop --start/--end (set the length with "
                                "--days)")
    args.days = 7.0 if args.days is None else args.days
    w = read_trace(args.trace, {"start": None, "end": None, "days": None}, skip_bad_lines=args.skip_bad_lines,
                   where="--trace")
    procs = args.procs or w.machine_size or int(max(w.processors))
    args.start = busiest_start(w, args.days, int(procs))


def _build(args: argparse.Namespace):
    if getattr(args, "window", None) == "busiest":
        _busiest(args)
    if not args.scenario and args.heterogeneous:
        raise InvalidInputError("--heterogeneous applies to --scenario; for a platform file set each cluster's "
                                "\"speed\"")
    if not args.scenario and (args.max_load is not None or args.overestimate != 10.0):
        raise InvalidInputError("--max-load and --overestimate shape the synthetic workloads of --scenario")
    clusters, jobs, _meta = build_workload(args)
    return clusters, jobs


def _schedule_dir(path: str | None) -> Path | None:
    """The ``--schedule`` folder, created if missing; one line and exit 2 when it cannot be written."""
    if path is None:
        return None
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InvalidInputError(f"--schedule {path}: not a folder; give a folder for the <metric>.csv files")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidInputError(f"--schedule {path}: cannot create the folder ({exc.strerror}); choose a writable "
                                f"folder") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidInputError(f"--schedule {path}: the folder is not writable; choose a writable folder")
    return folder


def write_schedules(refs, jobs, clusters, folder: Path) -> None:
    """Each metric's best schedule as ``folder/<metric>.csv`` (written to a temporary name, then renamed)."""
    import numpy as np

    from vcsched.sim.output import write_jobs
    from vcsched.sim.platform import SimulationResult

    n = len(jobs)
    for name, sched in refs.schedules.items():
        if sched.value is None:
            continue
        p = refs.instance.duration[np.arange(n), sched.cluster]
        result = SimulationResult(jobs, clusters, sched.start.copy(), sched.start + p, sched.cluster.copy(),
                                  jobs.submit.astype(float).copy(), np.zeros(n, dtype=np.int64),
                                  np.arange(n, dtype=np.int64), 0)
        tmp = folder / f".{name}.part.csv"
        try:
            write_jobs(result, tmp)
            tmp.replace(folder / f"{name}.csv")
        finally:
            tmp.unlink(missing_ok=True)


def cmd_bound(args: argparse.Namespace) -> int:
    from lowerbounds.batch import batch_references
    from lowerbounds.reference import BRACKET_COLUMNS

    folder = _schedule_dir(args.schedule)
    clusters, jobs = _build(args)
    refs = batch_references(jobs, clusters, method=args.method, time_limit=args.time_limit, seed=args.search_seed,
                            iterations=args.iterations)
    out = refs.to_dict()
    if args.window == "busiest":
        out["window"] = {"start": args.start, "days": args.days}
    for entry in out.get("exact", {}).get("schedule", []):  # name the job and the cluster of each row
        entry["job_id"] = str(jobs.job_id[entry["job"]])
        entry["cluster_name"] = clusters[entry["cluster"]].name
    if folder is not None and not refs.interrupted:
        write_schedules(refs, jobs, clusters, folder)
    if args.json:
        print_json(out)
        return _interrupted(refs, folder)
    print(f"{out['jobs']} jobs")
    print_table([b.row() for b in refs.brackets.values()], list(BRACKET_COLUMNS), floatfmt="{:.6g}")
    if "exact" in out:
        e = out["exact"]
        print(f"exact: {e['status']}, mean response {e['mean_response']}, makespan {e['makespan']}, "
              f"bound {e['bound']}, gap {e['gap']}")
    return _interrupted(refs, folder)


def _interrupted(refs, folder) -> int:
    """0, or 130 after one line when an interrupt stopped the schedule search (the values printed hold)."""
    if not refs.interrupted:
        return 0
    print("vcsched: interrupted: the bounds and the schedules found before the interrupt are printed above"
          + ("; no schedule file written" if folder is not None else ""), file=sys.stderr)
    return 130


def bound_report(metrics: dict, jobs, clusters, *, method: str, time_limit: float, result=None) -> dict:
    """:func:`lowerbounds.batch.policy_references` of the simulated run's overall metrics."""
    from lowerbounds.batch import policy_references

    return policy_references(metrics["overall"], jobs, clusters, method=method, time_limit=time_limit, result=result)


def print_bound_table(report: dict) -> None:
    rows = []
    for name, entry in report.items():
        lo_hi = entry.get("ratio_to_opt") or [None, None]
        rows.append(dict(metric=name, **entry, opt_ratio_low=lo_hi[0], opt_ratio_high=lo_hi[1]))
    print_table(rows, ["metric", "value", "bound", "ratio_to_bound", "upper", "opt_ratio_low", "opt_ratio_high",
                       "method"], floatfmt="{:.4g}")
