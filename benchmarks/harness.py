"""Experiment harness: parameter grids run cell by cell, resumable, on processes or Dask.

An *experiment* is a module of :mod:`benchmarks.experiments` defining a
module-level ``EXPERIMENT`` (an :class:`Experiment`): a grid of *cells*
(parameter dicts), a function that runs one cell and returns rows, and a
report built from all rows.

Storage (``OUT/NAME/``)
-----------------------
``run.json``
    The run's manifest: experiment, root seed, quick flag, number of cells.
``parts/<cell_id>.parquet``
    The rows of one finished cell, written atomically (temporary name, then
    ``os.replace``) by the coordinating process as soon as the cell finishes.
    ``cell_id`` is a hash of the cell's sorted parameters, so a cell has one
    file whatever the worker or the order: a run killed with SIGKILL loses at
    most the cells in flight and never leaves a partial or duplicated part.
``parts/<cell_id>.error.parquet``
    A cell that raised: one row with its parameters and the error text.
    ``--resume`` skips finished cells and *retries* failed ones.
``results.parquet``, ``results.csv``
    All parts concatenated in cell order, then row order: the same table
    whatever the number of workers or the executor.
``.lock``
    Held (``flock``, exclusive) by the run writing the folder, with its pid,
    host and start time inside: a second run into the same folder is refused
    (:class:`~vcsched.errors.InvalidInputError` naming the folder and the
    holder) instead of mixing its cells with the first one's. The lock is
    released by the kernel when the holder dies, even by SIGKILL.
``parts/<cell_id>.parquet.corrupt``
    A part that cannot be read on ``--resume`` (truncated, e.g. by a full
    disk) is set aside under this name and its cell runs again.

Resume checks
-------------
``--resume`` keeps a finished part only if it can be read and its ``seed``
column is the child seed of its cell under the current root seed: parts of a
run with another root seed are refused even when ``run.json`` is missing.

Workers
-------
Local workers are capped at the number of cells to run
(:attr:`RunSummary.workers` says how many ran), and each has a watchdog
thread that ends it when the coordinating process dies (SIGKILL included),
so no worker outlives its run by more than about a second.

Columns
-------
The cell's parameters (unprefixed), then ``cell`` (index in the grid),
``cell_id``, ``row`` (index of the row in its cell), ``seed`` (the cell's
child seed), ``cell_status`` (``ok`` or ``error``), ``error`` (text, empty
when ok), ``code_version`` (``git rev-parse HEAD``, ``+dirty`` when the
tracked tree has changes, else the package version), ``machine`` (host
name and platform of the worker), ``cell_seconds`` (wall time of the cell),
``cell_cpu_seconds`` (CPU time of the worker process during the cell: the
steadier figure on a shared machine; for a cell in parts, both are the sums
over its parts and join), then the row's own fields. A row field may not reuse a parameter name with
another value, nor a harness column name (the cell is recorded as failed).

Volatile columns (they change from run to run, see :func:`stable_table`):
``code_version``, ``machine`` and every column whose name ends in
``seconds``.

Seeds
-----
The root seed ``S`` gives one child per cell, ``SeedSequence(S).spawn(n)[k]``
for the cell of index ``k``, turned into an int: a cell's result does not
depend on which worker runs it.
"""

from __future__ import annotations

import dataclasses
import errno
import importlib
import json
import os
import pathlib
import pkgutil
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from benchmarks.cells import (
    HARNESS_COLUMNS,
    VOLATILE_COLUMNS,
    cell_frame,
    cell_id,
    cell_seeds,
    check_cells,
    code_version,
    execute_cell,
    load_results,
    save_part,
    stable_table,
)
from benchmarks.executors import SchedulerLost, connect_scheduler, dask_outcomes, pool_outcomes
from benchmarks.runfolder import check_run_layout, finished_parts, run_lock, storage_error, write_part_file
from benchmarks.split import Split, split_outcomes
from vcsched.errors import InvalidInputError, UnknownNameError, VcschedError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = [
    "Experiment",
    "RunSummary",
    "discover",
    "experiment_names",
    "get_experiment",
    "cell_id",
    "cell_seeds",
    "code_version",
    "run_experiment",
    "run_cells",
    "RUN_OPTIONS",
    "load_results",
    "stable_table",
    "HARNESS_COLUMNS",
    "VOLATILE_COLUMNS",
    "execute_cell",
    "iter_rows",
]

