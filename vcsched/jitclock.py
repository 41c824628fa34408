"""A clock for safety stops that leaves out the time numba spends compiling.

numba compiles a function the first time it is called with new argument types (or loads it from its cache, see
:mod:`vcsched.jit`). After a fresh installation, or with a new cache folder, the first run of a command compiles
every kernel it uses, inside whatever time limit that command runs under: about 35 s of CPU for
``grid bound --trace CTC-SP2``. A search sized by a work budget, with the wall clock as a safety stop only, would then be stopped
by the clock on the first run and not on the next ones, and the two runs would not give the same result.

:func:`clock` is ``time.perf_counter()`` minus the seconds spent inside numba's compiler lock so far in this
process (compiling, and loading or saving compiled code): deadlines taken on it move back by the compile time,
so a search's safety stop measures the search. :func:`jit_seconds` is that compile time. A command with a time
limit may then take the limit plus the compile time of its first run.

The time is measured by a listener on numba's ``numba:compiler_lock`` event (one per process, registered when
this module is imported; nested compilations are counted once). It is per process: a compile in another thread
of the same process moves every thread's clock back too.
"""

from __future__ import annotations

import time

from numba.core import event

__all__ = ["clock", "jit_seconds", "COMPILE_EVENT"]

COMPILE_EVENT = "numba:compiler_lock"
"""numba's event around its compiler lock (compiling a function, loading or saving compiled code)."""


class _CompileTimer(event.Listener):
    """Seconds spent inside the outermost compiler-lock events so far (plus the one in progress, if any)."""

    def __init__(self) -> None:
        self.depth = 0
        self.total = 0.0
        self.since = 0.0

    def on_start(self, ev) -> None:
        if self.depth == 0:
            self.since = time.perf_counter()
        self.depth += 1

    def on_end(self, ev) -> None:
        if self.depth == 0:  # the end of a compile that began before this listener: not counted
            return
        self.depth -= 1
        if self.depth == 0:
            self.total += time.perf_counter() - self.since

    def seconds(self) -> float:
        return self.total + (time.perf_counter() - self.since if self.depth else 0.0)


_TIMER = _CompileTimer()
event.register(COMPILE_EVENT, _TIMER)


def jit_seconds() -> float:
    """Seconds this process has spent in numba's compiler lock since this module was imported."""
    return _TIMER.seconds()


def clock() -> float:
    """``time.perf_counter()`` without the compile time (:func:`jit_seconds`): the clock of safety deadlines."""
    return time.perf_counter() - _TIMER.seconds()
