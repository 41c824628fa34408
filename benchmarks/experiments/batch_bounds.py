"""``batch-bounds``: how far FCFS, EASY and CBF are from what any scheduler could do, and how good the bounds are.

Two kinds of cells.

* ``trace``: every SWF trace of the shared data (:data:`TRACES`) as one cluster of its
  header's processors, simulated with FCFS, EASY and CBF; each metric (makespan, mean
  response time, mean bounded slowdown, max stretch) beside the interval that contains its
  clairvoyant optimum (:func:`lowerbounds.batch.batch_references`, method ``best``: the lower
  bound, and the best schedule found, the three simulated schedules among the candidates), the
  ratio value / bound and the policy's ratio interval to the optimum ``[value / upper, value / lower]``.
  Quick mode keeps the first :data:`QUICK_DAYS` days of each trace.
* ``window``: small random windows (:func:`small_window`: 8-16 jobs, 4-16 processors,
  offered loads 0.7 / 1.0 / 1.5, integer times) with their exact clairvoyant optimum
  (:func:`lowerbounds.batch.exact.exact_optimum`) beside every bound: each job's own
  duration, the mean busy time bound (quick), the plain LP and the LP with HiGHS's root
  cuts (lp) for the mean response time; quick and lp for the makespan.

Row fields (trace): ``trace, procs, jobs, policy, metric, value, bound, ratio, method,
bound_seconds, sim_seconds, upper, upper_method, status, opt_ratio_low, opt_ratio_high``. Row fields (window): ``jobs, procs, load, status,
opt_response, opt_makespan, exact_seconds`` and per bound ``resp_<name>`` /
``mk_<name>`` (bound / optimum) and ``<name>_seconds``.
"""

from __future__ import annotations

import pathlib
import time
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import ci95_half, format_duration, save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "small_window", "TRACES", "QUICK_DAYS"]

TRACES = ("CTC-SP2-1996-3.1-cln.swf.gz", "KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz",
          "HPC2N-2002-2.2-cln.swf.gz", "LANL-CM5-1994-4.1-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz",
          "LCG-2005-1.swf.gz", "lublin_256.swf.gz", "lublin_256_new2.swf.gz")
QUICK_DAYS = 3.0
POLICIES = ("fcfs", "easy", "cbf")
LOADS = (0.7, 1.0, 1.5)
PROCS = (4, 8, 16)
RESPONSE_BOUNDS = ("own", "quick", "lp_plain", "lp")
MAKESPAN_BOUNDS = ("quick", "lp")


def cells(quick: bool) -> list[dict]:
    """Trace cells (one per trace) and window cells (load x processors x replicate; quick: one replicate, 8 procs)."""
    traces = [{"kind": "trace", "trace": t, "days": QUICK_DAYS if quick else None,
               "time_limit": 5.0 if quick else 30.0} for t in TRACES]
    reps = 1 if quick else 4
    procs = (8,) if quick else PROCS
    windows = [{"kind": "window", "procs": m, "load": load, "rep": r, "time_limit": 20.0 if quick else 60.0}
               for load in LOADS for m in procs for r in range(reps)]
    return traces + windows


def small_window(n: int, m: int, load: float, rng: np.random.Generator):
    """A window of ``n`` jobs on ``m`` processors: widths ``round(2^U(0, log2 m))``, durations uniform on 1..20,
    Poisson arrivals (integer times) at offered load ``load``."""
    from lowerbounds.batch.instance import BatchInstance

    q = np.minimum(m, np.maximum(1, np.round(2 ** rng.uniform(0, np.log2(m), n)))).astype(int)
    p = rng.integers(1, 21, n).astype(float)
    gap = float((q * p).mean()) / (m * load)
    r = np.floor(np.cumsum(rng.exponential(gap, n)))
    return BatchInstance.from_arrays(r - r[0], q, p[:, None], [m])


def run_cell(params: dict, seed: int) -> list[dict]:
    return _trace_rows(params) if params["kind"] == "trace" else [_window_row(params, seed)]


