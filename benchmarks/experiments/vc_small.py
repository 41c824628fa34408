"""``vc-small``: seed 001 §4.2.1-4.2.2 on the 1,440 small instances (4 hosts, 6-12 jobs).

Every instance of :func:`vcsched.generators.vc.instance_set_specs` ``("small")``
(built with :func:`vcsched.generators.vc.build_instance` and the fixed root
seed :data:`INSTANCE_ROOT_SEED`, so every method and every experiment sees
the same instances) is solved by the exact MILP, its LP relaxation (the
bound; solved once and shared with RRND/RRNZ) and the fourteen heuristics.

Reproduces Table 1 (MCB % degradation from best), Figs 2-5 (MCB1-8: minimum
yield, average yield, failure rate vs slack; run time vs jobs) and Figs 11-14
(MCB8, GR, SG, GB, SGB, RRND, RRNZ, MILP, LP).

One cell = one problem specification (jobs, slack, CVs) and its replicates.
Rows (one per instance x method): ``set``, ``instance_rep``, ``tasks``,
``method``, ``status``, ``success`` (0/1), ``min_yield`` and ``avg_yield``
(NaN without a solution), ``seconds`` (whole call, incl. the average-yield
phase), ``seconds_first_phase`` (without it, as the paper reports; for
RRND/RRNZ the rounding only), ``lp_seconds`` (the shared LP, RRND/RRNZ and
LP rows), ``message``.

Definitions used by the report (the paper is terse):

* *% degradation from best* (Table 1): per instance, best = the largest
  min yield over the MCB variants that succeeded; an MCB that succeeded
  scores ``100 (best - its yield) / best``; averages and maxima are over the
  instances it solved.
* *X % above Y*: ``100 (mean_X / mean_Y - 1)`` over the instances both solved.
* run time of RRND/RRNZ = LP time + rounding (the paper's includes GLPK).

The helpers here are shared by ``vc-large`` and ``vc-parallel``.
"""

from __future__ import annotations

import math
import pathlib
import zlib
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = [
    "EXPERIMENT",
    "cells",
    "run_cell",
    "report",
    "INSTANCE_ROOT_SEED",
    "MCB",
    "evaluate_instance",
    "spec_cells",
    "run_spec_cell",
    "degradation_table",
    "slack_table",
    "runtime_table",
    "above_pct",
    "slack_figures",
]

INSTANCE_ROOT_SEED = 0
"""Root seed of :func:`build_instance` for every VC experiment: the canonical instance sets."""

MCB = tuple(f"mcb{v}" for v in range(1, 9))
OTHERS = ("gr", "sg", "gb", "sgb", "rrnd", "rrnz")
OVERALL = ("milp", "lp", "mcb8", "gr", "sg", "gb", "sgb", "rrnd", "rrnz")
MILP_TIME_LIMIT = 600.0

PAPER_TABLE1 = {  # seed 001 Table 1: avg, max % degradation from best, small instances
    "mcb8": (1.06, 40.45), "mcb5": (1.60, 38.67), "mcb6": (1.83, 37.61), "mcb7": (3.91, 40.71),
    "mcb3": (11.76, 55.73), "mcb2": (14.21, 48.30), "mcb1": (14.90, 55.84), "mcb4": (17.32, 46.95),
}


# --------------------------------------------------------------------------- cells


def spec_cells(set_name: str, *, job_counts: Iterable[int], slacks: Iterable[float],
               cvs: Iterable[tuple[float, float]], reps: int, chunk: int) -> list[dict]:
    """One cell per (jobs, slack, cv_mem, cv_cpu, chunk of ``chunk`` replicates)."""
    out = []
    for jobs in job_counts:
        for slack in slacks:
            for cv_mem, cv_cpu in cvs:
                for start in range(0, reps, chunk):
                    out.append({"set": set_name, "jobs": int(jobs), "slack": float(slack), "cv_mem": float(cv_mem),
                                "cv_cpu": float(cv_cpu), "rep_start": start, "reps": min(chunk, reps - start),
                                "root_seed": INSTANCE_ROOT_SEED})
    return out


