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

Model-variant cells (a ``variant`` parameter, one change from the defaults at a time, as many
repetitions as the defaults, each cell with its own child seed;
see :data:`MODEL_VARIANTS`) feed the **deviation table** (:func:`deviation_table`): add-seds with
the literal reading of Algorithm 1, steady with a SeD-queue hand-off cost and a longer window,
add-seds and steady with memory/cache interference between jobs (every approach), and the sensitivity of Table 1 and Fig 2 to the two fitted constants (dgemm time, submit overhead).

Row fields: ``variant`` (``default`` for the paper's grid), ``approach``, ``rep``, ``makespan``, ``mean_turnaround``, ``std_turnaround``,
``throughput`` (requests/s), ``mean_choose``, ``mean_queue``, ``mean_compute`` (s),
``tasks_per_sed`` ("sed:count ..."), ``max_tasks_per_sed``, ``tasks_on_new_seds``,
``completed``, ``events``; and the references of :mod:`benchmarks.experiments._diet_references`:
``<metric>_bound`` for every row (bursty, add-seds, steady), ``<metric>_best`` (best clairvoyant placement) with
its ``_best_bound``, ``_best_status``, ``_best_gap`` for the default bursty and add-seds cells.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks.experiments._diet_references import BEST_NODES, MILP_NODES, POLISH_ROUNDS, reference_report, references
from benchmarks.figures import add_caption, count_caption, line_plot, save_figure
from benchmarks.harness import Experiment
from benchmarks.tables import ci95_half, save_table, text_table, text_table_notes

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "APPROACHES"]

APPROACHES = ("standard", "sed-queue", "task-scheduler")
VARIANTS = ("minmin", "sufferage", "msf")
INTERARRIVALS = (0.0, 0.25, 0.5, 0.75, 1.0)
NEW_SEDS = ("sed8", "sed9", "sed10", "sed11")

MODEL_VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "literal-sorting": {"sorting": "literal"},
    "queue-sync-1.5": {"queue_sync": 1.5},
    "queue-sync-1.5+waf-1.65": {"queue_sync": 1.5, "win_adapt_factor": 1.65},
    "waf-1.2": {"win_adapt_factor": 1.2},
    "waf-1.5": {"win_adapt_factor": 1.5},
    "waf-1.65": {"win_adapt_factor": 1.65},
    "refine-last-free": {"refine": "last-free"},
    "dgemm-70s": {"ref_seconds": 70.0},
    "dgemm-110s": {"ref_seconds": 110.0},
    "submit-0.5s": {"submit_overhead": 0.5},
    "submit-2s": {"submit_overhead": 2.0},
    "interference-0.1": {"interference": 0.1},
    "interference-0.25": {"interference": 0.25},
}
"""One change from the defaults each: ``sorting`` (Algorithm 1's reading), ``queue_sync`` (SeD-queue
hand-off, s), ``win_adapt_factor`` (Algorithm 2), ``refine`` (Algorithm 3's reading, Task Scheduler only),
``ref_seconds`` (dgemm-1200 time), ``submit_overhead``, ``interference`` (memory/cache contention between
jobs beyond a SeD's CPUs, §6.4.3; see :mod:`vcsched.sim.diet`); ``queue-sync-1.5+waf-1.65`` is the pair that gives
Fig 5's losses, also run on Table 1."""


def cells(quick: bool) -> list[dict]:
    """Bursty: one cell per inter-arrival; add-seds: one per repetition; steady: one per approach x repetition."""
    reps = 2 if quick else 5
    out: list[dict] = [{"experiment": "bursty", "interarrival": ia, "reps": reps} for ia in INTERARRIVALS]
    out += [{"experiment": "add-seds", "rep": r, "best_nodes": BEST_NODES[quick],
             "milp_nodes": MILP_NODES[quick], "polish_rounds": POLISH_ROUNDS[quick]}
            for r in range(1 if quick else 5)]
    out += [{"experiment": "mixed", "rep": r} for r in range(1 if quick else 5)]
    duration = 2700.0 if quick else 10800.0
    out += [{"experiment": "steady", "steady_approach": a, "duration": duration, "rep": r}
            for r in range(1 if quick else 3) for a in APPROACHES]
    return out + _variant_cells(quick, duration)


_INTERFERENCE = ("interference-0.1", "interference-0.25")
"""The interference variants: every approach (interference slows Standard most, so its own Standard is run)."""


