"""``grid-realloc``: task reallocation between batch clusters, the analogues of Tables 2-17 of seed 000.

Caniou, Charrier, Desprez, INRIA RR-7226 (2010), §4. One cell = one scenario
(``jan`` .. ``jun``, ``pwa-g5k``; the full run adds the all-real ``pwa``), one platform
type (homogeneous or heterogeneous) and one batch policy (FCFS or CBF): it runs the
reference without reallocation, then Algorithm 1 (no cancellation) and Algorithm 2
(cancellation, "-C") with each of the six heuristics, hourly, first event one hour after
the first submission, 60 s threshold. 7 x 2 x 2 x 13 = 364 simulations as in the paper.

Quick mode keeps the first :data:`QUICK_DAYS` days of every scenario. The workloads are
the same for every cell (``workload_seed`` parameter, default 0), so columns compare the
same jobs; the harness seed is not used (the simulations are deterministic).

Row fields: ``algorithm`` (none / no-cancel / cancel), ``heuristic``, ``label`` (paper
name), ``jobs``, ``impacted_pct``, ``reallocations``, ``reallocations_pct``,
``early_pct``, ``relative_response``, ``mean_wait``, ``ref_mean_wait``, ``mean_bsld``,
``ref_mean_bsld``, ``sim_seconds`` (wall time of the simulation), ``realloc_seconds``
(inside reallocation events).
"""

from __future__ import annotations

import pathlib
import time
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "QUICK_DAYS", "PAPER_AVG_RELATIVE_RESPONSE"]

QUICK_DAYS = 2.0
PAPER_COLUMNS = ("jan", "feb", "mar", "apr", "may", "jun", "pwa-g5k")
HEURISTICS = ("mct", "minmin", "maxmin", "maxgain", "maxrelgain", "sufferage")
LABELS = {"mct": "Mct", "minmin": "MinMin", "maxmin": "MaxMin", "maxgain": "MaxGain", "maxrelgain": "MaxRelGain",
          "sufferage": "Sufferage"}
METRICS = {  # metric -> (paper table numbers without / with cancellation for hom, het; title)
    "impacted_pct": ((2, 3), (10, 11), "% of jobs whose completion time changed"),
    "reallocations": ((4, 5), (12, 13), "number of reallocations"),
    "early_pct": ((6, 7), (14, 15), "% of impacted jobs finishing earlier"),
    "relative_response": ((8, 9), (16, 17), "relative average response time of impacted jobs"),
}
PAPER_AVG_RELATIVE_RESPONSE = {  # seed Tables 8, 9, 16, 17, column AVG: (algorithm, heterogeneous, batch) -> per heuristic
    ("no-cancel", False, "fcfs"): (0.99, 0.90, 0.95, 0.96, 0.94, 0.98),
    ("no-cancel", False, "cbf"): (0.94, 0.93, 0.94, 0.95, 0.95, 0.95),
    ("no-cancel", True, "fcfs"): (0.90, 0.94, 0.99, 0.98, 0.93, 0.98),
    ("no-cancel", True, "cbf"): (0.88, 0.92, 0.93, 0.91, 0.93, 0.92),
    ("cancel", False, "fcfs"): (0.76, 0.61, 0.82, 0.64, 0.63, 0.70),
    ("cancel", False, "cbf"): (0.86, 0.85, 0.83, 0.82, 0.84, 0.86),
    ("cancel", True, "fcfs"): (0.76, 0.72, 0.79, 0.74, 0.74, 0.75),
    ("cancel", True, "cbf"): (0.84, 0.82, 0.84, 0.84, 0.83, 0.82),
}


def cells(quick: bool) -> list[dict]:
    """Scenario x platform type x batch policy (28 cells; 32 with the extra ``pwa`` scenario in full mode)."""
    scenarios = list(PAPER_COLUMNS) + ([] if quick else ["pwa"])
    return [{"scenario": s, "heterogeneous": het, "batch": b, "days": QUICK_DAYS if quick else None,
             "workload_seed": 0}
            for s in scenarios for het in (False, True) for b in ("fcfs", "cbf")]


def _simulate(params: dict, jobs, policy):
    """Fresh clusters of the cell's platform, the cell's (shared, read-only) job table, one policy."""
    from vcsched.scenarios.grid import SCENARIOS, platform_clusters
    from vcsched.sim import simulate

    clusters = platform_clusters(SCENARIOS[params["scenario"]].platform, heterogeneous=params["heterogeneous"],
                                 batch=params["batch"])
    t0 = time.perf_counter()
    res = simulate(clusters, jobs, meta=policy)
    return res, time.perf_counter() - t0


