"""``vcsched diet``: the DIET request-flow simulator on the experiments of seed 004 §6."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from vcsched.cli.common import add_family, add_json_option, number_option, print_json, print_table, seed_option
from vcsched.cli.seed_runs import add_seed_options, seeds_of, show_over_seeds
from vcsched.names.diet import APPROACHES as APPROACH_NAMES
from vcsched.names.diet import EXPERIMENTS as EXPERIMENT_NAMES
from vcsched.names.diet import METRICS as BOUND_METRICS
from vcsched.names.diet import REFINE as REFINE_NAMES
from vcsched.names.diet import SORTING_READINGS
from vcsched.names.references import BOUND_METHODS
from vcsched.problems.diet_limits import MAX_INTERFERENCE, MAX_TIME_LIMIT

MAX_SECONDS = 3600.0
"""Largest ``--interarrival``, ``--task-latency`` and ``--submit-overhead`` (seconds)."""
MAX_DURATION = 86400.0
"""Largest ``--duration`` of the steady experiment (one simulated day; the default 3 h takes seconds)."""
MAX_WIN_ADAPT_FACTOR = 100.0
"""Largest ``--win-adapt-factor``."""
MAX_EXEC_CV = 10.0
"""Largest ``--exec-cv``."""
MAX_LIMIT = 1000
"""Largest ``--limit`` (concurrent solves per SeD)."""
SEED_METRICS = ("makespan", "mean_turnaround", "std_turnaround", "throughput")
"""The metrics ``simulate --seeds`` summarizes."""


def register(sub: argparse._SubParsersAction) -> None:
    dsub = add_family(sub, "diet",
                      help="DIET hierarchical request flow: agent tree, SeD queues, MA windows (seed 004)")
    s = dsub.add_parser("simulate", help="simulate one experiment of seed 004 §6 under one or all approaches")
    _workload_options(s)
    s.add_argument("--approach", required=True, choices=APPROACH_NAMES + ("all",),
                   help="standard, sed-queue, task-scheduler, or all three")
    s.add_argument("--refine", choices=REFINE_NAMES, default="first-free",
                   help="RefinePlacement of the task scheduler: Algorithm 3 (first-free: the first unused server "
                        "of each list; last-free: the figure to the letter, the last one) or minmin/sufferage/msf")
    s.add_argument("--limit", type=number_option(int, low=1, high=MAX_LIMIT), default=2,
                   help=f"concurrent solves per SeD for sed-queue and task-scheduler, 1 to {MAX_LIMIT} (default 2, "
                        "as in the paper)")
    s.add_argument("--win-adapt-factor", type=number_option(float, low=0, low_open=True, high=MAX_WIN_ADAPT_FACTOR),
                   default=0.5, help=f"task-scheduler: winAdaptFactor of Algorithm 2, in (0, {MAX_WIN_ADAPT_FACTOR:g}] "
                                     "(default 0.5, an assumption)")
    s.add_argument("--task-latency", type=number_option(float, low=0, high=MAX_SECONDS), default=1.0,
                   help="task-scheduler: taskLatency of Algorithm 2 in seconds (default 1, the paper's value)")
    s.add_argument("--sorting", choices=SORTING_READINGS, default="metrics",
                   help="reading of Algorithm 1's ties: metrics (default: ties on the predicted time broken by jobs, "
                        "then time since last solve) or literal (prediction + queue-wait estimate, ties at random)")
    s.add_argument("--bound", action="store_true",
                   help="add each metric's bound (best method: lower for makespan and turnaround, upper for "
                        "throughput) and the ratio value / bound")
    add_json_option(s, "print JSON: one object, or a list with --approach all")
    add_seed_options(s)
    s.set_defaults(handler=cmd_simulate)
    _bound_parser(dsub)


def _workload_options(s: argparse.ArgumentParser) -> None:
    """The options that fix the run's workload and platform, shared by ``simulate`` and ``bound``."""
    s.add_argument("--experiment", required=True, choices=EXPERIMENT_NAMES,
                   help="bursty (§6.2, 8 tasks), add-seds (§6.3, 54 tasks, 4 SeDs added), steady (§6.4, 96 users)")
    s.add_argument("--interarrival", type=number_option(float, low=0, high=MAX_SECONDS), default=None,
                   help=f"seconds between submissions, 0 to {MAX_SECONDS:g} (bursty: default 0.5; add-seds: default 1); "
                        "not for steady")
    s.add_argument("--seed", type=seed_option(), default=0, help="seed of the run: the agents' random tie-breaks and the execution noise")
    s.add_argument("--duration", type=number_option(float, low=0, low_open=True, high=MAX_DURATION), default=None,
                   help=f"steady only: simulated seconds, up to {MAX_DURATION:g} (default 10800 = 3 h; margins scale "
                        "with it)")
    s.add_argument("--submit-overhead", type=number_option(float, low=0, high=MAX_SECONDS), default=None,
                   help="seconds from the client getting its server list to the SeD registering the solve, "
                        "before data transfer (default 1.25, a documented assumption)")
    s.add_argument("--exec-cv", type=number_option(float, low=0, high=MAX_EXEC_CV), default=None,
                   help="coefficient of variation of actual execution times (default 0.03, an assumption; 0: exact)")
    s.add_argument("--queue-sync", type=number_option(float, low=0, high=MAX_SECONDS), default=None,
                   help="seconds a SeD-queue hand-off holds a freed slot before the next queued job computes "
                        "(default 0)")
    s.add_argument("--interference", type=number_option(float, low=0, high=MAX_INTERFERENCE), default=None,
                   help=f"memory/cache interference a in [0, {MAX_INTERFERENCE:g}] between jobs beyond a SeD's CPUs: "
                        "each of n jobs on c CPUs runs at speed*min(1,c/n)/(1+a*max(0,n-c)/c) (default 0, the "
                        "paper's dgemm)")


