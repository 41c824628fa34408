"""``grid-realloc``: task reallocation between batch clusters, the analogues of Tables 2-17 of seed 000.

Caniou, Charrier, Desprez, INRIA RR-7226 (2010), §4. One cell = one scenario
(``jan`` .. ``jun``, ``pwa-g5k``; the full run adds the all-real ``pwa``), one platform
type (homogeneous or heterogeneous) and one batch policy (FCFS or CBF): it runs the
reference without reallocation, then Algorithm 1 (no cancellation) and Algorithm 2
(cancellation, "-C") with each of the six heuristics, hourly, first event one hour after
the first submission, 60 s threshold. 7 x 2 x 2 x 13 = 364 simulations as in the paper.

**Cause cells.** Besides the paper's grid, the experiment runs short controlled windows
(:data:`CAUSE_WINDOWS`: April, homogeneous, 3 days with FCFS and 7 days with CBF) once
with the defaults and once per variant of :data:`CAUSE_VARIANTS` (one candidate cause of
a deviation changed at a time: offered load and walltime factors of the synthetic sites,
Algorithm 2's queue order, threshold and current ECT, the phase of the hourly trigger,
Simbatch's CBF re-plan from scratch).
Their rows carry the variant's name in ``cause``. The report prints the **deviation
table** (:func:`deviation_table`): per deviation, the paper's number, ours over the
paper's grid with the defaults, ours on the window with the defaults and with the variant
closest to the paper, and the cause that the windows show.

Quick mode keeps the first :data:`QUICK_DAYS` days of every scenario. The workloads are
the same for every cell (``workload_seed`` parameter, default 0), so columns compare the
same jobs; the harness seed is not used (the simulations are deterministic).

Row fields: ``algorithm`` (none / no-cancel / cancel), ``heuristic``, ``label`` (paper
name), ``jobs``, ``impacted_pct``, ``reallocations``, ``reallocations_pct``,
``early_pct``, ``relative_response``, ``mean_wait``, ``ref_mean_wait``, ``mean_bsld``,
``ref_mean_bsld``, ``jobs_moved_pct`` and ``displaced_pct`` (the other two counts of
:meth:`heuristics.grid.realloc.Reallocation.move_counts`, % of jobs), ``max_wait`` and
``ref_max_wait`` (longest wait of the run and of the reference, s), ``sim_seconds``
(wall time of the simulation), ``sim_cpu_seconds`` (CPU time of the task that ran it, the reference's with
the cell's bound: the cell runs in parts, :data:`SPLIT`), ``realloc_seconds`` (inside reallocation events),
``mean_response`` (all jobs), ``response_bound`` (a lower bound on the mean response time
of any schedule of the cell's jobs on its platform, :func:`lowerbounds.batch.batch_bounds`
method ``quick``) and ``response_ratio_to_bound``; the report's ``ratio_to_bound`` table
puts the last one beside the paper's relative response time. ``response_upper``,
``response_status``, ``response_opt_ratio_low`` and ``response_opt_ratio_high``: the optimum's bracket
(:func:`lowerbounds.batch.batch_references`, method ``quick``, the cell's simulated schedules as candidates
for the upper end) and each run's ratio interval to the optimum, tabled in ``opt_intervals``.
"""

from __future__ import annotations

import pathlib
import textwrap
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.experiments import _grid_cell as _cell
from benchmarks.experiments._grid_cell import INTERVAL_METHOD, response_bound
from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.split import Split, replay_makespan, run_split_cell
from benchmarks.tables import ci95_half, save_table, text_table
from vcsched.names.grid import HEURISTICS

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "SPLIT", "cells", "run_cell", "run_part", "join_cell", "INTERVAL_METHOD", "response_bound",
           "report", "deviation_table", "QUICK_DAYS", "PAPER_AVG_RELATIVE_RESPONSE",
           "CAUSE_WINDOWS", "CAUSE_VARIANTS", "DEVIATIONS", "run_time_line", "parts_line"]

