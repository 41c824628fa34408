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

import abc
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


_ISIN_FROM = 256  # from this many rows, numpy's set membership beats one dict look-up per row


def _planned_mask(rows: np.ndarray, starts: dict) -> np.ndarray:
    """Which of ``rows`` (array of job rows) are keys of ``starts`` (have a planned start)."""
    if not starts:
        return np.zeros(rows.size, dtype=bool)
    if rows.size < _ISIN_FROM:
        return np.fromiter(map(starts.__contains__, rows.tolist()), dtype=bool, count=rows.size)
    return np.isin(rows, np.fromiter(starts, dtype=np.int64, count=len(starts)))


def _earliest_in(T: list, F: list, p: int, d: float, not_before: float) -> float:
    """:meth:`Profile.earliest` on a profile kept as Python lists (``T`` breakpoints, ``F`` free counts).

    The same result bit for bit: the start of the first run of rows with at least ``p``
    free processors that lasts ``d`` from that start (``not_before`` for the run holding
    it). Returns ``inf`` only when ``p`` exceeds the free processors of the last step.
    """
    first = bisect.bisect_right(T, not_before) - 1  # the row holding not_before
    return _scan_earliest(T, F, max(first, 0), p, d, not_before)


def _scan_earliest(T: list, F: list, k0: int, p: int, d: float, lower: float) -> float:
    """From row ``k0`` on, the start (clipped to ``lower``) of the first run of rows with at
    least ``p`` free processors lasting ``d``; ``inf`` when there is none."""
    n = len(T)
    start = None
    for k in range(k0, n):
        if F[k] >= p:
            if start is None:
                t = T[k]
                start = t if t > lower else lower
            if k + 1 == n or T[k + 1] >= start + d:
                return start
        else:
            start = None
    return _INF


class _EstimatePlan:
    """The estimate plan of an FCFS or EASY cluster (:meth:`Cluster._estimate_plan`), extended job by job.

    ``T``, ``F`` (breakpoints and free counts, Python lists: one job is planned in a few
    microseconds) hold the running jobs until their requested ends and one reservation per
    planned job; :attr:`prof` is the same profile as a :class:`Profile` for vectorised
    queries. ``starts`` maps each planned job still waiting to its planned start; a job
    appended now is planned at its earliest slot from ``lower`` (FCFS: the previous job's
    planned start) or now if later; ``heap`` holds (planned start, job) of the planned
    jobs, to find the earliest planned start of those still waiting.
    """

    __slots__ = ("T", "F", "total", "starts", "lower", "fcfs", "heap", "_prof")

    def __init__(self, prof: Profile, now: float, fcfs: bool) -> None:
        self.T = prof.t.tolist()
        self.F = prof.f.tolist()
        self.total = prof.total
        self._prof: Profile | None = prof
        self.starts: dict[int, float] = {}
        self.lower = now
        self.fcfs = fcfs
        self.heap: list[tuple[float, int]] = []

    @property
    def prof(self) -> Profile:
        """The plan as a :class:`Profile` (rebuilt from the lists after a change)."""
        prof = self._prof
        if prof is None:
            prof = self._prof = Profile(self.total, self.T[0])
            prof.t = np.array(self.T, dtype=np.float64)
            prof.f = np.array(self.F, dtype=np.int64)
        return prof

    def earliest(self, p: int, d: float, not_before: float) -> float:
        """Earliest start from ``not_before`` of a job (width ``p``, duration ``d``) on the plan."""
        return _earliest_in(self.T, self.F, p, d, not_before)

    def append(self, j: int, p: int, d: float, now: float) -> None:
        """Plan job ``j`` (width ``p``, planned duration ``d``) after every job already planned."""
        T, F = self.T, self.F
        if T[0] < now:  # forget the past, as Profile.trim
            k = bisect.bisect_right(T, now) - 1
            del T[:k], F[:k]
            T[0] = now
        s = _earliest_in(T, F, p, d, self.lower if self.lower > now else now)
        _list_add(T, F, s, s + d, -p, self.total)
        self._prof = None
        self.starts[j] = s
        heapq.heappush(self.heap, (s, j))
        if self.fcfs:
            self.lower = s

    def current(self, now: float) -> bool:
        """False when a waiting job's planned start has passed (a rebuild now would plan it later)."""
        heap, starts = self.heap, self.starts
        while heap and heap[0][1] not in starts:
            heapq.heappop(heap)
        return not heap or heap[0][0] >= now