def _bound_parser(dsub: argparse._SubParsersAction) -> None:
    b = dsub.add_parser("bound", help="lower bounds on makespan and mean turnaround, an upper bound on throughput, "
                                      "or the best clairvoyant placement (exact)")
    _workload_options(b)
    b.add_argument("--method", choices=BOUND_METHODS, default="best",
                   help="quick (closed forms), lp (preemptive LP), best (the stronger, default): valid for every "
                        "approach; exact: the best clairvoyant placement with status, bound and gap")
    b.add_argument("--time-limit", type=number_option(float, low=0, low_open=True, high=MAX_TIME_LIMIT), default=60.0,
                   help=f"seconds per metric for lp and exact, > 0 and at most {MAX_TIME_LIMIT:g} (default 60)")
    add_json_option(b, "print JSON: one object per metric under 'metrics'")
    b.set_defaults(handler=cmd_bound)


def _scenario(args: argparse.Namespace):
    """The experiment's scenario with the workload and platform options (:func:`vcsched.scenarios.diet.build`)."""
    from vcsched.scenarios.diet import build

    return build(args.experiment, interarrival=args.interarrival, duration=args.duration,
                 submit_overhead=args.submit_overhead, exec_cv=args.exec_cv, queue_sync=args.queue_sync,
                 interference=args.interference)


