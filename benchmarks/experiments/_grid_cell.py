"""One cell of ``grid-realloc`` in parts: the reference (with the cell's lower bound) and one part per
reallocation policy, each simulated from the cell's parameters alone, then the join that compares
every run with the reference and brackets the optimum (:mod:`benchmarks.experiments.grid_realloc`
describes the rows; :mod:`benchmarks.split` how the parts run).

A part rebuilds the cell's workload and platform (deterministic: the same jobs in every part) and
returns the columns of its run that the join reads (start, finish, cluster of each job) with the
policy's counters, so the rows do not depend on where or in which order the parts ran.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from vcsched.names.grid import HEURISTICS

__all__ = ["cell_parts", "cell_part", "cell_rows", "part_cost", "response_bound", "INTERVAL_METHOD"]

REFERENCE = "reference"
POLICY_PARTS = tuple(f"{algorithm}/{h}" for algorithm in ("no-cancel", "cancel") for h in HEURISTICS)
"""The reallocation runs of a cell, in the order of its rows: Algorithm 1 then 2, each heuristic."""

INTERVAL_METHOD = "quick"
"""Method of the brackets of the optimum (:func:`lowerbounds.batch.batch_references`): the quick bounds and the
schedule portfolio, with the cell's simulated schedules as candidates for the upper end (a few seconds per cell)."""


class _Run(NamedTuple):
    """The columns of a simulated run that the join reads, on the cell's job table."""

    jobs: object
    start: np.ndarray
    finish: np.ndarray
    cluster: np.ndarray


def cell_parts(params: dict) -> list[str]:
    """The reference, then the twelve reallocation runs (``"cancel/maxmin"``...)."""
    return [REFERENCE, *POLICY_PARTS]


def _setup(params: dict, scenario_kw: dict, policy_kw: dict):
    """The cell's job table, the policies' keywords and the CBF re-plan rule (a cause variant's ``phase`` sets the
    first event that many seconds after the first submission)."""
    from vcsched.scenarios.grid import build_scenario

    _, jobs = build_scenario(params["scenario"], heterogeneous=params["heterogeneous"], batch=params["batch"],
                             days=params["days"], seed=params["workload_seed"], **scenario_kw)
    policy_kw = dict(policy_kw)
    if "phase" in policy_kw:
        policy_kw["first"] = float(jobs.submit.min()) + policy_kw.pop("phase")
    replan = policy_kw.pop("cbf_replan", "earliest")
    return jobs, policy_kw, replan


def cell_part(params: dict, part: str, scenario_kw: dict, policy_kw: dict) -> dict:
    """One part: the reference run and the cell's ``response_bound``, or one policy's run and its counters."""
    from heuristics.grid.realloc import Reallocation

    c0 = time.process_time()
    jobs, policy_kw, replan = _setup(params, scenario_kw, policy_kw)
    if part == REFERENCE:
        bound = response_bound(params, jobs)
        ref, sec = _reference(params, jobs, replan)
        return {"run": _columns(ref), "sim_seconds": sec, "bound": bound, "max_wait": _max_wait(ref),
                "cpu_seconds": time.process_time() - c0}
    algorithm, h = part.split("/")
    pol = Reallocation(algorithm, h, **policy_kw)
    res, sec = _simulate(params, jobs, pol, replan)
    return {"run": _columns(res), "sim_seconds": sec, "label": pol.label, "reallocations": pol.reallocations,
            "counts": pol.move_counts(res), "realloc_seconds": pol.seconds, "max_wait": _max_wait(res),
            "cpu_seconds": time.process_time() - c0}


def _columns(result) -> tuple:
    return result.start, result.finish, result.cluster


