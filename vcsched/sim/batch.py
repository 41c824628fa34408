"""Space-shared batch clusters with a local batch policy: FCFS, conservative and EASY backfilling.

A cluster has a number of processors, a speed factor and a local batch policy (seed
§3.1: Simbatch simulates FCFS and CBF; EASY is added). It offers the queries that the
seed's server part offers to grid middleware (§2.1, §3.1): submit, cancel a waiting
job, list the waiting jobs and the **estimated completion time** (ECT) of a job,
queued there or not, planned with requested times and the cluster's speed.

Rules of an instant (issue 10), enforced by the kernel priorities
(:mod:`vcsched.sim.kernel`):

1. every job ending at that instant leaves (``PRIORITY_END``);
2. each cluster reacts to those ends once (``PRIORITY_REACT``; CBF re-plans once if at
   least one of them ended before its requested time);
3. jobs submitted at that instant arrive, in submission order (``PRIORITY_ARRIVAL``;
   a CBF job gets its reservation here);
4. one scheduling pass per cluster starts what can start (``PRIORITY_PASS``).

A job with run time 0 that starts at an instant ends at that same instant: its end
event goes into the heap at the current time with ``PRIORITY_END``, so another round
(1)-(4) happens at that instant after the pass that started it.

Heterogeneity (seed §2.1, §3.2): a job's run time and requested time are divided by
the speed of the cluster it runs on relative to the speed of its origin site (the
automatic walltime adjustment of the seed's server).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import operator
from typing import Iterable

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.sim.kernel import PRIORITY_END, PRIORITY_PASS, PRIORITY_REACT
from vcsched.sim.profile import Profile

__all__ = ["Cluster", "FCFSCluster", "EasyCluster", "CBFCluster", "BATCH_POLICIES", "make_cluster",
           "planned_duration"]

_INF = float("inf")


def planned_duration(requested: float) -> float:
    """Duration used to plan a job: its requested time, or 1 s when that is 0 (issue 10)."""
    return requested if requested > 0 else 1.0


class Cluster:
    """Base class of the batch clusters; subclasses implement one local policy.

    Parameters
    ----------
    name : str
    procs : int
        Number of processors.
    speed : float, default 1.0
        Relative speed; a job submitted at a site of speed ``s0`` runs ``run * s0 / speed``.

    Notes
    -----
    The cluster is inert until a :class:`vcsched.sim.platform.Grid` binds it to a kernel
    and a job table (:meth:`bind`). Per-job values are kept in Python lists indexed by
    the job's row in the table, which is much faster than numpy scalars in the event loop.
    """

    policy = "base"

    def __init__(self, name: str, procs: int, speed: float = 1.0) -> None:
        if int(procs) != procs or procs < 1:
            raise InvalidInputError(f"cluster {name!r}: procs must be a positive integer, got {procs!r}")
        if not speed > 0:
            raise InvalidInputError(f"cluster {name!r}: speed must be positive, got {speed!r}")
        self.name = str(name)
        self.procs = int(procs)
        self.speed = float(speed)
        self.index = 0
        self.grid = None

    # ------------------------------------------------------------------ binding
    def bind(self, grid, index: int) -> None:
        """Attach to a grid's kernel and job table (called by the grid)."""
        self.grid = grid
        self.index = index
        self.kernel = grid.kernel
        self.P = grid.P
        self._run = grid.run_times
        self._req = grid.req_times
        self._ospeed = grid.origin_speed
        # run and requested times of every job on this cluster, precomputed (vectorised) for the event loop
        ratio = grid.origin_speed_array / self.speed
        same = grid.origin_speed_array == self.speed
        self.run_here = np.where(same, grid.jobs.run_time, grid.jobs.run_time * ratio).tolist()
        self.req_here = np.where(same, grid.jobs.requested_time, grid.jobs.requested_time * ratio).tolist()
        self.free = self.procs
        self.waiting_jobs: dict[int, None] = {}  # insertion-ordered set: submission order here
        self.running_jobs: dict[int, float] = {}  # job -> requested end on this cluster
        self._pass_pending = False
        self._react_pending = False
        self._plan = None  # cached estimate plan (FCFS/EASY)
        self._reset()

    def _reset(self) -> None:
        pass

    # ------------------------------------------------------------------ job times on this cluster
    def run_time(self, j: int) -> float:
        """Run time of job ``j`` on this cluster (capped at its requested time, scaled by speed)."""
        return self.run_here[j]

    def requested_time(self, j: int) -> float:
        """Requested time (walltime) of job ``j`` on this cluster, scaled by speed."""
        return self.req_here[j]

    # ------------------------------------------------------------------ queries (seed §2.1)
    def waiting(self) -> list[int]:
        """Waiting jobs (rows of the job table) in their submission order on this cluster."""
        return list(self.waiting_jobs)

    def running(self) -> list[int]:
        return list(self.running_jobs)

    def submit(self, j: int) -> None:
        """Submit job ``j`` now (the grid records where and when)."""
        if self.P[j] > self.procs:
            self._too_wide(j)
        self.waiting_jobs[j] = None
        self._on_submit(j)
        if not self._pass_pending:
            self._pass_pending = True
            self.kernel.schedule(self.kernel.now, PRIORITY_PASS, self._pass)

    def _too_wide(self, j: int) -> None:
        raise InvalidInputError(
            f"job {self.grid.jobs.job_id[j]} needs {self.P[j]} processors but cluster {self.name!r} has "
            f"{self.procs}; map it to a larger cluster or drop it from the workload")

    def cancel(self, j: int) -> bool:
        """Cancel waiting job ``j``; False (and nothing done) when it is not waiting here."""
        if j not in self.waiting_jobs:
            return False
        del self.waiting_jobs[j]
        self._on_cancel(j)
        self._request_pass()
        return True

    def ect(self, j: int) -> float:
        """Estimated completion time of job ``j`` here, whether it is queued here or not."""
        raise NotImplementedError

    def ect_many(self, jobs: Iterable[int]) -> np.ndarray:
        """ECT of several jobs, each considered alone as if submitted here now (vectorised).

        Jobs queued here get their planned completion time; the others are placed at
        the earliest slot of the current plan without Python loops over them.
        """
        raise NotImplementedError

    # ------------------------------------------------------------------ events
    def _request_pass(self) -> None:
        if not self._pass_pending:
            self._pass_pending = True
            self.kernel.schedule(self.kernel.now, PRIORITY_PASS, self._pass)

    def _request_react(self) -> None:
        if not self._react_pending:
            self._react_pending = True
            self.kernel.schedule(self.kernel.now, PRIORITY_REACT, self._react)

    def _react(self, _=None) -> None:
        self._react_pending = False

    def _start(self, j: int) -> None:
        kernel = self.kernel
        now = kernel.now
        self.free -= self.P[j]
        self.running_jobs[j] = now + self.req_here[j]
        grid = self.grid
        grid.start[j] = now
        grid.where[j] = self.index
        if grid.log is not None:
            grid._started(j, self, now)
        kernel.schedule(now + self.run_here[j], PRIORITY_END, self._end, j)

    def _end(self, j: int) -> None:
        self.free += self.P[j]
        req_end = self.running_jobs.pop(j)
        grid = self.grid
        grid.finish[j] = now = self.kernel.now
        grid.done += 1
        if grid.log is not None:
            grid.log.append((now, "end", grid.jobs.job_id[j], self.name))
        self._on_end(j, req_end)
        if not self._pass_pending:
            self._pass_pending = True
            self.kernel.schedule(now, PRIORITY_PASS, self._pass)

    # hooks
    def _on_submit(self, j: int) -> None:
        self._plan = None

    def _on_cancel(self, j: int) -> None:
        self._plan = None

    def _on_end(self, j: int, req_end: float) -> None:
        if self.kernel.now < req_end:
            self._plan = None

    def _pass(self, _=None) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ estimates (FCFS / EASY)
    def _running_profile(self) -> Profile:
        now = self.kernel.now
        prof = Profile(self.procs, now)
        if self.running_jobs:
            ends = np.fromiter(self.running_jobs.values(), dtype=np.float64, count=len(self.running_jobs))
            procs = np.fromiter((self.P[j] for j in self.running_jobs), dtype=np.int64, count=len(self.running_jobs))
            ends = np.maximum(ends, now)
            order = np.argsort(ends, kind="stable")
            ends, procs = ends[order], procs[order]
            uniq, first = np.unique(ends, return_index=True)
            released = np.add.reduceat(procs, first)
            used = int(procs.sum())
            prof.t = np.concatenate(([now], uniq[uniq > now])) if uniq[0] > now else uniq.copy()
            cum = np.cumsum(released)
            if uniq[0] > now:
                prof.f = np.concatenate(([self.procs - used], self.procs - used + cum))
            else:
                prof.f = self.procs - used + cum
            prof.t[0] = now
        return prof

    def _estimate_plan(self):
        """(profile, planned starts of waiting jobs, lower bound for a new job) with requested times.

        FCFS plans each waiting job at its earliest slot no earlier than the previous
        one's start (the FCFS order); EASY uses the conservative plan of its queue as its
        estimate (EASY itself only protects the head job).
        """
        plan = self._plan
        if plan is not None:
            return plan
        prof = self._running_profile()
        now = self.kernel.now
        lower = now
        starts: dict[int, float] = {}
        fcfs = self.policy == "fcfs"
        for j in self.waiting_jobs:
            d = planned_duration(self.requested_time(j))
            s = prof.earliest(self.P[j], d, lower)
            prof.reserve(s, d, self.P[j])
            starts[j] = s
            if fcfs:
                lower = s
        plan = [prof, starts, lower]
        self._plan = plan
        return plan

    def _plan_ect(self, j: int) -> float:
        prof, starts, lower = self._estimate_plan()
        s = starts.get(j)
        if s is not None:
            return s + planned_duration(self.requested_time(j))
        if self.P[j] > self.procs:
            return _INF
        d = planned_duration(self.requested_time(j))
        return prof.earliest(self.P[j], d, max(lower, self.kernel.now)) + d

    def _plan_ect_many(self, jobs) -> np.ndarray:
        prof, starts, lower = self._estimate_plan()
        return self._ect_many_on(prof, starts, max(lower, self.kernel.now), jobs)

    def _ect_many_on(self, prof: Profile, starts: dict, lower: float, jobs) -> np.ndarray:
        jobs = list(jobs)
        d = np.array([planned_duration(self.requested_time(j)) for j in jobs], dtype=np.float64)
        p = np.array([self.P[j] for j in jobs], dtype=np.int64)
        out = np.empty(len(jobs))
        queued = np.array([j in starts for j in jobs], dtype=bool)
        if queued.any():
            out[queued] = np.array([starts[j] for j, q in zip(jobs, queued) if q]) + d[queued]
        other = ~queued
        if other.any():
            out[other] = prof.earliest_many(p[other], d[other], lower) + d[other]
        return out


