"""Processor sharing (seed 003 §2.3) against closed forms, and exact traces of the simulator."""

import math

import numpy as np
import pytest

import vcsched.sim.processor_sharing as ps_module
from vcsched.problems.timeshare import Platform, TimeshareWorkload
from vcsched.sim.processor_sharing import ps_advance, ps_completion_times
from vcsched.sim.timeshare import TimesharePolicy, simulate_timeshare


def tiny_platform(memory=(np.inf, np.inf), task_memory=(0.0,)):
    return Platform(name="tiny", servers=("fast", "slow"), input=[[1.0], [1.0]], compute=[[10.0], [20.0]],
                    output=[[0.5], [0.5]], memory=memory, task_memory=task_memory)


class Fixed(TimesharePolicy):
    """Sends task i to servers[i] (a ranked list when given a tuple)."""

    def __init__(self, servers):
        self.servers = servers

    def choose(self, task, ttype, now):
        s = self.servers[task]
        return s if isinstance(s, tuple) else (s,)


def test_two_tasks_started_together():
    # each gets 1/2: the short one ends at 2 * 10, the long one then runs alone
    assert ps_completion_times([10.0, 30.0]).tolist() == [20.0, 40.0]
    # n equal tasks end together at n * w
    assert ps_completion_times([5.0] * 4).tolist() == [20.0] * 4


def test_task_arriving_midway():
    # task 0 alone for 5 s (5 left), then both at 1/2: task 0 ends at 5 + 2 * 5 = 15,
    # task 1 has 5 left and ends alone at 20
    assert ps_completion_times([10.0, 10.0], [0.0, 5.0]).tolist() == [15.0, 20.0]
    # a long task arriving mid-way behind a short one: 12 = 4 + 2 * 4, then 30 - 4 = 26 left alone
    out = ps_completion_times([8.0, 30.0], [0.0, 4.0])
    assert out.tolist() == pytest.approx([12.0, 12.0 + 26.0])


def test_water_level_formula_random():
    rng = np.random.default_rng(5)
    for _ in range(20):
        w = rng.uniform(1, 100, size=rng.integers(1, 30))
        ws = np.sort(w)
        n = ws.size
        expected = np.cumsum(np.diff(ws, prepend=0.0) * np.arange(n, 0, -1))
        got = ps_completion_times(w)
        assert np.allclose(np.sort(got), expected)


def brute_force_ps(works, starts, dt=1e-3):
    """Time-stepped processor sharing, for comparison."""
    works = np.array(works, float)
    starts = np.array(starts, float)
    left = works.copy()
    end = np.full(works.size, np.nan)
    t = 0.0
    while np.isnan(end).any():
        active = (starts <= t + 1e-12) & np.isnan(end)
        if active.any():
            left[active] -= dt / active.sum()
            for i in np.flatnonzero(active & (left <= 1e-12)):
                end[i] = t + dt
        t += dt
    return end


def test_against_time_stepping():
    works, starts = [3.0, 1.0, 2.0], [0.0, 0.5, 1.2]
    assert np.allclose(ps_completion_times(works, starts), brute_force_ps(works, starts), atol=5e-3)


def test_advance_until_keeps_state():
    # two tasks of work 10 from t=0: at t=4 each has done 2, virtual time is 2
    t, v, tags, ids, joins, e_ids, e_times = ps_advance(0.0, 0.0, np.array([10.0, 10.0]), np.array([0, 1]), [],
                                                         until=4.0)
    assert (t, v) == (4.0, 2.0) and e_ids.size == 0 and tags.tolist() == [10.0, 10.0]
    # and the rest ends at 4 + 2 * 8
    *_, e_ids, e_times = ps_advance(t, v, tags, ids, joins)
    assert e_times.tolist() == [20.0, 20.0]


def test_numpy_and_list_paths_agree(monkeypatch):
    rng = np.random.default_rng(1)
    tags = np.sort(rng.uniform(0, 50, 40))
    ids = np.arange(40)
    joins = [(3.0, 7.0, 100), (9.5, 1.0, 101), (30.0, 12.0, 102)]
    small = ps_advance(0.0, 0.0, tags, ids, joins)
    monkeypatch.setattr(ps_module, "_SMALL", 0)
    big = ps_advance(0.0, 0.0, tags, ids, joins)
    assert np.array_equal(small[5], big[5]) and np.array_equal(small[6], big[6])