def cells(quick: bool) -> list[dict]:
    """Full: the 144 specs x 10 replicates. Quick: 6 and 10 jobs, equal CVs, 1 replicate (36 instances)."""
    from vcsched.generators.vc import CVS, INSTANCE_SETS, SLACKS

    _, job_counts, reps, _ = INSTANCE_SETS["small"]
    if quick:
        return spec_cells("small", job_counts=(6, 10), slacks=SLACKS, cvs=[(0.25, 0.25), (0.75, 0.75)],
                          reps=1, chunk=1)
    return spec_cells("small", job_counts=job_counts, slacks=SLACKS, cvs=[(a, b) for a in CVS for b in CVS],
                      reps=reps, chunk=reps)


# --------------------------------------------------------------------------- running


def _nan(x) -> float:
    return float("nan") if x is None else float(x)


def _result_row(method: str, result, lp_seconds: float = float("nan")) -> dict:
    has = result.status.has_solution
    extra = dict(result.extra or {})
    first = extra.get("seconds_first_phase", result.seconds)
    return {
        "method": method,
        "status": result.status.value,
        "success": int(has),
        "min_yield": _nan(result.objective) if has else float("nan"),
        "avg_yield": _nan(extra.get("avg_yield")) if has else float("nan"),
        "seconds": float(result.seconds),
        "seconds_first_phase": float(first),
        "lp_seconds": float(lp_seconds),
        "message": str(result.message or "")[:160],
    }


def evaluate_instance(instance, methods: Sequence[str], rng_seed: Sequence[int], *,
                      milp_time_limit: float = MILP_TIME_LIMIT) -> list[dict]:
    """Run ``methods`` (names of heuristics, ``"milp"``, ``"lp"``) on one instance.

    The LP relaxation is solved once when ``lp``, ``rrnd`` or ``rrnz`` is
    asked and passed to the rounding heuristics. Randomized heuristics get
    ``np.random.default_rng([*rng_seed, crc32(name)])``.
    """
    from heuristics.vc import REGISTRY
    from lowerbounds.vc import lp_relaxation
    from vcsched.formulations.vc_milp import solve_vc_milp

    rows = []
    lp = None
    if any(m in ("lp", "rrnd", "rrnz") for m in methods):
        lp = lp_relaxation(instance)
    for name in methods:
        if name == "lp":
            row = _result_row("lp", lp, lp.seconds)
            row["avg_yield"] = float("nan")  # the relaxation's average yield is not computed
        elif name == "milp":
            row = _result_row("milp", solve_vc_milp(instance, time_limit=milp_time_limit))
        else:
            rng = np.random.default_rng([*map(int, rng_seed), zlib.crc32(name.encode())])
            kwargs = {"lp": lp} if name in ("rrnd", "rrnz") else {}
            res = REGISTRY.get(name)(instance, rng=rng, **kwargs)
            row = _result_row(name, res, lp.seconds if kwargs else float("nan"))
        rows.append(row)
    return rows


def run_spec_cell(params: dict, seed: int, methods: Sequence[str], *, tasks: str | None = None,
                  milp_time_limit: float = MILP_TIME_LIMIT) -> list[dict]:
    """Build the cell's instances (fixed root seed) and evaluate ``methods`` on each."""
    from vcsched.generators.vc import INSTANCE_SETS, VCSpec, build_instance

    hosts = INSTANCE_SETS[params["set"]][0]
    rows = []
    for rep in range(params["rep_start"], params["rep_start"] + params["reps"]):
        spec = VCSpec(params["set"], hosts, params["jobs"], params["slack"], params["cv_mem"], params["cv_cpu"],
                      rep, tasks)
        inst = build_instance(spec, params["root_seed"])
        for row in evaluate_instance(inst, methods, (seed, rep), milp_time_limit=milp_time_limit):
            rows.append({"instance_rep": rep, "tasks": inst.n_tasks, **row})
    return rows


def run_cell(params: dict, seed: int) -> list[dict]:
    """MILP, LP and the fourteen heuristics on the cell's small instances."""
    from heuristics.vc import REGISTRY

    return run_spec_cell(params, seed, ["milp", "lp", *REGISTRY.names()])


# --------------------------------------------------------------------------- analysis


def _key(df: "pandas.DataFrame") -> list[str]:
    return [c for c in ("jobs", "slack", "cv_mem", "cv_cpu", "instance_rep") if c in df.columns]


def _wide(df: "pandas.DataFrame", value: str = "min_yield") -> "pandas.DataFrame":
    """Instances x methods table of ``value`` (NaN where the method failed)."""
    return df.set_index(_key(df) + ["method"])[value].unstack("method")


