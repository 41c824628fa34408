"""Per-job output in Batsim's ``jobs.csv`` layout, and the usual batch metrics.

Columns (Batsim names, so evalys can read the file): ``jobID, submission_time,
requested_number_of_processors, requested_time, starting_time, execution_time,
finish_time, waiting_time, turnaround_time, stretch, allocated_processors`` plus
``cluster`` and ``origin_cluster``.

Choices (documented here, tested in ``tests/sim``):

* ``requested_time`` is the walltime on the cluster where the job ran (scaled by speed).
* ``stretch`` is ``turnaround_time / execution_time`` (Batsim's definition); ``inf`` for a
  job of zero execution time.
* ``allocated_processors`` is an interval set of processor numbers (``"0-3 8"``) as in
  Batsim. The engine only counts processors; numbers are given afterwards by a sweep in
  time order that frees the processors of ending jobs before it gives the lowest free
  numbers to starting jobs.
* Metrics (seed §3.4 uses response time; the others are standard): waiting time
  ``start - submit``, response time ``finish - submit``, bounded slowdown
  ``max(1, response / max(run, tau))`` with ``tau = 10`` s, makespan
  ``max finish - min submit``, utilization ``sum(procs * execution) / (procs of the
  cluster(s) * makespan)``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vcsched.errors import InvalidInputError

__all__ = ["JOBS_COLUMNS", "jobs_frame", "metrics", "write_jobs", "allocate_processors", "BSLD_TAU"]

JOBS_COLUMNS = ["jobID", "submission_time", "requested_number_of_processors", "requested_time", "starting_time",
                "execution_time", "finish_time", "waiting_time", "turnaround_time", "stretch",
                "allocated_processors", "cluster", "origin_cluster"]
BSLD_TAU = 10.0


def allocate_processors(start: np.ndarray, finish: np.ndarray, procs: np.ndarray, total: int) -> list[str]:
    """Give processor numbers to a schedule that never uses more than ``total`` processors.

    Returns one interval-set string per job (``""`` for a job that did not run). The
    sweep goes through the ends and starts in time order, ends first at an instant (then
    by job row), and gives each starting job the lowest free numbers; a zero-length job
    gets numbers without holding them. The sweep is compiled
    (:func:`vcsched.sim.compiled.allocate_sweep`).
    """
    from vcsched.sim import compiled  # numba loads on first use

    n = start.size
    out = [""] * n
    ran = np.flatnonzero(~np.isnan(start))
    if ran.size == 0:
        return out
    times = np.concatenate((finish[ran], start[ran]))
    kind = np.concatenate((np.zeros(ran.size, dtype=np.int64), np.ones(ran.size, dtype=np.int64)))
    who = np.concatenate((ran, ran)).astype(np.int64)
    order = np.lexsort((who, kind, times))
    who_o, kind_o = who[order], kind[order]
    widths = np.asarray(procs, dtype=np.int64)
    first = np.zeros(n, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    room = 2 * ran.size + 16
    while True:
        lo = np.empty(room, dtype=np.int64)
        hi = np.empty(room, dtype=np.int64)
        status, at = compiled.allocate_sweep(who_o, kind_o, widths, int(total), lo, hi, first, count)
        if status != -2:
            break
        room *= 4  # more intervals than expected (fragmented numbers): run the sweep again with more room
    if status == -1:
        raise InvalidInputError(f"schedule uses more than {total} processors at time {times[order[at]]}")
    L, H = lo[:at].tolist(), hi[:at].tolist()
    for j, f, c in zip(ran.tolist(), first[ran].tolist(), count[ran].tolist()):
        out[j] = " ".join(str(a) if a == b else f"{a}-{b}" for a, b in zip(L[f:f + c], H[f:f + c]))
    return out


def jobs_frame(result, *, with_allocation: bool = True):
    """Per-job results as a pandas DataFrame with :data:`JOBS_COLUMNS`."""
    import pandas as pd

    jobs = result.jobs
    names = np.array([c.name for c in result.clusters] + [""], dtype=object)
    speeds = np.array([c.speed for c in result.clusters] + [np.nan])
    where = result.cluster
    origin = jobs.origin
    ratio = speeds[origin] / speeds[where]
    req = jobs.requested_time * np.where(where >= 0, ratio, 1.0)
    start, finish = result.start, result.finish
    execution = finish - start
    submit = jobs.submit
    turnaround = finish - submit
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = np.where(execution > 0, turnaround / np.where(execution > 0, execution, 1.0), np.inf)
    alloc = [""] * len(jobs)
    if with_allocation:
        for k, c in enumerate(result.clusters):
            rows = np.flatnonzero(where == k)
            sub = allocate_processors(start[rows], finish[rows], jobs.procs[rows], c.procs)
            for r, s in zip(rows.tolist(), sub):
                alloc[r] = s
    return pd.DataFrame({
        "jobID": jobs.job_id,
        "submission_time": submit,
        "requested_number_of_processors": jobs.procs,
        "requested_time": req,
        "starting_time": start,
        "execution_time": execution,
        "finish_time": finish,
        "waiting_time": start - submit,
        "turnaround_time": turnaround,
        "stretch": stretch,
        "allocated_processors": alloc,
        "cluster": names[where],
        "origin_cluster": names[origin],
    }, columns=JOBS_COLUMNS)


def _metrics_of(submit, start, finish, procs, capacity: int) -> dict:
    n = int(submit.size)
    if n == 0:
        return {"jobs": 0, "mean_wait": None, "max_wait": None, "mean_response": None, "mean_bsld": None,
                "utilization": None, "makespan": None}
    wait = start - submit
    run = finish - start
    response = finish - submit
    bsld = np.maximum(1.0, response / np.maximum(run, BSLD_TAU))
    makespan = float(finish.max() - submit.min())
    util = float((procs * run).sum() / (capacity * makespan)) if makespan > 0 else None
    return {"jobs": n, "mean_wait": float(wait.mean()), "max_wait": float(wait.max()),
            "mean_response": float(response.mean()), "mean_bsld": float(bsld.mean()),
            "utilization": util, "makespan": makespan}


def metrics(result) -> dict:
    """Metrics overall and per cluster: ``{"overall": {...}, "clusters": {name: {...}}}``.

    Keys of each entry: ``jobs, mean_wait, max_wait, mean_response, mean_bsld, utilization,
    makespan`` (seconds; utilization in [0, 1]). A job is counted on the cluster where it ran.
    """
    jobs = result.jobs
    ran = ~np.isnan(result.finish)
    out = {"overall": _metrics_of(jobs.submit[ran], result.start[ran], result.finish[ran], jobs.procs[ran],
                                  sum(c.procs for c in result.clusters)),
           "clusters": {}}
    for k, c in enumerate(result.clusters):
        m = ran & (result.cluster == k)
        out["clusters"][c.name] = _metrics_of(jobs.submit[m], result.start[m], result.finish[m], jobs.procs[m],
                                              c.procs)
    return out


def write_jobs(result, path: str | Path) -> None:
    """Write the per-job table as CSV (``.csv``) or Parquet (``.parquet``/``.pq``)."""
    path = Path(path)
    df = jobs_frame(result)
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        out = df.copy()
        out["jobID"] = out["jobID"].astype(str)
        out.to_parquet(path, index=False)
    elif suffix == ".csv" or suffix == "":
        df.to_csv(path, index=False)
    else:
        raise InvalidInputError(f"{path}: unknown output format {suffix!r}; use .csv or .parquet")