def cell_rows(params: dict, results: list[dict], scenario_kw: dict, policy_kw: dict) -> list[dict]:
    """The cell's rows from its parts' results (in :func:`cell_parts` order): the reference row, then one row per
    policy, each compared with the reference, then the optimum's bracket on every row."""
    from vcsched.scenarios.grid import compare_to_reference

    jobs, _, _ = _setup(params, scenario_kw, policy_kw)
    first, *policies = results
    ref, bound, ref_max_wait = _Run(jobs, *first["run"]), first["bound"], first["max_wait"]
    base = compare_to_reference(ref, ref, reallocations=0)
    rows = [{"algorithm": "none", "heuristic": "mct", "label": "reference", **_fields(base),
             "jobs_moved_pct": 0.0, "displaced_pct": 0.0, "max_wait": ref_max_wait, "ref_max_wait": ref_max_wait,
             "sim_seconds": first["sim_seconds"], "realloc_seconds": 0.0, **_bound_fields(base, bound),
             "sim_cpu_seconds": first["cpu_seconds"]}]
    runs = [ref]
    n = max(len(jobs), 1)
    for part, out in zip(POLICY_PARTS, policies):
        algorithm, h = part.split("/")
        res = _Run(jobs, *out["run"])
        m = compare_to_reference(res, ref, reallocations=out["reallocations"])
        rows.append({"algorithm": algorithm, "heuristic": h, "label": out["label"], **_fields(m),
                     "jobs_moved_pct": 100.0 * out["counts"]["jobs_moved"] / n,
                     "displaced_pct": 100.0 * out["counts"]["displaced"] / n,
                     "max_wait": out["max_wait"], "ref_max_wait": ref_max_wait,
                     "sim_seconds": out["sim_seconds"], "realloc_seconds": out["realloc_seconds"],
                     **_bound_fields(m, bound), "sim_cpu_seconds": out["cpu_seconds"]})
        runs.append(res)
    return _with_intervals(rows, runs, params, jobs)


CELL_CPU = {("pwa-g5k", False, "fcfs"): 1366.0, ("pwa-g5k", True, "fcfs"): 250.0, ("pwa-g5k", False, "cbf"): 85.0,
            ("pwa-g5k", True, "cbf"): 78.0, ("pwa", False, "fcfs"): 85.0, ("pwa", True, "fcfs"): 68.0,
            ("pwa", False, "cbf"): 35.0, ("pwa", True, "cbf"): 39.0}
"""CPU seconds of the six-month cells (scenario, heterogeneous, batch), measured one by one on a shared 2-core
machine: an ordering hint only (:func:`part_cost`)."""

MONTH_CELL_CPU = 18.0
"""CPU seconds of a 30-day cell, the mean of the 24 monthly cells (ordering hint)."""

LONG_PARTS = {("pwa-g5k", False, "fcfs", "cancel/maxmin"): 1000.0}
"""Parts much longer than their cell's mean part (MaxMin-C's queues grow for six months): CPU seconds, estimated."""


def part_cost(params: dict, part: str) -> float:
    """Estimated CPU seconds of a part, to order the tasks only: :data:`LONG_PARTS`, else an equal share of the rest
    of its cell's :data:`CELL_CPU`, else a thirteenth of :data:`MONTH_CELL_CPU` per 30 days of window."""
    from vcsched.scenarios.grid import SCENARIOS

    key = (params["scenario"], bool(params["heterogeneous"]), params["batch"])
    if params["days"] is None and (*key, part) in LONG_PARTS:
        return LONG_PARTS[(*key, part)]
    if params["days"] is None and key in CELL_CPU:
        long = [v for (*k, _), v in LONG_PARTS.items() if tuple(k) == key]
        return (CELL_CPU[key] - sum(long)) / (len(POLICY_PARTS) + 1 - len(long))
    days = float(params["days"] if params["days"] is not None else SCENARIOS[params["scenario"]].days)
    return MONTH_CELL_CPU / len(POLICY_PARTS + (REFERENCE,)) * days / 30.0


def _clusters(params: dict, cbf_replan: str):
    """Fresh clusters of the cell's platform, CBF ones with the re-plan rule ``cbf_replan``."""
    clusters = _cell_clusters(params)
    for c in clusters:
        if c.policy == "cbf":
            c.set_replan_rule(cbf_replan)
    return clusters


