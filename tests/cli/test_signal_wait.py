"""A signal during the wait for a HiGHS solve leaves the wait as the signal's own exception
(:func:`vcsched.formulations.solve.wait_released`).

The wait it replaces (``Event.wait`` in slices) let a signal landing at the end of a slice leave the
event's condition lock released; leaving the wait then raised ``RuntimeError: release unlocked lock``,
and ``vc solve --method milp`` interrupted at that moment exited 1 with a traceback instead of 130
(seen twice under load; about 1 wait in 3,000 with slices of 10 us and SIGALRM at random moments).
"""

from __future__ import annotations

import signal
import threading

import numpy as np
import pytest

from vcsched.formulations.solve import wait_released


def _interrupted_waits(tries: int, seed: int) -> dict:
    """``tries`` waits on a lock nobody releases, each cut by SIGALRM (raising KeyboardInterrupt) after a
    random 0.2-2 ms: what each wait raised."""
    def handler(signum, frame):
        raise KeyboardInterrupt

    rng = np.random.default_rng(seed)
    seen: dict = {}
    old = signal.signal(signal.SIGALRM, handler)
    try:
        for _ in range(tries):
            lock = threading.Lock()
            lock.acquire()
            delay = float(rng.uniform(0.0002, 0.002))
            try:
                signal.setitimer(signal.ITIMER_REAL, delay)
                wait_released(lock, 1e-5, lambda: None)
                outcome = "returned"
            except BaseException as exc:  # noqa: BLE001 - counting what leaves the wait
                outcome = type(exc).__name__
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            seen[outcome] = seen.get(outcome, 0) + 1
    finally:
        signal.signal(signal.SIGALRM, old)
    return seen


def test_a_signal_leaves_the_wait_as_its_own_exception():
    assert _interrupted_waits(600, seed=0) == {"KeyboardInterrupt": 600}


@pytest.mark.slow
def test_a_signal_leaves_the_wait_as_its_own_exception_campaign():
    assert _interrupted_waits(30_000, seed=1) == {"KeyboardInterrupt": 30_000}


def test_the_wait_returns_when_the_lock_is_released_and_polls_meanwhile():
    lock = threading.Lock()
    lock.acquire()
    polls = []
    threading.Timer(0.2, lock.release).start()
    wait_released(lock, 0.01, lambda: polls.append(1), every=2)
    assert 1 <= len(polls) <= 10  # at most 20 slices of 10 ms before the release, one poll in 2
