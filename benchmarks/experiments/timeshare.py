"""``timeshare``: MCT, HMCT, MP and MSF on time-shared servers (seed 003, Caniou & Jeannot RR-5168).

Cells
-----
``part = "scenario"``: one scenario (a)-(j) on one platform at one rate with one
workload seed (``workload_seed``, used as the generator's seed so that the *same task
set* is submitted at every rate, as in §5.2.2; the harness's cell seed is not used:
the simulation has no other randomness). Rows: one ``kind = "summary"`` row per
heuristic (the metrics of §3 and the comparison with MCT), ``kind = "server"`` rows
(per-server share of tasks and sumflow, Tables 10/12/14) and ``kind = "client"`` rows
(per-application makespan, Figs 7-18).

``part = "bound"`` and ``part = "small"``: the references (lower bounds of whole workloads with
every heuristic's ratio to them; the best clairvoyant mapping of small workloads), see
:mod:`benchmarks.experiments._timeshare_bounds`.

``part = "timing"``: wall time of scenario (b) (500 tasks) with the four heuristics and
three seeds (target: 5 s). ``part = "htm_cost"``: cost of one HTM decision
(predict on every server + commit) with ``concurrent`` tasks in the system, up to 10,000.

The grid: scenario (b) on platform 2 at μ = 20, 17, 15 with seeds 1-3 (Tables 16-18),
plus, in the full run, (b) on platform 1 at μ = 20, 15, (a) at μ = 20, 15, (c)-(e) with
4 seeds, (f), (g), (h) with 2 seeds, (i), (j) with 4, and (b) on platform 2 with
exponential gaps (sensitivity to our reading of "Poisson").

Deviation cells (full run; one change from the defaults each, same workload seeds): (b) on
platform 2 at μ = 16 and 16.5 (less load: the paper's platform ended its μ = 15 runs with
less backlog than ours), (b) at μ = 15 with a 30 % noise on the computation times, and (a)
at μ = 15 with the memory variants (``memory``: RAM + half the swap; ``overflow``: a server
that runs out of memory stays closed, §5.2.1); and for (b) on platform 2: MCT's agent
taking a finished task off its load only at the next load report (``mct_completion``) at
every rate, the paper's protocol of repeated runs with their own 4 % noise compared in
cross product (``runs``) at every rate, and at μ = 15 faster or slower servers than Table 5
(``compute_scale``, ``SERVER=F`` pairs joined by commas; a control that speeds up the slow
servers only is among them). The report's **deviation table** (:func:`deviation_table`)
sets each beside the paper's number, and :func:`implied_speed_table` shows how fast the
paper's fast servers must have been for its utilisation tables to fit its makespans.
"""

from __future__ import annotations

import pathlib
import time
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.experiments._timeshare_bounds import bound_cells, bound_report, bound_rows, small_cells, small_rows
from benchmarks.experiments._timeshare_paper import (
    FAST_0916,
    PAPER,
    PAPER_COLUMNS,
    PAPER_COMPLETED,
    PAPER_NOISE,
    PAPER_SLOW_SHARE,
    PAPER_TYPE_SHARES,
    SCALES,
    TS_DEVIATIONS,
    _is_variant,
    deviation_table,
    implied_speed_table,
)
from benchmarks.harness import Experiment
from vcsched.names.timeshare import HEURISTICS

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "PAPER", "PAPER_COMPLETED", "PAPER_NOISE", "PAPER_SLOW_SHARE",
           "PAPER_TYPE_SHARES", "FAST_0916", "SCALES", "TS_DEVIATIONS", "deviation_table", "implied_speed_table"]



