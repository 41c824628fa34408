"""``vcsched vc``: VCSched instances (generate), solvers (solve), dynamic workloads (adapt).

Limits (README, section VCSched, "Limits"): every numeric option has a finite
range (the ``number_option`` calls below); instance sizes are those of
:mod:`vcsched.problems.vc` (``MAX_HOSTS``, ``MAX_TASKS``, ``MAX_HOST_TASKS``);
the methods' own limits are those of :mod:`heuristics.vc.methods`.

What a method may do (its options, size limits, default time limit, the migration
budget of from-scratch heuristics, the LP shared with RRND/RRNZ) is decided by the method
table :mod:`heuristics.vc.methods`; ``vc solve`` parses the arguments, calls
:func:`heuristics.vc.methods.solve_many` and prints.

This module imports only the standard library and the core's light modules
at import time (start-up time); numpy, PuLP and the role packages are
imported inside the commands.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from vcsched.cli import common
from vcsched.cli.seed_runs import add_seed_options, seeds_of, show_over_seeds
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.names.vc import BUDGET_MODES
from vcsched.problems.vc_limits import MAX_CV, MAX_EXPECTED_ARRIVALS, MAX_GENERATE, MAX_RELABEL_HOSTS, MIN_CPU

if TYPE_CHECKING:
    from vcsched.problems.vc import VCInstance
    from vcsched.result import Result

MAX_TIME_LIMIT = 1e6
"""Largest ``--time-limit`` (seconds)."""
MAX_RATE = 1e4
"""``vc adapt``: largest arrival rate."""
MAX_TIME = 1e12
"""``vc adapt``: largest duration and mean lifetime."""


SOLVE_OPTIONS = {"time_limit": "time_limit", "gap": "gap", "budget_mode": "budget_mode", "seed": "rng"}
"""``vc solve``'s method options: the ``dest`` of each and the method option it sets (an option given
that no chosen method takes is refused, :func:`vcsched.cli.common.check_options_apply`)."""


def register(sub: argparse._SubParsersAction) -> None:
    vsub = common.add_family(sub, "vc", help="VCSched: max-min yield allocation of VMs on identical hosts (seed 001)")

    g = vsub.add_parser("generate", help="generate an instance as in seed 001 §4.1")
    g.add_argument("--hosts", type=common.number_option(int, low=1, high=MAX_GENERATE), required=True,
                   help=f"hosts, 1 to {MAX_GENERATE:,}")
    g.add_argument("--jobs", type=common.number_option(int, low=1, high=MAX_GENERATE), required=True,
                   help=f"jobs, 1 to {MAX_GENERATE:,} (and at most 1,000,000 tasks in all)")
    g.add_argument("--slack", type=common.number_option(float, low=0, high=1, high_open=True), required=True,
                   help="memory slack in [0, 1)")
    g.add_argument("--cv-mem", type=common.number_option(float, low=0, high=MAX_CV), default=0.25,
                   help=f"coefficient of variation of memory needs, 0 to {MAX_CV:g} (default 0.25)")
    g.add_argument("--cv-cpu", type=common.number_option(float, low=0, high=MAX_CV), default=0.25,
                   help=f"coefficient of variation of CPU needs, 0 to {MAX_CV:g} (default 0.25)")
    g.add_argument("--mean-cpu", type=common.number_option(float, low=MIN_CPU, low_open=True, high=1), default=0.5,
                   help=f"mean CPU need, in ({MIN_CPU:g}, 1] as in the instance files (default 0.5)")
    g.add_argument("--tasks", choices=["one", "lublin"], default="one", help="task counts: one per job, or Lublin-Feitelson (1-64)")
    g.add_argument("--seed", type=common.seed_option(), default=0)
    g.add_argument("-o", "--output", help="output file (default: standard output)")
    from vcsched.cli.vc_hetero import add_generate_options

    add_generate_options(g)
    g.set_defaults(handler=cmd_generate)

    s = vsub.add_parser("solve", help="solve an instance file with an exact method, a bound or a heuristic")
    s.add_argument("instance", help="instance JSON file, or a folder / glob of them (an instance set: see -o)")
    s.add_argument("--method", default="milp", help="milp, milp-literal, lp, lp-literal, lp-closed, certify, a heuristic "
                   "(mcb1..mcb8, gr, sg, gb, sgb, rrnd, rrnz), an adaptation policy (adapt-none, adapt-mcb8, "
                   "adapt-mcb8-sticky, adapt-local-search) or all; several separated by commas")
    s.add_argument("--time-limit", type=common.number_option(float, low=0, low_open=True, high=MAX_TIME_LIMIT), default=None,
                   help=f"seconds for each exact method and certify, up to {MAX_TIME_LIMIT:g} (default 60, "
                        "heuristics.vc.methods.DEFAULT_TIME_LIMIT)")
    s.add_argument("--gap", type=common.number_option(float, low=0, high=1), default=None,
                   help="relative MIP gap at which to stop, in [0, 1] (certify: the certified gap)")
    s.add_argument("--budget-mode", choices=BUDGET_MODES, default="memory",
                   help="migration budget in memory units (eq. 31) or in moved tasks")
    common.add_solve_tail(s, seed_help="seed of randomised heuristics", figure="--plot",
                          figure_help="draw the allocation (one bar per host, stacked by job, CPU and memory; the "
                                      "minimum-yield job hatched) to FILE (.png, .svg, .pdf); with several methods, "
                                      "the best one's", handler=cmd_solve, options=SOLVE_OPTIONS)

    from vcsched.cli.vc_pack import register_pack

    register_pack(vsub)

    a = vsub.add_parser("adapt", help="dynamic workload: adapt the allocation at every arrival/departure (§6)")
    a.add_argument("--hosts", type=common.number_option(int, low=1, high=MAX_RELABEL_HOSTS), required=True,
                   help=f"hosts, 1 to {MAX_RELABEL_HOSTS:,}")
    a.add_argument("--arrival-rate", type=common.number_option(float, low=0, low_open=True, high=MAX_RATE),
                   help=f"Poisson arrivals per time unit, up to {MAX_RATE:g} (required without --swf); "
                        f"rate x duration at most {MAX_EXPECTED_ARRIVALS:,}")
    a.add_argument("--mean-lifetime", type=common.number_option(float, low=0, low_open=True, high=MAX_TIME),
                   help="mean of the exponential lifetimes (required without --swf)")
    a.add_argument("--duration", type=common.number_option(float, low=0, low_open=True, high=MAX_TIME), required=True,
                   help=f"simulated time, up to {MAX_TIME:g}")
    a.add_argument("--seed", type=common.seed_option(), default=0)
    a.add_argument("--policy", required=True, help="exact, none, mcb8, mcb8-sticky or local-search; with --seeds, "
                   "several separated by commas, compared on the same seeds")
    a.add_argument("--budget", type=_budget_value, required=True,
                   help="memory that may move at each adaptation (eq. 31); 'inf' for unbounded")
    a.add_argument("--budget-mode", choices=BUDGET_MODES, default="memory")
    a.add_argument("--slack", type=common.number_option(float, low=0, high=1, high_open=True), default=0.5,
                   help="memory slack at the mean number of jobs, in [0, 1)")
    a.add_argument("--tasks", choices=["one", "lublin"], default="one")
    a.add_argument("--time-limit", type=common.number_option(float, low=0, low_open=True, high=MAX_TIME_LIMIT), default=10.0,
                   help="MILP seconds per event (policy exact)")
    a.add_argument("--swf", help="take the jobs from an SWF trace (file or name in $VCSCHED_TRACES) instead of Poisson "
                   "arrivals: processors become tasks, --duration seconds from the trace's start")
    a.add_argument("--events-csv", help="write the per-event trace (time, kind, job, yields, migrations) as CSV")
    common.add_json_option(a)
    add_seed_options(a)
    a.add_argument("--no-progress", action="store_true",
                   help="no progress bar over the simulated time (it is off anyway when stderr is not a TTY)")
    a.set_defaults(handler=cmd_adapt)


ADAPT_BAR = "{desc}: {percentage:3.0f}%|{bar}| simulated time {n:.6g} of {total:.6g} [{elapsed}<{remaining}]"
"""``vc adapt``'s progress bar (on standard error, when it is a terminal): the simulated time reached."""