@dataclasses.dataclass(frozen=True)
class Experiment:
    """One reproducible experiment.

    Attributes
    ----------
    name : str
        Registered name, e.g. ``"vc-small"``.
    description : str
        One line shown by ``vcsched bench list``.
    cells : callable
        ``cells(quick) -> list[dict]``: the parameter grid (JSON scalars
        only); ``quick=True`` gives a small version that runs in seconds.
    run_cell : callable
        ``run_cell(params, seed) -> list[dict]``: rows (flat dicts of
        scalars) of one cell; ``seed`` is the cell's own child seed. Must be
        a module-level function (it is pickled to the workers).
    report : callable
        ``report(df, out_dir) -> str``: tables (CSV + Markdown) and PNG
        figures written in ``out_dir`` from all rows; returns a short text.
    split : Split, optional
        The cell's parts and join (:mod:`benchmarks.split`): the local process
        pool then runs every part as a task, longest estimate first, so a long
        cell is spread over the workers. ``run_cell`` must give the same rows
        (:func:`benchmarks.split.run_split_cell`); it is what Dask workers run.
    """

    name: str
    description: str
    cells: Callable[[bool], list[dict]]
    run_cell: Callable[[dict, int], list[dict]]
    report: Callable[[pandas.DataFrame, pathlib.Path], str]
    split: Split | None = None


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """What :func:`run_experiment` did."""

    experiment: str
    out_dir: pathlib.Path
    n_cells: int
    n_run: int
    n_skipped: int
    n_failed: int
    seconds: float
    table: pandas.DataFrame
    report: str = ""
    files: tuple[pathlib.Path, ...] = ()
    workers: int | None = 0
    """Local worker processes started (at most the number of cells to run); None on Dask."""


# --------------------------------------------------------------------------- discovery


def discover(package: str = "benchmarks.experiments") -> tuple[dict[str, Experiment], dict[str, str]]:
    """Import every module of ``package`` and collect their ``EXPERIMENT``.

    Returns
    -------
    experiments : dict
        name -> :class:`Experiment`, sorted by name.
    broken : dict
        module name -> error text, for modules that failed to import (so one
        half-written experiment does not hide the others).
    """
    pkg = importlib.import_module(package)
    found: dict[str, Experiment] = {}
    broken: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"{package}.{info.name}")
        except Exception as exc:  # noqa: BLE001 - reported to the user by `bench list`
            broken[info.name] = f"{type(exc).__name__}: {exc}"
            continue
        exp = getattr(module, "EXPERIMENT", None)
        if not isinstance(exp, Experiment):
            continue
        if exp.name in found:
            broken[info.name] = f"experiment name {exp.name!r} is already used by another module"
            continue
        found[exp.name] = exp
    return dict(sorted(found.items())), broken


def experiment_names() -> list[str]:
    """Names of the importable experiments."""
    return list(discover()[0])


def get_experiment(name: str) -> Experiment:
    """The experiment registered as ``name``.

    Raises
    ------
    UnknownNameError
        When no experiment has that name (the message lists the names).
    InvalidInputError
        When the module that should define it failed to import.
    """
    found, broken = discover()
    if name in found:
        return found[name]
    module = name.replace("-", "_")
    if module in broken:
        raise InvalidInputError(f"experiment {name!r} failed to import ({broken[module]}); fix benchmarks/experiments/{module}.py")
    raise UnknownNameError(f"unknown experiment {name!r}; choose one of: {', '.join(found) or '(none)'}")


# --------------------------------------------------------------------------- the run


def run_cells(
    experiment: Experiment,
    out_dir: str | os.PathLike,
    *,
    quick: bool = False,
    workers: int | None = None,
    scheduler: Any = None,
    resume: bool = False,
    seed: int = 0,
    progress: bool | None = None,
) -> RunSummary:
    """Run (or resume) the cells of ``experiment``; write parts and the final table.

    Parameters
    ----------
    experiment : Experiment
    out_dir : path
        Run directory (``OUT/NAME``), created if needed; locked for the run.
    quick : bool
        Use the experiment's quick grid.
    workers : int, optional
        Size of the local process pool (default ``os.cpu_count()``), capped at the
        number of cells to run; ignored with ``scheduler``.
    scheduler : str or dask.distributed.Client, optional
        Address of a Dask scheduler (``tcp://host:8786``) or a client.
    resume : bool
        Keep finished cells and run only the others (failed cells are
        retried, unreadable parts set aside and re-run). Without it, parts of a
        previous run are deleted first.
    seed : int
        Root seed.
    progress : bool, optional
        Show a progress bar; default: when standard error is a terminal.

    Returns
    -------
    RunSummary
        With the final table (also in ``results.parquet`` / ``results.csv``).

    Raises
    ------
    InvalidInputError
        Bad options; ``out_dir`` is a file or is locked by another run; ``resume``
        on parts of a run with another root seed.

    Notes
    -----
    Local workers are started with the ``forkserver`` method (``spawn``
    where it does not exist): a script calling this function must do so
    under ``if __name__ == "__main__":``, as with any multiprocessing code.
    The cell function is pickled by reference, so it must be importable
    (a module-level function of an installed module).
    """
    with run_lock(out_dir):
        return _run_cells_locked(experiment, pathlib.Path(out_dir), quick=quick, workers=workers,
                                 scheduler=scheduler, resume=resume, seed=seed, progress=progress)


