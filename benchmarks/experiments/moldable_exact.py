"""``moldable-exact``: the minsum bounds and the heuristics of seed 002 against proven optima.

Small instances of the four kinds of §4.1 (weak, high, mixed, Cirne-Berman),
``(m, n)`` in ``SIZES``, with every processing time rounded *up* to a multiple
of ``GRAIN`` (0.5): the time-indexed MILP of
:mod:`vcsched.formulations.moldable_milp` is then exact (an optimal schedule
starts tasks on the grid), where on the generators' real-valued times only the
much weaker flow model would be. Bounds and heuristics run on the same rounded
instance, so every ratio compares like with like.

Per instance: the proven optimum (HiGHS, warm-started from the bi-criteria
schedule, ``TIME_LIMIT`` seconds), the paper's interval bound (§3.3, with
``C*_max`` from :func:`heuristics.moldable.dual_approximation`, so a new dual
approximation flows through), the refined bound
(:func:`lowerbounds.moldable.refined_interval_bound`) and the minsum and
makespan of every algorithm of :data:`heuristics.moldable.REGISTRY`.

Row fields: ``run``, ``status`` (of the MILP), ``opt`` (its objective; the
optimum when ``status == "optimal"``), ``milp_bound``, ``exact_seconds``,
``lb_interval``, ``lb_refined``, ``refined_seconds``, and
``minsum_<method>``, ``makespan_<method>`` per algorithm.
"""

from __future__ import annotations

import math
import pathlib
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.harness import Experiment
from benchmarks.tables import ci95_half, save_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "summary_table", "GRAIN"]

KINDS = ("weak", "high", "mixed", "cirne")
SIZES = ((4, 6), (8, 8), (16, 10))
RUNS = 17
"""Instances per (kind, size): 4 x 3 x 17 = 204."""
GRAIN = 0.5
TIME_LIMIT = 60.0


def cells(quick: bool) -> list[dict]:
    """Full: 4 kinds x 3 sizes x 17 runs (one cell each). Quick: 4 kinds, m = 3, n = 5, 2 runs."""
    if quick:
        return [{"kind": k, "m": 3, "n": 5, "runs": 2} for k in KINDS]
    return [{"kind": k, "m": m, "n": n, "runs": RUNS} for (m, n) in SIZES for k in KINDS]


def on_grid(instance, grain: float = GRAIN):
    """The instance with every ``p_i(k)`` rounded up to a multiple of ``grain``."""
    from vcsched.problems.moldable import MoldableInstance

    return MoldableInstance(instance.m, np.ceil(instance.times / grain - 1e-9) * grain, instance.weights)


def run_cell(params: dict, seed: int) -> list[dict]:
    """``params["runs"]`` instances; instance ``k`` uses child ``k`` of ``seed``."""
    from heuristics.moldable import REGISTRY, dual_approximation
    from lowerbounds.moldable import interval_bound, refined_interval_bound
    from vcsched.formulations.moldable_milp import solve_exact
    from vcsched.generators.moldable import generate_moldable_instance
    from vcsched.problems.moldable import check_schedule

    rows = []
    for k, child in enumerate(np.random.SeedSequence(seed).spawn(int(params["runs"]))):
        gen_seed, alg_seed = child.spawn(2)
        inst = on_grid(generate_moldable_instance(int(params["m"]), int(params["n"]), params["kind"],
                                                  rng=np.random.default_rng(gen_seed)))
        row: dict = {"run": k}
        schedules = {}
        for name in REGISTRY.names():
            r = REGISTRY.get(name)(inst, rng=np.random.default_rng(alg_seed))
            rep = check_schedule(inst, r.solution)
            if not rep.valid:
                raise RuntimeError(f"{name}: invalid schedule ({rep.violations[0]})")
            row[f"minsum_{name}"], row[f"makespan_{name}"] = rep.minsum, rep.makespan
            schedules[name] = r.solution
        best = min(schedules, key=lambda name: row[f"minsum_{name}"])
        exact = solve_exact(inst, time_limit=TIME_LIMIT, start=schedules[best])
        if not check_schedule(inst, exact.solution).valid:
            raise RuntimeError("exact: invalid schedule")
        paper = interval_bound(inst, search=dual_approximation(inst))
        refined = refined_interval_bound(inst)
        row.update(status=exact.status.value, opt=float(exact.objective), milp_bound=float(exact.bound),
                   exact_seconds=float(exact.seconds), formulation=exact.extra["formulation"],
                   lb_interval=float(paper.bound), lb_refined=float(refined.bound),
                   refined_seconds=float(refined.seconds))
        rows.append(row)
    return rows