def _fit_before(T: list, F: list, p: int, d: float, s: float, now: float):
    """Earliest start before ``s`` of a job (width ``p``, planned duration ``d``) reserved at ``s``.

    Scans the profile rows (``T`` breakpoints, ``F`` free counts) that start before ``s``;
    once its own reservation is released, the job always fits on ``[s, s + d)``, so a run
    of rows with ``F >= p`` that reaches ``s`` is enough (a row straddling ``s`` has the
    same free count on both sides, else ``s`` would be a breakpoint). Returns None when
    the job cannot start earlier than ``s``.
    """
    ks = bisect.bisect_left(T, s)
    if ks == 0 or max(F[:ks]) < p:
        return None
    ends = T[1:ks + 1]
    if len(ends) < ks:
        ends.append(_INF)
    run_start = None
    for f, t, end in zip(F[:ks], T, ends):
        if f >= p:
            if run_start is None:
                run_start = t if t > now else now
            if end >= run_start + d or end >= s:
                return run_start
        else:
            run_start = None
    return None


def _new_runs(now: float) -> list:
    """Empty runs state (see :func:`_extend_runs`) for the current profile, started at ``now``."""
    return [[], [], [], -1.0, -_INF, None, 0, now]


def _extend_runs(st: list, T: list, F: list, p: int, s: float) -> None:
    """Extend the runs state ``st`` of width ``p`` over every row of the profile starting before ``s``.

    ``st = [U, V, M, longest, done, u, stamp, now]``: the rows starting before ``done``
    were processed; run ``i`` of rows with at least ``p`` free processors covers
    ``[U[i], V[i])`` and ``M[i]`` is the longest of runs ``0..i`` (non-decreasing, to find
    the first run of a given length by bisection); ``u`` is the start of the run still
    open at ``done`` (None when the row before ``done`` has fewer than ``p`` free). The
    runs are in time, so later breakpoints (or merged rows) do not change them as long as
    no free count crosses ``p`` (see :func:`_drop_crossed`).
    """
    U, V, M = st[0], st[1], st[2]
    longest = st[3]
    u = st[5]
    n = len(T)
    k = bisect.bisect_left(T, st[4])
    while k < n:
        t = T[k]
        if t >= s:
            break
        if F[k] >= p:
            if u is None:
                u = t
        elif u is not None:
            U.append(u)
            V.append(t)
            if t - u > longest:
                longest = t - u
            M.append(longest)
            u = None
        k += 1
    st[3] = longest
    st[4] = T[k] if k < n else _INF
    st[5] = u


