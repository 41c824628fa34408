"""Solve your own set of instance files with several methods into one table.

``vcsched vc solve DIR-or-GLOB --method M[,M...] -o results.parquet`` (and the same for
``moldable solve``) lands here: one harness cell per (file, method), run on the harness's
workers (local processes, or Dask with ``--scheduler``), with its progress bar, resume
and run-folder lock (:mod:`benchmarks.harness`). The run folder sits beside the output,
``results.run/`` for ``-o results.parquet``; ``--resume`` keeps its finished cells.

The table has one row per file x method, in file order then method order: ``file``,
then the fields of the command's ``--json`` output (lists and objects, such as ``cpu``
or ``schedule``, as JSON text), then ``code_version``. A file that cannot be read or
solved is one row with ``status`` ``error`` and the reason in ``message``; the other
rows are unaffected. Every cell uses the command's ``--seed`` (not a per-cell seed), so
a row equals what the one-file command prints for that file.
"""

from __future__ import annotations

import glob
import json
import os
import pathlib
from typing import Any

import pandas

from benchmarks.harness import Experiment, run_cells
from vcsched.errors import InvalidInputError, VcschedError
from vcsched.files import atomic_write

__all__ = ["expand_instances", "solve_set", "run_cell", "run_folder"]

PROBLEMS = ("vc", "moldable", "vc-pack")
FORMATS = (".parquet", ".csv")


def expand_instances(text: str, patterns: tuple[str, ...] = ("*.json",)) -> list[str]:
    """The files of a set, sorted: those matching ``patterns`` (default ``*.json``) in a folder, or the files a
    glob matches.

    Every entry but a folder is a file of the set, a regular file or not (a FIFO, a socket, a
    device, a broken link): the reader refuses what is not a regular file without opening it for
    reading, so such an entry becomes an ``error`` row, as any bad file among many, never a file
    silently left out."""
    from vcsched.data import path_exists, user_path

    path = user_path(text, what="instance set")
    if path_exists(path, what="instance set") and path.is_dir():
        files = sorted({str(p) for pattern in patterns for p in path.glob(pattern) if not p.is_dir()})
        where = f"{text}: no {' or '.join(patterns)} file in this folder"
    else:
        files = sorted(p for p in glob.glob(os.path.expanduser(text)) if not pathlib.Path(p).is_dir())
        where = f"{text}: the pattern matches no file"
    if not files:
        raise InvalidInputError(f"{where}; give a folder of instance files or a pattern such as 'sets/*.json'")
    return files


def run_folder(output: str | os.PathLike) -> pathlib.Path:
    """The run folder of an output table: ``results.run`` beside ``results.parquet``."""
    return pathlib.Path(output).with_suffix(".run")


def check_output(output: str | os.PathLike) -> None:
    if pathlib.Path(output).suffix.lower() not in FORMATS:
        raise InvalidInputError(f"-o {output}: the table's format comes from its suffix, one of "
                                f"{', '.join(FORMATS)}")


def run_cell(params: dict, seed: int) -> list[dict]:
    """One file x method: the row of the command's ``--json`` output, or an ``error`` row."""
    options = json.loads(params["options"])
    try:
        row = _SOLVERS[params["problem"]](params["file"], params["method"], options)
    except VcschedError as exc:
        return [{"method": params["method"], "status": "error", "message": str(exc)}]
    return [{key: _scalar(value) for key, value in row.items()}]


def _scalar(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, (list, dict, tuple)) else value


def _solve_vc(file: str, method: str, options: dict) -> dict:
    from heuristics.vc.methods import METHODS, refusal, result_row, solve
    from vcsched.problems.jsonfile import load_json
    from vcsched.problems.vc import parse_instance
    from vcsched.problems.vc_hetero import is_new_form

    data = load_json(file, what="VCSched instance")
    if is_new_form(data):
        return _solve_vc_hetero(file, data, method, options)
    if method not in METHODS:
        raise InvalidInputError(f"{file}: method {method!r} is for instances with host types; this file has "
                                "\"hosts\": N (the 2-D form)")
    instance = parse_instance(data, file)
    reason = refusal(method, instance)
    if reason is not None:
        raise InvalidInputError(f"{file}: {reason}")
    return result_row(solve(instance, method, **_taken(method, options, "vc")), instance)


