"""A HiGHS object with its output off and its banner hidden (:func:`new_highs`), for every room that solves.

The problems and the simulators solve small LPs of their own (the average-yield phase of
:func:`vcsched.problems.vc.maximize_average_yield`); the formulations' solves
(:mod:`vcsched.formulations.solve`) build on the same function.
"""

from __future__ import annotations

import contextlib
import os
import sys

from vcsched.errors import SolverUnavailableError

__all__ = ["new_highs", "quiet_stdout"]

_BANNER_SILENCED = False


@contextlib.contextmanager
def quiet_stdout():
    """HiGHS prints a banner on the process's standard output (file descriptor 1) when the first
    Highs object is made; hide it so that ``--json`` output stays clean. Descriptor 1 is
    silenced even when ``sys.stdout`` is not a file (a notebook kernel, a test's capture), since
    the C++ library writes to the descriptor, not to Python's stream."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        fd = 1
    try:
        sys.stdout.flush()
        saved = os.dup(fd)
    except (OSError, ValueError):
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


def new_highs():
    """``(highspy, Highs())`` with HiGHS's output off and its banner hidden; a clear error
    (:class:`~vcsched.errors.SolverUnavailableError`) when highspy is missing."""
    global _BANNER_SILENCED
    try:
        import highspy
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SolverUnavailableError("highspy is not installed: pip install highspy") from exc
    if not _BANNER_SILENCED:
        with quiet_stdout():
            h = highspy.Highs()
        _BANNER_SILENCED = True
    else:
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return highspy, h