def run_cell(params: dict, seed: int) -> list[dict]:
    """The reference run and the twelve reallocation runs of one scenario / platform type / batch policy."""
    from heuristics.grid.realloc import Reallocation
    from vcsched.scenarios.grid import compare_to_reference

    from vcsched.scenarios.grid import build_scenario

    _, jobs = build_scenario(params["scenario"], heterogeneous=params["heterogeneous"], batch=params["batch"],
                             days=params["days"], seed=params["workload_seed"])
    ref, ref_s = _simulate(params, jobs, Reallocation("none"))
    rows = []
    base = compare_to_reference(ref, ref, reallocations=0)
    rows.append({"algorithm": "none", "heuristic": "mct", "label": "reference", **_fields(base), "sim_seconds": ref_s,
                 "realloc_seconds": 0.0})
    for algorithm in ("no-cancel", "cancel"):
        for h in HEURISTICS:
            pol = Reallocation(algorithm, h)
            res, sec = _simulate(params, jobs, pol)
            m = compare_to_reference(res, ref, reallocations=pol.reallocations)
            rows.append({"algorithm": algorithm, "heuristic": h, "label": pol.label, **_fields(m), "sim_seconds": sec,
                         "realloc_seconds": pol.seconds})
    return rows


def _fields(m: dict) -> dict:
    keys = ("jobs", "impacted_pct", "reallocations", "reallocations_pct", "early_pct", "relative_response",
            "mean_wait", "ref_mean_wait", "mean_bsld", "ref_mean_bsld")
    return {k: m.get(k) for k in keys}


def paper_table(df: "pandas.DataFrame", metric: str, algorithm: str, heterogeneous: bool) -> "pandas.DataFrame":
    """Rows batch x heuristic, columns the scenarios (+ AVG, + the paper's AVG for the response time)."""
    import pandas as pd

    sub = df[(df["algorithm"] == algorithm) & (df["heterogeneous"] == heterogeneous)]
    scen = [s for s in list(PAPER_COLUMNS) + ["pwa"] if s in set(sub["scenario"])]
    out = []
    for batch in ("fcfs", "cbf"):
        for k, h in enumerate(HEURISTICS):
            r = sub[(sub["batch"] == batch) & (sub["heuristic"] == h)]
            if r.empty:
                continue
            row = {"batch": batch.upper(), "heuristic": LABELS[h] + ("-C" if algorithm == "cancel" else "")}
            vals = []
            for s in scen:
                v = r.loc[r["scenario"] == s, metric]
                v = float(v.iloc[0]) if len(v) and v.iloc[0] is not None and not pd.isna(v.iloc[0]) else np.nan
                row[s] = v
                if s in PAPER_COLUMNS:
                    vals.append(v)
            if metric != "reallocations":
                row["AVG"] = float(np.nanmean(vals)) if np.isfinite(vals).any() else np.nan
            if metric == "relative_response":
                row["paper_AVG"] = PAPER_AVG_RELATIVE_RESPONSE[(algorithm, heterogeneous, batch)][k]
            out.append(row)
    return pd.DataFrame(out)


