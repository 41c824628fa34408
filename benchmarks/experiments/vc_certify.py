"""``vc-certify``: certified optima on the large set: MCB8's gap to the truth, not to the LP.

Seed 001 §4.2.3 (Figs 7, 8, 15-18) measures MCB8 against the LP relaxation
``min(1, H / sum alpha)``, which ignores memory and integrality. Here every
instance is also solved by ``certify`` (:func:`lowerbounds.vc.certification.certify`,
wired as on the command line: MCB8, SG and GR placements, the core greedy,
:func:`heuristics.vc.improve.improve_placement`), which returns the best
allocation it finds and a proven upper bound.

Instances: the whole large set, every one of its 108 specifications with
replicates 0-99 (10,800 instances), built by
:func:`vcsched.generators.vc.build_instance` with root seed 0 exactly as in
``vc-large``. One cell = one instance, ordered replicate first, so that an
interrupted run (``--resume`` continues it) has covered every specification
as evenly as possible: its first 1,080 cells are the *stratified tenth*
(replicates 0-9), which ``vc-certify-tenth`` runs alone. Each instance gets :data:`TIME_LIMIT` seconds and
certify stops once the certified gap is ``<=`` :data:`STOP_GAP` (0.1 %, the
acceptance threshold; gaps ``<= 1e-4`` are reported ``optimal``).
Quick: four instances, 10 s each.

Rows per instance: ``lp`` (the §3.1 closed form, the LP relaxation's value),
``mcb8``, ``sg``, ``certify`` (with ``bound``, ``gap``, ``closed_by`` and the
timings of the parts: ``seconds_cheap_bounds``, ``seconds_heuristics``,
``seconds_improve``, ``seconds_configuration_lp``), and on every row
``instance_seconds``: the wall time of the whole instance (LP, MCB8, SG and
certify; certify reuses the MCB8 and SG placements), the time the report's
medians use.

Report, per slack and job count: mean LP bound, certified bound, best
allocation, MCB8, SG; MCB8's % below the certified bound and below the best
allocation (the true optimum lies between them) beside its % below the LP
(all ``100 (1 - mean MCB8 / mean X)`` over the instances where both exist,
as ``vc-large``), and MCB8's failures on instances certify solved; the fraction closed (optimal, infeasible, gap <= 0.1 %),
the remaining gaps, median time, and the timings of the parts per job count.
Figure: MCB8's % below the certified bound and below the LP vs slack.
"""

from __future__ import annotations

import functools
import math
import pathlib
import time
import zlib
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import ci95_half, save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "make_cells", "run_instance", "certify_experiment",
           "TIME_LIMIT", "STOP_GAP", "FULL_REPLICATES"]

TIME_LIMIT = 60.0
STOP_GAP = 1e-3
PARTS = ("seconds_cheap_bounds", "seconds_heuristics", "seconds_improve", "seconds_configuration_lp",
         "seconds_integer_master", "seconds_dive")
FULL_REPLICATES = 100
"""Replicates per specification in the large set (seed 001 §4.2: 108 specs x 100 = 10,800 instances)."""
QUICK = [(100, 0.2, 0.25, 0.75), (250, 0.5, 0.25, 0.25), (500, 0.3, 0.75, 0.75), (100, 0.1, 0.75, 0.25)]


def make_cells(set_name: str, quick: bool, *, reps: int = 10, stop_gap: float = STOP_GAP) -> list[dict]:
    """One cell per instance, replicates ``0..reps-1``; replicate first, then jobs, slack, CVs (the set's order)."""
    from vcsched.generators.vc import CVS, INSTANCE_SETS, SLACKS

    _, job_counts, _, _ = INSTANCE_SETS[set_name]
    base = {"set": set_name, "root_seed": 0, "stop_gap": stop_gap}
    if quick:
        return [{**base, "jobs": j, "slack": s, "cv_mem": cm, "cv_cpu": cc, "rep": 0, "time_limit": 10.0}
                for j, s, cm, cc in QUICK]
    return [{**base, "jobs": int(j), "slack": float(s), "cv_mem": float(cm), "cv_cpu": float(cc), "rep": r,
             "time_limit": TIME_LIMIT}
            for r in range(reps) for j in job_counts for s in SLACKS for cm in CVS for cc in CVS]


def cells(quick: bool) -> list[dict]:
    """Full: the whole large set (108 specs x replicates 0-99). Quick: 4 instances."""
    return make_cells("large", quick, reps=FULL_REPLICATES)



def _row(method: str, result) -> dict:
    has = result.status.has_solution
    extra = dict(result.extra or {})
    row = {
        "method": method,
        "status": result.status.value,
        "min_yield": float(result.objective) if has and result.objective is not None else math.nan,
        "bound": math.nan if result.bound is None else float(result.bound),
        "gap": math.nan if result.gap is None else float(result.gap),
        "seconds": float(result.seconds),
        "closed_by": str(extra.get("closed_by", "")),
        "message": str(result.message or "")[:160],
    }
    for part in PARTS:
        row[part] = float(extra.get(part, math.nan))
    row["lp_tests"] = int(extra.get("lp_tests", 0))
    row["start_yield"] = float(extra.get("start_yield") or math.nan)
    return row