def degradation_table(df: "pandas.DataFrame", methods: Sequence[str] = MCB,
                      paper: dict | None = None) -> "pandas.DataFrame":
    """Table 1 / Fig. 7: average and maximum % degradation from the best MCB, per MCB."""
    import pandas as pd

    wide = _wide(df[df["method"].isin(methods)])
    best = wide.max(axis=1)
    rows = []
    for m in methods:
        if m not in wide:
            continue
        ok = wide[m].notna() & (best > 0)
        deg = 100.0 * (best[ok] - wide[m][ok]) / best[ok]
        row = {"algorithm": m, "solved": int(ok.sum()), "avg_deg_pct": deg.mean(), "max_deg_pct": deg.max(),
               "over_3pct": int((deg > 3).sum()), "over_10pct": int((deg > 10).sum())}
        if paper:
            row["paper_avg"], row["paper_max"] = paper.get(m, (math.nan, math.nan))
        rows.append(row)
    return pd.DataFrame(rows).sort_values("avg_deg_pct", kind="stable").reset_index(drop=True)


def slack_table(df: "pandas.DataFrame", methods: Sequence[str]) -> "pandas.DataFrame":
    """Per method and slack: mean min yield and avg yield over successes, failure rate (Figs 2-4, 11-13)."""
    sub = df[df["method"].isin(methods)]
    g = sub.groupby(["method", "slack"], as_index=False)
    out = g.agg(instances=("success", "size"), min_yield=("min_yield", "mean"), avg_yield=("avg_yield", "mean"),
                failure_rate=("success", lambda s: 1.0 - s.mean()))
    return out


def _runtime(df: "pandas.DataFrame") -> "pandas.Series":
    """Seconds without the average-yield phase; RRND/RRNZ include the shared LP."""
    t = df["seconds_first_phase"].astype(float).copy()
    rr = df["method"].isin(["rrnd", "rrnz"])
    t[rr] = t[rr] + df.loc[rr, "lp_seconds"].astype(float)
    return t


def runtime_table(df: "pandas.DataFrame", methods: Sequence[str]) -> "pandas.DataFrame":
    """Per method and number of jobs: mean, median and max run time in ms (Figs 5, 10, 14, 18, 22)."""
    sub = df[df["method"].isin(methods)].copy()
    sub["ms"] = 1e3 * _runtime(sub)
    return sub.groupby(["method", "jobs"], as_index=False).agg(
        mean_ms=("ms", "mean"), median_ms=("ms", "median"), max_ms=("ms", "max"))


def above_pct(df: "pandas.DataFrame", upper: str, lower: str, *, where=None) -> float:
    """``100 (mean upper / mean lower - 1)`` over the instances both solved (optionally filtered)."""
    sub = df if where is None else df[where(df)]
    wide = _wide(sub[sub["method"].isin([upper, lower])])
    if upper not in wide or lower not in wide:
        return math.nan
    both = wide[[upper, lower]].dropna()
    if both.empty:
        return math.nan
    return 100.0 * (both[upper].mean() / both[lower].mean() - 1.0)


def feasible_failures(df: "pandas.DataFrame", methods: Sequence[str]) -> dict:
    """Failures of each method on the instances the MILP proved feasible."""
    wide = _wide(df, "success")
    if "milp" not in wide:
        return {}
    feas = wide["milp"] == 1
    return {m: int((wide.loc[feas, m] == 0).sum()) for m in methods if m in wide}


def slack_figures(df: "pandas.DataFrame", out_dir: pathlib.Path, methods: Sequence[str], *, label: str,
                  numbers: tuple[int, int, int, int], highlight: Sequence[str] = ("milp", "lp")) -> list[pathlib.Path]:
    """Min yield, avg yield, failure rate vs slack and run time vs jobs (one PNG each)."""
    sub = df[df["method"].isin(methods)].copy()
    sub["failure_rate"] = 1.0 - sub["success"].astype(float)
    sub["ms"] = 1e3 * _runtime(sub)
    order = [m for m in methods]
    paths = []
    specs = [
        ("min_yield", "slack", "minimum yield (mean over solved instances)", "Minimum yield vs slack", False),
        ("avg_yield", "slack", "average yield (mean over solved instances)", "Average yield vs slack", False),
        ("failure_rate", "slack", "failure rate (fraction of instances)", "Failure rate vs slack", False),
        ("ms", "jobs", "run time per instance (ms, log scale, no avg-yield phase)", "Run time vs number of jobs",
         True),
    ]
    for number, (col, x, ylabel, title, logy) in zip(numbers, specs):
        data = sub if col != "ms" else sub[sub["method"] != "lp"]
        data = data[data[col].notna()] if col in ("min_yield", "avg_yield") else data
        if data.empty:
            continue
        paths.append(line_plot(data, x=x, y=col, series="method", out_dir=out_dir,
                               stem=f"fig{number:02d}_{col}_vs_{x}", xlabel="memory slack" if x == "slack" else
                               "number of jobs", ylabel=ylabel, title=f"Fig. {number} ({label}): {title}",
                               logy=logy, series_order=order, highlight=[h for h in highlight if h in methods]))
    return paths