def cells(quick: bool) -> list[dict]:
    """Scenario cells (see the module docstring), then the timing and HTM-cost cells."""
    out: list[dict] = []

    def add(scenario, platform, mu, seeds, law="poisson", sensor="count", noise=0.0, memory="ram",
            overflow="refuse", scale="", completion="notify", runs=1):
        for s in seeds:
            cell = {"part": "scenario", "scenario": scenario, "platform": platform, "mu": mu,
                    "workload_seed": s, "interarrival": law, "load_sensor": sensor, "concurrent": 0}
            if noise:
                cell["noise"] = noise
            if memory != "ram":
                cell["memory"] = memory
            if overflow != "refuse":
                cell["overflow"] = overflow
            if scale:
                cell["compute_scale"] = scale
            if completion != "notify":
                cell["mct_completion"] = completion
            if runs > 1:
                cell["runs"] = runs
            out.append(cell)

    if quick:
        for mu in (20.0, 17.0, 15.0):
            add("b", "2", mu, (1,))
        add("a", "dgemm", 15.0, (1,))
        add("c", "2", 15.0, (1,))
        out.append({"part": "timing", "scenario": "b", "platform": "2", "mu": 17.0, "workload_seed": 0,
                    "interarrival": "poisson", "load_sensor": "count", "concurrent": 0})
        for n in (10, 100, 1000):
            out.append({"part": "htm_cost", "scenario": "-", "platform": "2", "mu": 0.0, "workload_seed": 0,
                        "interarrival": "-", "load_sensor": "-", "concurrent": n})
        return out + bound_cells(quick) + small_cells(quick)
    for mu in (20.0, 17.0, 15.0):
        add("b", "2", mu, (1, 2, 3))
    for mu in (20.0, 15.0):
        add("b", "1", mu, (1, 2, 3))
        add("a", "dgemm", mu, (1, 2, 3, 4))
    for sc, mu in (("c", 15.0), ("d", 15.0), ("e", 20.0), ("i", 40.0), ("j", 25.0)):
        add(sc, "2", mu, (1, 2, 3, 4))
    add("h", "2", 28.0, (1, 2))
    add("f", "2", 0.0, (1,))
    add("g", "2", 0.0, (1,))
    for mu in (20.0, 17.0, 15.0):
        add("b", "2", mu, (1, 2, 3), law="exponential")
        add("b", "2", mu, (1, 2, 3), sensor="loadavg")
        add("b", "2", mu, (1, 2, 3), noise=0.1)
    for mu in (16.0, 16.5):
        add("b", "2", mu, (1, 2, 3))
    add("b", "2", 15.0, (1, 2, 3), noise=0.3)
    for mu in (20.0, 17.0, 15.0):
        add("b", "2", mu, (1, 2, 3), completion="report")
        add("b", "2", mu, (1, 2, 3), noise=PAPER_NOISE, runs=3)
        add("b", "2", mu, (1, 2, 3), completion="report", scale=FAST_0916)
    for scale in SCALES.values():
        add("b", "2", 15.0, (1, 2, 3), scale=scale)
    for memory, overflow in (("ram+swap/2", "refuse"), ("ram", "close"), ("ram+swap/2", "close")):
        add("a", "dgemm", 15.0, (1, 2, 3, 4), memory=memory, overflow=overflow)
    for rep in range(3):
        out.append({"part": "timing", "scenario": "b", "platform": "2", "mu": 17.0, "workload_seed": rep,
                    "interarrival": "poisson", "load_sensor": "count", "concurrent": 0})
    for n in (10, 30, 100, 300, 1000, 3000, 10000, 30000):
        out.append({"part": "htm_cost", "scenario": "-", "platform": "2", "mu": 0.0, "workload_seed": 0,
                    "interarrival": "-", "load_sensor": "-", "concurrent": n})
    return out + bound_cells(quick) + small_cells(quick)


def _scenario_rows(params: dict) -> list[dict]:
    from heuristics.timeshare import evaluate
    from vcsched.generators.timeshare import generate_scenario

    platform = None if params["scenario"] == "a" else params["platform"]
    memory = params.get("memory") or "ram"
    scale = params.get("compute_scale") or ""
    if memory != "ram" or scale:
        platform = _platform_variant("dgemm" if params["scenario"] == "a" else str(params["platform"]), memory,
                                     scale)
    mu = params["mu"] if params["mu"] > 0 else None
    inst = generate_scenario(params["scenario"], platform=platform, mu=mu, rng=int(params["workload_seed"]),
                             interarrival=params["interarrival"], noise=float(params.get("noise", 0.0)))
    rows = []
    for r in evaluate(inst, HEURISTICS, details=True, load_sensor=params.get("load_sensor", "count"),
                      overflow=params.get("overflow") or "refuse", runs=int(params.get("runs") or 1),
                      mct_completion=params.get("mct_completion") or "notify"):
        base = {"heuristic": r["heuristic"]}
        summary = {k: v for k, v in r.items() if k not in ("servers", "clients")}
        released = inst.workload.release[np.isfinite(inst.workload.release)]
        rows.append({"kind": "summary", **summary, "tasks": inst.workload.n_tasks,
                     "last_arrival": float(released.max()) if released.size else -1.0})
        for s in r["servers"]:
            rows.append({"kind": "server", **base, **{("server_" + k if k != "server" else k): v
                                                      for k, v in s.items()}})
        for c, v in r["clients"].items():
            rows.append({"kind": "client", **base, "client": int(c), "client_makespan": v["makespan"],
                         "client_sumflow": v["sumflow"], "client_tasks": v["tasks"]})
    return rows


