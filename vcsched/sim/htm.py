"""The Historical Trace Manager (Caniou & Jeannot RR-5168, §2.3-2.4): the agent's replay of its decisions.

:class:`HistoricalTraceManager` replays the time-shared server model of
:mod:`vcsched.sim.timeshare` (dedicated transfers, processor sharing of the
computations) from the agent's mapping decisions alone (it is told nothing else) to
predict, for a new task on every server, its completion date ``T_t`` and the sum of
the perturbations ``δ_k = T_k - T'_k`` it causes to the tasks already there. It keeps
every server's tasks in padded 2-D arrays (servers x tasks) and replays all servers at
once (:func:`vcsched.sim.processor_sharing._ps_advance_rows`: the water level of each
row by one cumulative sum along the rows): a decision costs O(S W) for S servers and at
most W tasks per server, linear in the number of tasks in the system (small states use
a per-server loop on Python lists, faster there and equal to the bit).
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from vcsched.problems.timeshare import Platform
from vcsched.sim.processor_sharing import _ps_advance_rows, _ps_advance_small, _shift_rows, ps_advance

__all__ = ["HistoricalTraceManager"]

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
    sequentially in end order, on both paths.

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
