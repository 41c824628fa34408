"""One cell of a sweep, and the storage of its rows: cell ids and seeds, the function that runs a
cell on a worker (:func:`execute_cell`, never raises), part files and the final table.

The layout of a run folder, the columns and the seeds are described in :mod:`benchmarks.harness`,
which runs the cells.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pathlib
import platform
import socket
import subprocess
import time
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks.runfolder import part_path, write_part_file
from vcsched.errors import InvalidInputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["HARNESS_COLUMNS", "VOLATILE_COLUMNS", "cell_id", "cell_seeds", "check_cells", "code_version",
           "execute_cell", "machine_name", "cell_frame", "save_part", "load_results", "stable_table"]

HARNESS_COLUMNS = ("cell", "cell_id", "row", "seed", "cell_status", "error", "code_version", "machine", "cell_seconds",
                   "cell_cpu_seconds")
"""Columns the harness adds to every row."""

VOLATILE_COLUMNS = ("code_version", "machine", "cell_seconds")
"""Harness columns that change between runs (plus every ``*seconds`` column)."""


# --------------------------------------------------------------------------- cells and seeds


def cell_id(params: dict) -> str:
    """Stable id of a cell: 16 hex digits of the SHA-1 of its sorted parameters as JSON."""
    text = json.dumps(params, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def cell_seeds(n: int, root_seed: int) -> list[int]:
    """One int seed per cell from ``SeedSequence(root_seed).spawn(n)`` (63-bit, fits int64)."""
    children = np.random.SeedSequence(int(root_seed)).spawn(n)
    return [int(c.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) for c in children]


def check_cells(name: str, cells: list[dict]) -> list[str]:
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        raise InvalidInputError(f"experiment {name!r}: cells() must return a list of dicts")
    ids = [cell_id(c) for c in cells]
    if len(set(ids)) != len(ids):
        raise InvalidInputError(f"experiment {name!r}: two cells have the same parameters; make every cell unique")
    for c in cells:
        for key, value in c.items():
            if key in HARNESS_COLUMNS:
                raise InvalidInputError(f"experiment {name!r}: parameter {key!r} is a harness column; rename it")
            if not (value is None or isinstance(value, (bool, int, float, str))):
                raise InvalidInputError(f"experiment {name!r}: parameter {key!r} = {value!r} is not a JSON scalar")
    return ids


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """``git rev-parse HEAD`` of the checkout (``+dirty`` if tracked files changed), else the package version."""
    here = pathlib.Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10)
        if head.returncode == 0 and head.stdout.strip():
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                                   capture_output=True, text=True, timeout=10)
            return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    from vcsched import __version__

    return f"vcsched-{__version__}"


def machine_name() -> str:
    """Host name and platform of this process's machine (the ``machine`` column)."""
    return f"{socket.gethostname()} ({platform.system()} {platform.machine()}, {os.cpu_count()} cpus)"


# --------------------------------------------------------------------------- one cell (runs on a worker)


def execute_cell(run_cell: Callable[[dict, int], list[dict]], params: dict, seed: int) -> dict:
    """Run one cell and never raise: rows, or the error text, plus timing and machine.

    This is the function sent to the workers (process pool or Dask).
    """
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        rows = run_cell(dict(params), int(seed))
        rows = _validate_rows(rows, params)
        error = ""
    except Exception as exc:  # noqa: BLE001 - a failing cell is a result, the sweep goes on
        rows = []
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {pathlib.Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
        error = f"{type(exc).__name__}: {exc}{where}".replace("\n", " ")
    return {"rows": rows, "error": error, "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
            "machine": machine_name()}


def _validate_rows(rows: Any, params: dict) -> list[dict]:
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise TypeError(f"run_cell must return a list of dicts, got {type(rows).__name__}")
    out = []
    for r in rows:
        clean = {}
        for key, value in r.items():
            key = str(key)
            if key in HARNESS_COLUMNS:
                raise ValueError(f"row field {key!r} is a harness column; rename it")
            if isinstance(value, np.generic):
                value = value.item()
            if not (value is None or isinstance(value, (bool, int, float, str))):
                raise TypeError(f"row field {key!r} = {value!r} is not a scalar")
            if key in params and params[key] != value:
                raise ValueError(f"row field {key!r} = {value!r} differs from the cell parameter {params[key]!r}")
            clean[key] = value
        out.append(clean)
    return out


# --------------------------------------------------------------------------- storage


def cell_frame(params: dict, index: int, cid: str, seed: int, outcome: dict, version: str) -> pandas.DataFrame:
    import pandas as pd

    base = dict(params)
    base.update(cell=index, cell_id=cid, seed=seed, cell_status="error" if outcome["error"] else "ok",
                error=outcome["error"], code_version=version, machine=outcome["machine"],
                cell_seconds=float(outcome["seconds"]), cell_cpu_seconds=float(outcome.get("cpu_seconds", "nan")))
    rows = outcome["rows"] if not outcome["error"] else [{}]
    records = [{**base, "row": k, **r} for k, r in enumerate(rows)]
    if not records:  # a cell may legitimately return no rows: keep a marker row so it counts as done
        records = [{**base, "row": -1}]
    frame = pd.DataFrame.from_records(records)
    first = list(params) + [c for c in HARNESS_COLUMNS if c in frame.columns]
    return frame[first + [c for c in frame.columns if c not in first]]


def save_part(parts: pathlib.Path, frame: pandas.DataFrame, cid: str, failed: bool) -> None:
    path = part_path(parts, cid, error=failed)
    write_part_file(path, lambda tmp: frame.to_parquet(tmp, index=False))
    if not failed:
        stale = part_path(parts, cid, error=True)
        if stale.exists():
            stale.unlink()


def load_results(out_dir: str | os.PathLike, cells: list[dict] | None = None) -> pandas.DataFrame:
    """Concatenate the parts of a run directory, in cell order then row order.

    With ``cells``, only the parts of those cells (finished or failed) are
    read; otherwise every part present.
    """
    import pandas as pd

    parts = pathlib.Path(out_dir) / "parts"
    paths: list[pathlib.Path] = []
    if cells is not None:
        for c in cells:
            cid = cell_id(c)
            for p in (part_path(parts, cid), part_path(parts, cid, error=True)):
                if p.exists():
                    paths.append(p)
                    break
    else:
        paths = sorted(p for p in parts.glob("*.parquet"))
    frames = [pd.read_parquet(p) for p in paths]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=list(HARNESS_COLUMNS))
    table = pd.concat(frames, ignore_index=True, sort=False)
    table = table[table["row"] >= 0] if "row" in table else table
    return table.sort_values(["cell", "row"], kind="stable").reset_index(drop=True)


def stable_table(table: pandas.DataFrame) -> pandas.DataFrame:
    """The table without its volatile columns (timings, machine, code version).

    Two runs of the same experiment with the same seed give equal stable
    tables whatever the number of workers or the executor.
    """
    drop = [c for c in table.columns if c in VOLATILE_COLUMNS or str(c).endswith("seconds")]
    return table.drop(columns=drop).reset_index(drop=True)