MEMORY_VARIANTS = {"ram+swap/2": ("ram+swap", 0.5), "ram+swap": ("ram+swap", 1.0), "none": ("none", 1.0)}
"""Server capacities of the deviation cells beyond the default (physical memory): RAM + a share of the swap."""


def parse_scale(text: str) -> dict[str, float]:
    """``"spinnaker=0.916,artimon=0.989"`` -> ``{"spinnaker": 0.916, "artimon": 0.989}`` ("" -> {})."""
    out = {}
    for part in filter(None, (p.strip() for p in str(text).split(","))):
        name, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"compute_scale part {part!r} is not SERVER=FACTOR")
        out[name.strip()] = float(value)
    return out


def _platform_variant(name: str, memory: str = "ram", scale: str = ""):
    from vcsched.problems.timeshare import PLATFORMS, make_platform

    if memory != "ram" and memory not in MEMORY_VARIANTS:
        raise ValueError(f"unknown memory variant {memory!r}; choose one of {', '.join(MEMORY_VARIANTS)}")
    kind, servers = PLATFORMS[name]
    model, share = MEMORY_VARIANTS.get(memory, ("ram", 1.0))
    return make_platform(kind, servers, name=name, memory=model, swap_share=share, compute_scale=parse_scale(scale))


def _timing_rows(params: dict) -> list[dict]:
    from heuristics.timeshare import evaluate
    from vcsched.generators.timeshare import generate_scenario

    tic = time.perf_counter()
    decisions = 0.0
    for s in (1, 2, 3):
        inst = generate_scenario("b", mu=params["mu"], rng=s)
        rows = evaluate(inst, HEURISTICS)
        decisions += sum(r["decision_seconds"] for r in rows)
    return [{"kind": "timing", "total_seconds": time.perf_counter() - tic, "decision_seconds": decisions,
             "runs": 12, "tasks_per_run": 500}]


def htm_decision_cost(concurrent: int, *, decisions: int = 20) -> float:
    """Seconds per HTM decision (predict on the 4 servers + commit) with ``concurrent`` tasks in the system.

    Platform 2 with zero input time and computation times x 10^6, so that all tasks
    stay concurrent (they are spread over the servers by the round-robin used to fill
    the state) and no input transfer is pending (as in practice: inputs last < 1 s).
    """
    import dataclasses

    from vcsched.problems.timeshare import platform_for
    from vcsched.sim.htm import HistoricalTraceManager

    p = platform_for("2")
    p = dataclasses.replace(p, input=np.zeros_like(p.input), compute=p.compute * 1e6)
    htm = HistoricalTraceManager(p, capacity=concurrent + decisions + 1)
    for i in range(concurrent):
        htm.commit(i % p.n_servers, i, i % p.n_types, now=i * 1e-3)
    now = concurrent * 1e-3
    tic = time.perf_counter()
    for k in range(decisions):
        T, P = htm.predict(k % 3, now)
        htm.commit(int(np.argmin(P + T - now)), concurrent + k, k % 3, now)
        now += 1e-3
    return (time.perf_counter() - tic) / decisions


def run_cell(params: dict, seed: int) -> list[dict]:
    """Rows of one cell (``seed`` unused: the workload seed is a parameter, see the module docstring)."""
    part = params["part"]
    if part == "scenario":
        return _scenario_rows(params)
    if part == "timing":
        return _timing_rows(params)
    if part == "htm_cost":
        return [{"kind": "htm_cost", "decision_seconds": htm_decision_cost(int(params["concurrent"]))}]
    if part == "bound":
        return bound_rows(params)
    if part == "small":
        return small_rows(params)
    raise ValueError(f"unknown part {part!r}")


