"""``vcsched timeshare``: time-shared servers with the Historical Trace Manager (seed 003).

``vcsched timeshare simulate --scenario a|b|...|j [--platform 1|2] [--mu 17] [--seed S]
--heuristic mct|hmct|mp|msf|all [--json]``, plus the model options ``--interarrival``, ``--noise``,
``--load-sensor``, ``--memory``, ``--swap-share``, ``--overflow``, ``--mct-completion``,
``--compute-scale`` and ``--runs``; ``--tasks N`` keeps the first N tasks, ``--bound`` adds each metric's
lower bound and ratio to it.

``vcsched timeshare bound`` with the same workload options, ``--method quick|lp|exact|best``,
``--time-limit S``, ``--search-seed``, ``--iterations`` and ``--json``: per metric the interval that
contains the clairvoyant optimum, a lower bound and the best mapping found
(:func:`lowerbounds.timeshare.references.timeshare_references`): lower, upper, upper/lower, status and both
methods; ``--json`` keeps each metric's ``value``/``method``/``seconds`` (the lower bound) and adds
``lower``, ``upper`` (``value``, ``method``, ``seconds``) and ``status`` (``optimal`` or ``bracketed``; the
exact search's own status is ``search_status``). ``simulate --bound`` adds, per metric, the upper end and
``<metric>_ratio_to_opt`` (``[value / upper, value / lower]``) beside ``<metric>_ratio_to_bound``.
"""

from __future__ import annotations

import argparse
import sys

from vcsched.cli.common import (
    add_family,
    add_json_option,
    nonneg_int,
    number_option,
    option_given,
    print_json,
    print_table,
    remember_defaults,
    seed_option,
)
from vcsched.cli.seed_runs import add_seed_options, seeds_of, show_over_seeds
from vcsched.names.references import BOUND_METHODS
from vcsched.names.timeshare import (
    HEURISTICS,
    INTERARRIVAL_LAWS,
    LOAD_SENSORS,
    MCT_COMPLETIONS,
    MEMORY_MODELS,
    OVERFLOWS,
)
from vcsched.names.timeshare import METRICS as BOUND_METRICS

__all__ = ["register", "cmd_simulate"]


MAX_MU = 1e6
"""Largest ``--mu`` (seconds between arrivals; arrival dates stay finite)."""
MAX_NOISE = 10.0
"""Largest ``--noise`` (coefficient of variation of the lognormal factor)."""
MAX_RUNS = 100
"""Largest ``--runs`` (executions per heuristic)."""
MAX_TASKS = 10**7
"""Largest ``--tasks``."""
MAX_TIME_LIMIT = 86400.0
"""Largest ``--time-limit`` (seconds)."""
MAX_SCALE = 100.0
"""Largest factor of ``--compute-scale``."""