def _budget_value(text: str) -> float:
    """``--budget``: ``inf`` (unbounded) or a finite number >= 0."""
    if text.strip().lower() in ("inf", "+inf", "infinity"):
        return float("inf")
    try:
        return common.number_option(float, low=0)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0 or 'inf', got {text!r}") from None


def cmd_adapt(args: argparse.Namespace) -> int:
    if args.events_csv:
        common.check_output_path(args.events_csv, option="--events-csv", inputs=[args.swf] if args.swf else [],
                                 formats=(".csv",))
    if not args.swf:
        if args.arrival_rate is None or args.mean_lifetime is None:
            raise InvalidInputError("vc adapt: give --arrival-rate and --mean-lifetime (or --swf TRACE)")
        from vcsched.scenarios.vc_dynamic import check_expected_arrivals

        check_expected_arrivals(args.arrival_rate, args.duration)
    from heuristics.vc.adapt import ADAPT_POLICIES

    policies = [p.strip().lower() for p in args.policy.split(",") if p.strip()]
    for name in policies or [args.policy]:
        if name not in ADAPT_POLICIES:
            raise UnknownNameError(f"--policy: unknown policy {name!r}; choose one of: {', '.join(ADAPT_POLICIES.names())}")
    seeds = seeds_of(args)
    if len(policies) > 1 and seeds is None:
        raise InvalidInputError("--policy: several policies are compared over --seeds / --repeat; give one without them")
    if seeds is not None:
        if args.events_csv:
            raise InvalidInputError("--events-csv writes one run's events; drop it with --seeds / --repeat")

        def run_one(seed: int) -> list[dict]:
            return [_adapt_run(argparse.Namespace(**{**vars(args), "policy": p}), seed, progress=False)[0]
                    for p in policies]

        show_over_seeds(args, run_one, seeds, "policy", ADAPT_METRICS, desc="vc adapt")
        return 0
    doc, result = _adapt_run(args, args.seed, progress=not args.no_progress)
    if args.events_csv:
        common.write_output(args.events_csv, _events_csv(result.trace), option="--events-csv")
    if args.json:
        common.print_json(doc)
    else:
        common.print_table([doc], ["policy", "budget", "mean_min_yield", "min_min_yield", "migrated_memory", "migrations",
                                   "rejected", "events"])
    return 0


