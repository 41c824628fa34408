"""Exact VCSched methods start from the heuristics' allocations and say what they are doing."""

from __future__ import annotations

import io

import numpy as np

from heuristics.vc.methods import solve, solve_many
from vcsched import progress
from vcsched.cli.common import status_line
from vcsched.formulations.vc_milp import solve_vc_milp
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems.vc import VCInstance, check_allocation


def test_milp_after_heuristics_never_reports_less_than_they_found():
    inst = generate_vc_instance(32, 300, 0.3, 0.25, 0.25, rng=3)
    results = solve_many(inst, ["milp", "mcb8", "gr"], time_limit=0.5)
    assert [r.method for r in results] == ["milp", "mcb8", "gr"]  # the order asked
    milp, mcb8, gr = results
    assert milp.status.has_solution and check_allocation(inst, milp.solution).valid
    assert milp.objective >= max(mcb8.objective, gr.objective) - 1e-12


def test_milp_ignores_a_start_that_breaks_memory_or_the_budget():
    inst = VCInstance.from_arrays(2, [0.6, 0.6, 0.3], [0.6, 0.6, 0.1], current_host=[0, 1, 0], migration_budget=0.0)
    crowded = np.array([0, 0, 1])  # memory 1.2 on host 0
    moved = np.array([1, 0, 0])  # fits, but moves two jobs
    res = solve_vc_milp(inst, starts=[crowded, moved], budget=0.0, budget_mode="count")
    assert res.status.value == "optimal"
    assert res.extra["migrations"] == 0 and list(res.solution.task_host) == [0, 1, 0]


def test_progress_reports_each_method_and_the_status_line_shows_them():
    seen = []
    inst = generate_vc_instance(4, 12, 0.3, 0.25, 0.25, rng=1)
    with progress.observe(seen.append):
        solve_many(inst, ["milp", "mcb8"])
    assert [(f["method"], f["index"], f["total"]) for f in seen if "method" in f] == [("mcb8", 1, 2), ("milp", 2, 2)]

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    with status_line(screen) as line:
        progress.report(method="milp", index=2, total=3)
        progress.report(elapsed=4.2, incumbent=0.25, bound=0.2546)
    assert line.state["method"] == "milp"
    assert "[2/3] milp  4 s  incumbent 0.25  bound 0.2546" in screen.getvalue()
    assert not progress.observing()
    quiet = io.StringIO()  # not a terminal: nothing written
    with status_line(quiet):
        progress.report(method="milp", index=1, total=1)
    assert quiet.getvalue() == ""


def test_adapt_exact_says_how_many_milps_it_may_solve():
    from vcsched.cli.vc import adapt_exact_estimate
    from vcsched.sim.vcdynamic import DynamicWorkload

    w = DynamicWorkload(np.array([0.0, 1.0, 5.0]), np.array([2.0, 10.0, 1.0]), np.full(3, 0.5), np.full(3, 0.1),
                        np.ones(3, dtype=int))
    line = adapt_exact_estimate(w, duration=6.0, time_limit=10)
    assert "up to 5 MILPs (3 arrivals, 2 departures)" in line and "at most 0.8 min" in line
    assert solve(generate_vc_instance(3, 6, 0.3, 0.25, 0.25, rng=0), "milp").status.value == "optimal"
