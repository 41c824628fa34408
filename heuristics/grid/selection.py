"""Job selection of the reallocation heuristics (seed 000 §2.2.2).

Each heuristic is a key ``key(best, second, current, procs)`` over the jobs' smallest and
second smallest ECT, their current ECT and their width, minimised or maximised
(:data:`HEURISTICS`, a registry: users may register their own). :func:`select_job` picks
one job; the five built-in offline keys go through the compiled pass of
:mod:`heuristics.grid.fastselect`, any other key through :func:`_select_numpy`, which is
also the reference the compiled pass is tested against.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from heuristics.grid import fastselect
from vcsched.registry import Registry

__all__ = ["HEURISTICS", "select_job"]

HEURISTICS: Registry = Registry("reallocation heuristic")
"""Job-selection rules of §2.2.2: ``key(best, second, current, procs) -> (score, maximise)``."""

_INF = float("inf")


def _register(name: str, maximise: bool) -> Callable:
    def deco(fn):
        fn.maximise = maximise
        return HEURISTICS.register(name)(fn)
    return deco


@_register("mct", False)
def _mct_key(best, second, current, procs):
    """MCT: submission order (the rows are in submission order; every score is 0, ties go first)."""
    return np.zeros_like(best)


@_register("minmin", False)
def _minmin_key(best, second, current, procs):
    """MinMin: the job with the smallest minimum ECT."""
    return best


@_register("maxmin", True)
def _maxmin_key(best, second, current, procs):
    """MaxMin: the job with the largest minimum ECT."""
    return best


@_register("maxgain", True)
def _maxgain_key(best, second, current, procs):
    """MaxGain: the job with the largest gain ``current ECT - new ECT``."""
    return current - best


@_register("maxrelgain", True)
def _maxrelgain_key(best, second, current, procs):
    """MaxRelGain: the gain divided by the job's number of processors."""
    return (current - best) / procs


@_register("sufferage", True)
def _sufferage_key(best, second, current, procs):
    """Sufferage: difference between the two best ECTs (infinite when the job fits one cluster only)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(second), _INF, second - best)


def select_job(heuristic: str, ect: np.ndarray, current: np.ndarray, procs: np.ndarray,
               alive: np.ndarray | None = None) -> int:
    """Row chosen by ``heuristic`` among the ``alive`` rows of an ECT matrix (§2.2.2).

    Parameters
    ----------
    heuristic : str
        ``mct``, ``minmin``, ``maxmin``, ``maxgain``, ``maxrelgain`` or ``sufferage``.
    ect : ndarray, shape (n, K)
        ECT of each job (row, in submission order) on each cluster (``inf``: does not fit).
    current : ndarray, shape (n,)
        ECT of each job where it is (Algorithm 1) or was (Algorithm 2).
    procs : ndarray, shape (n,)
    alive : ndarray of bool, optional
        Rows still to consider (default: all).

    Returns
    -------
    int
        The chosen row; ties go to the first row (submission order).

    Examples
    --------
    >>> import numpy as np
    >>> E = np.array([[100.0, 50.0], [30.0, 40.0]])
    >>> select_job("minmin", E, E[:, 0], np.array([1, 1])), select_job("maxgain", E, E[:, 0], np.array([1, 1]))
    (1, 0)
    """
    key_fn = HEURISTICS.get(heuristic)
    n, K = ect.shape
    if alive is None:
        alive = np.ones(n, dtype=bool)
    if key_fn is _mct_key:
        return int(np.argmax(alive))
    code = _BUILTIN_CODES.get(key_fn)
    if code is not None and n:
        return int(fastselect.select_builtin(code, key_fn.maximise, np.ascontiguousarray(ect, dtype=np.float64),
                                             np.ascontiguousarray(current, dtype=np.float64),
                                             np.ascontiguousarray(procs, dtype=np.float64), alive))
    return _select_numpy(key_fn, ect, current, procs, alive)


def _select_numpy(key_fn, ect: np.ndarray, current: np.ndarray, procs: np.ndarray, alive: np.ndarray) -> int:
    """:func:`select_job` with numpy for any registered key function (the reference of the compiled path)."""
    n, K = ect.shape
    if K >= 2:
        two = np.partition(ect, 1, axis=1)
        best, second = two[:, 0], two[:, 1]
    else:
        best, second = ect[:, 0], np.full(n, _INF)
    key = np.asarray(key_fn(best, second, current, procs), dtype=np.float64)
    if key_fn.maximise:
        return int(np.argmax(np.where(alive, key, -_INF)))
    return int(np.argmin(np.where(alive, key, _INF)))


_BUILTIN_CODES = {_minmin_key: fastselect.MINMIN, _maxmin_key: fastselect.MAXMIN, _maxgain_key: fastselect.MAXGAIN,
                  _maxrelgain_key: fastselect.MAXRELGAIN, _sufferage_key: fastselect.SUFFERAGE}
"""Key functions with a compiled selection (:mod:`heuristics.grid.fastselect`); others go through numpy."""