def headline_table(items: list[tuple[str, float, str, str]]) -> "pandas.DataFrame":
    import pandas as pd

    return pd.DataFrame([{"headline": h, "ours": o, "paper": p, "note": n} for h, o, p, n in items])


# --------------------------------------------------------------------------- report


def report(df: "pandas.DataFrame", out_dir: pathlib.Path) -> str:
    """Table 1, Figs 2-5 and 11-14, and the headline numbers beside the paper's."""
    out_dir = pathlib.Path(out_dir)
    df = df[df["cell_status"] == "ok"] if "cell_status" in df.columns else df
    deg = degradation_table(df, MCB, PAPER_TABLE1)
    save_table(deg, out_dir, "table1_mcb_degradation", title="Table 1: % degradation from best MCB (small)")
    save_table(slack_table(df, MCB + OVERALL), out_dir, "by_slack", title="Per method and slack (small)")
    save_table(runtime_table(df, MCB + OVERALL), out_dir, "runtime_by_jobs", title="Run time (small)")
    slack_figures(df, out_dir, MCB, label="MCB, small", numbers=(2, 3, 4, 5), highlight=("mcb8",))
    slack_figures(df, out_dir, OVERALL, label="small", numbers=(11, 12, 13, 14))

    n_inst = len(_wide(df, "success"))
    statuses = df[df["method"] == "milp"]["status"].value_counts().to_dict()
    ff = feasible_failures(df, ["gb", "sgb", "mcb8", "sg", "gr", "rrnd", "rrnz"])
    mcb8 = deg.set_index("algorithm").loc["mcb8"] if "mcb8" in set(deg["algorithm"]) else None
    greedy = [above_pct(df, "milp", g) for g in ("gr", "sg", "gb", "sgb")]
    items = [
        ("instances", n_inst, 1440, ""),
        ("MCB8 avg % degradation from best MCB", mcb8["avg_deg_pct"] if mcb8 is not None else math.nan, 1.06, ""),
        ("MCB8 max % degradation", mcb8["max_deg_pct"] if mcb8 is not None else math.nan, 40.45, ""),
        ("MILP % above MCB8 (min yield)", above_pct(df, "milp", "mcb8"), 2.0, "paper: 'about 2%'"),
        ("MILP % above greedy (GR, SG, GB, SGB: min..max)", f"{np.nanmin(greedy):.1f}..{np.nanmax(greedy):.1f}",
         "11..13", ""),
        ("LP % above MILP", above_pct(df, "lp", "milp"), 4.0, "paper: 'about 4%'"),
        ("infeasible instances (MILP)", statuses.get("infeasible", 0), 60, "GLPK could not find a solution"),
        ("MILP instances not proven", n_inst - statuses.get("infeasible", 0) - statuses.get("optimal", 0), 0, ""),
    ] + [(f"{m.upper()} failures on feasible instances", v, {"gb": 0, "sgb": 0, "mcb8": 1, "sg": 15}.get(m, "-"), "")
         for m, v in ff.items()]
    heads = headline_table(items)
    save_table(heads, out_dir, "headlines", title="vc-small: ours vs seed 001")
    return "vc-small (seed 001 §4.2.1-4.2.2)\n" + text_table(heads) + "\nTable 1 (ours vs paper)\n" + text_table(
        deg[["algorithm", "solved", "avg_deg_pct", "max_deg_pct", "paper_avg", "paper_max"]])


EXPERIMENT = Experiment(
    name="vc-small",
    description="seed 001 small set (1,440 instances): MCB1-8 Table 1, Figs 2-5; all heuristics vs MILP/LP, Figs 11-14",
    cells=cells,
    run_cell=run_cell,
    report=report,
)
