"""MCT (NetSolve), HMCT, MP, MSF (seed 003 Figs 2-4) and the metrics of §3."""

import math

import numpy as np
import pytest

from heuristics.timeshare import HMCT, MCT, MP, MSF, REGISTRY, evaluate, run_heuristic
from vcsched.errors import UnknownNameError
from vcsched.generators.timeshare import generate_scenario
from vcsched.problems.timeshare import Platform, TimeshareWorkload, compare_with, metrics, server_shares
from vcsched.sim.timeshare import simulate_timeshare


def tiny_platform(memory=(np.inf, np.inf), task_memory=(0.0,)):
    return Platform(name="tiny", servers=("fast", "slow"), input=[[1.0], [1.0]], compute=[[10.0], [20.0]],
                    output=[[0.5], [0.5]], memory=memory, task_memory=task_memory)


def test_registry_names():
    assert REGISTRY.names() == ["mct", "hmct", "mp", "msf"]
    with pytest.raises(UnknownNameError, match="did you mean 'msf'"):
        REGISTRY.get("msff")


@pytest.mark.parametrize("policy, expected", [(HMCT, [0, 0]), (MP, [0, 1]), (MSF, [0, 1]), (MCT, [0, 0])])
def test_choices_on_a_tiny_case(policy, expected):
    # task 1 at t=2: fast server -> T = 21.5 and delays task 0 by 8 s; slow server -> T = 23.5.
    # HMCT takes the fast one; MP (P = 8 vs 0) and MSF (8 + 19.5 vs 0 + 21.5) the slow one;
    # MCT sees load 1 on fast (2 + 1.5 + 20 = 23.5) = slow (23.5): tie -> first server.
    run = simulate_timeshare(tiny_platform(), TimeshareWorkload.independent([0.0, 2.0], [0, 0]), policy())
    assert run.server.tolist() == expected


def test_mp_ties_go_to_hmct():
    # two idle servers: P = 0 on both, MP takes the earliest completion (the fast one)
    run = simulate_timeshare(tiny_platform(), TimeshareWorkload.independent([0.0], [0]), MP())
    assert run.server.tolist() == [0]


def test_mp_prefers_idle_slow_server():
    # the fast server is busy: any task there perturbs it, the idle slow one has P = 0
    run = simulate_timeshare(tiny_platform(), TimeshareWorkload.independent([0.0, 0.0, 0.0], [0, 0, 0]), MP())
    assert run.server.tolist() == [0, 1, 0]


def test_mct_load_bookkeeping():
    pol = MCT()
    pol.start(tiny_platform(), 3)
    assert list(pol.choose(0, 0, 0.0)) == [0, 1]
    assert pol.load.tolist() == [1.0, 0.0]
    assert pol.estimates(0, 0.0).tolist() == [21.5, 21.5]  # 1.5 + 10 * 2 ; 1.5 + 20
    pol.load_report(0, 3, 1.0)
    assert pol.load.tolist() == [3.0, 0.0]
    pol.task_finished(0, 0, 2.0)
    pol.task_finished(1, 1, 2.0)  # never below 0
    assert pol.load.tolist() == [2.0, 0.0]


def test_mct_retries_but_htm_heuristics_lose_tasks():
    plat = tiny_platform(memory=(100.0, 100.0), task_memory=(60.0,))
    plat = Platform(name="m", servers=("fast", "slow"), input=[[1.0], [1.0]], compute=[[10.0], [200.0]],
                    output=[[0.5], [0.5]], memory=[100.0, 100.0], task_memory=[60.0])
    wl = TimeshareWorkload.independent([0.0, 0.0], [0, 0])
    mct = simulate_timeshare(plat, wl, MCT())
    hmct = simulate_timeshare(plat, wl, HMCT())
    assert mct.server.tolist() == [0, 1] and mct.refusals.tolist() == [0, 1]
    assert hmct.server.tolist() == [0, -1] and math.isnan(hmct.completion[1])
    assert metrics(hmct.arrival, hmct.completion, hmct.duration)["completed"] == 1


def test_overflow_close_keeps_a_full_server_closed():
    # 100 MB servers, 60 MB tasks. t=0: MCT maps task 0 to fast; task 1 ranks fast first (1.5 + 10 x 2 = 21.5
    # < 201.5), fast is full, so it goes to slow (done at 201.5). t=50: fast is empty again (task 0 done at 11.5).
    # "refuse": task 2 runs on fast, done at 61.5. "close": fast closed at its refusal of task 1, slow still
    # holds task 1: task 2 is refused twice and lost.
    plat = Platform(name="m", servers=("fast", "slow"), input=[[1.0], [1.0]], compute=[[10.0], [200.0]],
                    output=[[0.5], [0.5]], memory=[100.0, 100.0], task_memory=[60.0])
    wl = TimeshareWorkload.independent([0.0, 0.0, 50.0], [0, 0, 0])
    refuse = simulate_timeshare(plat, wl, MCT())
    close = simulate_timeshare(plat, wl, MCT(), overflow="close")
    assert refuse.server.tolist() == [0, 1, 0] and refuse.completion[2] == pytest.approx(61.5)
    assert close.server.tolist() == [0, 1, -1] and close.refusals.tolist() == [0, 1, 2]
    assert math.isnan(close.completion[2])


