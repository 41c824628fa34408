"""The race by rate between the last steps of the clairvoyant search (lowerbounds.batch.steprace), on fake steps whose
gain per work unit is known (plain Python, nothing compiled)."""

from __future__ import annotations

from lowerbounds.batch._searchstep import Best, Limit
from lowerbounds.batch.steprace import race
from vcsched.jitclock import clock


class _Ev:
    """The work counter and schedule count a :class:`Limit` reads."""

    def __init__(self) -> None:
        self.work, self.count = 0, 0


def _step(ev, name, rates, log, patience_after=None):
    """A step that spends its whole slice (in units of 1) and lowers the value by ``rates(done)`` per unit, ``done``
    being the units it has spent so far in all its slices; it stops by patience once it has run ``patience_after``
    slices without gain."""
    state = {"done": 0, "slices": 0}

    def step(best: Best, limit: Limit):
        state["slices"] += 1
        log.append(name)
        value = best.value
        while not limit.stop():
            value -= rates(state["done"])
            state["done"] += 1
            ev.work += 1
            if patience_after is not None and state["slices"] > patience_after:
                return best, "patience"
        return Best(value, "local search", name, None, None), "budget"

    return step


def _best(value=1000.0):
    return Best(value, "portfolio", "start", None, None)


def _limit(ev, units):
    return Limit(ev, ev.work + units, clock() + 600)


def test_each_step_runs_once_then_the_faster_one_takes_the_slices():
    ev, log = _Ev(), []
    slow = _step(ev, "slow", lambda done: 0.1, log)
    fast = _step(ev, "fast", lambda done: 1.0, log)
    best, stopped, runs = race((slow, fast), _best(), _limit(ev, 1000), slices=10)
    assert log == ["slow"] + ["fast"] * 9 and runs == [1, 9] and stopped == "budget"
    assert ev.work == 1000 and abs(best.value - (1000 - 100 * 0.1 - 900 * 1.0)) < 1e-9


def test_a_step_whose_gains_run_out_leaves_the_slices_to_the_other():
    ev, log = _Ev(), []
    first = _step(ev, "first", lambda done: 1.0 if done < 300 else 0.0, log)  # gains nothing after 300 units
    second = _step(ev, "second", lambda done: 0.2, log)
    race((first, second), _best(), _limit(ev, 1000), slices=10)
    # 300 units of gain (three slices of 100), a fourth slice that gains nothing, then the other step only
    assert log == ["first", "second", "first", "first", "first"] + ["second"] * 5


def test_a_step_stopped_by_its_patience_sits_out_until_the_other_improves():
    ev, log = _Ev(), []
    tired = _step(ev, "tired", lambda done: 5.0, log, patience_after=1)
    flat = _step(ev, "flat", lambda done: 0.0, log)  # never improves: the tired step stays out
    best, stopped, runs = race((tired, flat), _best(), _limit(ev, 1000), slices=10)
    assert log == ["tired", "flat", "tired"] + ["flat"] * 7 and runs == [2, 8]
    assert best.value == 1000 - 100 * 5.0  # the second run of the tired step gained nothing
    ev, log = _Ev(), []
    both = (_step(ev, "a", lambda done: 0.0, log, patience_after=0), _step(ev, "b", lambda done: 0.0, log,
                                                                              patience_after=0))
    assert race(both, _best(), _limit(ev, 1000), slices=10)[1:] == ("patience", [1, 1])


def test_the_race_stops_on_an_exhausted_budget_or_clock_and_keeps_the_best():
    ev, log = _Ev(), []
    step = _step(ev, "s", lambda done: 1.0, log)
    ev.work = 50
    best, stopped, runs = race((step,), _best(7.0), Limit(ev, 50, clock() + 600))
    assert (best.value, stopped, runs) == (7.0, "budget", [0])
    best, stopped, runs = race((step,), _best(7.0), Limit(ev, 1e9, clock() - 1))
    assert (best.value, stopped, runs) == (7.0, "time_limit", [0])