def _variant_cells(quick: bool, duration: float) -> list[dict]:
    """The deviation table's cells: each one model change, on the experiment whose deviation it tests."""
    reps = range(1 if quick else 5)
    out: list[dict] = []
    for v in ("literal-sorting", "dgemm-70s", "dgemm-110s", "waf-1.2", "waf-1.5", "waf-1.65",
              "queue-sync-1.5+waf-1.65", "refine-last-free"):
        out += [{"experiment": "add-seds", "rep": r, "variant": v} for r in reps]
    for v in ("submit-0.5s", "submit-2s"):
        out += [{"experiment": "bursty", "interarrival": ia, "reps": 2 if quick else 5, "variant": v}
                for ia in (0.5, 1.0)]
    steady = [("literal-sorting", a) for a in APPROACHES] + [("queue-sync-1.5", "sed-queue"),
                                                             ("queue-sync-1.5", "task-scheduler"),
                                                             ("queue-sync-1.5+waf-1.65", "task-scheduler"),
                                                             ("waf-1.65", "task-scheduler"),
                                                             ("refine-last-free", "task-scheduler")]
    out += [{"experiment": "steady", "steady_approach": a, "duration": duration, "rep": r, "variant": v}
            for r in range(1 if quick else 3) for v, a in steady]
    return out + _interference_cells(quick, duration)


def _interference_cells(quick: bool, duration: float) -> list[dict]:
    """Interference variants on Table 1 and on Fig 5 (every approach: interference slows Standard most, so the
    variant's own Standard is the reference). Last in the list, so the other cells keep their seeds."""
    out = [{"experiment": "add-seds", "rep": r, "variant": v} for v in _INTERFERENCE for r in range(1 if quick else 5)]
    out += [{"experiment": "steady", "steady_approach": a, "duration": duration, "rep": r, "variant": v}
            for v in _INTERFERENCE for r in range(1 if quick else 3) for a in APPROACHES]
    return out


def _variant(params: dict) -> tuple[dict, dict, dict]:
    """(scenario options, approach options, name) of the cell's model variant."""
    name = params.get("variant") or "default"
    if name not in MODEL_VARIANTS:
        raise ValueError(f"unknown diet model variant {name!r}")
    v = MODEL_VARIANTS[name]
    import dataclasses

    from vcsched.scenarios.diet import PLATFORM

    scen: dict[str, Any] = {}
    plat = {k: v[k] for k in ("queue_sync", "submit_overhead", "interference") if k in v}
    if plat:
        scen["platform"] = dataclasses.replace(PLATFORM, **plat)
    if "ref_seconds" in v:
        scen["ref_seconds"] = v["ref_seconds"]
    appr: dict[str, Any] = {}
    if "sorting" in v:
        appr["sorting"] = v["sorting"]
    if "refine" in v:
        appr["refine"] = v["refine"]
    if "win_adapt_factor" in v:
        from heuristics.diet import WindowParams

        appr["window"] = WindowParams(win_adapt_factor=v["win_adapt_factor"])
    return scen, appr, {"variant": name}


def _policies(appr: dict | None = None, *, variants: bool = True) -> list[tuple[str, Any]]:
    from heuristics.diet import make_approach

    appr = appr or {}
    pols = [(a, make_approach(a, **appr)) for a in APPROACHES]
    if variants:
        pols += [(f"task-scheduler/{v}", make_approach("task-scheduler", refine=v, **appr)) for v in VARIANTS]
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
    scen, appr, tag = _variant(params)
    default = tag["variant"] == "default"
    rows = []
    limit = {"nodes": int(params.get("best_nodes", BEST_NODES[True])),
             "milp_nodes": int(params.get("milp_nodes", MILP_NODES[True])),
             "polish_rounds": int(params.get("polish_rounds", POLISH_ROUNDS[True]))}
    if exp == "bursty":
        scenario = bursty(float(params["interarrival"]), **scen)
        for rep in range(int(params["reps"])):
            ref = references(scenario, _rep_seed(seed, rep), placement=default, **limit)
            for name, pol in _policies(appr, variants=default):
                rows.append(_row(name, simulate_scenario(scenario, pol, seed=_rep_seed(seed, rep)), rep) | ref)
    elif exp == "add-seds":
        scenario = add_seds(1.0, **scen)
        ref = references(scenario, seed, placement=default, **limit)
        for name, pol in _policies(appr, variants=default):
            rows.append(_row(name, simulate_scenario(scenario, pol, seed=seed), int(params["rep"])) | ref)
    elif exp == "mixed":
        scenario = _mixed(seed)
        for name, pol in _policies():
            rows.append(_row(name, simulate_scenario(scenario, pol, seed=seed), int(params["rep"])))
    elif exp == "steady":
        name = params["steady_approach"]
        scenario = steady(duration=float(params["duration"]), **scen)
        rows.append(_row(name, simulate_scenario(scenario, make_approach(name, **appr), seed=seed),
                         int(params["rep"])) | references(scenario, seed, placement=False, **limit))
    else:
        raise ValueError(f"unknown diet experiment {exp!r}")
    return [dict(r, **tag) for r in rows]