def _solve_vc_hetero(file: str, data: Any, method: str, options: dict) -> dict:
    """A file with host types (:mod:`vcsched.problems.vc_hetero`): the row of ``vc solve FILE --json``."""
    from heuristics.vc_hetero.methods import METHODS, TIMED, result_row, solve
    from vcsched.problems.vc_hetero import parse_hetero

    if method not in METHODS:
        raise InvalidInputError(f"{file}: method {method!r} is not for an instance with host types; choose one of "
                                f"{', '.join(METHODS)}")
    instance = parse_hetero(data, file)
    taken = {"time_limit": options.get("time_limit")} if method in TIMED else {}
    return result_row(solve(instance, method, **taken), instance)


def _solve_moldable(file: str, method: str, options: dict) -> dict:
    from heuristics.moldable.methods import result_row, solve
    from vcsched.problems.moldable import load_instance

    instance = load_instance(file)
    return result_row(solve(instance, method, **_taken(method, options, "moldable")), instance)


def _taken(method: str, options: dict, problem: str) -> dict:
    """The options ``method`` takes (as the one-file command passes them)."""
    if problem == "vc":
        from heuristics.vc.methods import METHODS
    else:
        from heuristics.moldable.methods import METHODS
    return {k: v for k, v in options.items() if k in METHODS.get(method).options}


def _solve_vc_pack(file: str, method: str, options: dict) -> dict:
    from heuristics.vector.methods import pack, pack_to_json
    from vcsched.problems.vbp_typed import load_packing

    return {"method": method, **pack_to_json(pack(load_packing(file), method, time_limit=options.get("time_limit")))}


_SOLVERS = {"vc": _solve_vc, "moldable": _solve_moldable, "vc-pack": _solve_vc_pack}


def solve_set(problem: str, files: list[str], methods: list[str], options: dict, output: str | os.PathLike | None,
              *, workers: int | None = None, scheduler: Any = None, resume: bool = False,
              progress: bool | None = None, folder: str | os.PathLike | None = None) -> pandas.DataFrame:
    """Solve every file with every method; write the table to ``output`` (Parquet or CSV by its
    suffix) when given, and return it. ``folder`` is the run folder (default :func:`run_folder`
    of ``output``; one is required when ``output`` is None)."""
    if problem not in PROBLEMS:
        raise InvalidInputError(f"problem must be one of {', '.join(PROBLEMS)}, got {problem!r}")
    if output is not None:
        check_output(output)
    folder = pathlib.Path(folder) if folder is not None else run_folder(output)
    text = json.dumps(options, sort_keys=True)
    cells = [{"problem": problem, "file": f, "method": m, "options": text} for f in files for m in methods]
    experiment = Experiment(f"{problem}-solve", f"{problem} solve over {len(files)} files", lambda quick: cells,
                            run_cell, lambda table, out: "")
    summary = run_cells(experiment, folder, workers=workers, scheduler=scheduler, resume=resume, progress=progress)
    table = tidy(summary.table)
    if output is not None:
        writer = (lambda tmp: table.to_parquet(tmp, index=False)) if str(output).lower().endswith(".parquet") \
            else (lambda tmp: table.to_csv(tmp, index=False))
        atomic_write(output, writer, fsync=True)
    return table


def tidy(table: pandas.DataFrame) -> pandas.DataFrame:
    """One row per file x method: ``file``, the command's fields, ``code_version``; a cell that
    raised becomes an ``error`` row with its text in ``message``."""
    table = table.copy()
    if "cell_status" in table:
        raised = table["cell_status"] == "error"
        if raised.any():
            if "status" not in table:
                table["status"] = None
            if "message" not in table:
                table["message"] = None
            table.loc[raised, "status"] = "error"
            table.loc[raised, "message"] = table.loc[raised, "error"]
    internal = {"problem", "options", "cell", "cell_id", "row", "seed", "cell_status", "error", "machine",
                "cell_seconds", "cell_cpu_seconds"}
    columns = ["file"] + [c for c in table.columns if c not in internal and c not in ("file", "code_version")]
    return table[columns + ["code_version"]].reset_index(drop=True)