ADAPT_METRICS = ("mean_min_yield", "min_min_yield", "mean_avg_yield", "migrated_memory", "migrations", "rejected")
"""The metrics ``vc adapt --seeds`` summarizes."""


def _adapt_run(args: argparse.Namespace, seed: int, *, progress: bool):
    """One ``vc adapt`` run with ``seed`` (workload and policy): ``(doc, result)``."""
    from heuristics.vc.adapt import make_policy
    from vcsched.scenarios.vc_dynamic import poisson_workload
    from vcsched.sim.vcdynamic import simulate_dynamic

    if args.swf:
        from vcsched.data import trace_path
        from vcsched.problems.workload import read_swf, time_window
        from vcsched.scenarios.vc_dynamic import swf_workload

        jobs = read_swf(trace_path(args.swf))
        start = float(jobs.submit_time.min()) if len(jobs) else 0.0
        jobs = time_window(jobs, start=start, end=start + args.duration)
        workload = swf_workload(jobs, args.hosts, slack=args.slack, rng=seed)
    else:
        workload = poisson_workload(args.hosts, args.arrival_rate, args.mean_lifetime, args.duration, slack=args.slack,
                                    tasks=None if args.tasks == "one" else "lublin", rng=seed)
    policy = make_policy(args.policy, budget_mode=args.budget_mode, time_limit=args.time_limit)
    if args.policy.lower() == "exact" and progress:
        print(adapt_exact_estimate(workload, args.duration, args.time_limit), file=sys.stderr)
    bar, update = common.progress_bar(args.duration, disable=not progress, desc="vc adapt", bar_format=ADAPT_BAR)
    try:
        result = simulate_dynamic(args.hosts, workload, policy, budget=args.budget, duration=args.duration,
                                  progress=update)
    finally:
        bar.close()
    doc = result.to_dict()
    doc.pop("mean_avg_yield", None)
    doc["mean_avg_yield"] = result.mean_avg_yield
    doc["budget"] = result.budget if result.budget != float("inf") else "inf"
    return doc, result


def adapt_exact_estimate(workload, duration: float, time_limit: float) -> str:
    """The line ``vc adapt --policy exact`` prints before it starts: one MILP per arrival and per
    departure within the run (an upper bound: rejected arrivals have no departure)."""
    import numpy as np

    arrivals = int(np.count_nonzero(workload.arrival <= duration))
    departures = int(np.count_nonzero(workload.arrival + workload.lifetime <= duration))
    milps = arrivals + departures
    return (f"vcsched: note: vc adapt: policy exact solves up to {milps:,} MILPs ({arrivals:,} arrivals, {departures:,} departures), "
            f"each within --time-limit {time_limit:g} s: at most {milps * time_limit / 60:.1f} min")


def _events_csv(trace) -> str:
    """The per-event trace as CSV text (one row per event, the fields of the trace records)."""
    import pandas as pd

    return pd.DataFrame([r.__dict__ for r in trace]).to_csv(index=False)


