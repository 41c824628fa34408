"""``dfrs``: dynamic fractional resource scheduling against batch scheduling, judged by the max stretch
against a lower bound (Stillwell, Vivien, Casanova, IPDPS 2010 / TPDS 2012).

Cells
-----
``source = "lublin"``: a Lublin-Feitelson workload of ``jobs`` jobs whose arrivals are scaled to the
offered ``load`` (0.1, 0.3, 0.5, 0.7, 0.9), on ``hosts`` one-core hosts (64: seeds 1-5; 128: seeds 1-3),
memory from the model (``vcsched.problems.dfrs``), the workload seed ``rep`` (the same workloads at every
penalty). ``source = <trace>``: a window of ``days`` days from the trace's first job (``days = 0``: the
whole trace): HPC2N 30 days and LANL-CM5 7 days with their own memory, KTH-SP2 and SDSC-SP2 30 days with
the model. Every cell runs every policy at one ``penalty`` (0 or 300 s) and computes the bound once.

Rows: one per policy: the metrics of :func:`vcsched.sim.dfrs.job_metrics`, ``migrations_per_job``,
``bound`` (the max-stretch lower bound), ``ratio = max_stretch / bound``, ``below_bound`` and ``seconds``
(CPU time of the policy's run, ``time.process_time``).

Report: per (source, hosts, load, penalty, policy) the ratio with its 95 % interval over the seeds, mean
stretch, utilisation, migrations per job (``dfrs.csv``/``dfrs.md``); figures of the ratio against the
offered load, one line per policy, log scale, 95 % intervals, one per (hosts, penalty)
(``dfrs_ratio_vs_load.png`` for 64 hosts at 300 s); the count of rows below the bound (must be 0).
"""

from __future__ import annotations

import pathlib
import time
from typing import TYPE_CHECKING

from benchmarks.figures import line_plot
from benchmarks.harness import Experiment
from benchmarks.tables import mean_ci_table, save_table, text_table
from vcsched.names.dfrs import POLICIES

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["EXPERIMENT", "cells", "run_cell", "report", "POLICIES", "LOADS", "TRACES"]

TRACES = (("HPC2N-2002-2.2-cln.swf.gz", 30.0, "trace"), ("LANL-CM5-1994-4.1-cln.swf.gz", 7.0, "trace"),
          ("KTH-SP2-1996-2.1-cln.swf.gz", 30.0, "model"), ("SDSC-SP2-1998-4.2-cln.swf.gz", 30.0, "model"))
LOADS = (0.1, 0.3, 0.5, 0.7, 0.9)


def _lublin(loads, reps, hosts: int, jobs: int) -> list[dict]:
    return [{"source": "lublin", "load": load, "hosts": hosts, "jobs": jobs, "days": 0.0, "memory": "model",
             "penalty": pen, "rep": rep} for load in loads for rep in reps for pen in (0.0, 300.0)]


def cells(quick: bool) -> list[dict]:
    """Lublin loads x seeds x penalties on 64 hosts, trace windows x penalties, then Lublin on 128 hosts (last,
    so that a run folder of the 64-host grid resumes with the same cell indices and seeds); quick: two loads,
    one seed, 32 hosts, KTH 2 days."""
    if quick:
        traces = (("KTH-SP2-1996-2.1-cln.swf.gz", 2.0, "model"),)
        head, tail = _lublin((0.3, 0.7), (1,), 32, 150), []
    else:
        traces = TRACES
        head = _lublin(LOADS, (1, 2, 3, 4, 5), 64, 1000)
        tail = _lublin(LOADS, (1, 2, 3), 128, 1000)
    return head + [{"source": name, "load": 0.0, "hosts": 0, "jobs": 0, "days": days, "memory": memory,
                    "penalty": pen, "rep": 0} for name, days, memory in traces for pen in (0.0, 300.0)] + tail


def _workload(params: dict):
    from vcsched.scenarios.dfrs import dfrs_workload

    if params["source"] == "lublin":
        return dfrs_workload(lublin_jobs=int(params["jobs"]), load=float(params["load"]), hosts=int(params["hosts"]),
                             memory=params["memory"], seed=int(params["rep"]))
    window = {"days": params["days"]} if params["days"] else {}
    return dfrs_workload(trace=params["source"], window=window, memory=params["memory"], seed=int(params["rep"]))


def run_cell(params: dict, seed: int) -> list[dict]:
    """Every policy on the cell's workload, and the bound (the harness's ``seed`` is not used: the
    workload's seed is ``rep``)."""
    from heuristics.dfrs import simulate_policy
    from lowerbounds.dfrs import max_stretch_bound

    jobs, platform = _workload(params)
    bound = max_stretch_bound(jobs, platform, memory=platform.cores == 1)
    rows = []
    for name in POLICIES:
        t0 = time.process_time()
        run = simulate_policy(jobs, platform, name, penalty=float(params["penalty"]))
        m = {k: v for k, v in run.metrics.items() if k != "jobs"}
        rows.append({"policy": name, "n_jobs": len(jobs), "n_hosts": platform.hosts, **m,
                     "migrations_per_job": m["migrations"] / max(len(jobs), 1), "bound": bound.value,
                     "bound_seconds": bound.seconds, "ratio": (m["max_stretch"] or 1.0) / bound.value,
                     "below_bound": bool((m["max_stretch"] or 1.0) < bound.value - 1e-9),
                     "seconds": time.process_time() - t0})
    return rows


def report(df: pandas.DataFrame, out_dir: pathlib.Path) -> str:
    by = ["source", "hosts", "load", "penalty", "policy"]
    table = mean_ci_table(df, by, ["ratio", "max_stretch", "mean_stretch", "utilization", "migrations_per_job"])
    save_table(table, out_dir, "dfrs", title="max stretch / bound, mean stretch, utilisation, migrations per job")
    lub = df[df["source"] == "lublin"]
    for (hosts, pen), part in lub.groupby(["hosts", "penalty"]):
        stem = "dfrs_ratio_vs_load" if (hosts, pen) == (64, 300.0) else f"dfrs_ratio_vs_load_{hosts}h_pen{pen:g}"
        line_plot(part, x="load", y="ratio", series="policy", out_dir=out_dir, stem=stem, xlabel="offered load",
                  ylabel="max stretch / lower bound", logy=True, series_order=POLICIES,
                  title=f"max-stretch degradation ({hosts} hosts, penalty {pen:g} s)")
    below = int(df["below_bound"].sum())
    summary = table[["source", "hosts", "load", "penalty", "policy", "ratio", "ratio_ci95", "mean_stretch",
                     "utilization", "migrations_per_job"]]
    return f"rows below the bound: {below} (must be 0)\n" + text_table(summary)


EXPERIMENT = Experiment("dfrs", "DFRS (greedy, MCB8 periodic) vs EASY/FCFS on Lublin and real traces: max stretch "
                        "against a lower bound", cells, run_cell, report)
