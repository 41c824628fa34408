"""``vcsched grid bound`` and ``grid simulate --bound``: lower bounds of the clairvoyant relaxation.

``vcsched grid bound`` takes the workload and platform options of ``grid simulate``
(``--trace F --procs P``, ``--platform F``, ``--scenario S [--heterogeneous]``, ``--days D``
...), and ``--method quick|lp|exact|best`` (default ``best``) within ``--time-limit``
seconds (default 60). It prints one row per metric (bound, method, seconds), or with
``--json`` ``{"jobs": n, "bounds": {"makespan": {...}, "mean_response": {...},
"mean_bounded_slowdown": {...}, "max_stretch": {...}}}`` (each entry ``value``,
``method``, ``seconds``, ``detail``); with ``--method exact`` also ``"exact"``
(``status``, ``mean_response``, ``makespan``, ``bound``, ``gap``, the makespan's own
status, bound and gap, and the ``schedule`` when optimal: per job its row ``job`` and ``job_id``,
``cluster`` (index) and ``cluster_name``, ``start`` and ``finish``). The bounds are computed by
:func:`lowerbounds.batch.batch_bounds` on the job table and clusters that
``grid simulate`` would simulate.

``grid simulate ... --bound`` adds ``"bounds"`` to the JSON: per metric, the simulated
``value``, the ``bound``, ``ratio_to_bound`` (value / bound), ``method`` and ``seconds``;
the text output gets a table with the columns ``bound`` and ``ratio_to_bound`` beside
each metric's value.
"""

from __future__ import annotations

import argparse

from vcsched.cli.common import number_option, print_json, print_table
from vcsched.cli.grid_options import add_workload_options, build_workload
from vcsched.errors import InvalidInputError
from vcsched.names.references import BOUND_METHODS

__all__ = ["register_bound", "add_bound_flags", "cmd_bound", "bound_report", "print_bound_table", "SIM_METRIC",
           "BOUND_METHODS"]


SIM_METRIC = {"makespan": "makespan", "mean_response": "mean_response", "mean_bounded_slowdown": "mean_bsld",
              "max_stretch": "max_stretch"}
"""Name of each bounded metric in the simulator's metrics (:func:`vcsched.sim.output.metrics`)."""


def add_bound_flags(s: argparse.ArgumentParser, *, prefix: str = "") -> None:
    """``--method``/``--time-limit`` (``grid bound``) or ``--bound-method``/``--bound-time-limit`` (simulate)."""
    s.add_argument(f"--{prefix}method", choices=list(BOUND_METHODS), default="best",
                   help="quick (O(n log n)), lp (LP windows), exact (MILP, small workloads), best (default: exact "
                   "when the workload is small enough, else lp)")
    s.add_argument(f"--{prefix}time-limit", type=number_option(float, low=0, low_open=True, high=1e6), default=60.0,
                   help="seconds for the LP and MILP parts (default 60)")


def register_bound(gsub) -> None:
    """Add ``grid bound`` to the ``grid`` sub-commands."""
    s = gsub.add_parser("bound", help="lower bounds (and exact optima of small windows) on makespan, mean response "
                        "time, mean bounded slowdown and max stretch of any schedule of the workload")
    add_workload_options(s)
    add_bound_flags(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(handler=cmd_bound, policy="fcfs", batch="fcfs")


def _build(args: argparse.Namespace):
    if not args.scenario and args.heterogeneous:
        raise InvalidInputError("--heterogeneous applies to --scenario; for a platform file set each cluster's "
                                "\"speed\"")
    if not args.scenario and (args.max_load is not None or args.overestimate != 10.0):
        raise InvalidInputError("--max-load and --overestimate shape the synthetic workloads of --scenario")
    clusters, jobs, _meta = build_workload(args)
    return clusters, jobs


def cmd_bound(args: argparse.Namespace) -> int:
    from lowerbounds.batch import batch_bounds

    clusters, jobs = _build(args)
    result = batch_bounds(jobs, clusters, method=args.method, time_limit=args.time_limit)
    out = result.to_dict()
    for entry in out.get("exact", {}).get("schedule", []):  # name the job and the cluster of each row
        entry["job_id"] = str(jobs.job_id[entry["job"]])
        entry["cluster_name"] = clusters[entry["cluster"]].name
    if args.json:
        print_json(out)
        return 0
    rows = [dict(metric=name, **b) for name, b in out["bounds"].items()]
    print(f"{out['jobs']} jobs")
    print_table(rows, ["metric", "value", "method", "seconds", "detail"], floatfmt="{:.6g}")
    if "exact" in out:
        e = out["exact"]
        print(f"exact: {e['status']}, mean response {e['mean_response']}, makespan {e['makespan']}, "
              f"bound {e['bound']}, gap {e['gap']}")
    return 0


def bound_report(metrics: dict, jobs, clusters, *, method: str, time_limit: float) -> dict:
    """Per metric: the simulated ``value``, its ``bound``, ``ratio_to_bound``, the bound's ``method`` and ``seconds``."""
    from lowerbounds.batch import batch_bounds

    result = batch_bounds(jobs, clusters, method=method, time_limit=time_limit)
    out = {}
    for name, b in result.bounds.items():
        value = metrics["overall"].get(SIM_METRIC[name])
        ratio = value / b.value if value is not None and b.value else None
        out[name] = {"value": value, "bound": b.value, "ratio_to_bound": ratio, "method": b.method,
                     "seconds": b.seconds}
    return out


def print_bound_table(report: dict) -> None:
    rows = [dict(metric=name, **entry) for name, entry in report.items()]
    print_table(rows, ["metric", "value", "bound", "ratio_to_bound", "method"], floatfmt="{:.4g}")
