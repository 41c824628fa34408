"""Shared running and report helpers of the VCSched experiments (``vc-small``, ``vc-large``, ``vc-parallel``).

Cells are problem specifications (jobs, slack, CVs) with a chunk of
replicates; every instance is :func:`vcsched.generators.vc.build_instance`
of its spec with the fixed root seed :data:`INSTANCE_ROOT_SEED`, so every
method and every experiment sees the same instances. Rows (one per instance
x method): ``instance_rep``, ``tasks``, ``method``, ``status``, ``success``
(0/1), ``min_yield`` and ``avg_yield`` (NaN without a solution), ``seconds``
(whole call, incl. the average-yield phase), ``seconds_first_phase``
(without it, as the paper reports; for RRND/RRNZ the rounding only),
``lp_seconds`` (the shared LP, RRND/RRNZ and LP rows), ``message``.

Definitions used by the reports (the paper is terse):

* *% degradation from best* (Table 1, Fig. 7): per instance, best = the
  largest min yield over the MCB variants that succeeded; an MCB that
  succeeded scores ``100 (best - its yield) / best``; averages and maxima are
  over the instances it solved (:func:`degradation_table`).
* *X % above Y*: ``100 (mean_X / mean_Y - 1)`` over the instances both
  solved (:func:`above_pct`); *% below the bound*: ``100 (1 - mean_X /
  mean_bound)`` (:func:`below_bound_pct`).
* run time of RRND/RRNZ = LP time + rounding (the paper's includes GLPK).

The module name starts with ``_``: it is not an experiment.
"""

from __future__ import annotations

import math
import pathlib
import zlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.figures import line_plot
from benchmarks.tables import ci95_half, with_intervals

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = [
    "INSTANCE_ROOT_SEED",
    "MCB",
    "MILP_TIME_LIMIT",
    "spec_cells",
    "evaluate_instance",
    "run_spec_cell",
    "ok_rows",
    "by_instance",
    "degradation_table",
    "slack_table",
    "runtime_table",
    "above_pct",
    "below_bound_pct",
    "feasible_failures",
    "slack_figures",
    "headline_table",
    "median_ms",
    "both_solved",
]

INSTANCE_ROOT_SEED = 0
"""Root seed of :func:`build_instance` for every VC experiment: the canonical instance sets."""

MCB = tuple(f"mcb{v}" for v in range(1, 9))
MILP_TIME_LIMIT = 600.0
"""Seconds per instance for the compact MILP (``milp``) in the VC experiments, ``vc-milp`` included."""


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


# --------------------------------------------------------------------------- analysis


def _instance_key(df: pandas.DataFrame) -> list[str]:
    return [c for c in ("jobs", "slack", "cv_mem", "cv_cpu", "instance_rep") if c in df.columns]


def ok_rows(df: pandas.DataFrame) -> pandas.DataFrame:
    """The rows of the cells that ran (``cell_status == "ok"`` when the harness recorded it)."""
    return df[df["cell_status"] == "ok"] if "cell_status" in df.columns else df


def by_instance(df: pandas.DataFrame, value: str = "min_yield") -> pandas.DataFrame:
    """Instances x methods table of ``value`` (NaN where the method failed)."""
    return df.set_index(_instance_key(df) + ["method"])[value].unstack("method")


def degradation_table(df: pandas.DataFrame, methods: Sequence[str] = MCB,
                      paper: dict | None = None) -> pandas.DataFrame:
    """Table 1 / Fig. 7: average and maximum % degradation from the best MCB, per MCB."""
    import pandas as pd

    wide = by_instance(df[df["method"].isin(methods)])
    best = wide.max(axis=1)
    rows = []
    for m in methods:
        if m not in wide:
            continue
        ok = wide[m].notna() & (best > 0)
        deg = 100.0 * (best[ok] - wide[m][ok]) / best[ok]
        row = {"algorithm": m, "solved": int(ok.sum()), "avg_deg_pct": deg.mean(), "max_deg_pct": deg.max(),
               "over_3pct": int((deg > 3).sum()), "over_10pct": int((deg > 10).sum()),
               "n": int(ok.sum()), "ci95": ci95_half(deg)}
        if paper:
            row["paper_avg"], row["paper_max"] = paper.get(m, (math.nan, math.nan))
        rows.append(row)
    return pd.DataFrame(rows).sort_values("avg_deg_pct", kind="stable").reset_index(drop=True)


def slack_table(df: pandas.DataFrame, methods: Sequence[str]) -> pandas.DataFrame:
    """Per method and slack: mean min yield and avg yield over successes, failure rate (Figs 2-4, 11-13),
    each with its count and 95 % interval (``min_yield_n``, ``min_yield_ci95``...)."""
    sub = df[df["method"].isin(methods)].assign(failure_rate=lambda d: 1.0 - d["success"].astype(float))
    g = sub.groupby(["method", "slack"], as_index=False)
    out = g.agg(instances=("success", "size"), min_yield=("min_yield", "mean"), avg_yield=("avg_yield", "mean"),
                failure_rate=("success", lambda s: 1.0 - s.mean()))
    return with_intervals(out, sub, ["method", "slack"], ["min_yield", "avg_yield", "failure_rate"])