class Cluster(abc.ABC):
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
        req_here = np.where(same, grid.jobs.requested_time, grid.jobs.requested_time * ratio)
        self.req_here = req_here.tolist()
        # planned durations (planned_duration) and widths as arrays, for the vectorised ECTs
        self._planned = np.where(req_here > 0, req_here, 1.0)
        self._widths = np.asarray(grid.jobs.procs, dtype=np.int64)
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

    @abc.abstractmethod
    def ect(self, j: int) -> float:
        """Estimated completion time of job ``j`` here, whether it is queued here or not."""

    @abc.abstractmethod
    def ect_many(self, jobs: Iterable[int]) -> np.ndarray:
        """ECT of several jobs, each considered alone as if submitted here now (vectorised).

        Jobs queued here get their planned completion time; the others are placed at
        the earliest slot of the current plan without Python loops over them.
        """

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
        if self._plan is not None:
            self._plan_started(j, now)
        grid = self.grid
        grid.start[j] = now
        grid.where[j] = self.index
        if grid.log is not None:
            grid._started(j, self, now)
        kernel.schedule(now + self.run_here[j], PRIORITY_END, self._end, j)

    def _end(self, j: int) -> None:
        self._finish(j)
        if not self._pass_pending:
            self._pass_pending = True
            self.kernel.schedule(self.kernel.now, PRIORITY_PASS, self._pass)

    def _finish(self, j: int) -> None:
        """Job ``j`` ends now: free its processors, record the end, call :meth:`_on_end`."""
        self.free += self.P[j]
        req_end = self.running_jobs.pop(j)
        grid = self.grid
        grid.finish[j] = now = self.kernel.now
        grid.done += 1
        if grid.log is not None:
            grid.log.append((now, "end", grid.jobs.job_id[j], self.name))
        self._on_end(j, req_end)

    # hooks
    def _on_submit(self, j: int) -> None:
        plan = self._plan
        if plan is not None:
            plan.append(j, self.P[j], planned_duration(self.req_here[j]), self.kernel.now)

    def _on_cancel(self, j: int) -> None:
        self._plan = None

    def _on_end(self, j: int, req_end: float) -> None:
        if self.kernel.now < req_end:
            self._plan = None

    @abc.abstractmethod
    def _pass(self, _=None) -> None:
        """Start the waiting jobs the policy allows now (one pass of the policy at this instant)."""

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

    def _estimate_plan(self) -> "_EstimatePlan":
        """The plan of the running and waiting jobs with requested times, used for the ECT.

        FCFS plans each waiting job at its earliest slot no earlier than the previous
        one's start (the FCFS order); EASY uses the conservative plan of its queue as its
        estimate (EASY itself only protects the head job).

        The plan is kept up to date incrementally (:class:`_EstimatePlan`) and is always
        the one a rebuild from scratch now would give: a submission plans the new job
        after the others, a job starting exactly at its planned slot only becomes a
        running job, and a job ending at its requested end changes nothing from now on.
        Every other change (a cancellation, an end before the requested end, a start
        elsewhere than planned) drops the plan, rebuilt at the next query, and so does a
        planned start that has passed without the job starting.
        """
        now = self.kernel.now
        plan = self._plan
        if plan is None or not plan.current(now):
            plan = _EstimatePlan(self._running_profile(), now, self.policy == "fcfs")
            P, req = self.P, self.req_here
            for j in self.waiting_jobs:
                plan.append(j, P[j], planned_duration(req[j]), now)
            self._plan = plan
        return plan

    def _plan_started(self, j: int, now: float) -> None:
        """Keep the estimate plan when job ``j`` starts on its planned slot (same profile), else drop it."""
        s = self._plan.starts.pop(j, None)
        req = self.req_here[j]
        if s != now or planned_duration(req) != req:
            self._plan = None

    def _plan_ect(self, j: int) -> float:
        plan = self._estimate_plan()
        s = plan.starts.get(j)
        if s is not None:
            return s + planned_duration(self.requested_time(j))
        if self.P[j] > self.procs:
            return _INF
        d = planned_duration(self.requested_time(j))
        return plan.earliest(self.P[j], d, max(plan.lower, self.kernel.now)) + d

    def _plan_ect_many(self, jobs) -> np.ndarray:
        plan = self._estimate_plan()
        return self._ect_many_on(plan.prof, plan.starts, max(plan.lower, self.kernel.now), jobs)

    def _ect_many_on(self, prof: Profile, starts: dict, lower: float, jobs) -> np.ndarray:
        """ECT of ``jobs`` (iterable or array of rows): planned ``starts`` + duration, else the earliest slot of ``prof``."""
        rows = jobs if isinstance(jobs, np.ndarray) else np.array(list(jobs), dtype=np.int64)
        d = self._planned[rows]
        queued = _planned_mask(rows, starts)
        if not queued.any():
            return prof.earliest_many(self._widths[rows], d, lower) + d
        out = np.empty(rows.size)
        out[queued] = np.array([starts[j] for j in rows[queued].tolist()]) + d[queued]
        other = ~queued
        if other.any():
            out[other] = prof.earliest_many(self._widths[rows[other]], d[other], lower) + d[other]
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


