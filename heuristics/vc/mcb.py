"""Multi-capacity bin packing heuristics MCB1-MCB8 (seed 001 §3.4).

At a target yield ``Y`` every task is a two-dimensional item
``(alpha_i * Y, m_i)`` and hosts are bins of capacity ``(1, 1)``. The
packing of Leinberger, Karypis and Kumar (1999) for ``d = 2``:

1. split the items into a *CPU-heavy* list (``alpha_i Y >= m_i``; ties go
   here) and a *memory-heavy* list (``alpha_i Y < m_i``);
2. sort both lists by the variant's key (stable, ties keep task order):

   ====  ==========================  ===========
   MCB   key                         order
   ====  ==========================  ===========
   1, 5  memory + CPU                asc, desc
   2, 6  max - min                   asc, desc
   3, 7  max / min (``inf`` if min=0)  asc, desc
   4, 8  max                         asc, desc
   ====  ==========================  ===========

3. fill the hosts one at a time: take the first item that fits from the list
   that works against the host's current imbalance -- the CPU-heavy list when
   the free CPU is at least the free memory (so an empty host starts with the
   CPU-heavy list), else the memory-heavy list -- and, when that list has no
   item that fits, the first that fits from the other list. When neither list
   has one, move on to the next host. The packing succeeds when every item is
   placed (:mod:`heuristics.vc.mcb_pack`).

A binary search on ``Y`` (§3.4) starts at half of ``Y_max = min(1, H / sum of
alpha over tasks)`` and keeps ``lo`` (a yield that packed) and ``hi`` (one
that did not, initially ``Y_max``); it stops when ``hi - lo <= tol``
(default ``1e-4``). When a packing succeeds, ``lo`` becomes the best yield of
that placement, ``min(1, 1 / max_j L_j) >= Y``, which can only shorten the
search. MCB is not monotone in ``Y``, so the returned placement is the best
of all that packed. When no probe packs, a wider probe (a descending grid of
yields, then the binary search resumed in the bracket found, see :func:`mcb`)
and a last packing at ``Y = 0`` (memory only; any placement it finds has a
positive yield) are tried; if all fail the result is ``failed`` ("no yield
Y > 0 packs").

Parallel jobs (§5): every task is an item with its job's ``alpha_i Y`` and
``m_i``; tasks of one job are placed independently and may share a host.
Every task then gets ``alpha_i Y`` CPU, the same for the tasks of a job.

Notes
-----
The reported minimum yield is that of the final placement after the
average-yield phase, i.e. ``min(1, 1 / max_j L_j)``, which is at least the
``Y`` at which it was packed.

The packing at one yield is :func:`heuristics.vc.mcb_pack.mcb_pack`; the
yield search (:class:`_YieldSearch`, :func:`_search`) is here. ``Y_max`` is
computed with ``math.fsum``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from heuristics.vc._common import failed, finish, validate_instance
from heuristics.vc.mcb_pack import MCB_VARIANTS, mcb_pack
from vcsched.errors import InvalidInputError
from vcsched.problems.vc import VCInstance, placement_min_yield
from vcsched.result import Result

__all__ = ["mcb", "mcb_place", "DEFAULT_TOL", "DEFAULT_GRID",
           "GRID_MODES"] + [f"mcb{v}" for v in range(1, 9)]

DEFAULT_TOL = 1e-4
"""Default stopping tolerance of the binary search: stop when ``hi - lo <= tol``."""

DEFAULT_GRID = 32
"""Default number of points of the wider probe tried when the binary search finds nothing (see :func:`mcb`)."""

GRID_MODES = ("failure", "always")
"""When the wider probe runs: only when the binary search found nothing, or after every search."""

NO_PACKING = "no yield Y > 0 packs (not even memory alone)"


class _YieldSearch:
    """Packings of one instance at trial yields, remembering the best placement found.

    ``pack(y)`` packs the tasks at yield ``y`` (a placement or ``None``) and
    ``min_yield(placement)`` is the placement's best minimum yield.
    """

    def __init__(self, pack: Callable[[float], Any], min_yield: Callable[[Any], float]):
        self.pack, self.min_yield = pack, min_yield
        self.best: Any = None
        self.best_y = -1.0
        self.probes = 0

    def probe(self, y: float) -> float | None:
        """Pack at yield ``y``; the placement's minimum yield, or ``None`` if the packing failed."""
        placement = self.pack(y)
        self.probes += 1
        if placement is None:
            return None
        yy = self.min_yield(placement)
        if yy > self.best_y:
            self.best, self.best_y = placement, yy
        return yy

    def bisect(self, lo: float, hi: float, y: float, tol: float) -> tuple[float, float]:
        """Binary search from a first probe at ``y``: ``lo`` packed (or 0), ``hi`` failed (or the upper end).

        A packing that succeeds raises ``lo`` to its placement's minimum yield
        when that is higher. Stops when ``hi - lo <= tol``; returns ``(lo, hi)``.
        """
        while True:
            yy = self.probe(y)
            if yy is None:
                hi = min(hi, y)
            else:
                lo = max(lo, y, yy)
            if hi - lo <= tol:
                return lo, hi
            y = 0.5 * (lo + hi)

    def scan_down(self, y_max: float, points: int, above: float = 0.0) -> tuple[float, float] | None:
        """Probe ``y_max * k / points`` for ``k = points - 1, ..., 1`` while above ``above``; stop at the first that packs.

        Returns ``(y_k, y_{k+1})``, a yield that packed and the grid point
        above it (which did not, or is ``y_max``), or ``None`` when none packs.
        """
        for k in range(points - 1, 0, -1):
            y = y_max * k / points
            if y <= above:
                return None
            if self.probe(y) is not None:
                return y, y_max * (k + 1) / points
        return None