QUICK_DAYS = 2.0
PAPER_COLUMNS = ("jan", "feb", "mar", "apr", "may", "jun", "pwa-g5k")

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


CAUSE_WINDOWS = {"fcfs": ("apr", 3.0), "cbf": ("apr", 7.0)}
"""Controlled windows of the cause cells, per batch policy: (scenario, days), homogeneous platform.

Both reproduce the deviations of the full runs: with FCFS, reallocations of several
hundred % of the jobs with cancellation and MaxMin-C's relative response above 1; with
CBF, cancellation worse than no cancellation for every heuristic but MinMin."""

CAUSE_VARIANTS = {  # name -> (build_scenario keywords, Reallocation keywords, what changes)
    "default": ({}, {}, "the defaults"),
    "load-0.45": ({"max_load": 0.45}, {}, "synthetic sites' offered load capped at 0.45 (default 0.6)"),
    "load-0.3": ({"max_load": 0.3}, {}, "synthetic sites' offered load capped at 0.3"),
    "walltime-1.5": ({"overestimate": 1.5}, {}, "walltime factors in [1, 1.5] (default [1, 10])"),
    "queue-submission": ({}, {"queue_order": "submission"}, "Algorithm 2 queues jobs in submission order"),
    "cancel-threshold": ({}, {"cancel_threshold": True}, "Algorithm 2 keeps a job unless it gains > 60 s"),
    "current-planned": ({}, {"current_ect": "planned"}, "MaxGain's current ECT: planned completion before cancel"),
    "phase-1800": ({}, {"phase": 1800.0}, "first event 30 min (not 60) after the first submission"),
    "cbf-replan-full": ({}, {"cbf_replan": "full"}, "CBF re-plans the queue from scratch at an early end or a "
                        "cancellation (Simbatch's rule; CBF window only)"),
}
"""One candidate cause changed at a time (see the module docstring)."""

QUICK_CAUSES = ("default", "load-0.3")
CBF_ONLY_CAUSES = ("cbf-replan-full",)
"""Variants that change nothing on FCFS clusters: run on the CBF window only."""


def cells(quick: bool) -> list[dict]:
    """The paper's grid, scenario x platform type x batch policy (28 cells; 32 with the extra ``pwa`` scenario in
    full mode), then the cause cells (:data:`CAUSE_VARIANTS` x FCFS/CBF; quick mode: :data:`QUICK_CAUSES` only)."""
    scenarios = list(PAPER_COLUMNS) + ([] if quick else ["pwa"])
    grid = [{"scenario": s, "heterogeneous": het, "batch": b, "days": QUICK_DAYS if quick else None,
             "workload_seed": 0}
            for s in scenarios for het in (False, True) for b in ("fcfs", "cbf")]
    causes = [{"scenario": CAUSE_WINDOWS[b][0], "heterogeneous": False, "batch": b, "days": CAUSE_WINDOWS[b][1],
               "workload_seed": 0, "cause": v}
              for v in (QUICK_CAUSES if quick else CAUSE_VARIANTS) for b in ("fcfs", "cbf")
              if b == "cbf" or v not in CBF_ONLY_CAUSES]
    return grid + causes


def _variant(params: dict) -> tuple[dict, dict]:
    """The build_scenario and Reallocation keywords of the cell's cause variant (the defaults on the paper's grid)."""
    scenario_kw, policy_kw, _ = CAUSE_VARIANTS[params.get("cause") or "default"]
    return scenario_kw, policy_kw


def run_part(params: dict, seed: int, part: str) -> dict:
    """One part of a cell (:func:`benchmarks.experiments._grid_cell.cell_part`): the reference run with the cell's
    lower bound, or one reallocation run (``"cancel/maxmin"``...)."""
    return _cell.cell_part(params, part, *_variant(params))


def join_cell(params: dict, seed: int, results: list) -> list[dict]:
    """The cell's rows from its parts' results (:func:`benchmarks.experiments._grid_cell.cell_rows`)."""
    return _cell.cell_rows(params, results, *_variant(params))


