"""``vc-scale``: MCB8, the closed form and ``certify`` from 64 x 500 to 10,000 x 100,000.

Seed 001's scale is 64 hosts; a data centre's is thousands. Instances from the
§4.1 generator (:func:`vcsched.generators.vc.generate_vc_instance`, CVs 0.5 /
0.5, one task per job) at hosts x jobs :data:`SIZES` (about ten jobs per host
beyond the paper's size), slacks 0.3 and 0.1, :data:`SEEDS` instance seeds.
Every (instance, method) is one cell run in its own Python process
(``benchmarks.experiments._vc_scale_child``), so that its peak resident memory
(``VmHWM``, the "maximum resident set size" of ``/usr/bin/time -v``,
including the interpreter and the instance) is the method's own; times are the method's wall and CPU
seconds in that process (instance generation excluded, and the one-off start of the method
excluded too: before the timed run the child solves an instance of as many jobs up to 20,000 with
the same method,
which loads the lazy imports and the compiled code; its CPU seconds are the column
``warmup_cpu_s``). ``certify`` runs as on
the command line (MCB8, SG, GR, the improvement step, the configuration LP) with
:data:`TIME_LIMIT` seconds and stops at a proven 0.1 % gap.

Report: per size, slack and method the median CPU and wall seconds, the largest
peak RSS, the statuses and the median certified gap; per method and slack the
growth exponent ``b`` of ``cpu ~ jobs^b`` fitted by least squares on the
log-log medians and the local one between the two largest sizes; figure
``cpu_vs_jobs.png`` (log-log, one line per method and slack). Quick: the three
smallest sizes, one seed.
"""

from __future__ import annotations

import math
import pathlib
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.experiments._child import run_child
from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "SIZES", "growth_exponents"]

SIZES = ((64, 500), (256, 2_000), (1_000, 10_000), (4_096, 40_000), (10_000, 100_000))
SLACKS = (0.3, 0.1)
SEEDS = (1, 2, 3)
METHODS = ("mcb8", "closed-form", "certify")
TIME_LIMIT = 120.0
STOP_GAP = 1e-3
CHILD_TIMEOUT = 3 * TIME_LIMIT + 120.0


def cells(quick: bool) -> list[dict]:
    """Full: 5 sizes x 2 slacks x 3 seeds x 3 methods. Quick: 3 sizes, seed 1."""
    sizes, seeds = (SIZES[:3], SEEDS[:1]) if quick else (SIZES, SEEDS)
    return [{"hosts": h, "jobs": j, "slack": s, "cv_mem": 0.5, "cv_cpu": 0.5, "instance_seed": seed,
             "method": m, "time_limit": TIME_LIMIT, "stop_gap": STOP_GAP}
            for h, j in sizes for s in SLACKS for seed in seeds for m in METHODS]


def run_cell(params: dict, seed: int) -> list[dict]:
    """Run the method in a fresh process; one row (``status`` ``error`` if the process died)."""
    return run_child("benchmarks.experiments._vc_scale_child", params, CHILD_TIMEOUT)


def growth_exponents(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per method and slack: ``b`` in ``cpu ~ jobs^b`` (least squares on log median CPU vs log jobs)
    and the local exponent between the two largest sizes (``J log J`` gives about 1.09 there)."""
    import pandas as pd

    rows = []
    for (method, slack), g in df.groupby(["method", "slack"]):
        med = g.groupby("jobs")["cpu_s"].median()
        med = med[med > 0]
        x, y = np.log(med.index.to_numpy(float)), np.log(med.to_numpy(float))
        b = float(np.polyfit(x, y, 1)[0]) if len(med) >= 2 else math.nan
        last = float((y[-1] - y[-2]) / (x[-1] - x[-2])) if len(med) >= 2 else math.nan
        rows.append({"method": method, "slack": slack, "sizes": len(med), "exponent": b,
                     "exponent_largest_two": last})
    return pd.DataFrame(rows)


def summary_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per size, slack and method: median CPU and wall s, max peak RSS, statuses, median gap."""
    import pandas as pd

    rows = []
    for (hosts, jobs, slack, method), g in df.groupby(["hosts", "jobs", "slack", "method"]):
        counts = g["status"].value_counts()
        rows.append({"hosts": hosts, "jobs": jobs, "slack": slack, "method": method, "instances": len(g),
                     "cpu_median_s": float(g["cpu_s"].median()), "wall_median_s": float(g["wall_s"].median()),
                     "peak_rss_max_mb": float(g["peak_rss_mb"].max()),
                     "status": ", ".join(f"{k} {v}" for k, v in counts.items()),
                     "gap_median_pct": 100 * float(g["gap"].median()) if g["gap"].notna().any() else math.nan,
                     "closed_by": ", ".join(sorted(set(map(str, g["closed_by"].dropna())) - {"", "nan"}))})
    return pd.DataFrame(rows)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    ok = df[df["status"] != "error"].copy()
    if ok.empty:
        return "vc-scale: no cell produced a result"
    summary = summary_table(ok)
    growth = growth_exponents(ok)
    save_table(summary, out_dir, "scale_summary")
    save_table(growth, out_dir, "growth_exponents")
    ok["series"] = ok["method"] + " slack " + ok["slack"].astype(str)
    line_plot(ok, x="jobs", y="cpu_s", series="series", out_dir=out_dir, stem="cpu_vs_jobs", xlabel="jobs",
              ylabel="CPU seconds (median)", title="vc-scale: CPU seconds vs jobs (about 10 jobs per host)",
              logx=True, logy=True, aggregate="median", unit="instances")
    failed = int((df["status"] == "error").sum())
    return "\n\n".join([text_table(summary), text_table(growth)]
                       + ([f"{failed} cells died (see the 'message' column)"] if failed else []))


EXPERIMENT = Experiment("vc-scale", "MCB8, closed form and certify from 64 x 500 to 10,000 x 100,000: time, "
                        "peak memory, status, gap, growth exponent", cells, run_cell, report)
