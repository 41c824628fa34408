"""Progress of long solves, for whoever is watching (the command line's status line).

Algorithms call :func:`report` with what they are doing; nothing happens unless a caller
installed an observer with :func:`observe` (a context variable, so concurrent callers in
other contexts do not see each other's reports). Fields in use:

``method``, ``index``, ``total``
    :func:`heuristics.vc.methods.solve_many` starts the ``index``-th of ``total`` methods.
``elapsed``, ``incumbent``, ``bound``
    :func:`vcsched.formulations.solve.solve_model` during a HiGHS solve, about every half
    second: seconds so far, the best solution's objective and the proven bound, in the
    caller's terms (``describe``), or ``None`` before HiGHS has them.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

__all__ = ["observe", "report", "observing"]

_OBSERVER: contextvars.ContextVar[Callable[[dict], None] | None] = contextvars.ContextVar("vcsched_progress",
                                                                                          default=None)


@contextlib.contextmanager
def observe(callback: Callable[[dict], None]) -> Iterator[None]:
    """Send every :func:`report` made inside the block to ``callback(fields)``."""
    token = _OBSERVER.set(callback)
    try:
        yield
    finally:
        _OBSERVER.reset(token)


def observing() -> bool:
    """Whether an observer is installed (skip computing what nobody reads)."""
    return _OBSERVER.get() is not None


def report(**fields) -> None:
    """Hand ``fields`` to the observer, if any."""
    callback = _OBSERVER.get()
    if callback is not None:
        callback(fields)
