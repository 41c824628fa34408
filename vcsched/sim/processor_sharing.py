"""Processor sharing in closed form: one server's CPU shared equally by the tasks computing on it.

With virtual time ``V`` advancing at rate ``1/n(t)`` (``n`` tasks computing, each at
rate ``1/n``: Caniou & Jeannot RR-5168, §2.3), a task joining the computation at
virtual time ``V_j`` with work ``w`` ends when ``V`` reaches its *tag* ``V_j + w``.
With tags ``F_1 <= ... <= F_n`` and no join, task ``k`` ends at
``t + sum_{l<=k} (F_l - F_{l-1}) (n - l + 1)`` (``F_0 = V(t)``): one sort and one
cumulative sum (the water-level computation, :func:`_segment_times`). Joins (tasks
still in their input transfer, or a new task) split the horizon into segments handled
the same way.

Three paths compute the same dates with the same floating-point operations, so they
agree to the bit (tested):

* :func:`_ps_advance_small`: one server, Python lists (fastest for a few dozen tasks);
* :func:`ps_advance`: one server, numpy arrays (it hands small states to the list path);
* :func:`_ps_advance_rows`: many servers at once, one per row of padded 2-D arrays
  (the Historical Trace Manager's replay, :mod:`vcsched.sim.htm`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

import numpy as np

__all__ = ["ps_advance", "ps_completion_times"]

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


def _ps_advance_rows(t, v, tags, ids, n, join_dates, join_works, join_ids, join_count, until, live, record=True):
    """:func:`ps_advance` on many servers at once (lock-step over their segments).

    Parameters
    ----------
    t, v : ndarray, shape (S,)
        Date and virtual time of each server.
    tags, ids : ndarray, shape (S, W)
        Row ``r`` holds the sorted finish tags (and task ids) of server ``r`` in its first
        ``n[r]`` columns, then ``+inf`` (ids: anything below -1). Not modified.
    join_dates, join_works, join_ids : ndarray, shape (S, J), J >= 1
        Pending joins of each server (dates, works, ids), sorted by date, in the first
        ``join_count[r]`` columns.
    until : float
        Stop date (``inf``: to the end).
    live : ndarray of bool, shape (S,)
        The servers to run (the others are returned unchanged).
    record : bool
        Whether to return the end dates (else ``ends`` is None).

    Returns
    -------
    (t, v, tags, ids, ends, lo, hi, applied)
        Row ``r`` holds its tasks in end order in columns ``0:hi[r]`` (joins inserted), then
        ``+inf``; those in ``0:lo[r]`` ended at ``ends`` and ``lo:hi`` are still computing;
        ``applied[r]`` joins were applied.

    Notes
    -----
    The same floating-point operations as :func:`ps_advance`, row by row, so the same
    dates to the bit. A segment that ends before the horizon first computes the dates of
    a prefix of the tasks only (the cumulative sum is sequential, so a prefix of the
    dates is exact); the last one computes them all. O((k + 1) S W) for at most k joins
    per server, in O(k + 1) rounds of numpy calls: linear in the size of the arrays.
    """
    rs = _Rows(t, v, tags, ids, n, join_count, live)
    nnz = np.count_nonzero
    with np.errstate(invalid="ignore"):
        while True:
            stop, stop_col, finishing, has_join, next_join, join_col = rs.stops(join_dates, join_count, until)
            busy = rs.live & (rs.hi > rs.lo)
            if nnz(busy):
                rs.segment(busy, finishing, stop, stop_col, record)
                idle = rs.live & ~busy
            else:
                idle = rs.live
            if nnz(idle):
                done = idle & (stop == math.inf)
                rs.t = rs.t.copy()
                np.copyto(rs.t, stop, where=idle & ~done)
                rs.live &= ~done
            if not rs.most_joins:
                break
            rs.live &= has_join & (next_join <= until)
            if not nnz(rs.live):
                break
            rs.row_tags, rs.row_ids = _insert_joins(rs.row_tags, rs.row_ids, rs.v + join_works[rs.rows, join_col],
                                                    join_ids[rs.rows, join_col], rs.live)
            rs.hi = rs.hi + rs.live
            rs.applied = rs.applied + rs.live
    if record and rs.ends is None:
        rs.ends = np.full((rs.n_rows, rs.width), np.nan)
    return rs.t, rs.v, rs.row_tags, rs.row_ids, rs.ends, rs.lo, rs.hi, rs.applied


class _Rows:
    """The state of :func:`_ps_advance_rows` between its rounds (a round runs every live row to its next join or
    to the horizon): each row's date ``t`` and virtual time ``v``, its tasks (``row_tags``, ``row_ids``; columns
    ``0:lo`` ended, ``lo:hi`` computing; never written in place), the joins ``applied``, the ``live`` rows and
    the recorded ``ends``."""

    def __init__(self, t, v, tags, ids, n, join_count, live) -> None:
        n_rows = tags.shape[0]
        most_tasks = int(n.max()) if n_rows else 0
        self.most_joins = int((join_count * live).max()) if n_rows else 0
        width = most_tasks + self.most_joins + 1  # room for the joins, and at least one +inf column
        if tags.shape[1] >= width:  # the arrays are copied before any write
            if tags.shape[1] <= width + width // 4 + 16:
                width = tags.shape[1]  # keep the slack (fewer reallocations)
            self.row_tags, self.row_ids = tags[:, :width], ids[:, :width]
        else:
            width += width // 8 + 8  # slack for the next joins
            self.row_tags = np.full((n_rows, width), math.inf)
            self.row_tags[:, :most_tasks] = tags[:, :most_tasks]
            self.row_ids = np.full((n_rows, width), -2, dtype=np.int64)
            self.row_ids[:, :most_tasks] = ids[:, :most_tasks]
        self.n_rows, self.width = n_rows, width
        self.cols = np.arange(width)
        self.colsf = self.cols.astype(float)
        self.rows = np.arange(n_rows)
        self.t, self.v = t, v
        self.lo = self.zeros = np.zeros(n_rows, dtype=np.int64)
        self.some_ended = False
        self.hi = n
        self.applied = self.lo
        self.live = live.copy()
        self.ends = None

    def stops(self, join_dates, join_count, until):
        """Where each row's segment stops (its next join, or ``until``), which rows run to the end (``finishing``,
        None when none can), and each row's next join: ``(stop, stop_col, finishing, has_join, next_join,
        join_col)``."""
        if not self.most_joins:
            return until, until, (self.live if until == math.inf else None), None, None, None
        join_col = np.minimum(self.applied, join_dates.shape[1] - 1)  # each row's next join (clipped column)
        has_join = self.live & (self.applied < join_count)
        next_join = np.full(self.n_rows, math.inf)
        np.copyto(next_join, join_dates[self.rows, join_col], where=has_join)
        stop = np.minimum(next_join, until)  # next_join if next_join < until else until
        finishing = self.live & (stop == math.inf)  # rows whose segment runs to the end
        return stop, stop[:, None], finishing, has_join, next_join, join_col

    def segment(self, busy, finishing, stop, stop_col, record: bool) -> None:
        """Run the ``busy`` rows to their ``stop`` (the ``finishing`` ones to their last end): the tasks that end
        before it, their dates (when ``record``), and each row's new date and virtual time."""
        nnz = np.count_nonzero
        n_finishing = 0
        if finishing is not None:
            finishing = finishing & busy
            n_finishing = nnz(finishing)
            if not n_finishing:
                finishing = None
        if finishing is None:
            prefix, times, n_ended = self._ended_before(busy, stop, stop_col)
        else:
            prefix = self.width
            times = _rows_times(self.t, self.v, self.row_tags, self.lo, self.hi, self.colsf, self.rows,
                                self.some_ended)
            if n_finishing == nnz(busy):
                n_ended = (self.hi - self.lo) * busy
            else:
                n_ended = np.maximum(nnz(times <= stop_col, axis=1) - self.lo, 0) * busy
                np.copyto(n_ended, self.hi - self.lo, where=finishing)
        if nnz(n_ended):
            if record:
                self._record(times, prefix, n_ended, finishing is not None and n_finishing == nnz(self.live))
            t_last, v_last = self._last_ends(times, n_ended)
        else:
            t_last, v_last = self.t, self.v
        self._move_to(busy, finishing, stop, t_last, v_last)

    def _ended_before(self, busy, stop, stop_col):
        """No row reaches the horizon: ``(prefix, times, n_ended)``, the dates of the first ``prefix`` columns
        (longer if need be) and how many tasks of each row end by its stop."""
        nnz = np.count_nonzero
        lo, hi, width = self.lo, self.hi, self.width
        first = (self.row_tags[self.rows, lo] - self.v) * (hi - lo) + self.t  # the first date of _rows_times
        prefix = 0 if not nnz(busy & (first <= stop)) else \
            min(width, (int(lo.max()) if self.some_ended else 0) + _PREFIX)
        times = None
        while prefix:  # the dates of a prefix of the columns, longer if need be
            times = _rows_times(self.t, self.v, self.row_tags[:, :prefix], lo, hi, self.colsf, self.rows,
                                self.some_ended)
            ended_by_stop = nnz(times <= stop_col, axis=1)
            if prefix == width or not nnz(busy & (ended_by_stop >= prefix) & (hi > prefix)):
                break
            prefix = min(width, 8 * prefix)
        n_ended = np.maximum(ended_by_stop - lo, 0) * busy if prefix else self.zeros
        return prefix, times, n_ended

    def _record(self, times, prefix: int, n_ended, all_finish: bool) -> None:
        """Keep the end dates of the tasks that ended (``all_finish``: every live row runs to its end now)."""
        if self.ends is None and prefix == self.width and all_finish and not self.some_ended:
            self.ends = times  # the last segment of every row
            return
        if self.ends is None:
            self.ends = np.full((self.n_rows, self.width), np.nan)
        lo, cols = self.lo, self.cols
        np.copyto(self.ends[:, :prefix], times,
                  where=(cols[:prefix] >= lo[:, None]) & (cols[:prefix] < (lo + n_ended)[:, None]))

    def _last_ends(self, times, n_ended):
        """Date and virtual time of each row's last end; the ended tasks move before ``lo``."""
        any_ended = n_ended > 0
        last = self.lo + n_ended - 1
        t_last = self.t.copy()
        np.copyto(t_last, times[self.rows, last], where=any_ended)
        v_last = self.v.copy()
        np.copyto(v_last, self.row_tags[self.rows, last], where=any_ended)
        self.lo = self.lo + n_ended
        self.some_ended = True
        return t_last, v_last

    def _move_to(self, busy, finishing, stop, t_last, v_last) -> None:
        """New date and virtual time of the busy rows: their stop, or their last end for the finishing rows
        (which leave ``live``)."""
        remaining = self.hi - self.lo
        v_next = v_last + (stop - t_last) / np.maximum(remaining, 1)
        np.copyto(v_next, v_last, where=remaining == 0)
        t_new = self.t.copy()
        v_new = self.v.copy()
        if finishing is None:
            np.copyto(t_new, stop, where=busy)
            np.copyto(v_new, v_next, where=busy)
        else:
            upd = busy & ~finishing
            np.copyto(t_new, stop, where=upd)
            np.copyto(v_new, v_next, where=upd)
            np.copyto(t_new, t_last, where=finishing)
            np.copyto(v_new, v_last, where=finishing)
            self.live &= ~finishing
        self.t, self.v = t_new, v_new


