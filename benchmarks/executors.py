"""Where the cells of a sweep run: a local process pool (the default) or a ``dask.distributed``
cluster. Both yield ``(index, result)`` as tasks finish, so :mod:`benchmarks.harness` saves each
cell as soon as it is done.

Local workers run a watchdog thread (:func:`_watch_coordinator`): when the coordinating process
dies, even by SIGKILL, each worker exits within :data:`WATCHDOG_SECONDS` instead of finishing its
cell for nobody.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from vcsched.errors import InvalidInputError, VcschedError

__all__ = ["pool_outcomes", "pool_stream", "dask_outcomes", "connect_scheduler", "check_scheduler_address", "WATCHDOG_SECONDS",
           "SchedulerLost"]


class SchedulerLost(VcschedError):
    """The Dask scheduler went away during a sweep: the cells it had not returned are not failures
    of theirs, so they are not recorded; the finished ones are kept for ``--resume``."""


FORKSERVER_PRELOAD = ("__main__", "benchmarks.cells", "pandas")
"""What the forkserver imports once, before it forks the workers: ``__main__`` (as by default), the
cell runner with numpy, and pandas: about 0.5 s of CPU that each worker would otherwise spend
importing them before its first cell."""


def _forkserver_context():
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(FORKSERVER_PRELOAD))  # read when the forkserver starts (once a process)
    return ctx


WATCHDOG_SECONDS = 0.5
"""How often a worker checks that the coordinating process is alive."""


def _coordinator_gone(coordinator: int, parent: int) -> bool:
    """True when the coordinating process has died: the worker was re-parented (its parent, the
    forkserver or the coordinator itself, exited) or the coordinator's pid no longer exists."""
    if os.getppid() != parent:
        return True
    try:
        os.kill(coordinator, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # pragma: no cover - the pid exists, owned by someone else: reused
        return True
    return False


def _watch_coordinator(coordinator: int) -> None:
    """Worker initializer: a daemon thread that ends the worker when the coordinator dies.

    Without it, workers of a run killed with SIGKILL finish their cell (minutes) before
    noticing that nobody reads their result.
    """
    parent = os.getppid()

    def watch() -> None:
        while not _coordinator_gone(coordinator, parent):
            time.sleep(WATCHDOG_SECONDS)
        os._exit(70)

    threading.Thread(target=watch, name="vcsched-watchdog", daemon=True).start()


@contextlib.contextmanager
def _signals_deferred(signums: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """Hold SIGINT and SIGTERM while the block runs, then deliver them to the handlers in place.

    The pool starts its workers inside ``submit``; a signal raised there (the command line turns
    SIGTERM into an exception) left a worker forked but not registered, which no one terminated:
    it went on unpickling its start data after the coordinator had released the pool's semaphores,
    and printed a ``FileNotFoundError`` traceback after the run's one-line "terminated". Outside
    the main thread (where handlers cannot be set) the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in signums}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in caught[:1]:
            handler = previous[s]
            if callable(handler):
                handler(s, None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(s)


def pool_outcomes(func: Callable, todo: list[tuple[int, tuple]], workers: int) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, func(*args))`` for every ``(index, args)`` of ``todo`` as they finish in a
    local process pool whose workers watch the coordinator (tasks started in ``todo``'s order)."""
    tasks = iter([(index, func, args) for index, args in todo])
    yield from pool_stream(lambda: next(tasks, None), lambda index, outcome: (index, outcome), workers)


def pool_stream(take: Callable[[], tuple | None], finish: Callable[[Any, Any], Any], workers: int) -> Iterator[Any]:
    """Run tasks ``(key, func, args) = take()`` in a local process pool of ``workers`` processes that watch the
    coordinator, at most one waiting task per worker: a worker that frees gets the task ``take()`` gives then
    (None: no task ready now; the stream ends when none is ready and none runs). Yields what ``finish(key,
    func(*args))`` returns, when not None, as tasks finish."""
    ctx = _forkserver_context()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_watch_coordinator,
                               initargs=(os.getpid(),))
    finished = False
    pending: dict = {}
    try:
        _fill(pool, pending, take, workers)
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            ready = [finish(key, result) for key, result in _results(done, pending)]
            _fill(pool, pending, take, workers)
            yield from (r for r in ready if r is not None)
        finished = True
    finally:
        if not finished:  # interrupted: do not wait for the tasks in flight, their results would be lost anyway
            _terminate_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)


def _fill(pool: ProcessPoolExecutor, pending: dict, take: Callable[[], tuple | None], workers: int) -> None:
    """Submit tasks from ``take()`` until ``workers`` run or none is ready."""
    while len(pending) < workers:
        task = take()
        if task is None:
            return
        key, func, args = task
        with _signals_deferred():  # a worker may start in submit(): it is registered before a signal acts
            pending[pool.submit(func, *args)] = key


