"""``moldable-scale``: seed 002's algorithms and bounds from 400 x 200 to 10,000 x 2,000.

Seed 002 §4 stops at 400 tasks on 200 processors. Instances of the ``high``
kind (:func:`vcsched.generators.moldable.generate_moldable_instance`, instance
seed 1) at tasks x processors :data:`SIZES`; per size four steps, each in its
own Python process (``benchmarks.experiments._moldable_scale_child``, address
space capped at :data:`MEM_CAP_GB`): ``load`` (the instance saved as the
documented JSON, then :func:`vcsched.problems.moldable.load_instance` alone;
``file_mb``), ``load-npz`` (the same with the compact ``.npz`` form), ``bicriteria`` (the bi-criteria algorithm), ``interval`` (the
paper's interval LP bound) and ``refined`` (the refined bound; HiGHS limited to
:data:`TIME_LIMIT` s). Rows: wall and CPU seconds of the step, peak RSS
(``VmHWM``, interpreter and instance included), status, value (minsum or bound).

Report: the table per size and step, the growth exponent of CPU in the
number of tasks per step, figure ``cpu_vs_tasks.png`` (log-log). Quick: the two
smallest sizes.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.experiments._child import run_child
from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "SIZES"]

SIZES = ((400, 200), (1_000, 500), (2_000, 1_000), (5_000, 2_000), (10_000, 2_000))
METHODS = ("load", "load-npz", "bicriteria", "interval", "refined")
TIME_LIMIT = 300.0
MEM_CAP_GB = 6.0
CHILD_TIMEOUT = 1_800.0


def cells(quick: bool) -> list[dict]:
    """Full: 5 sizes x 5 steps. Quick: the two smallest sizes."""
    sizes = SIZES[:2] if quick else SIZES
    return [{"n": n, "m": m, "kind": "high", "instance_seed": 1, "method": meth, "time_limit": TIME_LIMIT,
             "mem_cap_gb": MEM_CAP_GB} for n, m in sizes for meth in METHODS]


def run_cell(params: dict, seed: int) -> list[dict]:
    """Run the step in a fresh process; one row (``status`` ``error`` if the process died)."""
    return run_child("benchmarks.experiments._moldable_scale_child", params, CHILD_TIMEOUT)


def growth(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per step: ``b`` in ``cpu ~ n^b`` (least squares on log CPU vs log tasks)."""
    import pandas as pd

    rows = []
    for method, g in df.groupby("method"):
        g = g[g["cpu_s"] > 0]
        b = float(np.polyfit(np.log(g["n"].to_numpy(float)), np.log(g["cpu_s"].to_numpy(float)), 1)[0]) \
            if g["n"].nunique() >= 2 else float("nan")
        rows.append({"method": method, "sizes": int(g["n"].nunique()), "exponent": b})
    return pd.DataFrame(rows)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    cols = [c for c in ("n", "m", "method", "status", "cpu_s", "wall_s", "peak_rss_mb", "file_mb", "value", "message")
            if c in df.columns]
    table = df[cols].sort_values(["n", "method"]).reset_index(drop=True)
    save_table(table, out_dir, "moldable_scale")
    ok = df[(df["status"] != "error") & df["cpu_s"].notna()].copy()
    texts = [text_table(table)]
    if not ok.empty:
        g = growth(ok)
        save_table(g, out_dir, "growth_exponents")
        texts.append(text_table(g))
        line_plot(ok, x="n", y="cpu_s", series="method", out_dir=out_dir, stem="cpu_vs_tasks", xlabel="tasks",
                  ylabel="CPU seconds", title="moldable-scale: CPU seconds vs tasks", logx=True, logy=True,
                  unit="instances")
    return "\n\n".join(texts)


EXPERIMENT = Experiment("moldable-scale", "moldable load, bi-criteria, interval and refined bounds from 400 x 200 "
                        "to 10,000 x 2,000: time, peak memory, growth exponent", cells, run_cell, report)