def run_instance(inst, params: dict, seed: int) -> list[dict]:
    """LP closed form, MCB8, SG and certify (started from MCB8's and SG's placements) on one instance."""
    from heuristics.vc import REGISTRY
    from heuristics.vc.improve import improve_placement
    from lowerbounds.vc import closed_form_bound
    from lowerbounds.vc.certification import certify

    rng = np.random.default_rng([seed, zlib.crc32(b"certify")])
    t0 = time.perf_counter()
    lp = closed_form_bound(inst)
    mcb8 = REGISTRY.get("mcb8")(inst)
    sg = REGISTRY.get("sg")(inst)
    cert = certify(inst, heuristics=[REGISTRY.get("gr")], starts=[mcb8, sg], improve=improve_placement,
                   time_limit=float(params["time_limit"]), stop_gap=float(params["stop_gap"]), rng=rng)
    rows = [_row("lp", lp), _row("mcb8", mcb8), _row("sg", sg), _row("certify", cert)]
    total = time.perf_counter() - t0
    for r in rows:
        r["tasks"] = inst.n_tasks
        r["instance_seconds"] = total
    return rows


def run_cell(params: dict, seed: int) -> list[dict]:
    """Build the cell's instance (root seed 0, as vc-large) and run :func:`run_instance`."""
    from vcsched.generators.vc import INSTANCE_SETS, VCSpec, build_instance

    hosts, _, _, tasks = INSTANCE_SETS[params["set"]]
    spec = VCSpec(params["set"], hosts, params["jobs"], params["slack"], params["cv_mem"], params["cv_cpu"],
                  params["rep"], tasks)
    return run_instance(build_instance(spec, params["root_seed"]), params, seed)


# --------------------------------------------------------------------------- analysis


def _wide(df: pandas.DataFrame) -> pandas.DataFrame:
    """One row per instance: yields of lp, mcb8, sg, certify, the certified bound, status, gap, seconds."""
    key = ["jobs", "slack", "cv_mem", "cv_cpu", "rep"]
    wide = df.set_index(key + ["method"])["min_yield"].unstack("method")
    cert = df[df["method"] == "certify"].set_index(key)
    wide["certified_bound"] = cert["bound"]
    wide["status"] = cert["status"]
    wide["gap"] = cert["gap"]
    wide["seconds"] = cert["instance_seconds"]
    wide["closed_by"] = cert["closed_by"]
    for part in PARTS:  # a part newer than the run's code is missing from its rows
        wide[part] = cert[part] if part in cert else math.nan
    return wide.reset_index()


def _below(wide: pandas.DataFrame, method: str, ref: str) -> float:
    both = wide[[method, ref]].dropna()
    if both.empty or both[ref].mean() <= 0:
        return math.nan
    return 100.0 * (1.0 - both[method].mean() / both[ref].mean())


def closure_table(wide: pandas.DataFrame, by: list[str], stop_gap: float = STOP_GAP) -> pandas.DataFrame:
    """Per group: instances, fractions optimal / infeasible / gap <= stop_gap, the rest, median and max gap, median s."""
    import pandas as pd

    rows = []
    for key, g in wide.groupby(by):
        key = key if isinstance(key, tuple) else (key,)
        closed = (g["status"] == "optimal") | (g["status"] == "infeasible") | (g["gap"] <= stop_gap + 1e-12)
        open_gaps = g.loc[~closed, "gap"].dropna()
        rows.append({**dict(zip(by, key)), "instances": len(g), "optimal": float((g["status"] == "optimal").mean()),
                     "infeasible": float((g["status"] == "infeasible").mean()),
                     "gap_le_0.1pct": float(closed.mean()),
                     "open": int((~closed).sum()),
                     "open_median_gap_pct": 100 * float(open_gaps.median()) if len(open_gaps) else math.nan,
                     "open_max_gap_pct": 100 * float(open_gaps.max()) if len(open_gaps) else math.nan,
                     "median_s": float(g["seconds"].median())})
    return pd.DataFrame(rows)


def yields_table(wide: pandas.DataFrame) -> pandas.DataFrame:
    """Per slack and job count: mean LP bound, certified bound, best allocation, MCB8, SG and MCB8's % below each."""
    import pandas as pd

    rows = []
    for (slack, jobs), g in wide.groupby(["slack", "jobs"]):
        feas = g[g["status"] != "infeasible"]
        rows.append({
            "slack": slack, "jobs": jobs, "instances": len(g),
            "lp": feas["lp"].mean() if "lp" in feas else math.nan,
            "certified_bound": feas["certified_bound"].mean(), "best": feas["certify"].mean(),
            "mcb8": feas["mcb8"].mean(), "sg": feas["sg"].mean(),
            "mcb8_failed": int((feas["mcb8"].isna() & feas["certify"].notna()).sum()),
            "mcb8_below_bound_pct": _below(feas, "mcb8", "certified_bound"),
            "mcb8_below_best_pct": _below(feas, "mcb8", "certify"),
            "mcb8_below_lp_pct": _below(feas, "mcb8", "lp") if "lp" in feas else math.nan,
            "n": int(feas["mcb8"].notna().sum()), "mcb8_ci95": ci95_half(feas["mcb8"]),
        })
    return pd.DataFrame(rows)


