"""vc-adapt: minimum yield against memory migrated, per adaptation policy and budget B.

Seed 001 §6.1 leaves the choice of the migration budget ``B`` and heuristics
for the adaptation MILP to future work; this experiment does that study.
Poisson arrivals, exponential lifetimes, needs drawn as in §4.1
(:func:`vcsched.scenarios.vc_dynamic.poisson_workload`); at every arrival and
departure the policy adapts the allocation moving at most ``B`` memory.

Cells: arrival rate (workload intensity) x replicate x policy x budget. The
workload of a cell depends only on its rate and replicate (seeded from
``workload_seed``), so every policy and budget is compared on the same jobs.
"""

from __future__ import annotations

import math
import pathlib
import time

import numpy as np

from benchmarks.harness import Experiment

HOSTS = 8
MEAN_LIFETIME = 50.0
POLICIES = ("none", "local-search", "mcb8-sticky", "mcb8", "exact")
BUDGETS = ("0", "0.05", "0.1", "0.25", "0.5", "1", "inf")


def cells(quick: bool) -> list[dict]:
    rates = (0.3, 0.5) if quick else (0.2, 0.3, 0.4, 0.5, 0.6)
    reps = 1 if quick else 3
    duration = 100.0 if quick else 500.0
    budgets = ("0", "0.1", "0.5", "inf") if quick else BUDGETS
    out = []
    for rate in rates:
        for rep in range(reps):
            for policy in POLICIES:
                for budget in budgets:
                    out.append({"hosts": HOSTS, "rate": rate, "rep": rep, "workload_seed": 1000 + rep,
                                "duration": duration, "policy": policy, "budget": budget,
                                "time_limit": 0.5 if quick else 2.0})
    return out


def run_cell(params: dict, seed: int) -> list[dict]:
    from heuristics.vc.adapt import make_policy
    from vcsched.scenarios.vc_dynamic import poisson_workload
    from vcsched.sim.vcdynamic import simulate_dynamic

    rng = np.random.default_rng([params["workload_seed"], int(round(params["rate"] * 1000))])
    workload = poisson_workload(params["hosts"], params["rate"], MEAN_LIFETIME, params["duration"], slack=0.3, rng=rng)
    budget = math.inf if params["budget"] == "inf" else float(params["budget"])
    policy = make_policy(params["policy"], time_limit=params["time_limit"])
    t0 = time.perf_counter()
    res = simulate_dynamic(params["hosts"], workload, policy, budget=budget, duration=params["duration"])
    seconds = time.perf_counter() - t0
    row = res.to_dict()
    row.pop("policy")
    row.pop("budget")  # the cell parameter (a string, "inf" allowed) stays; budget_value is the number
    row["budget_value"] = budget
    row["migrated_memory_per_event"] = res.migrated_memory / max(res.events, 1)
    row["jobs"] = workload.n_jobs
    row["sim_seconds"] = seconds
    return [row]


def _budget_label(budget: float) -> str:
    """``B=0.5``, ``B=inf``: the text beside a point of the trade-off figure."""
    return "B=inf" if budget == float("inf") else f"B={budget:g}"


def _point_labels(g) -> dict:
    """``{(x, y): "B=0,0.1"}``: one label per drawn point, the budgets that land on it joined."""
    labels: dict = {}
    for budget, x, y in zip(g.index, g["migrated_memory_per_event"], g["mean_min_yield"]):
        key = (round(float(x), 6), round(float(y), 6))
        labels[key] = (labels[key] + "," + _budget_label(budget)[2:]) if key in labels else _budget_label(budget)
    return labels


def _tradeoff_figure(df, out_dir: pathlib.Path) -> list[pathlib.Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from benchmarks.figures import add_caption, count_caption, save_figure
    from benchmarks.tables import ci95_half

    paths = []
    for rate, sub in df.groupby("rate"):
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        counts: list[int] = []
        for k, policy in enumerate(POLICIES):
            d = sub[sub["policy"] == policy]
            if d.empty:
                continue
            by = d.groupby("budget_value")
            g = by[["migrated_memory_per_event", "mean_min_yield"]].mean().sort_index()
            err = by["mean_min_yield"].agg(ci95_half).reindex(g.index).fillna(0.0)
            counts.extend(by.size().tolist())
            strong = policy == "exact"
            line, = ax.plot(g["migrated_memory_per_event"], g["mean_min_yield"], marker="osD^v"[k % 5],
                            linewidth=2.4 if strong else 1.2, linestyle="--" if strong else "-",
                            color="black" if strong else None, label=policy)
            ax.errorbar(g["migrated_memory_per_event"], g["mean_min_yield"], yerr=err.values, fmt="none",
                        ecolor=line.get_color(), elinewidth=0.9, capsize=2.5, alpha=0.8)
            for (x, y), text in _point_labels(g).items():
                ax.annotate(text, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7,
                            color=line.get_color())
        ax.set_xlabel("memory migrated per adaptation (fraction of a host's memory)")
        ax.set_ylabel("time-averaged minimum yield")
        ax.set_title(f"{HOSTS} hosts, arrival rate {rate}/s, mean lifetime {MEAN_LIFETIME:g} s (labels: budget B)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        add_caption(fig, count_caption(counts, "replicates", interval=max(counts, default=0) > 1))
        paths.append(save_figure(fig, out_dir, f"tradeoff_rate_{rate:g}"))
    return paths


def report(df, out_dir: pathlib.Path) -> str:
    from benchmarks.tables import save_table, text_table, with_intervals

    if "mean_min_yield" not in df:
        return "vc-adapt: no successful cell (see the error column)"
    ok = df[df["mean_min_yield"].notna()]
    if ok.empty:
        return "vc-adapt: no successful cell"
    table = (ok.groupby(["rate", "policy", "budget"], sort=False)
             .agg(mean_min_yield=("mean_min_yield", "mean"), min_min_yield=("min_min_yield", "mean"),
                  migrated_memory=("migrated_memory", "mean"), migrations=("migrations", "mean"),
                  rejected=("rejected", "mean"), seconds=("sim_seconds", "mean"))
             .reset_index())
    table = with_intervals(table, ok, ["rate", "policy", "budget"], "mean_min_yield")
    save_table(table, out_dir, "vc_adapt", title="Time-averaged minimum yield and migration per policy and budget")
    figures = _tradeoff_figure(ok, out_dir)
    lines = ["vc-adapt: minimum yield vs memory migrated (mean over replicates)", text_table(table), ""]
    exact = ok[ok["policy"] == "exact"].set_index(["rate", "rep", "budget"])["mean_min_yield"]
    if not exact.empty:
        lines.append("Closest to the exact MILP (mean gap exact - policy in time-averaged min yield over rates, replicates and budgets; mean memory moved per run):")
        ex_mem = ok[ok["policy"] == "exact"]["migrated_memory"].mean()
        for policy in POLICIES[:-1]:
            d = ok[ok["policy"] == policy].set_index(["rate", "rep", "budget"])
            common = d.index.intersection(exact.index)
            if len(common) == 0:
                continue
            gap = float((exact.loc[common] - d.loc[common, "mean_min_yield"]).mean())
            mem = d["migrated_memory"].mean()
            lines.append(f"  {policy:13s} gap {gap:+.4f}   memory moved {mem:8.2f} (exact {ex_mem:.2f})")
    lines.append("Figures: " + ", ".join(str(p) for p in figures))
    return "\n".join(lines)


EXPERIMENT = Experiment("vc-adapt", "dynamic VCSched: min yield vs memory migrated per adaptation policy and budget "
                        "(beyond seed 001 §6)", cells, run_cell, report)