def _runtime(df: pandas.DataFrame) -> pandas.Series:
    """Seconds without the average-yield phase; RRND/RRNZ include the shared LP."""
    t = df["seconds_first_phase"].astype(float).copy()
    rr = df["method"].isin(["rrnd", "rrnz"])
    t[rr] = t[rr] + df.loc[rr, "lp_seconds"].astype(float)
    return t


def runtime_table(df: pandas.DataFrame, methods: Sequence[str]) -> pandas.DataFrame:
    """Per method and number of jobs: mean, median and max run time in ms (Figs 5, 10, 14, 18, 22),
    with ``n`` (instances) and ``ci95`` (half-width of the mean's 95 % interval)."""
    sub = df[df["method"].isin(methods)].copy()
    sub["ms"] = 1e3 * _runtime(sub)
    out = sub.groupby(["method", "jobs"], as_index=False).agg(
        mean_ms=("ms", "mean"), median_ms=("ms", "median"), max_ms=("ms", "max"))
    return with_intervals(out, sub.rename(columns={"ms": "mean_ms"}), ["method", "jobs"], "mean_ms")


def _paired_means(df: pandas.DataFrame, first: str, second: str, where) -> tuple[float, float] | None:
    """Mean value of two methods over the instances both solved (optionally filtered); None if there are none."""
    sub = df if where is None else df[where(df)]
    wide = by_instance(sub[sub["method"].isin([first, second])])
    if first not in wide or second not in wide:
        return None
    both = wide[[first, second]].dropna()
    return None if both.empty else (both[first].mean(), both[second].mean())


def above_pct(df: pandas.DataFrame, upper: str, lower: str, *, where=None) -> float:
    """``100 (mean upper / mean lower - 1)`` over the instances both solved (optionally filtered)."""
    means = _paired_means(df, upper, lower, where)
    return math.nan if means is None else 100.0 * (means[0] / means[1] - 1.0)


def below_bound_pct(df: pandas.DataFrame, method: str, bound: str = "lp", *, where=None) -> float:
    """``100 (1 - mean method / mean bound)`` over instances both solved: how far below the bound."""
    means = _paired_means(df, method, bound, where)
    return math.nan if means is None else 100.0 * (1.0 - means[0] / means[1])


def both_solved(df: pandas.DataFrame, a: str, b: str, *, where=None) -> int:
    """How many instances ``a`` and ``b`` both solved: the count behind :func:`above_pct` and
    :func:`below_bound_pct`."""
    sub = df if where is None else df[where(df)]
    wide = by_instance(sub[sub["method"].isin([a, b])])
    return int(len(wide[[a, b]].dropna())) if a in wide and b in wide else 0


def median_ms(df: pandas.DataFrame, method: str, jobs: int) -> float:
    """Median first-phase run time of ``method`` on the instances with ``jobs`` jobs, in ms."""
    sub = df[(df["method"] == method) & (df["jobs"] == jobs)]
    return 1e3 * float(sub["seconds_first_phase"].median()) if len(sub) else math.nan


def feasible_failures(df: pandas.DataFrame, methods: Sequence[str]) -> dict:
    """Failures of each method on the instances the MILP proved feasible."""
    wide = by_instance(df, "success")
    if "milp" not in wide:
        return {}
    feas = wide["milp"] == 1
    return {m: int((wide.loc[feas, m] == 0).sum()) for m in methods if m in wide}


def slack_figures(df: pandas.DataFrame, out_dir: pathlib.Path, methods: Sequence[str], *, label: str,
                  numbers: tuple[int, int, int, int], highlight: Sequence[str] = ("milp", "lp")) -> list[pathlib.Path]:
    """Min yield, avg yield, failure rate vs slack and run time vs jobs (one PNG each)."""
    sub = df[df["method"].isin(methods)].copy()
    sub["failure_rate"] = 1.0 - sub["success"].astype(float)
    sub["ms"] = 1e3 * _runtime(sub)
    order = list(methods)
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
                               logy=logy, series_order=order, highlight=[h for h in highlight if h in methods],
                               unit="instances"))
    return paths


def headline_table(items: list[tuple]) -> pandas.DataFrame:
    """Rows ``(headline, ours, paper, note)`` or ``(headline, ours, paper, note, n, ci95)`` as a table.

    ``n`` is how many instances or runs the number aggregates and ``ci95`` the half-width of its
    95 % interval when it is a mean (``-`` when not given: counts, ratios of means, ranges).
    """
    import pandas as pd

    rows = []
    for item in items:
        h, o, p, note, *rest = item
        n, ci = (list(rest) + ["-", "-"])[:2]
        rows.append({"headline": h, "ours": o, "paper": p, "note": note, "n": n, "ci95": ci})
    return pd.DataFrame(rows)


def headline_report(items: list[tuple], deg: pandas.DataFrame, out_dir: pathlib.Path, *, name: str,
                    table: str) -> str:
    """Save the headlines (:func:`headline_table`) and return the report's text: ``name``'s headlines
    against seed 001, then the degradation table ``deg`` beside the paper's ``table``."""
    from benchmarks.tables import save_table, text_table

    heads = headline_table(items)
    save_table(heads, out_dir, "headlines", title=f"{name.split()[0]}: ours vs seed 001")
    return f"{name}\n" + text_table(heads) + f"\n{table} (ours vs paper)\n" + text_table(
        deg[["algorithm", "solved", "avg_deg_pct", "ci95", "max_deg_pct", "paper_avg", "paper_max"]])