def cmd_simulate(args: argparse.Namespace) -> int:
    from heuristics.diet import WindowParams, make_approach
    from vcsched.scenarios.diet import approach_row, simulate_scenario

    scenario = _scenario(args)
    names = list(APPROACH_NAMES) if args.approach == "all" else [args.approach]

    seeds = seeds_of(args)

    def run_one(seed: int) -> list[dict[str, Any]]:
        rows = []
        for name in names:
            window = WindowParams(win_adapt_factor=args.win_adapt_factor, task_latency=args.task_latency,
                                  max_win_size=scenario.platform.n_best)
            policy = make_approach(name, limit=args.limit, refine=args.refine, window=window, sorting=args.sorting)
            rows.append(approach_row(simulate_scenario(scenario, policy, seed=seed), args.experiment, seed))
        if not args.bound:
            return rows
        rows = add_bounds(rows, scenario, seed)
        if seeds is not None:
            for row in rows:
                for m in BOUND_METRICS:
                    del row[f"{m}_ratio_to_opt"]  # an interval: the seed statistics take numbers
        return rows

    if seeds is not None:
        metrics = list(SEED_METRICS) + ([f"{m}_ratio_to_bound" for m in BOUND_METRICS] if args.bound else [])
        show_over_seeds(args, run_one, seeds, "approach", metrics, desc="diet")
        return 0
    rows = run_one(args.seed)
    columns = ["approach", "makespan", "mean_turnaround", "std_turnaround", "throughput", "mean_choose",
               "mean_queue", "mean_compute", "tasks_per_sed"]
    if args.bound:
        columns += [f"{m}_{k}" for m in BOUND_METRICS for k in ("bound", "ratio_to_bound", "opt_ratio_low",
                                                                  "opt_ratio_high")]
    if args.json:
        print_json(rows[0] if len(rows) == 1 else rows)
    else:
        table = [dict(r, tasks_per_sed=" ".join(f"{k}:{v}" for k, v in sorted(r["tasks_per_sed"].items())))
                 for r in rows]
        print_table(table, columns, floatfmt="{:.3f}")
    return 0


SIMULATE_BOUND_SECONDS = 10.0
"""``simulate --bound``: seconds for the references (relaxation and placement search) of each run."""


def add_bounds(rows: list[dict[str, Any]], scenario: Any, seed: int) -> list[dict[str, Any]]:
    """Each row gains ``<metric>_bound`` (the relaxation's bound, method ``best``), ``<metric>_ratio_to_bound`` =
    value / bound (>= 1 for makespan and mean turnaround, <= 1 for throughput), ``<metric>_upper`` (the other end
    of the optimum's bracket) and ``<metric>_ratio_to_opt`` = ``[value / upper, value / lower]``
    (:func:`lowerbounds.reference.ratio_interval`) with its ends as ``<metric>_opt_ratio_low``/``_high``."""
    from lowerbounds.diet.references import diet_references
    from lowerbounds.reference import beside_columns

    refs = diet_references(scenario, seed=seed, method="best", time_limit=SIMULATE_BOUND_SECONDS)
    if any(r.interrupted for r in refs.values()):
        raise KeyboardInterrupt  # a row needs the whole bracket: the command stops as interrupted
    out = []
    for row in rows:
        row = dict(row)
        for m in BOUND_METRICS:
            row.update(beside_columns(m, row.get(m), refs[m].bracket, bound=refs[m].bound.value))
        out.append(row)
    return out


def cmd_bound(args: argparse.Namespace) -> int:
    from lowerbounds.diet.references import diet_references
    from lowerbounds.reference import BRACKET_COLUMNS

    scenario = _scenario(args)
    refs = diet_references(scenario, seed=args.seed, method=args.method, time_limit=args.time_limit)
    result = {"experiment": args.experiment, "seed": args.seed, "requested_method": args.method,
              "metrics": {m: r.to_dict() for m, r in refs.items()}}
    if args.json:
        print_json(result)
        return _bound_interrupted(refs)
    print_table([r.bracket.row() for r in refs.values()], list(BRACKET_COLUMNS), floatfmt="{:.6g}")
    for m, r in refs.items():
        if r.message:
            print(f"{m}: {r.message}")
    return _bound_interrupted(refs)


def _bound_interrupted(refs: dict) -> int:
    """130 (with one line on standard error) when an interrupt cut the references short, else 0."""
    if not any(r.interrupted for r in refs.values()):
        return 0
    print("interrupted: the brackets above hold what was proven and found before the interrupt "
          "(a metric marked interrupted has its proven end only)", file=sys.stderr)
    return 130