def _mixed(seed: int):
    """Beyond the paper: the add-seds setting with requests of mixed sizes (dgemm 800 .. 1600, seeded)
    at 3 per 2 s, where the window refinements (MinMin, Sufferage, MSF) can differ from Algorithm 3."""
    import dataclasses

    from vcsched.problems.diet import Workload
    from vcsched.scenarios.diet import add_seds, dgemm_task

    base = add_seds(2.0 / 3.0)
    sizes = np.random.default_rng([seed, 8]).choice([800, 1000, 1200, 1400, 1600], size=len(base.workload.arrivals))
    arrivals = tuple((t, dgemm_task(int(n))) for (t, _), n in zip(base.workload.arrivals, sizes))
    return dataclasses.replace(base, name="mixed", workload=Workload(arrivals=arrivals))


def _ok(df: pandas.DataFrame, exp: str, variant: str = "default") -> pandas.DataFrame:
    sub = df[df["experiment"] == exp]
    sub = sub[sub["cell_status"] == "ok"] if "cell_status" in sub else sub
    if "variant" in sub:
        sub = sub[sub["variant"].fillna("default") == variant]
    return sub


def _order(names) -> list[str]:
    base = [a for a in APPROACHES if a in set(names)]
    return base + sorted(set(names) - set(base))


def _bursty(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    import pandas as pd

    ok = _ok(df, "bursty")
    if ok.empty:
        return ""
    g = ok.groupby(["interarrival", "approach"])
    table = pd.DataFrame({
        "makespan_mean": g["makespan"].mean(), "makespan_std": g["makespan"].std(),
        "turnaround_mean": g["mean_turnaround"].mean(), "turnaround_std": g["mean_turnaround"].std(),
        "max_tasks_per_sed": g["max_tasks_per_sed"].mean(), "runs": g["makespan"].size(),
        "n": g["makespan"].count(), "makespan_ci95": g["makespan"].agg(ci95_half),
        "turnaround_ci95": g["mean_turnaround"].agg(ci95_half),
    }).reset_index()
    save_table(table, out_dir, "bursty", title="§6.2 bursty arrivals (8 dgemm-1500, 8 SeDs): mean, std and 95 % interval over seeds")
    order = _order(ok["approach"].unique())
    line_plot(ok, x="interarrival", y="makespan", series="approach", out_dir=out_dir, stem="bursty_makespan",
              xlabel="inter-arrival time (s)", ylabel="makespan of 8 tasks (s)", series_order=order,
              title="Fig 2a (simulated): makespan vs client send rate", highlight=list(APPROACHES),
              unit="seeds")
    line_plot(ok, x="interarrival", y="mean_turnaround", series="approach", out_dir=out_dir,
              stem="bursty_turnaround", xlabel="inter-arrival time (s)", ylabel="mean task turnaround (s)",
              series_order=order, title="Fig 2b (simulated): turnaround vs client send rate",
              highlight=list(APPROACHES), unit="seeds")
    main = table[table["approach"].isin(APPROACHES)]
    return ("bursty (§6.2, Fig 2; the paper's figure values are not in its text, only its findings: the Task "
            "Scheduler is consistently good, Standard and SeD Queue only at 1 s, Standard has the better makespan "
            "and SeD Queue the better turnaround):\n" + text_table(main, digits=2))


def _add_seds(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
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
            "n": int(sub["makespan"].count()), "makespan_ci95": ci95_half(sub["makespan"]),
            "turnaround_ci95": ci95_half(sub["mean_turnaround"]),
        })
    table = pd.DataFrame(rows)
    save_table(table, out_dir, "add_seds", title="§6.3 Table 1: 54 dgemm-1200, 4 SeDs added mid-run")
    return "add-seds (§6.3, Table 1; ours = mean over repetitions):\n" + text_table_notes(
        table, ["tasks_per_sed_rep0", "paper_tasks_per_sed"], width=24, digits=1)


