"""The columns of the refined interval LP (:func:`lowerbounds.moldable.refined_interval_bound`)
built as arrays, and the LP solved by column generation with a certified Lagrangian bound.

Model. Interval ends ``b_0 < b_1 < ... < b_L`` with ``b_0 = min_{i,k} p_i(k)``
and ``b_{j+1} = ratio b_j``; intervals ``(0, b_0]``, ``(b_j, b_{j+1}]`` and an
unbounded last one. ``x[i,k,J]`` = task ``i`` runs on ``k`` processors and
completes in interval ``J = (a, b]`` (only if ``p_i(k) <= b``); cost
``w_i max(a, p_i(k))``; ``sum_{k,J} x[i,k,J] >= 1``; for every finite end
``b_J``::

    sum_{J' <= J} k p_i(k) x[i,k,J'] + sum_{J' > J} k max(0, b_J - b_{J'} + p_i(k)) x[i,k,J'] <= m b_J

Validity (proof sketch). Take any schedule and set ``x[i,k_i,J_i] = 1`` for
the interval ``J_i = (a, b]`` holding ``C_i``. Then ``w_i max(a, p_i(k_i)) <= w_i C_i``
(``C_i > a`` and ``C_i >= p_i(k_i)``), so the objective is at most the
schedule's minsum. In ``[0, b_J]`` the processors offer ``m b_J`` of area; a
task completing by ``b_J`` uses all of its ``k p_i(k)`` there, and a task
completing in a later ``(a', b']`` starts at ``S_i = C_i - p_i(k) <= b' - p_i(k)``,
so it uses at least ``k max(0, b_J - b' + p_i(k))`` of it. Hence every
schedule is a feasible 0/1 point and the LP optimum is a lower bound.

Against the paper's model (§3.3) it differs in three ways, each making the
bound larger: (1) finer intervals (the cost ``w_i a`` loses at most a factor
``ratio`` instead of 2); (2) one column per allotment instead of pairing the
least area with the shortest time of any fitting allotment, so a task that
ends early must pay the area of a wide allotment; only Pareto-optimal
(cost, area) allotments get a column, the others are dominated in the LP;
(3) the partial area of tasks still running at ``b_J``. On 40 tiny instances
(``m`` = 2-3, ``n`` = 3-4, the four kinds) the mean ratio bound/optimum is
0.93 against 0.75 for the paper's model; the partial areas bring most of it
(0.83 without them at the same intervals).
Size: ``O(n (L + m))`` columns, ``n + 2L`` rows plus the partial-area
non-zeros.

Columns. For task ``i`` every allotment ``k`` falls in one *cell*, the interval ``(a, b]``
holding ``p_i(k)``. In interval ``J`` the allotments of the cells before ``J`` are *early*
(``p <= a``, one column of cost ``w_i a`` with the least area of the group) and those of cell
``J`` are *late* (one merged column, or one per Pareto-optimal allotment). A column's *partial
area* at an earlier end ``b_r`` is ``min_{k in group} k max(0, p_k - (b - b_r))``; it is zero as
soon as a member of the group is shorter than ``b - b_r``, and the fastest allotment of the
task belongs to every early group, so the early groups need it only where ``b - b_r`` is below
the task's least time (a few ends per task instead of every interval x ``partial_rows`` x ``m``);
late groups are single cells, handled member by member. The values are those of the
column-by-column construction (same groups, same minima, same rules).

Solve. The LP has ``n`` convexity rows and ``2 L`` coupling rows (areas done by, and areas
used before, each end ``b_r``). :func:`solve_by_columns` runs HiGHS's primal simplex on a
restricted master (every task's unbounded-interval columns, which make it feasible, plus the
columns that price out), adding per task its most negative reduced-cost column until none is
left. Its certificate is the Lagrangian bound below, valid at every iteration, so a stop at
the time limit still returns a valid bound.

Validity of the Lagrangian bound. Every schedule maps to a point with exactly one column per
task (Validity, above), so the LP with
``sum_c x_c = 1`` per task is still a relaxation of the problem (and has the same optimum as
the ``>= 1`` form: costs and areas are non-negative, so lowering an ``x_c`` never hurts).
Eliminating the running sums, the area constraint of end ``b_r`` reads
``sum_{c: J_c <= r} area_c x_c + sum_c part_{c,r} x_c <= m b_r``. For any multipliers
``u >= 0`` weak duality gives, for every feasible ``x``,
``sum_c cost_c x_c >= sum_c (cost_c + area_c U_{J_c} + sum_r u_r part_{c,r}) x_c - sum_r u_r m b_r``
with ``U_J = sum_{r >= J} u_r``, and the minimum of the right side over one column per task is
``L(u) = sum_i min_{c of i} rc_c(u) - sum_r u_r m b_r``. So ``L(u)`` is a lower bound on every
schedule's ``sum w_i C_i`` for *any* ``u >= 0``, whatever the solver's accuracy; we take ``u``
from the master's duals of the area rows (``u_r = max(0, -dual_r)``). When no column prices
out, ``L(u)`` equals the master's (and the LP's) optimum: the master's dual on the done row
of ``J`` is at most ``U_J`` (reduced costs of the running-sum columns), so ``rc_c(u)`` is at
least the master's reduced cost plus the task's dual.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from vcsched.formulations.solve import SolveOutcome, highs_status, run_interruptibly
from vcsched.result import Status, relative_gap

__all__ = ["ColumnPool", "build_pool", "solve_full", "solve_by_columns"]


SEED_WIDTH = 0
"""The first master holds every task's columns within this many intervals of its guessed one (0: that
interval only, which measured fastest: larger first masters cost more than the rounds they save)."""

REL_TOL = 1e-12
"""A late column is kept only when its area is below the early one's by this relative margin."""