def _summary(df: pandas.DataFrame, *, noise: float | None = 0.0) -> pandas.DataFrame:
    """Summary rows; by default those of the exact-cost runs (``noise`` None: all)."""
    s = df[(df["kind"] == "summary")]
    if noise is None:
        return s
    if "noise" not in s:
        return s if noise == 0.0 else s.iloc[0:0]
    return s[s["noise"].fillna(0.0) == noise]


def tables_16_18(df: pandas.DataFrame) -> pandas.DataFrame:
    """Analogue of Tables 16-18 (and 6-9): one line per (scenario, platform, law, mu, heuristic, metric),
    one column per seed, the mean, and the paper's average beside; ``n`` (seeds) and ``ci95`` (half-width of
    the mean's 95 % interval)."""
    import pandas as pd

    from benchmarks.tables import ci95_half

    s = _summary(df)
    s = s[s["scenario"].isin(["a", "b"])]
    if s.empty:
        return pd.DataFrame()
    metrics = ("completed", "makespan", "sumflow", "maxflow", "maxstretch", "sooner_than_mct", "later_than_mct")
    lines = []
    s = s.assign(load_sensor=s["load_sensor"] if "load_sensor" in s else "count")
    for (sc, plat, law, sensor, mu, h), g in s.groupby(["scenario", "platform", "interarrival", "load_sensor", "mu",
                                                        "heuristic"], sort=False):
        paper = PAPER.get((sc, str(plat), float(mu)), {}).get(h) if law == "poisson" else None
        for k, m in enumerate(metrics):
            line = {"scenario": sc, "platform": str(plat), "law": law, "sensor": sensor, "mu": mu, "heuristic": h,
                    "metric": m}
            for _, r in g.sort_values("workload_seed").iterrows():
                line[f"seed{int(r['workload_seed'])}"] = float(r[m])
            line["avg"] = float(g[m].mean())
            if m == "completed":
                line["paper_avg"] = float(PAPER_COMPLETED.get((sc, str(plat), float(mu)), {}).get(h, 500 if paper else np.nan))
            elif m == "later_than_mct":
                line["paper_avg"] = np.nan
            else:
                val = paper[PAPER_COLUMNS.index(m)] if paper is not None else None
                line["paper_avg"] = float(val) if val is not None else np.nan
            line["n"], line["ci95"] = int(g[m].notna().sum()), ci95_half(g[m].astype(float))
            lines.append(line)
    return pd.DataFrame(lines)


def _client_figure(df: pandas.DataFrame, out_dir: pathlib.Path, scenario: str) -> pathlib.Path | None:
    import matplotlib.pyplot as plt

    from benchmarks.figures import add_caption, count_caption, save_figure
    from benchmarks.tables import ci95_half

    c = df[(df["kind"] == "client") & (df["scenario"] == scenario)]
    if c.empty:
        return None
    clients = sorted(c["client"].unique())
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / len(HEURISTICS)
    counts = []
    for k, h in enumerate(HEURISTICS):
        by = c[c["heuristic"] == h].groupby("client")["client_makespan"]
        vals, err = by.mean().reindex(clients), by.agg(ci95_half).reindex(clients)
        counts.extend(by.count().tolist())
        ax.bar(np.arange(len(clients)) + (k - 1.5) * width, vals.to_numpy(), width, label=h.upper(),
               yerr=err.fillna(0.0).to_numpy(), capsize=2, error_kw={"elinewidth": 0.8})
    ax.set_xticks(np.arange(len(clients)))
    ax.set_xticklabels([str(int(x) + 1) for x in clients])
    ax.set_xlabel("client (application)")
    ax.set_ylabel("makespan of the application (s, from t = 0)")
    ax.set_title(f"scenario ({scenario}), platform 2: per-client makespans")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(True, axis="y", alpha=0.3)
    add_caption(fig, count_caption(counts, "workload seeds", interval=max(counts, default=0) > 1))
    return save_figure(fig, out_dir, f"clients_{scenario}")