def test_unknown_overflow_rule_is_refused():
    from vcsched.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="overflow"):
        simulate_timeshare(tiny_platform(), TimeshareWorkload.independent([0.0], [0]), MCT(), overflow="crash")


def test_swap_share_counts_part_of_the_swap():
    from vcsched.errors import InvalidInputError
    from vcsched.problems.timeshare import make_platform

    servers = ("pulney", "artimon")
    half = make_platform("dgemm", servers, memory="ram+swap", swap_share=0.5)
    assert half.memory.tolist() == [256.0 + 0.5 * 533.0, 512.0 + 0.5 * 1024.0]   # Table 3
    assert make_platform("dgemm", servers, memory="ram+swap").memory.tolist() == [789.0, 1536.0]
    with pytest.raises(InvalidInputError, match="swap_share"):
        make_platform("dgemm", servers, memory="ram+swap", swap_share=1.5)


def test_metrics_closed_form():
    m = metrics([0.0, 10.0, 20.0], [30.0, 15.0, np.nan], [10.0, 5.0, 1.0])
    assert m == {"completed": 2, "makespan": 30.0, "sumflow": 35.0, "maxflow": 30.0, "maxstretch": 3.0,
                 "meanflow": 17.5}


def test_compare_with_threshold():
    ref = np.array([10.0, 10.0, 10.0, 10.0, np.nan, np.nan])
    run = np.array([7.9, 8.5, 12.0, 10.0, 50.0, np.nan])
    sooner, later = compare_with(run, ref)
    # sooner: 7.9 (by 2.1) and task 4 (completed only here); later: 12.0 (by exactly 2)
    assert sooner == pytest.approx(100 * 2 / 6) and later == pytest.approx(100 * 1 / 6)


def test_server_shares():
    rows = server_shares(np.array([0, 0, 1, -1]), np.array([0, 1, 2, 0]), np.array([0.0, 0, 0, 0]),
                         np.array([5.0, 7.0, 9.0, np.nan]), ("a", "b"))
    assert rows[0]["percent"] == 50.0 and rows[0]["sumflow"] == 12.0 and rows[0]["percent_type2"] == 25.0
    assert rows[1]["percent_type3"] == 25.0 and rows[1]["sumflow"] == 9.0


def test_evaluate_rows_and_mct_reference():
    inst = generate_scenario("b", mu=17, rng=1)
    rows = evaluate(inst, ["msf", "hmct"])
    assert [r["heuristic"] for r in rows] == ["msf", "hmct"]
    for r in rows:
        assert r["completed"] == 500 and 0 <= r["sooner_than_mct"] + r["later_than_mct"] <= 100
    mct = run_heuristic("mct", inst)
    msf = run_heuristic("msf", inst)
    assert rows[0]["sooner_than_mct"] == compare_with(msf.completion, mct.completion)[0]
    assert evaluate(inst, ["mct"])[0]["sooner_than_mct"] == 0.0


def test_same_seed_identical_results():
    a = evaluate(generate_scenario("j", rng=7))
    b = evaluate(generate_scenario("j", rng=7))
    strip = lambda rows: [{k: v for k, v in r.items() if "seconds" not in k} for r in rows]  # noqa: E731
    assert strip(a) == strip(b)
    c = evaluate(generate_scenario("j", rng=8))
    assert strip(a) != strip(c)


def test_qualitative_findings_scenario_b():
    # §5.2.3 at mu = 17: HMCT and MSF beat MCT on sumflow; MCT and HMCT starve the slow servers
    inst = generate_scenario("b", mu=17, rng=1)
    rows = {r["heuristic"]: r for r in evaluate(inst, details=True)}
    assert rows["hmct"]["sumflow"] < rows["mct"]["sumflow"]
    assert rows["msf"]["sumflow"] <= rows["hmct"]["sumflow"] + 1e-6
    slow = lambda name: sum(s["percent"] for s in rows[name]["servers"] if s["server"] in ("soyotte", "fonck"))  # noqa: E731
    assert slow("mct") < 2.0 and slow("hmct") < 2.0 and slow("mp") > 5.0