def _simulate(params: dict, jobs, policy, cbf_replan: str = "earliest"):
    """Fresh clusters of the cell's platform, the cell's (shared, read-only) job table, one policy."""
    from vcsched.sim import simulate_grid

    clusters = _clusters(params, cbf_replan)
    t0 = time.perf_counter()
    res = simulate_grid(clusters, jobs, meta=policy)
    return res, time.perf_counter() - t0


def _reference(params: dict, jobs, cbf_replan: str):
    """The cell's reference run (seed 000 §3.4) by the scenario layer's rule
    (:func:`vcsched.scenarios.grid_run.reference_run`: no reallocation, arrivals mapped with MCT)."""
    from heuristics.grid import make_meta
    from vcsched.scenarios.grid_run import reference_run

    t0 = time.perf_counter()
    res = reference_run(lambda first: (_clusters(params, cbf_replan), jobs, "mct"), make_meta, realloc="cancel")
    return res, time.perf_counter() - t0


def _with_intervals(rows: list[dict], runs: list, params: dict, jobs) -> list[dict]:
    """Each row gains ``response_upper`` (the best of the clairvoyant portfolio and the cell's own simulated
    schedules: every one of them is a schedule of the relaxation), ``response_status`` and the run's ratio
    interval to the optimum ``response_opt_ratio_low``/``_high`` (``[value / upper, value / lower]``,
    :func:`lowerbounds.reference.ratio_interval`). The simulations are not touched: their results are read."""
    from lowerbounds.batch import batch_references

    given = {f"run {k}": (r.cluster, r.start) for k, r in enumerate(runs) if _complete(r, jobs)}
    refs = batch_references(jobs, _cell_clusters(params), method=INTERVAL_METHOD, given=given)
    bracket = refs.brackets["mean_response"]
    for row in rows:
        interval = bracket.ratio(row["mean_response"]) or (None, None)
        row.update(response_upper=None if bracket.upper is None else bracket.upper.value,
                   response_status=bracket.status, response_opt_ratio_low=interval[0],
                   response_opt_ratio_high=interval[1])
    return rows


def _complete(result, jobs) -> bool:
    """Whether a simulated run scheduled every job of ``jobs`` once (a candidate upper end)."""
    return (len(result.jobs) == len(jobs) and np.array_equal(result.jobs.submit, jobs.submit)
            and np.isfinite(result.start).all() and (result.cluster >= 0).all())


def _cell_clusters(params: dict):
    from vcsched.scenarios.grid import SCENARIOS, platform_clusters

    return platform_clusters(SCENARIOS[params["scenario"]].platform, heterogeneous=params["heterogeneous"],
                             batch=params["batch"])


def response_bound(params: dict, jobs) -> float:
    """Lower bound on the mean response time of any schedule of the cell's jobs on its platform
    (:func:`lowerbounds.batch.batch_bounds`, method ``quick``: the same for every policy of the cell)."""
    from lowerbounds.batch import batch_bounds

    return batch_bounds(jobs, _cell_clusters(params), method="quick").bounds["mean_response"].value


def _bound_fields(m: dict, bound: float) -> dict:
    """``mean_response`` of the run, the cell's ``response_bound`` and their ratio ``response_ratio_to_bound``."""
    value = m.get("mean_response")
    return {"mean_response": value, "response_bound": bound,
            "response_ratio_to_bound": value / bound if value is not None and bound else None}


def _max_wait(result) -> float:
    """Longest wait of a run (s), from the job's arrival to its start; 0 without jobs."""
    wait = result.start - result.jobs.submit
    return float(np.nanmax(wait)) if wait.size else 0.0


def _fields(m: dict) -> dict:
    keys = ("jobs", "impacted_pct", "reallocations", "reallocations_pct", "early_pct", "relative_response",
            "mean_wait", "ref_mean_wait", "mean_bsld", "ref_mean_bsld")
    return {k: m.get(k) for k in keys}
