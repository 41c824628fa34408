"""The alternative readings of Algorithm 2 (seed 000 §2.2, §3.4, §4.2-4.3) on hand-computed cases.

Each case is small enough to follow by hand; the expected start and finish times are
worked out in the docstrings. Every run is also checked by ``check_run`` (nothing lost,
the engine's invariants, the policy's counters).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from heuristics.grid.realloc import Reallocation
from tests.grid.test_grid_realloc import ALL_HEURISTICS, FIGURE1, _threshold_case, jobs_of, run
from vcsched.errors import InvalidInputError
from vcsched.sim import make_cluster


def two(batch="fcfs", procs=1):
    return [make_cluster("a", procs, policy=batch), make_cluster("b", procs, policy=batch)]


# ----------------------------------------------------------------- queue position of a resubmitted job
QUEUE_CASE = [  # (submit, run, requested, procs) on two 1-processor clusters
    (0, 10000, 10000, 1),  # j0 -> a (tie, first cluster), runs 0-10000
    (0, 10000, 10000, 1),  # j1 -> b (10000 < 20000), runs 0-10000
    (10, 100, 100, 1),     # j2 -> a (10100 = 10100, first cluster), waits
    (20, 5000, 5000, 1),   # j3 -> b (15000 < 15100), waits
    (30, 200, 200, 1),     # j4 -> a (10300 < 15200), waits behind j2
]


@pytest.mark.parametrize("batch", ["fcfs", "cbf"])
def test_grid_resubmitted_jobs_queue_in_the_heuristic_order_by_default(batch):
    """MaxMin-C at 3600: every cluster frees at 10000, so the ECTs are j2 10100, j3 15000, j4 10200.

    MaxMin resubmits j3 first (b, its own cluster on a tie), then j4 (10200 on a), then j2
    (10300 on a): j4 now precedes j2 on a, which the paper's §4.3 describes ("resubmitted
    after new jobs"). With ``queue_order="submission"`` the same clusters are chosen but a
    queues j2 before j4 again. No job changes cluster in either reading.
    """
    default = Reallocation("cancel", "maxmin")
    res = run(two(batch), jobs_of(QUEUE_CASE), default)
    assert res.cluster.tolist() == [0, 1, 0, 1, 0] and default.reallocations == 0
    assert res.start[[2, 3, 4]].tolist() == [10200.0, 10000.0, 10000.0]
    assert res.finish[[2, 4]].tolist() == [10300.0, 10200.0]

    fifo = Reallocation("cancel", "maxmin", queue_order="submission")
    res = run(two(batch), jobs_of(QUEUE_CASE), fifo)
    assert res.cluster.tolist() == [0, 1, 0, 1, 0] and fifo.reallocations == 0
    assert res.start[[2, 3, 4]].tolist() == [10000.0, 10000.0, 10100.0]
    assert res.finish[[2, 4]].tolist() == [10100.0, 10300.0]


def test_grid_queue_order_does_not_change_algorithm1_or_mct_order():
    """MCT-C resubmits in submission order anyway, and Algorithm 1 never re-queues: same schedule."""
    for algorithm, h in (("cancel", "mct"), ("no-cancel", "maxmin")):
        a = run(two(), jobs_of(QUEUE_CASE), Reallocation(algorithm, h))
        b = run(two(), jobs_of(QUEUE_CASE), Reallocation(algorithm, h, queue_order="submission"))
        assert a.start.tolist() == b.start.tolist() and a.cluster.tolist() == b.cluster.tolist()


# ----------------------------------------------------------------- threshold in Algorithm 2
@pytest.mark.parametrize("batch", ["fcfs", "cbf"])
@pytest.mark.parametrize("heuristic", ALL_HEURISTICS)
def test_grid_cancel_threshold_keeps_jobs_with_a_small_gain(batch, heuristic):
    """Same case as Algorithm 1's threshold test: B gains ``gain`` seconds for the waiting h.

    By default Algorithm 2 moves h for any gain; with ``cancel_threshold=True`` only a gain
    of more than 60 s moves it, as in Algorithm 1.
    """
    for gain, moved in ((1, True), (60, True), (61, True)):
        pol = Reallocation("cancel", heuristic)
        res = run([make_cluster("A", 4, policy=batch), make_cluster("B", 4, policy=batch)], _threshold_case(gain), pol)
        assert pol.reallocations == int(moved) and res.start[2] == 3600.0
    for gain, moved in ((1, False), (60, False), (61, True)):
        pol = Reallocation("cancel", heuristic, cancel_threshold=True)
        res = run([make_cluster("A", 4, policy=batch), make_cluster("B", 4, policy=batch)], _threshold_case(gain), pol)
        assert pol.reallocations == int(moved), gain
        assert res.start[2] == (3600.0 if moved else 3600.0 + gain)


# ----------------------------------------------------------------- "current ECT" of MaxGain in Algorithm 2
GAIN_CASE = [  # two 1-processor clusters, one event at 4500
    (0, 5000, 5000, 1),   # j0 -> a, runs 0-5000
    (0, 4000, 8000, 1),   # j1 -> b (8000 < 13000), ends early at 4000: b idle from then on
    (10, 2000, 2000, 1),  # x  -> a (7000 < 10000), waits
    (20, 500, 500, 1),    # y  -> a (7500 < 8500), waits behind x
]


def test_grid_maxgain_current_ect_readings():
    """At 4500, a frees at 5000 and b is free. Planned completions: x 7000, y 7500.

    ``resubmit`` (default): current = ECT on a after the cancellation, x 7000, y 5500;
    best x 6500 (b), y 5000 (b): gains 500 and 500, the tie goes to x, which moves to b
    (6500); then y: a 5500 < b 7000, stays on a. ``planned``: gains x 7000 - 6500 = 500,
    y 7500 - 5000 = 2500, so y goes first to b (5000); then x: a 7000 = b 7000, stays on a.
    """
    pol = Reallocation("cancel", "maxgain", first=4500)
    res = run(two(), jobs_of(GAIN_CASE), pol)
    assert res.cluster[2:].tolist() == [1, 0] and res.finish[2:].tolist() == [6500.0, 5500.0]
    assert pol.job_moves.tolist() == [0, 0, 1, 0]
    pol = Reallocation("cancel", "maxgain", first=4500, current_ect="planned")
    res = run(two(), jobs_of(GAIN_CASE), pol)
    assert res.cluster[2:].tolist() == [0, 1] and res.finish[2:].tolist() == [7000.0, 5000.0]
    assert pol.job_moves.tolist() == [0, 0, 0, 1]


# ----------------------------------------------------------------- what counts as a reallocation
def test_grid_move_counts_figure1():
    """Figure 1: h and i move once each from A to B: two moves, two jobs moved, two displaced."""
    pol = Reallocation("no-cancel", "mct")
    res = run([make_cluster("A", 4), make_cluster("B", 4)], jobs_of(FIGURE1), pol)
    assert pol.move_counts(res) == {"reallocations": 2, "jobs_moved": 2, "displaced": 2}
    assert pol.arrival_cluster.tolist() == [0, 1, 0, 0]


def test_grid_move_counts_there_and_back():
    """A job moved a -> b -> a counts twice (the paper's count), once as moved, never as displaced."""
    pol = Reallocation("cancel", "mct")
    pol._reset(3, 2)
    pol.arrival_cluster[:] = [0, 0, 1]
    pol._move(0, 0, 1)
    pol._move(0, 1, 0)
    pol._move(1, 0, 1)
    result = SimpleNamespace(cluster=np.array([0, 1, 1]))
    assert pol.move_counts(result) == {"reallocations": 3, "jobs_moved": 2, "displaced": 1}


def test_grid_reading_options_are_validated():
    with pytest.raises(InvalidInputError, match="queue order"):
        Reallocation("cancel", "mct", queue_order="fifo")
    with pytest.raises(InvalidInputError, match="current-ECT"):
        Reallocation("cancel", "mct", current_ect="before")
    pol = Reallocation("cancel", "maxgain", cancel_threshold=True, queue_order="submission", current_ect="planned")
    assert (pol.cancel_threshold, pol.queue_order, pol.current_ect) == (True, "submission", "planned")


# ----------------------------------------------------------------- scenario knobs and the command line
def test_grid_scenario_load_and_walltime_knobs():
    """``max_load`` caps each synthetic site's offered load over the month; ``overestimate`` bounds walltimes."""
    from vcsched.generators.lublin_workload import offered_load
    from vcsched.scenarios.grid import MONTH_DAYS, scenario_workloads

    duration = MONTH_DAYS["feb"] * 86400.0
    for w, (_, procs) in zip(scenario_workloads("feb", max_load=0.2, overestimate=1.5),
                             (("bordeaux", 640), ("lyon", 270), ("toulouse", 434))):
        # run times are rounded up to whole seconds after scaling: at most one second per job over the cap
        assert offered_load(w.processors, w.run_time, procs, duration) <= 0.2 + (w.processors.sum() / (procs * duration))
        # walltime = ceil(run x factor to a whole minute), factor <= 1.5
        assert (w.requested_time <= np.ceil(w.run_time * 1.5 / 60.0) * 60.0).all()
        assert (w.requested_time >= w.run_time).all()
    default = scenario_workloads("feb", days=2)
    assert [len(w) for w in scenario_workloads("feb", days=2, max_load=0.6, overestimate=10.0)] == [len(w) for w in default]


def test_grid_cli_reading_flags_reach_the_policy(capsys):
    """``--queue-order``, ``--cancel-threshold``, ``--current-ect``, ``--max-load``, ``--overestimate``."""
    import json

    from heuristics.grid.realloc import Reallocation
    from vcsched.cli import main
    from vcsched.scenarios.grid import build_scenario
    from vcsched.sim import simulate_grid

    args = ["grid", "simulate", "--scenario", "apr", "--days", "1", "--realloc", "cancel", "--heuristic", "maxgain",
            "--queue-order", "submission", "--cancel-threshold", "--current-ect", "planned", "--max-load", "0.8",
            "--overestimate", "3", "--json", "--no-progress"]
    assert main(args) == 0
    m = json.loads(capsys.readouterr().out)
    clusters, jobs = build_scenario("apr", days=1, max_load=0.8, overestimate=3)
    pol = Reallocation("cancel", "maxgain", queue_order="submission", cancel_threshold=True, current_ect="planned")
    simulate_grid(clusters, jobs, meta=pol)
    assert m["overall"]["reallocations"] == pol.reallocations > 0
    assert m["overall"]["jobs"] == len(jobs)


def test_grid_cli_reading_flags_out_of_place_are_errors(capsys):
    from vcsched.cli import main

    base = ["grid", "simulate", "--scenario", "feb", "--days", "1", "--no-progress"]
    assert main(base + ["--realloc", "no-cancel", "--queue-order", "submission"]) != 0
    assert "apply to --realloc cancel" in capsys.readouterr().err
    assert main(["grid", "simulate", "--trace", "KTH-SP2-1996-2.1-cln.swf.gz", "--max-load", "0.3"]) != 0
    assert "--scenario" in capsys.readouterr().err
