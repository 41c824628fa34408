"""The submission-order queue and the estimate plan shared by the FCFS and EASY clusters.

Both policies start jobs from the head of a queue in submission order
(:meth:`QueuedCluster._head`) and answer ECT queries from an estimate plan of their
running and waiting jobs planned with requested times (:class:`_EstimatePlan`): FCFS
plans the queue in order, each job no earlier than the previous one
(:attr:`QueuedCluster.plan_in_order`); EASY plans it conservatively. The passes are in
the leaf modules :mod:`vcsched.sim.fcfs` and :mod:`vcsched.sim.easy`.
"""

from __future__ import annotations

import collections
import heapq

import numpy as np

from vcsched.sim.cluster import INF, Cluster, planned_duration
from vcsched.sim.kernel import PRIORITY_PASS
from vcsched.sim.profile import Profile

__all__ = ["QueuedCluster"]


class _Run:
    """Jobs queued or planned together (one bulk submission, one plan rebuild) held as arrays instead of one dict
    entry per job: ``jobs[p]`` with its value ``values[p]`` (a ticket or a planned start; ``nan`` once it left).

    ``pos`` is a sparse index over the job table: ``p = pos[j]`` is job ``j``'s place when ``0 <= p < size`` and
    ``jobs[p] == j`` (the array is never cleared, entries of other jobs are garbage). ``order`` lists the places
    by value (None: the values increase with the place, as tickets and FCFS's planned starts do); ``first`` is
    the first place in that order whose job may still be there.
    """

    __slots__ = ("jobs", "values", "pos", "order", "first", "alive")

    def __init__(self, jobs: np.ndarray, values: np.ndarray, size: int, ordered: bool) -> None:
        m = jobs.size
        self.jobs = jobs
        self.values = np.array(values, dtype=np.float64)
        self.pos = np.empty(max(size, int(jobs.max()) + 1 if m else 0), dtype=np.int64)
        self.pos[jobs] = np.arange(m)
        self.order = None if ordered else np.argsort(self.values, kind="stable")
        self.first = 0
        self.alive = m

    def place(self, j: int) -> int:
        """Job ``j``'s place, or -1 when it is not (or no longer) in the run."""
        if j >= self.pos.size:
            return -1
        p = int(self.pos[j])
        if 0 <= p < self.jobs.size and self.jobs[p] == j and self.values[p] == self.values[p]:
            return p
        return -1

    def get(self, j: int) -> float | None:
        p = self.place(j)
        return None if p < 0 else float(self.values[p])

    def pop(self, j: int) -> float | None:
        """Remove job ``j``; its value, or None when it was not there."""
        p = self.place(j)
        if p < 0:
            return None
        v = float(self.values[p])
        self.values[p] = np.nan
        self.alive -= 1
        return v

    def lookup(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each job of ``rows``: whether it is in the run, and its value there (garbage where it is not)."""
        pos, m = self.pos, self.jobs.size
        if not m:
            return np.zeros(rows.size, dtype=bool), np.zeros(rows.size)
        inside = rows < pos.size
        p = np.where(inside, pos[np.where(inside, rows, 0)], -1)
        ok = (p >= 0) & (p < m)
        p = np.where(ok, p, 0)
        values = self.values[p]
        ok &= (self.jobs[p] == rows) & (values == values)
        return ok, values

    def remove(self, rows: np.ndarray) -> bool:
        """Remove the jobs of ``rows`` that are in the run; whether there was one."""
        ok, _ = self.lookup(rows)
        if not ok.any():
            return False
        self.values[self.pos[rows[ok]]] = np.nan
        self.alive = int(np.count_nonzero(self.values == self.values))
        return True

    def head(self) -> int:
        """The place of the job with the smallest value still there (the first one on ties), or -1."""
        values, order, i = self.values, self.order, self.first
        m = values.size
        if order is None:
            while i < m and values[i] != values[i]:
                i += 1
            self.first = i
            return i if i < m else -1
        while i < m and values[order[i]] != values[order[i]]:
            i += 1
        self.first = i
        return int(order[i]) if i < m else -1

    def live(self) -> np.ndarray:
        """The jobs still there, in place order."""
        return self.jobs[self.values == self.values]


class _EstimatePlan:
    """The estimate plan of an FCFS or EASY cluster (:meth:`QueuedCluster._estimate_plan`), extended job by job.

    :attr:`prof` holds the running jobs until their requested ends and one reservation
    per planned job. The planned start of each planned job still waiting is in ``run``
    (a :class:`_Run` of the jobs planned at once on an empty plan: a rebuild, a bulk
    adoption) or in ``starts`` (the others); a job appended now is planned at its earliest
    slot from ``lower`` (FCFS: the previous job's planned start) or now if later; ``heap``
    holds (planned start, job) of the jobs of ``starts``, to find, with ``run``, the
    earliest planned start of those still waiting.
    """

    __slots__ = ("prof", "starts", "lower", "fcfs", "heap", "run", "size")

    def __init__(self, prof: Profile, now: float, fcfs: bool, size: int = 0) -> None:
        self.prof = prof
        self.starts: dict[int, float] = {}
        self.lower = now
        self.fcfs = fcfs
        self.heap: list[tuple[float, int]] = []
        self.run: _Run | None = None
        self.size = size

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

    def extend(self, jobs, procs: np.ndarray, durations: np.ndarray, now: float) -> None:
        """:meth:`append` for each job in turn, in one compiled loop (:meth:`Profile.reserve_many`; tested equal)."""
        if not len(jobs):
            return
        starts, lower = self.prof.reserve_many(procs, durations, self.lower if self.lower > now else now, now,
                                               self.fcfs)
        self._record(jobs, starts)
        if self.fcfs:
            self.lower = lower

    def adopt(self, jobs, t: np.ndarray, f: np.ndarray, starts) -> None:
        """Take the plan after appending ``jobs`` as computed elsewhere: the profile's steps ``t``, ``f`` and each
        job's planned start (what :meth:`extend` would have given, on a copy of this plan)."""
        self.prof = Profile.from_steps(self.prof.total, t, f)
        self._record(jobs, starts)
        if len(jobs) and self.fcfs:
            self.lower = float(starts[-1])

    def _record(self, jobs, starts) -> None:
        """Record the planned ``starts`` of ``jobs``: as a :class:`_Run` on an empty plan, else one by one."""
        if not self.starts and (self.run is None or not self.run.alive):
            self.run = _Run(np.asarray(jobs, dtype=np.int64), starts, self.size, self.fcfs)
            return
        jobs, starts = np.asarray(jobs).tolist(), np.asarray(starts, dtype=np.float64).tolist()
        self.starts.update(zip(jobs, starts))
        self.heap.extend(zip(starts, jobs))
        heapq.heapify(self.heap)

    def planned_start(self, j: int) -> float | None:
        """The planned start of job ``j`` if it is planned and still waiting, else None."""
        s = self.starts.get(j)
        if s is None and self.run is not None:
            return self.run.get(j)
        return s

    def pop(self, j: int) -> float | None:
        """Forget job ``j`` (it started); its planned start, or None when it was not planned."""
        s = self.starts.pop(j, None)
        if s is None and self.run is not None:
            return self.run.pop(j)
        return s

    def planned(self) -> dict[int, float]:
        """Every planned job still waiting and its planned start."""
        out = {}
        if self.run is not None:
            live = self.run.values == self.run.values
            out.update(zip(self.run.jobs[live].tolist(), self.run.values[live].tolist()))
        out.update(self.starts)
        return out

    def current(self, now: float) -> bool:
        """False when a waiting job's planned start has passed (a rebuild now would plan it later)."""
        heap, starts = self.heap, self.starts
        while heap and heap[0][1] not in starts:
            heapq.heappop(heap)
        if heap and heap[0][0] < now:
            return False
        run = self.run
        if run is not None and run.alive:
            p = run.head()
            return p < 0 or run.values[p] >= now
        return True


class QueuedCluster(Cluster):
    """A cluster whose waiting jobs form one queue in submission order, with an estimate plan for the ECTs.

    Each submission gets a ticket (the count of submissions here); :attr:`_fifo` holds
    (ticket, job) in submission order, for the head of the queue: a dict looked up with
    ``next(iter(...))`` scans the holes its deletions at the front leave, a deque does not
    (entries of jobs that left are dropped when they reach the front, see :meth:`_head`).
    """

    plan_in_order = False
    """Whether the estimate plan puts each job no earlier than the previous one (FCFS)."""

    def _reset(self) -> None:
        self._fifo: collections.deque = collections.deque()
        self._tickets = 0
        self._plan: _EstimatePlan | None = None  # cached estimate plan

    def submit(self, j: int) -> None:
        if self.P[j] > self.procs:
            self._too_wide(j)
        self._tickets += 1
        self.waiting_jobs[j] = self._tickets
        self._fifo.append((self._tickets, j))
        self._on_submit(j)
        if not self._pass_pending:
            self._pass_pending = True
            self.kernel.schedule(self.kernel.now, PRIORITY_PASS, self._pass)

    def cancel(self, j: int) -> bool:
        if j not in self.waiting_jobs:
            return False
        del self.waiting_jobs[j]
        self._on_cancel(j)
        self._request_pass()
        return True

    def _head(self) -> int | None:
        """The first waiting job in submission order (None when none waits)."""
        fifo, waiting = self._fifo, self.waiting_jobs
        while fifo:
            ticket, j = fifo[0]
            if waiting.get(j) == ticket:
                return j
            fifo.popleft()  # started, cancelled, or resubmitted since (a newer ticket)
        return None

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

    def _start(self, j: int) -> None:
        if self._plan is not None:
            self._plan_started(j, self.kernel.now)
        Cluster._start(self, j)

    # ------------------------------------------------------------------ estimates
    def _running_profile(self) -> Profile:
        """The profile of the running jobs until their requested ends (a job past its requested end: until now).

        Plain Python over the running jobs (a handful per cluster on the grid's runs: a dozen numpy calls on
        arrays of five cost more); the numpy form it replaced is kept as the oracle in ``tests/sim``.
        """
        now = self.kernel.now
        running = self.running_jobs
        if not running:
            return Profile(self.procs, now)
        widths = self.P
        released: dict[float, int] = {}
        used = 0
        for j, end in running.items():
            p = widths[j]
            used += p
            if end < now:
                end = now
            released[end] = released.get(end, 0) + p
        ends = sorted(released)
        free = self.procs - used
        t, f = ([now], [free]) if ends[0] > now else ([], [])
        for end in ends:
            free += released[end]
            t.append(end)
            f.append(free)
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
            plan = _EstimatePlan(self._running_profile(), now, self.plan_in_order, self._widths.size)
            rows = self.waiting_rows()
            plan.extend(rows, self._widths[rows], self._planned[rows], now)
            self._plan = plan
        return plan

    def _plan_started(self, j: int, now: float) -> None:
        """Keep the estimate plan when job ``j`` starts on its planned slot (same profile), else drop it."""
        s = self._plan.pop(j)
        req = self.req_here[j]
        if s != now or planned_duration(req) != req:
            self._plan = None

    def ect(self, j: int) -> float:
        plan = self._estimate_plan()
        s = plan.planned_start(j)
        if s is not None:
            return s + planned_duration(self.requested_time(j))
        if self.P[j] > self.procs:
            return INF
        d = planned_duration(self.requested_time(j))
        return plan.earliest(self.P[j], d, max(plan.lower, self.kernel.now)) + d

    def ect_many(self, jobs) -> np.ndarray:
        plan = self._estimate_plan()
        return self._ect_many_on(plan.prof, plan.starts, max(plan.lower, self.kernel.now), jobs, plan.run)

    def resubmission_plan(self) -> tuple[Profile, float, bool]:
        """:meth:`Cluster.resubmission_plan`: the estimate plan (:meth:`_estimate_plan`)."""
        plan = self._estimate_plan()
        now = self.kernel.now
        return plan.prof.copy(), (plan.lower if plan.lower > now else now), plan.fcfs