@dataclasses.dataclass
class ColumnPool:
    """Every column of the refined LP, grouped by task (``task`` non-decreasing).

    ``J`` is the interval of the column (``L`` = the unbounded one), ``part`` its partial areas as
    a CSC matrix of shape ``(L, columns)`` (row ``r``: end ``b_r``)."""

    n: int
    L: int
    ends: np.ndarray
    m: int
    task: np.ndarray
    J: np.ndarray
    cost: np.ndarray
    area: np.ndarray
    part: object
    hint: np.ndarray
    """Per task, the interval of its completion in Smith's order on one machine of speed ``m``
    (:func:`_smith_intervals`): where the first master looks for columns."""

    @property
    def n_cols(self) -> int:
        return int(self.cost.size)


def _cells(t: np.ndarray, work: np.ndarray, L: int, ends: np.ndarray):
    """Per allotment its cell; per cell the least time and least area (``inf`` if empty)."""
    cell = np.searchsorted(ends, t, side="left")  # ends[cell - 1] < t <= ends[cell]
    ct = np.full(L + 1, np.inf)
    cw = np.full(L + 1, np.inf)
    np.minimum.at(ct, cell, t)
    np.minimum.at(cw, cell, work)
    return cell, ct, cw


def _late_columns(cell, t, work, ct, cw, areaE, merge_late: bool):
    """Late columns ``J, time, area`` and their member (``-1`` for a merged cell): per non-empty cell
    one merged column when its least area is below the early one's, or its Pareto allotments."""
    cells = np.flatnonzero(np.isfinite(ct))
    if merge_late:
        keep = cells[cw[cells] < areaE[cells] * (1 - REL_TOL)]
        return keep, ct[keep], cw[keep], np.full(keep.size, -1)
    J, p, area, member = [], [], [], []
    for c in cells:
        best = areaE[c]
        members = np.flatnonzero(cell == c)
        for k in members[np.lexsort((work[members], t[members]))]:
            if work[k] < best * (1 - REL_TOL):
                J.append(c)
                p.append(t[k])
                area.append(work[k])
                member.append(k)
                best = work[k]
    return (np.asarray(J, dtype=np.int64), np.asarray(p, dtype=float), np.asarray(area, dtype=float),
            np.asarray(member, dtype=np.int64))


