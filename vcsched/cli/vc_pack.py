"""``vcsched vc pack``: the fewest hosts (bins) that hold every item of a vector packing.

``FILE`` is a ``.vbp`` file (VPSolver's format, :mod:`vcsched.problems.vbp`) or
a VCSched JSON instance (every job at yield 1; a file with host types gives bins of
several types, each type's count a limit, :mod:`vcsched.problems.vbp_typed`); a folder or a glob runs over
its ``*.vbp`` and ``*.json`` files as ``vc solve`` does (one row per file,
``-o`` Parquet/CSV, ``--resume``). The command parses, calls
:func:`heuristics.vector.methods.pack` and prints.

Imports only the standard library and the core's light modules at import time.
"""

from __future__ import annotations

import argparse

from vcsched.cli.common import (
    add_json_option,
    add_set_options,
    check_output_path,
    draw_figure,
    number_option,
    print_json,
    print_table,
    run_instance_set,
    wants_instance_set,
)
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.names.vector import ORDERS, WINDOWS

__all__ = ["register_pack", "cmd_pack", "MAX_TIME_LIMIT"]

MAX_TIME_LIMIT = 1e6


def register_pack(vsub: argparse._SubParsersAction) -> None:
    p = vsub.add_parser("pack", help="vector bin packing: the fewest hosts that hold every item (.vbp or JSON), "
                                     "with a certified lower bound")
    p.add_argument("instance", metavar="FILE", help=".vbp file (VPSolver format) or VCSched JSON instance, or a "
                   "folder / glob of them (an instance set: see -o)")
    p.add_argument("--method", default="certify",
                   help="certify (default: proven lower bound and best packing), heuristics (META: every heuristic, "
                        f"the best kept), or one heuristic: ff-/bf-{{{','.join(ORDERS)}}}, "
                        f"perm-w{{{','.join(map(str, WINDOWS))}}}, choose-w{{{','.join(map(str, WINDOWS))}}}, meta")
    p.add_argument("--time-limit", type=number_option(float, low=0, low_open=True, high=MAX_TIME_LIMIT), default=None,
                   help="seconds for certify (default 60)")
    add_json_option(p, "print JSON: lower, upper, status, bins, seconds, "
                   "lower_method, upper_method, message")
    p.add_argument("--plot", metavar="FILE", help="draw the packing (one bar per bin stacked by item, one panel per "
                   "dimension) to FILE (.png, .svg, .pdf)")
    add_set_options(p)
    p.set_defaults(handler=cmd_pack)


def _method(text: str) -> str:
    from vcsched.names.vector import METHODS

    name = text.strip().lower()
    if name not in METHODS:
        raise UnknownNameError(f"--method: unknown method {text!r}; choose one of: {', '.join(METHODS)}")
    return name


def cmd_pack(args: argparse.Namespace) -> int:
    method = _method(args.method)
    if wants_instance_set(args):
        if args.plot:
            raise InvalidInputError("--plot draws one instance's packing; drop it for an instance set")
        return run_instance_set(args, "vc-pack", [method], {"time_limit": args.time_limit})
    if args.plot:
        check_output_path(args.plot, option="--plot", inputs=[args.instance])
    from heuristics.vector.methods import pack, pack_to_json
    from vcsched.problems.vbp_typed import load_packing

    inst = load_packing(args.instance)
    row = pack_to_json(pack(inst, method, time_limit=args.time_limit))
    if args.plot:
        _plot(inst, row, args.plot)
    if args.json:
        print_json(row)
    else:
        print_table([{**row, "bins": len(row["bins"]), "seconds": round(row["seconds"], 3)}],
                    ["lower", "upper", "status", "bins", "seconds", "lower_method", "upper_method", "message"])
    return 0


def _plot(inst, row: dict, path: str) -> None:
    from vcsched.problems.vbp_plot import plot_packing

    if not row["bins"]:
        raise InvalidInputError(f"--plot {path}: no packing to draw (status {row['status']})")
    draw_figure(path, lambda: plot_packing(inst, row["bins"], path, title=row["upper_method"] or "",
                                           bin_types=row.get("bin_types")), option="--plot")