def _cbf_earliest(T: list, F: list, PM: list, p: int, d: float, now: float) -> float:
    """:meth:`Profile.earliest` from ``now`` on a profile kept as Python lists, bit for bit.

    ``PM`` is the running maximum of ``F`` (``PM[k] = max(F[:k + 1])``, non-decreasing):
    bisecting it for ``p`` skips the rows before the first one with ``p`` free. The job
    starts at the beginning of the first run of rows with at least ``p`` free that lasts
    ``d`` from that beginning (clipped to ``now``); the last step lasts forever and has
    every processor free, so a job that fits the cluster always gets a start.
    """
    return _scan_earliest(T, F, bisect.bisect_left(PM, p), p, d, now)


def _opened_runs(T: list, F: list, i: int, j: int, q: int, w: int, now: float) -> list:
    """Runs of rows with at least ``w`` free that a release of ``q`` processors on rows ``i..j-1`` opened.

    ``F`` already holds the release. A row of ``i..j-1`` *opened* for ``w`` when its free
    count went from below ``w`` to at least ``w`` (``w <= F < w + q``); the result lists,
    as ``(start, end)`` times, each maximal run of rows with at least ``w`` free that holds
    such a row (start clipped to ``now``; ``end`` is ``inf`` for a run reaching the last
    step). Every other run with ``w`` free existed before the release.
    """
    out = []
    n = len(T)
    top = w + q
    r = i
    while r < j:
        if w <= F[r] < top:
            k = r
            while k > 0 and F[k - 1] >= w:
                k -= 1
            m = r + 1
            while m < n and F[m] >= w:
                m += 1
            u = T[k]
            out.append((u if u > now else now, T[m] if m < n else _INF))
            r = m
        else:
            r += 1
    return out


def _opened_widths(widths: list, after: list, q: int) -> list:
    """The ``widths`` (sorted) for which some row opened when ``q`` processors were released.

    ``after`` holds the sorted free counts of the released rows after the release; a row
    with ``f`` free opened for the widths ``w`` with ``f - q < w <= f``.
    """
    br = bisect.bisect_right
    out = []
    lo = hi = None
    for f in after:
        if hi is not None and f - q <= hi:
            hi = f  # overlaps the current interval (lo, hi]: extend it
            continue
        if hi is not None:
            out += widths[br(widths, lo):br(widths, hi)]
        lo, hi = f - q, f
    out += widths[br(widths, lo):br(widths, hi)]
    return out


def _merge_equal(T: list, F: list) -> tuple[list, list]:
    """The profile without the breakpoints between two steps with the same free count."""
    change = list(map(operator.ne, F[1:], F))
    if all(change):
        return T, F
    return [T[0], *itertools.compress(T[1:], change)], [F[0], *itertools.compress(F[1:], change)]


