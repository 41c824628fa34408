"""``moldable``: seed 002 §4 -- performance ratios of the bi-criteria algorithm and baselines (Figs 3-7).

200 processors, n from 25 to 400 tasks, 40 runs per point, four workload
kinds (weakly parallel, highly parallel, mixed, Cirne-Berman; §4.1). Every run
generates one instance, computes the lower bounds (interval LP of §3.3 for
``sum w_i C_i``; max of area, longest task and dual approximation for
``C_max``) and runs every algorithm of :data:`heuristics.moldable.REGISTRY`.

Performance ratio of a point (§4.2): ``sum over runs of the objective /
sum over runs of the lower bound``; the min and max are over the per-run
ratios. One cell = one chunk of runs of one (kind, n) point.

Row fields: ``run`` (index of the run in the point), ``method``, ``minsum``,
``makespan``, ``minsum_lb`` (interval LP with the paper's doubling
intervals), ``minsum_lb_fine`` (the same LP with intervals growing by 1.25:
tighter, so the ratio against it says how much of the gap is the bound's),
``minsum_lb_refined`` (:func:`lowerbounds.moldable.refined_interval_bound`),
``makespan_lb``, ``seconds`` (the algorithm's wall time),
``lb_seconds``, ``refined_seconds``.

``C*_max`` (and the makespan bound) come from
:func:`heuristics.moldable.dual_approximation`, the function the heuristics
use, so a change of the dual approximation flows through to the bounds.

Cells are ordered chunk by chunk (the first 10 runs of every point, then the
next 10...), by increasing ``n`` inside a chunk, so an interrupted run still
covers every kind.

Size series (full grid only, after the paper's cells): the cells of
:mod:`benchmarks.experiments.moldable_scale` (``series = "scale"``; 400 x 200
up to 10,000 x 2,000, steps load, load-npz, bicriteria, interval, refined, each
in its own process with its CPU seconds and peak RSS), reported by that
module's report (``moldable_scale``, ``growth_exponents``, ``cpu_vs_tasks.png``).
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import ratio_ci95_half, save_table, text_table, text_table_notes

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "ratio_table"]

M = 200
NS = (25, 50, 100, 150, 200, 250, 300, 350, 400)
KINDS = ("weak", "high", "mixed", "cirne")
RUNS = 40
CHUNK = 10
METHOD_ORDER = ("bicriteria", "gang", "sequential", "list-shelf", "list-lptf", "list-saf")
FIGURE = {"weak": 3, "high": 4, "mixed": 5, "cirne": 6}
FINE_RATIO = 1.25
"""Interval growth of the finer bound reported beside the paper's (ratio 2)."""
SCALE_SERIES = "scale"
"""``series`` of the size-series cells (:mod:`benchmarks.experiments.moldable_scale`)."""


