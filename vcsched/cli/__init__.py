"""The ``vcsched`` command: the composition root of the toolkit.

Each command group lives in its own module of this package (``vc``, ``bench``,
``moldable``, ``grid``, ``timeshare``, ``diet``) exposing
``register(subparsers)``. Group modules import the role packages
(``heuristics``, ``lowerbounds``, ``benchmarks``) lazily, inside the command
that needs them; nothing in the core imports this package.

Exit codes: 0 success (also when a solver reports ``infeasible`` or a
heuristic ``failed``: those are results), 2 bad input or usage, 1 an
unexpected internal error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from vcsched.errors import InvalidInputError, VcschedError

__all__ = ["main", "build_parser", "GROUPS"]

GROUPS = ("vc", "bench", "moldable", "grid", "timeshare", "diet")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vcsched",
        description="Scheduling research toolkit: exact optima, bounds, heuristics and simulators.",
    )
    from vcsched import __version__

    parser.add_argument("--version", action="version", version=f"vcsched {__version__}")
    sub = parser.add_subparsers(dest="group", metavar="COMMAND")
    sub.required = True
    for name in GROUPS:
        try:
            module = importlib.import_module(f"vcsched.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"vcsched.cli.{name}":
                continue  # group not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.handler(args)
    except InvalidInputError as exc:
        print(f"vcsched: error: {exc}", file=sys.stderr)
        return 2
    except VcschedError as exc:
        print(f"vcsched: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("vcsched: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
