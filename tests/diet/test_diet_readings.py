"""Readings of seed 004 tested for fidelity: Algorithm 3 to the letter, and the window length
(winAdaptFactor) in Table 1."""

import json

import pytest

from heuristics.diet import WindowParams, make_approach, refine_first_free, refine_last_free
from vcsched.cli import main
from vcsched.scenarios.diet import add_seds, simulate_scenario
from vcsched.sim.diet_policy import Response


def resp(name, wait=0.0):
    return Response(name, 10.0, 0, 1.0, wait, 2)


def test_last_free_keeps_the_last_unused_server_of_each_list():
    a, b, c, d = (resp(x) for x in "abcd")
    lists = [[a, b, c, d], [b, a, d, c], [c, d, a, b], [a, b, c, d], [d, c, b, a]]
    # request 1: its best (a); 2: unused b, d, c -> c; 3: unused d, b -> b; 4: unused d -> d;
    # 5: every server used -> its best (d)
    assert refine_last_free(lists)[0] == ["a", "c", "b", "d", "d"]
    # Algorithm 3 with the first unused server instead: a, b, c, d, then the best (d)
    assert refine_first_free(lists)[0] == ["a", "b", "c", "d", "d"]


def test_last_free_min_queue_wait_is_over_all_responses():
    lists = [[resp("a", 30.0), resp("b", 12.0)], [resp("b", 12.0), resp("a", 30.0)]]
    assert refine_last_free(lists) == (["a", "b"], 12.0)


def test_longer_windows_delay_the_new_seds_in_table_1():
    # after the 20th request every slot of the 8 original SeDs is busy: the MA sleeps winAdaptFactor x
    # minQueueWait (about 71 s); at 0.5 it wakes at about 55 s, at 1.65 at about 137 s, long after the
    # 4 new SeDs joined (64 s), and the makespan grows
    sc = add_seds()
    spans = {}
    for waf in (0.5, 1.65):
        pol = make_approach("task-scheduler", window=WindowParams(win_adapt_factor=waf))
        spans[waf] = simulate_scenario(sc, pol, seed=1)["makespan"]
    assert spans[1.65] > spans[0.5] + 20.0


def test_cli_refine_last_free(capsys):
    code = main(["diet", "simulate", "--experiment", "add-seds", "--approach", "task-scheduler", "--refine",
                 "last-free", "--seed", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    lib = simulate_scenario(add_seds(), make_approach("task-scheduler", refine="last-free",
                                                      window=WindowParams(max_win_size=8)), seed=2)
    assert code == 0 and out["makespan"] == pytest.approx(lib["makespan"])
    assert out["approach"] == "task-scheduler/last-free"
