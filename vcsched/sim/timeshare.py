"""Time-shared servers in a client-agent-server system, and the Historical Trace Manager.

Model (seed 003, Caniou & Jeannot RR-5168, §2)
----------------------------------------------
* Clients submit requests to one agent, which maps each request to a server at its
  arrival (the *policy*, passed in: this module imports none). The agent returns a
  ranked list of servers; the client tries them in order (NetSolve's fault
  tolerance) and the first that has room accepts the request.
* A server runs every task it accepts at once. A task has three phases: input
  transfer, computation, output transfer (Tables 4-5). **Transfers are dedicated**
  (not shared, not slowed down by other tasks: our choice, the paper only says the
  HTM simulates the three phases, §2.3); **the computations in progress share the
  CPU equally**: with n tasks computing, each progresses at rate 1/n (§2.3).
* **Memory collapse model (§5.2.1)**: a task holds ``task_memory[type]`` MB on its
  server from its arrival to the end of its output transfer; a server whose capacity
  (by default its physical memory, Table 3, see :func:`vcsched.problems.timeshare.make_platform`)
  would be exceeded *refuses* the request, and the client tries
  the next server of the agent's list. A request refused by every listed server is
  lost: it never completes (``completion = nan``, ``server = -1``) and, inside an
  application, counts as done at its refusal so that its children are released (the
  paper's NetSolve client does so, §5.6.3). Completed-task counts show collapses.
  We did not model swapping slow-downs: a server is either able to take a task or not.
* Load reports (the monitors NetSolve's MCT relies on, §5): a server reports its
  load (the number of tasks in their computation phase) to the agent when it
  changes, at most once per ``report_period`` (60 s); a change inside the period is
  reported at its end if the load still differs from the last report. The agent is
  told when a task finishes (at the end of its output transfer). With
  ``load_sensor="loadavg"`` the server reports instead a Unix-style load average
  (NetSolve's real sensor), checked every 60 s: see :func:`simulate`.

Processor sharing in closed form
--------------------------------
With virtual time ``V`` advancing at rate ``1/n(t)``, a task joining the computation
at virtual time ``V_j`` with work ``w`` ends when ``V`` reaches its *tag* ``V_j + w``.
With tags ``F_1 <= ... <= F_n`` and no join, task ``k`` ends at
``t + sum_{l<=k} (F_l - F_{l-1}) (n - l + 1)`` (``F_0 = V(t)``): one sort and one
cumulative sum (the water-level computation). Joins (tasks still in their input
transfer, or the new task) split the horizon into segments handled the same way:
:func:`ps_advance`.

The Historical Trace Manager (§2.3-2.4)
---------------------------------------
:class:`HistoricalTraceManager` replays this model from the agent's mapping decisions
alone (it is told nothing else) to predict, for a new task on every server, its
completion date ``T_t`` and the sum of the perturbations ``δ_k = T_k - T'_k`` it causes
to the tasks already there. It keeps every server's tasks in padded 2-D arrays (servers
x tasks) and replays all servers at once (the water level of each row by one cumulative
sum along the rows): a decision costs O(S W) for S servers and at most W tasks per
server, linear in the number of tasks in the system (small states use a per-server
loop on Python lists, faster there and equal to the bit).
"""

from __future__ import annotations

import abc
import bisect
import dataclasses
import heapq
import math
import time
from typing import Any, Sequence

import numpy as np

from vcsched.problems.timeshare import Platform, Workload
from vcsched.sim.kernel import Kernel

__all__ = [
    "ps_advance",
    "ps_completion_times",
    "HistoricalTraceManager",
    "TimesharePolicy",
    "TimeshareRun",
    "simulate",
    "LOAD_SENSORS",
    "PRIORITY_TS_END",
    "PRIORITY_TS_JOIN",
    "PRIORITY_TS_REPORT",
    "PRIORITY_TS_SUBMIT",
]

# Order of the events of one instant (lower first): a task that ends at t is gone
# before a task that joins at t, and both before the load report and the agent's
# decisions at t.
PRIORITY_TS_END = 0
PRIORITY_TS_JOIN = 5
PRIORITY_TS_REPORT = 15
PRIORITY_TS_SUBMIT = 20

_EMPTY_F = np.empty(0)
_EMPTY_I = np.empty(0, dtype=np.int64)


_COUNTS = np.arange(1024, 0, -1, dtype=float)


def _counts(n: int) -> np.ndarray:
    """The view ``[n, n-1, ..., 1]`` of a cached array (numbers of tasks sharing the CPU)."""
    global _COUNTS
    if n > _COUNTS.size:
        _COUNTS = np.arange(max(n, 2 * _COUNTS.size), 0, -1, dtype=float)
    return _COUNTS[_COUNTS.size - n:]


def _insert(a: np.ndarray, pos: int, value) -> np.ndarray:
    out = np.empty(a.size + 1, dtype=a.dtype)
    out[:pos] = a[:pos]
    out[pos] = value
    out[pos + 1:] = a[pos:]
    return out


def _segment_times(t: float, v: float, tags: np.ndarray) -> np.ndarray:
    """End dates of the tasks of sorted ``tags`` from ``(t, V=v)`` when nobody joins (water level)."""
    n = tags.size
    d = np.empty(n)
    d[0] = tags[0] - v
    if n > 1:
        np.subtract(tags[1:], tags[:-1], out=d[1:])
    d *= _counts(n)
    np.cumsum(d, out=d)
    d += t
    return d


_SMALL = 48  # below this many tasks, plain Python floats beat numpy's per-call overhead