def mcb(instance: VCInstance, variant: int = 8, *, rng=None, tol: float = DEFAULT_TOL,
        grid: int = DEFAULT_GRID, grid_mode: str = "failure") -> Result:
    """MCB heuristic ``variant`` (§3.4) with binary search on the yield.

    Parameters
    ----------
    instance : VCInstance
    variant : int in 1..8
        Sort key and order, see the module docstring.
    rng : ignored
        MCB is deterministic.
    tol : float, default 1e-4
        Stop the binary search when ``hi - lo <= tol``.
    grid : int, default 32
        Points of the wider probe (0 or 1: no wider probe); see Notes.
    grid_mode : {"failure", "always"}, default "failure"
        ``"failure"``: the wider probe runs only when no probe of the binary
        search packed. ``"always"``: it also runs after a successful search,
        over the grid points above the yield found (up to ``grid - 1`` more
        packings), and keeps the better placement.

    Returns
    -------
    Result
        ``feasible`` with the best placement found after the average-yield
        phase, or ``failed``. ``extra``: ``avg_yield``,
        ``seconds_first_phase``, ``probes`` (packings tried, all phases),
        ``grid_probes`` (those of the wider probe), ``y_lo``, ``y_hi`` (final
        search interval), ``y_max``.

    Notes
    -----
    MCB's packing is not monotone in ``Y``: an instance may pack only in a
    window such as ``[0.46, 0.58]`` while the binary search, whose first
    probe is ``Y_max / 2``, fails there and halves downwards, never probing
    the window. The paper (§3.4) only says "binary search"; the authors'
    code searches ``[0, 1]`` from 0.5, which finds such windows only when
    one of its probes falls inside. Our choice: when no probe of the binary
    search packed, probe the grid ``Y_max k / grid`` for ``k = grid - 1``
    down to 1; at the first that packs, resume the binary search between it
    and the grid point above. A window wider than ``Y_max / grid`` is always
    found. Then one packing at ``Y = 0`` (memory only; any placement it finds
    has a positive yield); the best placement of all probes is returned.
    With the default ``grid_mode="failure"``, instances whose binary search
    succeeds are unaffected. The result is ``failed`` ("no yield Y > 0
    packs") only when every probe failed.

    The same non-monotonicity can stop a successful search below a yield
    that packs (e.g. at 0.446 when 0.486 packs); ``grid_mode="always"``
    looks for those too, at the price of more packings.

    References
    ----------
    W. Leinberger, G. Karypis, V. Kumar. Multi-capacity bin packing
    algorithms with applications to job scheduling under multiple
    constraints. ICPP 1999.

    Examples
    --------
    >>> from vcsched.problems.vc import VCInstance
    >>> res = mcb(VCInstance.from_arrays(2, [0.8, 0.8, 0.4], [0.5, 0.5, 0.4]), 8)
    >>> res.status.value, round(res.objective, 4)
    ('feasible', 0.8333)
    """
    t0 = time.perf_counter()
    validate_instance(instance)
    _check_options(variant, tol, grid, grid_mode)
    alpha, mem, hosts = instance.task_cpu, instance.task_mem, instance.hosts
    search = _YieldSearch(lambda y: mcb_pack(alpha * y, mem, hosts, variant),
                          lambda placement: placement_min_yield(instance, placement))
    best, extra = _search(search, min(1.0, hosts / math.fsum(alpha.tolist())), tol, grid, grid_mode)
    t1 = time.perf_counter()
    if best is None:
        return failed(f"mcb{variant}", t0, NO_PACKING, extra)
    return finish(instance, f"mcb{variant}", best, t0, t1, extra)


