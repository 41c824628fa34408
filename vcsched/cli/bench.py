"""``vcsched bench``: list and run the reproduced experiments of ``benchmarks/``.

``benchmarks`` is imported lazily, inside the handlers (the CLI is the only
place that imports it).

A run folder ``OUT/NAME`` is locked while a run writes it (a second ``bench run``
into it exits 2 naming the folder and the holder); ``--resume`` refuses parts of
another root seed and sets unreadable parts aside; ``--workers`` is capped at the
number of cells to run, and the summary line says how many processes ran. See
:mod:`benchmarks.harness`.
"""

from __future__ import annotations

import argparse
import os
import sys

from vcsched.cli.common import add_family, check_path_text, positive_int, seed_option
from vcsched.errors import InvalidInputError

__all__ = ["register", "cmd_list", "cmd_run"]


def register(sub: argparse._SubParsersAction) -> None:
    bsub = add_family(sub, "bench", help="experiments: parameter sweeps with tables and figures (benchmarks/)")

    ls = bsub.add_parser("list", help="list the experiments")
    ls.set_defaults(handler=cmd_list)

    r = bsub.add_parser("run", help="run an experiment (resumable), then print and save its report")
    r.add_argument("name", metavar="NAME", help="experiment name (see `vcsched bench list`)")
    r.add_argument("--quick", action="store_true", help="small version of the grid (seconds to a minute)")
    r.add_argument("--workers", type=positive_int, default=None,
                   help=f"local worker processes (default: number of cores, here {os.cpu_count()})")
    r.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the cells on a dask.distributed cluster, e.g. tcp://host:8786 (instead of local processes)")
    r.add_argument("--out", metavar="DIR", default="results", help="output root; the run goes to DIR/NAME (default: results)")
    r.add_argument("--resume", action="store_true", help="keep the finished cells of a previous run in DIR/NAME; retry failed ones")
    r.add_argument("--seed", type=seed_option(), default=0, help="root seed, 0 to 2^63 - 1; each cell gets its own child seed (default: 0)")
    r.set_defaults(handler=cmd_run)


def cmd_list(args: argparse.Namespace) -> int:
    from benchmarks.harness import discover

    found, broken = discover()
    width = max([len(n) for n in found] + [4])
    for name, exp in found.items():
        print(f"{name.ljust(width)}  {exp.description}")
    for module, error in broken.items():
        print(f"{module.replace('_', '-').ljust(width)}  (cannot be imported: {error})")
    if not found and not broken:
        print("no experiment found in benchmarks/experiments/")
    return 0


def _workers_text(started: int, asked: int) -> str:
    """How many local worker processes really ran (capped at the cells to run)."""
    if not started:
        return "no worker process (nothing to run)"
    capped = f" (--workers {asked} capped at the cells to run)" if asked > started else ""
    return f"{started} worker process(es){capped}"


def cmd_run(args: argparse.Namespace) -> int:
    from benchmarks.harness import get_experiment, run_experiment

    exp = get_experiment(args.name)
    check_path_text(args.out, option="--out")
    if args.scheduler is not None and args.workers is not None:
        raise InvalidInputError("--workers and --scheduler exclude each other: with --scheduler the Dask workers run the cells")
    if args.scheduler is not None:
        from benchmarks.executors import check_scheduler_address

        check_scheduler_address(args.scheduler)  # before the run folder is created
    # `kill PID` raises Terminated (vcsched.cli.main): the workers stop, finished parts are kept
    summary = run_experiment(exp, args.out, quick=args.quick, workers=args.workers, scheduler=args.scheduler,
                             resume=args.resume, seed=args.seed)
    where = f"Dask scheduler {args.scheduler}" if args.scheduler else _workers_text(summary.workers,
                                                                                   args.workers or os.cpu_count())
    print(f"{summary.experiment}: {summary.n_cells} cells ({summary.n_run} run, {summary.n_skipped} resumed, "
          f"{summary.n_failed} failed) in {summary.seconds:.1f} s on {where}")
    if summary.report:
        print(summary.report.rstrip("\n"))
    print(f"results: {summary.out_dir / 'results.parquet'} (and results.csv)")
    for path in summary.files:
        print(f"written: {path}")
    sys.stdout.flush()
    return 0