def _ps_advance_small(t, v, tags, ids, joins, until, lists=False):
    """:func:`ps_advance` on Python lists, with the same floating-point operations as the numpy path
    (``lists``: return lists, not arrays)."""
    ended_ids: list = []
    ended_times: list = []
    k = 0
    nj = len(joins)
    inf = math.inf
    while True:
        next_join = joins[k][0] if k < nj else inf
        stop = next_join if next_join < until else until
        n = len(tags)
        if n:
            m = 0
            acc = 0.0
            prev = v
            c = float(n)
            t_m, v_m = t, v
            for x in tags:
                acc += (x - prev) * c
                end = acc + t
                if end > stop:
                    break
                ended_times.append(end)
                t_m, v_m = end, x
                prev = x
                c -= 1.0
                m += 1
            if m:
                ended_ids.extend(ids[:m])
                tags, ids = tags[m:], ids[m:]
            if stop == inf:
                t, v = t_m, v_m
                break
            v = v_m + (stop - t_m) / len(tags) if tags else v_m
            t = stop
        else:
            if stop == inf:
                break
            t = stop
        if next_join <= until and k < nj:
            _, work, tid = joins[k]
            tag = v + work
            pos = bisect.bisect_right(tags, tag)
            tags = tags[:pos] + [tag] + tags[pos:]
            ids = ids[:pos] + [tid] + ids[pos:]
            k += 1
        else:
            break
    if lists:
        return t, v, tags, ids, list(joins[k:]), ended_ids, ended_times
    return (t, v, np.array(tags, dtype=float), np.array(ids, dtype=np.int64), list(joins[k:]),
            np.array(ended_ids, dtype=np.int64), np.array(ended_times, dtype=float))


def ps_advance(t: float, v: float, tags: np.ndarray, ids: np.ndarray, joins: Sequence[tuple[float, float, int]],
               until: float = math.inf):
    """Run processor sharing from time ``t`` to ``until`` (to the end by default).

    Parameters
    ----------
    t, v : float
        Current date and virtual time.
    tags : ndarray
        Sorted finish tags (virtual dates) of the tasks computing at ``t``.
    ids : ndarray of int
        Task identifiers, aligned with ``tags``.
    joins : sequence of (date, work, id)
        Tasks that start computing later (input transfer in progress), sorted by date.
    until : float
        Stop date; joins at exactly ``until`` are applied (they precede decisions).

    Returns
    -------
    (t, v, tags, ids, joins, ended_ids, ended_times)
        The state at ``until`` (or at the last end), the joins not yet applied, and the
        tasks whose computation ended, with their end dates (in end order).

    Notes
    -----
    O((k + 1) n) after the tags are sorted, for k joins.
    """
    if tags.size + len(joins) <= _SMALL:
        return _ps_advance_small(t, v, tags.tolist(), ids.tolist(), joins, until)
    ended_ids: list[np.ndarray] = []
    ended_times: list[np.ndarray] = []
    k = 0
    nj = len(joins)
    while True:
        next_join = joins[k][0] if k < nj else math.inf
        stop = next_join if next_join < until else until
        n = tags.size
        if n:
            times = _segment_times(t, v, tags)
            m = n if stop == math.inf else int(np.searchsorted(times, stop, side="right"))
            if m:
                ended_ids.append(ids[:m])
                ended_times.append(times[:m])
                t_m, v_m = float(times[m - 1]), float(tags[m - 1])
                tags, ids = tags[m:], ids[m:]
            else:
                t_m, v_m = t, v
            if stop == math.inf:
                t, v = t_m, v_m
                break
            v = v_m + (stop - t_m) / tags.size if tags.size else v_m
            t = stop
        else:
            if stop == math.inf:
                break
            t = stop
        if next_join <= until and k < nj:
            _, work, tid = joins[k]
            tag = v + work
            pos = int(np.searchsorted(tags, tag, side="right"))
            tags = _insert(tags, pos, tag)
            ids = _insert(ids, pos, tid)
            k += 1
        else:
            break
    if ended_ids:
        e_ids = np.concatenate(ended_ids) if len(ended_ids) > 1 else ended_ids[0]
        e_times = np.concatenate(ended_times) if len(ended_times) > 1 else ended_times[0]
    else:
        e_ids, e_times = _EMPTY_I, _EMPTY_F
    return t, v, tags, ids, list(joins[k:]), e_ids, e_times


def ps_completion_times(works: Sequence[float], starts: Sequence[float] | None = None) -> np.ndarray:
    """Computation end dates of tasks sharing one CPU equally (1/n each), in closed form.

    Parameters
    ----------
    works : sequence of float
        Computation time of each task on the unloaded server.
    starts : sequence of float, optional
        Date each task starts computing (default all 0).

    Examples
    --------
    Two tasks of 10 and 30 s started together end at 20 and 40 s; a task of 10 s
    arriving at 5 s beside a task of 10 s: the first ends at 15, the second at 20.

    >>> ps_completion_times([10, 30]).tolist()
    [20.0, 40.0]
    >>> ps_completion_times([10, 10], [0, 5]).tolist()
    [15.0, 20.0]
    """
    works = np.asarray(works, dtype=float)
    starts = np.zeros_like(works) if starts is None else np.asarray(starts, dtype=float)
    order = np.argsort(starts, kind="stable")
    joins = [(float(starts[i]), float(works[i]), int(i)) for i in order]
    t0 = joins[0][0] if joins else 0.0
    *_, e_ids, e_times = ps_advance(t0, 0.0, _EMPTY_F, _EMPTY_I, joins)
    out = np.empty(works.size)
    out[e_ids] = e_times
    return out


