"""Linear relaxations of time-shared servers (seed 003): the interval LP for sumflow and deadline feasibility.

Both relax processor sharing (Caniou & Jeannot RR-5168, §2.3) to a *preemptive, divisible* schedule:
a task's computation may be split between servers and interrupted, under three rules that every
processor-sharing schedule obeys,

* a server processes at most its capacity: at most ``Δ`` seconds of (unloaded) computation in any
  interval of length ``Δ``;
* a task runs at most at full speed: in any interval of length ``Δ``, the unloaded computation time
  it receives, summed over servers, is at most ``Δ`` (under sharing it receives ``Δ / n``);
* nothing before its arrival: task ``i``'s computation on server ``s`` starts no earlier than
  ``a_i + input[s]`` (the dedicated input transfer) and its result is back ``output[s]`` after its
  computation ends.

A fraction ``x_is`` of task ``i`` on server ``s`` costs ``x_is * p_is`` seconds of that server
(``p_is``: the task's computation time on the unloaded server, Tables 4-5, times its work factor).
A processor-sharing schedule of any mapping is such a schedule with ``x_is`` in {0, 1}, so the
optimum of each relaxation is at most the value of the best mapping (the validity arguments are
in each function's docstring and in ``docs/bounds.md``).

The LPs are built as sparse arrays and solved by HiGHS (:func:`vcsched.formulations.solve.new_highs`);
:func:`solve_lp` maps HiGHS's status with :func:`vcsched.formulations.solve.translate_status`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from vcsched.formulations.solve import solve_highs_lp
from vcsched.jitclock import clock
from vcsched.result import Status

__all__ = ["LPOutcome", "solve_lp", "sumflow_interval_lp", "deadline_feasible", "bisect_threshold", "makespan_lp",
           "VARIABLE_BUDGET"]


VARIABLE_BUDGET = 100_000
"""Most (task, server, interval) variables an LP may have; above it the time grid is coarsened (still valid)."""


@dataclasses.dataclass(frozen=True)
class LPOutcome:
    status: Status
    objective: float | None
    x: np.ndarray | None
    seconds: float


def solve_lp(cost, rows, cols, vals, row_lo, row_hi, col_hi, *, maximize: bool = False,
             time_limit: float | None = None) -> LPOutcome:
    """Solve ``min (max) cost.x`` s.t. ``row_lo <= A x <= row_hi``, ``0 <= x <= col_hi`` with HiGHS.

    ``A`` is given in coordinate form (``rows``, ``cols``, ``vals``); columns may be unbounded
    above (``inf``). The status is HiGHS's, translated; a limit is never reported optimal.
    """
    import highspy

    n, m = len(cost), len(row_lo)
    rows, cols, vals = (np.asarray(a) for a in (rows, cols, vals))
    order = np.lexsort((rows, cols))
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_ = np.zeros(n)
    lp.col_upper_ = np.where(np.isfinite(col_hi), col_hi, highspy.kHighsInf).astype(float)
    lp.row_lower_ = np.where(np.isfinite(row_lo), row_lo, -highspy.kHighsInf).astype(float)
    lp.row_upper_ = np.where(np.isfinite(row_hi), row_hi, highspy.kHighsInf).astype(float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    lp.a_matrix_.start_ = np.searchsorted(cols[order], np.arange(n + 1)).astype(np.int32)
    lp.a_matrix_.index_ = rows[order].astype(np.int32)
    lp.a_matrix_.value_ = vals[order].astype(float)
    lp.sense_ = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
    out, x = solve_highs_lp(lp, False, time_limit=None if time_limit is None else max(float(time_limit), 0.01))
    objective = out.objective if out.status is Status.OPTIMAL else None
    return LPOutcome(out.status, objective, x if out.status.has_solution else None, out.seconds)


def _append(count: int, first, second, firsts: list, seconds: list) -> tuple[np.ndarray, int]:
    """Append a block of ``first`` values (and ``second`` broadcast to them) to two lists of blocks:
    ``(indices of the block, new count)``."""
    first = np.atleast_1d(np.asarray(first, dtype=float))
    firsts.append(first)
    seconds.append(np.broadcast_to(np.asarray(second, dtype=float), first.shape))
    return np.arange(count, count + first.size), count + first.size


class _Builder:
    """Columns and coordinate entries of a sparse LP, appended block by block."""

    def __init__(self) -> None:
        self.n = 0
        self.m = 0
        self.cost: list = []
        self.hi: list = []
        self.r: list = []
        self.c: list = []
        self.v: list = []
        self.lo_rows: list = []
        self.hi_rows: list = []

    def columns(self, cost, hi) -> np.ndarray:
        """New columns of costs ``cost`` and upper bounds ``hi``; their indices."""
        idx, self.n = _append(self.n, cost, hi, self.cost, self.hi)
        return idx

    def rows(self, lo, hi) -> np.ndarray:
        """New rows ``lo <= . <= hi``; their indices."""
        idx, self.m = _append(self.m, lo, hi, self.lo_rows, self.hi_rows)
        return idx

    def entries(self, rows, cols, vals) -> None:
        rows, cols = np.atleast_1d(rows), np.atleast_1d(cols)
        self.r.append(rows)
        self.c.append(cols)
        self.v.append(np.broadcast_to(np.asarray(vals, dtype=float), rows.shape))

    def solve(self, *, maximize: bool = False, time_limit: float | None = None) -> LPOutcome:
        cat = lambda parts: np.concatenate(parts) if parts else np.empty(0)  # noqa: E731
        return solve_lp(cat(self.cost), cat(self.r).astype(np.int64), cat(self.c).astype(np.int64), cat(self.v),
                        cat(self.lo_rows), cat(self.hi_rows), cat(self.hi), maximize=maximize,
                        time_limit=time_limit)


def _grid_cells(lo: float, hi: float, t0: float, delta: float) -> tuple[int, int]:
    """Indices ``[j0, j1)`` of the grid cells ``[t0 + j delta, t0 + (j+1) delta)`` that meet ``[lo, hi)``."""
    j0 = max(int(math.floor((lo - t0) / delta)), 0)
    j1 = max(int(math.ceil((hi - t0) / delta)), j0 + 1)
    return j0, j1


def sumflow_interval_lp(arrival, release, p, out, *, window, delta: float, levels: int = 1,
                        time_limit: float | None = None) -> tuple[LPOutcome, np.ndarray]:
    """Interval-indexed LP relaxation of the sum of flows; returns the outcome and each task's tail mass.

    Parameters
    ----------
    arrival : ndarray (n,)
        ``a_i``, the date the task reaches the agent (flows are measured from it).
    release : ndarray (n, S)
        ``r_is = a_i + input[s]``: earliest start of the computation on ``s``.
    p, out : ndarray (n, S)
        Computation (unloaded) and output-transfer times.
    window : ndarray (n,)
        Length after ``a_i`` over which task ``i`` is time-indexed on the finest grid.
    delta : float
        Length of the finest grid's cells (the grid starts at ``min a``).
    levels : int
        Number of grids: level ``k`` has cells of ``delta 2^k`` and indexes task ``i`` from the end of
        level ``k - 1`` to about ``a_i + window_i 2^k``; what is computed after the last level is the
        task's *tail*.

    Notes
    -----
    Variables: ``x_ist`` (fraction of ``i`` computed on ``s`` in cell ``t`` of some level, only the
    cells that meet ``[r_is, ∞)`` inside the task's span of that level), ``z_is`` (fraction computed
    on ``s`` after ``end_i``, the end of its last level), ``F_i`` (flow). Constraints: ``Σ x + Σ z =
    1``; server capacity ``Σ x_ist p_is <= |C|`` for every cell ``C`` of every level, over the
    columns of that level and the finer ones inside ``C`` (the grids are nested); full speed
    ``Σ_s x_ist p_is <= |cell ∩ [min_s r_is, ∞)|`` and ``x_ist p_is <= |cell ∩ [r_is, ∞)|``;
    ``F_i >= Σ x_ist (l_ist + p_is/2 + out_is) + Σ z_is (end_i + p_is/2 + out_is) - a_i`` with
    ``l_ist = max(cell start, r_is)``; ``F_i >= Σ_s (Σ_t x_ist + z_is)(r_is - a_i + p_is + out_is)``.
    Minimise ``Σ F_i``.

    Validity: take any mapping and its processor-sharing schedule; set ``x_ist`` to the share of
    ``i``'s computation done in cell ``t`` (on its server ``s`` only; the tail takes what is done
    after ``end_i``). Capacity and speed hold (a server computes at rate 1 in total, a task at rate
    ``1/n <= 1``; a coarse row only leaves out the columns of coarser levels). The computation's
    *mean busy date* ``M_i = ∫ t y_i(t) dt`` (``y_i`` its rate as a fraction per second, ``y_i <=
    1/p_is``) is at least ``Σ x_ist l_ist + z_is end_i`` (each piece is done no earlier than the
    start of its part of the cell), and since at most ``1/p_is`` of the task is done per second
    before its end ``E_i``, ``M_i <= E_i - p_is/2``. The completion is ``E_i + out_is``, so the
    flow satisfies the first ``F`` row; the second is ``flow >= unloaded duration``. Tail columns
    use no capacity (dropping those terms only loosens the capacity rows), so the LP minimum is at
    most the mapping's sumflow, whatever the windows.
    """
    n = p.shape[0]
    b = _Builder()
    arrival = np.asarray(arrival, dtype=float)
    window = np.asarray(window, dtype=float)
    t0 = float(np.min(arrival)) if n else 0.0
    cells, end = _usable_cells(arrival, release, p, out, window, t0, delta, levels)
    x, z = _flow_rows(b, cells, arrival, release, p, out, end)
    _speed_and_capacity_rows(b, cells, x, release, t0, delta, levels)
    outcome = b.solve(time_limit=time_limit)
    tail = outcome.x[z].sum(axis=1) if outcome.x is not None else np.zeros(n)
    return outcome, tail


@dataclasses.dataclass(frozen=True)
class _Cells:
    """The ``x`` columns of :func:`sumflow_interval_lp`, one entry each: task, server, level, cell
    index, cell length, computation and output times, ``l_ist`` and the usable length of the cell."""

    task: np.ndarray
    server: np.ndarray
    level: np.ndarray
    cell: np.ndarray
    size: np.ndarray
    ps: np.ndarray
    out: np.ndarray
    left: np.ndarray
    avail: np.ndarray


def _usable_cells(arrival, release, p, out, window, t0: float, delta: float, levels: int) -> tuple[_Cells, np.ndarray]:
    """The cells of every level that meet ``[r_is, inf)`` by more than 1e-12 s, and each task's end
    (the end of its last level)."""
    task, server, level, cell, bounds = _level_cells(arrival, release, window, t0, delta, levels)
    size = delta * (2.0 ** level)
    left = np.maximum(t0 + cell * size, release[task, server])
    avail = t0 + (cell + 1) * size - left
    keep = avail > 1e-12
    cells = _Cells(task[keep], server[keep], level[keep], cell[keep], size[keep], p[task, server][keep],
                   out[task, server][keep], left[keep], avail[keep])
    return cells, bounds[:, -1]


def _flow_rows(b: _Builder, c: _Cells, arrival, release, p, out, end) -> tuple[np.ndarray, np.ndarray]:
    """Columns ``F``, ``x`` and ``z`` with the assignment row and the two flow rows of every task;
    returns the ``x`` columns and the ``z`` columns as an (n, S) array."""
    n, S = p.shape
    dur = release - arrival[:, None] + p + out
    flow_cols = b.columns(np.ones(n), np.inf)
    x = b.columns(np.zeros(c.task.size), c.avail / c.ps)
    z = b.columns(np.zeros(n * S), np.inf).reshape(n, S)
    assign = b.rows(np.ones(n), np.ones(n))
    meanrow = b.rows(np.full(n, -np.inf), np.zeros(n))
    durrow = b.rows(np.full(n, -np.inf), np.zeros(n))
    b.entries(meanrow, flow_cols, -1.0)
    b.entries(durrow, flow_cols, -1.0)
    b.entries(assign[c.task], x, 1.0)
    b.entries(meanrow[c.task], x, c.left + c.ps / 2 + c.out - arrival[c.task])
    b.entries(durrow[c.task], x, dur[c.task, c.server])
    zi = np.repeat(np.arange(n), S)
    b.entries(assign[zi], z.ravel(), 1.0)
    b.entries(meanrow[zi], z.ravel(), (np.maximum(end[:, None], release) + p / 2 + out - arrival[:, None]).ravel())
    b.entries(durrow[zi], z.ravel(), dur.ravel())
    return x, z


def _speed_and_capacity_rows(b: _Builder, c: _Cells, x, release, t0: float, delta: float, levels: int) -> None:
    """A task's full speed per cell, and every server's capacity in the cells of every level over the
    columns of that level and the finer ones inside them."""
    rmin = release.min(axis=1)[c.task]
    width = int(c.cell.max()) + 1 if c.cell.size else 1
    _grouped_rows(b, (c.task * levels + c.level) * width + c.cell, x, c.ps,
                  t0 + (c.cell + 1) * c.size - np.maximum(t0 + c.cell * c.size, rmin))
    for k in range(levels):  # capacity of the level-k cells, over the columns of levels <= k inside them
        fine = c.level <= k
        key = c.server[fine] * width + (c.cell[fine] >> (k - c.level[fine]))
        _grouped_rows(b, key, x[fine], c.ps[fine], np.full(int(fine.sum()), delta * 2.0 ** k),
                      need=c.level[fine] == k)


def _level_cells(arrival, release, window, t0: float, delta: float, levels: int):
    """(task, server, level, cell, bounds): the cells of every level for every (task, server) pair.

    ``bounds[i, k]`` is the end of task ``i``'s span at level ``k``, aligned to the next level's grid
    (the last to its own), so that level ``k + 1`` starts on one of its cells.
    """
    n, S = release.shape
    bounds = np.empty((n, levels))
    for k in range(levels):
        unit = delta * 2.0 ** min(k + 1, levels - 1)
        bounds[:, k] = t0 + np.ceil((arrival + window * 2.0 ** k - t0) / unit) * unit
        if k:
            bounds[:, k] = np.maximum(bounds[:, k], bounds[:, k - 1])
    parts = []
    for k in range(levels):
        size = delta * 2.0 ** k
        first = np.maximum(np.floor((release - t0) / size), 0).astype(np.int64)
        if k:
            first = np.maximum(first, np.round((bounds[:, k - 1] - t0) / size).astype(np.int64)[:, None])
        last = np.round((bounds[:, k] - t0) / size).astype(np.int64)
        count = np.maximum(last[:, None] - first, 0).ravel()
        task = np.repeat(np.repeat(np.arange(n), S), count)
        server = np.repeat(np.tile(np.arange(S), n), count)
        cell = np.repeat(first.ravel(), count) + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
        parts.append((task, server, np.full(task.size, k, dtype=np.int64), cell))
    task, server, level, cell = (np.concatenate([q[j] for q in parts]) for j in range(4))
    return task, server, level, cell, bounds


def _grouped_rows(b: _Builder, key: np.ndarray, cols: np.ndarray, weight: np.ndarray, room: np.ndarray,
                  need: np.ndarray | None = None) -> None:
    """One row ``Σ weight * x <= room`` per distinct ``key`` met by at least two columns (one column alone is
    already bounded by its upper bound) and, with ``need``, by at least one column where ``need`` holds
    (the other groups' rows are implied by finer ones)."""
    if key.size == 0:
        return
    uniq, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    multi = counts[inverse] > 1
    if need is not None:
        has = np.zeros(uniq.size, dtype=bool)
        has[inverse[need]] = True
        multi &= has[inverse]
    if not multi.any():
        return
    sub_uniq, sub_inv = np.unique(inverse[multi], return_inverse=True)
    first_room = np.zeros(uniq.size)
    first_room[inverse[multi]] = room[multi]
    rows = b.rows(np.full(sub_uniq.size, -np.inf), first_room[sub_uniq])
    b.entries(rows[sub_inv], cols[multi], weight[multi])


def deadline_feasible(release, deadline, p, *, grid: float | None = None,
                      time_limit: float | None = None) -> tuple[bool | None, float]:
    """Can every task be computed, preemptively and divisibly, with the fraction on ``s`` inside ``[r_is, D_is]``?

    Parameters
    ----------
    release, deadline : ndarray (n, S)
        Window of task ``i``'s computation on server ``s``; a pair with ``D_is - r_is < p_is``
        cannot hold the whole task but may still hold a fraction (``nan`` or ``D <= r``: forbidden).
    p : ndarray (n, S)
        Computation times.
    grid : float, optional
        Round every window outwards to multiples of ``grid`` (a larger window: still a relaxation)
        to bound the number of intervals; default: the exact breakpoints.

    Returns
    -------
    (feasible, seconds)
        ``feasible`` is None when HiGHS stopped at its limit.

    Notes
    -----
    Elementary intervals between consecutive window ends; variables ``x_ist`` for the intervals
    inside ``[r_is, D_is]``; ``Σ_t x_ist p_is <= Δ_t`` per server and interval, ``Σ_s x_ist p_is <= Δ_t``
    per task and interval, ``Σ_{s,t} x_ist <= 1``; maximise ``Σ x``; feasible iff every task is
    complete (to 1e-7 relative). With exact breakpoints this is the preemptive relaxation exactly:
    inside an interval where the set of windows open does not change, any such fractional amounts
    can be sequenced preemptively (the open-shop argument of Lawler & Labetoulle, 1978). A
    processor-sharing schedule meeting the windows is one such schedule, so "infeasible" proves
    that no mapping meets them.
    """
    n, S = p.shape
    ok = np.isfinite(release) & np.isfinite(deadline) & (deadline > release)
    r = np.where(ok, release, 0.0)
    d = np.where(ok, deadline, 0.0)
    if grid:
        r = np.floor(r / grid) * grid
        d = np.ceil(d / grid) * grid
    points = np.unique(np.concatenate([r[ok], d[ok]]))
    if (~ok.any(axis=1)).any():
        return False, 0.0
    first = np.searchsorted(points, r)
    count = np.where(ok, np.searchsorted(points, d) - first, 0)
    flat = count.ravel()
    task = np.repeat(np.repeat(np.arange(n), S), flat)
    server = np.repeat(np.tile(np.arange(S), n), flat)
    cell = np.repeat(first.ravel(), flat) + np.arange(flat.sum()) - np.repeat(np.cumsum(flat) - flat, flat)
    lengths = np.diff(points)
    ps = p[task, server]
    b = _Builder()
    x = b.columns(np.ones(task.size), lengths[cell] / ps)
    assign = b.rows(np.full(n, -np.inf), np.ones(n))
    b.entries(assign[task], x, 1.0)
    width = max(len(points), 1)
    _grouped_rows(b, task * width + cell, x, ps, lengths[cell])
    _grouped_rows(b, server * width + cell, x, ps, lengths[cell])
    outcome = b.solve(maximize=True, time_limit=time_limit)
    if outcome.status is not Status.OPTIMAL:
        return None, outcome.seconds
    return bool(outcome.objective >= n * (1 - 1e-7)), outcome.seconds


def makespan_lp(release, p, out, lower: float, *, time_limit: float | None = None) -> LPOutcome:
    """Least makespan of the preemptive relaxation, in one LP; ``objective`` is that makespan.

    Parameters
    ----------
    release, p, out : ndarray (n, S)
        Earliest computation start, computation and output times of each task on each server.
    lower : float
        A known lower bound on the makespan (the critical path): it splits the time line.

    Notes
    -----
    Every computation must end by ``D = C_max - min out`` (relaxed from ``C_max - out_is``: a
    larger window). The elementary intervals are those between the releases before
    ``lower - min out`` and that date, then one last interval ``[lower - min out, D]`` of variable
    length ``L >= 0``; a pair released after ``lower - min out`` may use the whole last interval
    (relaxed). Rows as in :func:`deadline_feasible` (capacity and full speed per interval, the
    last ones against ``L``); minimise ``L``. The makespan bound is ``lower + L``: any mapping's
    processor-sharing schedule is a point of this LP with ``L = C_max - lower`` or less.
    """
    n, S = p.shape
    omin = float(np.min(out)) if n else 0.0
    split = float(lower) - omin
    r = np.minimum(np.asarray(release, dtype=float), split)
    points = np.unique(np.concatenate([r.ravel(), [split]]))
    first = np.searchsorted(points, r)
    count = (len(points) - first).ravel()  # the cells up to split, and the last (variable) one
    task = np.repeat(np.repeat(np.arange(n), S), count)
    server = np.repeat(np.tile(np.arange(S), n), count)
    cell = np.repeat(first.ravel(), count) + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    last = cell == len(points) - 1
    lengths = np.append(np.diff(points), np.inf)
    ps = p[task, server]
    b = _Builder()
    length = b.columns([1.0], np.inf)
    x = b.columns(np.zeros(task.size), np.where(last, np.inf, lengths[cell] / ps))
    assign = b.rows(np.ones(n), np.ones(n))
    b.entries(assign[task], x, 1.0)
    width = len(points)
    early = ~last
    _grouped_rows(b, task[early] * width + cell[early], x[early], ps[early], lengths[cell[early]])
    _grouped_rows(b, server[early] * width + cell[early], x[early], ps[early], lengths[cell[early]])
    for owner, size in ((task[last], n), (server[last], S)):  # in the last interval: Σ p x <= L
        rows = b.rows(np.full(size, -np.inf), np.zeros(size))
        b.entries(rows[owner], x[last], ps[last])
        b.entries(rows, np.full(size, length[0]), -1.0)
    outcome = b.solve(time_limit=time_limit)
    value = None if outcome.objective is None else float(lower) + outcome.objective
    return dataclasses.replace(outcome, objective=value)


def bisect_threshold(feasible: Callable[[float], bool | None], lo: float, *, rtol: float = 1e-6,
                     deadline: float | None = None) -> tuple[float, float, bool]:
    """Largest value proven infeasible (or ``lo``) by bisection on a monotone feasibility test.

    ``feasible(v)`` must be monotone (feasible at ``v`` implies feasible above). ``lo`` must be a
    valid lower bound on the threshold. Returns ``(bound, upper, converged)``: the threshold lies in
    ``[bound, upper]`` and ``converged`` says that ``upper - bound <= rtol * bound``; at the
    ``deadline`` (a :func:`vcsched.jitclock.clock` date) or when the LP stops at a limit, the search stops
    with the bound proven so far (still valid).
    """
    if feasible(lo):
        return lo, lo, True
    hi = 2.0 * lo if lo > 0 else 1.0
    while True:
        if deadline is not None and clock() > deadline:
            return lo, math.inf, False
        f = feasible(hi)
        if f is None:
            return lo, math.inf, False
        if f:
            break
        lo, hi = hi, 2.0 * hi
    while hi - lo > rtol * lo:
        if deadline is not None and clock() > deadline:
            return lo, hi, False
        mid = 0.5 * (lo + hi)
        f = feasible(mid)
        if f is None:
            return lo, hi, False
        if f:
            hi = mid
        else:
            lo = mid
    return lo, hi, True
