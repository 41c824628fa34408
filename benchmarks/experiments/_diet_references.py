"""References for the ``diet`` benchmark: each run's bounds and the best clairvoyant placement, as ratios.

Every simulated row gains the bounds of its own scenario and seed (``lowerbounds.diet.diet_bounds``, method
``best``: lower bounds on makespan and mean turnaround, an upper bound on throughput, valid for every approach)
and, for the paper's default cells of ``bursty`` and ``add-seds``, the best clairvoyant placement
(``lowerbounds.diet.placement``: optimum, or the best found with its bound and gap at the time limit). The
report gives each approach's metrics as ratios to both, beside the paper's comparisons with Standard, with
one figure per experiment.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks.figures import add_caption, count_caption, save_figure
from benchmarks.tables import ci95_half, save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["references", "reference_report", "BEST_NODES", "MILP_NODES", "POLISH_ROUNDS", "SAFETY_SECONDS"]

BEST_NODES = {True: 20_000, False: 200_000}
"""Search nodes per metric for the best placement (quick grid, full grid): a limit independent of the
machine, so the rows are reproducible; ``bursty`` is proven well within it, ``add-seds`` is not."""
MILP_NODES = {True: 20, False: 200}
"""HiGHS branch-and-bound nodes of the makespan MILP after the search (quick grid, full grid)."""
POLISH_ROUNDS = {True: 50, False: 200}
"""Improvements of the incumbent's local search (quick grid, full grid)."""
SAFETY_SECONDS = 600.0
"""Time limit per metric on top of the node limit (not reached on the grids above)."""
METRICS = ("makespan", "mean_turnaround", "throughput")


def references(scenario: Any, seed: int, *, placement: bool, nodes: int, milp_nodes: int,
               polish_rounds: int) -> dict[str, Any]:
    """Columns ``<metric>_bound`` and, with ``placement``, ``<metric>_best``, ``..._best_bound``,
    ``..._best_status``, ``..._best_gap`` for the makespan and the mean turnaround."""
    from lowerbounds.diet import diet_bounds, diet_instance
    from lowerbounds.diet.placement import best_placement

    out: dict[str, Any] = {f"{m}_bound": b.value for m, b in diet_bounds(scenario, seed=seed).items()}
    if placement:
        inst = diet_instance(scenario, seed=seed)
        for m in ("makespan", "mean_turnaround"):
            res = best_placement(inst, m, time_limit=SAFETY_SECONDS, root_bound=out[f"{m}_bound"], node_limit=nodes,
                                 milp_node_limit=milp_nodes, polish_rounds=polish_rounds)
            out.update({f"{m}_best": res.value, f"{m}_best_bound": res.bound, f"{m}_best_status": str(res.status),
                        f"{m}_best_gap": res.gap, f"{m}_best_seconds": res.seconds})
    return out


def _ratios(sub: pandas.DataFrame) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for m in METRICS:
        if f"{m}_bound" in sub and sub[f"{m}_bound"].notna().any():
            row[f"{m}_to_bound"] = float((sub[m] / sub[f"{m}_bound"]).mean())
        if f"{m}_best" in sub and sub[f"{m}_best"].notna().any():
            row[f"{m}_to_best"] = float((sub[m] / sub[f"{m}_best"]).mean())
            row[f"{m}_to_best_ci95"] = ci95_half(sub[m] / sub[f"{m}_best"])
    row["n"] = int(len(sub))
    return row


def violations(df: pandas.DataFrame) -> int:
    """Rows where a lower bound exceeds the simulated value or the throughput bound is below it (must be 0)."""
    bad = 0
    for m in ("makespan", "mean_turnaround"):
        if f"{m}_bound" in df:
            bad += int((df[f"{m}_bound"] > df[m] * (1 + 1e-9) + 1e-9).sum())
    if "throughput_bound" in df:
        bad += int((df["throughput_bound"] < df["throughput"] * (1 - 1e-9) - 1e-9).sum())
    return bad


def _bursty(ok: pandas.DataFrame, order: list[str], out_dir: pathlib.Path) -> tuple[pandas.DataFrame, str]:
    import matplotlib.pyplot as plt
    import pandas as pd

    rows = [{"interarrival": ia, "approach": a, **_ratios(ok[(ok["interarrival"] == ia) & (ok["approach"] == a)])}
            for ia in sorted(ok["interarrival"].unique()) for a in order]
    table = pd.DataFrame(rows)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=False)
    for ax, m in zip(axes, ("makespan", "mean_turnaround")):
        for a in order:
            sub = table[table["approach"] == a]
            line, = ax.plot(sub["interarrival"], sub[f"{m}_to_best"], marker="o", label=a)
            if f"{m}_to_best_ci95" in sub:
                ax.errorbar(sub["interarrival"], sub[f"{m}_to_best"], yerr=sub[f"{m}_to_best_ci95"].fillna(0.0),
                            fmt="none", ecolor=line.get_color(), capsize=2, elinewidth=0.8)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xlabel("inter-arrival time (s)")
        ax.set_ylabel(f"{m.replace('_', ' ')} / best placement")
    axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle("Fig 2 (simulated): distance to the best clairvoyant placement")
    add_caption(fig, count_caption(table["n"], "seeds", interval=bool(table["n"].max() > 1)))
    save_figure(fig, out_dir, "references_bursty")
    return table, "bursty: mean ratio to the bound and to the best placement (proven optimal for 8 tasks)"


