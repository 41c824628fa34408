"""A tiny deterministic experiment for testing the harness (not registered).

Each cell draws numbers from its seed, may sleep (to be killed mid-run), and
fails on request: ``fail=True`` always, ``fail_unless="PATH"`` while PATH does
not exist (to test that ``--resume`` retries failed cells); ``crash=True``
kills the worker process.
"""

from __future__ import annotations

import os
import pathlib
import time

import numpy as np

from benchmarks.harness import Experiment
from benchmarks.split import Split, run_split_cell

__all__ = ["make_cells", "run_cell", "report", "experiment", "SPLIT", "split_experiment"]


def make_cells(n: int = 6, *, sleep: float = 0.0, fail: tuple[int, ...] = (), fail_unless: str = "") -> list[dict]:
    """``n`` cells ``k = 0..n-1``; those in ``fail`` raise (always, or while ``fail_unless`` is missing)."""
    cells = []
    for k in range(n):
        c = {"k": k, "sleep": float(sleep), "fail": k in fail and not fail_unless}
        if k in fail and fail_unless:
            c["fail_unless"] = fail_unless
        cells.append(c)
    return cells


def run_cell(params: dict, seed: int) -> list[dict]:
    """Two rows of seeded numbers; raises when asked to."""
    if params.get("sleep"):
        time.sleep(params["sleep"])
    if params.get("crash"):
        os._exit(3)  # a worker that dies (segfault, out of memory...)
    if params.get("fail"):
        raise RuntimeError(f"cell {params['k']} was asked to fail")
    marker = params.get("fail_unless")
    if marker and not os.path.exists(marker):
        raise RuntimeError(f"cell {params['k']}: {marker} does not exist yet")
    rng = np.random.default_rng(seed)
    return [{"draw": float(rng.random()), "square": params["k"] ** 2, "pid_seconds": 0.0} for _ in range(2)]


def report(df, out_dir: pathlib.Path) -> str:
    from benchmarks.tables import save_table, text_table

    table = df.groupby("k", as_index=False)["draw"].mean() if "draw" in df else df.head(0)
    save_table(table, out_dir, "selftest")
    return text_table(table)


def experiment(**kwargs) -> Experiment:
    """The self-test experiment over ``make_cells(**kwargs)`` (the quick flag is ignored)."""
    cells = make_cells(**kwargs)
    return Experiment("selftest", "harness self-test", lambda quick, cells=cells: [dict(c) for c in cells], run_cell, report)


PARTS = ("p0", "p1", "p2")


def run_part(params: dict, seed: int, part: str) -> float:
    """One part of a split self-test cell: a draw from the cell's seed and the part's index (raises on a cell in
    ``fail``, in its last part only)."""
    k = PARTS.index(part)
    if params.get("sleep"):
        time.sleep(params["sleep"] * (k + 1) / len(PARTS))
    if params.get("fail") and k == len(PARTS) - 1:
        raise RuntimeError(f"cell {params['k']} was asked to fail")
    return float(np.random.default_rng([seed, k]).random())


def join(params: dict, seed: int, results: list) -> list[dict]:
    """One row per part, in the parts' order, with the sum of the cell's draws."""
    return [{"part": part, "draw": x, "total": float(sum(results)), "square": params["k"] ** 2}
            for part, x in zip(PARTS, results)]


def part_cost(params: dict, part: str) -> float:
    """Later cells and later parts are estimated longer (any order gives the same rows)."""
    return float(params["k"] + PARTS.index(part))


def parts(params: dict) -> list[str]:
    return list(PARTS)


SPLIT = Split(parts, run_part, join, part_cost)
"""Three parts per cell and a join (:mod:`benchmarks.split`)."""


def run_split_self_cell(params: dict, seed: int) -> list[dict]:
    return run_split_cell(SPLIT, params, seed)


def split_experiment(*, split: bool = True, **kwargs) -> Experiment:
    """The self-test over ``make_cells(**kwargs)`` in three parts per cell, run as tasks (``split``) or each cell
    as one task (the same rows)."""
    cells = make_cells(**kwargs)
    return Experiment("selftest-split", "harness self-test, cells in parts",
                      lambda quick, cells=cells: [dict(c) for c in cells], run_split_self_cell, report,
                      split=SPLIT if split else None)
