"""RefinePlacement: Algorithm 3 (seed 004 §5.2) and the MinMin / Sufferage / MSF variants (§7.2)."""

import numpy as np
import pytest

from heuristics.diet import REFINE, make_approach, refine_first_free, refine_minmin, refine_msf, refine_sufferage
from vcsched.scenarios.diet import bursty, simulate_scenario
from vcsched.sim.diet_policy import Response


def resp(name, exec_time=10.0, jobs=0, wait=0.0, slots=2):
    return Response(name, exec_time, jobs, 1.0, wait, slots)


def test_first_free_takes_the_best_unused_server():
    a, b, c = resp("a"), resp("b"), resp("c")
    chosen, mqw = refine_first_free([[a, b, c], [a, b, c], [b, a, c]])
    assert chosen == ["a", "b", "c"]       # not the *last* unused one (literal reading of the figure)
    assert mqw == 0.0


def test_first_free_falls_back_to_best_when_all_used():
    a, b = resp("a"), resp("b")
    assert refine_first_free([[a, b], [b, a], [b, a]])[0] == ["a", "b", "b"]


def test_min_queue_wait_is_the_smallest_estimate_of_the_window():
    _, mqw = refine_first_free([[resp("a", wait=7.0), resp("b", wait=3.0)], [resp("c", wait=5.0)]])
    assert mqw == 3.0


@pytest.mark.parametrize("seed", range(30))
def test_never_two_window_tasks_on_one_server_when_enough_answered(seed):
    rng = np.random.default_rng(seed)
    servers = [f"s{k}" for k in range(int(rng.integers(1, 12)))]
    size = int(rng.integers(1, len(servers) + 1))         # window no larger than the lists
    lists = [[resp(s) for s in rng.permutation(servers)] for _ in range(size)]
    for fn in (refine_first_free, refine_minmin, refine_sufferage, refine_msf):
        chosen, _ = fn(lists, [10.0] * size)
        assert len(set(chosen)) == size, fn.__name__
        assert all(c in {r.sed for r in lst} for c, lst in zip(chosen, lists))


def test_sufferage_differs_from_minmin_on_a_classic_case():
    # t0: A 1, B 2 ; t1: A 2, B 10 (one slot each, both idle)
    lists = [[resp("A", 1.0, slots=1), resp("B", 2.0, slots=1)], [resp("A", 2.0, slots=1), resp("B", 10.0, slots=1)]]
    assert refine_minmin(lists, [1.0, 2.0])[0] == ["A", "A"]        # t0 on A (1), then t1 on A at 1 + 2 = 3 < 10
    assert refine_sufferage(lists, [1.0, 2.0])[0] == ["B", "A"]     # t1 would lose 8, t0 only 1
    assert refine_msf(lists, [1.0, 2.0])[0] == ["A", "A"]           # shortest first, earliest completion


def test_variants_use_queue_wait_estimates():
    # server a: both slots busy, next start in 30 s; b: one slot free
    lists = [[resp("a", 10.0, jobs=2, wait=30.0), resp("b", 10.0, jobs=1, wait=0.0)]] * 2
    for fn in (refine_minmin, refine_sufferage, refine_msf):
        assert fn(lists, [10.0, 10.0])[0][0] == "b"


def test_registry_names():
    assert REFINE.names() == ["first-free", "last-free", "minmin", "sufferage", "msf"]


def test_task_scheduler_spreads_a_burst_over_all_seds():
    # §6.2 with inter-arrival 0: the 8 requests form one window and RefinePlacement gives 8 distinct SeDs
    for refine in ("first-free", "minmin", "sufferage", "msf"):
        m = simulate_scenario(bursty(0.0), make_approach("task-scheduler", refine=refine), seed=1)
        assert sorted(m["tasks_per_sed"].values()) == [1] * 8, refine
