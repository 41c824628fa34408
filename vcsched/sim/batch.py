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
import collections
import heapq
from collections.abc import Iterable

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.sim.kernel import PRIORITY_END, PRIORITY_PASS, PRIORITY_REACT
from vcsched.sim.profile import Profile

__all__ = ["Cluster", "FCFSCluster", "EasyCluster", "CBFCluster", "CBFQueue", "BATCH_POLICIES", "make_cluster",
           "planned_duration"]

_INF = float("inf")


def planned_duration(requested: float) -> float:
    """Duration used to plan a job: its requested time, or 1 s when that is 0 (issue 10)."""
    return requested if requested > 0 else 1.0


_TABLE_FROM = 256  # from this many rows, a look-up table beats one dict look-up per row


def _planned_mask(rows: np.ndarray, starts: dict, size: int) -> np.ndarray:
    """Which of ``rows`` (array of job rows, all below ``size``) are keys of ``starts`` (have a planned start)."""
    if not starts:
        return np.zeros(rows.size, dtype=bool)
    if rows.size < _TABLE_FROM:
        return np.fromiter(map(starts.__contains__, rows.tolist()), dtype=bool, count=rows.size)
    table = np.zeros(size, dtype=bool)
    table[np.fromiter(starts, dtype=np.int64, count=len(starts))] = True
    return table[rows]


