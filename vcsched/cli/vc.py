"""``vcsched vc``: VCSched instances (generate) and solvers (solve)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable

from vcsched.cli.common import nonneg_int, positive_float, positive_int, print_json, print_table, unit_float
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.problems.vc import Allocation, VCInstance, instance_to_dict, load_instance
from vcsched.result import Result

EXACT_METHODS = ("milp", "milp-literal", "lp", "lp-literal", "lp-closed", "certify")
CERTIFY_HEURISTICS = ("mcb8", "sg", "gr")
"""Heuristics whose placements ``certify`` starts from (with the core greedy)."""
CERTIFY_DEFAULT_TIME_LIMIT = 60.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("vc", help="VCSched: max-min yield allocation of VMs on identical hosts (seed 001)")
    vsub = p.add_subparsers(dest="vc_command", metavar="ACTION")
    vsub.required = True

    g = vsub.add_parser("generate", help="generate an instance as in seed 001 §4.1")
    g.add_argument("--hosts", type=positive_int, required=True)
    g.add_argument("--jobs", type=positive_int, required=True)
    g.add_argument("--slack", type=unit_float, required=True, help="memory slack in [0, 1)")
    g.add_argument("--cv-mem", type=positive_float, default=0.25)
    g.add_argument("--cv-cpu", type=positive_float, default=0.25)
    g.add_argument("--mean-cpu", type=positive_float, default=0.5)
    g.add_argument("--tasks", choices=["one", "lublin"], default="one", help="task counts: one per job, or Lublin-Feitelson (1-64)")
    g.add_argument("--seed", type=nonneg_int, default=0)
    g.add_argument("-o", "--output", help="output file (default: standard output)")
    g.set_defaults(handler=cmd_generate)

    s = vsub.add_parser("solve", help="solve an instance file with an exact method, a bound or a heuristic")
    s.add_argument("instance", help="instance JSON file")
    s.add_argument("--method", default="milp", help="milp, milp-literal, lp, lp-literal, lp-closed, certify, a heuristic "
                   "(mcb1..mcb8, gr, sg, gb, sgb, rrnd, rrnz) or all; several separated by commas")
    s.add_argument("--time-limit", type=positive_float, default=None, help="seconds for the MILP (default: none; certify: 60)")
    s.add_argument("--gap", type=float, default=None, help="relative MIP gap at which to stop (certify: certified gap)")
    s.add_argument("--budget-mode", choices=["memory", "count"], default="memory",
                   help="migration budget in memory units (eq. 31) or in moved tasks")
    s.add_argument("--seed", type=nonneg_int, default=0, help="seed of randomised heuristics")
    s.add_argument("--json", action="store_true", help="print JSON (one object, or a list with several methods)")
    s.set_defaults(handler=cmd_solve)

    a = vsub.add_parser("adapt", help="dynamic workload: adapt the allocation at every arrival/departure (§6)")
    a.add_argument("--hosts", type=positive_int, required=True)
    a.add_argument("--arrival-rate", type=positive_float, help="Poisson arrivals per time unit (required without --swf)")
    a.add_argument("--mean-lifetime", type=positive_float, help="mean of the exponential lifetimes (required without --swf)")
    a.add_argument("--duration", type=positive_float, required=True, help="simulated time")
    a.add_argument("--seed", type=nonneg_int, default=0)
    a.add_argument("--policy", required=True, help="exact, none, mcb8, mcb8-sticky or local-search")
    a.add_argument("--budget", type=_budget_value, required=True,
                   help="memory that may move at each adaptation (eq. 31); 'inf' for unbounded")
    a.add_argument("--budget-mode", choices=["memory", "count"], default="memory")
    a.add_argument("--slack", type=unit_float, default=0.5, help="memory slack at the mean number of jobs")
    a.add_argument("--tasks", choices=["one", "lublin"], default="one")
    a.add_argument("--time-limit", type=positive_float, default=10.0, help="MILP seconds per event (policy exact)")
    a.add_argument("--swf", help="take the jobs from an SWF trace (file or name in $VCSCHED_TRACES) instead of Poisson "
                   "arrivals: processors become tasks, --duration seconds from the trace's start")
    a.add_argument("--events-csv", help="write the per-event trace (time, kind, job, yields, migrations) as CSV")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=cmd_adapt)


def _budget_value(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0 or 'inf', got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0 or 'inf', got {text!r}")
    return value


def cmd_adapt(args: argparse.Namespace) -> int:
    from heuristics.vc.adapt import ADAPT_POLICIES, make_policy
    from vcsched.sim.vcdynamic import poisson_workload, simulate_dynamic

    if args.policy.lower() not in ADAPT_POLICIES:
        raise UnknownNameError(f"--policy: unknown policy {args.policy!r}; choose one of: {', '.join(ADAPT_POLICIES.names())}")
    if args.swf:
        from vcsched.data import trace_path
        from vcsched.problems.workload import read_swf, time_window
        from vcsched.sim.vcdynamic import swf_workload

        jobs = read_swf(trace_path(args.swf))
        start = float(jobs.submit_time.min()) if len(jobs) else 0.0
        jobs = time_window(jobs, start=start, end=start + args.duration)
        workload = swf_workload(jobs, args.hosts, slack=args.slack, rng=args.seed)
    else:
        if args.arrival_rate is None or args.mean_lifetime is None:
            raise InvalidInputError("vc adapt: give --arrival-rate and --mean-lifetime (or --swf TRACE)")
        workload = poisson_workload(args.hosts, args.arrival_rate, args.mean_lifetime, args.duration, slack=args.slack,
                                    tasks=None if args.tasks == "one" else "lublin", rng=args.seed)
    policy = make_policy(args.policy, budget_mode=args.budget_mode, time_limit=args.time_limit)
    result = simulate_dynamic(args.hosts, workload, policy, budget=args.budget, duration=args.duration)
    if args.events_csv:
        import pandas as pd

        pd.DataFrame([r.__dict__ for r in result.trace]).to_csv(args.events_csv, index=False)
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


def cmd_generate(args: argparse.Namespace) -> int:
    from vcsched.generators.vc import generate_vc_instance

    inst = generate_vc_instance(args.hosts, args.jobs, args.slack, args.cv_mem, args.cv_cpu, mean_cpu=min(args.mean_cpu, 1.0),
                                tasks=None if args.tasks == "one" else "lublin", rng=args.seed)
    text = json.dumps(instance_to_dict(inst), indent=1) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _heuristics():
    try:
        from heuristics.vc import REGISTRY
    except ImportError:  # pragma: no cover
        return None
    return REGISTRY


def available_methods() -> list[str]:
    reg = _heuristics()
    return list(EXACT_METHODS) + (reg.names() if reg is not None else [])


def method_function(name: str) -> Callable[..., Result]:
    """The callable behind a method name: ``f(instance, *, time_limit, gap, budget_mode, seed)``."""
    name = name.lower()
    if name in ("milp", "milp-literal"):
        from vcsched.formulations.vc_milp import solve_vc_milp

        formulation = "compact" if name == "milp" else "literal"
        return lambda inst, time_limit=None, gap=None, budget_mode="memory", seed=0: solve_vc_milp(
            inst, formulation=formulation, time_limit=time_limit, gap_rel=gap, budget_mode=budget_mode)
    if name in ("lp", "lp-literal"):
        from lowerbounds.vc import lp_relaxation

        formulation = "compact" if name == "lp" else "literal"
        return lambda inst, time_limit=None, **_: lp_relaxation(inst, formulation=formulation, time_limit=time_limit)
    if name == "lp-closed":
        from lowerbounds.vc import closed_form_bound

        return lambda inst, **_: closed_form_bound(inst)
    if name == "certify":
        return certify_method
    reg = _heuristics()
    if reg is None or name not in reg:
        raise UnknownNameError(f"unknown method {name!r}; choose one of: {', '.join(available_methods() + ['all'])}")
    fn = reg.get(name)
    return lambda inst, seed=0, **_: fn(inst, rng=seed)


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

    return certify(instance, heuristics=[REGISTRY.get(n) for n in CERTIFY_HEURISTICS], improve=improve_placement,
                   time_limit=CERTIFY_DEFAULT_TIME_LIMIT if time_limit is None else time_limit,
                   gap_tol=DEFAULT_GAP_TOL, stop_gap=gap, rng=seed)


def resolve_methods(text: str) -> list[str]:
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    if not names:
        raise InvalidInputError("--method: give at least one method")
    out: list[str] = []
    for n in names:
        if n == "all":
            out += ["milp", "lp"] + [m for m in available_methods() if m not in EXACT_METHODS]
        elif n in available_methods():
            out.append(n)
        else:
            raise UnknownNameError(f"--method: unknown method {n!r}; choose one of: {', '.join(available_methods() + ['all'])}")
    return list(dict.fromkeys(out))


def result_to_json(result: Result, instance: VCInstance) -> dict[str, Any]:
    """The JSON fields of ``vcsched vc solve --json`` (README: CLI)."""
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
    for key in ("migrations", "migrated_memory", "seconds_first_phase"):
        if key in result.extra:
            out[key] = result.extra[key]
    if result.method == "certify":
        out["extra"] = {k: v for k, v in result.extra.items() if k != "avg_yield"}
    return out


def cmd_solve(args: argparse.Namespace) -> int:
    instance = load_instance(args.instance)
    if args.gap is not None and not args.gap >= 0:
        raise InvalidInputError(f"--gap must be >= 0, got {args.gap}")
    methods = resolve_methods(args.method)
    rows = []
    for name in methods:
        fn = method_function(name)
        result = fn(instance, time_limit=args.time_limit, gap=args.gap, budget_mode=args.budget_mode, seed=args.seed)
        rows.append(result_to_json(result, instance))
    if args.json:
        print_json(rows[0] if len(rows) == 1 else rows)
    else:
        print_table(rows, ["method", "status", "min_yield", "avg_yield", "bound", "gap", "seconds"])
    return 0