def _fit_runs(st: list, d: float, s: float):
    """:func:`_fit_before` from a runs state extended past ``s`` (:func:`_extend_runs`).

    A run ``[u, v)`` starting before ``s`` holds the job from ``u`` when ``v >= u + d``
    or when it reaches ``s`` (see :func:`_fit_before`): the open run does, and so may the
    last closed run starting before ``s``; closed runs before the first one at least ``d``
    long (found by bisection, with a margin for rounding; every candidate is then checked
    with the exact test of :func:`_fit_before`) cannot hold it.
    """
    U, V, M = st[0], st[1], st[2]
    x = st[5]
    if x is None or x >= s:
        x = _INF
    i = bisect.bisect_left(U, s) - 1  # last closed run starting before s
    if i >= 0 and V[i] >= s and U[i] < x:
        x = U[i]
    k = bisect.bisect_left(M, d - (abs(s) * 1e-12 + 1e-9))
    n = len(U)
    while k < n:
        u = U[k]
        if u >= x or u >= s:
            break
        if V[k] >= u + d:
            x = u
            break
        k += 1
    return x if x < s else None


def _runs_now(st: list, now: float) -> None:
    """Bring a runs state built at an earlier time to ``now`` (unchanged profile): drop or clip the past."""
    U, V = st[0], st[1]
    k = bisect.bisect_right(V, now)
    if k:
        del U[:k], V[:k]
    if U and U[0] < now:
        U[0] = now
    st[2] = list(itertools.accumulate(map(operator.sub, V, U), max))
    st[3] = st[2][-1] if st[2] else -1.0
    if st[5] is not None and st[5] < now:
        st[5] = now
    st[7] = now