def _mixed_report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    import pandas as pd

    ok = _ok(df, "mixed")
    if ok.empty:
        return ""
    g = ok.groupby("approach")
    table = pd.DataFrame({"makespan": g["makespan"].mean(), "makespan_std": g["makespan"].std(),
                          "turnaround": g["mean_turnaround"].mean(), "on_new_seds": g["tasks_on_new_seds"].mean(),
                          "runs": g["makespan"].size(), "n": g["makespan"].count(),
                          "makespan_ci95": g["makespan"].agg(ci95_half)}).reset_index()
    table = table.set_index("approach").loc[_order(table["approach"])].reset_index()
    save_table(table, out_dir, "mixed", title="beyond the paper: mixed dgemm sizes, 4 SeDs added (RefinePlacement variants)")
    return "mixed sizes (beyond the paper, §7.2: RefinePlacement variants; no paper numbers):\n" + text_table(table, digits=1)


def _steady(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
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
            "n": int(sub["throughput"].count()), "throughput_ci95": ci95_half(sub["throughput"]),
            "turnaround_ci95": ci95_half(sub["mean_turnaround"]),
        })
    table = pd.DataFrame(rows)
    save_table(table, out_dir, "steady", title="§6.4 steady state: throughput (Fig 5) and turnaround decomposition (Fig 4)")
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    bottom = np.zeros(len(table))
    for part in ("choose", "queue", "compute"):
        ax.bar(table["approach"], table[part], bottom=bottom, label=f"time to {part}" if part == "choose"
               else f"time in {part}" if part == "queue" else "time computing")
        bottom += table[part].to_numpy(dtype=float)
    ax.errorbar(table["approach"], bottom, yerr=table["turnaround_ci95"].fillna(0.0).to_numpy(), fmt="none",
                ecolor="black", capsize=3, elinewidth=0.9, label="turnaround, 95 % CI")
    ax.set_ylabel("mean time per request (s)")
    ax.set_title("Fig 4 (simulated): turnaround = choose server + SeD queue + compute")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    add_caption(fig, count_caption(table["n"], "runs", interval=bool(table["n"].max() > 1)))
    save_figure(fig, out_dir, "steady_decomposition")
    return "steady (§6.4, Fig 5 / Fig 4):\n" + text_table(table, digits=3)


def _mean(df, exp: str, variant: str, approach: str, column: str) -> float:
    sub = _ok(df, exp, variant)
    sub = sub[sub["approach"] == approach] if len(sub) else sub
    return float(sub[column].mean()) if len(sub) else float("nan")


def _vs_standard(df, variant: str, approach: str) -> float:
    """Steady throughput of ``approach`` under ``variant`` relative to Standard (%); Standard is the
    variant's own when the variant ran it, else the default's (a SeD-queue change does not touch it)."""
    thr = _mean(df, "steady", variant, approach, "throughput")
    std = _mean(df, "steady", variant, "standard", "throughput")
    if not np.isfinite(std):
        std = _mean(df, "steady", "default", "standard", "throughput")
    return 100.0 * (thr - std) / std if std else float("nan")


def _spread(df, variant: str) -> float:
    return _mean(df, "add-seds", variant, "standard", "makespan") - _mean(df, "add-seds", variant, "sed-queue",
                                                                           "makespan")


_TS_TABLE1 = ("waf-1.2", "waf-1.5", "waf-1.65", "queue-sync-1.5+waf-1.65", "refine-last-free", "literal-sorting")
_TS_WINDOW = (
    "window length: after the 20th request every slot of the 8 original SeDs is busy and the MA sleeps "
    "winAdaptFactor x minQueueWait (about 71 s). At 0.5 (our assumption) it wakes at 55 s and at 75 s, "
    "when the new SeDs (64 s) are free, and places the rest at once; with 1.5-1.65 it sleeps until about "
    "125-137 s, which is when the paper's makespan says the new SeDs started (1.5: 312 s). The Fig 5 pair "
    "(hand-off 1.5 s, 1.65) gives 323 s, within 4 %. The paper gives no winAdaptFactor. Algorithm 3 to the "
    "letter (last unused server) overshoots (362 s) by starving the new SeDs (3.6 tasks in all, paper 12)")