def _run_cells_locked(experiment: Experiment, out: pathlib.Path, *, quick: bool, workers: int | None,
                      scheduler: Any, resume: bool, seed: int, progress: bool | None) -> RunSummary:
    """Every check (options, cells, the folder's layout, the scheduler's connection) comes
    before the first change to the run folder; a write that fails later is one line and
    leaves the finished parts in place (:func:`benchmarks.runfolder.storage_error`)."""
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    if workers < 1:
        raise InvalidInputError(f"--workers must be >= 1, got {workers}")
    if seed < 0:
        raise InvalidInputError(f"--seed must be >= 0, got {seed}")
    check_run_layout(out)
    client, own = connect_scheduler(scheduler) if scheduler is not None else (None, False)
    try:
        return _run_cells_checked(experiment, out, quick=quick, workers=workers, client=client, resume=resume,
                                  seed=seed, progress=progress)
    except OSError as exc:
        if exc.filename is None and exc.errno not in STORAGE_ERRNOS:  # a socket or pipe, not the disk
            raise VcschedError(f"the worker processes could not be reached ({exc.strerror or exc}); the finished "
                               f"cells are kept in {out / 'parts'}: rerun with --resume (or --workers 1)") from None
        raise storage_error(pathlib.Path(exc.filename or out), exc, out / "parts") from None
    except SchedulerLost as exc:
        raise SchedulerLost(f"{exc}; the finished cells are kept in {out / 'parts'}: start a scheduler and rerun "
                            "with --resume to run the others") from None
    finally:
        if own:
            _close_quietly(client)


def _close_quietly(client: Any) -> None:
    """Close a Dask client; when its scheduler is gone, its reconnection attempts end in logged
    tracebacks, which are not shown (the run has said what happened in one line)."""
    import logging

    loggers = [logging.getLogger(name) for name in ("distributed", "tornado", "asyncio")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        client.close(timeout=5)
    except Exception:  # noqa: BLE001 - a client whose scheduler is gone may fail to close cleanly
        pass
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO,
                            errno.EISDIR, errno.ENOTDIR, errno.EEXIST, errno.ENOENT, errno.EFBIG})
"""Errors of the file system. Another ``OSError`` without a file name (``ECONNREFUSED``, ``EPIPE`` from the
process pool's sockets and pipes) is not reported as a failed write of the run folder."""