def test_simulator_exact_trace():
    # task 0 (t=0) and task 1 (t=2) both on the fast server: input 1 s each;
    # at t=3 task 0 has 8 s of work left and shares with task 1: it ends at 3 + 16 = 19,
    # task 1 has 2 left and ends at 21; outputs take 0.5 s
    wl = TimeshareWorkload.independent([0.0, 2.0], [0, 0])
    run = simulate_timeshare(tiny_platform(), wl, Fixed([0, 0]), trace=True)
    assert run.trace == [(0.0, "submit", 0, 0), (1.0, "start", 0, 0), (2.0, "submit", 1, 0),
                         (3.0, "start", 1, 0), (19.0, "compute_end", 0, 0), (19.5, "done", 0, 0),
                         (21.0, "compute_end", 1, 0), (21.5, "done", 1, 0)]
    assert run.completion.tolist() == [19.5, 21.5]
    assert run.duration.tolist() == [11.5, 11.5]


def test_transfers_are_not_shared():
    # a task in its input phase does not slow the computing one
    wl = TimeshareWorkload.independent([0.0, 5.0], [0, 0])
    plat = Platform(name="t", servers=("s",), input=[[4.0]], compute=[[10.0]], output=[[3.0]],
                    memory=[np.inf], task_memory=[0.0])
    run = simulate_timeshare(plat, wl, Fixed([0, 0]), trace=True)
    # task 0 computes alone from 4 to 9 (5 done), shares from 9: ends at 9 + 10 = 19, task 1 at 19 + 5 = 24
    assert run.compute_end.tolist() == [19.0, 24.0]
    assert run.completion.tolist() == [22.0, 27.0]


def test_memory_refusal_and_retry():
    plat = tiny_platform(memory=(100.0, 100.0), task_memory=(60.0,))
    wl = TimeshareWorkload.independent([0.0, 0.0, 0.0], [0, 0, 0])
    # task 1 tries the fast server (full) then the slow one; task 2 has no second choice: lost
    run = simulate_timeshare(plat, wl, Fixed([0, (0, 1), 0]), trace=True)
    assert run.server.tolist() == [0, 1, -1]
    assert run.refusals.tolist() == [0, 1, 1]
    assert math.isnan(run.completion[2]) and run.completion[0] == 11.5
    assert (0.0, "refuse", 1, 0) in run.trace and (0.0, "lost", 2, -1) in run.trace


def test_memory_is_released_at_completion():
    plat = tiny_platform(memory=(100.0, 100.0), task_memory=(60.0,))
    wl = TimeshareWorkload.independent([0.0, 11.5], [0, 0])  # the second arrives when the first is done
    run = simulate_timeshare(plat, wl, Fixed([0, 0]))
    assert run.server.tolist() == [0, 0]


def test_lost_task_releases_children():
    plat = tiny_platform(memory=(100.0, 100.0), task_memory=(60.0,))
    wl = TimeshareWorkload(np.array([0, 0, 0]), np.array([0.0, 0.0, np.nan]), ((), (), (1,)), np.array([-1, 0, 0]))
    run = simulate_timeshare(plat, wl, Fixed([0, 0, 1]))
    assert run.server.tolist() == [0, -1, 1]
    assert run.arrival[2] == 0.0  # released at the refusal of its parent


class Recorder(TimesharePolicy):
    def __init__(self):
        self.reports = []
        self.finished = []

    def choose(self, task, ttype, now):
        return (0,)

    def load_report(self, server, load, now):
        self.reports.append((now, server, load))

    def task_finished(self, server, task, now):
        self.finished.append((now, server, task))


def test_load_reports_at_most_every_period():
    plat = tiny_platform()
    wl = TimeshareWorkload.independent([0.0, 2.0, 70.0], [0, 0, 0])
    pol = Recorder()
    simulate_timeshare(plat, wl, pol, report_period=60.0)
    # load 1 at t=1 (reported at once); 2 at t=3, 1 at 19, 0 at 21: inside the period, the
    # load at t=61 (0) differs from the last report (1) and is sent; then t=71 (load 1)
    # waits for 121 where the load (0) equals the last report: nothing sent.
    assert pol.reports == [(1.0, 0, 1), (61.0, 0, 0)]
    assert pol.finished == [(19.5, 0, 0), (21.5, 0, 1), (81.5, 0, 2)]


def test_load_average_sensor():
    # one 120 s task alone: the 1-min load average is 1 - e^-1 at t=60 (reported: moved by >= 0.5),
    # 1 - e^-2 at t=120 when the task ends (moved by 0.23 only: not reported); the checks stop
    # once every task is done
    plat = Platform(name="s", servers=("s",), input=[[0.0]], compute=[[120.0]], output=[[0.0]],
                    memory=[np.inf], task_memory=[0.0])
    pol = Recorder()
    simulate_timeshare(plat, TimeshareWorkload.independent([0.0], [0]), pol, load_sensor="loadavg")
    assert len(pol.reports) == 1
    t, s, load = pol.reports[0]
    assert (t, s) == (60.0, 0) and load == pytest.approx(1 - math.exp(-1))
    with pytest.raises(ValueError, match="load sensor"):
        simulate_timeshare(plat, TimeshareWorkload.independent([0.0], [0]), pol, load_sensor="uptime")