def summary_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per kind (and ``all``) over the proven instances: bound/optimum (mean, worst) for both bounds,
    every algorithm's minsum / optimum (mean, worst, ``_ci95`` the half-width of the mean's 95 % interval
    over the ``proven`` instances), the MILP's reach, and ``bound_above_opt``
    (instances where a bound exceeds the proven optimum: a bug if not 0)."""
    import pandas as pd

    methods = [c[len("minsum_"):] for c in df.columns if c.startswith("minsum_")]
    groups = [(kind, df[df["kind"] == kind]) for kind in sorted(df["kind"].unique())] + [("all", df)]
    out = []
    for kind, g in groups:
        proven = g[g["status"] == "optimal"]
        above = (proven[["lb_interval", "lb_refined"]].max(axis=1) > proven["opt"] * (1 + 1e-6)).sum()
        row = {"kind": kind, "instances": len(g), "proven": len(proven), "bound_above_opt": int(above),
               "exact_s_median": float(g["exact_seconds"].median()), "exact_s_max": float(g["exact_seconds"].max())}
        for b in ("interval", "refined"):
            r = proven[f"lb_{b}"] / proven["opt"]
            row[f"{b}_mean"], row[f"{b}_worst"] = float(r.mean()), float(r.min())
            row[f"{b}_ci95"] = ci95_half(r)
        for name in methods:
            r = proven[f"minsum_{name}"] / proven["opt"]
            row[f"{name}_mean"], row[f"{name}_worst"] = float(r.mean()), float(r.max())
            row[f"{name}_ci95"] = ci95_half(r)
        out.append(row)
    return pd.DataFrame(out)


def _pm(row, name: str) -> str:
    """``"0.912 +- 0.014"`` (no interval below two instances)."""
    half = row[f"{name}_ci95"]
    return f"{row[f'{name}_mean']:.3f}" + ("" if math.isnan(half) else f" +- {half:.3f}")


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """``moldable_exact_summary`` (per kind), ``moldable_exact_sizes`` (per size) and a text summary."""
    if "cell_status" in df.columns:
        df = df[df["cell_status"] == "ok"]
    out_dir = pathlib.Path(out_dir)
    table = summary_table(df)
    save_table(table, out_dir, "moldable_exact_summary",
               title="Bounds and algorithms against proven optima (ratios over the proven instances)")
    sizes = df.groupby(["m", "n"]).agg(instances=("opt", "size"),
                                       proven=("status", lambda s: int((s == "optimal").sum())),
                                       exact_s_median=("exact_seconds", "median"),
                                       exact_s_max=("exact_seconds", "max"),
                                       refined_s_mean=("refined_seconds", "mean")).reset_index()
    save_table(sizes, out_dir, "moldable_exact_sizes", title="Reach of the exact MILP per size")
    a = table[table["kind"] == "all"].iloc[0]
    lines = [f"moldable-exact: {int(a['proven'])} of {int(a['instances'])} instances proven optimal "
             f"(times rounded up to multiples of {GRAIN}; time limit {TIME_LIMIT:g} s)",
             f"ratios over the n = {int(a['proven'])} proven instances, mean +- 95 % CI:",
             f"paper's interval bound / optimum: mean {_pm(a, 'interval')}, worst {a['interval_worst']:.3f}",
             f"refined bound / optimum:          mean {_pm(a, 'refined')}, worst {a['refined_worst']:.3f}",
             f"bicriteria minsum / optimum:      mean {_pm(a, 'bicriteria')}, worst {a['bicriteria_worst']:.3f}",
             f"instances where a bound exceeds the proven optimum (must be 0): {int(a['bound_above_opt'])}"]
    return "\n".join(lines)


EXPERIMENT = Experiment("moldable-exact", "seed 002: interval and refined minsum bounds and the heuristics against "
                        "proven optima", cells, run_cell, report)