def register(sub: argparse._SubParsersAction) -> None:
    tsub = add_family(sub, "timeshare", help="time-shared servers: MCT, HMCT, MP, MSF with the HTM (seed 003)")
    s = tsub.add_parser("simulate", help="simulate a scenario (a)-(j) of Table 2 under one or all heuristics")
    _workload_options(s)
    s.add_argument("--heuristic", required=True, type=str.lower, choices=list(HEURISTICS) + ["all"])
    s.add_argument("--load-sensor", choices=LOAD_SENSORS, default="count",
                   help="what servers report to MCT's agent: number of computing tasks (default) or a "
                        "Unix-style 1-minute load average")
    s.add_argument("--mct-completion", choices=MCT_COMPLETIONS, default="notify",
                   help="when MCT's agent takes a finished task off a server's recorded load: at once (default) or "
                        "only with the server's next load report")
    s.add_argument("--runs", type=number_option(int, low=1, high=MAX_RUNS), default=1,
                   help=f"executions per heuristic, 1 to {MAX_RUNS} (default 1); with more, each run has its own "
                        "--noise draw, metrics are means over runs and the sooner/later percentages compare every "
                        "run with every MCT run (the paper's cross product); needs --noise > 0")
    add_json_option(s, "print JSON: one object, or a list with --heuristic all")
    s.add_argument("--bound", action="store_true",
                   help="add each metric's lower bound and the ratio of the value to it (method best; with --seeds, "
                        "method quick on each seed's workload, so that many seeds end in seconds)")
    _time_limit_option(s)
    add_seed_options(s)
    s.set_defaults(handler=cmd_simulate)
    remember_defaults(s, ["time_limit"])
    b = tsub.add_parser("bound", help="lower bounds and the best clairvoyant mapping of a scenario's workload")
    _workload_options(b)
    b.add_argument("--method", choices=list(BOUND_METHODS), default="best",
                   help="quick: closed forms; lp: the preemptive relaxations; exact: the best mapping by branch "
                        "and bound (status, optimum or bound and gap, mapping); best (default): lp, then exact "
                        "when the workload is small enough")
    _time_limit_option(b)
    b.add_argument("--search-seed", type=nonneg_int, default=0, help="seed of the mapping search (default 0)")
    b.add_argument("--iterations", type=number_option(int, low=0, high=10**7), default=None,
                   help="moves tried per metric by the mapping search (default: 100 with --method quick, else "
                        "100,000 per second of the search's half of --time-limit, shared by the metrics, sumflow "
                        "four times the others; the time limit stops it only as a safety)")
    add_json_option(b, "print JSON: one object per metric")
    b.set_defaults(handler=cmd_bound)


def _time_limit_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--time-limit", type=number_option(float, low=0, low_open=True, high=MAX_TIME_LIMIT),
                   default=60.0, metavar="S",
                   help=f"seconds for the bounds and the exact search, up to {MAX_TIME_LIMIT:g} (default 60)")


def _workload_options(s: argparse.ArgumentParser) -> None:
    """The options that make the workload and the platform (shared by simulate and bound)."""
    s.add_argument("--scenario", required=True, choices=list("abcdefghij"), type=str.lower,
                   help="scenario of Table 2")
    s.add_argument("--platform", choices=["1", "2"], default=None,
                   help="wastecpu platform for scenarios b-j (default 2; scenario a has its own dgemm servers)")
    s.add_argument("--mu", type=number_option(float, low=0, low_open=True, high=MAX_MU), default=None,
                   help=f"mean inter-arrival time in s, up to {MAX_MU:g} (default the paper's: a 20, b 17, c-d 15, "
                        "e 20, h 28, i 40, j 25)")
    s.add_argument("--seed", type=seed_option(), default=0, help="seed of the workload (default 0)")
    s.add_argument("--interarrival", choices=INTERARRIVAL_LAWS, default="poisson",
                   help="gaps drawn as integer Poisson(mu) (default, the paper's wording) or exponential")
    s.add_argument("--noise", type=number_option(float, low=0, high=MAX_NOISE), default=0.0,
                   help=f"coefficient of variation of real computation times around the tables, 0 to {MAX_NOISE:g} "
                        "(default 0)")
    s.add_argument("--memory", choices=MEMORY_MODELS, default="ram",
                   help="server capacity for dgemm tasks (scenario a): physical memory (default), memory + swap "
                        "(times --swap-share), or unlimited")
    s.add_argument("--swap-share", type=number_option(float, low=0, high=1), default=1.0,
                   help="with --memory ram+swap: share of the swap that counts, 0 to 1 (default 1)")
    s.add_argument("--overflow", choices=OVERFLOWS, default="refuse",
                   help="a request that would exceed a server's memory is refused (default); with close the "
                        "server also refuses every later request (the paper's collapse, §5.2.1)")
    s.add_argument("--compute-scale", action="append", type=_server_factor, default=[], metavar="SERVER=F",
                   help=f"multiply the tabulated computation times of SERVER by F, in (0, {MAX_SCALE:g}]; repeat for "
                        "several servers (e.g. --compute-scale spinnaker=0.916)")
    s.add_argument("--tasks", type=number_option(int, low=1, high=MAX_TASKS), default=None, metavar="N",
                   help="keep only the first N tasks of the workload by arrival (a DAG task counts at its "
                        "application's submission)")


