"""A SIGTERM or SIGINT while the local pool starts its workers (issue 39, cause 8).

The pool starts its workers inside ``submit``; the command line turns SIGTERM into an exception.
Raised there, it left a worker forked but not registered: it read its start data after the
coordinator had released the pool's semaphores and printed a traceback after the one-line
"terminated". :func:`benchmarks.executors._signals_deferred` holds the signals until every worker
is registered, then delivers them to the handler in place.
"""

from __future__ import annotations

import os
import signal
import threading

import pytest

from benchmarks.executors import _signals_deferred


class Stop(Exception):
    pass


def _raise(signum, frame):
    raise Stop(signum)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_inside_the_block_acts_after_it(signum):
    previous = signal.signal(signum, _raise)
    steps = []
    try:
        with pytest.raises(Stop):
            with _signals_deferred():
                os.kill(os.getpid(), signum)
                steps.append("after the signal")  # still runs: the signal is held
            steps.append("after the block")  # never: the handler acts when the block ends
        assert steps == ["after the signal"]
        assert signal.getsignal(signum) is _raise  # the handler in place is restored
    finally:
        signal.signal(signum, previous)


def test_no_signal_changes_nothing_and_handlers_are_restored():
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with _signals_deferred():
        pass
    assert {s: signal.getsignal(s) for s in before} == before


def test_outside_the_main_thread_the_block_runs_as_it_is():
    seen = []

    def work():
        with _signals_deferred():
            seen.append(signal.getsignal(signal.SIGTERM))

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == [signal.getsignal(signal.SIGTERM)]


def _slow(x):
    import time

    time.sleep(30)
    return x


def test_an_interrupted_pool_leaves_no_manager_thread_behind():
    """``shutdown(wait=False)`` forgets the pool's manager thread without joining it: still running
    at interpreter exit, it raced the exit hook that writes to its wake-up pipe (``Bad file
    descriptor`` traceback after "terminated"). Interrupting the sweep now joins it."""
    from concurrent.futures.process import _ExecutorManagerThread

    from benchmarks.executors import pool_outcomes

    def managers():
        return [t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread) and t.is_alive()]

    assert managers() == []
    outcomes = pool_outcomes(_slow, [(0, (1,)), (1, (2,))], 2)
    with pytest.raises(Stop):
        for _ in outcomes:  # interrupted while waiting for the first result
            pass
        # (the generator is driven by a timer below)
    outcomes.close()
    assert managers() == []


@pytest.fixture(autouse=True)
def _interrupt_soon(request):
    if request.node.name != "test_an_interrupted_pool_leaves_no_manager_thread_behind":
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, 3.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _pandas_loaded(_):
    import sys

    return "pandas" in sys.modules


def test_the_workers_start_with_the_preloaded_modules():
    """The forkserver imports the cell runner, numpy and pandas once (``FORKSERVER_PRELOAD``): the
    workers it forks have them before their first cell (this module imports none of them)."""
    from benchmarks.executors import pool_outcomes

    assert list(pool_outcomes(_pandas_loaded, [(0, (0,))], 1)) == [(0, True)]