def _rows_times(t: np.ndarray, v: np.ndarray, tags: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                colsf: np.ndarray, rows: np.ndarray, some_ended: bool) -> np.ndarray:
    """:func:`_segment_times` on every row at once: row ``r`` holds its sorted tags in columns ``lo[r]:hi[r]``
    (``lo < tags.shape[1]``), ended tasks (tags at most ``v[r]``) before and ``+inf`` after; ``tags`` may be
    the first columns only. ``some_ended``: whether some ``lo`` is positive.

    The end dates are bit-identical to :func:`_segment_times` inside ``lo:hi`` (a prefix
    of the columns gives a prefix of the dates: the cumulative sum is sequential); they
    are ``t`` before ``lo`` (the zeros added there are exact) and ``nan`` after ``hi``
    (never ``<=`` a date). Call under ``np.errstate(invalid="ignore")``.
    """
    L = tags.shape[1]
    d = np.empty_like(tags)
    np.subtract(tags[:, 1:], tags[:, :-1], out=d[:, 1:])
    d[rows, lo] = tags[rows, lo] - v
    if some_ended:
        d[colsf[:L] < lo[:, None]] = 0.0
    d *= hi.astype(float)[:, None] - colsf[:L]  # n - j tasks share the CPU in the j-th slice (exact)
    np.cumsum(d, axis=1, out=d)
    d += t[:, None]
    return d


_PREFIX = 32  # columns of dates first computed in a segment that ends before the horizon


def _ps_advance_rows(t, v, tags, ids, n, jd, jw, ji, jn, until, live, record=True):
    """:func:`ps_advance` on many servers at once (lock-step over their segments).

    Parameters
    ----------
    t, v : ndarray, shape (S,)
        Date and virtual time of each server.
    tags, ids : ndarray, shape (S, W)
        Row ``r`` holds the sorted finish tags (and task ids) of server ``r`` in its first
        ``n[r]`` columns, then ``+inf`` (ids: anything below -1). Not modified.
    jd, jw, ji : ndarray, shape (S, J), J >= 1
        Pending joins of each server (dates, works, ids), sorted by date, in the first
        ``jn[r]`` columns.
    until : float
        Stop date (``inf``: to the end).
    live : ndarray of bool, shape (S,)
        The servers to run (the others are returned unchanged).
    record : bool
        Whether to return the end dates (else ``ends`` is None).

    Returns
    -------
    (t, v, tags, ids, ends, lo, hi, k)
        Row ``r`` holds its tasks in end order in columns ``0:hi[r]`` (joins inserted), then
        ``+inf``; those in ``0:lo[r]`` ended at ``ends`` and ``lo:hi`` are still computing;
        ``k[r]`` joins were applied.

    Notes
    -----
    The same floating-point operations as :func:`ps_advance`, row by row, so the same
    dates to the bit. A segment that ends before the horizon first computes the dates of
    a prefix of the tasks only (the cumulative sum is sequential, so a prefix of the
    dates is exact); the last one computes them all. O((k + 1) S W) for at most k joins
    per server, in O(k + 1) rounds of numpy calls: linear in the size of the arrays.
    """
    S = tags.shape[0]
    nz = np.count_nonzero
    W0 = int(n.max()) if S else 0
    kmax = int((jn * live).max()) if S else 0
    W = W0 + kmax + 1  # room for the joins, and at least one +inf column
    inf = math.inf
    if tags.shape[1] >= W:  # the arrays are copied before any write
        if tags.shape[1] <= W + W // 4 + 16:
            W = tags.shape[1]  # keep the slack (fewer reallocations)
        tg, ii = tags[:, :W], ids[:, :W]
    else:
        W += W // 8 + 8  # slack for the next joins
        tg = np.full((S, W), inf)
        tg[:, :W0] = tags[:, :W0]
        ii = np.full((S, W), -2, dtype=np.int64)
        ii[:, :W0] = ids[:, :W0]
    ends = None
    cols = np.arange(W)
    colsf = cols.astype(float)
    rows = np.arange(S)
    lo = zeros = np.zeros(S, dtype=np.int64)  # (never written in place)
    some_ended = False
    hi = n
    k = lo
    live = live.copy()
    J = jd.shape[1]
    with np.errstate(invalid="ignore"):
        while True:
            if kmax:
                kk = np.minimum(k, J - 1)
                has_j = live & (k < jn)
                next_join = np.full(S, inf)
                np.copyto(next_join, jd[rows, kk], where=has_j)
                stop = np.minimum(next_join, until)  # next_join if next_join < until else until
                fin = live & (stop == inf)
                stop_c = stop[:, None]
            else:
                stop = stop_c = until
                fin = live if until == inf else None
            busy = live & (hi > lo)
            n_busy = nz(busy)
            if n_busy:
                if fin is not None:
                    fin = fin & busy
                    n_fin = nz(fin)
                    if not n_fin:
                        fin = None
                if fin is None:
                    # nobody reaches the horizon: does any first task end before its stop?
                    first = (tg[rows, lo] - v) * (hi - lo) + t  # the first date of _rows_times, exactly
                    L = 0 if not nz(busy & (first <= stop)) else min(W, (int(lo.max()) if some_ended else 0) + _PREFIX)
                    while L:  # a prefix of the dates, longer if need be
                        times = _rows_times(t, v, tg[:, :L], lo, hi, colsf, rows, some_ended)
                        count = nz(times <= stop_c, axis=1)
                        if L == W or not nz(busy & (count >= L) & (hi > L)):
                            break
                        L = min(W, 8 * L)
                    m = np.maximum(count - lo, 0) * busy if L else zeros
                else:
                    L = W
                    times = _rows_times(t, v, tg, lo, hi, colsf, rows, some_ended)
                    if n_fin == n_busy:
                        m = (hi - lo) * busy
                    else:
                        m = np.maximum(nz(times <= stop_c, axis=1) - lo, 0) * busy
                        np.copyto(m, hi - lo, where=fin)
                if nz(m):
                    if record:
                        if ends is None and L == W and fin is not None and n_fin == nz(live) and not some_ended:
                            ends = times  # the last segment of every row
                        else:
                            if ends is None:
                                ends = np.full((S, W), np.nan)
                            np.copyto(ends[:, :L], times,
                                      where=(cols[:L] >= lo[:, None]) & (cols[:L] < (lo + m)[:, None]))
                    got = m > 0
                    last = lo + m - 1
                    t_m = t.copy()
                    np.copyto(t_m, times[rows, last], where=got)
                    v_m = v.copy()
                    np.copyto(v_m, tg[rows, last], where=got)
                    lo = lo + m
                    some_ended = True
                else:
                    t_m, v_m = t, v
                rem = hi - lo
                v_next = v_m + (stop - t_m) / np.maximum(rem, 1)
                np.copyto(v_next, v_m, where=rem == 0)
                t_new = t.copy()
                v_new = v.copy()
                if fin is None:
                    np.copyto(t_new, stop, where=busy)
                    np.copyto(v_new, v_next, where=busy)
                else:
                    upd = busy & ~fin
                    np.copyto(t_new, stop, where=upd)
                    np.copyto(v_new, v_next, where=upd)
                    np.copyto(t_new, t_m, where=fin)
                    np.copyto(v_new, v_m, where=fin)
                    live &= ~fin
                t, v = t_new, v_new
                idle = live & ~busy
            else:
                idle = live
            if nz(idle):
                done = idle & (stop == inf)
                t = t.copy()
                np.copyto(t, stop, where=idle & ~done)
                live &= ~done
            if not kmax:
                break
            live &= has_j & (next_join <= until)
            if not nz(live):
                break
            tag = v + jw[rows, kk]
            # bisect_right among the computing tasks (the ended ones have tags <= v <= tag, padding +inf)
            pos = nz(tg <= tag[:, None], axis=1)
            pos[~live] = W
            keep = cols < pos[:, None]  # columns before the insertion; the others move right by one
            shifted = np.empty_like(tg)
            shifted[:, 0] = tg[:, 0]
            shifted[:, 1:] = tg[:, :-1]
            np.copyto(shifted, tg, where=keep)
            tg = shifted
            shifted = np.empty_like(ii)
            shifted[:, 0] = ii[:, 0]
            shifted[:, 1:] = ii[:, :-1]
            np.copyto(shifted, ii, where=keep)
            ii = shifted
            r = rows[live]
            tg[r, pos[r]] = tag[r]
            ii[r, pos[r]] = ji[r, kk[r]]
            hi = hi + live
            k = k + live
    if record and ends is None:
        ends = np.full((S, W), np.nan)
    return t, v, tg, ii, ends, lo, hi, k