DEVIATIONS = (
    # quantity, paper, value(df, variant), variants tried, measured cause
    ("Table 1 Standard makespan (s)", 460.1, lambda d, v: _mean(d, "add-seds", v, "standard", "makespan"),
     ("literal-sorting", *_INTERFERENCE),
     "placement: Algorithm 1 with ties on the (equal) predicted time broken by jobs / last solve spreads "
     "Standard 7/7/7/7/7/7/6/6; read literally (ties at random) it gives 9-10 on one SeD, as the paper's 9. "
     "Interference (§6.4.3) also slows Standard here (0.1: 390 s, 0.25: 522 s) but costs it 9-19 % in Fig 5, "
     "where the paper has it first: not the cause"),
    ("Table 1 SeD Queue makespan (s)", 369.1, lambda d, v: _mean(d, "add-seds", v, "sed-queue", "makespan"),
     ("literal-sorting",),
     "dgemm time 88 s is fitted here (4 rounds of 2); the literal reading keeps 7 x 6, 6 x 2 as the paper"),
    ("Table 1 Task Scheduler makespan (s)", 312.7,
     lambda d, v: _mean(d, "add-seds", v, "task-scheduler", "makespan"), _TS_TABLE1, _TS_WINDOW),
    ("Table 1 Task Scheduler mean turnaround (s)", 147.6,
     lambda d, v: _mean(d, "add-seds", v, "task-scheduler", "mean_turnaround"), _TS_TABLE1,
     "the longer sleep also holds the stalled requests longer at the MA: +16-19 % at 1.5-1.65 (the "
     "defaults are within 3 %)"),
    ("Table 1 Task Scheduler tasks on the 4 new SeDs", 12.0,
     lambda d, v: _mean(d, "add-seds", v, "task-scheduler", "tasks_on_new_seds"), _TS_TABLE1,
     "paper: 3 on each new SeD, 5-6 on each original one; the window lengths keep this placement, Algorithm 3 "
     "to the letter does not (it picks the worst-ranked unused SeD, often an original one with a queue)"),
    ("Table 1 Standard - SeD Queue makespan (s)", 91.0, _spread, ("literal-sorting", *_INTERFERENCE),
     "ordering: the paper's Standard > SeD Queue needs Standard's imbalance, i.e. the literal reading (or "
     "interference about 0.15, which Fig 5 and the paper's dgemm measurement rule out)"),
    ("Table 1 Standard most tasks on one SeD", 9.0, lambda d, v: _mean(d, "add-seds", v, "standard",
                                                                          "max_tasks_per_sed"),
     ("literal-sorting",), "as the first row"),
    ("Table 1 Standard mean turnaround (s)", 254.7,
     lambda d, v: _mean(d, "add-seds", v, "standard", "mean_turnaround"), ("literal-sorting",),
     "the literal reading overshoots (296 s): random ties spread the tasks more unevenly than the paper's "
     "9/7/7/7/6/6/6/6; the defaults are closer"),
    ("Fig 5 SeD Queue vs Standard throughput (%)", -2.8, lambda d, v: _vs_standard(d, v, "sed-queue"),
     ("queue-sync-1.5", "literal-sorting", *_INTERFERENCE),
     "no hand-off cost in the default model: a 1.5 s hand-off per queued solve (the paper's first cause) "
     "gives the loss, about -1.5 % per second of hand-off. Interference is not the cause: it slows only "
     "Standard (4 jobs per 2-CPU SeD run at 1/(1 + a)), +10 % at 0.1 and +24 % at 0.25, away from the paper"),
    ("Fig 5 Task Scheduler vs Standard throughput (%)", -4.5, lambda d, v: _vs_standard(d, v, "task-scheduler"),
     ("queue-sync-1.5", "queue-sync-1.5+waf-1.65", "waf-1.65", "refine-last-free", "literal-sorting",
      *_INTERFERENCE),
     "the hand-off plus windows that are too long (the paper's cause): winAdaptFactor (not given) above "
     "about 1.6 leaves SeDs idle, with a steep threshold (1.5: -3.3 %, 1.7: -6 %); interference moves it away "
     "(+10 % at 0.1, +24 % at 0.25)"),
    ("Fig 5 Standard vs SeD Queue throughput (%)", 2.9,
     lambda d, v: -_vs_standard(d, v, "sed-queue") / (1.0 + _vs_standard(d, v, "sed-queue") / 100.0),
     ("queue-sync-1.5", "literal-sorting", *_INTERFERENCE),
     "the literal reading's random placement idles CPUs in steady state (Standard 22 % below SeD Queue): "
     "no reading of the ties tried gives both Table 1 and Fig 5"),
)
"""The deviations of our reproduction from seed 004 that the deviation table follows."""