def mcb_place(task_cpu: np.ndarray, task_mem: np.ndarray, hosts: int, variant: int = 8, *, tol: float = DEFAULT_TOL,
              grid: int = DEFAULT_GRID, compiled_from: int | None = None) -> np.ndarray | None:
    """The first phase of :func:`mcb` on bare items (CPU need ``task_cpu``, memory ``task_mem`` per task): the
    best placement of the same search, or ``None``; no average-yield phase, no Result. ``compiled_from``
    is passed to :func:`heuristics.vc.mcb_pack.mcb_pack` (default: its own threshold)."""
    _check_options(variant, tol, grid, "failure")
    task_cpu = np.asarray(task_cpu, dtype=float)
    options = {} if compiled_from is None else {"compiled_from": compiled_from}

    def min_yield(placement: np.ndarray) -> float:
        peak = float(np.bincount(placement, weights=task_cpu, minlength=hosts).max(initial=0.0))
        return 1.0 if peak <= 1.0 else 1.0 / peak

    search = _YieldSearch(lambda y: mcb_pack(task_cpu * y, task_mem, hosts, variant, **options), min_yield)
    best, _ = _search(search, min(1.0, hosts / math.fsum(task_cpu.tolist())), tol, grid, "failure")
    return best


def _check_options(variant: Any, tol: Any, grid: Any, grid_mode: Any) -> None:
    if variant not in MCB_VARIANTS:
        raise InvalidInputError(f"`variant` must be an integer in 1..8, got {variant!r}")
    if not (isinstance(tol, (int, float)) and 0 < tol < 1):
        raise InvalidInputError(f"`tol` must be a number in (0, 1), got {tol!r}")
    if not (isinstance(grid, int) and not isinstance(grid, bool) and 0 <= grid <= 10_000):
        raise InvalidInputError(f"`grid` must be an integer in 0..10000, got {grid!r}")
    if grid_mode not in GRID_MODES:
        raise InvalidInputError(f"`grid_mode` must be one of {GRID_MODES}, got {grid_mode!r}")


def _search(search: _YieldSearch, y_max: float, tol: float, grid: int, grid_mode: str) -> tuple[Any, dict[str, Any]]:
    """The search of :func:`mcb` (Notes) from ``Y_max``: the best placement found (or ``None``)
    and ``extra`` (``probes``, ``grid_probes``, ``y_lo``, ``y_hi``, ``y_max``)."""
    lo, hi = search.bisect(0.0, y_max, y_max / 2.0, tol)
    found = search.best is not None
    grid_probes = 0
    if grid > 1 and (not found or grid_mode == "always"):
        before = search.probes
        bracket = search.scan_down(y_max, grid, above=lo)
        if bracket is not None:
            lo, hi = search.bisect(bracket[0], bracket[1], 0.5 * (bracket[0] + bracket[1]), tol)
        grid_probes = search.probes - before
    if not found:
        search.probe(0.0)
    return search.best, {"probes": search.probes, "grid_probes": grid_probes, "y_lo": lo, "y_hi": hi, "y_max": y_max}


def _make(variant: int):
    def heuristic(instance: VCInstance, *, rng=None, tol: float = DEFAULT_TOL, grid: int = DEFAULT_GRID,
                  grid_mode: str = "failure") -> Result:
        return mcb(instance, variant, rng=rng, tol=tol, grid=grid, grid_mode=grid_mode)

    key, desc = MCB_VARIANTS[variant]
    heuristic.__name__ = heuristic.__qualname__ = f"mcb{variant}"
    heuristic.__doc__ = (f"MCB{variant} (§3.4): lists sorted by {key}, "
                         f"{'descending' if desc else 'ascending'}; see :func:`mcb`.")
    return heuristic


mcb1, mcb2, mcb3, mcb4, mcb5, mcb6, mcb7, mcb8 = (_make(v) for v in range(1, 9))