def _run_cells_checked(experiment: Experiment, out: pathlib.Path, *, quick: bool, workers: int, client: Any,
                       resume: bool, seed: int, progress: bool | None) -> RunSummary:
    t0 = time.perf_counter()
    parts = out / "parts"
    cells = experiment.cells(quick)
    ids = check_cells(experiment.name, cells)
    seeds = cell_seeds(len(cells), seed)
    manifest = {"experiment": experiment.name, "seed": int(seed), "quick": bool(quick), "cells": len(cells)}
    _prepare_dir(out, parts, manifest, resume)
    done = finished_parts(parts, ids, seeds, seed) if resume else set()
    write_part_file(out / "run.json", lambda tmp: tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8"))
    todo = [(k, cells[k], seeds[k]) for k in range(len(cells)) if k not in done]
    skipped = len(cells) - len(todo)
    version = code_version()
    failed = 0
    started: int | None = None if client is not None else 0
    if todo:
        if client is not None:
            outcomes = dask_outcomes(execute_cell, [(i, (experiment.run_cell, params, seed)) for i, params, seed in todo],
                                     client, [f"cell-{i}-{cell_id(params)}-{seed}" for i, params, seed in todo])
        else:
            started = min(workers, _task_count(experiment, todo))
            outcomes = (split_outcomes(experiment.split, todo, started) if experiment.split is not None else
                        pool_outcomes(execute_cell, [(i, (experiment.run_cell, params, seed))
                                                     for i, params, seed in todo], started))
        bar = _progress_bar(len(todo), experiment.name, progress)
        try:
            for index, outcome in outcomes:
                frame = cell_frame(cells[index], index, ids[index], seeds[index], outcome, version)
                save_part(parts, frame, ids[index], bool(outcome["error"]))
                failed += bool(outcome["error"])
                bar.update(1)
                if outcome["error"]:
                    text = str(outcome["error"]).replace("\n", "\\n")
                    bar.write(f"vcsched: note: cell {index} {cells[index]} failed: {text}", file=sys.stderr)
        finally:
            bar.close()
            close = getattr(outcomes, "close", None)
            if close is not None:
                close()
    table = load_results(out, cells)
    write_part_file(out / "results.parquet", lambda tmp: table.to_parquet(tmp, index=False))
    write_part_file(out / "results.csv", lambda tmp: table.to_csv(tmp, index=False))
    if "cell_status" in table:
        failed = int((table.drop_duplicates("cell")["cell_status"] == "error").sum())
    return RunSummary(experiment.name, out, len(cells), len(todo), skipped, failed, time.perf_counter() - t0, table,
                      workers=started)


def _task_count(experiment: Experiment, todo: list) -> int:
    """Tasks of the local pool: the cells, or their parts when the experiment splits them."""
    if experiment.split is None:
        return len(todo)
    return sum(len(experiment.split.parts(params)) for _, params, _ in todo)


def _prepare_dir(out: pathlib.Path, parts: pathlib.Path, manifest: dict, resume: bool) -> None:
    parts.mkdir(parents=True, exist_ok=True)
    for tmp in parts.glob(".*.tmp"):  # leftovers of a killed run: never complete, never read
        tmp.unlink()
    path = out / "run.json"
    if resume and path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            old = None  # unreadable manifest: the parts themselves are checked (finished_parts)
        for key in ("experiment", "seed", "quick"):
            if isinstance(old, dict) and old.get(key) != manifest[key]:
                raise InvalidInputError(
                    f"--resume: {out} holds a run with {key}={old.get(key)!r}, not {manifest[key]!r}; "
                    f"use the same options, another --out, or drop --resume to start over")
    if not resume:  # start over: no part, nor final table, of an earlier run may survive
        for p in [*parts.glob("*.parquet"), out / "results.parquet", out / "results.csv"]:
            if p.exists():
                p.unlink()


def _progress_bar(total: int, name: str, enabled: bool | None):
    from tqdm import tqdm

    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(total=total, desc=name, unit="cell", disable=not enabled, dynamic_ncols=True, file=sys.stderr)


RUN_OPTIONS = {"quick": False, "workers": None, "scheduler": None, "resume": False, "seed": 0, "progress": None}
"""The keyword arguments of :func:`run_cells` and their defaults (also taken by :func:`run_experiment`)."""


def run_experiment(name_or_experiment: str | Experiment, out: str | os.PathLike = "results", *, report: bool = True,
                   **options: Any) -> RunSummary:
    """Run an experiment into ``out/NAME`` and build its report there.

    ``options`` are :func:`run_cells`'s keyword arguments (:data:`RUN_OPTIONS`: ``quick``,
    ``workers``, ``scheduler``, ``resume``, ``seed``, ``progress``); an unknown one is refused.
    ``report=False`` skips the report (tables and figures).
    """
    unknown = sorted(set(options) - set(RUN_OPTIONS))
    if unknown:
        raise InvalidInputError(f"run_experiment: unknown option {unknown[0]!r}; expected one of {', '.join(RUN_OPTIONS)}")
    exp = name_or_experiment if isinstance(name_or_experiment, Experiment) else get_experiment(name_or_experiment)
    run_dir = pathlib.Path(out) / exp.name
    with run_lock(run_dir):  # the report is written under the same lock as the cells
        summary = _run_cells_locked(exp, run_dir, **{**RUN_OPTIONS, **options})
        if not report:
            return summary
        before = _report_files(run_dir)
        text = exp.report(summary.table, run_dir)
        after = _report_files(run_dir)
    written = tuple(sorted(p for p, mtime in after.items() if before.get(p) != mtime))
    return dataclasses.replace(summary, report=text or "", files=written)


def _report_files(run_dir: pathlib.Path) -> dict[pathlib.Path, float]:
    keep = {".csv", ".md", ".png", ".svg", ".pdf", ".txt"}
    return {p: p.stat().st_mtime_ns for p in run_dir.iterdir() if p.is_file() and p.suffix in keep
            and p.name != "results.csv"}


def iter_rows(table: pandas.DataFrame) -> Iterable[dict]:
    """Rows of a result table as dicts (NaN as None), for reports."""
    for rec in table.to_dict("records"):
        yield {k: (None if isinstance(v, float) and v != v else v) for k, v in rec.items()}