def deviation_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per deviation: the paper's number, ours with the defaults, the closest of the variants tried, the cause.

    The closest variant is the one whose value is nearest the paper's, ``default`` when no variant
    tried comes closer than the defaults (ties: the defaults, then the first listed). The measured
    cause is given only where at least one of the row's variants ran.
    """
    import pandas as pd

    out = []
    for quantity, paper, fn, variants, cause in DEVIATIONS:
        values = {v: fn(df, v) for v in variants}
        values = {v: x for v, x in values.items() if np.isfinite(x)}
        base = fn(df, "default")
        pool = dict(values, **({"default": base} if np.isfinite(base) else {}))
        best = min(pool, key=lambda v: (abs(pool[v] - paper), v != "default")) if pool else None
        out.append({"quantity": quantity, "paper": paper, "ours (defaults)": base,
                    "closest variant": best or "-", "ours (closest variant)": pool[best] if best else np.nan,
                    "variants tried": "; ".join(f"{v} {x:.1f}" for v, x in values.items()) or "-",
                    "measured cause": cause if values else "-"})
    return pd.DataFrame(out)


def sensitivity_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """The two fitted constants: Table 1 makespans against the dgemm time, Fig 2's finding against the submit
    overhead (makespan at 0.5 s minus at 1 s inter-arrival: > 0 means the approach degrades below 1 s)."""
    import pandas as pd

    rows = []
    for v, label in (("dgemm-70s", "dgemm-1200 70 s"), ("default", "dgemm-1200 88 s (default)"),
                     ("dgemm-110s", "dgemm-1200 110 s")):
        rows.append({"constant": label, **{f"add-seds {a}": _mean(df, "add-seds", v, a, "makespan")
                                           for a in APPROACHES}})
    for v, label in (("submit-0.5s", "submit overhead 0.5 s"), ("default", "submit overhead 1.25 s (default)"),
                     ("submit-2s", "submit overhead 2 s")):
        row = {"constant": label}
        for a in APPROACHES:
            sub = _ok(df, "bursty", v)
            sub = sub[sub["approach"] == a]
            m = sub.groupby("interarrival")["makespan"].mean() if len(sub) else pd.Series(dtype=float)
            row[f"bursty {a} 0.5s-1s"] = float(m.get(0.5, np.nan) - m.get(1.0, np.nan))
        rows.append(row)
    return pd.DataFrame(rows)


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Tables (CSV + Markdown) and figures for the three experiments, ours beside the paper's."""
    if df.empty or "experiment" not in df:
        return "diet: no rows (every cell failed?)"
    out_dir = pathlib.Path(out_dir)
    parts = [p for p in (_bursty(df, out_dir), _add_seds(df, out_dir), _mixed_report(df, out_dir),
                          _steady(df, out_dir), reference_report(df, out_dir, _ok, _order)) if p]
    if "variant" in df and (df["variant"].fillna("default") != "default").any():
        dev = deviation_table(df)
        save_table(dev, out_dir, "deviations", title="Deviations from seed 004 and their measured causes")
        sens = sensitivity_table(df)
        save_table(sens, out_dir, "fitted_constants", title="Sensitivity to the two fitted constants")
        parts.append("deviation table (paper, ours with the defaults, the closest model variant; one change "
                     "at a time, same number of repetitions):\n"
                     + text_table_notes(dev, ["variants tried", "measured cause"], digits=1))
        parts.append("fitted constants (dgemm time fitted on Table 1, submit overhead on Fig 2): sensitivity\n"
                     + text_table(sens, digits=1))
    failed = int(df.loc[df["cell_status"] == "error", "cell"].nunique()) if "cell_status" in df else 0
    head = "diet: DIET request flow (seed 004 §6), simulated" + (f"; {failed} cell(s) failed" if failed else "")
    return head + "\n\n" + "\n".join(parts)


EXPERIMENT = Experiment("diet", "DIET hierarchical request flow (seed 004 §6): bursty arrivals, SeDs added mid-run, "
                        "steady state", cells, run_cell, report)