def _shift_rows(a: np.ndarray, by: np.ndarray, count: np.ndarray, width: int, fill) -> np.ndarray:
    """Row ``r`` of the result is ``a[r, by[r]:by[r] + count[r]]`` followed by ``fill`` (``width`` columns)."""
    cols = np.arange(width)
    src = np.minimum(cols + by[:, None], a.shape[1] - 1)
    out = a[np.arange(a.shape[0])[:, None], src]
    out[cols >= count[:, None]] = fill
    return out


_SMALL_HTM = 4 * (128 + 48)
# the HTM's per-server loop on Python lists is used while n_servers * (48 + the most tasks and joins on a
# server) is at most this (4 servers: up to 128 tasks each; 8: up to 40; 16 or more: never), else the 2-D
# replay. Measured (2 shared cores, numpy 2): the loop costs ~S (50 + 0.9 m) us, the 2-D replay ~0.5 ms
# for 4 servers up to a few thousand tasks; crossover ~150 tasks per server for 4 servers, ~2 for 16.


class HistoricalTraceManager:
    """The agent's Historical Trace Manager (§2.3): a processor-sharing replay of its decisions.

    Parameters
    ----------
    platform : Platform
        Costs the agent knows (Tables 4-5, "available directly in the code of NetSolve").

    Notes
    -----
    The HTM is told only the mapping decisions (Fig. 2-4, last line); it never learns
    real completions or refusals (task feedback is the paper's future work, §6), so a
    task refused by its server stays in the HTM's Gantt chart until its predicted end.

    A schedule predicted at a commit does not change until the next commit on the same
    server, so the baseline dates ``T'_k`` are cached per task and a prediction costs one
    replay per server (with the new task); a commit right after a prediction (same date and
    type, the heuristics' case) reuses that prediction's replay of the chosen server.

    The state of all servers is kept in padded 2-D arrays (servers x tasks: the sorted
    finish tags of the computing tasks, and the pending input transfers), and a
    prediction advances and replays every server at once (:func:`_ps_advance_rows`):
    O((k + 1) S W) for S servers, at most W tasks per server and k pending joins, i.e.
    linear in the number of tasks when the servers are evenly loaded (the padding costs
    up to S times the tasks of the busiest server). For small states (the paper's: 4
    servers with fewer than 50 tasks each; see ``_SMALL_HTM``) a per-server loop on Python
    lists is used instead: faster there, and the same results to the bit. ``P`` is summed
    sequentially in end order (the pre-vectorisation code used ``np.sum``: the two differ
    by round-off only, ~1e-16 relative).

    Examples
    --------
    >>> from vcsched.problems.timeshare import platform_for
    >>> htm = HistoricalTraceManager(platform_for("2"))
    >>> T, P = htm.predict(0, now=0.0)
    >>> [round(float(x), 2) for x in T]          # unloaded: input + computation + output
    [16.14, 17.25, 128.25, 127.77]
    >>> htm.commit(0, task=0, ttype=0, now=0.0)
    >>> T, P = htm.predict(0, now=0.0)
    >>> round(float(T[0]), 2), round(float(P[0]), 2)  # shares spinnaker with task 0: both take 32 s
    (32.14, 16.0)
    """

    def __init__(self, platform: Platform, capacity: int = 1024) -> None:
        self.platform = platform
        self._in = platform.input
        self._comp = platform.compute
        self._out = platform.output
        S = platform.n_servers
        # per server: date, virtual time, sorted tags / ids of the computing tasks (first _n
        # columns), pending joins (date, work, id) sorted by date (first _jn columns)
        self._t = np.zeros(S)
        self._v = np.zeros(S)
        self._tags = np.full((S, 8), math.inf)  # padding: +inf
        self._ids = np.full((S, 8), -2, dtype=np.int64)
        self._n = np.zeros(S, dtype=np.int64)
        self._jd = np.zeros((S, 4))
        self._jw = np.zeros((S, 4))
        self._ji = np.full((S, 4), -2, dtype=np.int64)
        self._jn = np.zeros(S, dtype=np.int64)
        self._end = np.full(capacity, np.nan)  # predicted computation end of each committed task
        self._out_of = np.zeros(capacity)  # its output time
        self._server = np.full(capacity, -1, dtype=np.int64)
        self._last: tuple | None = None  # (now, ttype, replays) of the last prediction, see _replay_of

    # -- state -----------------------------------------------------------------------
    def _grow(self, task: int) -> None:
        if task < self._end.size:
            return
        size = max(2 * self._end.size, task + 1)
        for name, fill in (("_end", np.nan), ("_out_of", 0.0), ("_server", -1)):
            old = getattr(self, name)
            new = np.full(size, fill, dtype=old.dtype)
            new[: old.size] = old
            setattr(self, name, new)

    @staticmethod
    def _widen(a: np.ndarray, width: int, fill) -> np.ndarray:
        if a.shape[1] >= width:
            return a
        out = np.full((a.shape[0], max(width, 2 * a.shape[1])), fill, dtype=a.dtype)
        out[:, : a.shape[1]] = a
        return out

    def _row_joins(self, s: int) -> list:
        j = int(self._jn[s])
        if not j:
            return []
        return list(zip(self._jd[s, :j].tolist(), self._jw[s, :j].tolist(), self._ji[s, :j].tolist()))

    def _set_row(self, s: int, t: float, v: float, tags, ids, joins) -> None:
        n = len(tags)
        if self._tags.shape[1] < n:
            self._tags = self._widen(self._tags, n, math.inf)
            self._ids = self._widen(self._ids, n, -2)
        old = int(self._n[s])
        self._tags[s, :n] = tags
        self._ids[s, :n] = ids
        if old > n:
            self._tags[s, n:old] = math.inf
            self._ids[s, n:old] = -2
        self._n[s] = n
        self._set_joins(s, joins)
        self._t[s], self._v[s] = t, v

    def _set_joins(self, s: int, joins) -> None:
        j = len(joins)
        if not j and not self._jn[s]:
            return
        self._jd = self._widen(self._jd, j, 0.0)
        self._jw = self._widen(self._jw, j, 0.0)
        self._ji = self._widen(self._ji, j, -2)
        if j:
            d, w, i = zip(*joins)
            self._jd[s, :j], self._jw[s, :j], self._ji[s, :j] = d, w, i
        self._jn[s] = j

    def _advance_one(self, s: int, now: float) -> None:
        """Bring server ``s`` to ``now`` (one-server :func:`ps_advance`)."""
        if not self._t[s] < now:
            return
        self._last = None
        n = int(self._n[s])
        if n == 0 and self._jn[s] == 0:
            self._t[s] = now
            return
        _, v, tags, ids, joins, _, _ = ps_advance(float(self._t[s]), float(self._v[s]), self._tags[s, :n],
                                                  self._ids[s, :n], self._row_joins(s), until=now)
        self._set_row(s, now, v, tags, ids, joins)

    def _advance_all(self, now: float) -> None:
        """Bring every server to ``now`` at once (:func:`_ps_advance_rows`)."""
        late = self._t < now
        if not np.count_nonzero(late):
            return
        self._last = None
        run = late & ((self._n > 0) | (self._jn > 0))
        if np.count_nonzero(run):
            t, v, tags, ids, _, lo, hi, k = _ps_advance_rows(
                self._t, self._v, self._tags, self._ids, self._n, self._jd, self._jw, self._ji,
                self._jn, now, run, record=False)
            if np.count_nonzero(lo):
                n = hi - lo
                width = int(n.max()) + 1
                tags = _shift_rows(tags, lo, n, width, math.inf)
                ids = _shift_rows(ids, lo, n, width, -2)
            self._tags, self._ids, self._n = tags, ids, hi - lo
            if not np.count_nonzero(k != self._jn):  # every pending join applied
                self._jn = np.zeros_like(self._jn)
            elif np.count_nonzero(k):
                jn = self._jn - k
                J = self._jd.shape[1]
                self._jd = _shift_rows(self._jd, k, jn, J, 0.0)
                self._jw = _shift_rows(self._jw, k, jn, J, 0.0)
                self._ji = _shift_rows(self._ji, k, jn, J, -2)
                self._jn = jn
            self._v = np.where(run, v, self._v)
        self._t = np.where(late, now, self._t)

    def tasks_on(self, server: int, now: float) -> np.ndarray:
        """Identifiers of the tasks the HTM believes are computing or receiving input on ``server`` at ``now``."""
        s = int(server)
        self._advance_one(s, now)
        ids = self._ids[s, : self._n[s]]
        if not self._jn[s]:
            return ids.copy()
        return np.concatenate([ids, self._ji[s, : self._jn[s]]])

    def predicted_completion(self, tasks=None) -> np.ndarray:
        """Predicted completion dates (end of output transfer) of committed tasks (all by default)."""
        ends = self._end + self._out_of
        return ends if tasks is None else ends[np.asarray(tasks)]

    # -- predictions ---------------------------------------------------------------------
    def _predict_small(self, ttype: int, now: float):
        """Per-server loop on Python lists (:func:`_ps_advance_small`); the same numbers as :meth:`_predict_rows`."""
        S = self._t.size
        T, P, replays = [], [], []
        item = self._end.item
        in_l, comp_l, out_l = self._in[:, ttype].tolist(), self._comp[:, ttype].tolist(), self._out[:, ttype].tolist()
        t_l = self._t.tolist()
        for s in range(S):
            if t_l[s] < now:
                self._advance_one(s, now)
            n = int(self._n[s])
            joins = self._row_joins(s)
            join = (now + in_l[s], comp_l[s], -1)
            if joins and joins[-1][0] > join[0]:
                joins.insert(bisect.bisect_right([j[0] for j in joins], join[0]), join)
            else:
                joins.append(join)
            *_, e_ids, e_times = _ps_advance_small(float(self._t[s]), float(self._v[s]), self._tags[s, :n].tolist(),
                                                   self._ids[s, :n].tolist(), joins, math.inf, lists=True)
            p = 0.0
            t_new = 0.0
            for i, x in zip(e_ids, e_times):
                if i == -1:
                    t_new = x
                else:
                    p += x - item(i)
            if n == 0 and len(joins) == 1:
                t_new = join[0] + join[1]
            T.append(t_new + out_l[s])
            P.append(p)
            replays.append((e_ids, e_times))
        return np.array(T), np.array(P), replays

    def _predict_rows(self, ttype: int, now: float):
        """Every server at once: advance to ``now``, then replay with the new task inserted among the joins."""
        self._advance_all(now)
        S = self._t.size
        rows = np.arange(S)
        date = now + self._in[:, ttype]
        work = self._comp[:, ttype]
        jn = self._jn
        J = int(jn.max()) + 1
        if J == 1:  # no input transfer in progress anywhere
            jd, jw, ji = date[:, None], work[:, None], np.full((S, 1), -1, dtype=np.int64)
        else:
            cols = np.arange(J)
            # bisect_right on the dates: the new task goes after the joins of the same date
            pos = ((cols[: J - 1] < jn[:, None]) & (self._jd[:, : J - 1] <= date[:, None])).sum(axis=1)
            src = np.minimum(cols - (cols > pos[:, None]), J - 2)
            jd, jw, ji = self._jd[rows[:, None], src], self._jw[rows[:, None], src], self._ji[rows[:, None], src]
            jd[rows, pos], jw[rows, pos], ji[rows, pos] = date, work, -1
        _, _, _, ids, ends, _, hi, _ = _ps_advance_rows(self._t, self._v, self._tags, self._ids,
                                                        self._n, jd, jw, ji, jn + 1, math.inf,
                                                        np.ones(S, dtype=bool))
        t_new = ends[ids == -1]  # one per row, in row order
        delta = ends - np.take(self._end, ids, mode="clip")
        delta[ids < 0] = 0.0  # the new task and the padding
        P = np.cumsum(delta, axis=1)[:, -1]  # sequential, in end order
        empty = (self._n == 0) & (jn == 0)
        t_new = np.where(empty, date + work, t_new)
        T = t_new + self._out[:, ttype]
        return T, P, (ids, ends, hi)

    def predict(self, ttype: int, now: float) -> tuple[np.ndarray, np.ndarray]:
        """For a new task of type ``ttype`` submitted at ``now``, on every server.

        Returns
        -------
        T : ndarray, shape (n_servers,)
            Predicted completion date ``T_t`` (end of its output transfer).
        P : ndarray, shape (n_servers,)
            Sum of the perturbations ``Σ δ_k = Σ (T_k - T'_k)`` over the tasks already
            on the server (Fig. 3; MSF adds ``T_t - a_t``, Fig. 4), summed in the order
            the tasks end.
        """
        if self._t.size * (int((self._n + self._jn).max()) + 48) <= _SMALL_HTM:
            T, P, replays = self._predict_small(ttype, now)
        else:
            T, P, replays = self._predict_rows(ttype, now)
        self._last = (now, ttype, replays)
        return T, P

    def _replay_of(self, s: int) -> tuple[np.ndarray, np.ndarray]:
        """Ids (the new task is -1) and computation end dates, in end order, of the last prediction on ``s``."""
        replays = self._last[2]
        if isinstance(replays, list):
            e_ids, e_times = replays[s]
            return np.array(e_ids, dtype=np.int64), np.array(e_times, dtype=float)
        ids, ends, hi = replays
        return ids[s, : hi[s]], ends[s, : hi[s]]

    def predict_detail(self, ttype: int, now: float) -> list[dict]:
        """Per server: ``ids`` of the tasks there, their dates without (``before``) and with (``after``) the new task,
        and the new task's date ``new`` (all completion dates, output included). For tests and the MSF check."""
        out = []
        T, _ = self.predict(ttype, now)
        for s in range(T.size):
            e_ids, e_times = self._replay_of(s)
            keep = e_ids != -1
            ids, old_ends = e_ids[keep], e_times[keep]
            out.append({"ids": ids, "before": self._end[ids] + self._out_of[ids],
                        "after": old_ends + self._out_of[ids], "new": float(T[s])})
        return out

    # -- decisions -----------------------------------------------------------------------
    def commit(self, server: int, task: int, ttype: int, now: float) -> None:
        """Record that ``task`` (type ``ttype``, submitted at ``now``) is mapped on ``server`` (Fig. 2, line 5)."""
        self._grow(task)
        s = int(server)
        last, self._last = self._last, None
        in_t, comp = self._in[s, ttype], self._comp[s, ttype]
        join = (now + in_t, comp, int(task))
        if last is not None and last[0] == now and last[1] == ttype and not self._t[s] < now:
            # the prediction replayed this very schedule with the task as id -1
            self._last = last
            e_ids, e_times = self._replay_of(s)
            self._last = None
            e_ids = np.where(e_ids == -1, int(task), e_ids)
            joins = self._row_joins(s)
            joins.insert(bisect.bisect_right([j[0] for j in joins], join[0]), join)
        else:
            self._advance_one(s, now)
            joins = self._row_joins(s)
            joins.insert(bisect.bisect_right([j[0] for j in joins], join[0]), join)
            n = int(self._n[s])
            *_, e_ids, e_times = ps_advance(float(self._t[s]), float(self._v[s]), self._tags[s, :n],
                                            self._ids[s, :n], joins)
        self._end[e_ids] = e_times
        self._set_joins(s, joins)
        self._out_of[task] = self._out[s, ttype]
        self._server[task] = s


