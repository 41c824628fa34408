"""``vc-hetero``: heterogeneous VCSched heuristics' gap to the best bound available.

Instances: :func:`vcsched.generators.vc_hetero.generate_hetero` (``random`` host types, slack 0.3,
mean CPU 0.5, 4 jobs per host) for d = 2, 3, 5 rigid resources, K = 2, 4 host types and 64, 256,
1,000 hosts (quick: 64 hosts, d = 2, 3). One cell = one instance (its seed is the cell's child seed).

Bound: the LP relaxation of the MILP (:func:`vcsched.formulations.vc_hetero_milp.hetero_lp_bound`)
when jobs x hosts <= :data:`LP_MAX_VARS`, else the closed form ``Y_max`` of
:func:`heuristics.vc_hetero.search.y_max` (total CPU, and each job's best host type); the column
``bound_method`` says which; then certify's proven upper bound (:func:`lowerbounds.vector.certify_hosts`
through the method table, :data:`CERTIFY_LIMIT` seconds, quick :data:`QUICK_CERTIFY_LIMIT`) when it
is smaller (``bound_method`` ``certify``); certify's own row is in the table. Rows: one per heuristic of
:data:`METHODS` with its status, minimum yield, seconds and ``gap = (bound - yield) / bound``.

Report: per (d, K, hosts), each heuristic's mean gap (%) and how many instances it failed.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

from benchmarks.harness import Experiment
from benchmarks.tables import save_table, text_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "METHODS", "LP_MAX_VARS", "CERTIFY_LIMIT"]

METHODS = ("mcb1", "mcb2", "mcb3", "mcb4", "mcb5", "mcb6", "mcb7", "mcb8", "gr", "sg", "vp-meta")
CERTIFY_LIMIT = 20.0
QUICK_CERTIFY_LIMIT = 5.0
LP_MAX_VARS = 100_000
"""Largest jobs x hosts for which the LP relaxation is solved (beyond: the closed form)."""


def cells(quick: bool) -> list[dict]:
    """The grid of the module docstring."""
    hosts = (64,) if quick else (64, 256, 1000)
    ds = (2, 3) if quick else (2, 3, 5)
    limit = QUICK_CERTIFY_LIMIT if quick else CERTIFY_LIMIT
    return [{"d": d, "types": K, "hosts": h, "jobs": 4 * h, "certify_limit": limit}
            for d in ds for K in (2, 4) for h in hosts]


def run_cell(params: dict, seed: int) -> list[dict]:
    """Bound and every heuristic of :data:`METHODS` on one generated instance."""
    from heuristics.vc_hetero.methods import solve
    from heuristics.vc_hetero.search import y_max
    from vcsched.formulations.vc_hetero_milp import hetero_lp_bound
    from vcsched.generators.vc_hetero import generate_hetero

    inst = generate_hetero(params["hosts"], params["jobs"], resources=params["d"], host_types=params["types"],
                           slack=0.3, rng=seed)
    bound, method = y_max(inst), "closed-form"
    if inst.n_jobs * inst.n_hosts <= LP_MAX_VARS:
        lp = hetero_lp_bound(inst)
        if lp.success:
            bound, method = min(bound, lp.bound), "lp"
    cert = solve(inst, "certify", time_limit=params.get("certify_limit", CERTIFY_LIMIT))
    if cert.bound is not None and cert.bound < bound:
        bound, method = cert.bound, "certify"
    rows = [{**params, "method": "certify", "status": str(cert.status), "min_yield": cert.objective, "bound": bound,
             "bound_method": method, "gap": None if cert.objective is None else (bound - cert.objective) / bound,
             "seconds": cert.seconds}]
    for name in METHODS:
        r = solve(inst, name)
        y = r.objective if r.success else None
        rows.append({**params, "method": name, "status": str(r.status), "min_yield": y, "bound": bound,
                     "bound_method": method, "gap": None if y is None else (bound - y) / bound, "seconds": r.seconds})
    return rows


def gap_table(df: pandas.DataFrame) -> pandas.DataFrame:
    """Per (d, types, hosts) and heuristic: mean gap (%) over the instances it solved, and failures."""
    df = df.assign(gap_pct=100.0 * df["gap"].astype(float), failed=~df["status"].isin(["feasible", "optimal"]))
    keys = ["d", "types", "hosts", "method"]
    out = df.groupby(keys, sort=True).agg(mean_gap_pct=("gap_pct", "mean"), failed=("failed", "sum"),
                                          mean_seconds=("seconds", "mean")).reset_index()
    return out


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    """The gap table (CSV + Markdown) and its text."""
    if df.empty or "method" not in df:
        return "vc-hetero: no rows (every cell failed?)"
    ok = df[df["cell_status"] == "ok"] if "cell_status" in df else df
    table = gap_table(ok)
    save_table(table, out_dir, "gaps", title="vc-hetero: heuristics' gap to the bound (%)")
    return "vc-hetero: mean gap (%) of each heuristic to the best bound available\n" + text_table(table, digits=2)


EXPERIMENT = Experiment("vc-hetero", "VCSched with host types and d rigid resources: each heuristic's gap to the best "
                        "bound (certify, LP)", cells, run_cell, report)