def _values(df, sc, plat, mu, h, col, law="poisson", sensor="count") -> pandas.Series:
    """``col`` of the summary rows of one configuration, one per workload seed."""
    s = _summary(df)
    g = s[(s["scenario"] == sc) & (s["platform"].astype(str) == plat) & (s["mu"] == mu) & (s["heuristic"] == h)
          & (s["interarrival"] == law) & (s["load_sensor"] == sensor)]
    return g[col].astype(float)


def _mean(df, sc, plat, mu, h, col, law="poisson", sensor="count"):
    g = _values(df, sc, plat, mu, h, col, law, sensor)
    return float(g.mean()) if not g.empty else float("nan")


def _mean_text(df, sc, plat, mu, h, col) -> str:
    """``"12,345 +- 678"``: mean over the workload seeds and the half-width of its 95 % interval."""
    from benchmarks.tables import ci95_half

    g = _values(df, sc, plat, mu, h, col)
    half = ci95_half(g)
    return f"{g.mean():,.0f}" + ("" if np.isnan(half) else f" +- {half:,.0f}")


def _slow_share(df, h, mu):
    s = df[(df["kind"] == "server") & (df["scenario"] == "b") & (df["platform"].astype(str) == "2")
           & (df["mu"] == mu) & (df["heuristic"] == h) & (df["interarrival"] == "poisson")
           & (df["load_sensor"] == "count")]
    if "noise" in s:
        s = s[s["noise"].fillna(0.0) == 0.0]
    if s.empty:
        return float("nan")
    per_seed = s[s["server"].isin(["soyotte", "fonck"])].groupby("workload_seed")["server_percent"].sum()
    return float(per_seed.mean())


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Tables 16-18 analogues, server shares, scenario summaries, per-client figures, HTM cost plot."""
    if df.empty or "kind" not in df:
        return "timeshare: no rows (every cell failed?)"
    ok = df[df["cell_status"] == "ok"] if "cell_status" in df else df
    if "load_sensor" not in ok:
        ok = ok.assign(load_sensor="count")
    everything, ok = ok, ok[~_is_variant(ok)]
    lines = ["timeshare: MCT / HMCT / MP / MSF on time-shared servers (seed 003); simulation, not the real platform."]
    t1618, summ = _report_tables(ok, out_dir)
    for sc in ("c", "d", "e"):
        _client_figure(ok, out_dir, sc)
    lines += _htm_cost_lines(ok, out_dir)
    lines += _paper_lines(ok, summ)
    lines += bound_report(ok, out_dir)
    return "\n".join(lines) + _report_appendix(ok, everything, t1618, out_dir)


def _report_tables(ok: pandas.DataFrame, out_dir: pathlib.Path):
    """Tables 16-18, the scenario summaries and the server shares (saved); ``(t1618, summary)``."""
    from benchmarks.tables import save_table, with_intervals

    t1618 = tables_16_18(ok)
    if not t1618.empty:
        save_table(t1618, out_dir, "tables_6_to_18", title="Scenarios (a), (b): per seed, mean, paper's average",
                   digits=1)
    summ = _summary(ok)
    if not summ.empty:
        cols = ["completed", "makespan", "sumflow", "maxflow", "maxstretch", "meanflow", "sooner_than_mct",
                "later_than_mct", "lost"]
        allsumm = _summary(ok, noise=None)
        allsumm = allsumm.assign(noise=allsumm["noise"].fillna(0.0) if "noise" in allsumm else 0.0)
        by = allsumm.groupby(["scenario", "platform", "interarrival", "load_sensor", "noise", "mu", "heuristic"],
                             sort=False)[cols].mean()
        by = with_intervals(by.reset_index(), allsumm, ["scenario", "platform", "interarrival", "load_sensor",
                                                         "noise", "mu", "heuristic"], ["sumflow", "makespan"])
        save_table(by, out_dir, "scenarios", title="All scenarios: means over workload seeds, with the count and "
                   "95 % interval of sumflow and makespan", digits=1)
    serv = ok[ok["kind"] == "server"]
    if not serv.empty:
        serv = serv.assign(noise=serv["noise"].fillna(0.0) if "noise" in serv else 0.0)
        types = [c for c in ("server_percent_type1", "server_percent_type2", "server_percent_type3") if c in serv]
        sv = serv.groupby(["scenario", "platform", "interarrival", "load_sensor", "noise", "mu", "heuristic", "server"],
                          sort=False)[["server_percent", *types, "server_sumflow"]].mean().reset_index()
        save_table(sv, out_dir, "server_shares", title="Per-server share of tasks (%) and sumflow (Tables 10, 12, 14)",
                   digits=1)
    return t1618, summ


def _htm_cost_lines(ok: pandas.DataFrame, out_dir: pathlib.Path) -> list[str]:
    """The HTM decision-cost figure and table, and the run-time line."""
    from benchmarks.figures import line_plot
    from benchmarks.tables import save_table

    lines: list[str] = []
    cost = ok[ok["kind"] == "htm_cost"]
    if not cost.empty:
        line_plot(cost.assign(per_decision_ms=cost["decision_seconds"] * 1e3), x="concurrent", y="per_decision_ms",
                  out_dir=out_dir, stem="htm_cost", xlabel="tasks in the system (concurrent)",
                  ylabel="HTM decision cost (ms: predict on 4 servers + commit)", logx=True, logy=True,
                  title="Cost of one HTM decision vs number of concurrent tasks")
        c = cost.groupby("concurrent")["decision_seconds"].mean()
        save_table(c.reset_index(), out_dir, "htm_cost", digits=6)
        xs = c.index.to_numpy(dtype=float)
        ys = c.to_numpy()
        slope = float(np.polyfit(np.log(xs[xs >= 100]), np.log(ys[xs >= 100]), 1)[0]) if (xs >= 100).sum() >= 2 else float("nan")
        lines.append("HTM cost per decision: " + ", ".join(f"{int(n)}: {v * 1e3:.2f} ms" for n, v in c.items())
                     + f"; log-log slope above 100 tasks {slope:.2f} (<= 1 means at most linear)")
    tim = ok[ok["kind"] == "timing"]
    if not tim.empty:
        lines.append(f"scenario (b), 500 tasks, 4 heuristics x 3 seeds (MCT once per seed): "
                     f"{tim['total_seconds'].median():.2f} s wall (median of {len(tim)} runs)")
    return lines


def _paper_lines(ok: pandas.DataFrame, summ: pandas.DataFrame) -> list[str]:
    """The paper's findings beside ours: scenario (b) at mu = 20, 17, 15, scenario (a), the variants."""
    lines: list[str] = []
    # the paper's findings beside ours (scenario b, platform 2)
    for mu in (20.0, 17.0, 15.0):
        ours = {h: _mean(ok, "b", "2", mu, h, "sumflow") for h in HEURISTICS}
        if all(np.isnan(v) for v in ours.values()):
            continue
        paper = PAPER[("b", "2", mu)]
        n = len(_values(ok, "b", "2", mu, HEURISTICS[0], "sumflow"))
        lines.append(f"(b) platform 2, mu={mu:g}: sumflow ours (mean +- 95 % CI over n = {n} workload seeds) / paper: "
                     + ", ".join(f"{h.upper()} {_mean_text(ok, 'b', '2', mu, h, 'sumflow')} / {paper[h][1]:,}"
                                 for h in HEURISTICS))
        so = {h: _mean(ok, "b", "2", mu, h, "sooner_than_mct") for h in HEURISTICS[1:]}
        lines.append("   % sooner than MCT ours / paper: " + ", ".join(
            f"{h.upper()} {so[h]:.0f} / {paper[h][4]}" for h in HEURISTICS[1:]))
        lines.append("   % of tasks on soyotte+fonck: " + ", ".join(
            f"{h.upper()} {_slow_share(ok, h, mu):.1f}" for h in HEURISTICS)
                     + f" (paper: {PAPER_SLOW_SHARE[mu]})")
    for mu in (20.0, 15.0):
        comp = {h: _mean(ok, "a", "dgemm", mu, h, "completed") for h in HEURISTICS}
        if not all(np.isnan(v) for v in comp.values()):
            sf = {h: _mean(ok, "a", "dgemm", mu, h, "sumflow") for h in HEURISTICS}
            lines.append(f"(a) dgemm, mu={mu:g}: completed " + ", ".join(f"{h.upper()} {comp[h]:.0f}" for h in HEURISTICS)
                         + "; sumflow " + ", ".join(f"{h.upper()} {sf[h]:,.0f}" for h in HEURISTICS)
                         + "; paper sumflow " + ", ".join(f"{h.upper()} {PAPER[('a', 'dgemm', mu)][h][1]:,}"
                                                              for h in HEURISTICS))
    for mu in (20.0, 17.0, 15.0):
        exp = {h: _mean(ok, "b", "2", mu, h, "sumflow", law="exponential") for h in HEURISTICS}
        if not all(np.isnan(v) for v in exp.values()):
            lines.append(f"(b) platform 2, mu={mu:g}, exponential gaps: sumflow " +
                         ", ".join(f"{h.upper()} {exp[h]:,.0f}" for h in HEURISTICS))
        noisy = _summary(ok, noise=0.1)
        noisy = noisy[(noisy["scenario"] == "b") & (noisy["platform"].astype(str) == "2") & (noisy["mu"] == mu)]
        if not noisy.empty:
            nm = noisy.groupby("heuristic")["sumflow"].mean()
            lines.append(f"(b) platform 2, mu={mu:g}, real computation times off by 10% (CV) from the tables: sumflow "
                         + ", ".join(f"{h.upper()} {nm.get(h, float('nan')):,.0f}" for h in HEURISTICS))
        la = _mean(ok, "b", "2", mu, "mct", "sumflow", sensor="loadavg")
        if not np.isnan(la):
            lines.append(f"(b) platform 2, mu={mu:g}, MCT fed a 1-min load average: sumflow {la:,.0f} "
                         f"(vs {_mean(ok, 'b', '2', mu, 'mct', 'sumflow'):,.0f} with exact task counts)")
    if not summ.empty:
        best = summ[summ["scenario"] != "b"].groupby(["scenario", "heuristic"])[["makespan", "sumflow", "maxflow"]].mean()
        if not best.empty:
            wins = best.groupby(level=0).idxmin()
            lines.append("best heuristic per scenario (mean makespan / sumflow / maxflow): " + "; ".join(
                f"({sc}) " + "/".join(wins.loc[sc, m][1].upper() for m in ("makespan", "sumflow", "maxflow"))
                for sc in wins.index))
    return lines


