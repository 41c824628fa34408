"""``vcsched vc``: VCSched instances (generate), solvers (solve), dynamic workloads (adapt).

Limits (README, section VCSched, "Limits"): every numeric option has a finite
range (the ``number_option`` calls below); instance sizes are those of
:mod:`vcsched.problems.vc` (``MAX_HOSTS``, ``MAX_TASKS``, ``MAX_HOST_TASKS``);
the exact models are refused above :data:`MAX_MODEL_VARIABLES` binaries and get
:data:`DEFAULT_TIME_LIMIT` seconds when ``--time-limit`` is not given.

Instances with a current placement (``current_host``) and a migration budget:
the exact methods model the budget (eq. 22-31); a heuristic's placement is
relabelled (identical hosts) to keep the most in place, its migrations are
reported, and when it still moves more than the budget the result is
``failed`` (never a success that breaks the budget). The ``adapt-*`` methods
run the adaptation policies of ``heuristics.vc.adapt``, which start from the
current placement and respect the budget.

This module imports only the standard library and the core's light modules
at import time (start-up time); numpy, PuLP and the role packages are
imported inside the commands.

``vc solve`` with only MCB methods (``--method mcb8``, ``mcb1,mcb5``...) on an
instance of one-task jobs without current hosts and with at most
:data:`PLAIN_MAX_TASKS` tasks takes the numpy-free path
(:func:`heuristics.vc.mcb.mcb_plain` on a
:class:`~vcsched.problems.vc_plain.PlainInstance`): same output, without
numpy's import, which alone costs more than the rest of the command. Every
other case (other methods, parallel jobs, current hosts, larger instances)
takes the numpy path, from the same validated file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vcsched.cli.common import (
    check_output_path,
    number_option,
    print_json,
    print_table,
    progress_bar,
    seed_option,
    write_output,
    write_stdout,
)
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.problems.vc_plain import MIN_CPU

if TYPE_CHECKING:
    from vcsched.problems.vc import VCInstance
    from vcsched.problems.vc_plain import PlainInstance
    from vcsched.result import Result

EXACT_METHODS = ("milp", "milp-literal", "lp", "lp-literal", "lp-closed", "certify")
CERTIFY_HEURISTICS = ("mcb8", "sg", "gr")
"""Heuristics whose placements ``certify`` starts from (with the core greedy)."""
CERTIFY_DEFAULT_TIME_LIMIT = 60.0

MAX_GENERATE = 100_000
"""``vc generate``: most hosts and most jobs."""
MAX_CV = 10.0
"""``vc generate``: largest coefficient of variation (a round of redrawing keeps >= ~8 % of the draws)."""
MAX_TIME_LIMIT = 1e6
"""Largest ``--time-limit`` (seconds)."""
MAX_ADAPT_HOSTS = 1_000
"""``vc adapt``: most hosts (the mcb8 policies relabel hosts with an H x H assignment problem)."""
MAX_RATE = 1e4
"""``vc adapt``: largest arrival rate."""
MAX_TIME = 1e12
"""``vc adapt``: largest duration and mean lifetime."""

TIMED_METHODS = ("milp", "milp-literal", "lp", "lp-literal")
"""Exact methods that take a time limit; they get :data:`DEFAULT_TIME_LIMIT` when none is given."""

DEFAULT_TIME_LIMIT = 60.0
"""Seconds given to each timed exact method when ``--time-limit`` is absent, so that
``--method all`` ends in predictable time at any size (at most about 2 x 60 s plus model
building for MILP and LP, plus the heuristics). Reaching it is reported: status
``feasible`` (with the gap) or ``time_limit``, and the message says it was the default."""

MAX_MODEL_VARIABLES = 100_000
"""Largest model built: ``hosts x jobs`` (compact ``milp``/``lp``, and the LP that ``rrnd``/``rrnz``
round) or ``hosts x tasks`` (``milp-literal``/``lp-literal``) assignment variables. Building
a model with PuLP takes 50-100 microseconds per variable (5-10 s at the limit, measured on
a shared 2-core machine), outside the solver's time limit; a larger one is refused at once
(with ``--method all`` the method is left out, with a note on standard error)."""

ADAPT_METHODS = ("adapt-none", "adapt-mcb8", "adapt-mcb8-sticky", "adapt-local-search")
"""Adaptation policies (``heuristics.vc.adapt``) run as one-shot methods: they start from the
instance's current placement and never exceed its migration budget."""