def cmd_generate(args: argparse.Namespace) -> int:
    if args.output:
        common.check_output_path(args.output, option="-o", formats=(".json",))
    from vcsched.cli.vc_hetero import cmd_generate_hetero, wants_hetero_generate

    if wants_hetero_generate(args):
        return cmd_generate_hetero(args)
    import json

    from vcsched.generators.vc import generate_vc_instance
    from vcsched.problems.vc import MAX_TASKS, check_size, instance_to_dict

    if args.tasks == "lublin" and args.jobs > MAX_TASKS // 64:
        check_size(args.hosts, args.jobs * 64, where="vc generate --tasks lublin (up to 64 tasks per job)")
    check_size(args.hosts, args.jobs, where="vc generate")
    inst = generate_vc_instance(args.hosts, args.jobs, args.slack, args.cv_mem, args.cv_cpu, mean_cpu=args.mean_cpu,
                                tasks=None if args.tasks == "one" else "lublin", rng=args.seed)
    text = json.dumps(instance_to_dict(inst), indent=1) + "\n"
    common.write_text(args.output, text)
    return 0


def resolve_methods(text: str, instance: VCInstance | None = None) -> list[str]:
    """Method names of ``--method`` in order, without repeats, ``all`` expanded
    (:func:`heuristics.vc.methods.methods_for_all`)."""
    from heuristics.vc.methods import METHODS, methods_for_all

    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    if not names:
        raise InvalidInputError("--method: give at least one method")
    out: list[str] = []
    for n in names:
        if n == "all":
            out += methods_for_all(instance)
        elif n in METHODS:
            out.append(n)
        else:
            raise UnknownNameError(f"--method: unknown method {n!r}; choose one of: {', '.join(METHODS.names() + ['all'])}")
    return list(dict.fromkeys(out))


def cmd_solve(args: argparse.Namespace) -> int:
    from heuristics.vc.methods import METHODS, result_row
    from vcsched.cli.vc_hetero import cmd_solve_hetero, hetero_document
    from vcsched.problems.vc import load_instance

    common.check_single_file_options(args, figure="--plot")
    if common.wants_instance_set(args):
        return _solve_set(args)
    data = hetero_document(args.instance)
    if data is not None:
        return cmd_solve_hetero(args, data)
    common.check_options_apply(args, SOLVE_OPTIONS, resolve_methods(args.method), METHODS)
    if args.plot:
        common.check_output_path(args.plot, option="--plot", inputs=[args.instance], formats=common.FIGURE_FORMATS, devices=False)
    instance = load_instance(args.instance)
    with common.status_line():
        results = solve_results(args, instance)
    rows = [result_row(r, instance) for r in results]
    if args.plot:
        plot_best_allocation(instance, results, args.plot)
    common.print_result_rows(rows, args.json)
    return 0


def _solve_set(args: argparse.Namespace) -> int:
    """``vc solve`` over an instance set: each file takes the methods of its form, 2-D or with host
    types (:func:`vcsched.cli.vc_hetero.set_methods`); the options are checked against the 2-D table."""
    from benchmarks.instance_sets import expand_instances
    from heuristics.vc.methods import METHODS
    from vcsched.cli.vc_hetero import set_methods

    methods = set_methods(args.method, expand_instances(args.instance))
    common.check_options_apply(args, SOLVE_OPTIONS, [m for m in methods if m in METHODS], METHODS)
    options = {"time_limit": args.time_limit, "gap": args.gap, "budget_mode": args.budget_mode, "rng": args.seed}
    return common.run_instance_set(args, "vc", methods, options)


def plot_best_allocation(instance: VCInstance, results: list[Result], path: str) -> None:
    """``--plot``: the allocation of the largest minimum yield among the results (the first on ties)."""
    from vcsched.problems.plots import plot_allocation
    from vcsched.problems.vc import Allocation

    placed = [r for r in results if r.status.has_solution and isinstance(r.solution, Allocation)]
    if not placed:
        raise InvalidInputError(f"--plot {path}: no method returned an allocation to draw")
    best = max(placed, key=lambda r: r.objective)
    common.draw_figure(path, lambda: plot_allocation(instance, best.solution, path, title=best.method), option="--plot")


def solve_results(args: argparse.Namespace, instance: VCInstance) -> list[Result]:
    """The results of ``vc solve``: a method named in ``--method`` beyond its size limit is refused,
    one brought in by ``all`` is left out with a note."""
    from heuristics.vc.methods import refusal, solve_many

    named = {t.strip().lower() for t in args.method.split(",")}
    runnable = []
    for name in resolve_methods(args.method, instance):
        reason = refusal(name, instance)
        if reason is None:
            runnable.append(name)
        elif name in named:
            raise InvalidInputError(f"{args.instance}: {reason}")
        else:
            print(f"vcsched: note: {reason}; left out of --method all", file=sys.stderr)
    return solve_many(instance, runnable, time_limit=args.time_limit, gap=args.gap, budget_mode=args.budget_mode,
                      rng=args.seed)