def _drop_crossed(cache: dict, lower: list, p: int) -> None:
    """Drop from ``cache`` (width -> runs) the widths ``q`` whose runs a change of ``p`` free
    processors on some rows altered.

    ``lower`` holds, for each changed row, the smaller of its free counts before and
    after the change; the row's status "at least ``q`` free" flips exactly when that value
    lies in ``[q - p, q)``. Runs are kept in time, so new breakpoints do not matter.
    """
    if not lower:
        return
    lower.sort()
    n = len(lower)
    lo, hi = lower[0], lower[-1] + p  # only widths in (lo, hi] can be crossed
    bl = bisect.bisect_left
    for q in [q for q in cache if lo < q <= hi]:
        i = bl(lower, q - p)
        if i < n and lower[i] < q:
            del cache[q]


def _repair_runs(cache: dict, T: list, F: list, p: int, x: float, xe: float, s: float, e: float) -> None:
    """Drop from ``cache`` the widths whose runs a move changed (see :func:`_drop_crossed`).

    The job (width ``p``) moved from ``[s, e)`` to ``[x, xe)`` (``x < s``; ``T``, ``F``
    already updated): ``p`` fewer processors are free on ``[x, min(xe, s))`` and ``p``
    more on ``[max(xe, s), e)``.
    """
    bl = bisect.bisect_left
    c = xe if xe < s else s
    a = xe if xe > s else s
    lo = bl(T, a)
    _drop_crossed(cache, F[bl(T, x):bl(T, c)] + [f - p for f in F[lo:bl(T, e, lo)]], p)


