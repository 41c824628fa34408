"""Plain oracle of one ``grid-realloc`` cell: the reference and the twelve reallocation runs one after the other in
one process on one shared job table, the rows built as they go (what the experiment's parts and join must give)."""

from __future__ import annotations

from benchmarks.experiments import _grid_cell as cell
from benchmarks.experiments import grid_realloc as gr
from vcsched.names.grid import HEURISTICS


def oracle_cell(params: dict) -> list[dict]:
    from heuristics.grid.realloc import Reallocation
    from vcsched.scenarios.grid import compare_to_reference

    scenario_kw, policy_kw, _ = gr.CAUSE_VARIANTS[params.get("cause") or "default"]
    jobs, policy_kw, replan = cell._setup(params, scenario_kw, policy_kw)  # one job table for every run
    bound = gr.response_bound(params, jobs)
    ref, _ = cell._reference(params, jobs, replan)
    base = compare_to_reference(ref, ref, reallocations=0)
    wait = float((ref.start - jobs.submit).max())
    rows = [{"algorithm": "none", "heuristic": "mct", "label": "reference", **cell._fields(base),
             "jobs_moved_pct": 0.0, "displaced_pct": 0.0, "max_wait": wait, "ref_max_wait": wait,
             **cell._bound_fields(base, bound)}]
    runs = [ref]
    for algorithm in ("no-cancel", "cancel"):
        for h in HEURISTICS:
            pol = Reallocation(algorithm, h, **policy_kw)
            res, _ = cell._simulate(params, jobs, pol, replan)
            m = compare_to_reference(res, ref, reallocations=pol.reallocations)
            counts = pol.move_counts(res)
            rows.append({"algorithm": algorithm, "heuristic": h, "label": pol.label, **cell._fields(m),
                         "jobs_moved_pct": 100.0 * counts["jobs_moved"] / len(jobs),
                         "displaced_pct": 100.0 * counts["displaced"] / len(jobs),
                         "max_wait": float((res.start - jobs.submit).max()), "ref_max_wait": wait,
                         **cell._bound_fields(m, bound)})
            runs.append(res)
    return cell._with_intervals(rows, runs, params, jobs)
