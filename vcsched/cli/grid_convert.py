"""``vcsched grid convert IN -o OUT``: a workload between SWF and Batsim JSON.

::

    vcsched grid convert CTC-SP2-1996-3.1-cln.swf.gz -o ctc.json   # SWF -> Batsim JSON
    vcsched grid convert ctc.json -o ctc.swf                        # and back

The input is read as ``grid simulate --trace`` reads it (a bare name is looked up in the
traces folder; ``.json`` is a Batsim workload, anything else SWF); the output format comes
from its suffix: ``.json`` (:func:`vcsched.problems.batsim_writer.write_batsim_json`), ``.swf``
or ``.swf.gz`` (:func:`~vcsched.problems.workload.write_swf`). Batsim's format keeps the
fields the simulator uses (id, submit time, run time, processors, requested time); the
other SWF fields are ``-1`` after a round trip.
"""

from __future__ import annotations

import argparse

from vcsched.cli.common import check_output_path, number_option, save_output
from vcsched.errors import InvalidInputError

SUFFIXES = (".json", ".swf", ".swf.gz")


def register(gsub) -> None:
    c = gsub.add_parser("convert", help="convert a workload between SWF and Batsim JSON")
    c.add_argument("workload", help="SWF trace (.swf, .swf.gz) or Batsim JSON workload (.json); a bare name is looked "
                   "up in the traces folder")
    c.add_argument("-o", "--output", required=True,
                   help="output file: .json (Batsim JSON workload), .swf or .swf.gz (SWF)")
    c.add_argument("--nb-res", type=number_option(int, low=1, high=10**9), default=None,
                   help="Batsim nb_res (default: the trace's MaxProcs, else MaxNodes, else its widest job)")
    c.set_defaults(handler=cmd_convert)


def cmd_convert(args: argparse.Namespace) -> int:
    from vcsched.data import trace_path
    from vcsched.problems.batsim_writer import batsim_json
    from vcsched.problems.workload import read_workload, write_swf

    source = trace_path(args.workload)
    check_output_path(args.output, option="-o", inputs=[str(source)], formats=SUFFIXES)
    json_out = args.output.lower().endswith(".json")
    if args.nb_res is not None and not json_out:
        raise InvalidInputError("--nb-res applies to a Batsim JSON output (.json) only")
    workload = read_workload(source)
    if json_out:
        import json

        text = json.dumps(batsim_json(workload, nb_res=args.nb_res), indent=1) + "\n"
        save_output(args.output, lambda tmp: tmp.write_text(text, encoding="utf-8"), option="-o")
    else:
        save_output(args.output, lambda tmp: write_swf(workload, tmp), option="-o",
                    keep_suffix=args.output.lower().endswith(".gz"))
    print(f"{len(workload):,} jobs: {source} -> {args.output}")
    return 0