def _trace_rows(params: dict) -> list[dict]:
    from lowerbounds.batch import SIMULATOR_METRIC, batch_references
    from vcsched.data import trace_path
    from vcsched.problems.workload import read_swf, time_window
    from vcsched.sim import JobTable, make_cluster, simulate_grid
    from vcsched.sim.output import metrics

    w = read_swf(trace_path(params["trace"]))
    if params["days"] is not None:
        w = time_window(w, days=params["days"])
    procs = int(w.machine_size)
    w = w.select(w.processors <= procs)
    jobs = JobTable.from_workloads([w])
    runs, seconds = {}, {}
    for policy in POLICIES:
        t0 = time.perf_counter()
        runs[policy] = simulate_grid([make_cluster("c", procs, 1.0, policy)], jobs)
        seconds[policy] = time.perf_counter() - t0
    given = {policy: (r.cluster, r.start) for policy, r in runs.items() if np.isfinite(r.start).all()}
    refs = batch_references(jobs, [make_cluster("c", procs, 1.0, "fcfs")], method="best",
                            time_limit=params["time_limit"], given=given)
    rows = []
    for policy, run in runs.items():
        got = metrics(run)["overall"]
        for name, key in SIMULATOR_METRIC.items():
            b, br = refs.bounds.bounds[name], refs.brackets[name]
            value = got[key]
            low, high = br.ratio(value) or (None, None)
            rows.append({"trace": params["trace"], "procs": procs, "jobs": len(jobs), "policy": policy,
                         "metric": name, "value": value, "bound": b.value,
                         "ratio": value / b.value if value is not None and b.value else None,
                         "method": b.method, "bound_seconds": b.seconds, "sim_seconds": seconds[policy],
                         "upper": None if br.upper is None else br.upper.value,
                         "upper_method": None if br.upper is None else br.upper.method, "status": br.status,
                         "opt_ratio_low": low, "opt_ratio_high": high})
    return rows


def _timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def _window_row(params: dict, seed: int) -> dict:
    from lowerbounds.batch.exact import exact_optimum
    from lowerbounds.batch.lp import lp_flow, lp_makespan
    from lowerbounds.batch.quick import flow_quick, makespan_quick

    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 17))
    inst = small_window(n, params["procs"], params["load"], rng)
    ex = exact_optimum(inst, time_limit=params["time_limit"])
    row = {"jobs": n, "procs": params["procs"], "load": params["load"], "status": str(ex.status),
           "opt_response": ex.mean_response, "opt_makespan": ex.makespan, "exact_seconds": ex.seconds}
    r0 = float(inst.release.min())
    quick_f, quick_s = _timed(lambda: flow_quick(inst) / n)
    resp = {"own": (float(inst.pmin.mean()), 0.0), "quick": (quick_f, quick_s),
            "lp_plain": _timed(lambda: max((lp_flow(inst, root=False) or 0.0) / n, quick_f)),
            "lp": _timed(lambda: max((lp_flow(inst) or 0.0) / n, quick_f))}
    quick_m, quick_ms = _timed(lambda: makespan_quick(inst))
    mk = {"quick": (quick_m, quick_ms), "lp": _timed(lambda: max((lp_makespan(inst) or r0) - r0, quick_m))}
    ok = ex.status.value == "optimal"
    for name, (value, sec) in resp.items():
        row[f"resp_{name}"] = value / ex.mean_response if ok and ex.mean_response else None
        row[f"resp_{name}_seconds"] = sec
    for name, (value, sec) in mk.items():
        row[f"mk_{name}"] = value / ex.makespan if ok and ex.makespan else None
        row[f"mk_{name}_seconds"] = sec
    return row


