"""The command line parses, calls one function, prints: for each command, the Python call the docs name and the
command line on the same input give the same results (timings aside)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vcsched.cli import main

LINE = "{id} {submit} 0 {run} {procs} -1 -1 {procs} {req} -1 1 1 1 1 1 -1 -1 -1"
JOBS = ((1, 0, 10, 2, 20), (2, 0, 5, 4, 5), (3, 1, 3, 1, -1), (4, 2, 30, 3, 40), (5, 4, 8, 1, 10))


def cli_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def untimed(value):
    """``value`` without the fields that time something."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def swf(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 4\n" + "".join(LINE.format(id=i, submit=s, run=r, procs=p, req=q) + "\n"
                                                 for i, s, r, p, q in JOBS))
    return str(path)


def test_vc_solve_is_the_method_table_and_its_rows(tmp_path, capsys):
    from heuristics.vc.methods import result_row, solve
    from vcsched.generators.vc import generate_vc_instance
    from vcsched.problems.vc import save_instance

    inst = generate_vc_instance(4, 10, 0.4, 0.5, 0.5, rng=3)
    path = tmp_path / "i.json"
    save_instance(inst, path)
    names = ["mcb8", "gr", "sg", "lp-closed", "milp"]
    got = cli_json(capsys, ["vc", "solve", str(path), "--method", ",".join(names), "--json"])
    expected = [result_row(solve(inst, m, **({"time_limit": 60.0} if m == "milp" else {})), inst) for m in names]
    assert untimed(got) == untimed(expected)


def test_moldable_solve_and_bound_are_the_python_calls(tmp_path, capsys):
    from heuristics.moldable.methods import result_row, solve
    from lowerbounds.moldable import makespan_lower_bound, minsum_bound
    from vcsched.generators.moldable import generate_moldable_instance
    from vcsched.problems.moldable import save_instance

    inst = generate_moldable_instance(6, 10, "mixed", rng=2)
    path = tmp_path / "m.json"
    save_instance(inst, path)
    names = ["gang", "sequential", "list-lptf", "bicriteria"]
    got = cli_json(capsys, ["moldable", "solve", str(path), "--method", ",".join(names), "--seed", "0", "--json"])
    assert untimed(got) == untimed([result_row(solve(inst, m, rng=0), inst) for m in names])
    bound = cli_json(capsys, ["moldable", "bound", str(path), "--json"])
    assert bound["minsum_lb"] == pytest.approx(minsum_bound(inst, "interval").bound, rel=1e-9)
    assert bound["makespan_lb"] == pytest.approx(makespan_lower_bound(inst)["bound"], rel=1e-12)


def test_grid_simulate_is_build_then_simulate_grid(tmp_path, capsys):
    from vcsched.scenarios.grid_build import build
    from vcsched.sim import simulate_grid
    from vcsched.sim.output import metrics

    trace = swf(tmp_path)
    got = cli_json(capsys, ["grid", "simulate", "--trace", trace, "--policy", "easy", "--json"])
    run = build(trace=trace, policy="easy")
    expected = metrics(simulate_grid(run.clusters, run.jobs))["overall"]
    for key, value in expected.items():
        assert got["overall"][key] == pytest.approx(value), key


def test_grid_bound_is_batch_bounds(tmp_path, capsys):
    from lowerbounds.batch import batch_bounds
    from vcsched.scenarios.grid_build import build

    trace = swf(tmp_path)
    got = cli_json(capsys, ["grid", "bound", "--trace", trace, "--method", "quick", "--json"])
    run = build(trace=trace)
    bounds = batch_bounds(run.jobs, run.clusters, method="quick")
    for name, b in bounds.bounds.items():
        assert got["bounds"][name]["value"] == pytest.approx(b.value), name


def test_timeshare_bound_is_timeshare_bounds_on_the_built_instance(capsys):
    from lowerbounds.timeshare import timeshare_bounds
    from vcsched.scenarios.timeshare import build

    got = cli_json(capsys, ["timeshare", "bound", "--scenario", "b", "--tasks", "10", "--seed", "1", "--method",
                            "quick", "--json"])
    inst = build("b", tasks=10, seed=1)
    expected = timeshare_bounds(inst.platform, inst.workload, work_factor=inst.work_factor, method="quick")
    assert {k: v["value"] for k, v in got.items()} == pytest.approx({k: b.value for k, b in expected.items()})


def test_diet_bound_is_diet_bounds_on_the_built_scenario(capsys):
    from lowerbounds.diet import diet_bounds
    from vcsched.scenarios.diet import build

    got = cli_json(capsys, ["diet", "bound", "--experiment", "bursty", "--interarrival", "0.25", "--method", "quick",
                            "--json"])
    expected = diet_bounds(build("bursty", interarrival=0.25), method="quick")
    assert {k: v["value"] for k, v in got["metrics"].items()} == pytest.approx(
        {k: b.value for k, b in expected.items()})
    assert np.isfinite([v["value"] for v in got["metrics"].values()]).all()