class _EstimatePlan:
    """The estimate plan of an FCFS or EASY cluster (:meth:`Cluster._estimate_plan`), extended job by job.

    :attr:`prof` holds the running jobs until their requested ends and one reservation
    per planned job. ``starts`` maps each planned job still waiting to its planned
    start; a job appended now is planned at its earliest slot from ``lower`` (FCFS: the
    previous job's planned start) or now if later; ``heap`` holds (planned start, job)
    of the planned jobs, to find the earliest planned start of those still waiting.
    """

    __slots__ = ("prof", "starts", "lower", "fcfs", "heap")

    def __init__(self, prof: Profile, now: float, fcfs: bool) -> None:
        self.prof = prof
        self.starts: dict[int, float] = {}
        self.lower = now
        self.fcfs = fcfs
        self.heap: list[tuple[float, int]] = []

    def earliest(self, p: int, d: float, not_before: float) -> float:
        """Earliest start from ``not_before`` of a job (width ``p``, duration ``d``) on the plan."""
        return self.prof.earliest(p, d, not_before)

    def append(self, j: int, p: int, d: float, now: float) -> None:
        """Plan job ``j`` (width ``p``, planned duration ``d``) after every job already planned."""
        s = self.prof.reserve_earliest(p, d, self.lower if self.lower > now else now, now)
        self.starts[j] = s
        heapq.heappush(self.heap, (s, j))
        if self.fcfs:
            self.lower = s

    def extend(self, jobs: list[int], procs: np.ndarray, durations: np.ndarray, now: float) -> None:
        """:meth:`append` for each job in turn, in one compiled loop (:meth:`Profile.reserve_many`; tested equal)."""
        if not jobs:
            return
        starts, lower = self.prof.reserve_many(procs, durations, self.lower if self.lower > now else now, now,
                                               self.fcfs)
        starts = starts.tolist()
        self.starts.update(zip(jobs, starts))
        self.heap.extend(zip(starts, jobs))
        heapq.heapify(self.heap)
        if self.fcfs:
            self.lower = lower

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

    The cluster records what happens on it: :attr:`started` and :attr:`ended` map each
    job that started (ended) here to its date; the grid assembles its per-job columns
    from them and is told of starts and ends only to log them (:meth:`Grid.log_event`,
    when recording). The cluster never writes into the grid's state.

    Subclasses keep their instance attributes few (at most 30 in all): CPython 3.11
    stores the attributes of instances with more in a slower dictionary layout, which
    costs about 5 % of a whole-trace EASY run.
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
        self._recording = grid.log is not None  # tell the grid's event log about starts and ends
        self.P = grid.P
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
        # waiting jobs in their submission order here, each with its ticket (the count of submissions here)
        self.waiting_jobs: dict[int, int | None] = {}
        # (ticket, job) in submission order, for the head of the queue: a dict looked up with next(iter(...))
        # scans the holes its deletions at the front leave, a deque does not (entries of jobs that left are
        # dropped when they reach the front, see _head)
        self._fifo: collections.deque = collections.deque()
        self._tickets = 0
        self.running_jobs: dict[int, float] = {}  # job -> requested end on this cluster
        self.started: dict[int, float] = {}  # job -> its start here (the grid assembles the per-job columns)
        self.ended: dict[int, float] = {}  # job -> its end here
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
        self._tickets += 1
        self.waiting_jobs[j] = self._tickets
        self._fifo.append((self._tickets, j))
        self._on_submit(j)
        if not self._pass_pending:
            self._pass_pending = True
            self.kernel.schedule(self.kernel.now, PRIORITY_PASS, self._pass)

    def _head(self) -> int | None:
        """The first waiting job in submission order (None when none waits)."""
        fifo, waiting = self._fifo, self.waiting_jobs
        while fifo:
            ticket, j = fifo[0]
            if waiting.get(j) == ticket:
                return j
            fifo.popleft()  # started, cancelled, or resubmitted since (a newer ticket)
        return None

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

    def cancel_many(self, jobs: list[int]) -> None:
        """Cancel waiting jobs ``jobs``: the same as :meth:`cancel` for each (jobs not waiting here are ignored)."""
        for j in jobs:
            self.cancel(j)

    def submit_many(self, jobs: list[int]) -> None:
        """Submit ``jobs`` now, in this order: the same as :meth:`submit` for each."""
        for j in jobs:
            self.submit(j)

    def adopt_plan(self, jobs: list[int], t: np.ndarray, f: np.ndarray, starts: list[float], token) -> bool:
        """Submit ``jobs`` now with the plan a :class:`vcsched.sim.planning.PlanningSnapshot` made for them here:
        the profile after their reservations (``t``, ``f``) and their starts. ``token`` is :meth:`planning_token`
        at the snapshot. False (nothing done) when this cluster does not adopt plans or its plan changed since;
        the caller then submits them with :meth:`submit_many`."""
        return False

    def planning_token(self):
        """What :meth:`adopt_plan` checks to know that the plan did not change since a snapshot (None: no adoption)."""
        return None

    @abc.abstractmethod
    def ect(self, j: int) -> float:
        """Estimated completion time of job ``j`` here, whether it is queued here or not."""

    @abc.abstractmethod
    def ect_many(self, jobs: Iterable[int]) -> np.ndarray:
        """ECT of several jobs, each considered alone as if submitted here now (vectorised).

        Jobs queued here get their planned completion time; the others are placed at
        the earliest slot of the current plan without Python loops over them.
        """

    def planned_durations(self, jobs: np.ndarray) -> np.ndarray:
        """Planned duration here (:func:`planned_duration` of the speed-scaled requested time) of each job row."""
        return self._planned[jobs]

    def resubmission_plan(self) -> tuple[Profile, float, bool] | None:
        """What a job submitted now is planned on, for a meta-scheduler that replays submissions in bulk.

        Returns ``(profile, lower, advances)``: a copy of the profile a submission now
        reserves its slot on, the lower bound of that slot's start (never before now),
        and whether each submission raises that bound to its own start (FCFS). While no
        job starts, ends or is cancelled here, submitting job ``j`` reserves
        ``profile.reserve_earliest(width, d, lower, now)`` (``d`` from
        :meth:`planned_durations`), and the ECT of a job that is not queued here is
        ``profile.earliest(width, d, lower) + d`` (``inf`` if wider than the cluster).
        ``None`` when the cluster plans otherwise (the base class).
        """
        return None

    def _estimate_resubmission_plan(self) -> tuple[Profile, float, bool]:
        """:meth:`resubmission_plan` of the FCFS and EASY clusters: their estimate plan (:meth:`_estimate_plan`)."""
        plan = self._estimate_plan()
        now = self.kernel.now
        return plan.prof.copy(), (plan.lower if plan.lower > now else now), plan.fcfs

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
        self.started[j] = now
        if self._recording:
            self.grid.log_event(now, "start", j, self)
        kernel.schedule(now + self.run_here[j], PRIORITY_END, self._end, j)

    def _end(self, j: int) -> None:
        self._finish(j)
        if not self._pass_pending:
            self._pass_pending = True
            self.kernel.schedule(self.kernel.now, PRIORITY_PASS, self._pass)

    def _finish(self, j: int) -> None:
        """Job ``j`` ends now: free its processors, record the end (:attr:`ended`), call :meth:`_on_end`."""
        self.free += self.P[j]
        req_end = self.running_jobs.pop(j)
        now = self.kernel.now
        self.ended[j] = now
        if self._recording:
            self.grid.log_event(now, "end", j, self)
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
        """The profile of the running jobs until their requested ends (a job past its requested end: until now)."""
        now = self.kernel.now
        if not self.running_jobs:
            return Profile(self.procs, now)
        ends = np.fromiter(self.running_jobs.values(), dtype=np.float64, count=len(self.running_jobs))
        procs = np.fromiter((self.P[j] for j in self.running_jobs), dtype=np.int64, count=len(self.running_jobs))
        ends = np.maximum(ends, now)
        order = np.argsort(ends, kind="stable")
        ends, procs = ends[order], procs[order]
        uniq, first = np.unique(ends, return_index=True)
        released = np.add.reduceat(procs, first)
        used = int(procs.sum())
        cum = np.cumsum(released)
        if uniq[0] > now:
            t = np.concatenate(([now], uniq))
            f = np.concatenate(([self.procs - used], self.procs - used + cum))
        else:
            t = uniq.copy()
            f = self.procs - used + cum
        t[0] = now
        return Profile.from_steps(self.procs, t, f)

    def _estimate_plan(self) -> _EstimatePlan:
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
            queue = list(self.waiting_jobs)
            rows = np.array(queue, dtype=np.int64)
            plan.extend(queue, self._widths[rows], self._planned[rows], now)
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
        queued = _planned_mask(rows, starts, self._widths.size)
        if not queued.any():
            return prof.earliest_many(self._widths[rows], d, lower) + d
        out = np.empty(rows.size)
        out[queued] = np.array([starts[j] for j in rows[queued].tolist()]) + d[queued]
        other = ~queued
        if other.any():
            out[other] = prof.earliest_many(self._widths[rows[other]], d[other], lower) + d[other]
        return out


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
            j = self._head()
            if P[j] > self.free:
                break
            del waiting[j]
            self._fifo.popleft()
            self._start(j)

    def ect(self, j: int) -> float:
        return self._plan_ect(j)

    def ect_many(self, jobs) -> np.ndarray:
        return self._plan_ect_many(jobs)

    def resubmission_plan(self) -> tuple[Profile, float, bool]:
        return self._estimate_resubmission_plan()

    def cancel_many(self, jobs: list[int]) -> None:
        """:meth:`Cluster.cancel_many` with one plan drop and one pass request (FCFS's cancellation hook only drops
        the plan)."""
        waiting = self.waiting_jobs
        gone = [j for j in jobs if j in waiting]
        for j in gone:
            del waiting[j]
        if not waiting:
            self._fifo.clear()  # every entry is stale (what _head would drop one by one)
        if gone:
            self._plan = None
            self._request_pass()

    def planning_token(self):
        return (self._plan, self._tickets)

    def adopt_plan(self, jobs: list[int], t: np.ndarray, f: np.ndarray, starts: list[float], token) -> bool:
        """:meth:`Cluster.adopt_plan`: what one :meth:`submit` per job would do, with the planning done.

        Each job gets the next ticket and goes to the end of the queue, and the estimate
        plan, the one the snapshot copied (:meth:`resubmission_plan` made it current, and
        the token says it is still this plan with no submission since), takes the
        snapshot's profile, the jobs' planned starts, and the lower bound of the next one
        (the last start). Tested equal to one submission per job.
        """
        est = self._plan
        if est is None or token is None or token[0] is not est or token[1] != self._tickets:
            return False
        P, procs = self.P, self.procs
        if jobs and max(map(P.__getitem__, jobs)) > procs:
            self._too_wide(next(j for j in jobs if P[j] > procs))
        t0 = self._tickets
        tickets = range(t0 + 1, t0 + 1 + len(jobs))
        self.waiting_jobs.update(zip(jobs, tickets))
        self._fifo.extend(zip(tickets, jobs))
        self._tickets = t0 + len(jobs)
        est.prof = Profile.from_steps(self.procs, t, f)
        est.starts.update(zip(jobs, starts))
        est.heap.extend(zip(starts, jobs))
        heapq.heapify(est.heap)
        if jobs:
            est.lower = starts[-1]
            self._request_pass()
        return True


# conservative backfilling (CBFQueue, CBFCluster) lives in vcsched.sim.cbf and EASY (EasyCluster) in
# vcsched.sim.easy; imported here, below Cluster, so that every batch policy is reachable from this module
# and from BATCH_POLICIES
from vcsched.sim.cbf import CBFCluster, CBFQueue  # noqa: E402
from vcsched.sim.easy import EasyCluster  # noqa: E402

BATCH_POLICIES = {"fcfs": FCFSCluster, "cbf": CBFCluster, "easy": EasyCluster}


def make_cluster(name: str, procs: int, speed: float = 1.0, policy: str = "fcfs") -> Cluster:
    """A cluster with the local batch policy ``policy`` (``fcfs``, ``cbf`` or ``easy``)."""
    key = str(policy).lower()
    if key not in BATCH_POLICIES:
        raise InvalidInputError(f"cluster {name!r}: unknown batch policy {policy!r}; choose one of: "
                                f"{', '.join(BATCH_POLICIES)}")
    return BATCH_POLICIES[key](name, procs, speed)
