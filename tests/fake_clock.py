"""A fake clock for the safety stops of :mod:`vcsched.jitclock`: a ``perf_counter`` that moves when a test says so,
and compiles played by numba's own event (``numba:compiler_lock``), so that no test compiles anything to check that
compile time is left out. The fixture ``fake_clock`` (``tests/conftest.py``) installs it."""

from __future__ import annotations

from numba.core import event

import vcsched.jitclock as jitclock


class FakeTime:
    """``time`` for :mod:`vcsched.jitclock`: ``perf_counter`` moves when a test says so, and by a nanosecond at
    each reading (a clock that stood still would never pass a deadline that is now)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        self.now += 1e-9
        return self.now


def installed(monkeypatch):
    """A fake ``perf_counter`` and a fresh compile timer in place of the process's own (taken off numba's events
    meanwhile, so that the played compiles do not reach it); yields the :class:`FakeTime`."""
    t, own = FakeTime(), jitclock._TIMER
    event.unregister(jitclock.COMPILE_EVENT, own)
    monkeypatch.setattr(jitclock, "time", t)
    monkeypatch.setattr(jitclock, "_TIMER", jitclock._CompileTimer())
    event.register(jitclock.COMPILE_EVENT, jitclock._TIMER)
    yield t
    event.unregister(jitclock.COMPILE_EVENT, jitclock._TIMER)
    event.register(jitclock.COMPILE_EVENT, own)


def play_compile(t: FakeTime, seconds: float, nested: bool = False) -> None:
    """A compile of ``seconds`` as numba announces it (a nested compile inside it when ``nested``)."""
    event.start_event(jitclock.COMPILE_EVENT)
    if nested:
        play_compile(t, seconds / 2)
        t.now += seconds / 2
    else:
        t.now += seconds
    event.end_event(jitclock.COMPILE_EVENT)
