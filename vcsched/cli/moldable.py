"""``vcsched moldable``: moldable tasks of seed 002 (generate, solve, bound).

::

    vcsched moldable generate --m 200 --n 100 --kind high --seed 1 -o inst.json
    vcsched moldable solve inst.json --method bicriteria|gang|sequential|list-shelf|list-lptf|list-saf|all [--json]
    vcsched moldable solve inst.json --method exact [--time-limit S] [--formulation auto|time-indexed|flow|branch-and-bound]
                                   [--grain G|auto] [--json]
    vcsched moldable bound inst.json [--method interval|refined] [--integer] [--time-limit S] [--json]

``solve --json`` prints one object (a list with ``all`` or several
comma-separated methods) with ``method``, ``status``, ``makespan``,
``minsum``, ``seconds`` and ``schedule`` (one object per task: ``task``,
``start``, ``procs``, ``processors``); ``exact`` adds ``bound``, ``gap`` and
``formulation``. ``bound --json`` prints ``minsum_lb``, ``makespan_lb``,
``status``, ``seconds``.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from vcsched.cli import common
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.names.moldable import BOUND_METHODS, DUALS, EXACT, FORMULATIONS, KINDS
from vcsched.names.moldable import HEURISTICS as METHODS
from vcsched.problems.moldable_limits import MAX_GENERATED_TASKS, MAX_PROCESSORS, MAX_VALUE, MIN_VALUE

"""``solve --dual``: same names as ``heuristics.moldable.dual_approximation``'s ``dual=``."""

MAX_SHUFFLES = 10_000
"""``moldable solve --shuffles``: most shuffles of the batch order."""
EPS_RANGE = (1e-6, 1.0)
"""``moldable solve --eps``: precision of the dual approximation (below 1e-6 the bisection
works below the precision of the times)."""


SOLVE_OPTIONS = {"seed": "rng", "shuffles": "shuffles", "eps": "eps", "dual": "dual", "time_limit": "time_limit",
                  "formulation": "formulation", "grain": "grain"}
"""``moldable solve``'s method options: the ``dest`` of each and the method option it sets (an option
given that no chosen method takes is refused, :func:`vcsched.cli.common.check_options_apply`)."""


