"""References of the ``timeshare`` experiment: lower bounds and the best clairvoyant mapping (seed 003).

Two cell parts, run by :mod:`benchmarks.experiments.timeshare`:

* ``part = "bound"``: a whole scenario workload (e.g. (b), 500 tasks) bracketed by
  :func:`lowerbounds.timeshare.references.timeshare_references` (method ``lp``, ``REFERENCE_SECONDS`` per
  workload: the LP bounds and the best mapping found, the search started from the heuristics' mappings),
  and MCT, HMCT, MP and MSF simulated on it: one row per heuristic with each metric, its bound, the
  ratio value / bound, the bracket's upper end and status, the ratio interval ``[value / upper,
  value / lower]`` to the optimum (``<metric>_opt_ratio_low``/``_high``) and the seconds the references took;
* ``part = "small"``: the first ``tasks`` tasks of scenario (b)'s workload on 3 or 4 servers, with the
  best mapping of each metric (:func:`lowerbounds.timeshare.mapping.best_mapping`), the LP bounds and
  the heuristics: rows give the value of each, so the report can give the bound's quality
  (bound / best mapping) and each heuristic's distance to the best mapping.
"""

from __future__ import annotations

import pathlib
import time
from typing import TYPE_CHECKING

import numpy as np

from vcsched.names.timeshare import HEURISTICS

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["bound_cells", "small_cells", "bound_rows", "small_rows", "bound_report", "BOUND_SECONDS",
           "EXACT_SECONDS", "REFERENCE_SECONDS"]


METRICS = ("makespan", "sumflow", "maxflow", "maxstretch")
REFERENCE_SECONDS = 30.0
"""Time limit of the references of one whole workload (:func:`lowerbounds.timeshare.references.timeshare_references`,
method ``lp``: half to the bounds, the rest to the mapping search, started from the heuristics' mappings)."""
BOUND_SECONDS = REFERENCE_SECONDS * 0.5
"""The bounds' share of :data:`REFERENCE_SECONDS`."""
EXACT_SECONDS = 10.0
"""Time limit of the best-mapping search of one metric on a small workload."""
THREE_SERVERS = ("spinnaker", "artimon", "soyotte")
STRESS_MU = 10.0
"""A rate beyond the paper's (20, 17, 15) for the small workloads, reported apart: more sharing."""


def bound_cells(quick: bool) -> list[dict]:
    """Scenario (b) on platform 2 at μ = 20, 17, 15 (seeds 1-3; quick: seed 1), plus (c) and (f) in the full run."""
    base = {"part": "bound", "platform": "2", "interarrival": "poisson", "load_sensor": "count", "concurrent": 0}
    out = [{**base, "scenario": "b", "mu": mu, "workload_seed": s}
           for mu in (20.0, 17.0, 15.0) for s in ((1,) if quick else (1, 2, 3))]
    if not quick:
        out += [{**base, "scenario": "c", "mu": 15.0, "workload_seed": 1},
                {**base, "scenario": "f", "mu": 0.0, "workload_seed": 1}]
    return out


def small_cells(quick: bool) -> list[dict]:
    """First 8 and 10 tasks of (b) on 4 servers (platform 2) and on 3 (spinnaker, artimon, soyotte), at the paper's
    rates and at ``STRESS_MU``."""
    seeds = (1, 2) if quick else (1, 2, 3, 4)
    rates = (15.0, 17.0, 20.0, STRESS_MU)
    return [{"part": "small", "scenario": "b", "platform": servers, "mu": mu, "workload_seed": s, "tasks": n,
             "interarrival": "poisson", "load_sensor": "count", "concurrent": 0}
            for servers in ("2", "3") for mu in rates for n in ((10,) if quick else (8, 10)) for s in seeds]


def _instance(params: dict):
    import dataclasses

    from vcsched.generators.timeshare import generate_scenario
    from vcsched.problems.timeshare import first_tasks, make_platform

    platform = make_platform("wastecpu", THREE_SERVERS, name="3") if params["platform"] == "3" else params["platform"]
    mu = params["mu"] if params["mu"] > 0 else None
    inst = generate_scenario(params["scenario"], platform=platform, mu=mu, rng=int(params["workload_seed"]))
    if params.get("tasks"):
        inst = dataclasses.replace(inst, workload=first_tasks(inst.workload, int(params["tasks"]))[0])
    return inst


def _heuristic_values(inst) -> dict[str, dict]:
    from heuristics.timeshare import evaluate

    return {r["heuristic"]: r for r in evaluate(inst, HEURISTICS)}


