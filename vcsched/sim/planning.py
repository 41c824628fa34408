"""The grid's planning interface for meta-schedulers that resubmit many jobs at one instant.

A :class:`PlanningSnapshot` (from :meth:`vcsched.sim.Grid.planning_snapshot`) holds, for
every cluster, a copy of what a submission now is planned on (the cluster's
:meth:`~vcsched.sim.cluster.Cluster.resubmission_plan`: its planning profile, the lower
bound of the next submission's start, and whether a submission raises that bound to its
own start, as FCFS's queue order does), and, for each job of a given list, its width and
its planned duration on every cluster. It answers, without a grid query:

* the earliest start and completion of a job on a cluster, as if submitted there now
  (:func:`start_on`, :func:`completion_on`; ``inf`` when the job is wider than the cluster);
* the same for many jobs at once after a reservation (:func:`refresh_column`);
* "reserve this job there" (:func:`reserve_on`), which replays the cluster's own planning
  rule (the compiled :func:`vcsched.sim.compiled.reserve` from the lower bound, FCFS's
  lower-bound rule) and records the reservation.

These are compiled functions of the snapshot's :attr:`~PlanningSnapshot.state` (a named
tuple of arrays), so that a compiled choice loop (a reallocation heuristic) calls them
without leaving compiled code. They call the same compiled profile rules with the same
arguments in the same order as the clusters themselves, so the numbers are the same
floating-point numbers as the clusters' own ECTs and reservations.

Once the meta-scheduler submits the reserved jobs with :meth:`vcsched.sim.Grid.submit_many`
in the order they were reserved, a cluster whose plan the snapshot extended exactly (an
FCFS cluster whose estimate plan did not change since) adopts the snapshot's profile and
reservations instead of planning the same jobs again; every other cluster plans them
itself. A heuristic thus supplies only its choice rule.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run
from vcsched.sim.compiled import earliest, earliest_many, reserve, row_of

__all__ = ["PlanState", "PlanningSnapshot", "make_state", "start_on", "completion_on", "reserve_on", "refresh_column",
           "monotone_after_lower", "width_starts"]

_INF = np.inf


class PlanState(NamedTuple):
    """The arrays of a snapshot, for compiled code (rows ``i``: the snapshot's jobs; ``k``: the clusters).

    ``T[k, :rows[k]]``, ``F[k, :rows[k]]``: cluster ``k``'s planning profile (room for two
    breakpoints per reservation); ``total[k]``: its processors; ``lower[k]``: the lower bound
    of the next start there; ``advances[k]``: a reservation raises ``lower[k]`` to its start;
    ``widths[i]``, ``D[i, k]``: job ``i``'s processors and planned duration on ``k``; ``now``;
    the reservations made (``log_row``, ``log_cluster``, ``log_start``, ``count[0]`` of them);
    and work arrays for :func:`refresh_column`.
    """

    T: np.ndarray
    F: np.ndarray
    rows: np.ndarray
    total: np.ndarray
    lower: np.ndarray
    advances: np.ndarray
    widths: np.ndarray
    D: np.ndarray
    now: float
    log_row: np.ndarray
    log_cluster: np.ndarray
    log_start: np.ndarray
    count: np.ndarray
    work_row: np.ndarray
    work_width: np.ndarray
    work_duration: np.ndarray
    work_start: np.ndarray


def make_state(T: np.ndarray, F: np.ndarray, rows: np.ndarray, total: np.ndarray, lower: np.ndarray,
               advances: np.ndarray, widths: np.ndarray, D: np.ndarray, now: float) -> PlanState:
    """A :class:`PlanState` on these profiles (``T``, ``F`` with room for two breakpoints per job) and jobs,
    with empty reservation log and work arrays."""
    n = widths.size
    return PlanState(T, F, rows, total, lower, advances, widths, D, float(now),
                     np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n), np.zeros(1, dtype=np.int64),
                     np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n), np.empty(n))


@njit(cache=True)
def start_on(st, i, k):
    """Earliest start of job ``i`` on cluster ``k`` from the cluster's lower bound; ``inf`` if it is too wide."""
    p = st.widths[i]
    if p > st.total[k]:
        return _INF
    return earliest(st.T[k], st.F[k], st.rows[k], p, st.D[i, k], st.lower[k])


@njit(cache=True)
def completion_on(st, i, k):
    """Earliest completion of job ``i`` on cluster ``k`` if submitted there now (its ECT; ``inf``: too wide)."""
    return start_on(st, i, k) + st.D[i, k]


@njit(cache=True)
def reserve_on(st, i, k):
    """Submit job ``i`` to cluster ``k`` on the snapshot: its earliest slot from the lower bound, taken; FCFS's
    lower bound moves to it. Records the reservation and returns its start."""
    lower, log_start = st.lower, st.log_start
    n, s = reserve(st.T[k], st.F[k], st.rows[k], st.widths[i], st.D[i, k], st.now, lower[k], st.total[k])
    st.rows[k] = n
    if st.advances[k]:
        lower[k] = s
    c = st.count[0]
    st.log_row[c] = i
    st.log_cluster[c] = k
    log_start[c] = s
    st.count[0] = c + 1
    return s