def parts_table(wide: pandas.DataFrame) -> pandas.DataFrame:
    """Per job count: median and max seconds of the whole method and of each part."""
    agg = {"total_median_s": ("seconds", "median"), "total_max_s": ("seconds", "max")}
    for part in PARTS:
        name = part.replace("seconds_", "")
        agg[f"{name}_median_s"] = (part, "median")
        agg[f"{name}_max_s"] = (part, "max")
    return wide.groupby("jobs", as_index=False).agg(**agg)


def gap_figure(wide: pandas.DataFrame, out_dir: pathlib.Path, stem: str, label: str) -> pathlib.Path | None:
    """MCB8's % below the certified bound and the best allocation vs slack, next to its % below the LP
    (per instance ``100 (1 - mcb8 / reference)``, mean and 95 % interval over the feasible instances)."""
    import pandas as pd

    feas = wide[wide["status"] != "infeasible"]
    frames = []
    for ref, name in (("lp", "below the LP bound"), ("certified_bound", "below the certified bound"),
                      ("certify", "below the best allocation")):
        if ref in feas:
            ok = feas[feas[ref] > 0]
            frames.append(pd.DataFrame({"slack": ok["slack"], "versus": name,
                                        "pct": 100.0 * (1.0 - ok["mcb8"] / ok[ref])}))
    data = pd.concat(frames).dropna() if frames else pd.DataFrame()
    if data.empty:
        return None
    return line_plot(data, x="slack", y="pct", series="versus", out_dir=out_dir, stem=stem, xlabel="memory slack",
                     ylabel="MCB8 % below (mean over feasible instances)",
                     title=f"MCB8's gap to the certified optimum vs to the LP ({label})",
                     series_order=["below the LP bound", "below the certified bound", "below the best allocation"],
                     highlight=["below the certified bound"], unit="instances")


def summarize(df: pandas.DataFrame, out_dir: pathlib.Path, label: str) -> str:
    """Tables and the figure shared by ``vc-certify`` and ``vc-certify-parallel``; ``label`` names the
    instance set, the number of instances is appended."""
    out_dir = pathlib.Path(out_dir)
    df = df[df["cell_status"] == "ok"] if "cell_status" in df.columns else df
    label = f"{label}, {_instance_count(df)} instances"
    wide = _wide(df)
    closure = closure_table(wide, ["slack", "jobs"])
    save_table(closure, out_dir, "closure_by_slack_jobs", title=f"certify: closed instances per slack and jobs ({label})")
    overall = closure_table(wide.assign(all="all"), ["all"])
    save_table(overall, out_dir, "closure_overall", title=f"certify: closed instances ({label})")
    yields = yields_table(wide)
    save_table(yields, out_dir, "yields_by_slack_jobs", title=f"Bounds, allocations and MCB8's gaps ({label})")
    parts = parts_table(wide)
    save_table(parts, out_dir, "parts_by_jobs", title=f"certify: time of the parts per job count ({label})")
    save_table(wide["closed_by"].value_counts().rename_axis("closed_by").reset_index(), out_dir, "closed_by",
               title="Which bound closed the gap")
    gap_figure(wide, out_dir, "mcb8_gap_vs_slack", label)
    return (f"vc-certify ({label})\n" + text_table(overall) + "\nper slack and jobs\n" + text_table(closure)
            + "\nyields\n" + text_table(yields) + "\nparts\n" + text_table(parts))


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    return summarize(df, out_dir, "large set")


def certify_experiment(name: str, description: str, set_name: str, label: str, *, reps: int = 10,
                       stop_gap: float = STOP_GAP) -> Experiment:
    """A sibling of ``vc-certify``: the same rows and report on another slice of a set
    (``set_name``, replicates ``0..reps-1``, certify stopping at ``stop_gap``)."""
    return Experiment(name=name, description=description,
                      cells=functools.partial(make_cells, set_name, reps=reps, stop_gap=stop_gap),
                      run_cell=run_cell, report=functools.partial(summarize, label=label))


def _instance_count(df: pandas.DataFrame) -> int:
    """Distinct instances in the rows (cell parameters and replicate)."""
    key = [c for c in ("jobs", "slack", "cv_mem", "cv_cpu", "rep", "instance_rep") if c in df.columns]
    return int(len(df.drop_duplicates(key))) if key else int(len(df))


EXPERIMENT = Experiment("vc-certify", "certified optima on the whole large set (10,800 instances): MCB8's gap to the "
                        "truth vs to the LP", cells, run_cell, report)