def bound_rows(params: dict) -> list[dict]:
    """One row per heuristic: each metric, its bound, ratio to it, the other end of the optimum's bracket and
    the heuristic's ratio interval to the optimum (:func:`lowerbounds.reference.ratio_interval`)."""
    from heuristics.timeshare.policies import heuristic_mappings
    from lowerbounds.timeshare.references import timeshare_references

    inst = _instance(params)
    tic = time.perf_counter()
    refs = timeshare_references(inst.platform, inst.workload, work_factor=inst.work_factor, method="lp",
                                time_limit=REFERENCE_SECONDS, seed=0, starts=heuristic_mappings(inst))
    seconds = time.perf_counter() - tic
    rows = []
    for h, r in _heuristic_values(inst).items():
        row = {"kind": "bound", "heuristic": h, "tasks": inst.workload.n_tasks, "completed": r["completed"],
               "bound_seconds": seconds}
        full = r["completed"] == inst.workload.n_tasks
        for m in METRICS:
            bracket = refs[m].bracket
            lower = bracket.lower.value
            row[m] = r[m]
            row[f"{m}_bound"] = lower
            row[f"{m}_bound_method"] = bracket.lower.method
            row[f"{m}_ratio_to_bound"] = r[m] / lower if full and lower > 0 else np.nan
            row[f"{m}_upper"] = np.nan if bracket.upper is None else bracket.upper.value
            row[f"{m}_status"] = bracket.status
            interval = bracket.ratio(r[m]) if full else None
            lo, hi = interval if interval else (None, None)
            row[f"{m}_opt_ratio_low"] = np.nan if lo is None else lo
            row[f"{m}_opt_ratio_high"] = np.nan if hi is None else hi
        rows.append(row)
    return rows


def small_rows(params: dict) -> list[dict]:
    from lowerbounds.timeshare import TaskCosts, lp_bounds
    from lowerbounds.timeshare.mapping import best_mapping

    inst = _instance(params)
    costs = TaskCosts.of(inst.platform, inst.workload)
    lp = lp_bounds(costs, time_limit=30.0)
    rows = []
    best = {}
    for m in ("sumflow", "makespan", "maxstretch", "maxflow"):
        res = best_mapping(costs, m, time_limit=EXACT_SECONDS, lower=lp[m].value)
        best[m] = res.objective if res.status == "optimal" else np.nan
        rows.append({"kind": "small_exact", "metric": m, "status": res.status, "best": res.objective,
                     "proven": res.bound, "lp_bound": lp[m].value, "lp_method": lp[m].method,
                     "lp_seconds": lp[m].seconds, "exact_seconds": res.seconds, "nodes": res.nodes,
                     "tasks": costs.n, "servers": costs.p.shape[1]})
    for h, r in _heuristic_values(inst).items():
        row = {"kind": "small_heuristic", "heuristic": h, "tasks": costs.n, "servers": costs.p.shape[1]}
        for m in METRICS:
            row[m] = r[m]
            row[f"{m}_to_best"] = r[m] / best[m] if best[m] > 0 else np.nan
            row[f"{m}_to_bound"] = r[m] / lp[m].value if lp[m].value > 0 else np.nan
        rows.append(row)
    return rows


def bound_report(ok: pandas.DataFrame, out_dir: pathlib.Path) -> list[str]:
    """Tables ``bound_gaps`` and ``small_exact``, figure ``bound_gaps``; the report's lines."""
    from benchmarks.figures import line_plot
    from benchmarks.tables import save_table

    lines: list[str] = []
    bnd = ok[ok["kind"] == "bound"]
    if not bnd.empty:
        cols = [f"{m}_ratio_to_bound" for m in METRICS]
        table = bnd.groupby(["scenario", "mu", "heuristic"], sort=False)[cols + ["bound_seconds"]].agg(
            {**{c: "mean" for c in cols}, "bound_seconds": "max"}).reset_index()
        save_table(table, out_dir, "bound_gaps", title="Heuristics' metrics / lower bound (LP method, "
                   f"{BOUND_SECONDS:g} s per workload); mean over workload seeds", digits=3)
        b = bnd[bnd["scenario"] == "b"]
        if not b.empty:
            line_plot(b, x="mu", y="sumflow_ratio_to_bound", series="heuristic", out_dir=out_dir, stem="bound_gaps",
                      xlabel="mean inter-arrival time μ (s)", ylabel="sumflow / LP lower bound",
                      title="Scenario (b), platform 2: sumflow of each heuristic over the lower bound")
            for mu in (20.0, 17.0, 15.0):
                at = b[b["mu"] == mu]
                if at.empty:
                    continue
                g = at.groupby("heuristic")[["sumflow_ratio_to_bound", "maxflow_ratio_to_bound",
                                             "maxstretch_ratio_to_bound", "makespan_ratio_to_bound"]].mean()
                lines.append(f"(b) mu={mu:g}, value / lower bound (sumflow, maxflow, maxstretch, makespan): " + "; ".join(
                    f"{h.upper()} {g.loc[h].iloc[0]:.3f}, {g.loc[h].iloc[1]:.3f}, {g.loc[h].iloc[2]:.3f}, "
                    f"{g.loc[h].iloc[3]:.4f}" for h in HEURISTICS if h in g.index))
            lines += _interval_lines(b, out_dir, save_table)
            lines.append(f"references of a whole (b) workload (500 tasks): at most {b['bound_seconds'].max():.1f} s "
                         f"(limit {REFERENCE_SECONDS:g} s)")
    lines += _small_lines(ok, out_dir, save_table)
    return lines