def register(sub: argparse._SubParsersAction) -> None:
    msub = common.add_family(sub, "moldable", help="moldable tasks, weighted minsum and makespan (seed 002)")

    g = msub.add_parser("generate", help="generate an instance as in seed 002 §4.1")
    g.add_argument("--m", type=common.number_option(int, low=1, high=MAX_PROCESSORS), default=200,
                   help=f"number of processors, 1 to {MAX_PROCESSORS:,} (default 200)")
    g.add_argument("--n", type=common.number_option(int, low=1, high=MAX_GENERATED_TASKS), required=True,
                   help=f"number of tasks, 1 to {MAX_GENERATED_TASKS:,} (25 to 400 in the paper)")
    g.add_argument("--kind", choices=KINDS, default="high",
                   help="weak / high: uniform(1, 10) sequential times, weakly / highly parallel; mixed: 70%% small "
                        "weakly parallel, 30%% large highly parallel; cirne: Cirne-Berman speedups (default high)")
    g.add_argument("--x-per-step", action="store_true", help="draw the parallelism X at every step, not once per task")
    g.add_argument("--seed", type=common.seed_option(), default=0, help="random seed (default 0)")
    g.add_argument("-o", "--output", help="output file (default: standard output); a name ending in .npz is written "
                   "in the compact NumPy form (arrays m, weights, times)")
    g.set_defaults(handler=cmd_generate)

    s = msub.add_parser("solve", help="schedule an instance with the bi-criteria algorithm or a baseline")
    s.add_argument("instance", help="instance file (JSON, or .npz), or a folder / glob of them (an instance set: see -o)")
    s.add_argument("--method", default="bicriteria",
                   help=f"{', '.join(METHODS)} or all; several separated by commas (default bicriteria); "
                        f"{EXACT}: proven optimum of sum w_i C_i by a MILP (small instances)")
    s.add_argument("--time-limit", type=common.number_option(float, low=0, low_open=True, high=1e6), default=60.0,
                   help="exact: seconds for HiGHS, up to 1e6 (default 60); at the limit the status is feasible, "
                        "with the proven bound and gap")
    s.add_argument("--formulation", choices=FORMULATIONS, default="auto",
                   help="exact: time-indexed (times multiples of a grain), flow (any real times), branch-and-bound "
                        "(any real times, up to 12 tasks) or auto (default: time-indexed with a grain, else branch "
                        "and bound up to 8 tasks, else flow)")
    s.add_argument("--grain", type=grain_option, default=None,
                   help="exact: bracket the optimum by the time-indexed model on times rounded up (a schedule) and "
                        "down (a bound) to this grain, or 'auto'; closed by branch and bound up to 12 tasks; the "
                        "status says whether the bracket closed; a number in [1e-9, 1e12] (the range of times)")
    s.add_argument("--dual", choices=DUALS, default="two-shelf",
                   help="bicriteria and list-*: dual approximation giving C*max and the allotments: two-shelf "
                        "(3/2 + eps, [7]/[17], default) or simple (knapsack then Graham's list, no guarantee)")
    s.add_argument("--shuffles", type=common.number_option(int, low=0, high=MAX_SHUFFLES), default=10,
                   help=f"bicriteria: shuffles of the batch order, 0 to {MAX_SHUFFLES:,} (default 10)")
    s.add_argument("--eps", type=common.number_option(float, low=EPS_RANGE[0], high=EPS_RANGE[1]), default=0.01,
                   help=f"precision of the dual approximation, {EPS_RANGE[0]:g} to {EPS_RANGE[1]:g} (default 0.01)")
    common.add_solve_tail(s, seed_help="seed of the shuffles (default 0)", figure="--gantt",
                          figure_help="draw the schedule (processors against time, one rectangle per task, its weight "
                                      "shown) to FILE (.png, .svg, .pdf); with several methods, the one of least "
                                      "sum w_i C_i", handler=cmd_solve, options=SOLVE_OPTIONS)

    b = msub.add_parser("bound", help="lower bounds on the weighted minsum (interval LP/ILP) and the makespan")
    b.add_argument("instance", help="instance file (JSON, or the compact .npz form)")
    b.add_argument("--method", choices=BOUND_METHODS, default="interval",
                   help="interval: the paper's interval LP of §3.3 (default); refined: finer intervals, one column "
                        "per allotment class and the area of tasks still running (tighter, slower)")
    b.add_argument("--integer", action="store_true",
                   help="interval: solve the integer programme (default: LP relaxation)")
    b.add_argument("--time-limit", type=common.number_option(float, low=0, low_open=True, high=1e6), default=None,
                   help="seconds for HiGHS, up to 1e6 (default: none for the LPs, 60 with --integer)")
    b.add_argument("--ratio", type=common.number_option(float, low=1, low_open=True, high=1e6), default=None,
                   help="growth of the interval ends, > 1 (default 2 for interval, as in the paper; 1.1 for refined); "
                        "a ratio that would build more than 2 million task x interval variables is refused "
                        "before any solve")
    common.add_json_option(b, "print JSON")
    b.set_defaults(handler=cmd_bound)


def cmd_generate(args: argparse.Namespace) -> int:
    if args.output:
        common.check_output_path(args.output, option="-o", formats=(".json", ".npz"))
    from vcsched.generators.moldable import generate_moldable_instance
    from vcsched.problems.moldable import check_size, instance_to_dict
    from vcsched.problems.moldable_npz import is_npz_path, save_npz_instance

    check_size(args.m, args.n, where="moldable generate")
    inst = generate_moldable_instance(args.m, args.n, args.kind, rng=args.seed, x_per_step=args.x_per_step)
    if args.output and is_npz_path(args.output):  # the compact form, chosen by the suffix
        try:
            save_npz_instance(inst, args.output)
        except OSError as exc:
            raise InvalidInputError(f"-o {args.output}: cannot write ({exc.strerror or exc}); choose a writable path") from None
        return 0
    text = json.dumps(instance_to_dict(inst)) + "\n"
    common.write_text(args.output, text)
    return 0


def resolve_methods(text: str) -> list[str]:
    """Method names of ``--method`` in order, without repeats, ``all`` expanded
    (:func:`heuristics.moldable.methods.methods_for_all`)."""
    from heuristics.moldable.methods import METHODS, methods_for_all

    everything = methods_for_all()
    others = [n for n in METHODS if n not in everything]
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    if not names:
        raise InvalidInputError("--method: give a method (" + ", ".join(everything) + f", all or {', '.join(others)})")
    out: list[str] = []
    for name in names:
        if name == "all":
            out.extend(everything)
        elif name in METHODS:
            out.append(name)
        else:
            raise UnknownNameError(f"--method: unknown method {name!r}; choose one of: {', '.join(everything)}, all, "
                                   f"{', '.join(others)}")
    return list(dict.fromkeys(out))