def _results(done, pending: dict) -> Iterator[tuple[Any, Any]]:
    for fut in done:
        key = pending.pop(fut)
        try:
            yield key, fut.result()
        except BrokenProcessPool as exc:
            index = key[1] if isinstance(key, tuple) else key
            raise VcschedError(
                f"a worker process died while running cell {index} ({exc}); it crashed, ran out of memory or "
                f"was killed (a script using the API must call it under `if __name__ == '__main__':`); "
                f"finished cells are saved: rerun with --resume") from None


def _terminate_workers(pool: ProcessPoolExecutor) -> None:
    """End the workers, then the pool, then wait for the pool's manager thread.

    Order matters (``ProcessPoolExecutor.terminate_workers()`` exists only from Python 3.14):
    shutting the pool down first released its queues' semaphores while a worker could still be
    starting (reading them: a traceback); and ``shutdown(wait=False)`` forgets the manager thread
    without joining it, so a later ``shutdown(wait=True)`` waits for nothing, and the thread was
    still closing its wake-up pipe when the interpreter's exit hook wrote to it
    (``OSError: [Errno 9] Bad file descriptor`` after the run's one-line "terminated").
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    for proc in processes:
        proc.join(timeout=5)
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(timeout=5)  # its workers are gone: it sees a broken pool and ends


CONNECT_TIMEOUT = "20s"
"""How long `--scheduler` tries to reach the scheduler before the run is refused."""

SCHEDULER_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")
"""Address schemes of a Dask scheduler (``--scheduler tcp://host:8786``)."""


def check_scheduler_address(address: str) -> None:
    """Refuse a ``--scheduler`` address that cannot name a scheduler: a missing or unknown
    scheme (``foo://bar``) or a missing host (``tcp://``), before any connection."""
    scheme, sep, rest = address.partition("://")
    if not sep or scheme.lower() not in SCHEDULER_SCHEMES:
        raise InvalidInputError(f"--scheduler {address}: expected an address like tcp://host:8786 "
                                f"(scheme {', '.join(SCHEDULER_SCHEMES)})")
    if not rest.strip("/") and scheme.lower() != "inproc":
        raise InvalidInputError(f"--scheduler {address}: no host; expected an address like tcp://host:8786")


def connect_scheduler(scheduler: Any) -> tuple[Any, bool]:
    """``(client, own)``: a Dask client connected to ``scheduler`` (an address, checked first,
    or a client, used as it is); ``own`` says the caller must close it. Any failure to
    connect is one :class:`InvalidInputError` line, raised before the run touches its folder."""
    try:
        from dask.distributed import Client
    except ImportError as exc:  # pragma: no cover - dask is a dependency
        raise InvalidInputError(f"--scheduler needs dask.distributed ({exc}); pip install 'dask[distributed]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    check_scheduler_address(str(scheduler))
    import logging

    # the client's own log lines (reconnection attempts, a lost scheduler) would follow the run's one line
    logging.getLogger("distributed.client").setLevel(logging.CRITICAL + 1)
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT), True
    except Exception as exc:  # noqa: BLE001 - OSError, TimeoutError, ValueError from the comm layer
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidInputError(f"--scheduler {scheduler}: cannot connect ({reason}); start it with `dask scheduler` "
                                f"and check the address") from None


def dask_outcomes(func: Callable, todo: list[tuple[int, tuple]], client: Any, keys: list[str]) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, func(*args))`` as they finish on a ``dask.distributed`` cluster through a
    connected ``client`` (:func:`connect_scheduler`; task names ``keys``); a task whose workers
    were lost yields a failed cell outcome. Unfinished tasks are cancelled when the generator closes."""
    from dask.distributed import as_completed

    futures: list = []
    done = 0
    try:
        futures = [client.submit(func, *args, pure=False, key=key) for (_, args), key in zip(todo, keys)]
        index_of = {fut.key: index for fut, (index, _) in zip(futures, todo)}
        for fut in as_completed(futures):
            try:
                outcome = fut.result()
            except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker: the cell killed its workers
                if _scheduler_gone(client, exc):
                    raise SchedulerLost(f"the Dask scheduler went away ({type(exc).__name__}) after {done} of "
                                        f"{len(futures)} cells") from None
                outcome = {"rows": [], "error": f"{type(exc).__name__}: {exc}".replace("\n", " "),
                           "seconds": float("nan"), "machine": "(dask worker lost)"}
            done += 1
            yield index_of[fut.key], outcome
    finally:
        if futures and client.status == "running":
            client.cancel(futures)  # no-op for finished cells; stops the others when interrupted


def _scheduler_gone(client: Any, exc: BaseException) -> bool:
    """Whether a task's failure is the loss of the scheduler (its futures cancelled, the client no
    longer connected), not a failure of the cell (an exception of its own, ``KilledWorker``)."""
    from concurrent.futures import CancelledError

    return client.status != "running" or isinstance(exc, CancelledError)
