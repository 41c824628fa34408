"""``vc-milp``: the exact VCSched MILP on the whole small set, against the paper and the literal model.

Seed 001 §4.2: on the small set (4 hosts, 6-12 jobs, 144 specs x 10
replicates = 1,440 instances) GLPK took 28.7 s on average and 11,549 s at
most. Here every instance is solved by the compact model (HiGHS); the
literal model of eq. 3-11 is solved in the same process on a subset (the
first ``literal_reps`` replicates of each spec) so that the speed ratio is
measured on the same instances. A few cells time the LP relaxation at
64 hosts x 500 jobs, model build included, for both formulations.

Targets: all 1,440 proven optimal or infeasible; mean
compact time <= 0.025 s and >= 10x faster than the literal model on the same
instances; LP relaxation at 64 x 500 <= 1 s including the build.

Cells
-----
``kind="milp"``: one spec (``jobs, slack, cv_mem, cv_cpu``) with ``reps``
replicates; the instances are :func:`vcsched.generators.vc.build_instance`
of the spec with the cell's seed as root seed. ``kind="lp"``: one 64 x 500
instance (slack 0.5, CVs 0.25) and one ``lp_formulation``.

Rows: ``formulation`` (compact / literal), ``rep``, ``status``,
``min_yield``, ``seconds`` (whole call), ``build_seconds``,
``solve_seconds``; for ``kind="lp"`` also ``hosts``.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.experiments._vc_common import MILP_TIME_LIMIT
from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import ci95_half, save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "PAPER_GLPK_MEAN", "PAPER_GLPK_MAX"]

PAPER_GLPK_MEAN = 28.7
"""Seconds, mean GLPK time on the 1,440 small instances (seed 001 §4.2, Fig. 14 text)."""
PAPER_GLPK_MAX = 11549.29
"""Seconds, the slowest small instance with GLPK."""
TARGET_MEAN = 0.025
"""Seconds, the largest mean time of the compact model on the small set (the report's first target)."""
TARGET_RATIO = 10.0
"""How many times faster than the literal model the compact one must be on the same instances."""
TARGET_LP = 1.0
"""Seconds, the largest LP relaxation time at 64 hosts x 500 jobs, model build included."""
LITERAL_TIME_LIMIT = 120.0
"""Seconds per instance for the literal model (the compact one has :data:`MILP_TIME_LIMIT`)."""


def cells(quick: bool) -> list[dict]:
    """LP-timing cells first (the longest), then one cell per small-set spec.

    Full: 10 replicates per spec, the literal model on replicate 0 of every
    spec, 3 LP timings per formulation. Quick: 2 replicates, the literal
    model on replicate 0 of the specs with both CVs 0.25 and slack 0.2, 0.5
    or 0.8 (12 instances), 1 LP timing per formulation.
    """
    from vcsched.generators.vc import CVS, INSTANCE_SETS, SLACKS

    _, job_counts, full_reps, _ = INSTANCE_SETS["small"]
    out: list[dict] = []
    for formulation in ("compact", "literal"):
        for rep in range(1 if quick else 3):
            out.append({"kind": "lp", "jobs": 500, "slack": 0.5, "cv_mem": 0.25, "cv_cpu": 0.25, "rep": rep,
                        "lp_formulation": formulation})
    for jobs in job_counts:
        for slack in SLACKS:
            for cv_mem in CVS:
                for cv_cpu in CVS:
                    if quick:
                        lit = int(cv_mem == cv_cpu == 0.25 and slack in (0.2, 0.5, 0.8))
                    else:
                        lit = 1
                    out.append({"kind": "milp", "jobs": jobs, "slack": slack, "cv_mem": cv_mem, "cv_cpu": cv_cpu,
                                "reps": 2 if quick else full_reps, "literal_reps": lit})
    return out


def _milp_rows(params: dict, seed: int) -> list[dict]:
    from vcsched.formulations.vc_milp import solve_vc_milp
    from vcsched.generators.vc import INSTANCE_SETS, VCSpec, build_instance

    hosts = INSTANCE_SETS["small"][0]
    rows = []
    for rep in range(params["reps"]):
        spec = VCSpec("small", hosts, params["jobs"], params["slack"], params["cv_mem"], params["cv_cpu"], rep)
        inst = build_instance(spec, seed)
        forms = ["compact"] + (["literal"] if rep < params["literal_reps"] else [])
        for form in forms:
            limit = MILP_TIME_LIMIT if form == "compact" else LITERAL_TIME_LIMIT
            res = solve_vc_milp(inst, formulation=form, time_limit=limit, second_phase=False)
            rows.append(_row(form, rep, res))
    return rows


def _row(form: str, rep: int, res) -> dict:
    return {
        "formulation": form,
        "instance_rep": rep,
        "status": res.status.value,
        "min_yield": float(res.objective) if res.objective is not None else None,
        "seconds": float(res.seconds),
        "build_seconds": float(res.extra.get("build_seconds", np.nan)),
        "solve_seconds": float(res.extra.get("solve_seconds", np.nan)),
    }


def _lp_rows(params: dict, seed: int) -> list[dict]:
    from lowerbounds.vc import lp_relaxation
    from vcsched.generators.vc import INSTANCE_SETS, generate_vc_instance

    hosts = INSTANCE_SETS["large"][0]
    inst = generate_vc_instance(hosts, params["jobs"], params["slack"], params["cv_mem"], params["cv_cpu"],
                                rng=np.random.default_rng(seed))
    res = lp_relaxation(inst, formulation=params["lp_formulation"])
    row = _row(params["lp_formulation"], 0, res)
    row["hosts"] = hosts
    return [row]


def run_cell(params: dict, seed: int) -> list[dict]:
    """Solve the cell's instances (MILP cells) or time one LP relaxation (LP cells)."""
    if params["kind"] == "lp":
        return _lp_rows(params, seed)
    if params["kind"] == "milp":
        return _milp_rows(params, seed)
    raise ValueError(f"unknown cell kind {params['kind']!r}")


# --------------------------------------------------------------------------- report


def per_jobs_table(milp: pandas.DataFrame) -> pandas.DataFrame:
    """Per job count (and all): compact mean/max time, proven counts, literal mean/max and ratio on the same instances."""
    import pandas as pd

    out = []
    groups = [(str(j), g) for j, g in milp.groupby("jobs")] + [("all", milp)]
    for label, g in groups:
        comp = g[g["formulation"] == "compact"]
        lit = g[g["formulation"] == "literal"]
        key = ["cell", "instance_rep"]
        same = comp.merge(lit[key], on=key)  # compact rows of the instances the literal model also solved
        lit_ok = lit[lit["status"].isin(["optimal", "infeasible"])]
        out.append({
            "jobs": label,
            "instances": len(comp),
            "optimal": int((comp["status"] == "optimal").sum()),
            "infeasible": int((comp["status"] == "infeasible").sum()),
            "unproven": int((~comp["status"].isin(["optimal", "infeasible"])).sum()),
            "mean_s": comp["seconds"].mean(),
            "max_s": comp["seconds"].max(),
            "literal_instances": len(lit),
            "literal_unproven": int(len(lit) - len(lit_ok)),
            "literal_mean_s": lit["seconds"].mean() if len(lit) else float("nan"),
            "literal_max_s": lit["seconds"].max() if len(lit) else float("nan"),
            "compact_mean_same_s": same["seconds"].mean() if len(same) else float("nan"),
            "ratio_literal_compact": (lit["seconds"].mean() / same["seconds"].mean()) if len(same) and len(lit) else float("nan"),
            "n": int(comp["seconds"].count()), "ci95": ci95_half(comp["seconds"]),
        })
    table = pd.DataFrame(out)
    table["paper_glpk_mean_s"] = PAPER_GLPK_MEAN
    table["paper_glpk_max_s"] = PAPER_GLPK_MAX
    return table


def per_spec_table(milp: pandas.DataFrame) -> pandas.DataFrame:
    comp = milp[milp["formulation"] == "compact"]
    g = comp.groupby(["jobs", "slack", "cv_mem", "cv_cpu"], as_index=False)
    return g.agg(instances=("seconds", "size"), mean_s=("seconds", "mean"), max_s=("seconds", "max"),
                 optimal=("status", lambda s: int((s == "optimal").sum())),
                 infeasible=("status", lambda s: int((s == "infeasible").sum())))


def lp_table(lp: pandas.DataFrame) -> pandas.DataFrame:
    g = lp.astype({"hosts": int, "jobs": int}).groupby("formulation", as_index=False)
    return g.agg(hosts=("hosts", "first"), jobs=("jobs", "first"), runs=("seconds", "size"),
                 mean_s=("seconds", "mean"), max_s=("seconds", "max"), build_mean_s=("build_seconds", "mean"),
                 status=("status", lambda s: ",".join(sorted(set(s)))))


def _figure(milp: pandas.DataFrame, out_dir: pathlib.Path) -> pathlib.Path:
    import pandas as pd

    parts = []
    for form in ("compact", "literal"):
        sub = milp[milp["formulation"] == form]
        if sub.empty:
            continue
        stats = sub.groupby("jobs")["seconds"].agg(["mean", "max", "count", ci95_half]).reset_index()
        for stat in ("mean", "max"):
            parts.append(pd.DataFrame({"jobs": stats["jobs"], "seconds": stats[stat], "n": stats["count"],
                                       "ci95": stats["ci95_half"] if stat == "mean" else float("nan"),
                                       "series": f"{form} MILP, HiGHS ({stat})"}))
    data = pd.concat(parts, ignore_index=True)
    return line_plot(data, x="jobs", y="seconds", series="series", out_dir=out_dir, stem="milp_time_vs_jobs",
                     xlabel="number of jobs (4 hosts)", ylabel="solve time per instance (s, log scale)",
                     title="VCSched small set: exact MILP time per instance",
                     references=[(PAPER_GLPK_MEAN, f"paper, GLPK mean over all jobs ({PAPER_GLPK_MEAN} s)", "--"),
                                 (TARGET_MEAN, f"target mean ({TARGET_MEAN} s)", ":")],
                     logy=True, legend_loc="lower right", yerr="ci95", count="n", unit="instances",
                     statistic="mean")


def _verdict(met: bool, full: bool) -> str:
    """A timing target is judged on the full run only (a quick run's few instances say little)."""
    return ("met" if met else "NOT met") if full else "timing targets are judged on the full run"


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """Per-jobs and per-spec tables, LP timing table, the time-vs-jobs figure and the target checks."""
    ok = df[df["cell_status"] == "ok"] if "cell_status" in df else df
    lines = []
    failed = int(df.loc[df["cell_status"] == "error", "cell"].nunique()) if "cell_status" in df else 0
    if failed:
        lines.append(f"vc-milp: {failed} cell(s) failed (see the error column of results.csv)")
    milp = ok[ok["kind"] == "milp"]
    lp = ok[ok["kind"] == "lp"]
    if not milp.empty:
        jobs_t = per_jobs_table(milp)
        save_table(jobs_t, out_dir, "milp_by_jobs", title="Small set, exact MILP: compact vs literal vs paper (GLPK)")
        save_table(per_spec_table(milp), out_dir, "milp_by_spec", title="Small set, compact MILP per spec")
        _figure(milp, out_dir)
        shown = jobs_t[["jobs", "instances", "optimal", "infeasible", "unproven", "mean_s", "ci95", "max_s",
                        "literal_instances", "literal_mean_s", "literal_max_s", "ratio_literal_compact"]]
        lines.append("Exact MILP on the small set (paper, GLPK: mean 28.7 s, max 11,549 s)")
        lines.append(text_table(shown).rstrip("\n"))
        last = jobs_t.iloc[-1]
        full = bool((milp["reps"] >= 10).all()) if "reps" in milp else True
        proven = last["optimal"] + last["infeasible"]
        lines.append(f"target: all proven optimal or infeasible: {proven}/{last['instances']} "
                     f"({'met' if proven == last['instances'] else 'NOT met'})")
        lines.append(f"target: mean compact time <= {TARGET_MEAN} s: {last['mean_s']:.4f} s "
                     f"({_verdict(last['mean_s'] <= TARGET_MEAN, full)})")
        if last["literal_instances"]:
            lines.append(f"target: >= {TARGET_RATIO:g}x faster than literal on the same {last['literal_instances']} "
                         f"instances: {last['ratio_literal_compact']:.1f}x "
                         f"({_verdict(last['ratio_literal_compact'] >= TARGET_RATIO, full)})")
    if not lp.empty:
        lp_t = lp_table(lp)
        save_table(lp_t, out_dir, "lp_64x500", title="LP relaxation at 64 hosts x 500 jobs, build included")
        lines.append("LP relaxation at 64 hosts x 500 jobs (build included)")
        lines.append(text_table(lp_t).rstrip("\n"))
        comp = lp_t[lp_t["formulation"] == "compact"]
        if len(comp):
            worst = float(comp["max_s"].iloc[0])
            lines.append(f"target: compact LP <= {TARGET_LP:g} s: max {worst:.3f} s "
                         f"({_verdict(worst <= TARGET_LP, len(lp) >= 6)})")
    return "\n".join(lines) + "\n"


EXPERIMENT = Experiment("vc-milp", "exact MILP on the 1,440 small instances vs the paper's GLPK times and the literal "
                        "model; LP at 64x500", cells, run_cell, report)