class TimesharePolicy(abc.ABC):
    """Interface of an agent's mapping policy (the simulator never imports one).

    Subclasses implement :meth:`choose`; the hooks default to doing nothing.
    """

    name = "policy"

    def start(self, platform: Platform, n_tasks: int) -> None:
        """Called once before a simulation (reset any state)."""

    @abc.abstractmethod
    def choose(self, task: int, ttype: int, now: float) -> Sequence[int]:
        """Servers to try for request ``task`` of type ``ttype`` arriving at ``now``, best first.

        The client tries them in order until one accepts (memory); return a single server
        for no fault tolerance.
        """

    def load_report(self, server: int, load: int, now: float) -> None:
        """A server reports its load (number of tasks computing)."""

    def task_finished(self, server: int, task: int, now: float) -> None:
        """The agent learns that ``task`` finished on ``server`` (result sent back)."""


@dataclasses.dataclass
class TimeshareRun:
    """Outcome of one simulation (arrays indexed by task).

    Attributes
    ----------
    arrival : submission dates to the agent (``nan`` if never submitted)
    server : server that ran the task (``-1``: refused everywhere)
    compute_start, compute_end, completion : dates (``nan`` when not reached)
    duration : ``d_i``, unloaded duration on its server (``nan`` when refused)
    refusals : number of refusals (memory) met by each task
    ttype, client : from the workload
    trace : list of (time, event, task, server) when asked for
    decision_seconds : wall time spent in the policy's ``choose``
    decisions : number of decisions
    """

    arrival: np.ndarray
    server: np.ndarray
    compute_start: np.ndarray
    compute_end: np.ndarray
    completion: np.ndarray
    duration: np.ndarray
    refusals: np.ndarray
    ttype: np.ndarray
    client: np.ndarray
    servers: tuple
    trace: list
    decision_seconds: float
    decisions: int