def _bars(table: pandas.DataFrame, out_dir: pathlib.Path, stem: str, columns: list[str], title: str) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.8))
    width = 0.8 / len(columns)
    x = np.arange(len(table))
    for k, c in enumerate(columns):
        ax.bar(x + k * width, table[c].to_numpy(dtype=float), width, label=c)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(x + width * (len(columns) - 1) / 2, table["approach"], rotation=20, fontsize=7)
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if "n" in table:
        add_caption(fig, count_caption(table["n"], "runs", interval=False))
    save_figure(fig, out_dir, stem)


def _add_seds(ok: pandas.DataFrame, order: list[str], out_dir: pathlib.Path) -> tuple[pandas.DataFrame, str]:
    import pandas as pd

    from vcsched.scenarios.diet import PAPER

    rows = []
    for a in order:
        sub = ok[ok["approach"] == a]
        paper = PAPER["add-seds"].get(a, {})
        row = {"approach": a, "makespan": sub["makespan"].mean(), **_ratios(sub)}
        for m in ("makespan", "mean_turnaround"):
            std = ok[ok["approach"] == "standard"][m].mean()
            row[f"{m}_vs_standard"] = sub[m].mean() / std if std else None
            p_std = PAPER["add-seds"]["standard"][m]
            row[f"paper_{m}_vs_standard"] = paper[m] / p_std if m in paper else None
        rows.append(row)
    table = pd.DataFrame(rows)
    best = ok.iloc[0]
    note = (f"add-seds (Table 1): best placement makespan {best['makespan_best_status']} "
            f"(gap {best['makespan_best_gap']:.3f}), turnaround {best['mean_turnaround_best_status']} "
            f"(gap {best['mean_turnaround_best_gap']:.3f}) for rep 0; ratios to_best use the best placement found")
    _bars(table, out_dir, "references_add_seds", ["makespan_to_bound", "makespan_to_best", "mean_turnaround_to_bound",
                                                   "mean_turnaround_to_best"],
          "Table 1 (simulated): ratio to the bound and to the best placement")
    return table, note


def _steady(ok: pandas.DataFrame, order: list[str], out_dir: pathlib.Path) -> tuple[pandas.DataFrame, str]:
    import pandas as pd

    from vcsched.scenarios.diet import PAPER

    std = ok[ok["approach"] == "standard"]["throughput"].mean()
    rows = [{"approach": a, "throughput": ok[ok["approach"] == a]["throughput"].mean(),
             "throughput_bound": ok[ok["approach"] == a]["throughput_bound"].mean(),
             "throughput_to_bound": _ratios(ok[ok["approach"] == a]).get("throughput_to_bound"),
             "vs_standard_pct": 100 * (ok[ok["approach"] == a]["throughput"].mean() - std) / std if std else None,
             "paper_vs_standard_pct": PAPER["steady"].get(a, {}).get("throughput_vs_standard_pct")} for a in order]
    table = pd.DataFrame(rows)
    _bars(table, out_dir, "references_steady", ["throughput_to_bound"],
          "Fig 5 (simulated): throughput / upper bound")
    return table, "steady (Fig 5): throughput as a fraction of its upper bound"


def reference_report(df: pandas.DataFrame, out_dir: pathlib.Path, ok, order) -> str:
    """The references section of the report: tables, figures, and the count of bound violations."""
    parts = [f"references: bounds violated by a simulated value in {violations(df)} of {len(df)} rows (must be 0)"]
    for exp, fn in (("bursty", _bursty), ("add-seds", _add_seds), ("steady", _steady)):
        sub = ok(df, exp)
        if sub.empty or "makespan_bound" not in sub:
            continue
        if exp != "steady" and "makespan_best" not in sub:
            continue
        table, note = fn(sub, order(sub["approach"].unique()), out_dir)
        save_table(table, out_dir, f"references_{exp.replace('-', '_')}", title=note)
        parts.append(note + ":\n" + text_table(table, digits=3))
    return "\n".join(parts)