def _server_factor(text: str) -> tuple[str, float]:
    """``SERVER=F`` of ``--compute-scale``: a server name and a factor in (0, MAX_SCALE]."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected SERVER=FACTOR (e.g. spinnaker=0.916), got {text!r}")
    return name.strip().lower(), number_option(float, low=0, low_open=True, high=MAX_SCALE)(value)


def _instance(args: argparse.Namespace):
    """The scenario's instance with the workload and platform options (:func:`vcsched.scenarios.timeshare.build`)."""
    from vcsched.scenarios.timeshare import build

    return build(args.scenario, platform=args.platform, memory=args.memory, swap_share=args.swap_share,
                 compute_scale=args.compute_scale, mu=args.mu, seed=args.seed, interarrival=args.interarrival,
                 noise=args.noise, tasks=args.tasks)


def _references(instance, method: str, time_limit: float, seed: int = 0, iterations: int | None = None) -> dict:
    """The brackets of :func:`lowerbounds.timeshare.references.timeshare_references`, the search started from the
    best of the heuristics' mappings (:func:`heuristics.timeshare.heuristic_mappings`) too."""
    from heuristics.timeshare.policies import heuristic_mappings
    from lowerbounds.timeshare.references import timeshare_references

    return timeshare_references(instance.platform, instance.workload, work_factor=instance.work_factor,
                                method=method, time_limit=time_limit, seed=seed, iterations=iterations,
                                starts=heuristic_mappings(instance))


def _header(instance, seed) -> str:
    mu = "-" if instance.mu is None else f"{instance.mu:g}"
    return (f"scenario {instance.scenario}, platform {instance.platform.name} "
            f"({', '.join(instance.platform.servers)}), mu {mu}, seed {seed}, {instance.workload.n_tasks} tasks")


def cmd_simulate(args: argparse.Namespace) -> int:
    from heuristics.timeshare.policies import RESULT_FIELDS, evaluate, result_row
    from vcsched.errors import InvalidInputError

    if args.bound and args.runs > 1:
        raise InvalidInputError("--bound applies to one run (each of --runs has its own noise); drop --runs or --bound")
    if not args.bound and option_given(args, "time_limit"):
        raise InvalidInputError("--time-limit applies with --bound (the time of the bounds); add --bound or drop "
                                "--time-limit")
    names = list(HEURISTICS) if args.heuristic == "all" else [args.heuristic]
    seeds = seeds_of(args)
    if seeds is not None:
        return _simulate_seeds(args, names, seeds)
    instance = _instance(args)
    rows = [result_row(row) for row in evaluate(instance, names, load_sensor=args.load_sensor,
                                                overflow=args.overflow, runs=args.runs,
                                                mct_completion=args.mct_completion)]
    columns = list(RESULT_FIELDS)
    if args.bound:
        refs = _references(instance, "best", args.time_limit)
        for row in rows:
            _add_bounds(row, refs, instance.workload.n_tasks)
        columns += [f"{m}_{k}" for m in BOUND_METRICS for k in ("bound", "ratio_to_bound", "opt_ratio_low",
                                                                  "opt_ratio_high")]
    if args.json:
        print_json(rows if args.heuristic == "all" else rows[0])
    else:
        print(_header(instance, args.seed))
        print_table(rows, columns, floatfmt="{:.1f}" if not args.bound else "{:.4g}")
    return _interrupted(refs) if args.bound else 0


SEEDS_BOUND_METHOD = "quick"
"""``simulate --seeds --bound``: the bound method of each seed's run (one run: ``best``)."""
SEED_METRICS = ("completed", "makespan", "sumflow", "maxflow", "maxstretch", "meanflow")


