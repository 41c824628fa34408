"""The workload and platform options shared by ``grid simulate`` and ``grid bound`` (one definition)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vcsched.cli.common import add_time_window, number_option, seed_option


def add_workload_options(s: argparse.ArgumentParser) -> None:
    """``--trace | --platform | --scenario`` and the options that shape the jobs and the clusters."""
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--trace", help="SWF trace (.swf or .swf.gz) or Batsim JSON workload (.json); a bare name is looked "
                     "up in the traces folder")
    src.add_argument("--platform", help="platform JSON: {\"clusters\": [{name, procs, speed, policy, trace}], \"meta\": \"mct\"}")
    src.add_argument("--scenario", help="a scenario of the seed paper: jan, feb, mar, apr, may, jun (platform 1), "
                     "pwa-g5k (platform 2), pwa (extra, all real traces)")
    s.add_argument("--procs", type=number_option(int, low=1, high=10**7), default=None,
                   help="processors of the cluster (default: the trace header's MaxProcs, else MaxNodes)")
    s.add_argument("--speed", type=number_option(float, low=0, low_open=True, high=1e6), default=1.0,
                   help="speed of the single cluster, in (0, 1e6] (default 1)")
    add_time_window(s, days_help="keep this many days from --start (or the first job); with --scenario, the first "
                    "days")
    s.add_argument("--no-shift", action="store_true", help="keep each trace's own clock (default: first job at time 0 "
                   "when several traces are combined)")
    s.add_argument("--heterogeneous", action="store_true", help="--scenario: speeds 1.0/1.2/1.4 (default all 1)")
    s.add_argument("--seed", type=seed_option(), default=0, help="--scenario: seed of the synthetic Grid'5000 traces, 0 to 2^63 - 1 (default 0)")
    s.add_argument("--max-load", type=number_option(float, low=0, low_open=True, high=10), default=None,
                   help="--scenario: cap of a synthetic Grid'5000 site's offered load (default 0.6)")
    s.add_argument("--overestimate", type=number_option(float, low=1, high=1e6), default=10.0,
                   help="--scenario: synthetic walltimes = run time x log-uniform factor in [1, this] (default 10)")
    s.add_argument("--skip-bad-lines", action="store_true", help="skip malformed SWF lines and lines with a field out of "
                   "range (counted) instead of failing")


def note_skipped(workloads) -> None:
    """One ``vcsched: note:`` line per trace that skipped jobs."""
    for w in workloads:
        if w.skipped:
            print(f"vcsched: note: {Path(w.source).name}: skipped {w.skipped} job(s) (processors <= 0, run time < 0 "
                  f"or malformed line)", file=sys.stderr)


def build_workload(args: argparse.Namespace, *, notes: bool = True):
    """Clusters, job table and the name of the arrival mapping ("mct", "origin" or None), by
    :func:`vcsched.scenarios.grid_build.build` from the workload options (:mod:`vcsched.cli.grid_options`).

    ``notes`` prints how many jobs each trace skipped (once per command, not for the reference run).
    """
    from vcsched.scenarios.grid_build import build

    run = build(trace=args.trace, platform=args.platform, scenario=args.scenario, policy=args.policy,
                procs=args.procs, speed=args.speed, start=args.start, end=args.end, days=args.days,
                skip_bad_lines=args.skip_bad_lines, shift=not args.no_shift, heterogeneous=args.heterogeneous,
                batch=args.batch, seed=args.seed, overestimate=args.overestimate, max_load=args.max_load)
    if notes:
        note_skipped(run.workloads)
    return run.clusters, run.jobs, run.meta
