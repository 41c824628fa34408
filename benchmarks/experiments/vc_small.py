"""``vc-small``: seed 001 §4.2.1-4.2.2 on the 1,440 small instances (4 hosts, 6-12 jobs).

Every instance of :func:`vcsched.generators.vc.instance_set_specs` ``("small")``
(built with :func:`vcsched.generators.vc.build_instance` and the fixed root
seed :data:`~benchmarks.experiments._vc_common.INSTANCE_ROOT_SEED`, so every method and every experiment sees
the same instances) is solved by the exact MILP, its LP relaxation (the
bound; solved once and shared with RRND/RRNZ) and the fourteen heuristics.

Reproduces Table 1 (MCB % degradation from best), Figs 2-5 (MCB1-8: minimum
yield, average yield, failure rate vs slack; run time vs jobs) and Figs 11-14
(MCB8, GR, SG, GB, SGB, RRND, RRNZ, MILP, LP).

One cell = one problem specification (jobs, slack, CVs) and its replicates.
Rows and the definitions of the reported numbers: see
:mod:`benchmarks.experiments._vc_common`.
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

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "PAPER_TABLE1", "OVERALL"]

OVERALL = ("milp", "lp", "mcb8", "gr", "sg", "gb", "sgb", "rrnd", "rrnz")

PAPER_TABLE1 = {  # seed 001 Table 1: avg, max % degradation from best, small instances
    "mcb8": (1.06, 40.45), "mcb5": (1.60, 38.67), "mcb6": (1.83, 37.61), "mcb7": (3.91, 40.71),
    "mcb3": (11.76, 55.73), "mcb2": (14.21, 48.30), "mcb1": (14.90, 55.84), "mcb4": (17.32, 46.95),
}


# --------------------------------------------------------------------------- cells


def cells(quick: bool) -> list[dict]:
    """Full: the 144 specs x 10 replicates. Quick: 6 and 10 jobs, equal CVs, 1 replicate (36 instances)."""
    from vcsched.generators.vc import CVS, INSTANCE_SETS, SLACKS

    _, job_counts, reps, _ = INSTANCE_SETS["small"]
    if quick:
        return vcc.spec_cells("small", job_counts=(6, 10), slacks=SLACKS, cvs=[(0.25, 0.25), (0.75, 0.75)],
                              reps=1, chunk=1)
    return vcc.spec_cells("small", job_counts=job_counts, slacks=SLACKS, cvs=[(a, b) for a in CVS for b in CVS],
                          reps=reps, chunk=reps)


def run_cell(params: dict, seed: int) -> list[dict]:
    """MILP, LP and the fourteen heuristics on the cell's small instances."""
    from heuristics.vc import REGISTRY

    return vcc.run_spec_cell(params, seed, ["milp", "lp", *REGISTRY.names()])


# --------------------------------------------------------------------------- report


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Table 1, Figs 2-5 and 11-14, and the headline numbers beside the paper's."""
    out_dir = pathlib.Path(out_dir)
    df = vcc.ok_rows(df)
    deg = vcc.degradation_table(df, vcc.MCB, PAPER_TABLE1)
    save_table(deg, out_dir, "table1_mcb_degradation", title="Table 1: % degradation from best MCB (small)")
    save_table(vcc.slack_table(df, vcc.MCB + OVERALL), out_dir, "by_slack", title="Per method and slack (small)")
    save_table(vcc.runtime_table(df, vcc.MCB + OVERALL), out_dir, "runtime_by_jobs", title="Run time (small)")
    vcc.slack_figures(df, out_dir, vcc.MCB, label="MCB, small", numbers=(2, 3, 4, 5), highlight=("mcb8",))
    vcc.slack_figures(df, out_dir, OVERALL, label="small", numbers=(11, 12, 13, 14))

    n_inst = len(vcc.by_instance(df, "success"))
    statuses = df[df["method"] == "milp"]["status"].value_counts().to_dict()
    ff = vcc.feasible_failures(df, ["gb", "sgb", "mcb8", "sg", "gr", "rrnd", "rrnz"])
    mcb8 = deg.set_index("algorithm").loc["mcb8"] if "mcb8" in set(deg["algorithm"]) else None
    greedy = [vcc.above_pct(df, "milp", g) for g in ("gr", "sg", "gb", "sgb")]
    items = [
        ("instances", n_inst, 1440, ""),
        ("MCB8 avg % degradation from best MCB", mcb8["avg_deg_pct"] if mcb8 is not None else math.nan, 1.06, "",
         int(mcb8["n"]) if mcb8 is not None else 0, mcb8["ci95"] if mcb8 is not None else math.nan),
        ("MCB8 max % degradation", mcb8["max_deg_pct"] if mcb8 is not None else math.nan, 40.45, ""),
        ("MILP % above MCB8 (min yield)", vcc.above_pct(df, "milp", "mcb8"), 2.0, "paper: 'about 2%'",
         vcc.both_solved(df, "milp", "mcb8")),
        ("MILP % above greedy (GR, SG, GB, SGB: min..max)", f"{np.nanmin(greedy):.1f}..{np.nanmax(greedy):.1f}",
         "11..13", ""),
        ("LP % above MILP", vcc.above_pct(df, "lp", "milp"), 4.0, "paper: 'about 4%'", vcc.both_solved(df, "lp", "milp")),
        ("infeasible instances (MILP)", statuses.get("infeasible", 0), 60, "GLPK could not find a solution"),
        ("MILP instances not proven", n_inst - statuses.get("infeasible", 0) - statuses.get("optimal", 0), 0, ""),
    ] + [(f"{m.upper()} failures on feasible instances", v, {"gb": 0, "sgb": 0, "mcb8": 1, "sg": 15}.get(m, "-"), "")
         for m, v in ff.items()]
    return vcc.headline_report(items, deg, out_dir, name="vc-small (seed 001 §4.2.1-4.2.2)", table="Table 1")


EXPERIMENT = Experiment("vc-small", "seed 001 small set (1,440 instances): MCB1-8 Table 1, Figs 2-5; all heuristics vs "
                        "MILP/LP, Figs 11-14", cells, run_cell, report)