def gap_table(ends: np.ndarray, partial_rows: int) -> np.ndarray:
    """``G[J, q - 1] = b_J - b_{J-q}`` for ``J = 0..L`` and ``q = 1..partial_rows`` (``inf`` where
    ``J - q < 0``, and on rows 0 and ``L``, the intervals without partial areas)."""
    L = len(ends)
    q = np.arange(1, partial_rows + 1)
    J = np.arange(L)[:, None]
    G = np.where(J - q[None, :] >= 0, ends[:, None] - ends[np.maximum(J - q[None, :], 0)], np.inf)
    G[0] = np.inf
    return np.vstack([G, np.full((1, partial_rows), np.inf)])


def _late_shares(cell, t, J, member, L, G):
    """Partial areas of the late columns, shape ``(columns, partial_rows)``: over the cell's
    allotments (merged) or of the one member."""
    k1 = np.arange(1, t.size + 1, dtype=float)
    inner = np.flatnonzero(cell < L)
    vals = np.full((t.size, G.shape[1]), np.inf)
    vals[inner] = k1[inner, None] * np.maximum(0.0, t[inner, None] - G[cell[inner]])
    out = np.zeros((J.size, G.shape[1]))
    single = member >= 0
    out[single] = vals[member[single]]
    merged = np.flatnonzero(~single)
    if merged.size:
        order = np.argsort(cell, kind="stable")
        sc = cell[order]
        mins = np.minimum.reduceat(vals[order], np.searchsorted(sc, J[merged], side="left"), axis=0)
        out[merged] = mins
    return out


def _early_shares(cell, t, work, Je, G):
    """Partial areas of the early columns (intervals ``Je``), shape ``(columns, partial_rows)``.

    Zero wherever the gap ``b_J - b_r`` reaches the task's least time (its fastest allotment is in
    every early group and fits in it); elsewhere every member has ``p_k > gap``, so the share is
    ``min_k (k p_k - k gap)`` over the allotments of the cells before ``J``."""
    out = np.zeros((Je.size, G.shape[1]))
    live = G[Je] < t.min()
    rows, qs = np.nonzero(live)
    if rows.size == 0:
        return out
    order = np.argsort(cell, kind="stable")
    count = np.searchsorted(cell[order], Je[rows], side="left")  # members = the first `count` in cell order
    by_count = np.argsort(count, kind="stable")
    rows, qs, count = rows[by_count], qs[by_count], count[by_count]
    k1, w_sorted = order + 1.0, work[order]
    for lo in range(0, rows.size, 64):  # chunks of pairs x (their largest group)
        sl = slice(lo, lo + 64)
        width = int(count[sl].max())
        gaps = G[Je[rows[sl]], qs[sl]][:, None]
        vals = np.minimum.accumulate(w_sorted[None, :width] - k1[None, :width] * gaps, axis=1)
        out[rows[sl], qs[sl]] = vals[np.arange(vals.shape[0]), count[sl] - 1]
    return out


def _task_columns(t, work, weight, ends, L, G, merge_late):
    """The columns of one task: arrays ``J, cost, area`` and partial entries ``(col, r, value)``."""
    lows = np.concatenate([[0.0], ends])
    cell, ct, cw = _cells(t, work, L, ends)
    areaE = np.concatenate([[np.inf], np.minimum.accumulate(cw)[:-1]])  # least area with p <= a
    Je = np.flatnonzero(np.isfinite(areaE))
    Jl, pl, al, member = _late_columns(cell, t, work, ct, cw, areaE, merge_late)
    J = np.concatenate([Je, Jl])
    cost = weight * np.concatenate([lows[Je], np.maximum(lows[Jl], pl)])
    area = np.concatenate([areaE[Je], al])
    order = np.lexsort((np.r_[np.zeros(Je.size), np.ones(Jl.size)], J))  # by interval, early first
    if G.shape[1] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return J[order], cost[order], area[order], (empty, empty, np.zeros(0))
    shares = np.concatenate([_early_shares(cell, t, work, Je, G), _late_shares(cell, t, Jl, member, L, G)])
    shares[J >= L] = 0.0
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    c, q = np.nonzero(shares > 0)
    r = J[c] - 1 - q
    return J[order], cost[order], area[order], (rank[c], r, np.minimum(shares[c, q], area[c]))


