"""The state a step of the clairvoyant search passes on (:mod:`lowerbounds.batch.clairvoyant`).

:class:`Best` is a metric's best schedule so far with how it was found; :class:`Limit` says when a step stops: a
count of schedules, moves without improvement, a work budget, or the wall clock as a safety stop; :class:`Shares`
divides a search's work among its metrics;
:func:`run_until_stopped` is the loop of a step's moves.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from vcsched.jitclock import clock

__all__ = ["Best", "Limit", "Shares", "run_until_stopped", "CHECK_WORK", "TIME_SLACK", "part_deadline"]

TIME_SLACK = 2.0
"""A step's safety clock allows up to this many times its share of the time left (:func:`part_deadline`): the steps of a
metric spend work at different rates per second (KTH-SP2's mean response: its key search and race took 10.3 s of CPU
for the default minute's budget, and a safety clock of exactly their shares of its 11 s stopped them at 8.1 s)."""

CHECK_WORK = 50
"""Work units charged per job for checking a schedule and reading its metrics (NumPy sorts and sums), in every
step of the search that checks a whole or partial schedule."""


@dataclasses.dataclass
class Best:
    """A metric's best schedule so far: its value, the step and key that found it, the schedule, the construction
    (``easy`` or ``serial``) and the key's parameter ``a``."""

    value: float
    method: str
    detail: str
    cluster: np.ndarray
    start: np.ndarray
    kernel: str = "easy"
    a: object = None


def part_deadline(deadline: float, share: float) -> float:
    """The safety deadline of a part with ``share`` of the work: :data:`TIME_SLACK` times ``share`` of the time left
    before ``deadline``, and at most halfway from ``share`` to all of it, so that the parts after it keep at least
    half of their shares of the time (the last part, ``share`` 1, gets all of it)."""
    now = clock()
    return now + min(TIME_SLACK * share, (1.0 + share) / 2.0) * max(deadline - now, 0.0)


class Limit:
    """When a search step stops: a count of schedules (``iterations``), moves without improvement (``patience``),
    its work budget (``ev.work`` reaching ``work_end``: ``budget``) or the wall clock (``time_limit``, a safety
    stop only: a run that it stops is not reproducible, and says so). The clock and ``deadline`` are
    :func:`vcsched.jitclock.clock`'s, which leaves out numba's compile time (a first run after an installation
    compiles the kernels inside the search: the safety stop would otherwise end that run's search early)."""

    def __init__(self, ev, work_end: float, deadline: float, iterations: int | None = None) -> None:
        self.ev, self.work_end, self.deadline = ev, work_end, deadline
        self.count_end = None if iterations is None else ev.count + iterations

    def part(self, share: float, iterations: int | None = None) -> Limit:
        """A step with ``share`` of the work left, at most :data:`TIME_SLACK` times ``share`` of the wall-clock time
        left (so that, under a heavy load, one step cannot take all of the others' time, while on an idle machine a
        step slower per work unit than the average still ends by its budget), and its own count of schedules."""
        return Limit(self.ev, min(self.work_end, self.ev.work + share * max(self.work_end - self.ev.work, 0)),
                      part_deadline(self.deadline, share), iterations)

    def stop(self, idle: int = 0, patience: int | None = None) -> str | None:
        if self.count_end is not None and self.ev.count >= self.count_end:
            return "iterations"
        if patience is not None and idle >= patience:
            return "patience"
        if self.ev.work >= self.work_end:
            return "budget"
        if clock() > self.deadline:
            return "time_limit"
        return None


class Shares:
    """The work of a search divided among its metrics, one after the other: each metric's part is ``share`` of the
    work not yet used, and its clock :func:`part_deadline`'s. A metric stopped by its budget or by the clock is deemed to have used
    its whole part (its last move may overrun the part, and a step may leave some of it: neither changes the
    metrics after it); one that stops on its own first (patience, done, a count) the work it did (:meth:`settle`).
    So a metric cut short by the safety stop does not change the budgets of the metrics after it, which get those
    of an unhurried run whenever that run's metric spends its budget; only a metric that would have stopped on its
    own passes unused work on in an unhurried run and not in a hurried one."""

    def __init__(self, limit: Limit) -> None:
        self.limit, self.used, self.start, self.budget = limit, limit.ev.work, limit.ev.work, 0.0

    def part(self, share: float) -> Limit:
        """The next metric's :class:`Limit`."""
        ev = self.limit.ev
        self.start, self.budget = ev.work, share * max(self.limit.work_end - self.used, 0)
        return Limit(ev, ev.work + self.budget, part_deadline(self.limit.deadline, share))

    def settle(self, stopped: str) -> None:
        """After the metric's search, which ``stopped`` for that reason."""
        done = self.limit.ev.work - self.start
        self.used += self.budget if stopped in ("budget", "time_limit") else min(done, self.budget)


def run_until_stopped(move, stop, patience: int | None = None) -> str:
    """Call ``move()`` (True when the move improved) until ``stop(idle)`` names a reason (``idle``: moves since the
    last improvement) or ``patience`` moves pass without improvement; returns the reason."""
    idle = 0
    while True:
        reason = stop(idle)
        if reason:
            return reason
        if patience is not None and idle >= patience:
            return "patience"
        idle = 0 if move() else idle + 1