def quality_table(windows: pandas.DataFrame) -> pandas.DataFrame:
    """Per bound: windows with a proven optimum, mean and worst ratio bound / optimum, mean seconds; ``n`` and
    ``ci95`` (half-width of the mean ratio's 95 % interval)."""
    import pandas as pd

    out = []
    for metric, prefix, names in (("mean response", "resp", RESPONSE_BOUNDS), ("makespan", "mk", MAKESPAN_BOUNDS)):
        for name in names:
            col = windows[f"{prefix}_{name}"].astype(float).dropna()
            out.append({"metric": metric, "bound": name, "windows": int(col.size), "mean_ratio": col.mean(),
                        "worst_ratio": col.min(), "mean_seconds": windows[f"{prefix}_{name}_seconds"].mean(),
                        "n": int(col.size), "ci95": ci95_half(col)})
    return pd.DataFrame(out)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Trace table (metric, bound, ratio per policy), window quality table, figure of the ratios per trace."""
    ok = df[df["cell_status"] == "ok"] if "cell_status" in df else df
    lines = []
    traces = ok[ok["kind"] == "trace"] if "kind" in ok else ok.iloc[0:0]
    if len(traces):
        cols = ["trace", "jobs", "procs", "policy", "metric", "value", "bound", "ratio", "method", "bound_seconds"]
        table = traces[cols].reset_index(drop=True)
        save_table(table, out_dir, "traces", title="batch-bounds: each trace as one cluster, metric vs lower bound")
        resp = traces[traces["metric"] == "mean_response"].copy()
        order = {t: k for k, t in enumerate(sorted(resp["trace"].unique()))}
        resp["trace_index"] = resp["trace"].map(order)
        line_plot(resp, x="trace_index", y="ratio", series="policy", out_dir=out_dir, stem="fig_response_ratio",
                  xlabel="trace", xticklabels={k: t for t, k in order.items()}, unit="simulation",
                  ylabel="mean response time / lower bound", title="batch-bounds: distance to any schedule",
                  references=[(1.0, "bound")], logy=True)
        above = int((traces["ratio"].astype(float) < 1 - 1e-9).sum())
        lines.append(f"Bounds above a simulated value (must be 0): {above} of {len(traces)} (trace, policy, metric)")
        lines.append("Mean response time vs its bound (each trace as one cluster):")
        shown = resp[["trace", "jobs", "policy", "value", "bound", "ratio", "method", "bound_seconds"]]
        lines.append(text_table(shown.assign(value=shown["value"].map(format_duration),
                                             bound=shown["bound"].map(format_duration)).reset_index(drop=True)))
        lines.extend(_interval_lines(traces, out_dir))
    windows = ok[ok["kind"] == "window"] if "kind" in ok else ok.iloc[0:0]
    if len(windows):
        quality = quality_table(windows)
        save_table(quality, out_dir, "window_quality", title="batch-bounds: bound / exact optimum on small windows")
        solved = int((windows["status"] == "optimal").sum())
        lines.append(f"Small windows: {solved} of {len(windows)} proven optimal (mean exact time "
                     f"{windows['exact_seconds'].mean():.1f} s, max {windows['exact_seconds'].max():.1f} s); "
                     f"bound / optimum:")
        lines.append(text_table(quality))
    return "\n".join(lines) if lines else "batch-bounds: no rows (every cell failed?)"


def _interval_lines(traces: pandas.DataFrame, out_dir: pathlib.Path) -> list[str]:
    """The optimum's interval and each policy's ratio interval (table), and one band figure per trace."""
    if "upper" not in traces:
        return []
    cols = ["trace", "metric", "bound", "upper", "status", "policy", "opt_ratio_low", "opt_ratio_high"]
    table = traces[cols].reset_index(drop=True)
    save_table(table, out_dir, "intervals", title="batch-bounds: the optimum's interval and each policy's ratio to it")
    for trace, sub in traces.groupby("trace"):
        _band_figure(trace, sub, out_dir)
    pairs = traces.dropna(subset=["upper", "bound"])
    crossed = int((pairs["bound"].astype(float) > pairs["upper"].astype(float) * (1 + 1e-9)).sum())
    width = traces.drop_duplicates(["trace", "metric"]).assign(width=lambda d: d["upper"] / d["bound"])
    shown = width.pivot(index="trace", columns="metric", values="width").reset_index()
    return [f"Lower ends above an upper end (must be 0): {crossed} of {len(pairs)} (trace, policy, metric)",
            "Width of the optimum's interval (upper / lower) per trace and metric:", text_table(shown),
            "Each policy's ratio to the optimum lies in [opt_ratio_low, opt_ratio_high] (table intervals)."]


def _band_figure(trace: str, sub: pandas.DataFrame, out_dir: pathlib.Path) -> None:
    """Per metric, the interval [lower, upper] as a band (normalised by the lower end) and each policy as a point."""
    from benchmarks.figures import plt, save_figure
    from lowerbounds.batch import SIMULATOR_METRIC

    metrics = list(SIMULATOR_METRIC)
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for x, name in enumerate(metrics):
        rows = sub[sub["metric"] == name]
        if rows.empty or rows["bound"].iloc[0] in (None, 0) or rows["upper"].iloc[0] is None:
            continue
        low = float(rows["bound"].iloc[0])
        ax.fill_between([x - 0.3, x + 0.3], 1.0, float(rows["upper"].iloc[0]) / low, color="0.8",
                        label="optimum lies here" if x == 0 else None)
        for k, (_, row) in enumerate(rows.iterrows()):
            if row["value"] is not None:
                ax.plot(x - 0.15 + 0.15 * k, float(row["value"]) / low, "o", color=f"C{k}",
                        label=row["policy"] if x == 0 else None)
    ax.set_yscale("log")
    ax.set_xticks(range(len(metrics)), [m.replace("_", " ") for m in metrics], fontsize=8)
    ax.set_ylabel("value / lower bound")
    ax.set_title(f"batch-bounds: {trace}", fontsize=9)
    ax.legend(fontsize=7)
    save_figure(fig, out_dir, "fig_interval_" + trace.split(".")[0])
    plt.close(fig)


EXPERIMENT = Experiment("batch-bounds", "FCFS/EASY/CBF on every trace vs the lower bounds; bound quality against exact "
                        "optima of small windows", cells, run_cell, report)
