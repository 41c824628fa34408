"""``vc-large``: seed 001 §4.2.1 and §4.2.3 on the 10,800 large instances (64 hosts, 100-500 jobs).

Every instance of ``instance_set_specs("large")`` (fixed root seed
:data:`~benchmarks.experiments._vc_common.INSTANCE_ROOT_SEED`) is solved by the
fourteen heuristics and the LP relaxation (the bound: no MILP at this size).
The LP is solved once per instance and shared by the bound, RRND and RRNZ.

Reproduces the Fig. 7 table (MCB % degradation from best), Figs 6, 8-10
(MCB1-8) and Figs 15-18 (MCB8, GR, SG, GB, SGB, RRND, RRNZ and the LP bound).

One cell = one specification and a chunk of 10 replicates (full: 1,080
cells); rows and definitions as in :mod:`benchmarks.experiments._vc_common`.
"""

from __future__ import annotations

import math
import pathlib
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.experiments import _vc_common as vcc
from benchmarks.harness import Experiment
from benchmarks.tables import save_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "PAPER_FIG7"]

OVERALL = ("lp", "mcb8", "gr", "sg", "gb", "sgb", "rrnd", "rrnz")
PAPER_FIG7 = {  # seed 001 Fig. 7 (a table): avg, max % degradation from best, large instances
    "mcb8": (0.09, 3.16), "mcb5": (0.25, 3.50), "mcb6": (0.46, 16.68), "mcb7": (1.04, 48.39),
    "mcb3": (4.07, 64.71), "mcb2": (8.68, 46.68), "mcb1": (10.97, 73.33), "mcb4": (14.80, 61.20),
}
CHUNK = 10


def cells(quick: bool) -> list[dict]:
    """Full: 108 specs x 100 replicates in chunks of 10. Quick: 100 and 500 jobs, 4 slacks, equal CVs, 1 replicate."""
    from vcsched.generators.vc import CVS, INSTANCE_SETS, SLACKS

    _, job_counts, reps, _ = INSTANCE_SETS["large"]
    if quick:
        return vcc.spec_cells("large", job_counts=(100, 500), slacks=(0.1, 0.3, 0.5, 0.9),
                              cvs=[(0.25, 0.25), (0.75, 0.75)], reps=1, chunk=1)
    return vcc.spec_cells("large", job_counts=job_counts, slacks=SLACKS, cvs=[(a, b) for a in CVS for b in CVS],
                          reps=reps, chunk=CHUNK)


def run_cell(params: dict, seed: int) -> list[dict]:
    """The LP bound and the fourteen heuristics on the cell's large instances."""
    from heuristics.vc import REGISTRY

    return vcc.run_spec_cell(params, seed, ["lp", *REGISTRY.names()])


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Fig. 7 table, Figs 6, 8-10 and 15-18, and the headline numbers beside the paper's."""
    out_dir = pathlib.Path(out_dir)
    df = vcc.ok_rows(df)
    deg = vcc.degradation_table(df, vcc.MCB, PAPER_FIG7)
    save_table(deg, out_dir, "fig7_mcb_degradation", title="Fig. 7: % degradation from best MCB (large)")
    by_slack = vcc.slack_table(df, vcc.MCB + OVERALL)
    save_table(by_slack, out_dir, "by_slack", title="Per method and slack (large)")
    save_table(vcc.runtime_table(df, vcc.MCB + OVERALL), out_dir, "runtime_by_jobs", title="Run time (large)")
    vcc.slack_figures(df, out_dir, vcc.MCB, label="MCB, large", numbers=(6, 8, 9, 10), highlight=("mcb8",))
    vcc.slack_figures(df, out_dir, OVERALL, label="large", numbers=(15, 16, 17, 18), highlight=("lp",))

    gap_rows = []
    for slack in sorted(df["slack"].unique()):
        row = {"slack": slack}
        for m in ("mcb8", "gr", "sg", "gb", "sgb", "rrnd", "rrnz"):
            row[f"{m}_below_lp_pct"] = vcc.below_bound_pct(df, m, where=lambda d, s=slack: d["slack"] == s)
        gap_rows.append(row)
    import pandas as pd

    gaps = pd.DataFrame(gap_rows)
    save_table(gaps, out_dir, "below_lp_by_slack", title="% below the LP bound, per slack (large)")

    mcb8 = deg.set_index("algorithm").loc["mcb8"] if "mcb8" in set(deg["algorithm"]) else None
    hi_slack = lambda d: d["slack"] >= 0.3  # noqa: E731
    greedy = [vcc.below_bound_pct(df, g, where=lambda d: d["slack"] > 0.2) for g in ("gr", "sg", "gb", "sgb")]
    fail = by_slack.pivot(index="slack", columns="method", values="failure_rate")
    rrnd_low = fail.loc[fail.index < 0.4, "rrnd"].mean() if "rrnd" in fail else math.nan
    items = [
        ("instances", len(vcc.by_instance(df, "success")), 10800, ""),
        ("MCB8 avg % degradation from best MCB", mcb8["avg_deg_pct"] if mcb8 is not None else math.nan, 0.09, "",
         int(mcb8["n"]) if mcb8 is not None else 0, mcb8["ci95"] if mcb8 is not None else math.nan),
        ("MCB8 max % degradation", mcb8["max_deg_pct"] if mcb8 is not None else math.nan, 3.16, ""),
        ("MCB8 % below LP, slack >= 0.3", vcc.below_bound_pct(df, "mcb8", where=hi_slack), "~0",
         "paper: 'extremely close'", vcc.both_solved(df, "mcb8", "lp", where=hi_slack)),
        ("MCB8 % below LP, slack 0.2", vcc.below_bound_pct(df, "mcb8", where=lambda d: d["slack"] == 0.2), 8, "",
         vcc.both_solved(df, "mcb8", "lp", where=lambda d: d["slack"] == 0.2)),
        ("MCB8 % below LP, slack 0.1", vcc.below_bound_pct(df, "mcb8", where=lambda d: d["slack"] == 0.1), 37, "",
         vcc.both_solved(df, "mcb8", "lp", where=lambda d: d["slack"] == 0.1)),
        ("greedy % below LP, slack > 0.2 (GR, SG, GB, SGB: min..max)",
         f"{np.nanmin(greedy):.1f}..{np.nanmax(greedy):.1f}", "~20", ""),
        ("RRND failure rate, slack < 0.4", rrnd_low, 1.0, "paper: 'failed to solve any'"),
        ("MCB8 median ms, 500 jobs (no avg-yield phase)", vcc.median_ms(df, "mcb8", 500), "~500",
         ""),
        ("GR median ms, 500 jobs", vcc.median_ms(df, "gr", 500), "15..20", ""),
        ("SG median ms, 500 jobs", vcc.median_ms(df, "sg", 500), "15..20", ""),
        ("LP median s, 500 jobs", vcc.median_ms(df, "lp", 500) / 1e3, "~650 (GLPK, RRND)", "HiGHS"),
        ("sum of cell seconds (CPU-side wall, all workers)",
         float(df.drop_duplicates("cell")["cell_seconds"].sum()) if "cell_seconds" in df else math.nan, "-",
         ""),
    ]
    return vcc.headline_report(items, deg, out_dir, name="vc-large (seed 001 §4.2.3)", table="Fig. 7 table")


EXPERIMENT = Experiment("vc-large", "seed 001 large set (10,800 instances): MCB Fig. 7 table, Figs 6, 8-10; heuristics "
                        "vs LP bound, Figs 15-18", cells, run_cell, report)
