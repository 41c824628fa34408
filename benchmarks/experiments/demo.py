"""``demo``: a small end-to-end VCSched experiment (seconds on a laptop).

A few instances of seed 001 §4.1 (4 hosts, 10 jobs, slack 0.2..0.8), each
solved by the compact MILP (the optimum), its LP relaxation (an upper bound)
and every heuristic registered in :data:`heuristics.vc.REGISTRY` (the list
grows as heuristics land). One cell = one instance; one row per method.

Row fields: ``method``, ``status``, ``min_yield``, ``avg_yield``, ``bound``
(the method's own proven upper bound, if any), ``milp_min_yield`` (the
optimum of that instance), ``gap_pct`` = ``100 (milp - min_yield) / milp``
(negative for the LP bound: how far above the optimum it is), ``seconds``
and ``message``.
"""

from __future__ import annotations

import pathlib
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import ci95_half, save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "METHOD_ORDER"]

HOSTS, JOBS = 4, 10
SLACKS = (0.2, 0.4, 0.6, 0.8)
METHOD_ORDER = ("milp", "lp")


def cells(quick: bool) -> list[dict]:
    """One cell per instance: slack x replicate (quick: 2 slacks, 1 replicate)."""
    slacks = (0.3, 0.7) if quick else SLACKS
    reps = 1 if quick else 3
    return [{"hosts": HOSTS, "jobs": JOBS, "slack": s, "cv_mem": 0.25, "cv_cpu": 0.25, "rep": r}
            for s in slacks for r in range(reps)]


def _methods() -> list[tuple[str, Callable[..., Any]]]:
    from heuristics.vc import REGISTRY
    from lowerbounds.vc import lp_relaxation
    from vcsched.formulations.vc_milp import solve_vc_milp

    methods: list[tuple[str, Callable[..., Any]]] = [
        ("milp", lambda inst, rng: solve_vc_milp(inst, time_limit=60.0)),
        ("lp", lambda inst, rng: lp_relaxation(inst)),
    ]
    for name in REGISTRY.names():
        fn = REGISTRY.get(name)
        methods.append((name, lambda inst, rng, fn=fn: fn(inst, rng=rng)))
    return methods


def _method_rng(seed: int, name: str) -> np.random.Generator:
    """A generator per (cell, method): independent of which other methods exist."""
    return np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])


def _row(name: str, result: Any) -> dict:
    has = result.status.has_solution
    extra = dict(result.extra or {})
    return {
        "method": name,
        "status": result.status.value,
        "min_yield": float(result.objective) if has and result.objective is not None else None,
        "avg_yield": float(extra["avg_yield"]) if has and extra.get("avg_yield") is not None else None,
        "bound": float(result.bound) if result.bound is not None else None,
        "seconds": float(result.seconds),
        "message": str(result.message or "")[:200],
    }


def run_cell(params: dict, seed: int) -> list[dict]:
    """Generate the cell's instance from its seed and run every method on it."""
    from vcsched.generators.vc import generate_vc_instance

    inst = generate_vc_instance(params["hosts"], params["jobs"], params["slack"], params["cv_mem"], params["cv_cpu"],
                                rng=np.random.default_rng(seed))
    rows = []
    for name, fn in _methods():
        try:
            rows.append(_row(name, fn(inst, _method_rng(seed, name))))
        except Exception as exc:  # noqa: BLE001 - one broken method must not hide the others
            rows.append({"method": name, "status": "error", "min_yield": None, "avg_yield": None, "bound": None,
                         "seconds": None, "message": f"{type(exc).__name__}: {exc}"[:200]})
    opt = next((r["min_yield"] for r in rows if r["method"] == "milp" and r["status"] == "optimal"), None)
    for r in rows:
        r["milp_min_yield"] = opt
        r["gap_pct"] = (100.0 * (opt - r["min_yield"]) / opt
                        if opt is not None and r["min_yield"] is not None and opt > 0 else None)
    return rows


def summary_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per method: instances, mean min yield, mean and max % gap to the MILP, failures, mean time; ``n`` (instances
    with a min yield) and ``ci95`` (half-width of the mean min yield's 95 % interval), ``mean_gap_ci95``."""
    import pandas as pd

    ok = df[df["cell_status"] == "ok"] if "cell_status" in df else df
    order = list(METHOD_ORDER) + sorted(set(ok["method"]) - set(METHOD_ORDER))
    out = []
    for name in order:
        sub = ok[ok["method"] == name]
        if sub.empty:
            continue
        solved = sub["status"].isin(["optimal", "feasible"])
        out.append({
            "method": name,
            "instances": int(len(sub)),
            "mean_min_yield": sub["min_yield"].astype(float).mean(),
            "mean_gap_pct": sub["gap_pct"].astype(float).mean(),
            "max_gap_pct": sub["gap_pct"].astype(float).max(),
            "failures": int((~solved).sum()),
            "mean_seconds": sub["seconds"].astype(float).mean(),
            "n": int(sub["min_yield"].astype(float).notna().sum()),
            "ci95": ci95_half(sub["min_yield"].astype(float)),
            "mean_gap_ci95": ci95_half(sub["gap_pct"].astype(float)),
        })
    return pd.DataFrame(out)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Print the summary table; save it (CSV + Markdown) and the min-yield-vs-slack figure."""
    if df.empty or "method" not in df:
        return "demo: no rows (every cell failed?)"
    table = summary_table(df)
    save_table(table, out_dir, "summary", title="demo: VCSched, 4 hosts x 10 jobs (gap_pct: % below the MILP optimum)")
    ok = df[df["cell_status"] == "ok"]
    heur = [m for m in ok["method"].unique() if m not in METHOD_ORDER]
    solved = ok[ok["milp_min_yield"].notna()]  # instances with a proven optimum: every line on the same set
    line_plot(solved, x="slack", y="min_yield", series="method", out_dir=out_dir, stem="min_yield_vs_slack",
              xlabel="memory slack (fraction of total memory left free)",
              ylabel="mean minimum yield (0-1; failures left out)",
              title=f"VCSched, {HOSTS} hosts x {JOBS} jobs: MILP optimum, LP bound and heuristics",
              references=[(1.0, "yield 1 (every job at full speed)")], series_order=list(METHOD_ORDER) + sorted(heur),
              highlight=list(METHOD_ORDER), unit="instances")
    n_inst = int(ok["cell"].nunique())
    failed_cells = int(df.loc[df["cell_status"] == "error", "cell"].nunique()) if "cell_status" in df else 0
    head = (f"demo: {n_inst} instances ({HOSTS} hosts x {JOBS} jobs), methods: milp, lp"
            + (", " + ", ".join(sorted(heur)) if heur else " (no heuristic registered yet)")
            + (f"; {failed_cells} cell(s) failed, see results.csv" if failed_cells else ""))
    return head + "\n" + text_table(table)


EXPERIMENT = Experiment("demo", "a few 4x10 VCSched instances: MILP optimum, LP bound and every registered heuristic "
                        "(seconds)", cells, run_cell, report)