def build_pool(instance, ends: np.ndarray, partial_rows: int, merge_late: bool) -> ColumnPool:
    """All columns of the refined LP for the interval ends ``ends`` (see the module docstring)."""
    import scipy.sparse as sp

    n, L = instance.n, len(ends)
    times, work, w = instance.times, instance.work, instance.weights
    G = gap_table(ends, partial_rows)
    tasks, Js, costs, areas, pc, pr, pv = [], [], [], [], [], [], []
    offset = 0
    for i in range(n):
        J, cost, area, (c, r, v) = _task_columns(times[i], work[i], float(w[i]), ends, L, G, merge_late)
        tasks.append(np.full(J.size, i, dtype=np.int64))
        Js.append(J)
        costs.append(cost)
        areas.append(area)
        pc.append(c + offset)
        pr.append(r)
        pv.append(v)
        offset += J.size
    cat = np.concatenate
    part = sp.csc_matrix((cat(pv), (cat(pr), cat(pc))), shape=(L, offset))
    return ColumnPool(n, L, ends, instance.m, cat(tasks), cat(Js), cat(costs), cat(areas), part,
                      _smith_intervals(instance, ends))


def _smith_intervals(instance, ends: np.ndarray) -> np.ndarray:
    """Per task the interval holding ``max(min_k p(k), sum of the areas / m before it)`` in Smith's order
    (``w_i`` over the least area): a guess of its completion, used only to choose the first columns."""
    a = instance.min_work / instance.m
    order = np.argsort(-instance.weights / a, kind="stable")
    done = np.empty(instance.n)
    done[order] = np.cumsum(a[order])
    return np.searchsorted(ends, np.maximum(done, instance.min_time), side="left")


def _column_arrays(pool: ColumnPool, sel: np.ndarray):
    """Column-wise non-zeros of the columns ``sel`` in the LP's rows: task ``i``, done ``n + J``, area ``n + L + r``."""
    n, L = pool.n, pool.L
    sub = pool.part[:, sel].tocsc()
    sub.sort_indices()
    starts, idx, val = [0], [], []
    for c, col in enumerate(sel):
        rows = [int(pool.task[col])]
        vals = [1.0]
        if pool.J[col] < L:
            rows.append(n + int(pool.J[col]))
            vals.append(-float(pool.area[col]))
        lo, hi = sub.indptr[c], sub.indptr[c + 1]
        rows.extend((n + L + sub.indices[lo:hi]).tolist())
        vals.extend(sub.data[lo:hi].tolist())
        idx.extend(rows)
        val.extend(vals)
        starts.append(len(idx))
    return np.asarray(starts[:-1], dtype=np.int32), np.asarray(idx, dtype=np.int32), np.asarray(val, dtype=float)