def _report_appendix(ok: pandas.DataFrame, everything: pandas.DataFrame, t1618: pandas.DataFrame,
                     out_dir: pathlib.Path) -> str:
    """Implied speeds, the deviation table and the key rows of Tables 16-18 (text after the lines)."""
    from benchmarks.tables import save_table, text_table, text_table_notes

    text = ""
    if (ok["kind"] == "server").any():
        speeds = implied_speed_table(ok)
        save_table(speeds, out_dir, "implied_speed", title="Speed the paper's fast servers needed (Table 5 = 1)",
                   digits=3)
        top = speeds[speeds["mu"] == 15.0].groupby("server")["paper implied speed"].max()
        text += ("\nthe paper's utilisation tables at mu = 15 need spinnaker at >= "
                 f"{top.get('spinnaker', np.nan):.3f} and artimon at >= {top.get('artimon', np.nan):.3f} times their "
                 "Table 5 speed (implied_speed.md)")
    if (everything["kind"] == "summary").any():
        dev = deviation_table(everything)
        if dev["ours (defaults)"].notna().any():
            save_table(dev, out_dir, "deviations", title="Deviations from seed 003 and their measured causes",
                       digits=1)
            text += ("\ndeviation table (paper, ours with the defaults, the closest variant; one change at a time, "
                     "same workload seeds):\n" + text_table_notes(dev, ["variants tried", "measured cause"], digits=1))
    if not t1618.empty:
        key = t1618[(t1618["scenario"] == "b") & (t1618["platform"] == "2") & (t1618["law"] == "poisson")
                    & (t1618["sensor"] == "count")
                    & t1618["metric"].isin(["sumflow", "maxflow", "sooner_than_mct"])]
        if not key.empty:
            text += "\n" + text_table(key[["mu", "heuristic", "metric", "avg", "ci95", "n", "paper_avg"]].reset_index(drop=True),
                                      digits=1)
    return text

EXPERIMENT = Experiment("timeshare", "MCT, HMCT, MP, MSF with the Historical Trace Manager on time-shared servers, "
                        "scenarios (a)-(j) (seed 003)", cells, run_cell, report)
