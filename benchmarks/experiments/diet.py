"""``diet``: the experiments of seed 004 §6 (DIET request flow) on the simulator, beside the paper's numbers.

Cells
-----
``bursty``    one cell per inter-arrival time (0, 0.25, 0.5, 0.75, 1 s, §6.2): every approach
              (Standard, SeD Queue, Task Scheduler, and the Task Scheduler with the MinMin /
              Sufferage / MSF refinements) x 5 repetitions with different seeds (Fig 2).
``add-seds``  one cell per repetition (§6.3): 54 dgemm-1200 one per second, 4 SeDs added at 64 s;
              every approach (Table 1, tasks per SeD).
``mixed``     beyond the paper: the add-seds setting with mixed dgemm sizes (800-1600) at 1.5 requests/s,
              where the RefinePlacement variants can differ (one cell per repetition).
``steady``    one cell per approach (and repetition in the full grid, §6.4): 96 sequential users on
              24 SeDs for 3 h (quick: 45 min, margins scaled), statistics over the middle window
              (Fig 5 throughput, Fig 4 decomposition choose / queue / compute).

Row fields: ``approach``, ``rep``, ``makespan``, ``mean_turnaround``, ``std_turnaround``,
``throughput`` (requests/s), ``mean_choose``, ``mean_queue``, ``mean_compute`` (s),
``tasks_per_sed`` ("sed:count ..."), ``max_tasks_per_sed``, ``tasks_on_new_seds``,
``completed``, ``events``.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks.figures import line_plot, save_figure
from benchmarks.harness import Experiment
from benchmarks.tables import save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "APPROACHES"]

APPROACHES = ("standard", "sed-queue", "task-scheduler")
VARIANTS = ("minmin", "sufferage", "msf")
INTERARRIVALS = (0.0, 0.25, 0.5, 0.75, 1.0)
NEW_SEDS = ("sed8", "sed9", "sed10", "sed11")


def cells(quick: bool) -> list[dict]:
    """Bursty: one cell per inter-arrival; add-seds: one per repetition; steady: one per approach x repetition."""
    reps = 2 if quick else 5
    out: list[dict] = [{"experiment": "bursty", "interarrival": ia, "reps": reps} for ia in INTERARRIVALS]
    out += [{"experiment": "add-seds", "rep": r} for r in range(1 if quick else 5)]
    out += [{"experiment": "mixed", "rep": r} for r in range(1 if quick else 5)]
    duration = 2700.0 if quick else 10800.0
    out += [{"experiment": "steady", "steady_approach": a, "duration": duration, "rep": r}
            for r in range(1 if quick else 3) for a in APPROACHES]
    return out


def _policies() -> list[tuple[str, Any]]:
    from heuristics.diet import make_approach

    pols = [(a, make_approach(a)) for a in APPROACHES]
    pols += [(f"task-scheduler/{v}", make_approach("task-scheduler", refine=v)) for v in VARIANTS]
    return pols


def _row(approach: str, metrics: dict, rep: int) -> dict:
    per = metrics.get("tasks_per_sed") or {}
    return {
        "approach": approach,
        "rep": rep,
        "makespan": metrics.get("makespan"),
        "mean_turnaround": metrics.get("mean_turnaround"),
        "std_turnaround": metrics.get("std_turnaround"),
        "throughput": metrics.get("throughput"),
        "mean_choose": metrics.get("mean_choose"),
        "mean_queue": metrics.get("mean_queue"),
        "mean_compute": metrics.get("mean_compute"),
        "tasks_per_sed": " ".join(f"{k}:{v}" for k, v in sorted(per.items(), key=lambda kv: int(kv[0][3:]))),
        "max_tasks_per_sed": max(per.values()) if per else 0,
        "tasks_on_new_seds": int(sum(v for k, v in per.items() if k in NEW_SEDS)),
        "completed": metrics.get("completed"),
        "events": metrics.get("events"),
    }


def _rep_seed(seed: int, rep: int) -> int:
    return int(np.random.SeedSequence([seed, rep]).generate_state(1)[0])


def run_cell(params: dict, seed: int) -> list[dict]:
    """Simulate the cell's experiment under its approaches (the agents' random tie-breaks from ``seed``)."""
    from heuristics.diet import make_approach
    from vcsched.scenarios.diet import add_seds, bursty, simulate_scenario, steady

    exp = params["experiment"]
    rows = []
    if exp == "bursty":
        scenario = bursty(float(params["interarrival"]))
        for rep in range(int(params["reps"])):
            for name, pol in _policies():
                rows.append(_row(name, simulate_scenario(scenario, pol, seed=_rep_seed(seed, rep)), rep))
    elif exp == "add-seds":
        scenario = add_seds(1.0)
        for name, pol in _policies():
            rows.append(_row(name, simulate_scenario(scenario, pol, seed=seed), int(params["rep"])))
    elif exp == "mixed":
        scenario = _mixed(seed)
        for name, pol in _policies():
            rows.append(_row(name, simulate_scenario(scenario, pol, seed=seed), int(params["rep"])))
    elif exp == "steady":
        name = params["steady_approach"]
        scenario = steady(duration=float(params["duration"]))
        rows.append(_row(name, simulate_scenario(scenario, make_approach(name), seed=seed), int(params["rep"])))
    else:
        raise ValueError(f"unknown diet experiment {exp!r}")
    return rows


def _mixed(seed: int):
    """Beyond the paper: the add-seds setting with requests of mixed sizes (dgemm 800 .. 1600, seeded)
    at 3 per 2 s, where the window refinements (MinMin, Sufferage, MSF) can differ from Algorithm 3."""
    import dataclasses

    from vcsched.scenarios.diet import add_seds, dgemm_task
    from vcsched.problems.diet import Workload

    base = add_seds(2.0 / 3.0)
    sizes = np.random.default_rng([seed, 8]).choice([800, 1000, 1200, 1400, 1600], size=len(base.workload.arrivals))
    arrivals = tuple((t, dgemm_task(int(n))) for (t, _), n in zip(base.workload.arrivals, sizes))
    return dataclasses.replace(base, name="mixed", workload=Workload(arrivals=arrivals))


def _ok(df: "pandas.DataFrame", exp: str) -> "pandas.DataFrame":
    sub = df[df["experiment"] == exp]
    return sub[sub["cell_status"] == "ok"] if "cell_status" in sub else sub


def _order(names) -> list[str]:
    base = [a for a in APPROACHES if a in set(names)]
    return base + sorted(set(names) - set(base))


def _bursty(df: "pandas.DataFrame", out_dir: pathlib.Path) -> str:
    import pandas as pd

    ok = _ok(df, "bursty")
    if ok.empty:
        return ""
    g = ok.groupby(["interarrival", "approach"])
    table = pd.DataFrame({
        "makespan_mean": g["makespan"].mean(), "makespan_std": g["makespan"].std(),
        "turnaround_mean": g["mean_turnaround"].mean(), "turnaround_std": g["mean_turnaround"].std(),
        "max_tasks_per_sed": g["max_tasks_per_sed"].mean(), "runs": g["makespan"].size(),
    }).reset_index()
    save_table(table, out_dir, "bursty", title="§6.2 bursty arrivals (8 dgemm-1500, 8 SeDs): mean and std over seeds")
    order = _order(ok["approach"].unique())
    line_plot(ok, x="interarrival", y="makespan", series="approach", out_dir=out_dir, stem="bursty_makespan",
              xlabel="inter-arrival time (s)", ylabel="makespan of 8 tasks (s)", series_order=order,
              title="Fig 2a (simulated): makespan vs client send rate", highlight=list(APPROACHES))
    line_plot(ok, x="interarrival", y="mean_turnaround", series="approach", out_dir=out_dir,
              stem="bursty_turnaround", xlabel="inter-arrival time (s)", ylabel="mean task turnaround (s)",
              series_order=order, title="Fig 2b (simulated): turnaround vs client send rate",
              highlight=list(APPROACHES))
    main = table[table["approach"].isin(APPROACHES)]
    return ("bursty (§6.2, Fig 2; the paper's figure values are not in its text, only its findings: the Task "
            "Scheduler is consistently good, Standard and SeD Queue only at 1 s, Standard has the better makespan "
            "and SeD Queue the better turnaround):\n" + text_table(main, digits=2))


def _add_seds(df: "pandas.DataFrame", out_dir: pathlib.Path) -> str:
    import pandas as pd

    from vcsched.scenarios.diet import PAPER

    ok = _ok(df, "add-seds")
    if ok.empty:
        return ""
    rows = []
    for name in _order(ok["approach"].unique()):
        sub = ok[ok["approach"] == name]
        paper = PAPER["add-seds"].get(name, {})
        rows.append({
            "approach": name,
            "makespan": sub["makespan"].mean(), "makespan_std": sub["makespan"].std(),
            "paper_makespan": paper.get("makespan"),
            "turnaround": sub["mean_turnaround"].mean(), "turnaround_std": sub["std_turnaround"].mean(),
            "paper_turnaround": paper.get("mean_turnaround"), "paper_turnaround_std": paper.get("std_turnaround"),
            "on_new_seds": sub["tasks_on_new_seds"].mean(),
            "tasks_per_sed_rep0": sub.sort_values("rep")["tasks_per_sed"].iloc[0],
            "paper_tasks_per_sed": paper.get("tasks_per_sed", ""),
        })
    table = pd.DataFrame(rows)
    save_table(table, out_dir, "add_seds", title="§6.3 Table 1: 54 dgemm-1200, 4 SeDs added mid-run")
    return "add-seds (§6.3, Table 1; ours = mean over repetitions):\n" + text_table(table, digits=1)


def _mixed_report(df: "pandas.DataFrame", out_dir: pathlib.Path) -> str:
    import pandas as pd

    ok = _ok(df, "mixed")
    if ok.empty:
        return ""
    g = ok.groupby("approach")
    table = pd.DataFrame({"makespan": g["makespan"].mean(), "makespan_std": g["makespan"].std(),
                          "turnaround": g["mean_turnaround"].mean(), "on_new_seds": g["tasks_on_new_seds"].mean(),
                          "runs": g["makespan"].size()}).reset_index()
    table = table.set_index("approach").loc[_order(table["approach"])].reset_index()
    save_table(table, out_dir, "mixed", title="beyond the paper: mixed dgemm sizes, 4 SeDs added (RefinePlacement variants)")
    return "mixed sizes (beyond the paper, §7.2: RefinePlacement variants; no paper numbers):\n" + text_table(table, digits=1)


def _steady(df: "pandas.DataFrame", out_dir: pathlib.Path) -> str:
    import matplotlib.pyplot as plt
    import pandas as pd

    from vcsched.scenarios.diet import PAPER

    ok = _ok(df, "steady")
    if ok.empty:
        return ""
    g = ok.groupby("approach")
    std = g["throughput"].mean().get("standard")
    rows = []
    for name in _order(ok["approach"].unique()):
        sub = ok[ok["approach"] == name]
        thr = sub["throughput"].mean()
        rows.append({
            "approach": name, "throughput": thr, "throughput_std": sub["throughput"].std(),
            "vs_standard_pct": 100.0 * (thr - std) / std if std else None,
            "paper_vs_standard_pct": PAPER["steady"].get(name, {}).get("throughput_vs_standard_pct"),
            "choose": sub["mean_choose"].mean(), "queue": sub["mean_queue"].mean(),
            "compute": sub["mean_compute"].mean(), "turnaround": sub["mean_turnaround"].mean(),
            "turnaround_std": sub["std_turnaround"].mean(), "duration": sub["duration"].iloc[0],
        })
    table = pd.DataFrame(rows)
    save_table(table, out_dir, "steady", title="§6.4 steady state: throughput (Fig 5) and turnaround decomposition (Fig 4)")
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    bottom = np.zeros(len(table))
    for part in ("choose", "queue", "compute"):
        ax.bar(table["approach"], table[part], bottom=bottom, label=f"time to {part}" if part == "choose"
               else f"time in {part}" if part == "queue" else "time computing")
        bottom += table[part].to_numpy(dtype=float)
    ax.set_ylabel("mean time per request (s)")
    ax.set_title("Fig 4 (simulated): turnaround = choose server + SeD queue + compute")
    ax.legend(fontsize=8)
    save_figure(fig, out_dir, "steady_decomposition")
    return "steady (§6.4, Fig 5 / Fig 4):\n" + text_table(table, digits=3)


def report(df: "pandas.DataFrame", out_dir: pathlib.Path) -> str:
    """Tables (CSV + Markdown) and figures for the three experiments, ours beside the paper's."""
    if df.empty or "experiment" not in df:
        return "diet: no rows (every cell failed?)"
    out_dir = pathlib.Path(out_dir)
    parts = [p for p in (_bursty(df, out_dir), _add_seds(df, out_dir), _mixed_report(df, out_dir),
                          _steady(df, out_dir)) if p]
    failed = int(df.loc[df["cell_status"] == "error", "cell"].nunique()) if "cell_status" in df else 0
    head = "diet: DIET request flow (seed 004 §6), simulated" + (f"; {failed} cell(s) failed" if failed else "")
    return head + "\n\n" + "\n".join(parts)


EXPERIMENT = Experiment(
    name="diet",
    description="DIET hierarchical request flow (seed 004 §6): bursty arrivals, SeDs added mid-run, steady state",
    cells=cells,
    run_cell=run_cell,
    report=report,
)