def _insert_joins(row_tags: np.ndarray, row_ids: np.ndarray, tag: np.ndarray, task: np.ndarray,
                  live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Insert task ``task[r]`` with finish tag ``tag[r]`` into the sorted row ``r`` of each ``live`` row (new arrays).

    The position is ``bisect_right`` among the tags of the row (the ended tasks have tags
    at most ``v <= tag``, the padding ``+inf``), as in :func:`ps_advance`.
    """
    width = row_tags.shape[1]
    pos = np.count_nonzero(row_tags <= tag[:, None], axis=1)
    pos[~live] = width
    keep = np.arange(width) < pos[:, None]  # columns before the insertion; the others move right by one
    shifted_tags = np.empty_like(row_tags)
    shifted_tags[:, 0] = row_tags[:, 0]
    shifted_tags[:, 1:] = row_tags[:, :-1]
    np.copyto(shifted_tags, row_tags, where=keep)
    shifted_ids = np.empty_like(row_ids)
    shifted_ids[:, 0] = row_ids[:, 0]
    shifted_ids[:, 1:] = row_ids[:, :-1]
    np.copyto(shifted_ids, row_ids, where=keep)
    moving = np.flatnonzero(live)
    shifted_tags[moving, pos[moving]] = tag[moving]
    shifted_ids[moving, pos[moving]] = task[moving]
    return shifted_tags, shifted_ids


def _shift_rows(a: np.ndarray, by: np.ndarray, count: np.ndarray, width: int, fill) -> np.ndarray:
    """Row ``r`` of the result is ``a[r, by[r]:by[r] + count[r]]`` followed by ``fill`` (``width`` columns)."""
    cols = np.arange(width)
    src = np.minimum(cols + by[:, None], a.shape[1] - 1)
    out = a[np.arange(a.shape[0])[:, None], src]
    out[cols >= count[:, None]] = fill
    return out
