"""Simbatch's CBF re-plan as an option of the grid command and of the experiment's cause cells."""

from __future__ import annotations

import json

import numpy as np

from benchmarks.experiments import grid_realloc as gr


def test_grid_cause_cell_runs_the_full_replan_on_every_simulation():
    """The ``cbf-replan-full`` cause cell equals runs built by hand with every CBF cluster on the full rule."""
    from heuristics.grid.realloc import Reallocation
    from vcsched.scenarios.grid import SCENARIOS, build_scenario, platform_clusters
    from vcsched.sim import simulate_grid

    params = {"scenario": "apr", "heterogeneous": False, "batch": "cbf", "days": 1.0, "workload_seed": 0,
              "cause": "cbf-replan-full"}
    rows = {r["label"]: r for r in gr.run_cell(params, seed=0)}
    _, jobs = build_scenario("apr", batch="cbf", days=1.0)

    def run(policy, rule):
        clusters = platform_clusters(SCENARIOS["apr"].platform, batch="cbf")
        for c in clusters:
            c.set_replan_rule(rule)
        return simulate_grid(clusters, jobs, meta=policy)

    full = run(Reallocation("none"), "full")
    earliest = run(Reallocation("none"), "earliest")
    assert not np.array_equal(full.start, earliest.start)  # the rule matters on this window
    assert rows["reference"]["mean_wait"] == float((full.start - jobs.submit).mean())
    pol = Reallocation("cancel", "minmin")
    run(pol, "full")
    assert rows["MinMin-C"]["reallocations"] == pol.reallocations


def test_grid_cli_cbf_replan_flag(tmp_path, capsys):
    from vcsched.cli import main

    out = {}
    for rule in ("earliest", "full"):
        path = tmp_path / f"{rule}.csv"
        assert main(["grid", "simulate", "--scenario", "apr", "--batch", "cbf", "--days", "1", "--cbf-replan", rule,
                     "--json", "--no-progress", "-o", str(path)]) == 0
        out[rule] = (json.loads(capsys.readouterr().out)["overall"], path.read_bytes())
    assert out["earliest"][1] != out["full"][1]
    assert main(["grid", "simulate", "--scenario", "apr", "--days", "1", "--cbf-replan", "full", "--no-progress"]) == 2
    assert "--cbf-replan applies to CBF clusters" in capsys.readouterr().err