SPLIT = Split(_cell.cell_parts, run_part, join_cell, _cell.part_cost)
"""A cell's parts (the reference, then each of the twelve reallocation runs) and join: the sweep runs the parts as
separate tasks, longest first (:mod:`benchmarks.split`)."""


def run_cell(params: dict, seed: int) -> list[dict]:
    """The reference run and the twelve reallocation runs of one scenario / platform type / batch policy.

    A cause cell (``params["cause"]``, a key of :data:`CAUSE_VARIANTS`) builds its workload
    and policies with that variant's keywords; ``phase`` sets the first event that many
    seconds after the first submission, ``cbf_replan`` the CBF clusters' re-plan rule (of
    the reference run too). The parts of :data:`SPLIT` run here one after the other.
    """
    return run_split_cell(SPLIT, params, seed)


def ratio_to_bound_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per algorithm and heuristic (paper's cells): mean response time / bound beside the relative response time,
    with ``n`` (runs) and the 95 % interval half-widths ``ci95`` (ratio to bound) and ``relative_response_ci95``."""
    import pandas as pd

    rows = []
    for (algorithm, label), sub in df.groupby(["algorithm", "label"], sort=False):
        rows.append({"algorithm": algorithm, "label": label,
                     "relative_response": sub["relative_response"].astype(float).mean(),
                     "ratio_to_bound": sub["response_ratio_to_bound"].astype(float).mean(),
                     "worst_ratio_to_bound": sub["response_ratio_to_bound"].astype(float).max(),
                     "n": int(sub["response_ratio_to_bound"].astype(float).notna().sum()),
                     "ci95": ci95_half(sub["response_ratio_to_bound"].astype(float)),
                     "relative_response_ci95": ci95_half(sub["relative_response"].astype(float))})
    return pd.DataFrame(rows)


def opt_interval_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per algorithm and heuristic: the mean ends of the ratio interval to the optimum (``opt_ratio_low``,
    ``opt_ratio_high``), the mean width of the optimum's bracket (``upper / lower``) and ``n`` (runs)."""
    import pandas as pd

    out = []
    for (alg, h), sub in df.groupby(["algorithm", "heuristic"], sort=False):
        low, high = sub["response_opt_ratio_low"].astype(float), sub["response_opt_ratio_high"].astype(float)
        width = sub["response_upper"].astype(float) / sub["response_bound"].astype(float)
        out.append({"algorithm": alg, "heuristic": h, "opt_ratio_low": low.mean(), "opt_ratio_high": high.mean(),
                    "bracket_width": width.mean(), "n": int(low.notna().sum())})
    return pd.DataFrame(out)


def paper_table(df: pandas.DataFrame, metric: str, algorithm: str, heterogeneous: bool) -> pandas.DataFrame:
    """Rows batch x heuristic, columns the scenarios (+ AVG over the paper's scenarios with ``n``, how many,
    and ``ci95``, the half-width of its 95 % interval; + the paper's AVG for the response time)."""
    import pandas as pd

    from heuristics.grid.realloc import label

    sub = df[(df["algorithm"] == algorithm) & (df["heterogeneous"] == heterogeneous)]
    scen = [s for s in list(PAPER_COLUMNS) + ["pwa"] if s in set(sub["scenario"])]
    out = []
    for batch in ("fcfs", "cbf"):
        for k, h in enumerate(HEURISTICS):
            r = sub[(sub["batch"] == batch) & (sub["heuristic"] == h)]
            if r.empty:
                continue
            row = {"batch": batch.upper(), "heuristic": label(algorithm, h)}
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
            if metric != "reallocations":
                row["n"] = int(np.isfinite(vals).sum())
                row["ci95"] = ci95_half(vals)
            out.append(row)
    return pd.DataFrame(out)


def _mean(df: pandas.DataFrame, column: str) -> float:
    v = df[column].astype(float) if len(df) and column in df else None
    return float(v.mean()) if v is not None and v.notna().any() else np.nan


def _rows(df, algorithm: str, *, batch: str | None = None, heuristics=None, homogeneous: bool = False):
    sel = df[df["algorithm"] == algorithm]
    if batch is not None:
        sel = sel[sel["batch"] == batch]
    if heuristics is not None:
        sel = sel[sel["heuristic"].isin(heuristics)]
    if homogeneous:
        sel = sel[~sel["heterogeneous"].astype(bool)]
    return sel


def _longest_wait_ratio(df) -> float:
    """Largest ratio, over the rows, of the longest wait to the reference run's longest wait."""
    if not len(df) or "max_wait" not in df:
        return np.nan
    ratio = df["max_wait"].astype(float) / df["ref_max_wait"].astype(float).where(lambda v: v > 0)
    return float(ratio.max()) if ratio.notna().any() else np.nan


def _cancel_minus_no_cancel(df) -> float:
    return _mean(_rows(df, "cancel"), "relative_response") - _mean(_rows(df, "no-cancel"), "relative_response")


_NOT_MINMIN = ("mct", "maxmin", "maxgain", "maxrelgain", "sufferage")

DEVIATIONS = (  # (quantity, paper's value, its source, value of a set of rows, cause measured on the windows)
    ("reallocations, % of jobs, no cancellation (mean)", 2.3, "§4.1",
     lambda d: _mean(_rows(d, "no-cancel"), "reallocations_pct"),
     "walltime over-estimation and queue length: Algorithm 1 moves the jobs that early ends let finish earlier "
     "elsewhere; walltime factors in [1, 1.5] or a lower offered load bring it to the paper's level"),
    ("reallocations, % of jobs, with cancellation (mean)", 5.8, "§4.2",
     lambda d: _mean(_rows(d, "cancel"), "reallocations_pct"),
     "queue length (offered load of the synthetic sites): every hourly event moves the waiting jobs again, so the "
     "count grows with the time jobs wait; counting each job once cuts it too, but the paper counts every move (§3.4)"),
    ("mean relative response, cancellation minus no cancellation", -0.16, "Tables 8, 9, 16, 17 (0.78 - 0.94)",
     _cancel_minus_no_cancel,
     "MaxMin-C under FCFS and every heuristic but MinMin under CBF (next rows) are worse with cancellation; the "
     "others under FCFS gain more with it, as in the paper; at a lower offered load the sign is the paper's"),
    ("MaxMin-C, FCFS, homogeneous: relative response", 0.82, "Table 16 (AVG; §4.3: no starvation)",
     lambda d: _mean(_rows(d, "cancel", batch="fcfs", heuristics=("maxmin",), homogeneous=True), "relative_response"),
     "resubmission at the end of the queue in MaxMin's order puts long jobs ahead of short ones at every event; "
     "it starves short jobs while the queues stay long: a lower offered load, or queues kept in submission order, "
     "remove it (the paper's workloads had phases of low load that emptied the queues, §4.3)"),
    ("FCFS, homogeneous, cancellation: longest wait / reference's (max over heuristics)", 1.0,
     "§4.3: starvation never occurred (read as 1)",
     lambda d: _longest_wait_ratio(_rows(d, "cancel", batch="fcfs", homogeneous=True)),
     "MaxMin-C's queue order (previous row): the longest wait doubles on the window; a lower offered load or queues "
     "kept in submission order bring it back to the reference's"),
    ("CBF, homogeneous, cancellation, all but MinMin: relative response", 0.84, "Table 16 (AVG)",
     lambda d: _mean(_rows(d, "cancel", batch="cbf", heuristics=_NOT_MINMIN, homogeneous=True), "relative_response"),
     "load, walltime factors, queue order, threshold, current ECT and phase all leave cancellation worse than no "
     "cancellation on CBF; Simbatch's from-scratch CBF re-plan (cbf-replan-full) closes part of the gap; the loss "
     "falls on wide jobs, which lose their reservation at every event; narrower synthetic jobs together with "
     "that re-plan give the paper's ordering, not its size (a scratch workload, docs/grid.md)"),
)
"""The deviations of our reproduction from seed 000 that the deviation table follows."""

_COUNTS = {"jobs_moved_pct": "count each job once", "displaced_pct": "count jobs ending elsewhere"}


def cause_matrix(causes: pandas.DataFrame) -> pandas.DataFrame:
    """Each deviation's quantity on the cause windows (both batch policies), one column per variant."""
    import pandas as pd

    variants = [v for v in CAUSE_VARIANTS if v in set(causes["cause"])]
    out = []
    for quantity, paper, _, fn, _ in DEVIATIONS:
        row = {"quantity": quantity, "paper": paper}
        for v in variants:
            row[v] = fn(_variant_rows(causes, v))
        out.append(row)
    return pd.DataFrame(out)


def _variant_rows(causes, variant: str):
    """The cause cells' rows of one variant; a CBF-only variant (:data:`CBF_ONLY_CAUSES`) changes nothing on FCFS
    clusters, so its FCFS window is the defaults' (pooled quantities then compare like with like)."""
    import pandas as pd

    rows = causes[causes["cause"] == variant]
    if variant in CBF_ONLY_CAUSES:
        fcfs = causes[(causes["cause"] == "default") & (causes["batch"] == "fcfs")]
        rows = pd.concat([rows, fcfs], ignore_index=True)
    return rows


def _variant_values(causes, quantity_index: int) -> dict:
    """Value of one deviation's quantity per variant (and per alternative count, for the reallocation rows)."""
    _, _, _, fn, _ = DEVIATIONS[quantity_index]
    values = {v: fn(_variant_rows(causes, v)) for v in CAUSE_VARIANTS if v in set(causes["cause"])}
    if quantity_index < 2 and "default" in values:
        alg = "no-cancel" if quantity_index == 0 else "cancel"
        base = _rows(causes[causes["cause"] == "default"], alg)
        for column, name in _COUNTS.items():
            if column in base:
                values[name] = _mean(base, column)
    return values


def deviation_table(main: pandas.DataFrame, causes: pandas.DataFrame) -> pandas.DataFrame:
    """Per deviation: paper, ours (paper's grid, defaults), ours on the windows (defaults, closest variant), cause.

    ``main`` holds the rows of the paper's grid (scenarios ``jan``..``pwa-g5k``), ``causes``
    the rows of the cause cells. The closest variant is the one whose value is nearest the
    paper's (ties: the first in :data:`CAUSE_VARIANTS` order). The measured cause, a conclusion drawn
    from every variant, is given only when all of :data:`CAUSE_VARIANTS` ran (not in a quick run).
    """
    import pandas as pd

    ran = set(causes["cause"]) if len(causes) and "cause" in causes else set()
    out = []
    for k, (quantity, paper, source, fn, cause) in enumerate(DEVIATIONS):
        row = {"quantity": quantity, "paper": paper, "source": source, "ours (grid, defaults)": fn(main)}
        values = _variant_values(causes, k) if len(causes) else {}
        row["window, defaults"] = values.get("default", np.nan)
        others = {v: x for v, x in values.items() if v != "default" and np.isfinite(x)}
        best = min(others, key=lambda v: abs(others[v] - paper)) if others else None
        row["closest variant"] = best or "-"
        row["window, closest variant"] = others[best] if best else np.nan
        row["measured cause"] = cause if ran >= set(CAUSE_VARIANTS) else "-"
        out.append(row)
    return pd.DataFrame(out)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Tables 2-17 analogues (CSV + Markdown), one figure per metric, headline numbers beside the paper's."""
    import pandas as pd

    if df.empty or "algorithm" not in df:
        return "grid-realloc: no rows (every cell failed?)"
    ok = df[df["cell_status"] == "ok"].copy() if "cell_status" in df else df.copy()
    ok["heterogeneous"] = ok["heterogeneous"].astype(bool)
    is_cause = ok["cause"].notna() if "cause" in ok else pd.Series(False, index=ok.index)
    causes, ok = ok[is_cause].copy(), ok[~is_cause].copy()
    lines = []
    for metric, (t_nc, t_c, title) in METRICS.items():
        for algorithm, numbers in (("no-cancel", t_nc), ("cancel", t_c)):
            for het, num in zip((False, True), numbers):
                table = paper_table(ok, metric, algorithm, het)
                kind = "heterogeneous" if het else "homogeneous"
                save_table(table, out_dir, f"table{num:02d}_{metric}_{algorithm}_{kind}",
                           title=f"Table {num} analogue: {title}, {algorithm}, {kind} platforms")
    real = ok[ok["algorithm"] != "none"].copy()
    _metric_figures(real, out_dir)
    paper = real[real["scenario"].isin(PAPER_COLUMNS)]
    head = headline_table(paper)
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
    if "response_ratio_to_bound" in ok:
        bound_table = ratio_to_bound_table(ok[ok["scenario"].isin(PAPER_COLUMNS)])
        save_table(bound_table, out_dir, "ratio_to_bound", title="grid-realloc: mean response time / lower bound "
                   "(any schedule of the same jobs and platform), beside the paper's relative response time")
        above = int((ok["response_ratio_to_bound"].astype(float) < 1 - 1e-9).sum())
        lines.append(f"Runs whose mean response time is below its lower bound (must be 0): {above} of {len(ok)}")
        lines.append("Mean response time as a ratio to the lower bound (mean over the paper's cells):")
        lines.append(text_table(bound_table))
    if "response_opt_ratio_low" in ok:
        intervals = opt_interval_table(ok[ok["scenario"].isin(PAPER_COLUMNS)])
        save_table(intervals, out_dir, "opt_intervals", title="grid-realloc: mean response time / optimum lies in "
                   "[low, high] (mean over the paper's cells; optimum bracketed by the quick bounds and the best of "
                   "the clairvoyant portfolio and the cell's simulated schedules)")
        lines.append("Mean response time / optimum, interval [low, high] (mean over the paper's cells):")
        lines.append(text_table(intervals))
    dev = deviation_table(paper, causes)
    save_table(dev, out_dir, "deviations", title="grid-realloc: deviations from seed 000 and their measured causes")
    lines.append("Deviation table (windows: " + ", ".join(f"{b.upper()} {s} {d:g} days, homogeneous"
                                                          for b, (s, d) in CAUSE_WINDOWS.items()) + "):")
    lines.append(text_table(dev.drop(columns=["measured cause", "source"])))
    lines.extend(textwrap.fill(f"- {r['quantity']}: {r['measured cause']}", 100, subsequent_indent="  ")
                 for _, r in dev.iterrows() if r["measured cause"] != "-")
    if len(causes) and (dev["measured cause"] == "-").all():
        lines.append("Measured causes: drawn from all the cause variants; this run ran "
                     + ", ".join(sorted(set(causes["cause"]))) + " (their values: the table above and below)")
    if len(causes):
        matrix = cause_matrix(causes)
        save_table(matrix, out_dir, "cause_windows", title="grid-realloc: each deviation's quantity per variant "
                   "on the cause windows")
        lines.append("Cause windows, one variant at a time:")
        lines.append(text_table(matrix))
    lines.append(run_time_line(df))
    return "\n".join(lines)


def _metric_figures(real: pandas.DataFrame, out_dir: pathlib.Path) -> None:
    """One figure per metric: x = scenario, one line per heuristic label, mean over batch policy and platform."""
    real = real.copy()
    order = {s: k for k, s in enumerate(list(PAPER_COLUMNS) + ["pwa"])}
    real["scenario_index"] = real["scenario"].map(order)
    for metric, (_, _, title) in METRICS.items():
        refs = [(1.0, "no change (1.0)")] if metric == "relative_response" else []
        line_plot(real, x="scenario_index", y=metric, series="label", out_dir=out_dir, stem=f"fig_{metric}",
                  xlabel="scenario", xticklabels={k: s for s, k in order.items() if s in set(real["scenario"])},
                  ylabel=title + (" (%)" if metric.endswith("pct") else ""),
                  title=f"grid-realloc: {title} (mean over FCFS/CBF, hom./het.)", references=refs,
                  unit="runs (batch policy x platform type)")


def headline_table(paper: pandas.DataFrame) -> pandas.DataFrame:
    """The paper's headline numbers beside ours (the runs of the paper's scenarios)."""
    import pandas as pd

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
    return head


def run_time_line(df: pandas.DataFrame, workers: int = 2) -> str:
    """The engine's time for the whole grid: the sum of the cells' own wall (and CPU) times and that sum over
    ``workers``, and the slowest cell.

    Cells are counted once each (their rows repeat the cell's time); a run continued with
    ``--resume`` counts every cell at the time of the run that produced it.
    """
    if "cell_seconds" not in df or "cell" not in df:
        return "run time: no cell times recorded"
    cells = df.drop_duplicates("cell")
    wall = float(cells["cell_seconds"].astype(float).sum())
    cpu = cells["cell_cpu_seconds"].astype(float) if "cell_cpu_seconds" in cells else None
    slow = cells.loc[cells["cell_seconds"].astype(float).idxmax()]
    what = f"{slow['scenario']} {'het' if bool(slow['heterogeneous']) else 'hom'} {str(slow['batch']).upper()}"
    line = (f"run time: {len(cells)} cells, sum of the cells' wall times {wall:,.0f} s, i.e. {wall / workers:,.0f} s "
            f"= {wall / workers / 3600:.2f} h on {workers} workers")
    if cpu is not None and cpu.notna().any():
        line += f" (CPU {float(cpu.sum()):,.0f} s over the {int(cpu.notna().sum())} cells that recorded it)"
    return line + f"; slowest cell {what}: {float(slow['cell_seconds']):,.0f} s" + parts_line(df, workers)


_PARAMS = ("scenario", "heterogeneous", "batch", "days", "workload_seed", "cause")


def parts_line(df: pandas.DataFrame, workers: int = 2) -> str:
    """The cells' parts (:data:`SPLIT`) from their rows' ``sim_cpu_seconds`` (a join's CPU: its cell's
    ``cell_cpu_seconds`` minus its parts'): the longest part, and the end of the sweep's schedule of those CPU
    times on ``workers`` workers (:func:`benchmarks.split.replay_makespan`, what an idle machine would take); empty
    when a cell lacks them."""
    import pandas as pd

    if "sim_cpu_seconds" not in df or "cell_cpu_seconds" not in df:
        return ""
    todo, durations = [], {}
    for index, rows in df.sort_values(["cell", "row"]).groupby("cell", sort=True):
        first = rows.iloc[0]
        params = {k: (None if pd.isna(first[k]) else first[k]) for k in _PARAMS if k in rows}
        if params.get("cause") is None:
            params.pop("cause", None)
        cpu = rows["sim_cpu_seconds"].astype(float).tolist()
        if len(cpu) != len(SPLIT.parts(params)) or pd.isna(first["cell_cpu_seconds"]) or any(map(pd.isna, cpu)):
            return ""
        todo.append((int(index), params, 0))
        durations.update({("part", int(index), k): c for k, c in enumerate(cpu)})
        durations[("join", int(index))] = max(float(first["cell_cpu_seconds"]) - sum(cpu), 0.0)
    longest = max((k for k in durations if k[0] == "part"), key=durations.get)
    row = df[(df["cell"] == longest[1])].sort_values("row").iloc[longest[2]]
    what = f"{row['scenario']} {'het' if bool(row['heterogeneous']) else 'hom'} {str(row['batch']).upper()}"
    end = replay_makespan(SPLIT, todo, durations, workers)
    return (f"; longest part {what} {row['label']}: {durations[longest]:,.0f} s of CPU; the sweep's schedule of the "
            f"parts' and joins' CPU on {workers} workers ends at {end:,.0f} s = {end / 3600:.2f} h")


EXPERIMENT = Experiment("grid-realloc", "seed 000: reallocation algorithms 1/2 x six heuristics on the paper's grid "
                        "scenarios (Tables 2-17)", cells, run_cell, report, split=SPLIT)