def _simulate_seeds(args: argparse.Namespace, names: list[str], seeds: list[int]) -> int:
    """``simulate --seeds``: one workload per seed, every heuristic on it; means, intervals and the
    differences to the first heuristic paired on the seeds (with ``--bound``, each run's ratios too)."""
    from heuristics.timeshare import evaluate, result_row

    metrics = list(SEED_METRICS) + ([f"{m}_ratio_to_bound" for m in BOUND_METRICS] if args.bound else [])

    def run_one(seed: int) -> list[dict]:
        instance = _instance(argparse.Namespace(**{**vars(args), "seed": seed}))
        rows = [result_row(row) for row in evaluate(
            instance, names, load_sensor=args.load_sensor, overflow=args.overflow, runs=args.runs,
            mct_completion=args.mct_completion)]
        if args.bound:
            refs = _references(instance, SEEDS_BOUND_METHOD, args.time_limit)
            if any(r.stopped == "interrupted" for r in refs.values()):
                raise KeyboardInterrupt  # the seed statistics need whole brackets: stop as interrupted
            for row in rows:
                _add_bounds(row, refs, instance.workload.n_tasks)
                for m in BOUND_METRICS:
                    del row[f"{m}_ratio_to_opt"]  # an interval: the seed statistics take numbers
        return rows

    show_over_seeds(args, run_one, seeds, "heuristic", metrics, desc="timeshare")
    return 0


def _add_bounds(row: dict, refs: dict, n_tasks: int) -> None:
    """``<metric>_bound``, ``<metric>_ratio_to_bound`` (value / bound), ``<metric>_upper`` (the best mapping
    found), ``<metric>_ratio_to_opt`` (``[value / upper, value / lower]``) and its two ends as columns; ratios
    are ``None`` for a run that lost tasks, whose metrics cover fewer tasks than the references."""
    from lowerbounds.reference import beside_columns

    for m in BOUND_METRICS:
        row.update(beside_columns(m, row[m], refs[m].bracket, comparable=row["completed"] == n_tasks))


def cmd_bound(args: argparse.Namespace) -> int:
    from lowerbounds.reference import BRACKET_COLUMNS

    instance = _instance(args)
    refs = _references(instance, args.method, args.time_limit, args.search_seed, args.iterations)
    out = {m: r.to_dict() for m, r in refs.items()}
    if args.json:
        print_json(out)
        return _interrupted(refs)
    print(_header(instance, args.seed))
    for m, r in refs.items():
        searched = r.bound.method == "exact" or r.bound.mapping is not None
        if searched or r.bound.message:
            head = f"{m}: exact search {r.bound.status}" if searched else f"{m}:"
            print(f"{head}{': ' if searched and r.bound.message else ' '}{r.bound.message or ''}".rstrip())
    print_table([_bound_row(r) for r in refs.values()], list(BRACKET_COLUMNS), floatfmt="{:.6g}")
    for m, r in refs.items():
        if r.mapping is not None and r.bracket.status == "optimal":
            print(f"{m}: best mapping (server per task) {' '.join(str(s) for s in r.mapping)}")
    return _interrupted(refs)


def _interrupted(refs: dict) -> int:
    """130 (with one line on standard error) when an interrupt stopped a search: what was printed is what had
    been proven and found by then; else 0."""
    if not any(r.stopped == "interrupted" for r in refs.values()):
        return 0
    print("interrupted: the brackets above hold what was proven and found before the interrupt "
          "(a lower end marked interrupted is the bound proven by then; no upper end where no search ran)",
          file=sys.stderr)
    return 130


def _bound_row(ref) -> dict:
    """The bracket's table row; the upper method names where the mapping search started."""
    row = ref.bracket.row()
    if row["upper method"] is not None and ref.start:
        row["upper method"] += f" from {ref.start}"
    return row
