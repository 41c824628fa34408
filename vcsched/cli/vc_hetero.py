"""``vc solve`` and ``vc generate`` for instances with host types and d rigid resources.

``vc solve FILE`` reads the new JSON form (``"hosts": [...]``, see :mod:`vcsched.problems.vc_hetero`)
here and calls :func:`heuristics.vc_hetero.methods.solve` per method (``--plot``: one panel for the CPU,
one per rigid resource); the old form keeps its own path (:mod:`vcsched.cli.vc`). Over an instance set
(a folder or a glob), each file takes the path of its form (:func:`set_methods`,
:mod:`benchmarks.instance_sets`). ``vc generate --resources d --host-types K [--preset grid5000]``
writes the new form (:func:`vcsched.generators.vc_hetero.generate_hetero`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from vcsched.cli import common
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.names.vc_hetero import PRESETS

__all__ = ["add_generate_options", "wants_hetero_generate", "cmd_generate_hetero", "hetero_document",
           "hetero_methods", "set_methods", "cmd_solve_hetero", "plot_best"]


def add_generate_options(g: argparse.ArgumentParser) -> None:
    g.add_argument("--resources", type=common.number_option(int, low=1, high=64), default=None,
                   help="rigid resources d (new JSON form with host types; default: the 2-D form)")
    g.add_argument("--host-types", type=common.number_option(int, low=1, high=1000), default=None,
                   help="host types K (new JSON form)")
    g.add_argument("--preset", choices=PRESETS, default=None,
                   help="host types: random, or grid5000 (4 Grid'5000-like generations, mem/disk/net)")


def wants_hetero_generate(args: argparse.Namespace) -> bool:
    return args.resources is not None or args.host_types is not None or args.preset is not None


def cmd_generate_hetero(args: argparse.Namespace) -> int:
    from vcsched.generators.vc_hetero import generate_hetero
    from vcsched.problems.vc_hetero import hetero_to_dict

    if args.tasks != "one":
        raise InvalidInputError("--tasks lublin: not available with --resources/--host-types (one task per job)")
    preset = args.preset or "random"
    if preset == "grid5000" and (args.resources not in (None, 3) or args.host_types not in (None, 4)):
        raise InvalidInputError("--preset grid5000 has 3 resources and 4 host types; drop --resources/--host-types")
    inst = generate_hetero(args.hosts, args.jobs, resources=args.resources or 2, host_types=args.host_types or 2,
                           slack=args.slack, mean_cpu=args.mean_cpu, preset=preset, rng=args.seed)
    text = json.dumps(hetero_to_dict(inst), indent=1) + "\n"
    common.write_text(args.output, text)
    return 0


def hetero_document(path: str) -> Any:
    """The decoded JSON of ``path`` when it is in the new form (a host list or ``resources``), else None."""
    from vcsched.problems.jsonfile import load_json
    from vcsched.problems.vc_hetero import is_new_form

    data = load_json(path, what="VCSched instance")
    return data if is_new_form(data) else None


def hetero_methods(text: str) -> list[str]:
    """``--method`` for an instance with host types: names of :mod:`heuristics.vc_hetero.methods`,
    ``all`` = every one but ``certify``; in order, without repeats."""
    from heuristics.vc_hetero.methods import METHODS

    return _method_names(text, list(METHODS), [m for m in METHODS if m != "certify"], "an instance with host types")


def _method_names(text: str, allowed: list[str], every: list[str], what: str) -> list[str]:
    """The comma-separated names of ``text`` in order without repeats, ``all`` standing for ``every``; a
    name not in ``allowed`` is refused in one line (naming ``what`` it was asked for and the choices)."""
    out: list[str] = []
    for n in [t.strip().lower() for t in text.split(",") if t.strip()]:
        if n == "all":
            out += every
        elif n in allowed:
            out.append(n)
        else:
            raise UnknownNameError(f"--method: unknown method {n!r} for {what}; choose one of: "
                                   f"{', '.join(allowed + ['all'])}")
    if not out:
        raise InvalidInputError("--method: give at least one method")
    return list(dict.fromkeys(out))


def set_methods(text: str, files: list[str]) -> list[str]:
    """``--method`` over an instance set: each name must belong to the table of a form present in the set,
    the 2-D form (:mod:`heuristics.vc.methods`; a file that cannot be read counts as this form) or the
    form with host types; ``all`` expands to the ``all`` of each form present. In a mixed set, a method
    that does not apply to a file's form gives that file an ``error`` row naming the form."""
    from heuristics.vc.methods import METHODS, methods_for_all
    from heuristics.vc_hetero.methods import METHODS as HETERO

    forms = {_form(f) for f in files}
    old = "old" in forms or None in forms  # an unreadable file is an error row whatever the method
    allowed = list(dict.fromkeys((METHODS.names() if old else []) + (list(HETERO) if "new" in forms else [])))
    every = (methods_for_all(None) if old else []) + ([m for m in HETERO if m != "certify"] if "new" in forms else [])
    return _method_names(text, allowed, every, "the files of this set")


def _form(path: str) -> str | None:
    from vcsched.errors import VcschedError

    try:
        return "new" if hetero_document(path) is not None else "old"
    except VcschedError:
        return None


def cmd_solve_hetero(args: argparse.Namespace, data: Any) -> int:
    from heuristics.vc_hetero.methods import TIMED, result_row, solve
    from vcsched.problems.vc_hetero import parse_hetero

    if args.plot:
        common.check_output_path(args.plot, option="--plot", inputs=[args.instance], formats=common.FIGURE_FORMATS,
                                 devices=False)
    inst = parse_hetero(data, args.instance)
    methods = hetero_methods(args.method)
    _check_options(args, methods)
    results = []
    with common.status_line():
        for name in methods:
            options = {"time_limit": args.time_limit} if name in TIMED else {}
            results.append(solve(inst, name, **options))
    if args.plot:
        plot_best(inst, results, args.plot)
    common.print_result_rows([result_row(r, inst) for r in results], args.json)
    return 0


def _check_options(args: argparse.Namespace, methods: list[str]) -> None:
    """An option no chosen method takes is refused in one line (as for the 2-D form): ``--gap``,
    ``--budget-mode`` and ``--seed`` apply to no method with host types, ``--time-limit`` to
    ``milp``, ``lp`` and ``certify`` only."""
    from heuristics.vc_hetero.methods import TIMED

    for dest in ("gap", "budget_mode", "seed", "time_limit"):
        flag = "--" + dest.replace("_", "-")
        if not common.option_given(args, dest) or (dest == "time_limit" and any(m in TIMED for m in methods)):
            continue
        takers = f"--method {', '.join(TIMED)}" if dest == "time_limit" else "no method"
        raise InvalidInputError(f"{flag} applies to {takers} on an instance with host types; drop {flag}"
                                + (" or add such a method" if dest == "time_limit" else ""))


def plot_best(inst, results: list, path: str) -> None:
    """``--plot``: the allocation of the largest minimum yield among the results (the first on ties),
    one panel for the CPU and one per rigid resource (:func:`vcsched.problems.vc_hetero_plot.plot_hetero`)."""
    from vcsched.problems.vc_hetero import HeteroAllocation
    from vcsched.problems.vc_hetero_plot import plot_hetero

    placed = [r for r in results if r.status.has_solution and isinstance(r.solution, HeteroAllocation)]
    if not placed:
        raise InvalidInputError(f"--plot {path}: no method returned an allocation to draw")
    best = max(placed, key=lambda r: r.objective)
    common.draw_figure(path, lambda: plot_hetero(inst, best.solution, path, title=best.method), option="--plot")
