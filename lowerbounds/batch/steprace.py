"""A race by measured rate between the last steps of a metric's clairvoyant search
(:mod:`lowerbounds.batch.clairvoyant`: the list moves and the window search, for the mean response time on large
workloads, and on whole traces the rolling pieces of :mod:`lowerbounds.batch.responseroll`).

Which of the two pays more per work unit depends on the trace, and a fixed split of the budget suits some traces and
wastes the others' (same seed and budget, the default minute's share: on KTH-SP2 the list moves gained 1 s in 3.4e8
units and the windows 43 s in as many; on lublin_256 the list moves gained 7,877 s and the windows 1,185 s). The
budget left is cut into :data:`SLICES` equal slices (each a :meth:`~lowerbounds.batch._searchstep.Limit.part` of what
is left); each step runs one slice in turn, in the order given, then every later slice goes to the step whose last
slice lowered the metric most per work unit (ties: the earlier step). A step that stops by its patience (or is done)
sits out until another step improves the schedule. The race is a function of the steps and the budget: no clock but
the limit's safety stop.
"""

from __future__ import annotations

__all__ = ["race", "SLICES"]

SLICES = 10
"""Equal slices of the budget left."""
_GO_ON = ("budget", "iterations")
"""Stops of a step after which it may run again (its slice ran out)."""


def race(steps, best, limit, slices: int = SLICES):
    """Run ``steps`` (callables ``step(best, limit) -> (best, stopped)``, each keeping ``best`` or returning a better
    one) by slices of ``limit`` (module docstring); returns ``(best, stopped, runs)``: ``stopped`` is the last slice's
    reason when the budget ran out, ``time_limit`` when the clock stopped a step, or ``patience`` when every step
    stopped by its patience; ``runs[i]`` the slices step ``i`` ran."""
    rate = [None] * len(steps)
    runs = [0] * len(steps)
    resting: set = set()
    stopped = "budget"
    for k in range(slices):
        stop = limit.stop()
        if stop:
            return best, stop, runs
        fresh = [i for i in range(len(steps)) if rate[i] is None]
        ready = [i for i in range(len(steps)) if i not in resting]
        if not ready:
            return best, "patience", runs
        i = fresh[0] if fresh else max(ready, key=lambda x: (rate[x], -x))
        before, spent = best.value, limit.ev.work
        best, stopped = steps[i](best, limit.part(1.0 / (slices - k)))
        runs[i] += 1
        rate[i] = (before - best.value) / max(limit.ev.work - spent, 1)
        if stopped == "time_limit":
            return best, stopped, runs
        if best.value < before:
            resting.clear()
        if stopped not in _GO_ON:
            resting.add(i)
    return best, stopped, runs
