"""The reallocation heuristics of seed 000 §2.2.2: one table of specifications, and the job selection.

Each heuristic is a :class:`HeuristicSpec`: its name, its label in the paper's tables,
whether it takes the largest or the smallest key, its key ``key(best, second, current,
procs)`` over the jobs' smallest and second smallest ECT, their current ECT and their
width, and the code of the same key in the compiled selection of
:mod:`heuristics.grid.fastselect` (``None``: numpy only). :data:`HEURISTICS` is the
registry of these specifications (users may register their own with
:func:`register_heuristic`); every other module (the selection here, the compiled event,
the labels of the policy and of the benchmark tables) reads them from it.

:func:`select_job` picks one job: a spec with a code goes through the compiled pass of
:mod:`heuristics.grid.fastselect`, any other through :func:`_select_numpy`, which is also
the reference the compiled pass is tested against.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from heuristics.grid import fastselect
from vcsched.names import grid as names
from vcsched.registry import Registry

__all__ = ["HeuristicSpec", "HEURISTICS", "register_heuristic", "select_job"]

_INF = float("inf")


@dataclasses.dataclass(frozen=True)
class HeuristicSpec:
    """One reallocation heuristic (§2.2.2).

    Attributes
    ----------
    name : str
        Registry name (``minmin``).
    label : str
        Name in the paper's tables (``MinMin``; Algorithm 2 appends ``-C``).
    maximise : bool
        Whether the job with the largest key is chosen (else the smallest).
    key : callable
        ``key(best, second, current, procs) -> ndarray`` over numpy arrays.
    code : int or None
        The key's code in :mod:`heuristics.grid.fastselect` (``fastselect.MCT``: submission
        order), or None when the key has no compiled form.
    """

    name: str
    label: str
    maximise: bool
    key: Callable
    code: int | None = None


HEURISTICS: Registry = Registry("reallocation heuristic", names.HEURISTICS)
"""Specifications of the reallocation heuristics, by name (:class:`HeuristicSpec`)."""


def register_heuristic(spec: HeuristicSpec) -> HeuristicSpec:
    """Add ``spec`` to :data:`HEURISTICS` under ``spec.name``."""
    return HEURISTICS.register(spec.name)(spec)


def _best(best, second, current, procs):
    return best


def _gain(best, second, current, procs):
    return current - best


def _relative_gain(best, second, current, procs):
    return (current - best) / procs


def _sufferage(best, second, current, procs):
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(second), _INF, second - best)


def _submission_order(best, second, current, procs):
    return np.zeros_like(best)


for _spec in (
    # MCT: submission order (the rows are in submission order; every score is 0, ties go first)
    HeuristicSpec("mct", "Mct", False, _submission_order, fastselect.MCT),
    # MinMin: the job with the smallest minimum ECT; MaxMin: the largest
    HeuristicSpec("minmin", "MinMin", False, _best, fastselect.MINMIN),
    HeuristicSpec("maxmin", "MaxMin", True, _best, fastselect.MAXMIN),
    # MaxGain: the largest gain ``current ECT - new ECT``; MaxRelGain: the gain per processor
    HeuristicSpec("maxgain", "MaxGain", True, _gain, fastselect.MAXGAIN),
    HeuristicSpec("maxrelgain", "MaxRelGain", True, _relative_gain, fastselect.MAXRELGAIN),
    # Sufferage: difference between the two best ECTs (infinite when the job fits one cluster only)
    HeuristicSpec("sufferage", "Sufferage", True, _sufferage, fastselect.SUFFERAGE),
):
    register_heuristic(_spec)


def select_job(heuristic: str, ect: np.ndarray, current: np.ndarray, procs: np.ndarray,
               alive: np.ndarray | None = None) -> int:
    """Row chosen by ``heuristic`` among the ``alive`` rows of an ECT matrix (§2.2.2).

    Parameters
    ----------
    heuristic : str
        A name of :data:`HEURISTICS`: ``mct``, ``minmin``, ``maxmin``, ``maxgain``, ``maxrelgain``, ``sufferage``.
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
    spec = HEURISTICS.get(heuristic)
    n, K = ect.shape
    if alive is None:
        alive = np.ones(n, dtype=bool)
    if spec.code == fastselect.MCT:
        return int(np.argmax(alive))
    if spec.code is not None and n:
        return int(fastselect.select_builtin(spec.code, spec.maximise, np.ascontiguousarray(ect, dtype=np.float64),
                                             np.ascontiguousarray(current, dtype=np.float64),
                                             np.ascontiguousarray(procs, dtype=np.float64), alive))
    return _select_numpy(spec, ect, current, procs, alive)


def _select_numpy(spec: HeuristicSpec, ect: np.ndarray, current: np.ndarray, procs: np.ndarray,
                  alive: np.ndarray) -> int:
    """:func:`select_job` with numpy for any specification (the reference of the compiled path)."""
    n, K = ect.shape
    if K >= 2:
        two = np.partition(ect, 1, axis=1)
        best, second = two[:, 0], two[:, 1]
    else:
        best, second = ect[:, 0], np.full(n, _INF)
    key = np.asarray(spec.key(best, second, current, procs), dtype=np.float64)
    if spec.maximise:
        return int(np.argmax(np.where(alive, key, -_INF)))
    return int(np.argmin(np.where(alive, key, _INF)))
