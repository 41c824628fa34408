"""Algorithm 2 (GlobalTaskManager, seed 004 §5.2): the window-time rules, alone and inside the simulator."""

import dataclasses

import pytest

from heuristics.diet import (
    GlobalTaskManager,
    WindowParams,
    make_approach,
    refine_first_free,
    window_time_after_idle,
    window_time_after_schedule,
)
from vcsched.errors import InvalidInputError
from vcsched.problems.diet import AgentTree, DietPlatform, TaskSpec, Workload
from vcsched.sim.diet import simulate_diet

P = WindowParams(min_win_time=0.005, max_win_size=4, win_adapt_factor=0.5, task_latency=1.0)
ZERO = DietPlatform(hop_latency=0.0, agent_time=0.0, sed_time=0.0, submit_overhead=0.0, n_best=4)


def test_idle_halves_down_to_min_win_time():
    assert window_time_after_idle(1.0, P) == 0.5
    assert window_time_after_idle(0.008, P) == 0.005
    assert window_time_after_idle(0.005, P) == 0.005


def test_after_scheduling_task_latency_or_adapt_factor():
    assert window_time_after_schedule(0.0, P) == 1.0        # minQueueWait < taskLatency -> taskLatency
    assert window_time_after_schedule(0.999, P) == 1.0
    assert window_time_after_schedule(10.0, P) == 5.0       # winAdaptFactor x minQueueWait
    assert window_time_after_schedule(1.0, P) == 0.5        # the paper's rule as written (factor < 1)


def test_invalid_parameters_say_which():
    with pytest.raises(InvalidInputError, match="maxWinSize"):
        WindowParams(max_win_size=0)
    with pytest.raises(InvalidInputError, match="minWinTime"):
        WindowParams(min_win_time=0.0)


class SpyMaster(GlobalTaskManager):
    """Algorithm 2 with a refine that records the minQueueWait of each window."""

    def __init__(self, params, refine_fn):
        seen = []

        def spy(responses, costs):
            out = refine_fn(responses, costs)
            seen.append(out[1])
            return out

        super().__init__(params, spy)
        object.__setattr__(self, "seen", seen)


def one_sed_tree():
    return AgentTree(root="MA", parent={"LA0": "MA", "s0": "LA0", "s1": "LA0"}, seds=["s0", "s1"])


def run_ts(arrivals, master):
    pol = dataclasses.replace(make_approach("task-scheduler"), master=master)
    return simulate_diet(one_sed_tree(), Workload(arrivals=tuple(arrivals)), pol, platform=ZERO, rng=0, trace=True)


def test_window_loop_in_the_simulator():
    # 4 tasks of 10 s: at t=0 two (window 1 takes both, servers idle: next window after taskLatency = 1 s);
    # then 3 at t=0.2 .. queue forms on s0, s1 (limit 2 each)
    spy = SpyMaster(P, refine_first_free)
    task = TaskSpec(10.0)
    run = run_ts([(0.0, task), (0.0, task)] + [(0.2, task)] * 3, spy)
    windows = [(t, n) for t, n, _ in run.windows]
    assert windows[0] == (0.0, 2)
    assert windows[1][0] == pytest.approx(1.0) and windows[1][1] == 3   # taskLatency after the first window
    assert spy.seen[0] == 0.0                                          # idle servers: minQueueWait 0
    # second window: s0, s1 each run 1 job (started at 0), a slot free on each -> minQueueWait 0 -> 1 s again
    assert run.windows[1][2] == 1.0
    ticks = [t for t, what, *_ in run.trace if what == "tick"]
    # after the 2nd window at t=1: tick at 2 (idle) -> window 0.5 -> 2.5 -> 0.25 -> 2.75 ... halving to 5 ms
    assert ticks[2:6] == pytest.approx([2.0, 2.5, 2.75, 2.875])
    assert all(r.done == r.done for r in run.tasks)  # every task completed (no NaN)


def test_adapt_factor_times_min_queue_wait_sets_the_sleep():
    spy = SpyMaster(P, refine_first_free)
    task = TaskSpec(10.0)
    # 4 tasks at 0 fill both SeDs (2 slots each); 2 more at 0.5 see full SeDs: queue wait 10 - 1 = 9 each
    run = run_ts([(0.0, task)] * 4 + [(0.5, task)] * 2, spy)
    assert spy.seen[0] == 0.0
    t2, n2, wt2 = run.windows[1]
    assert (t2, n2) == (pytest.approx(1.0), 2)
    assert spy.seen[1] == pytest.approx(9.0)      # slots free at 10, now 1; nobody waiting yet
    assert wt2 == pytest.approx(0.5 * 9.0)
    ticks = [t for t, what, *_ in run.trace if what == "tick"]
    assert ticks[2] == pytest.approx(1.0 + 4.5)


def test_parked_ma_wakes_on_the_polling_grid():
    spy = SpyMaster(P, refine_first_free)
    run = run_ts([(1.0012, TaskSpec(1.0))], spy)
    release = [t for t, what, *_ in run.trace if what == "release"]
    assert release == pytest.approx([1.005])     # first multiple of 5 ms after the arrival
