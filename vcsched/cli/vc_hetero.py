"""``vc solve`` and ``vc generate`` for instances with host types and d rigid resources.

``vc solve FILE`` reads the new JSON form (``"hosts": [...]``, see :mod:`vcsched.problems.vc_hetero`)
here and calls :func:`heuristics.vc_hetero.methods.solve` per method; the old form keeps its own
path (:mod:`vcsched.cli.vc`). ``vc generate --resources d --host-types K [--preset grid5000]``
writes the new form (:func:`vcsched.generators.vc_hetero.generate_hetero`).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from vcsched.cli import common
from vcsched.errors import InvalidInputError, UnknownNameError

__all__ = ["add_generate_options", "wants_hetero_generate", "cmd_generate_hetero", "hetero_document",
           "cmd_solve_hetero"]


def add_generate_options(g: argparse.ArgumentParser) -> None:
    g.add_argument("--resources", type=common.number_option(int, low=1, high=64), default=None,
                   help="rigid resources d (new JSON form with host types; default: the 2-D form)")
    g.add_argument("--host-types", type=common.number_option(int, low=1, high=1000), default=None,
                   help="host types K (new JSON form)")
    g.add_argument("--preset", choices=["random", "grid5000"], default=None,
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

    data = load_json(path, what="VCSched instance")
    if isinstance(data, dict) and (isinstance(data.get("hosts"), list) or "resources" in data):
        return data
    return None


def _methods(text: str) -> list[str]:
    from heuristics.vc_hetero.methods import METHODS

    out: list[str] = []
    for n in [t.strip().lower() for t in text.split(",") if t.strip()]:
        if n == "all":
            out += [m for m in METHODS if m != "certify"]
        elif n in METHODS:
            out.append(n)
        else:
            raise UnknownNameError(f"--method: unknown method {n!r} for an instance with host types; choose one of: "
                                   f"{', '.join(METHODS)}, all")
    if not out:
        raise InvalidInputError("--method: give at least one method")
    return list(dict.fromkeys(out))


def _row(result, inst) -> dict:
    from vcsched.problems.vc_hetero import HeteroAllocation, check_hetero

    avg = None
    if isinstance(result.solution, HeteroAllocation):
        avg = check_hetero(inst, result.solution).avg_yield
    fin = (lambda x: None if x is None or not math.isfinite(x) else x)
    return {"method": result.method, "status": str(result.status), "min_yield": fin(result.objective),
            "avg_yield": avg, "bound": fin(result.bound), "gap": fin(result.gap), "seconds": result.seconds,
            "message": result.message}


def cmd_solve_hetero(args: argparse.Namespace, data: Any) -> int:
    from heuristics.vc_hetero.methods import solve
    from vcsched.problems.vc_hetero import parse_hetero

    if args.plot:
        raise InvalidInputError("--plot: not available for instances with host types (drop --plot)")
    inst = parse_hetero(data, args.instance)
    methods = _methods(args.method)
    rows = []
    with common.status_line():
        for name in methods:
            options = {"time_limit": args.time_limit} if name in ("milp", "lp", "certify") else {}
            rows.append(_row(solve(inst, name, **options), inst))
    common.print_result_rows(rows, args.json)
    return 0