@njit(cache=True)
def refresh_column(st, k, live, m, S, E, s, e, prune):
    """After a reservation ``[s, e)`` on cluster ``k``, bring ``S[i, k]`` (start) and ``E[i, k]`` (completion)
    up to date for the jobs ``live[:m]``, with one :func:`~vcsched.sim.compiled.earliest_many` call.

    An exact shortcut (``prune``): a reservation only removes processors and only raises
    the lower bound (to ``s``), so no job can start earlier than before on ``k``; a job
    whose slot there is still after the lower bound and does not overlap ``[s, e)`` keeps
    it and is not recomputed. ``prune=False`` recomputes every job (tested equal).
    """
    todo, wp, wd, ws = st.work_row, st.work_width, st.work_duration, st.work_start
    D, widths = st.D, st.widths
    lo = st.lower[k]
    c = 0
    for r in range(m):
        i = live[r]
        x = S[i, k]
        if not (prune and x >= lo and (x >= e or x + D[i, k] <= s)):
            todo[c] = i
            wp[c] = widths[i]
            wd[c] = D[i, k]
            c += 1
    earliest_many(st.T[k], st.F[k], st.rows[k], wp[:c], wd[:c], lo, ws[:c])
    for q in range(c):
        i = todo[q]
        S[i, k] = ws[q]
        E[i, k] = ws[q] + D[i, k]


@njit(cache=True)
def monotone_after_lower(st):
    """True when every cluster's free count never decreases after its lower bound.

    This holds for FCFS plans (every reservation starts at or before the last one's start,
    which is the lower bound, so after it processors are only released), and a
    reservation with :func:`reserve_on` keeps it. Then the earliest start of a job from the
    lower bound is the first row with enough free processors, whatever its duration
    (:func:`width_starts`).
    """
    T, F, rows, lower = st.T, st.F, st.rows, st.lower
    for k in range(rows.size):
        for r in range(rows[k] - 1):
            if T[k, r + 1] > lower[k] and F[k, r + 1] < F[k, r]:
                return False
    return True


@njit(cache=True)
def width_starts(st, uw, A, k):
    """``A[w, k]``: earliest start on cluster ``k`` from its lower bound of a job of width ``uw[w]`` (``uw``
    increasing), when :func:`monotone_after_lower` holds.

    On such a profile the earliest start of width ``p`` is the first row from the one
    holding the lower bound with at least ``p`` free (clipped to the lower bound), whatever
    the duration: :func:`~vcsched.sim.compiled.earliest` gives the same number (tested),
    but one merge over the increasing widths and the rows costs O(widths + rows) instead
    of one search per width.
    """
    n = st.rows[k]
    lo = st.lower[k]
    Tk, Fk = st.T[k], st.F[k]
    r = row_of(Tk, n, lo)
    if r < 0:
        r = 0
    total = st.total[k]
    for w in range(uw.size):
        p = uw[w]
        if p > total:
            A[w, k] = _INF
            continue
        while r < n and Fk[r] < p:
            r += 1
        if r == n:
            A[w, k] = _INF
        else:
            t = Tk[r]
            A[w, k] = t if t > lo else lo


class PlanningSnapshot:
    """What a submission now is planned on, for every cluster of a grid, and a list of jobs to plan.

    Built by :meth:`vcsched.sim.Grid.planning_snapshot`; see the module notes. The jobs are
    rows of the grid's job table; in the snapshot they are numbered ``0 .. n-1`` in the
    order given.

    Attributes
    ----------
    jobs : ndarray of int
        The job rows, in the snapshot's order.
    state : PlanState
        The arrays for the compiled functions of this module (changed in place by them).
    """

    def __init__(self, jobs: np.ndarray, plans: list, durations: np.ndarray, widths: np.ndarray,
                 totals: np.ndarray, now: float, tokens: list) -> None:
        n, K = jobs.size, len(plans)
        room = max(prof.t.size for prof, _, _ in plans) + 2 * n + 2
        T = np.empty((K, room))
        F = np.zeros((K, room), dtype=np.int64)
        rows = np.empty(K, dtype=np.int64)
        for k, (prof, _, _) in enumerate(plans):
            rows[k] = prof.t.size
            T[k, :rows[k]] = prof.t
            F[k, :rows[k]] = prof.f
        self.jobs = jobs
        self.tokens = tokens
        self.state = make_state(T, F, rows, totals, np.array([lo for _, lo, _ in plans], dtype=np.float64),
                                np.array([adv for _, _, adv in plans], dtype=np.bool_), widths, durations, now)

    def completions(self) -> np.ndarray:
        """ECT of every job of the snapshot on every cluster, shape ``(n, K)`` (``inf`` where it does not fit)."""
        n, K = self.state.D.shape
        out = np.empty((n, K))
        _completions(self.state, out)
        return out

    def reserve(self, i: int, k: int) -> float:
        """Reserve the snapshot's job ``i`` on cluster ``k`` (:func:`reserve_on`); returns its start."""
        return float(reserve_on(self.state, int(i), int(k)))

    def reserved(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The reservations made so far, in order: the snapshot's job numbers, clusters, starts."""
        c = int(self.state.count[0])
        st = self.state
        return st.log_row[:c].copy(), st.log_cluster[:c].copy(), st.log_start[:c].copy()

    def reservations(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`reserved` with the jobs as rows of the job table."""
        rows, clusters, starts = self.reserved()
        return self.jobs[rows], clusters, starts

    def cluster_plan(self, k: int) -> tuple[np.ndarray, np.ndarray, list]:
        """Cluster ``k``'s profile after the reservations (breakpoints, free counts) and its reservations' starts."""
        st = self.state
        c = int(st.count[0])
        mine = st.log_cluster[:c] == k
        return st.T[k, :st.rows[k]], st.F[k, :st.rows[k]], st.log_start[:c][mine].tolist()


@njit(cache=True)
def _completions(st, out):
    n, K = st.D.shape
    for k in range(K):
        for i in range(n):
            out[i, k] = completion_on(st, i, k)