def cmd_solve(args: argparse.Namespace) -> int:
    from heuristics.moldable.methods import METHODS, result_row, solve_many
    from vcsched.problems.moldable import load_instance

    methods = resolve_methods(args.method)
    common.check_single_file_options(args, figure="--gantt")
    common.check_options_apply(args, SOLVE_OPTIONS, methods, METHODS)
    if common.wants_instance_set(args):
        options = {"rng": args.seed, "shuffles": args.shuffles, "eps": args.eps, "dual": args.dual,
                   "time_limit": args.time_limit, "formulation": args.formulation, "grain": args.grain}
        return common.run_instance_set(args, "moldable", methods, options)
    if args.gantt:
        common.check_output_path(args.gantt, option="--gantt", inputs=[args.instance], formats=common.FIGURE_FORMATS, devices=False)
    instance = load_instance(args.instance)
    results = solve_many(instance, methods, rng=args.seed, shuffles=args.shuffles, eps=args.eps, dual=args.dual,
                         time_limit=args.time_limit, formulation=args.formulation, grain=args.grain)
    rows = [result_row(result, instance) for result in results]
    if args.gantt:
        draw_best_schedule(instance, results, args.gantt)
    if args.json:
        common.print_json(rows if len(rows) > 1 or "all" in args.method.lower() else rows[0])
    elif EXACT in methods:
        common.print_table(rows, ["method", "status", "makespan", "minsum", "bound", "gap", "seconds", "message"])
    else:
        common.print_table(rows, ["method", "status", "makespan", "minsum", "seconds"])
    return 0


def draw_best_schedule(instance, results, path: str) -> None:
    """``--gantt``: the schedule of least ``sum w_i C_i`` among the results (the first on ties)."""
    from vcsched.problems.plots import plot_moldable_schedule

    scheduled = [r for r in results if r.status.has_solution]
    if not scheduled:
        raise InvalidInputError(f"--gantt {path}: no method returned a schedule to draw")
    best = min(scheduled, key=lambda r: r.extra["minsum"])
    common.draw_figure(path, lambda: plot_moldable_schedule(instance, best.solution, path, title=best.method),
                       option="--gantt")


GRAIN_RANGE = (MIN_VALUE, MAX_VALUE)
"""``--grain``'s range: the range of times (:mod:`vcsched.problems.moldable_limits`), which
:func:`vcsched.formulations.moldable_rounded.check_grain` applies to the Python argument."""


def grain_option(text: str) -> float | str:
    """``--grain``: ``auto`` or a number in :data:`GRAIN_RANGE`."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return common.number_option(float, low=GRAIN_RANGE[0], high=GRAIN_RANGE[1])(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a number in [{GRAIN_RANGE[0]:g}, {GRAIN_RANGE[1]:g}] or 'auto', "
                                         f"got {text!r}") from None


def cmd_bound(args: argparse.Namespace) -> int:
    from lowerbounds.moldable import makespan_lower_bound, minsum_bound
    from vcsched.problems.moldable import load_instance

    if args.ratio is not None and not args.ratio > 1:
        raise InvalidInputError(f"--ratio must be > 1, got {args.ratio}")
    if args.integer and args.method != "interval":
        raise InvalidInputError(f"--integer applies to --method interval only, not {args.method}")
    t0 = time.perf_counter()
    instance = load_instance(args.instance)
    limit = args.time_limit if args.time_limit is not None else (60.0 if args.integer else None)
    options: dict[str, Any] = {"time_limit": limit}
    if args.ratio is not None:
        options["ratio"] = args.ratio
    if args.method == "interval":
        options["integer"] = args.integer
    res = minsum_bound(instance, args.method, **options)
    makespan_lb = res.extra["makespan_lb"] if "makespan_lb" in res.extra else makespan_lower_bound(instance)["bound"]
    out = {
        "minsum_lb": res.bound,
        "makespan_lb": makespan_lb,
        "status": res.status.value,
        "seconds": time.perf_counter() - t0,
        "method": args.method,
        "integer": bool(args.integer),
        "relaxation": res.method,
        "message": res.message,
    }
    if args.json:
        common.print_json(out)
    else:
        for key, value in out.items():
            print(f"{key:12s} {value}")
    return 0
