"""The reallocation heuristics of seed 000 §2.2.2: one table of specifications, and the job selection.

Each heuristic is a :class:`HeuristicSpec`: its name, its label in the paper's tables,
whether it takes the largest or the smallest key, and its key over the jobs' smallest and
second smallest ECT, their current ECT and their width: for the built-in heuristics the
code of the key in the compiled selection of :mod:`heuristics.grid.fastselect` (where each
formula is written once), for a user's heuristic a numpy function ``key(best, second,
current, procs)``. :data:`HEURISTICS` is the registry of these specifications (users may
register their own with :func:`register_heuristic`); every other module (the selection
here, the compiled event, the labels of the policy and of the benchmark tables) reads them
from it.

:func:`select_job` picks one job: a spec with a code goes through the compiled pass of
:mod:`heuristics.grid.fastselect`, a spec with a numpy key through :func:`_select_numpy`.
The plain numpy formulas of the built-in keys live in ``tests/grid/plain_selection.py``,
the reference the compiled pass is tested against.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from heuristics.grid import fastselect
from vcsched.errors import InvalidInputError
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
    key : callable or None
        ``key(best, second, current, procs) -> ndarray`` over numpy arrays, for a heuristic
        without a compiled key (None for the built-in ones).
    code : int or None
        The key's code in :mod:`heuristics.grid.fastselect` (``fastselect.MCT``: submission
        order), or None when the key is the numpy ``key``.
    """

    name: str
    label: str
    maximise: bool
    key: Callable | None
    code: int | None = None

    def __post_init__(self) -> None:
        if (self.key is None) == (self.code is None):
            raise InvalidInputError(f"reallocation heuristic {self.name!r}: give either a numpy key function or a "
                                    "compiled key code, not both and not neither")


HEURISTICS: Registry = Registry("reallocation heuristic", names.HEURISTICS)
"""Specifications of the reallocation heuristics, by name (:class:`HeuristicSpec`)."""


def register_heuristic(spec: HeuristicSpec) -> HeuristicSpec:
    """Add ``spec`` to :data:`HEURISTICS` under ``spec.name``."""
    return HEURISTICS.register(spec.name)(spec)


for _spec in (
    # MCT: submission order (the rows are in submission order; every score is 0, ties go first)
    HeuristicSpec("mct", "Mct", False, None, fastselect.MCT),
    # MinMin: the job with the smallest minimum ECT; MaxMin: the largest
    HeuristicSpec("minmin", "MinMin", False, None, fastselect.MINMIN),
    HeuristicSpec("maxmin", "MaxMin", True, None, fastselect.MAXMIN),
    # MaxGain: the largest gain ``current ECT - new ECT``; MaxRelGain: the gain per processor
    HeuristicSpec("maxgain", "MaxGain", True, None, fastselect.MAXGAIN),
    HeuristicSpec("maxrelgain", "MaxRelGain", True, None, fastselect.MAXRELGAIN),
    # Sufferage: difference between the two best ECTs (infinite when the job fits one cluster only)
    HeuristicSpec("sufferage", "Sufferage", True, None, fastselect.SUFFERAGE),
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
    if spec.code is not None:
        if not n:
            return 0
        return int(fastselect.select_builtin(spec.code, spec.maximise, np.ascontiguousarray(ect, dtype=np.float64),
                                             np.ascontiguousarray(current, dtype=np.float64),
                                             np.ascontiguousarray(procs, dtype=np.float64), alive))
    return _select_numpy(spec, ect, current, procs, alive)


def _select_numpy(spec: HeuristicSpec, ect: np.ndarray, current: np.ndarray, procs: np.ndarray,
                  alive: np.ndarray) -> int:
    """:func:`select_job` for a specification with a numpy ``key`` (a user's heuristic)."""
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