def _list_add(T: list, F: list, a: float, b: float, delta: int, total: int) -> None:
    """:meth:`Profile.add` on the Python-list copy of a profile (used inside a re-plan)."""
    i = bisect.bisect_left(T, a)
    if i == len(T) or T[i] != a:
        T.insert(i, a)
        F.insert(i, F[i - 1] if i else total)
    j = bisect.bisect_left(T, b, i)
    if j == len(T) or T[j] != b:
        T.insert(j, b)
        F.insert(j, F[j - 1])
    for k in range(i, j):
        F[k] += delta


class FCFSCluster(Cluster):
    """First come, first served: a job starts as soon as every earlier job has started and
    enough processors are free (seed §3.1, FCFS [22])."""

    policy = "fcfs"

    def _pass(self, _=None) -> None:
        self._pass_pending = False
        waiting = self.waiting_jobs
        if not waiting:
            return
        P = self.P
        while waiting:
            j = next(iter(waiting))
            if P[j] > self.free:
                break
            del waiting[j]
            self._start(j)

    def ect(self, j: int) -> float:
        return self._plan_ect(j)

    def ect_many(self, jobs) -> np.ndarray:
        return self._plan_ect_many(jobs)


class EasyCluster(Cluster):
    """EASY backfilling (Lifka; the textbook rule checked by the pyss reference schedules).

    A pass starts jobs from the head of the queue while they fit; then the head job's
    earliest start (the *shadow time*) is computed from the running jobs' requested end
    times, and each later job, in queue order, starts now if it fits in the free
    processors and either ends (by its requested time) no later than the shadow time or
    uses no more than the processors left over at the shadow time (*extra*); jobs
    started earlier in the same pass count as running.

    Notes
    -----
    Jobs ending exactly at the shadow time count as free at the shadow time. When no
    job ended and the head did not change since the previous pass, only the newly
    arrived jobs are examined: the others failed before and can only fail again
    (free processors and extra did not grow, time moved forward). This is an exact
    shortcut, not an approximation.
    """

    policy = "easy"

    def _reset(self) -> None:
        self._by_req_end: list[tuple[float, int]] = []
        self._dirty = True
        self._last_head = -1
        self._new = 0
        self._shadow = _INF
        self._extra = 0
        self.head_reservations: dict[int, float] = {}

    def _on_submit(self, j: int) -> None:
        self._plan = None
        self._new += 1

    def _on_cancel(self, j: int) -> None:
        self._plan = None
        self._dirty = True
        self.head_reservations.pop(j, None)

    def _start(self, j: int) -> None:
        now = self.kernel.now
        self._plan = None
        bisect.insort(self._by_req_end, (now + self.req_here[j], j))
        Cluster._start(self, j)

    def _on_end(self, j: int, req_end: float) -> None:
        lst = self._by_req_end
        k = bisect.bisect_left(lst, (req_end, j))
        del lst[k]
        self._dirty = True
        if self.kernel.now < req_end:
            self._plan = None

    def _shadow_extra(self, head: int) -> tuple[float, int]:
        need = self.P[head] - self.free
        acc = 0
        P = self.P
        lst = self._by_req_end
        n = len(lst)
        k = 0
        while k < n:
            rend, j = lst[k]
            acc += P[j]
            k += 1
            if acc >= need:
                while k < n and lst[k][0] == rend:
                    acc += P[lst[k][1]]
                    k += 1
                return rend, self.free + acc - P[head]
        return _INF, 0  # cannot happen when the head fits the cluster

    def _pass(self, _=None) -> None:
        self._pass_pending = False
        waiting = self.waiting_jobs
        new = self._new
        self._new = 0
        if not waiting:
            self._dirty = False
            return
        P = self.P
        head = next(iter(waiting))
        while P[head] <= self.free:
            del waiting[head]
            self._start(head)
            if not waiting:
                self._dirty = False
                return
            head = next(iter(waiting))
        now = self.kernel.now
        full = self._dirty or head != self._last_head
        if full:
            self._shadow, self._extra = self._shadow_extra(head)
            self._last_head = head
            self._dirty = False
            if head not in self.head_reservations:
                self.head_reservations[head] = self._shadow
        if self.free == 0 or len(waiting) == 1:
            return
        if full:
            candidates = iter(waiting)
            next(candidates)
            candidates = list(candidates)
        else:
            if new == 0:
                return
            candidates = list(itertools.islice(reversed(waiting), min(new, len(waiting) - 1)))[::-1]
        shadow, extra, free = self._shadow, self._extra, self.free
        limit = shadow - now
        req = self.req_here
        for j in candidates:
            p = P[j]
            if p > free:
                continue
            late = req[j] > limit
            if late and p > extra:
                continue
            del waiting[j]
            self._start(j)
            free -= p
            if late:
                extra -= p
            if free == 0:
                break
        self._extra = extra

    def ect(self, j: int) -> float:
        return self._plan_ect(j)

    def ect_many(self, jobs) -> np.ndarray:
        return self._plan_ect_many(jobs)


