"""The time-shared references' safety clock leaves out numba's compile time (vcsched.jitclock): a compile inside
the mapping search does not cut it, the same time spent searching does.

Nothing is compiled: a compile is played by numba's own event around a jump of a fake ``perf_counter`` (the
fixture ``fake_clock``), inside the plain search (fewer than 64 tasks).
"""

from __future__ import annotations

import numpy as np

import lowerbounds.timeshare.search as search_module
from lowerbounds.timeshare import TaskCosts
from lowerbounds.timeshare.search import search_mapping
from tests.fake_clock import play_compile
from tests.timeshare.test_timeshare_bounds import random_platform
from vcsched.problems.timeshare import TimeshareWorkload as Workload


def _costs() -> TaskCosts:
    rng = np.random.default_rng(5)
    platform = random_platform(rng, servers=3)
    return TaskCosts.of(platform, Workload.independent(np.sort(rng.uniform(0, 40, 12)), rng.integers(0, 2, 12)))


def _search_with_a_pause(monkeypatch, pause) -> search_module.MappingSearch:
    """The search with ``pause()`` played at its first move choice, a 10-second safety stop and 400 moves."""
    real, calls = search_module._pick, [0]

    def pick(state, rng):
        calls[0] += 1
        if calls[0] == 1:
            pause()
        return real(state, rng)

    monkeypatch.setattr(search_module, "_pick", pick)
    return search_mapping(_costs(), "sumflow", iterations=400, seed=1, time_limit=10.0, compiled=False)


def test_a_compile_inside_the_search_does_not_stop_it_and_changes_nothing(fake_clock, monkeypatch):
    plain = search_mapping(_costs(), "sumflow", iterations=400, seed=1, time_limit=10.0, compiled=False)
    paused = _search_with_a_pause(monkeypatch, lambda: play_compile(fake_clock, 60.0))
    assert plain.stopped == paused.stopped == "iterations"
    assert paused.mapping == plain.mapping and paused.value == plain.value and paused.evaluations == 400


def test_the_same_time_spent_searching_stops_it(fake_clock, monkeypatch):
    def wait():
        fake_clock.now += 60.0

    cut = _search_with_a_pause(monkeypatch, wait)
    assert cut.stopped == "time_limit" and cut.evaluations < 400