def report(df: "pandas.DataFrame", out_dir: pathlib.Path) -> str:
    """Tables 2-17 analogues (CSV + Markdown), one figure per metric, headline numbers beside the paper's."""
    import pandas as pd

    if df.empty or "algorithm" not in df:
        return "grid-realloc: no rows (every cell failed?)"
    ok = df[df["cell_status"] == "ok"].copy() if "cell_status" in df else df.copy()
    ok["heterogeneous"] = ok["heterogeneous"].astype(bool)
    lines = []
    for metric, (t_nc, t_c, title) in METRICS.items():
        for algorithm, numbers in (("no-cancel", t_nc), ("cancel", t_c)):
            for het, num in zip((False, True), numbers):
                table = paper_table(ok, metric, algorithm, het)
                kind = "heterogeneous" if het else "homogeneous"
                save_table(table, out_dir, f"table{num:02d}_{metric}_{algorithm}_{kind}",
                           title=f"Table {num} analogue: {title}, {algorithm}, {kind} platforms")
    # figures: one per metric, x = scenario index, one line per heuristic label, mean over platform type and batch
    real = ok[ok["algorithm"] != "none"].copy()
    order = {s: k for k, s in enumerate(list(PAPER_COLUMNS) + ["pwa"])}
    real["scenario_index"] = real["scenario"].map(order)
    for metric, (_, _, title) in METRICS.items():
        refs = [(1.0, "no change (1.0)")] if metric == "relative_response" else []
        line_plot(real, x="scenario_index", y=metric, series="label", out_dir=out_dir, stem=f"fig_{metric}",
                  xlabel="scenario (0=jan 1=feb 2=mar 3=apr 4=may 5=jun 6=pwa-g5k 7=pwa)",
                  ylabel=title + (" (%)" if metric.endswith("pct") else ""),
                  title=f"grid-realloc: {title} (mean over FCFS/CBF, hom./het.)", references=refs)
    # headline numbers
    paper = real[real["scenario"].isin(PAPER_COLUMNS)]
    nc, c = paper[paper["algorithm"] == "no-cancel"], paper[paper["algorithm"] == "cancel"]
    rr_nc, rr_c = nc["relative_response"].astype(float).mean(), c["relative_response"].astype(float).mean()
    apr = c[(c["scenario"] == "apr") & (c["heuristic"] == "minmin") & (c["batch"] == "fcfs") & (~c["heterogeneous"])]
    best = c["relative_response"].astype(float).min() if len(c) else np.nan
    head = pd.DataFrame([
        {"quantity": "reallocations, % of jobs, no cancellation (mean / max)", "paper": "2.3 / 13.5",
         "ours": f"{nc['reallocations_pct'].mean():.1f} / {nc['reallocations_pct'].max():.1f}"},
        {"quantity": "reallocations, % of jobs, with cancellation (mean / max)", "paper": "5.8 / 28.8",
         "ours": f"{c['reallocations_pct'].mean():.1f} / {c['reallocations_pct'].max():.1f}"},
        {"quantity": "MinMin-C, FCFS, homogeneous, apr: relative response time", "paper": "0.26 (divided by ~4)",
         "ours": f"{float(apr['relative_response'].iloc[0]):.2f}" if len(apr) else "-"},
        {"quantity": "best relative response time with cancellation (any cell)", "paper": "0.26",
         "ours": f"{best:.2f}"},
        {"quantity": "mean relative response time, no cancellation vs cancellation", "paper": "0.94 vs 0.78",
         "ours": f"{rr_nc:.2f} vs {rr_c:.2f}"},
        {"quantity": "cancellation better than no cancellation on average", "paper": "yes",
         "ours": "yes" if rr_c < rr_nc else "no"},
        {"quantity": "same, without MaxMin (starves small jobs under FCFS with cancellation)", "paper": "0.94 vs 0.77",
         "ours": f"{nc.loc[nc['heuristic'] != 'maxmin', 'relative_response'].astype(float).mean():.2f} vs "
                 f"{c.loc[c['heuristic'] != 'maxmin', 'relative_response'].astype(float).mean():.2f}"},
        {"quantity": "median relative response time, no cancellation vs cancellation", "paper": "-",
         "ours": f"{nc['relative_response'].astype(float).median():.2f} vs "
                 f"{c['relative_response'].astype(float).median():.2f}"},
    ])
    save_table(head, out_dir, "headline", title="grid-realloc: headline numbers, paper vs ours")
    timing = ok.groupby(["scenario", "batch", "algorithm"], sort=False)[["sim_seconds", "realloc_seconds"]].mean()
    save_table(timing.reset_index(), out_dir, "timing", title="mean wall time per simulation (s)")
    days = ok["days"].dropna().unique() if "days" in ok else []
    lines.append(f"grid-realloc: {ok['cell'].nunique() if 'cell' in ok else '?'} cells, {len(ok)} simulations"
                 + (f" (quick: first {days[0]:g} days of each scenario)" if len(days) else "")
                 + "; Grid'5000 sites are synthetic Lublin-Feitelson traces (see vcsched.scenarios.grid)")
    lines.append(text_table(head))
    rr = paper_table(ok, "relative_response", "cancel", False)
    lines.append("Relative average response time, cancellation, homogeneous (Table 16 analogue):")
    lines.append(text_table(rr))
    return "\n".join(lines)


EXPERIMENT = Experiment(
    name="grid-realloc",
    description="seed 000: reallocation algorithms 1/2 x six heuristics on the paper's grid scenarios (Tables 2-17)",
    cells=cells,
    run_cell=run_cell,
    report=report,
)