class _Server:
    __slots__ = ("t", "v", "heap", "version", "mem", "reported", "last_report", "check_pending", "la", "la_t")

    def __init__(self) -> None:
        self.la = 0.0  # Unix-style load average and the date it was last brought up to
        self.la_t = 0.0
        self.t = 0.0
        self.v = 0.0
        self.heap: list = []
        self.version = 0
        self.mem = 0.0
        self.reported = 0
        self.last_report = -math.inf
        self.check_pending = False


LOAD_SENSORS = ("count", "loadavg")


def simulate(platform: Platform, workload: Workload, policy: Any, *, report_period: float = 60.0,
             work_factor: np.ndarray | None = None, trace: bool = False, load_sensor: str = "count",
             loadavg_tau: float = 60.0, report_threshold: float = 0.5) -> TimeshareRun:
    """Simulate the client-agent-server system under ``policy``.

    Parameters
    ----------
    platform : Platform
    workload : Workload
    policy : TimesharePolicy
        Any object with the interface of :class:`TimesharePolicy`.
    report_period : float
        Minimum time between two load reports of a server (NetSolve: 60 s, §5).
    work_factor : ndarray, optional
        Multiplies each task's real computation time (the agent still uses the tables):
        a way to model the prediction errors of a real platform (Table 1). Default 1.
    trace : bool
        Record the events ``(time, event, task, server)`` with events ``submit``,
        ``refuse``, ``lost``, ``start`` (computation), ``compute_end``, ``done``.
    load_sensor : {"count", "loadavg"}
        What a server reports: the number of tasks computing, sent when it changes (at
        most once per period; default), or a Unix-style load average (the number of
        computing tasks exponentially smoothed with time constant ``loadavg_tau`` = 60 s,
        computed exactly between events), checked every ``report_period`` and sent when
        it moved by at least ``report_threshold`` since the last report (NetSolve's
        real sensor, §2.2 and §5).

    Returns
    -------
    TimeshareRun
    """
    n = workload.n_tasks
    ns = platform.n_servers
    kernel = Kernel()
    servers = [_Server() for _ in range(ns)]
    arrival = np.full(n, np.nan)
    server_of = np.full(n, -1, dtype=np.int64)
    c_start = np.full(n, np.nan)
    c_end = np.full(n, np.nan)
    completion = np.full(n, np.nan)
    refusals = np.zeros(n, dtype=np.int64)
    ttype = workload.ttype
    factor = np.ones(n) if work_factor is None else np.asarray(work_factor, dtype=float)
    if factor.shape != (n,) or np.any(factor <= 0):
        raise ValueError("work_factor must hold one positive number per task")
    log: list = []
    children: list[list[int]] = [[] for _ in range(n)]
    missing = np.zeros(n, dtype=np.int64)
    for i, ps in enumerate(workload.parents):
        missing[i] = len(ps)
        for p in ps:
            children[p].append(i)
    decision_time = 0.0
    decisions = 0
    policy.start(platform, n)
    period = float(report_period)
    mem_cap = platform.memory
    task_mem = platform.task_memory
    if load_sensor not in LOAD_SENSORS:
        raise ValueError(f"unknown load sensor {load_sensor!r}; choose one of {', '.join(LOAD_SENSORS)}")
    smoothed = load_sensor == "loadavg"
    unfinished = [n]

    def touch_la(srv: _Server) -> None:
        now = kernel.now
        if now > srv.la_t:
            k = len(srv.heap)
            srv.la = k + (srv.la - k) * math.exp(-(now - srv.la_t) / loadavg_tau)
            srv.la_t = now

    def periodic_check(s: int) -> None:
        srv = servers[s]
        touch_la(srv)
        if abs(srv.la - srv.reported) >= report_threshold:
            srv.last_report = kernel.now
            srv.reported = srv.la
            policy.load_report(s, srv.la, kernel.now)
        if unfinished[0] > 0:
            kernel.schedule(kernel.now + period, PRIORITY_TS_REPORT, periodic_check, s)

    def load_changed(s: int) -> None:
        if smoothed:
            return
        srv = servers[s]
        now = kernel.now
        if now - srv.last_report >= period:
            send_report(s)
        elif not srv.check_pending:
            srv.check_pending = True
            kernel.schedule(srv.last_report + period, PRIORITY_TS_REPORT, report_check, s)

    def send_report(s: int) -> None:
        srv = servers[s]
        srv.last_report = kernel.now
        srv.reported = len(srv.heap)
        policy.load_report(s, srv.reported, kernel.now)

    def report_check(s: int) -> None:
        srv = servers[s]
        srv.check_pending = False
        if len(srv.heap) != srv.reported:
            send_report(s)

    def advance(srv: _Server) -> None:
        now = kernel.now
        if srv.heap and now > srv.t:
            srv.v += (now - srv.t) / len(srv.heap)
        srv.t = now

    def reschedule(s: int) -> None:
        srv = servers[s]
        srv.version += 1
        if srv.heap:
            tag = srv.heap[0][0]
            when = srv.t + (tag - srv.v) * len(srv.heap)
            kernel.schedule(max(when, kernel.now), PRIORITY_TS_END, compute_done, (s, srv.version))

    def release_children(i: int) -> None:
        for c in children[i]:
            missing[c] -= 1
            if missing[c] == 0:
                kernel.schedule(kernel.now, PRIORITY_TS_SUBMIT, submit, c)

    def submit(i: int) -> None:
        nonlocal decision_time, decisions
        now = kernel.now
        arrival[i] = now
        k = int(ttype[i])
        tic = time.perf_counter()
        ranked = policy.choose(i, k, now)
        decision_time += time.perf_counter() - tic
        decisions += 1
        if trace:
            log.append((now, "submit", i, int(ranked[0]) if len(ranked) else -1))
        for s in ranked:
            s = int(s)
            srv = servers[s]
            if srv.mem + task_mem[k] > mem_cap[s] + 1e-9:
                refusals[i] += 1
                if trace:
                    log.append((now, "refuse", i, s))
                continue
            srv.mem += task_mem[k]
            server_of[i] = s
            kernel.schedule(now + platform.input[s, k], PRIORITY_TS_JOIN, join, i)
            return
        if trace:
            log.append((now, "lost", i, -1))
        unfinished[0] -= 1
        release_children(i)

    def join(i: int) -> None:
        s = int(server_of[i])
        srv = servers[s]
        touch_la(srv)
        advance(srv)
        c_start[i] = kernel.now
        heapq.heappush(srv.heap, (srv.v + platform.compute[s, ttype[i]] * factor[i], i))
        if trace:
            log.append((kernel.now, "start", i, s))
        reschedule(s)
        load_changed(s)

    def compute_done(arg) -> None:
        s, version = arg
        srv = servers[s]
        if version != srv.version:
            return
        touch_la(srv)
        tag, i = heapq.heappop(srv.heap)
        srv.v = tag
        srv.t = kernel.now
        c_end[i] = kernel.now
        if trace:
            log.append((kernel.now, "compute_end", i, s))
        kernel.schedule(kernel.now + platform.output[s, ttype[i]], PRIORITY_TS_END, done, i)
        reschedule(s)
        load_changed(s)

    def done(i: int) -> None:
        s = int(server_of[i])
        completion[i] = kernel.now
        unfinished[0] -= 1
        servers[s].mem -= task_mem[ttype[i]]
        if trace:
            log.append((kernel.now, "done", i, s))
        policy.task_finished(s, i, kernel.now)
        release_children(i)

    for i in range(n):
        if missing[i] == 0:
            kernel.schedule(float(workload.release[i]), PRIORITY_TS_SUBMIT, submit, i)
    if smoothed and n:
        for s in range(ns):
            kernel.schedule(period, PRIORITY_TS_REPORT, periodic_check, s)
    kernel.run()
    duration = np.full(n, np.nan)
    ok = server_of >= 0
    duration[ok] = platform.duration[server_of[ok], ttype[ok]]
    return TimeshareRun(arrival=arrival, server=server_of, compute_start=c_start, compute_end=c_end,
                        completion=completion, duration=duration, refusals=refusals, ttype=ttype.copy(),
                        client=workload.client.copy(), servers=platform.servers, trace=log,
                        decision_seconds=decision_time, decisions=decisions)
