"""Compiled job selection for the built-in reallocation heuristics (numba; see :func:`select_builtin`).

:func:`heuristics.grid.realloc.select_job` ranks the waiting jobs once per resubmission;
with thousands of waiting jobs the numpy version (a partition of the ECT matrix, a key
vector, a masked argmax) costs tens of microseconds of overhead per call. This module
does the same computation in one compiled pass over the rows, with the same results:
``best`` and ``second`` are the two smallest ECTs of a row (with multiplicity, as
``numpy.partition``), the keys are the formulas of the registry's key functions, and the
choice is the first row with the extreme key among the alive rows, with numpy's rules for
NaN (the first NaN wins) and for dead rows (they hold ``-inf`` when maximising, ``inf``
when minimising, so they win only when no alive row beats them, as in numpy).
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

_INF = np.inf

MCT, MINMIN, MAXMIN, MAXGAIN, MAXRELGAIN, SUFFERAGE = 0, 1, 2, 3, 4, 5
"""Codes of the compiled keys, named in :data:`heuristics.grid.selection.HEURISTICS` (MCT: submission order)."""


@njit(cache=True)
def _key(code, best, second, current, procs):
    if code == MINMIN or code == MAXMIN:
        return best
    if code == MAXGAIN:
        return current - best
    if code == MAXRELGAIN:
        return (current - best) / procs
    # SUFFERAGE
    if second == _INF or second == -_INF:
        return _INF
    return second - best


@njit(cache=True)
def two_smallest(ect, i, K):
    """The smallest and second smallest of ``ect[i, :K]`` with multiplicity (``inf`` when missing),
    as ``numpy.partition(ect, 1, axis=1)`` gives them."""
    best = _INF
    second = _INF
    for k in range(K):
        v = ect[i, k]
        if v < best:
            second = best
            best = v
        elif v < second:
            second = v
    return best, second


@njit(cache=True)
def select_builtin(code, maximise, ect, current, procs, alive):
    """Row chosen by heuristic ``code`` (module constants) among the ``alive`` rows of ``ect``."""
    n, K = ect.shape
    chosen = 0
    top = 0.0
    for i in range(n):
        if alive[i]:
            best, second = two_smallest(ect, i, K)
            key = _key(code, best, second, current[i], procs[i])
            if key != key:  # NaN: numpy's argmax and argmin return the first one
                return i
        else:
            key = -_INF if maximise else _INF
        if i == 0 or (key > top if maximise else key < top):
            chosen = i
            top = key
    return chosen