def cells(quick: bool) -> list[dict]:
    """Full: 4 kinds x 9 sizes x 4 chunks of 10 runs. Quick: n in (25, 100), one chunk of 2 runs."""
    if quick:
        return [{"kind": k, "n": n, "m": M, "chunk": 0, "runs": 2} for k in KINDS for n in (25, 100)]
    from benchmarks.experiments import moldable_scale

    paper = [{"kind": k, "n": n, "m": M, "chunk": c, "runs": CHUNK}
             for c in range(RUNS // CHUNK) for n in NS for k in KINDS]
    return paper + [{**c, "series": SCALE_SERIES} for c in moldable_scale.cells(False)]


def run_cell(params: dict, seed: int) -> list[dict]:
    """Run ``params["runs"]`` instances of the point; instance ``k`` uses child ``k`` of ``seed``.
    A cell of the size series is one step of ``moldable-scale`` in its own process."""
    if params.get("series") == SCALE_SERIES:
        from benchmarks.experiments import moldable_scale

        return moldable_scale.run_cell(params, seed)
    from heuristics.moldable import REGISTRY, dual_approximation
    from lowerbounds.moldable import interval_bound, refined_interval_bound
    from vcsched.generators.moldable import generate_moldable_instance
    from vcsched.problems.moldable import check_schedule

    rows = []
    children = np.random.SeedSequence(seed).spawn(int(params["runs"]))
    for k, child in enumerate(children):
        gen_seed, alg_seed = child.spawn(2)
        inst = generate_moldable_instance(int(params["m"]), int(params["n"]), params["kind"],
                                          rng=np.random.default_rng(gen_seed))
        search = dual_approximation(inst)
        lb = interval_bound(inst, search=search)
        fine = interval_bound(inst, search=search, ratio=FINE_RATIO)
        refined = refined_interval_bound(inst)
        run = int(params["chunk"]) * int(params["runs"]) + k
        for name in REGISTRY.names():
            r = REGISTRY.get(name)(inst, rng=np.random.default_rng(alg_seed))
            rep = check_schedule(inst, r.solution)
            if not rep.valid:
                raise RuntimeError(f"{name}: invalid schedule ({rep.violations[0]})")
            rows.append({
                "run": run, "method": name, "minsum": rep.minsum, "makespan": rep.makespan,
                "minsum_lb": float(lb.bound), "minsum_lb_fine": float(fine.bound),
                "minsum_lb_refined": float(refined.bound),
                "makespan_lb": float(lb.extra["makespan_lb"]),
                "seconds": float(r.seconds), "lb_seconds": float(lb.seconds),
                "refined_seconds": float(refined.seconds),
            })
    return rows


def ratio_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per (kind, n, method): ``sum obj / sum lb`` (avg) and min/max per-run ratios, both criteria.

    ``runs`` counts the instances of a point (``n`` is the number of tasks) and ``minsum_ci95`` / ``makespan_ci95`` are the half-widths of
    the 95 % intervals of the two ``_avg`` ratios (:func:`benchmarks.tables.ratio_ci95_half`).
    """
    import pandas as pd

    d = df.copy()
    d["r_minsum"] = d["minsum"] / d["minsum_lb"]
    d["r_makespan"] = d["makespan"] / d["makespan_lb"]
    g = d.groupby(["kind", "n", "method"], sort=True)
    out = pd.DataFrame({
        "runs": g.size(),
        "minsum_avg": g["minsum"].sum() / g["minsum_lb"].sum(),
        "minsum_min": g["r_minsum"].min(),
        "minsum_max": g["r_minsum"].max(),
        "makespan_avg": g["makespan"].sum() / g["makespan_lb"].sum(),
        "makespan_min": g["r_makespan"].min(),
        "makespan_max": g["r_makespan"].max(),
        "seconds_mean": g["seconds"].mean(),
        "minsum_ci95": g.apply(lambda r: ratio_ci95_half(r["minsum"], r["minsum_lb"]), include_groups=False),
        "makespan_ci95": g.apply(lambda r: ratio_ci95_half(r["makespan"], r["makespan_lb"]), include_groups=False),
    })
    if "minsum_lb_fine" in d.columns:
        out["minsum_avg_fine"] = g["minsum"].sum() / g["minsum_lb_fine"].sum()
    if "minsum_lb_refined" in d.columns:
        d["r_refined"] = d["minsum"] / d["minsum_lb_refined"]
        g = d.groupby(["kind", "n", "method"], sort=True)
        out["minsum_avg_refined"] = g["minsum"].sum() / g["minsum_lb_refined"].sum()
        out["minsum_max_refined"] = g["r_refined"].max()
        out["refined_seconds_mean"] = g["refined_seconds"].mean()
    out = out.reset_index()
    return out


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Tables (CSV + Markdown), Figs 3-6 (ratios vs n per kind) and Fig 7 (run time vs n)."""
    if "cell_status" in df.columns:
        df = df[df["cell_status"] == "ok"]
    out_dir = pathlib.Path(out_dir)
    if "series" in df.columns:
        from benchmarks.experiments import moldable_scale

        scale, df = df[df["series"] == SCALE_SERIES], df[df["series"] != SCALE_SERIES]
        if not scale.empty:
            series = moldable_scale.report(scale, out_dir)
            text = report(df.drop(columns=["series"]), out_dir) if not df.empty else ""
            return f"{text}\n\nSize series (moldable-scale steps, CPU seconds, peak RSS):\n{series}"
    table = ratio_table(df)
    save_table(table, out_dir, "moldable_ratios", title="Performance ratios (sum obj / sum LB), seed 002 §4.2")
    for kind in KINDS:
        sub = table[table["kind"] == kind]
        if sub.empty:
            continue
        fig = FIGURE[kind]
        for crit, paper in (("minsum", [(2.0, "paper: bicriteria ~2 on average"), (2.5, "paper: bicriteria max 2.5", ":")]),
                            ("makespan", [(1.9, "paper: bicriteria ~1.9 on average")])):
            line_plot(sub, x="n", y=f"{crit}_avg", series="method", out_dir=out_dir, stem=f"fig{fig}_{kind}_{crit}",
                      xlabel="number of tasks n", ylabel=f"{crit} ratio (sum obj / sum LB, log scale)",
                      title=f"Fig {fig}: {kind}, m = {M}, {crit}", references=paper,
                      series_order=METHOD_ORDER, highlight=("bicriteria",), logy=True,
                      yerr=f"{crit}_ci95", count="runs", unit="instances",
                      statistic="ratio of sums")
    bic = df[df["method"] == "bicriteria"]
    line_plot(bic, x="n", y="seconds", series="kind", out_dir=out_dir, stem="fig7_runtime",
              xlabel="number of tasks n", ylabel="bicriteria run time (s, mean)",
              title=f"Fig 7: run time of the bi-criteria algorithm, m = {M}",
              references=[(2.0, "paper: < 2 s at 400 tasks")], unit="instances")
    b = table[table["method"] == "bicriteria"]
    lines = ["Seed 002 §4.2 reproduction (ours beside the paper's; ratios = sum obj / sum LB)"]
    if not b.empty:
        lines.append(f"bicriteria minsum ratio: max over points {b['minsum_max'].max():.3f} (paper: never above 2.5), "
                     f"mean of point averages {b['minsum_avg'].mean():.3f} (paper: about 2)")
        if "minsum_avg_fine" in b.columns:
            lines.append(f"  against the finer interval LP (ratio {FINE_RATIO}): max point average "
                         f"{b['minsum_avg_fine'].max():.3f}, mean {b['minsum_avg_fine'].mean():.3f}")
        lines.append(f"bicriteria makespan ratio: mean of point averages {b['makespan_avg'].mean():.3f} "
                     f"(paper: 1.9 on average, almost always below 2)")
        lines.append(f"bicriteria run time: max mean {b['seconds_mean'].max():.3f} s (paper: < 2 s)")
    best = table.loc[table.groupby(["kind", "n"])["minsum_avg"].idxmin()]
    wins = best.groupby(["kind", "method"]).size().rename("points_best_minsum").reset_index()
    lines.append("best minsum method per point (paper: SAF good on simple cases, bicriteria best on high/cirne):")
    lines.append(text_table(wins))
    lines.append("Gang optimal for linear speedups: checked exactly in tests/moldable (not one of these kinds).")
    lines.append("Lower bound: interval LP with the validity fixes of lowerbounds.moldable.interval_bound.")
    if "minsum_avg_refined" in table.columns:
        side = side_by_side(table)
        save_table(side, out_dir, "moldable_side_by_side",
                   title="Minsum ratio against the paper's bound and the refined bound, makespan ratio (per method)")
        lines.append("minsum ratio against the paper's bound and the refined bound, side by side:")
        lines.append(text_table(side))
        heads = headlines(table)
        save_table(heads, out_dir, "headlines", title="moldable: ours vs seed 002 (§4.2)")
        lines.append(text_table_notes(heads, ["reason"]))
    return "\n".join(lines)


def side_by_side(table: pandas.DataFrame) -> pandas.DataFrame:
    """Per method over all points: mean of the point averages and the worst run, against both bounds; makespan."""
    g = table.groupby("method", sort=False)
    out = g.agg(points=("n", "size"),
                minsum_avg_paper_lb=("minsum_avg", "mean"), minsum_worst_paper_lb=("minsum_max", "max"),
                minsum_avg_refined_lb=("minsum_avg_refined", "mean"),
                minsum_worst_refined_lb=("minsum_max_refined", "max"),
                makespan_avg=("makespan_avg", "mean"), makespan_worst=("makespan_max", "max")).reset_index()
    order = {m: i for i, m in enumerate(METHOD_ORDER)}
    return out.sort_values("method", key=lambda c: c.map(lambda m: order.get(m, len(order)))).reset_index(drop=True)


def headlines(table: pandas.DataFrame) -> pandas.DataFrame:
    """The paper's §4.2 numbers beside ours (bi-criteria algorithm), with the reason wherever they differ."""
    import pandas as pd

    b = table[table["method"] == "bicriteria"]
    bound_reason = ("a ratio to a lower bound measures the bound too: on small instances with proven optima "
                    "(experiment moldable-exact) the paper's bound is far below the optimum and the refined bound "
                    "much closer, so the refined column is the nearer estimate of the true ratio")
    rows = [
        ("minsum ratio, worst run", "never above 2.5", b["minsum_max"].max(), b["minsum_max_refined"].max(),
         2.5, "max"),
        ("minsum ratio, average", "about 2", b["minsum_avg"].mean(), b["minsum_avg_refined"].mean(), 2.0, "avg"),
        ("makespan ratio, average", "1.9", b["makespan_avg"].mean(), None, 1.9, "avg"),
        ("makespan ratio, worst run", "almost always below 2", b["makespan_max"].max(), None, 2.0, "max"),
    ]
    out = []
    for name, paper, ours, ours_refined, ref, kind in rows:
        close = abs(ours - ref) <= 0.05 * ref if kind == "avg" else ours <= ref * 1.02
        if close:
            reason = "agrees"
        elif name.startswith("minsum"):
            reason = bound_reason
        else:
            reason = ("against max(area, longest task, dual-approximation bound): the makespan bound is not the "
                      "optimum either, and C*_max comes from heuristics.moldable.dual_approximation")
        out.append({"quantity": name, "paper": paper, "ours_paper_bound": float(ours),
                    "ours_refined_bound": None if ours_refined is None else float(ours_refined), "reason": reason})
    return pd.DataFrame(out)


EXPERIMENT = Experiment("moldable", "seed 002: bi-criteria moldable scheduling vs baselines, ratios to the interval LP "
                        "bound (Figs 3-7)", cells, run_cell, report)