class CBFCluster(Cluster):
    """Conservative backfilling (the seed's CBF, §3.1 [16]).

    At submission a job gets the earliest reservation in the availability profile
    (planned with requested times; a requested time of 0 is planned as 1 s) that delays
    no existing reservation. At an instant where a job ended before its requested time
    or a waiting job was cancelled, every waiting job is re-planned once, in submission
    order, each removed and re-inserted at its earliest slot from now (never later than
    before). A job starts exactly at its reservation.

    Notes
    -----
    "Ended before its requested time" is read as "ended before its *planned* end"
    (reservation + planned duration): a job with a requested time of 0, planned as 1 s,
    that ends at its start frees its second and triggers the re-plan (tested).

    Cancellations by the meta-scheduler mark the plan stale; the single re-plan runs
    before the next submission, estimate or scheduling pass on this cluster, so a batch
    of cancellations at one instant costs one re-plan.

    The profile is never merged below a waiting job's reservation in a way that loses
    information (see :meth:`Profile.trim`); the re-plan is exact and is checked against
    the literal remove-and-reinsert rule in ``tests/sim/test_sim_shortcuts.py`` and
    ``tests/sim/test_sim_cbf_perf.py`` (see :meth:`_replan` for its shortcuts).
    """

    policy = "cbf"

    def _reset(self) -> None:
        self.profile = Profile(self.procs, self.kernel.now)
        self.reservation: dict[int, float] = {}
        self.duration: dict[int, float] = {}
        self.first_reservation: dict[int, float] = {}  # job -> reservation given at its (last) submission here
        self._starts: list[tuple[float, int, int]] = []  # heap of (reservation, order, job), lazy
        self._order = 0
        self._stale = False
        self._wake = _INF
        self.replans = 0
        # width -> runs of the profile with at least that many free processors (see _extend_runs), kept
        # exact across profile changes
        self._runs: dict[int, list] = {}
        self._stuck: dict[int, list] = {}  # job -> runs state in which it cannot move (see _replan)

    def _reserve(self, j: int) -> float:
        now = self.kernel.now
        d = planned_duration(self.requested_time(j))
        p = self.P[j]
        prof = self.profile
        s = prof.earliest(p, d, now)
        prof.reserve(s, d, p)
        if self._runs:
            t = prof.t
            _drop_crossed(self._runs, prof.f[t.searchsorted(s):t.searchsorted(s + d)].tolist(), p)
        self.reservation[j] = s
        self.duration[j] = d
        self._stuck.pop(j, None)
        self._order += 1
        heapq.heappush(self._starts, (s, self._order, j))
        self._wake_at(s)
        return s

    def _wake_at(self, s: float) -> None:
        if s < self._wake:
            self._wake = s
            self.kernel.schedule(s, PRIORITY_PASS, self._wake_pass)

    def _wake_pass(self, _=None) -> None:
        if self.kernel.now >= self._wake:
            self._wake = _INF
        self._do_pass()

    def submit(self, j: int) -> None:
        if self.P[j] > self.procs:
            self._too_wide(j)
        self._replan_if_stale()
        self.profile.trim(self.kernel.now)
        self.waiting_jobs[j] = None
        self.first_reservation[j] = self._reserve(j)

    def cancel(self, j: int) -> bool:
        if j not in self.waiting_jobs:
            return False
        del self.waiting_jobs[j]
        s = self.reservation.pop(j)
        self._changed(s, s + self.duration.pop(j), self.P[j])
        self._stale = True
        self._request_react()
        return True

    def _on_end(self, j: int, req_end: float) -> None:
        now = self.kernel.now
        s, d = self.reservation.pop(j), self.duration.pop(j)
        if now < s + d:
            self._changed(now, s + d, self.P[j])
            self._stale = True
            self._request_react()

    def _end(self, j: int) -> None:
        self.free += self.P[j]
        req_end = self.running_jobs.pop(j)
        grid = self.grid
        grid.finish[j] = now = self.kernel.now
        grid.done += 1
        if grid.log is not None:
            grid.log.append((now, "end", grid.jobs.job_id[j], self.name))
        self._on_end(j, req_end)

    def _changed(self, start: float, end: float, p: int) -> None:
        """Release ``p`` processors on ``[start, end)`` of the profile (keeping the runs cache exact)."""
        prof = self.profile
        prof.add(start, end, p)
        if self._runs and end > start:
            t = prof.t
            up = prof.f[t.searchsorted(start):t.searchsorted(end)]
            _drop_crossed(self._runs, (up - p).tolist(), p)

    def _react(self, _=None) -> None:
        self._react_pending = False
        self._replan_if_stale()

    def _replan_if_stale(self) -> None:
        if self._stale:
            self._stale = False
            self._replan()

    def _replan(self) -> None:
        """Re-plan every waiting job once, in submission order, at its earliest slot from now.

        Exactly the sequential rule (release the job, re-insert it at its earliest slot
        from now), done on a Python-list copy of the profile: a job can only move to a
        start before its reservation, and once released it always fits on its own old
        slot, so only the rows before the reservation matter (:func:`_fit_before`).

        The search uses, per job width, the runs of rows with enough free processors
        (:func:`_extend_runs`, built lazily up to the reservations asked about, searched
        by bisection in :func:`_fit_runs`). These runs states are kept across moves and
        re-plans as long as no change of the profile makes a row's free count cross their
        width (:func:`_drop_crossed`; time passing is handled by :func:`_runs_now`). A job
        found unable to move is skipped while its width's runs state is the same: nothing
        changed for its width since, and time passing only removes candidate slots. Every
        shortcut is checked against the literal rule in ``tests/sim/test_sim_cbf_perf.py``
        and ``tests/sim/test_sim_shortcuts.py``.
        """
        now = self.kernel.now
        prof = self.profile
        prof.trim(now, merge=True)
        self.replans += 1
        res = self.reservation
        waiting = self.waiting_jobs
        if not waiting:
            return
        P, dur, total = self.P, self.duration, self.procs
        T, F = prof.t.tolist(), prof.f.tolist()
        # width -> runs of the current profile (see _extend_runs), kept from the previous re-plans when no
        # change crossed that width; the widths not used in the previous re-plan are forgotten
        stamp = self.replans
        cache = {p: runs for p, runs in self._runs.items() if runs[6] >= stamp - 1}
        self._runs = cache
        # job -> runs state in which it was found unable to move: while that state is cached (no change
        # crossed the job's width since), the job still cannot move (time passing only removes slots)
        stuck = self._stuck
        stuck_get = stuck.get
        moved = False
        for j in waiting:
            s_old = res[j]
            if s_old <= now:
                continue  # starts at this instant
            p = P[j]
            runs = cache.get(p)
            if runs is None:
                runs = cache[p] = _new_runs(now)
            elif stuck_get(j) is runs:
                runs[6] = stamp
                continue
            elif runs[7] != now:
                _runs_now(runs, now)
            runs[6] = stamp
            if runs[4] < s_old:
                _extend_runs(runs, T, F, p, s_old)
            d = dur[j]
            x = _fit_runs(runs, d, s_old)
            if x is None:
                stuck[j] = runs
                continue
            stuck.pop(j, None)
            e = s_old + d
            _list_add(T, F, s_old, e, p, total)
            _list_add(T, F, x, x + d, -p, total)
            if cache:
                _repair_runs(cache, T, F, p, x, x + d, s_old, e)
            moved = True
            res[j] = x
            self._order += 1
            heapq.heappush(self._starts, (x, self._order, j))
            self._wake_at(x)
        if moved:
            prof.t = np.array(T, dtype=np.float64)
            prof.f = np.array(F, dtype=np.int64)

    def _pass(self, _=None) -> None:
        self._pass_pending = False
        self._do_pass()

    def _do_pass(self) -> None:
        self._replan_if_stale()
        now = self.kernel.now
        heap = self._starts
        res = self.reservation
        waiting = self.waiting_jobs
        stuck = self._stuck
        while heap and heap[0][0] <= now:
            s, _, j = heapq.heappop(heap)
            if j in waiting and res.get(j) == s:
                del waiting[j]
                stuck.pop(j, None)
                self._start(j)
        if heap:
            # drop stale heads so that the next wake-up is a real reservation
            while heap and not (heap[0][2] in waiting and res.get(heap[0][2]) == heap[0][0]):
                heapq.heappop(heap)
            if heap:
                self._wake_at(heap[0][0])

    def ect(self, j: int) -> float:
        self._replan_if_stale()
        if j in self.waiting_jobs:
            return self.reservation[j] + self.duration[j]
        if self.P[j] > self.procs:
            return _INF
        d = planned_duration(self.requested_time(j))
        return self.profile.earliest(self.P[j], d, self.kernel.now) + d

    def ect_many(self, jobs) -> np.ndarray:
        self._replan_if_stale()
        starts = {j: self.reservation[j] for j in jobs if j in self.waiting_jobs}
        return self._ect_many_on(self.profile, starts, self.kernel.now, jobs)


BATCH_POLICIES = {"fcfs": FCFSCluster, "cbf": CBFCluster, "easy": EasyCluster}


def make_cluster(name: str, procs: int, speed: float = 1.0, policy: str = "fcfs") -> Cluster:
    """A cluster with the local batch policy ``policy`` (``fcfs``, ``cbf`` or ``easy``)."""
    key = str(policy).lower()
    if key not in BATCH_POLICIES:
        raise InvalidInputError(f"cluster {name!r}: unknown batch policy {policy!r}; choose one of: "
                                f"{', '.join(BATCH_POLICIES)}")
    return BATCH_POLICIES[key](name, procs, speed)