def _list_add(T: list, F: list, a: float, b: float, delta: int, total: int) -> None:
    """:meth:`Profile.add` on a profile kept as Python lists (the CBF profile)."""
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
        Cluster._on_submit(self, j)
        self._new += 1

    def _on_cancel(self, j: int) -> None:
        self._plan = None
        self._dirty = True
        self.head_reservations.pop(j, None)

    def _start(self, j: int) -> None:
        bisect.insort(self._by_req_end, (self.kernel.now + self.req_here[j], j))
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

    The profile is kept as two Python lists, ``T`` (breakpoints) and ``F`` (free
    processors on ``[T[k], T[k+1])``, the last step lasting forever): one change costs a
    few microseconds, where numpy arrays cost more per call than they save on profiles of
    a few dozen steps. :attr:`profile` gives it as a :class:`Profile`.

    The re-plan only examines the waiting jobs that may move (see :meth:`_replan`); it is
    checked against the literal remove-and-reinsert rule in
    ``tests/sim/test_sim_shortcuts.py`` and ``tests/sim/test_sim_cbf_perf.py``.
    """

    policy = "cbf"

    def _reset(self) -> None:
        self._T: list[float] = [self.kernel.now]
        self._F: list[int] = [self.procs]
        self._PM: list[int] | None = None  # running maximum of _F (see _cbf_earliest), None when stale
        self._lent: Profile | None = None  # the profile handed out by the ``profile`` property
        self.reservation: dict[int, float] = {}
        self.duration: dict[int, float] = {}
        self.first_reservation: dict[int, float] = {}  # job -> reservation given at its (last) submission here
        self._starts: list[tuple[float, int, int]] = []  # heap of (reservation, order, job), lazy
        self._order = 0
        self._stale = False
        self._wake = _INF
        self.replans = 0
        # the jobs known to be unable to move (see _replan): width -> [reservations (sorted), planned durations,
        # jobs], three parallel lists; _clean_widths lists the widths present, sorted
        self._seq: dict[int, int] = {}  # job -> its rank in the submission order here
        self._nseq = 0
        self._clean: dict[int, list] = {}
        self._clean_widths: list[int] = []
        self._dirty: list[tuple[int, int]] = []  # (rank, job) of the other waiting jobs, for the next re-plan
        self._replanning: list | None = None  # during a re-plan: heap of (rank, job) still to examine in it
        self._rank = 0  # during a re-plan: rank of the job being examined

    # ------------------------------------------------------------------ the profile
    @property
    def profile(self) -> Profile:
        """The availability profile as a :class:`Profile`.

        Changes made to it (the literal re-plan of the tests does) are taken over by the
        cluster at its next use of the profile; it then re-examines every waiting job at
        its next re-plan, since it cannot tell which ones the changes let move.
        """
        prof = self._lent
        if prof is None:
            prof = self._lent = self._as_profile()
        return prof

    def _as_profile(self) -> Profile:
        prof = Profile(self.procs, self._T[0])
        prof.t = np.array(self._T, dtype=np.float64)
        prof.f = np.array(self._F, dtype=np.int64)
        return prof

    def _lists(self) -> tuple[list, list]:
        """``T``, ``F``, after taking back the lent :attr:`profile` if it was handed out."""
        prof = self._lent
        if prof is not None:
            self._lent = None
            self._T, self._F = prof.t.tolist(), prof.f.tolist()
            self._PM = None
            self._clean, self._clean_widths = {}, []
            self._dirty = [(self._seq[j], j) for j in self.waiting_jobs]
        return self._T, self._F

    def _trim(self, now: float, merge: bool = False) -> None:
        """Forget the steps before ``now`` (as :meth:`Profile.trim`); with ``merge``, equal neighbours too."""
        T, F = self._lists()
        k = bisect.bisect_right(T, now) - 1
        if k > 0:
            del T[:k], F[:k]
            self._PM = None
        if T[0] < now:
            T[0] = now
        if merge:
            self._T, self._F = _merge_equal(T, F)

    def _running_max(self) -> list:
        PM = self._PM
        if PM is None:
            PM = self._PM = list(itertools.accumulate(self._F, max))
        return PM

    # ------------------------------------------------------------------ jobs that cannot move
    def _certify(self, j: int, s: float, p: int) -> None:
        """Record that job ``j`` (width ``p``) cannot start before its reservation ``s`` in the current profile."""
        index = self._clean.get(p)
        if index is None:
            self._clean[p] = [[s], [self.duration[j]], [j]]
            bisect.insort(self._clean_widths, p)
            return
        S, D, J = index
        k = bisect.bisect_right(S, s)
        S.insert(k, s)
        D.insert(k, self.duration[j])
        J.insert(k, j)

    def _uncertify(self, j: int, s: float, p: int) -> None:
        """Forget job ``j`` (width ``p``, reservation ``s``) in the clean index, if it is there."""
        index = self._clean.get(p)
        if index is None:
            return
        S, D, J = index
        k = bisect.bisect_left(S, s)
        while k < len(S) and S[k] == s:
            if J[k] == j:
                del S[k], D[k], J[k]
                if not S:
                    self._drop_width(p)
                return
            k += 1

    def _drop_width(self, w: int) -> None:
        del self._clean[w]
        widths = self._clean_widths
        del widths[bisect.bisect_left(widths, w)]

    def _mark_dirty(self, j: int) -> None:
        """Job ``j`` may be able to move: examine it in this re-plan if it comes later, else in the next one."""
        rank = self._seq[j]
        heap = self._replanning
        if heap is not None and rank > self._rank:
            heapq.heappush(heap, (rank, j))
        else:
            self._dirty.append((rank, j))

    def _release(self, a: float, b: float, q: int) -> None:
        """Free ``q`` more processors on ``[a, b)`` and mark dirty the clean jobs this may let move.

        A clean job (width ``w``, reservation ``s``, planned duration ``d``) could not
        start before ``s``; only a run of rows with ``w`` free that the release opened can
        change that (:func:`_opened_runs`). From such a run ``[u, v)`` the job can start
        earlier exactly when ``u < s`` and the run either reaches ``s`` (``s <= v``) or
        holds it entirely (``u + d <= v``, tested with a margin for rounding that only marks
        a few more jobs): those jobs become dirty, the others stay clean.
        """
        T, F = self._lists()
        _list_add(T, F, a, b, q, self.procs)
        self._PM = None
        if not self._clean:
            return
        i = bisect.bisect_left(T, a)
        j = bisect.bisect_left(T, b, i)
        after = sorted(F[i:j])
        if not after:
            return
        clean, now = self._clean, self.kernel.now
        br = bisect.bisect_right
        for w in _opened_widths(self._clean_widths, after, q):
            S, D, J = clean[w]
            if S[-1] <= a:
                continue
            for u, v in _opened_runs(T, F, i, j, q, w, now):
                k = br(S, u)
                n = len(S)
                if k == n:
                    continue
                kv = br(S, v, k)
                hit = list(range(k, kv))
                if kv < n:
                    # d <= v - u with a margin: the examination then tests u + d <= v exactly
                    longest = v - u + (abs(v) * 1e-12 + 1e-9)
                    hit += [h for h in range(kv, n) if D[h] <= longest]
                if not hit:
                    continue
                for h in hit:
                    self._mark_dirty(J[h])
                if len(hit) == n - k:
                    del S[k:], D[k:], J[k:]
                else:
                    for h in reversed(hit):
                        del S[h], D[h], J[h]
                if not S:
                    self._drop_width(w)
                    break

    # ------------------------------------------------------------------ jobs
    def _reserve(self, j: int) -> float:
        now = self.kernel.now
        d = planned_duration(self.requested_time(j))
        p = self.P[j]
        T, F = self._lists()
        s = _cbf_earliest(T, F, self._running_max(), p, d, now)
        _list_add(T, F, s, s + d, -p, self.procs)
        self._PM = None
        self.reservation[j] = s
        self.duration[j] = d
        self._nseq += 1
        self._seq[j] = self._nseq
        self._certify(j, s, p)  # at its earliest slot: it cannot move
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
        self._trim(self.kernel.now)
        self.waiting_jobs[j] = None
        self.first_reservation[j] = self._reserve(j)

    def cancel(self, j: int) -> bool:
        if j not in self.waiting_jobs:
            return False
        del self.waiting_jobs[j]
        s, p = self.reservation.pop(j), self.P[j]
        self._uncertify(j, s, p)
        self._release(s, s + self.duration.pop(j), p)
        self._stale = True
        self._request_react()
        return True

    def _on_end(self, j: int, req_end: float) -> None:
        now = self.kernel.now
        s, d = self.reservation.pop(j), self.duration.pop(j)
        if now < s + d:
            self._release(now, s + d, self.P[j])
            self._stale = True
            self._request_react()

    def _end(self, j: int) -> None:
        self._finish(j)  # no pass: jobs start at their reservations (wake-ups) or after the re-plan

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
        from now): a job can only move to a start before its reservation, and once
        released it always fits on its own old slot, so only the rows before the
        reservation matter (:func:`_fit_before`).

        Only the *dirty* jobs are examined. A job is *clean* when it is known to be unable
        to move: it got its reservation at its earliest slot (submission or move), or was
        examined and could not move. It stays unable to move while the profile changes
        only by taking processors (new reservations, moves' new slots) or by time passing
        (which only removes candidate slots); a release (early end, cancellation, the old
        slot of a moved job) marks dirty the clean jobs to which it opens an earlier slot
        (:meth:`_release`, exact: the others still cannot move). Dirty jobs are examined
        in submission order; one marked dirty by a move of a later job in this re-plan is
        examined in the next one, as the sequential rule does.
        """
        now = self.kernel.now
        self._trim(now, merge=True)
        self._PM = None
        self.replans += 1
        heap, self._dirty = self._dirty, []
        waiting = self.waiting_jobs
        if not waiting:
            return
        heapq.heapify(heap)
        self._replanning = heap
        res, dur, P, seq, total = self.reservation, self.duration, self.P, self._seq, self.procs
        T, F = self._T, self._F
        try:
            while heap:
                rank, j = heapq.heappop(heap)
                if j not in waiting or seq[j] != rank:
                    continue  # started, cancelled or resubmitted since it was marked
                s = res[j]
                if s <= now:
                    continue  # starts at this instant
                self._rank = rank
                p, d = P[j], dur[j]
                x = _fit_before(T, F, p, d, s, now)
                if x is None:
                    self._certify(j, s, p)
                    continue
                # move [s, s + d) to [x, x + d): fewer free on [x, x + d), more on what is left of the old slot
                e, xe = s + d, x + d
                _list_add(T, F, x, xe, -p, total)
                a = xe if xe > s else s
                if a > s:
                    _list_add(T, F, s, a, p, total)
                res[j] = x
                if e > a:
                    self._release(a, e, p)
                self._certify(j, x, p)  # at its earliest slot now
                self._order += 1
                heapq.heappush(self._starts, (x, self._order, j))
                self._wake_at(x)
        finally:
            self._replanning = None

    def _pass(self, _=None) -> None:
        self._pass_pending = False
        self._do_pass()

    def _do_pass(self) -> None:
        self._replan_if_stale()
        now = self.kernel.now
        heap = self._starts
        res = self.reservation
        waiting = self.waiting_jobs
        while heap and heap[0][0] <= now:
            s, _, j = heapq.heappop(heap)
            if j in waiting and res.get(j) == s:
                del waiting[j]
                self._uncertify(j, s, self.P[j])
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
        T, F = self._lists()
        return _cbf_earliest(T, F, self._running_max(), self.P[j], d, self.kernel.now) + d

    def ect_many(self, jobs) -> np.ndarray:
        self._replan_if_stale()
        self._lists()
        starts = {j: self.reservation[j] for j in jobs if j in self.waiting_jobs}
        return self._ect_many_on(self._as_profile(), starts, self.kernel.now, jobs)


BATCH_POLICIES = {"fcfs": FCFSCluster, "cbf": CBFCluster, "easy": EasyCluster}


def make_cluster(name: str, procs: int, speed: float = 1.0, policy: str = "fcfs") -> Cluster:
    """A cluster with the local batch policy ``policy`` (``fcfs``, ``cbf`` or ``easy``)."""
    key = str(policy).lower()
    if key not in BATCH_POLICIES:
        raise InvalidInputError(f"cluster {name!r}: unknown batch policy {policy!r}; choose one of: "
                                f"{', '.join(BATCH_POLICIES)}")
    return BATCH_POLICIES[key](name, procs, speed)