PLAIN_MAX_TASKS = 5_000
"""``vc solve``: largest instance (in tasks) that MCB methods solve on the numpy-free path
(module docstring). That path saves numpy's import but its lists are slower than the
arrays of the numpy path (about 1.3x); measured with ``benchmarks/bench_startup.py
--paths`` (CPU seconds, shared machine, numpy's import 0.13 s): plain 0.139 s vs numpy
0.108 + 0.130 s at 5,000 tasks, 0.343 vs 0.273 + 0.130 at 10,000, 0.959 vs 0.749 + 0.130
at 20,000. The break-even lies between 10,000 and 20,000 tasks there, and lower where
numpy imports faster (0.05 s on an idle machine puts it near 8,000), hence 5,000."""

MAX_EXPECTED_ARRIVALS = 20_000
"""``vc adapt``: largest ``--arrival-rate x --duration`` (expected arrivals; each arrival and
departure is one adaptation of every job in the system)."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("vc", help="VCSched: max-min yield allocation of VMs on identical hosts (seed 001)")
    vsub = p.add_subparsers(dest="vc_command", metavar="ACTION")
    vsub.required = True

    g = vsub.add_parser("generate", help="generate an instance as in seed 001 §4.1")
    g.add_argument("--hosts", type=number_option(int, low=1, high=MAX_GENERATE), required=True,
                   help=f"hosts, 1 to {MAX_GENERATE:,}")
    g.add_argument("--jobs", type=number_option(int, low=1, high=MAX_GENERATE), required=True,
                   help=f"jobs, 1 to {MAX_GENERATE:,} (and at most 1,000,000 tasks in all)")
    g.add_argument("--slack", type=number_option(float, low=0, high=1, high_open=True), required=True,
                   help="memory slack in [0, 1)")
    g.add_argument("--cv-mem", type=number_option(float, low=0, high=MAX_CV), default=0.25,
                   help=f"coefficient of variation of memory needs, 0 to {MAX_CV:g} (default 0.25)")
    g.add_argument("--cv-cpu", type=number_option(float, low=0, high=MAX_CV), default=0.25,
                   help=f"coefficient of variation of CPU needs, 0 to {MAX_CV:g} (default 0.25)")
    g.add_argument("--mean-cpu", type=number_option(float, low=MIN_CPU, low_open=True, high=1), default=0.5,
                   help=f"mean CPU need, in ({MIN_CPU:g}, 1] as in the instance files (default 0.5)")
    g.add_argument("--tasks", choices=["one", "lublin"], default="one", help="task counts: one per job, or Lublin-Feitelson (1-64)")
    g.add_argument("--seed", type=seed_option(), default=0)
    g.add_argument("-o", "--output", help="output file (default: standard output)")
    g.set_defaults(handler=cmd_generate)

    s = vsub.add_parser("solve", help="solve an instance file with an exact method, a bound or a heuristic")
    s.add_argument("instance", help="instance JSON file")
    s.add_argument("--method", default="milp", help="milp, milp-literal, lp, lp-literal, lp-closed, certify, a heuristic "
                   "(mcb1..mcb8, gr, sg, gb, sgb, rrnd, rrnz), an adaptation policy (adapt-none, adapt-mcb8, "
                   "adapt-mcb8-sticky, adapt-local-search) or all; several separated by commas")
    s.add_argument("--time-limit", type=number_option(float, low=0, low_open=True, high=MAX_TIME_LIMIT), default=None,
                   help=f"seconds for each exact method, up to {MAX_TIME_LIMIT:g} (default {DEFAULT_TIME_LIMIT:g}; "
                        f"certify: {CERTIFY_DEFAULT_TIME_LIMIT:g})")
    s.add_argument("--gap", type=number_option(float, low=0, high=1), default=None,
                   help="relative MIP gap at which to stop, in [0, 1] (certify: the certified gap)")
    s.add_argument("--budget-mode", choices=["memory", "count"], default="memory",
                   help="migration budget in memory units (eq. 31) or in moved tasks")
    s.add_argument("--seed", type=seed_option(), default=0, help="seed of randomised heuristics")
    s.add_argument("--json", action="store_true", help="print JSON (one object, or a list with several methods)")
    s.set_defaults(handler=cmd_solve)

    a = vsub.add_parser("adapt", help="dynamic workload: adapt the allocation at every arrival/departure (§6)")
    a.add_argument("--hosts", type=number_option(int, low=1, high=MAX_ADAPT_HOSTS), required=True,
                   help=f"hosts, 1 to {MAX_ADAPT_HOSTS:,}")
    a.add_argument("--arrival-rate", type=number_option(float, low=0, low_open=True, high=MAX_RATE),
                   help=f"Poisson arrivals per time unit, up to {MAX_RATE:g} (required without --swf); "
                        f"rate x duration at most {MAX_EXPECTED_ARRIVALS:,}")
    a.add_argument("--mean-lifetime", type=number_option(float, low=0, low_open=True, high=MAX_TIME),
                   help="mean of the exponential lifetimes (required without --swf)")
    a.add_argument("--duration", type=number_option(float, low=0, low_open=True, high=MAX_TIME), required=True,
                   help=f"simulated time, up to {MAX_TIME:g}")
    a.add_argument("--seed", type=seed_option(), default=0)
    a.add_argument("--policy", required=True, help="exact, none, mcb8, mcb8-sticky or local-search")
    a.add_argument("--budget", type=_budget_value, required=True,
                   help="memory that may move at each adaptation (eq. 31); 'inf' for unbounded")
    a.add_argument("--budget-mode", choices=["memory", "count"], default="memory")
    a.add_argument("--slack", type=number_option(float, low=0, high=1, high_open=True), default=0.5,
                   help="memory slack at the mean number of jobs, in [0, 1)")
    a.add_argument("--tasks", choices=["one", "lublin"], default="one")
    a.add_argument("--time-limit", type=number_option(float, low=0, low_open=True, high=MAX_TIME_LIMIT), default=10.0,
                   help="MILP seconds per event (policy exact)")
    a.add_argument("--swf", help="take the jobs from an SWF trace (file or name in $VCSCHED_TRACES) instead of Poisson "
                   "arrivals: processors become tasks, --duration seconds from the trace's start")
    a.add_argument("--events-csv", help="write the per-event trace (time, kind, job, yields, migrations) as CSV")
    a.add_argument("--json", action="store_true")
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
        return number_option(float, low=0)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0 or 'inf', got {text!r}") from None


def cmd_adapt(args: argparse.Namespace) -> int:
    if args.events_csv:
        check_output_path(args.events_csv, option="--events-csv", inputs=[args.swf] if args.swf else [])
    if not args.swf:
        if args.arrival_rate is None or args.mean_lifetime is None:
            raise InvalidInputError("vc adapt: give --arrival-rate and --mean-lifetime (or --swf TRACE)")
        expected = args.arrival_rate * args.duration
        if expected > MAX_EXPECTED_ARRIVALS:
            raise InvalidInputError(f"vc adapt: --arrival-rate {args.arrival_rate:g} x --duration {args.duration:g} = "
                                    f"{expected:.4g} expected arrivals, more than the limit of {MAX_EXPECTED_ARRIVALS:,}; "
                                    "lower the rate or the duration")
    from heuristics.vc.adapt import ADAPT_POLICIES, make_policy
    from vcsched.scenarios.vc_dynamic import poisson_workload
    from vcsched.sim.vcdynamic import simulate_dynamic

    if args.policy.lower() not in ADAPT_POLICIES:
        raise UnknownNameError(f"--policy: unknown policy {args.policy!r}; choose one of: {', '.join(ADAPT_POLICIES.names())}")
    if args.swf:
        from vcsched.data import trace_path
        from vcsched.problems.workload import read_swf, time_window
        from vcsched.scenarios.vc_dynamic import swf_workload

        jobs = read_swf(trace_path(args.swf))
        start = float(jobs.submit_time.min()) if len(jobs) else 0.0
        jobs = time_window(jobs, start=start, end=start + args.duration)
        workload = swf_workload(jobs, args.hosts, slack=args.slack, rng=args.seed)
    else:
        workload = poisson_workload(args.hosts, args.arrival_rate, args.mean_lifetime, args.duration, slack=args.slack,
                                    tasks=None if args.tasks == "one" else "lublin", rng=args.seed)
    policy = make_policy(args.policy, budget_mode=args.budget_mode, time_limit=args.time_limit)
    bar, update = progress_bar(args.duration, disable=args.no_progress, desc="vc adapt", bar_format=ADAPT_BAR)
    try:
        result = simulate_dynamic(args.hosts, workload, policy, budget=args.budget, duration=args.duration,
                                  progress=update)
    finally:
        bar.close()
    if args.events_csv:
        write_output(args.events_csv, _events_csv(result.trace), option="--events-csv")
    doc = result.to_dict()
    doc.pop("mean_avg_yield", None)
    doc["mean_avg_yield"] = result.mean_avg_yield
    doc["budget"] = result.budget if result.budget != float("inf") else "inf"
    if args.json:
        print_json(doc)
    else:
        print_table([doc], ["policy", "budget", "mean_min_yield", "min_min_yield", "migrated_memory", "migrations",
                            "rejected", "events"])
    return 0


def _events_csv(trace) -> str:
    """The per-event trace as CSV text (one row per event, the fields of the trace records)."""
    import pandas as pd

    return pd.DataFrame([r.__dict__ for r in trace]).to_csv(index=False)


def cmd_generate(args: argparse.Namespace) -> int:
    if args.output:
        check_output_path(args.output, option="-o")
    import json

    from vcsched.generators.vc import generate_vc_instance
    from vcsched.problems.vc import MAX_TASKS, check_size, instance_to_dict

    if args.tasks == "lublin" and args.jobs > MAX_TASKS // 64:
        check_size(args.hosts, args.jobs * 64, where="vc generate --tasks lublin (up to 64 tasks per job)")
    check_size(args.hosts, args.jobs, where="vc generate")
    inst = generate_vc_instance(args.hosts, args.jobs, args.slack, args.cv_mem, args.cv_cpu, mean_cpu=args.mean_cpu,
                                tasks=None if args.tasks == "one" else "lublin", rng=args.seed)
    text = json.dumps(instance_to_dict(inst), indent=1) + "\n"
    if args.output:
        write_output(args.output, text, option="-o")
    else:
        write_stdout(text)
    return 0


def _heuristics():
    try:
        from heuristics.vc import REGISTRY
    except ImportError:  # pragma: no cover
        return None
    return REGISTRY


def available_methods() -> list[str]:
    reg = _heuristics()
    return list(EXACT_METHODS) + (reg.names() if reg is not None else []) + list(ADAPT_METHODS)


def model_variables(name: str, instance: VCInstance) -> int | None:
    """Assignment variables of the exact model behind ``name`` (None for methods without a model)."""
    if name in ("milp", "lp", "rrnd", "rrnz"):
        return instance.hosts * instance.n_jobs
    if name in ("milp-literal", "lp-literal"):
        return instance.hosts * instance.n_tasks
    return None


def size_refusal(name: str, instance: VCInstance) -> str | None:
    """Why ``name`` cannot run on ``instance`` within the documented limits, or None."""
    n = model_variables(name, instance)
    if n is not None and n > MAX_MODEL_VARIABLES:
        return (f"{name}: the model would have {instance.hosts:,} hosts x {n // instance.hosts:,} "
                f"{'tasks' if name.endswith('-literal') else 'jobs'} = {n:,} assignment variables, more than the limit of "
                f"{MAX_MODEL_VARIABLES:,}; use lp-closed or a heuristic (e.g. mcb8)")
    if name in ADAPT_METHODS and instance.hosts > MAX_ADAPT_HOSTS:
        return (f"{name}: {instance.hosts:,} hosts is more than the limit of {MAX_ADAPT_HOSTS:,} of the adaptation "
                "policies; use a heuristic or milp")
    return None


def method_function(name: str) -> Callable[..., Result]:
    """The callable behind a method name: ``f(instance, *, time_limit, gap, budget_mode, seed)``.

    Heuristics also take ``lp=`` (a precomputed LP relaxation, used by ``rrnd``/``rrnz``)."""
    name = name.lower()
    if name in ("milp", "milp-literal"):
        from vcsched.formulations.vc_milp import solve_vc_milp

        formulation = "compact" if name == "milp" else "literal"
        return lambda inst, time_limit=None, gap=None, budget_mode="memory", seed=0, **_: solve_vc_milp(
            inst, formulation=formulation, time_limit=time_limit, gap_rel=gap, budget_mode=budget_mode)
    if name in ("lp", "lp-literal"):
        from lowerbounds.vc import lp_relaxation

        formulation = "compact" if name == "lp" else "literal"
        return lambda inst, time_limit=None, **_: lp_relaxation(inst, formulation=formulation, time_limit=time_limit)
    if name == "lp-closed":
        from lowerbounds.vc import closed_form_bound

        return lambda inst, **_: closed_form_bound(inst)
    if name in ADAPT_METHODS:
        return lambda inst, budget_mode="memory", **_: run_adapt_policy(inst, name[len("adapt-"):], budget_mode)
    if name == "certify":
        return certify_method
    reg = _heuristics()
    if reg is None or name not in reg:
        raise UnknownNameError(f"unknown method {name!r}; choose one of: {', '.join(available_methods() + ['all'])}")
    fn = reg.get(name)
    takes_lp = name in ("rrnd", "rrnz")

    def run(inst, seed=0, budget_mode="memory", lp=None, **_):
        options = {"lp": lp} if takes_lp and lp is not None else {}
        return respect_current_placement(inst, fn(inst, rng=seed, **options), budget_mode)

    return run


def _migration_extra(instance: VCInstance, task_host) -> dict[str, Any]:
    from vcsched.formulations.vc_milp import migration_cost

    return migration_cost(instance, task_host)


def _spent(cost: dict[str, Any], budget_mode: str) -> float:
    return float(cost["migrated_memory"] if budget_mode == "memory" else cost["migrations"])


def respect_current_placement(instance: VCInstance, result: Result, budget_mode: str) -> Result:
    """A heuristic's result on an instance with current hosts: relabel its hosts (identical
    hosts, :func:`heuristics.vc.adapt.relabel_to_keep`, when ``hosts <= MAX_ADAPT_HOSTS``) to
    keep the most memory (or tasks) in place, report ``migrations`` and ``migrated_memory``,
    and return ``failed`` when the placement still moves more than the migration budget.

    Heuristics place from scratch (seed 001 §3); they are not budget-aware. Relabelling only
    renames hosts, so the yields are unchanged. Instances without current hosts pass through.
    """
    if instance.current_host is None or not result.status.has_solution:
        return result
    import numpy as np

    from vcsched.problems.vc import Allocation
    from vcsched.result import Status

    placement = np.asarray(result.solution.task_host)
    if instance.hosts <= MAX_ADAPT_HOSTS:
        from heuristics.vc.adapt import relabel_to_keep

        placement = relabel_to_keep(instance, placement, budget_mode)
    cost = _migration_extra(instance, placement)
    extra = dict(result.extra, **cost)
    budget = instance.migration_budget
    spent = _spent(cost, budget_mode)
    if budget is not None and spent > budget + 1e-9:
        unit = "memory" if budget_mode == "memory" else "tasks"
        return result.replace(status=Status.FAILED, objective=None, solution=None, gap=None, extra=extra,
                              message=f"its placement (min yield {result.objective:.4g}) moves {spent:.4g} {unit} from "
                                      f"the current hosts, more than the migration budget {budget:.4g}; this heuristic "
                                      "places from scratch: use milp or an adapt-* method to respect the budget")
    solution = Allocation(placement, np.asarray(result.solution.task_cpu))
    return result.replace(solution=solution, extra=extra)


def run_adapt_policy(instance: VCInstance, policy: str, budget_mode: str) -> Result:
    """One adaptation of ``heuristics.vc.adapt`` as a solve method: from the current
    placement, within ``instance.migration_budget`` (unbounded when absent), then the
    average-yield phase; ``failed`` when the policy finds no placement."""
    import math
    import time

    from heuristics.vc.adapt import ADAPT_POLICIES
    from vcsched.problems.vc import allocation_from_placement, check_allocation
    from vcsched.result import Result, Status

    t0 = time.perf_counter()
    budget = math.inf if instance.migration_budget is None else instance.migration_budget
    task_host = ADAPT_POLICIES.get(policy)(instance, budget, budget_mode)
    name = f"adapt-{policy}"
    if task_host is None:
        return Result(name, Status.FAILED, seconds=time.perf_counter() - t0,
                      message="no placement within the migration budget holds every job")
    alloc = allocation_from_placement(instance, task_host)
    report = check_allocation(instance, alloc)
    cost = _migration_extra(instance, alloc.task_host)
    if not report.valid or (cost and _spent(cost, budget_mode) > budget + 1e-9):  # pragma: no cover - a bug
        return Result(name, Status.FAILED, seconds=time.perf_counter() - t0,
                      message="the policy's placement breaks a constraint: " + "; ".join(report.violations[:2]))
    return Result(name, Status.FEASIBLE, objective=report.min_yield, solution=alloc, seconds=time.perf_counter() - t0,
                  extra={"avg_yield": report.avg_yield, **cost})


def certify_method(instance: VCInstance, time_limit: float | None = CERTIFY_DEFAULT_TIME_LIMIT, gap: float | None = None,
                   seed: int = 0, **_: Any) -> Result:
    """``certify`` wired: :func:`lowerbounds.vc_certify.certify` with the placements of
    :data:`CERTIFY_HEURISTICS` and :func:`heuristics.vc.improve.improve_placement`.

    ``time_limit`` None means :data:`CERTIFY_DEFAULT_TIME_LIMIT` seconds (certify always
    stops); ``gap`` (``--gap``) is the certified relative gap at which to stop (default: the
    optimality tolerance 1e-4; a larger gap is reported ``feasible``).
    """
    from heuristics.vc import REGISTRY
    from heuristics.vc.improve import improve_placement
    from lowerbounds.vc_certify import DEFAULT_GAP_TOL, certify

    if instance.current_host is not None and instance.migration_budget is not None:
        raise InvalidInputError("certify places from scratch and does not model a migration budget; use milp "
                                "(seed 001 eq. 22-31) or an adapt-* method on instances with current hosts and a budget")

    return certify(instance, heuristics=[REGISTRY.get(n) for n in CERTIFY_HEURISTICS], improve=improve_placement,
                   time_limit=CERTIFY_DEFAULT_TIME_LIMIT if time_limit is None else time_limit,
                   gap_tol=DEFAULT_GAP_TOL, stop_gap=gap, rng=seed)


def resolve_methods(text: str, instance: VCInstance | None = None) -> list[str]:
    """Method names of ``--method`` in order, ``all`` expanded: MILP, LP, every heuristic and,
    when ``instance`` has current hosts, the ``adapt-*`` methods."""
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    if not names:
        raise InvalidInputError("--method: give at least one method")
    known = available_methods()
    out: list[str] = []
    for n in names:
        if n == "all":
            out += ["milp", "lp"] + [m for m in known if m not in EXACT_METHODS and m not in ADAPT_METHODS]
            if instance is not None and instance.current_host is not None:
                out += list(ADAPT_METHODS)
        elif n in known:
            out.append(n)
        else:
            raise UnknownNameError(f"--method: unknown method {n!r}; choose one of: {', '.join(known + ['all'])}")
    return list(dict.fromkeys(out))


def result_to_json(result: Result, instance: VCInstance | PlainInstance) -> dict[str, Any]:
    """The JSON fields of ``vcsched vc solve --json`` (README: CLI)."""
    from vcsched.problems.vc_plain import Allocation

    alloc = result.solution if isinstance(result.solution, Allocation) else None
    has = result.status.has_solution
    out = {
        "method": result.method,
        "status": result.status.value,
        "min_yield": result.objective if has else None,
        "avg_yield": result.extra.get("avg_yield") if has and alloc is not None else None,
        "assignment": alloc.assignment(instance) if alloc is not None else None,
        "cpu": alloc.cpu(instance) if alloc is not None else None,
        "bound": result.bound,
        "gap": result.gap,
        "seconds": result.seconds,
        "message": result.message,
    }
    for key in ("migrations", "migrated_memory", "seconds_first_phase", "time_limit"):
        if key in result.extra:
            out[key] = result.extra[key]
    if result.method == "certify":
        out["extra"] = {k: v for k, v in result.extra.items() if k != "avg_yield"}
    return out


def _with_time_limit(result: Result, limit: float, *, default: bool) -> Result:
    """Record the time limit used in ``extra["time_limit"]`` (the JSON field ``time_limit``) and,
    when it was the default and was reached, say so in the message."""
    from vcsched.result import Status

    extra = dict(result.extra, time_limit=limit)
    message = result.message
    if default and result.status in (Status.FEASIBLE, Status.TIME_LIMIT):
        message = (f"{message}; " if message else "") + (
            f"stopped at the default time limit of {limit:g} s (give --time-limit to change it)")
    return result.replace(extra=extra, message=message)


def plain_variants(text: str) -> list[int] | None:
    """The MCB variants of ``--method`` when it names MCB methods only (in order, without
    repeats), else None."""
    names = list(dict.fromkeys(t.strip().lower() for t in text.split(",") if t.strip()))
    variants = [int(n[3:]) for n in names if n in {f"mcb{v}" for v in range(1, 9)}]
    return variants if names and len(variants) == len(names) else None


def solve_plain(text: str, instance: PlainInstance, *, max_tasks: int | None = None) -> list[dict[str, Any]] | None:
    """The rows of ``vc solve`` by the numpy-free path (module docstring), or None when the
    path does not apply to these methods and this instance (``max_tasks``: default
    :data:`PLAIN_MAX_TASKS`)."""
    variants = plain_variants(text)
    limit = PLAIN_MAX_TASKS if max_tasks is None else max_tasks
    if variants is None or instance.current_host is not None or instance.is_parallel or instance.n_tasks > limit:
        return None
    from heuristics.vc.mcb import mcb_plain

    return [result_to_json(mcb_plain(instance, v), instance) for v in variants]


def cmd_solve(args: argparse.Namespace) -> int:
    from vcsched.problems.vc_plain import load_plain_instance

    plain = load_plain_instance(args.instance)
    rows = solve_plain(args.method, plain)
    if rows is None:
        from vcsched.problems.vc import VCInstance

        rows = solve_rows(args, VCInstance.from_plain(plain))
    if args.json:
        print_json(rows[0] if len(rows) == 1 else rows)
    else:
        print_table(rows, ["method", "status", "min_yield", "avg_yield", "bound", "gap", "seconds"])
    return 0


def solve_rows(args: argparse.Namespace, instance: VCInstance) -> list[dict[str, Any]]:
    """The rows of ``vc solve`` by the numpy path: every method, refusals and notes, time limits."""
    methods = resolve_methods(args.method, instance)
    named = [t.strip().lower() for t in args.method.split(",")]
    runnable = []
    for name in methods:
        reason = size_refusal(name, instance)
        if reason is None:
            runnable.append(name)
        elif name in named:  # asked for by name: refused
            raise InvalidInputError(f"{args.instance}: {reason}")
        else:  # brought in by `all`: left out
            print(f"vcsched: note: {reason}; left out of --method all", file=sys.stderr)
    rows = []
    lp = None
    for name in runnable:
        fn = method_function(name)
        limit = args.time_limit
        if limit is None and name in TIMED_METHODS:
            limit = DEFAULT_TIME_LIMIT
        result = fn(instance, time_limit=limit, gap=args.gap, budget_mode=args.budget_mode, seed=args.seed, lp=lp)
        if name == "lp" and result.status.value == "optimal":
            lp = result  # shared with rrnd/rrnz, which would solve the same LP again
        if name in TIMED_METHODS:
            result = _with_time_limit(result, limit, default=args.time_limit is None)
        rows.append(result_to_json(result, instance))
    return rows
