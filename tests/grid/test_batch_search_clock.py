"""The safety clock of the batch references: numba's compile time is left out (vcsched.jitclock), one metric cut
short by the clock leaves the other metrics' results as they are, and the lower side's clocked steps leave the
Lagrangian bound (sized by work) its time.

No test here compiles anything: a compile is played by numba's own event (``numba:compiler_lock``) around a jump of
a fake ``perf_counter`` (:mod:`tests.fake_clock`), so the clock's arithmetic is exact and the tests do not depend
on the machine's load.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba.core import event

import lowerbounds.batch.bounds as bounds_module
import lowerbounds.batch.clairvoyant as cv
import vcsched.jitclock as jitclock
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule
from lowerbounds.batch.lagrangian import WORK_PER_SECOND as LAGRANGE_WORK_PER_SECOND
from tests.fake_clock import play_compile


def test_the_clock_leaves_out_compile_time_counted_once(fake_clock):
    c0 = jitclock.clock()
    fake_clock.now += 2.0
    play_compile(fake_clock, 30.0, nested=True)
    fake_clock.now += 1.0
    assert jitclock.clock() - c0 == pytest.approx(3.0) and jitclock.jit_seconds() == pytest.approx(30.0)
    event.start_event(jitclock.COMPILE_EVENT)  # inside a compile the clock stands still
    fake_clock.now += 5.0
    assert jitclock.clock() - c0 == pytest.approx(3.0)
    event.end_event(jitclock.COMPILE_EVENT)
    event.end_event(jitclock.COMPILE_EVENT)  # an end without its start (a compile begun before the listener): ignored
    fake_clock.now += 1.0
    assert jitclock.clock() - c0 == pytest.approx(4.0) and jitclock.jit_seconds() == pytest.approx(35.0)


def _instance(n: int = 120) -> BatchInstance:
    rng = np.random.default_rng(4)
    r = np.sort(rng.exponential(30, n).cumsum())
    return BatchInstance.from_arrays(r, rng.integers(1, 9, n), rng.exponential(200, n)[:, None], [16])


def _search(inst, **kwargs):
    return cv.clairvoyant_schedules(inst, metrics=("makespan", "max_stretch"), time_limit=5.0, seed=3, budget=3e6,
                                    **kwargs)


def _same(a, b) -> bool:
    return (a.value == b.value and np.array_equal(a.start, b.start) and a.evaluations == b.evaluations
            and a.detail == b.detail)


def test_a_compile_longer_than_the_time_limit_does_not_stop_the_search(fake_clock, monkeypatch):
    inst = _instance()
    calm = _search(inst)
    assert all(s.stopped in ("budget", "patience", "done") for s in calm.values())
    real = cv.serial_schedule_counted

    def compiling(*args):  # every construction of the serial kind "compiles" for a minute first
        play_compile(fake_clock, 60.0)
        return real(*args)

    monkeypatch.setattr(cv, "serial_schedule_counted", compiling)
    first = _search(inst)
    for m, s in first.items():
        assert _same(s, calm[m]) and s.stopped == calm[m].stopped, m
        check_batch_schedule(inst, s.cluster, s.start)
    # the control: counted as search time, the same compiles stop the search on the clock
    monkeypatch.setattr(jitclock._TIMER, "seconds", lambda: 0.0)
    assert "time_limit" in {s.stopped for s in _search(inst).values()}


def _hurry(monkeypatch, fake_clock, metric: str, streams: dict) -> None:
    """``metric``'s search finds its share of the time gone as it starts; every metric's random stream is recorded as
    its search starts."""
    real = cv._improve

    def hurried(ev, feats, m, best, rng, limit, *args):
        streams[m] = rng.bit_generator.state
        if m == metric:
            fake_clock.now = limit.deadline + 1e-6
        return real(ev, feats, m, best, rng, limit, *args)

    monkeypatch.setattr(cv, "_improve", hurried)


def test_one_metric_stopped_by_the_clock_leaves_the_next_one_as_it_was(fake_clock, monkeypatch):
    # the makespan's search (first, with random moves) runs out of time at once; the max stretch's (second) gets the
    # budget and the random stream of the unhurried run, and finds the same schedule
    inst = _instance()
    calm_streams, cut_streams = {}, {}
    _hurry(monkeypatch, fake_clock, "none", calm_streams)
    calm = _search(inst)
    _hurry(monkeypatch, fake_clock, "makespan", cut_streams)
    cut = _search(inst)
    assert cut["makespan"].stopped == "time_limit" and calm["makespan"].stopped == "budget"
    assert cut["makespan"].evaluations < calm["makespan"].evaluations
    assert _same(cut["max_stretch"], calm["max_stretch"]) and cut["max_stretch"].stopped == "budget"
    assert cut_streams["max_stretch"] == calm_streams["max_stretch"] != calm_streams["makespan"]


def test_the_metric_after_one_stopped_by_the_clock_draws_the_same_moves(fake_clock, monkeypatch):
    # the other order: the max stretch's search (first) is cut, the makespan's local search (second) is unchanged
    inst = _instance()
    order = {"metrics": ("max_stretch", "makespan")}
    _hurry(monkeypatch, fake_clock, "none", {})
    calm = cv.clairvoyant_schedules(inst, time_limit=5.0, seed=3, budget=3e6, **order)
    _hurry(monkeypatch, fake_clock, "max_stretch", {})
    cut = cv.clairvoyant_schedules(inst, time_limit=5.0, seed=3, budget=3e6, **order)
    assert cut["max_stretch"].stopped == "time_limit" and calm["max_stretch"].stopped == "budget"
    assert _same(cut["makespan"], calm["makespan"]) and cut["makespan"].stopped == calm["makespan"].stopped


def test_the_lagrangian_bound_keeps_its_safety_time_whatever_the_clocked_steps_took(fake_clock, monkeypatch):
    # the max-stretch searches and the window LPs (clocked) overrun the whole LP time; the Lagrangian searches (sized
    # by work) still get the work of the nominal LP time and at least the time that work takes
    def slow(*args, **kwargs):
        fake_clock.now += 1000.0

    monkeypatch.setattr(bounds_module, "_apply_stretch", slow)
    monkeypatch.setattr(bounds_module, "_apply_lp", slow)
    given = {}

    def lagrangian(inst, mode, *, time_limit, start, refine, work):
        given[mode] = (time_limit, work)
        return start, 0, 1

    def response(inst, *, time_limit, start, refine, work):  # the mean response's (Lagrangian and blocker steps)
        given[0] = (time_limit, work)
        return start, 0, 1, -np.inf, 0

    monkeypatch.setattr(bounds_module, "lagrangian_bound", lagrangian)
    monkeypatch.setattr(bounds_module, "response_lagrangian", response)
    bounds_module.instance_bounds(_instance(60), method="lp", time_limit=24.0, stop_early=True)
    caps = bounds_module.lagrangian_work(24.0)
    for mode, name in enumerate(("mean_response", "mean_bounded_slowdown")):
        seconds, work = given[mode]
        assert work == caps[name] and seconds >= work / LAGRANGE_WORK_PER_SECOND, name


def test_a_steps_safety_clock_allows_twice_its_share_of_the_time_left_leaving_half_of_the_others(fake_clock):
    """``Limit.part``: the work is cut by the share exactly; the clock allows ``TIME_SLACK`` times the share of the
    time left, at most halfway to the parent's deadline (a step slower per work unit than its siblings ends by its
    budget; the steps after it keep at least half of their time)."""
    from lowerbounds.batch._searchstep import TIME_SLACK, Limit

    class Ev:
        work, count = 0, 0

    parent = Limit(Ev(), 1000.0, fake_clock.now + 100.0)
    quarter, most = parent.part(0.25), parent.part(0.75)
    assert TIME_SLACK == 2.0 and quarter.work_end == 250.0 and most.work_end == 750.0
    assert quarter.deadline == pytest.approx(fake_clock.now + 50.0, abs=1e-6)
    assert most.deadline == pytest.approx(fake_clock.now + 87.5, abs=1e-6)
    assert parent.part(1.0).deadline == pytest.approx(parent.deadline, abs=1e-6)
    fake_clock.now += 49.0
    assert quarter.stop() is None
    fake_clock.now += 2.0
    assert quarter.stop() == "time_limit" and most.stop() is None