def _interval_lines(b: pandas.DataFrame, out_dir: pathlib.Path, save_table) -> list[str]:
    """Table ``opt_intervals`` (per rate and heuristic: the ratio interval to the optimum of each metric, mean
    over seeds, and the mean width upper / lower) and one line per rate."""
    if "sumflow_opt_ratio_low" not in b:
        return []
    cols = [f"{m}_opt_ratio_{e}" for m in METRICS for e in ("low", "high")]
    table = b.groupby(["mu", "heuristic"], sort=False)[cols].mean().reset_index()
    widths = (b["sumflow_upper"] / b["sumflow_bound"]).groupby(b["mu"]).agg(["min", "max"])
    save_table(table, out_dir, "opt_intervals", title="Scenario (b): each heuristic's value / optimum lies in "
               "[low, high] (mean over workload seeds)", digits=3)
    lines = []
    for mu in (20.0, 17.0, 15.0):
        at = table[table["mu"] == mu]
        if at.empty:
            continue
        lines.append(f"(b) mu={mu:g}, value / optimum in [low, high] (sumflow; maxstretch): " + "; ".join(
            f"{r.heuristic.upper()} [{r.sumflow_opt_ratio_low:.2f}, {r.sumflow_opt_ratio_high:.2f}]; "
            f"[{r.maxstretch_opt_ratio_low:.2f}, {r.maxstretch_opt_ratio_high:.2f}]" for r in at.itertuples())
            + f" (sumflow upper / lower {widths.loc[mu, 'min']:.2f}-{widths.loc[mu, 'max']:.2f})")
    return lines


def _small_lines(ok: pandas.DataFrame, out_dir: pathlib.Path, save_table) -> list[str]:
    lines: list[str] = []
    ex = ok[ok["kind"] == "small_exact"]
    if ex.empty:
        return lines
    ex = ex.assign(quality=ex["lp_bound"] / ex["best"].where(ex["status"] == "optimal"))
    table = ex.groupby(["servers", "mu", "tasks", "metric"], sort=False).agg(
        quality=("quality", "mean"), worst=("quality", "min"), optimal=("status", lambda s: (s == "optimal").mean()),
        exact_seconds=("exact_seconds", "max")).reset_index()
    save_table(table, out_dir, "small_exact", title="Small workloads: LP bound / best mapping, share proven "
               "optimal, search time", digits=3)
    paper = ex["mu"] != STRESS_MU
    for m in ("sumflow", "maxstretch", "maxflow", "makespan"):
        q = ex[paper & (ex["metric"] == m)]["quality"]
        stress = ex[~paper & (ex["metric"] == m)]["quality"]
        lines.append(f"small workloads (8-10 tasks, 3-4 servers, mu 15/17/20): {m} bound / best mapping "
                     f"mean {q.mean():.3f}, min {q.min():.3f} over {q.notna().sum()} instances; at mu={STRESS_MU:g} "
                     f"mean {stress.mean():.3f}")
    ten = ex[(ex["tasks"] == 10) & (ex["servers"] == 4) & (ex["metric"] == "sumflow")]
    if not ten.empty:
        lines.append(f"best sumflow mapping of 10 tasks on (b)'s platform: at most {ten['exact_seconds'].max():.2f} s, "
                     f"{(ten['status'] == 'optimal').mean() * 100:.0f} % proven optimal")
    hs = ok[ok["kind"] == "small_heuristic"]
    for mu in (20.0, 17.0, 15.0):
        at = hs[(hs["mu"] == mu) & (hs["servers"] == 4) & (hs["tasks"] == 10)]
        if not at.empty:
            g = at.groupby("heuristic")[["sumflow_to_best", "maxflow_to_best", "maxstretch_to_best"]].mean()
            lines.append(f"(b) first 10 tasks, platform 2, mu={mu:g}, heuristic / best mapping (sumflow, maxflow, "
                         "maxstretch): " + "; ".join(f"{h.upper()} {g.loc[h].iloc[0]:.3f}, {g.loc[h].iloc[1]:.3f}, "
                                                     f"{g.loc[h].iloc[2]:.3f}" for h in HEURISTICS if h in g.index))
    hs = hs[hs["mu"] != STRESS_MU]
    if not hs.empty:
        g = hs.groupby("heuristic")[["sumflow_to_best", "maxstretch_to_best", "makespan_to_best"]].mean()
        lines.append("small workloads (mu 15/17/20), heuristic / best mapping (sumflow, maxstretch, makespan): "
                     + "; ".join(
            f"{h.upper()} {g.loc[h].iloc[0]:.3f}, {g.loc[h].iloc[1]:.3f}, {g.loc[h].iloc[2]:.3f}"
            for h in HEURISTICS if h in g.index))
    return lines