def _master(pool: ColumnPool, sel: np.ndarray):
    """HiGHS with the rows, the running-sum columns and the columns ``sel``."""
    import highspy

    from vcsched.formulations.solve import new_highs

    n, L, inf = pool.n, pool.L, highspy.kHighsInf
    _, h = new_highs()
    h.setOptionValue("threads", 1)
    lower = np.concatenate([np.ones(n), np.zeros(L), np.full(L, -inf)])
    upper = np.concatenate([np.full(n, inf), np.zeros(L), pool.m * pool.ends])
    h.addRows(n + 2 * L, lower, upper, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    starts, idx, val = [], [], []
    for r in range(L):  # D_r = D_{r-1} + area done in interval r; D_r + partial areas <= m b_r
        starts.append(len(idx))
        idx += [n + r, n + L + r] + ([n + r + 1] if r + 1 < L else [])
        val += [1.0, 1.0] + ([-1.0] if r + 1 < L else [])
    h.addCols(L, np.zeros(L), np.zeros(L), np.full(L, inf), len(idx), np.asarray(starts, np.int32),
              np.asarray(idx, np.int32), np.asarray(val, float))
    _add(h, pool, sel)
    return h


def _add(h, pool: ColumnPool, sel: np.ndarray) -> None:
    import highspy

    starts, idx, val = _column_arrays(pool, sel)
    h.addCols(sel.size, pool.cost[sel], np.zeros(sel.size), np.full(sel.size, highspy.kHighsInf), idx.size,
              starts, idx, val)


def lagrangian_bound(pool: ColumnPool, u: np.ndarray, task_starts: np.ndarray) -> float:
    """``L(u) = sum_i min_c rc_c(u) - sum_r u_r m b_r`` for ``u >= 0`` (module docstring): a valid lower bound."""
    U = np.concatenate([np.cumsum(u[::-1])[::-1], [0.0]])  # U_J = sum_{r >= J} u_r, U_L = 0
    rc = pool.cost + pool.area * U[pool.J] + pool.part.T @ u
    return float(np.minimum.reduceat(rc, task_starts).sum() - np.dot(u, pool.m * pool.ends))


def _reduced_costs(pool: ColumnPool, duals: np.ndarray) -> np.ndarray:
    """Reduced costs of every column in the master (row duals ``duals``)."""
    n, L = pool.n, pool.L
    y = np.concatenate([duals[n:n + L], [0.0]])
    return pool.cost - duals[:n][pool.task] + pool.area * y[pool.J] - pool.part.T @ duals[n + L:]


def _argmin_per_task(values: np.ndarray, task_starts: np.ndarray) -> np.ndarray:
    """Per task (columns ``task_starts[i]`` up to the next start) the first column of least value."""
    mins = np.minimum.reduceat(values, task_starts)
    counts = np.diff(np.r_[task_starts, values.size])
    hit = np.flatnonzero(values == np.repeat(mins, counts))
    owner = np.searchsorted(task_starts, hit, side="right") - 1
    first = np.r_[True, owner[1:] != owner[:-1]]
    return hit[first]


def solve_by_columns(pool: ColumnPool, time_limit: float | None, *, tol: float = 1e-9) -> SolveOutcome:
    """Column generation on the pool; ``bound`` is the best Lagrangian bound (valid at every iteration)."""
    t0 = time.perf_counter()
    task_starts = np.flatnonzero(np.r_[True, pool.task[1:] != pool.task[:-1]])
    in_master = (pool.J == pool.L) | (np.abs(pool.J - pool.hint[pool.task]) <= SEED_WIDTH)
    h = _master(pool, np.flatnonzero(in_master))
    h.setOptionValue("simplex_strategy", 4)
    best, objective, rounds = -math.inf, None, 0
    while True:
        if time_limit is not None:
            left = time_limit - (time.perf_counter() - t0)
            if left <= 0:
                break
            h.setOptionValue("time_limit", h.getRunTime() + float(left))  # HiGHS sums its runs
        run_interruptibly(h)  # a signal stops the solve at once
        if highs_status(h)[0] is not Status.OPTIMAL:
            break
        rounds += 1
        objective = float(h.getInfo().objective_function_value)
        duals = np.asarray(h.getSolution().row_dual, dtype=float)
        best = max(best, lagrangian_bound(pool, np.maximum(0.0, -duals[pool.n + pool.L:]), task_starts))
        rc = _reduced_costs(pool, duals)
        rc[in_master] = np.inf
        pick = _argmin_per_task(rc, task_starts)
        pick = pick[rc[pick] < -tol * max(1.0, abs(objective))]
        if pick.size == 0:
            break
        in_master[pick] = True
        _add(h, pool, pick)
    done = objective is not None and best >= objective - 1e-6 * max(1.0, abs(objective))
    bound = best if math.isfinite(best) else None
    status = Status.OPTIMAL if done else (Status.FEASIBLE if bound is not None else Status.TIME_LIMIT)
    message = f"column generation: {rounds} master solves, {int(in_master.sum()):,} of {pool.n_cols:,} columns"
    if not done:
        message += "; stopped before the bound met the master (time limit or solver status)"
    return SolveOutcome(status, objective, bound, relative_gap(objective, bound), time.perf_counter() - t0,
                        message, False)


def solve_full(pool: ColumnPool, time_limit: float | None) -> SolveOutcome:
    """The whole LP in one HiGHS primal simplex (for checking the column generation)."""
    t0 = time.perf_counter()
    h = _master(pool, np.arange(pool.n_cols))
    h.setOptionValue("simplex_strategy", 4)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    run_interruptibly(h)
    status, message, solved = highs_status(h)
    objective = float(h.getInfo().objective_function_value) if solved else None
    bound = objective if solved and status is Status.OPTIMAL else None
    return SolveOutcome(status, objective, bound, relative_gap(objective, bound), time.perf_counter() - t0,
                        message, False)
