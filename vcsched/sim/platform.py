"""Several batch clusters under a meta-scheduler: the grid platform and the simulation driver.

This reproduces the simulator of the seed paper (§3.1): a *client* part injects the
jobs of the traces (here: arrival events in submission order), a *meta-scheduler* part
maps each arriving job to a cluster and may act periodically, and a *server* part per
cluster answers submit / cancel / list waiting jobs / estimated completion time
(:class:`vcsched.sim.cluster.Cluster`).

The engine never imports a policy: the meta-scheduler is an object passed in that
implements :class:`MetaScheduler` (``heuristics.grid`` provides MCT, the later
reallocation algorithms plug in through :meth:`MetaScheduler.start`, which may
register periodic events with :meth:`Grid.every`). Without a meta-scheduler each job
goes to its origin cluster.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.sim.cluster import Cluster, ClusterContext, DenseRecords
from vcsched.sim.jobs import JobTable
from vcsched.sim.kernel import PRIORITY_ARRIVAL, PRIORITY_PERIODIC, Kernel

if TYPE_CHECKING:
    from vcsched.sim.planning import PlanningSnapshot

__all__ = ["MetaScheduler", "Grid", "SimulationResult", "simulate_grid"]

_INF = float("inf")


class MetaScheduler(Protocol):
    """What the grid engine needs from a meta-scheduler (seed §2.1, §3.1 "meta-scheduler part").

    ``map(grid, job)`` returns the index of the cluster where the arriving job ``job``
    (a row of ``grid.jobs``) is submitted. ``start(grid)`` (optional) is called once
    before the run, e.g. to register periodic reallocation with :meth:`Grid.every`.
    """

    def map(self, grid: Grid, job: int) -> int: ...


@dataclasses.dataclass
class SimulationResult:
    """Outcome of a simulation: per-job columns (rows of ``jobs``) and counters.

    Attributes
    ----------
    jobs : JobTable
    clusters : list of Cluster
    start, finish : ndarray of float
        Start and finish time of each job (``nan`` if it never ran).
    cluster : ndarray of int
        Index of the cluster where the job ran (``-1`` if it never ran).
    submitted_to : ndarray of float
        Time of the last (re)submission of the job to the cluster where it ran.
    resubmissions : ndarray of int
        How many times the job was cancelled and resubmitted (reallocations).
    submission_seq : ndarray of int
        Rank of the job's last (re)submission among every submission of the run, to any
        cluster (``-1`` if never submitted): the order in which jobs entered the queues,
        also between jobs (re)submitted at the same instant.
    events : int
        Kernel events processed (for a run of one FCFS/EASY cluster in the compiled loop,
        :meth:`Grid.run`'s fast path: its scheduling passes).
    log : list of tuple or None
        ``(time, "start"|"end"|"submit"|"cancel", job_id, cluster_name)`` when recorded.
    """

    jobs: JobTable
    clusters: list
    start: np.ndarray
    finish: np.ndarray
    cluster: np.ndarray
    submitted_to: np.ndarray
    resubmissions: np.ndarray
    submission_seq: np.ndarray
    events: int
    log: list | None = None

    def jobs_frame(self):
        """Per-job table with Batsim's ``jobs.csv`` columns (see :mod:`vcsched.sim.output`)."""
        from vcsched.sim.output import jobs_frame

        return jobs_frame(self)

    def metrics(self) -> dict:
        from vcsched.sim.output import metrics

        return metrics(self)


class Grid:
    """Clusters sharing one kernel and one job table; the API a meta-scheduler works with.

    Parameters
    ----------
    clusters : sequence of Cluster
    jobs : JobTable
        ``jobs.origin`` indexes ``clusters``; a job's times are measured at its origin's speed.
    meta : MetaScheduler, optional
        Maps arriving jobs; default: every job to its origin cluster.
    record : bool, default False
        Keep an event log (for tests and small runs).

    Notes
    -----
    The clusters record the starts and ends of their jobs (:meth:`Cluster.records`);
    :attr:`start`, :attr:`finish`, :attr:`where` and :attr:`done` assemble them on request, and :meth:`run` returns them as columns. The grid keeps
    the arrivals, submissions and cancellations itself.
    """

    def __init__(self, clusters: Sequence[Cluster], jobs: JobTable, *, meta: MetaScheduler | None = None,
                 record: bool = False) -> None:
        self.clusters = list(clusters)
        if not self.clusters:
            raise InvalidInputError("a platform needs at least one cluster")
        names = [c.name for c in self.clusters]
        if len(set(names)) != len(names):
            raise InvalidInputError(f"cluster names must be unique, got {names}")
        self.jobs = jobs
        self.meta = meta
        self.kernel = Kernel(start=min(0.0, float(jobs.submit.min())) if len(jobs) else 0.0)
        n = len(jobs)
        origin = jobs.origin.astype(np.int64)
        if n and (origin.min() < 0 or origin.max() >= len(self.clusters)):
            raise InvalidInputError("job origins must index the clusters of the platform")
        self._check_widths()
        speeds = np.array([c.speed for c in self.clusters])
        self.P = jobs.procs.tolist()
        self.origin_speed_array = speeds[origin] if n else np.zeros(0)
        # per-job bookkeeping as arrays (a reallocation event updates tens of thousands of jobs at once)
        self.submitted_at = np.full(n, _INF)
        self.location = np.full(n, -1, dtype=np.int64)  # cluster where the job currently waits or runs
        self.resubmissions = np.zeros(n, dtype=np.int64)
        self.submission_seq = np.full(n, -1, dtype=np.int64)  # rank of the job's last (re)submission
        self._submissions = itertools.count()
        self.log: list | None = [] if record else None
        self._submit_list = jobs.submit.tolist()
        self._origin_list = origin.tolist()
        self._next = 0
        self.arrived = 0
        self._snapshot = None  # the last planning snapshot, until the next submission or cancellation
        ctx = ClusterContext(self.kernel, jobs.job_id, self.P, jobs.run_time, jobs.requested_time,
                             self.origin_speed_array, None if self.log is None else self._log_run_event)
        for k, c in enumerate(self.clusters):
            c.join(ctx, k)

    @property
    def run_times(self) -> list[float]:
        """Each job's run time at its origin's speed."""
        return self.jobs.run_time.tolist()

    @property
    def req_times(self) -> list[float]:
        """Each job's requested time at its origin's speed."""
        return self.jobs.requested_time.tolist()

    @property
    def origin_speed(self) -> list[float]:
        """The speed of each job's origin cluster."""
        return self.origin_speed_array.tolist()

    def _check_widths(self) -> None:
        if not len(self.jobs):
            return
        widest = max(c.procs for c in self.clusters)
        too_wide = np.flatnonzero(self.jobs.procs > widest)
        if too_wide.size:
            k = int(too_wide[0])
            raise InvalidInputError(
                f"job {self.jobs.job_id[k]} needs {int(self.jobs.procs[k])} processors but the largest cluster has "
                f"{widest} ({too_wide.size} such job(s)); enlarge a cluster (--procs) or drop these jobs")
        if self.meta is None:
            cap = np.array([c.procs for c in self.clusters])[self.jobs.origin]
            bad = np.flatnonzero(self.jobs.procs > cap)
            if bad.size:
                k = int(bad[0])
                c = self.clusters[int(self.jobs.origin[k])]
                raise InvalidInputError(
                    f"job {self.jobs.job_id[k]} needs {int(self.jobs.procs[k])} processors but its cluster "
                    f"{c.name!r} has {c.procs}; enlarge the cluster or use a meta-scheduler (\"meta\": \"mct\")")

    # ------------------------------------------------------------------ meta-scheduler API (seed §2.1)
    @property
    def now(self) -> float:
        return self.kernel.now

    def waiting(self, cluster: int | None = None) -> list[int]:
        """Waiting jobs of one cluster, or of every cluster (in cluster order) when ``cluster`` is None."""
        if cluster is not None:
            return self.clusters[cluster].waiting()
        out: list[int] = []
        for c in self.clusters:
            out.extend(c.waiting())
        return out

    def waiting_rows(self) -> np.ndarray:
        """:meth:`waiting` of every cluster as one array of job rows (in cluster order)."""
        parts = [c.waiting_rows() for c in self.clusters]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def ect(self, job: int, cluster: int) -> float:
        """Estimated completion time of ``job`` on ``cluster`` (queued there or not); ``inf`` if too wide."""
        c = self.clusters[cluster]
        if self.P[job] > c.procs:
            return _INF
        return c.ect(job)

    def ect_all(self, job: int) -> np.ndarray:
        """ECT of one job on every cluster (``inf`` where it does not fit)."""
        return np.array([self.ect(job, k) for k in range(len(self.clusters))])

    def ect_matrix(self, jobs: Sequence[int]) -> np.ndarray:
        """ECT of many jobs on every cluster, shape ``(len(jobs), n_clusters)``, one vectorised call per cluster.

        Each entry considers the job alone: its planned completion where it is queued,
        else the completion if it were submitted there now.
        """
        jobs = list(jobs)
        out = np.full((len(jobs), len(self.clusters)), _INF)
        if not jobs:
            return out
        procs = np.array([self.P[j] for j in jobs])
        for k, c in enumerate(self.clusters):
            fits = procs <= c.procs
            if fits.any():
                sel = [j for j, f in zip(jobs, fits) if f]
                out[fits, k] = c.ect_many(sel)
        return out

    def current_cluster(self, job: int) -> int:
        """Cluster where ``job`` waits or runs (``-1`` before its arrival)."""
        return int(self.location[job])

    def submit(self, job: int, cluster: int) -> None:
        """Submit ``job`` to ``cluster`` now (an arrival, or a resubmission after a cancel)."""
        c = self.clusters[cluster]
        self._snapshot = None
        k = int(self.location[job])
        if k >= 0 and self.clusters[k].is_waiting(job):
            raise self._already_waiting(job)
        c.submit(job)
        if k >= 0:
            self.resubmissions[job] += 1
        self.location[job] = cluster
        self.submitted_at[job] = self.kernel.now
        self.submission_seq[job] = next(self._submissions)
        if self.log is not None:
            self.log.append((self.kernel.now, "submit", self.jobs.job_id[job], c.name))

    def cancel(self, job: int) -> bool:
        """Cancel ``job`` if it is waiting somewhere; True when it was."""
        k = int(self.location[job])
        if k < 0:
            return False
        self._snapshot = None
        ok = self.clusters[k].cancel(job)
        if ok and self.log is not None:
            self.log.append((self.kernel.now, "cancel", self.jobs.job_id[job], self.clusters[k].name))
        return ok

    def cancel_many(self, jobs: Sequence[int]) -> None:
        """Cancel every job of ``jobs`` that waits somewhere: the same as :meth:`cancel` for each, in this order."""
        self._snapshot = None
        if self.log is not None:
            for j in jobs:
                self.cancel(j)
            return
        rows = np.asarray(jobs, dtype=np.int64)
        for k, part in self._by_cluster(rows, self.location[rows]):
            if k >= 0:
                self.clusters[k].cancel_many(part)

    def submit_many(self, jobs: Sequence[int], clusters: Sequence[int]) -> None:
        """Submit ``jobs[i]`` to ``clusters[i]`` now, in this order: the same as :meth:`submit` for each (tested),
        with the bookkeeping done once per cluster. A job given twice in one call is refused
        (:class:`~vcsched.errors.InvalidInputError`), as :meth:`submit` refuses its second submission.

        When these are exactly the reservations made on the last :meth:`planning_snapshot`
        (same jobs, clusters and order, nothing submitted or cancelled since), a cluster
        whose plan did not change adopts the snapshot's plan instead of planning the jobs
        again (:meth:`Cluster.adopt_plan`).
        """
        rows, where = np.asarray(jobs, dtype=np.int64).ravel(), np.asarray(clusters, dtype=np.int64).ravel()
        snap, self._snapshot = self._snapshot, None
        if self.log is not None:
            for j, k in zip(rows.tolist(), where.tolist()):
                self.submit(j, k)
            return
        self._refuse_waiting(rows)
        if rows.size and np.bincount(rows).max() > 1:
            raise InvalidInputError("submit_many: a job appears twice in one call; submit each job once")
        now = self.kernel.now
        base = next(self._submissions)
        self.resubmissions[rows[self.location[rows] >= 0]] += 1
        self.location[rows] = where
        self.submitted_at[rows] = now
        self.submission_seq[rows] = np.arange(base, base + rows.size)
        self._submissions = itertools.count(base + rows.size)
        adopt = snap is not None and snap.state.now == now and _same_submissions(snap, rows, where)
        for k, part in self._by_cluster(rows, where):
            c = self.clusters[k]
            if not (adopt and c.adopt_plan(part, *snap.cluster_plan(k), snap.tokens[k])):
                c.submit_many(part.tolist())

    def planning_snapshot(self, jobs: Sequence[int]) -> PlanningSnapshot | None:
        """A :class:`vcsched.sim.planning.PlanningSnapshot` of every cluster for ``jobs`` (rows of the job table),
        or None when a cluster does not offer a :meth:`Cluster.resubmission_plan`.

        Valid until the next submission, cancellation or event: plan on it, then submit the
        reserved jobs in their order with :meth:`submit_many`.
        """
        from vcsched.sim.planning import PlanningSnapshot

        plans = [c.resubmission_plan() for c in self.clusters]
        if any(p is None for p in plans):
            return None
        rows = np.asarray(jobs, dtype=np.int64)
        durations = np.empty((rows.size, len(self.clusters)))
        for k, c in enumerate(self.clusters):
            durations[:, k] = c.planned_durations(rows)
        totals = np.array([c.procs for c in self.clusters], dtype=np.int64)
        widths = np.asarray(self.jobs.procs[rows], dtype=np.int64)
        snap = PlanningSnapshot(rows, plans, durations, widths, totals, self.kernel.now,
                                [c.planning_token() for c in self.clusters])
        self._snapshot = snap
        return snap

    def _refuse_waiting(self, rows: np.ndarray) -> None:
        """Raise :meth:`submit`'s error for the first of ``rows`` (array of jobs) that is already waiting somewhere."""
        busy = [waiting for waiting in (c.waiting() for c in self.clusters) if waiting]
        if not busy:
            return
        clash = np.isin(rows, np.concatenate([np.asarray(w, dtype=np.int64) for w in busy]))
        if clash.any():
            raise self._already_waiting(int(rows[np.argmax(clash)]))

    def _already_waiting(self, job: int) -> InvalidInputError:
        return InvalidInputError(f"job {self.jobs.job_id[job]} is already waiting on "
                                 f"{self.clusters[self.location[job]].name!r}; cancel it first")

    @staticmethod
    def _by_cluster(rows: np.ndarray, where: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """Jobs ``rows`` split by cluster (``where``), each part in the jobs' order, the parts in order of first
        appearance (arrays in, arrays out)."""
        if not rows.size:
            return []
        present = np.flatnonzero(np.bincount(where + 1)) - 1  # a grid has a few clusters (-1: nowhere yet)
        firsts = [int(np.argmax(where == k)) for k in present.tolist()]
        keys = present[np.argsort(firsts)].tolist()  # in order of first appearance
        if len(keys) == 1:
            return [(int(keys[0]), rows)]
        return [(int(k), rows[where == k]) for k in keys]

    def every(self, period: float, callback: Callable[[Grid], None], *, first: float | None = None) -> None:
        """Call ``callback(grid)`` every ``period`` seconds (at ``PRIORITY_PERIODIC``) while :meth:`active`.

        The first call is at ``first`` (default: one period from now). Periodic events run
        after the ends and the CBF re-plans of their instant and before its arrivals.
        """
        if not period > 0:
            raise InvalidInputError(f"period must be positive, got {period}")
        t0 = self.kernel.now + period if first is None else first

        def tick(_=None) -> None:
            if not self.active():
                return
            callback(self)
            self.kernel.schedule(self.kernel.now + period, PRIORITY_PERIODIC, tick)

        self.kernel.schedule(t0, PRIORITY_PERIODIC, tick)

    def active(self) -> bool:
        """True while some job has still to arrive, or waits or runs on a cluster."""
        if self.arrived < len(self.jobs):
            return True
        return any(c.busy() for c in self.clusters)

    # ------------------------------------------------------------------ starts and ends (recorded by the clusters)
    def _log_run_event(self, now: float, event: str, j: int, cluster: str) -> None:
        """Append ``(now, event, job id, cluster name)`` to the event log (the clusters' ``log`` when recording)."""
        self.log.append((now, event, self.jobs.job_id[j], cluster))

    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start, finish (``inf`` when not reached) and cluster (``-1``) of every job, from the clusters' records."""
        n = len(self.jobs)
        start, finish = np.full(n, _INF), np.full(n, _INF)
        where = np.full(n, -1, dtype=np.int64)
        for k, c in enumerate(self.clusters):
            started, ended = c.records()
            if isinstance(started, DenseRecords) and isinstance(ended, DenseRecords):
                start[:started.dates.size], finish[:ended.dates.size], where[:started.dates.size] = \
                    started.dates, ended.dates, k
                continue
            if started:
                rows = np.fromiter(started, dtype=np.int64, count=len(started))
                start[rows] = np.fromiter(started.values(), dtype=np.float64, count=rows.size)
                where[rows] = k
            if ended:
                rows = np.fromiter(ended, dtype=np.int64, count=len(ended))
                finish[rows] = np.fromiter(ended.values(), dtype=np.float64, count=rows.size)
        return start, finish, where

    @property
    def start(self) -> list[float]:
        """Start of each job so far (``inf``: not started), assembled from the clusters' records."""
        return self._columns()[0].tolist()

    @property
    def finish(self) -> list[float]:
        """End of each job so far (``inf``: not ended)."""
        return self._columns()[1].tolist()

    @property
    def where(self) -> list[int]:
        """Cluster where each job started (``-1``: not started)."""
        return self._columns()[2].tolist()

    @property
    def done(self) -> int:
        """Number of jobs ended so far."""
        return sum(len(c.records()[1]) for c in self.clusters)

    # ------------------------------------------------------------------ arrivals
    def _arrive(self, _=None) -> None:
        """All jobs submitted at this instant arrive, in submission order; then the next instant is scheduled."""
        subs = self._submit_list
        n = len(subs)
        i = self._next
        now = subs[i]
        meta = self.meta
        if meta is None and self.log is None:  # fast path: every job to its origin cluster
            origin, clusters, location, submitted_at = self._origin_list, self.clusters, self.location, self.submitted_at
            seq, counter = self.submission_seq, self._submissions
            while i < n and subs[i] == now:
                k = origin[i]
                clusters[k].submit(i)
                location[i] = k
                submitted_at[i] = now
                seq[i] = next(counter)
                i += 1
        else:
            origin = self._origin_list
            while i < n and subs[i] == now:
                k = origin[i] if meta is None else int(meta.map(self, i))
                self.submit(i, k)
                i += 1
        self._next = i
        self.arrived = i
        if i < n:
            self.kernel.schedule(subs[i], PRIORITY_ARRIVAL, self._arrive)

    def run(self, *, progress: Callable[[int], None] | None = None, chunks: int = 200) -> SimulationResult:
        """Simulate until every job has finished.

        Parameters
        ----------
        progress : callable, optional
            Called with the number of finished jobs, about ``chunks`` times over the run.
        """
        if self._run_whole():
            if progress is not None:
                progress(self.done)
            return self._result()
        kernel = self.kernel
        if len(self.jobs):
            kernel.schedule(self._submit_list[0], PRIORITY_ARRIVAL, self._arrive)
        start = getattr(self.meta, "start", None)
        if start is not None:
            start(self)
        if progress is None or not len(self.jobs):
            kernel.run()
        else:
            t0, t1 = self._submit_list[0], self._submit_list[-1]
            step = max((t1 - t0) / chunks, 1.0)
            t = t0
            while len(kernel):
                t += step
                kernel.run(until=t if t < t1 else None)
                progress(self.done)
        return self._result()

    WHOLE_RUN_FROM = 100_000
    """Fewest jobs for which :meth:`run` runs one FCFS/EASY cluster in numba's compiled loop
    (:mod:`vcsched.sim.whole_run`) when the C extension is absent; below, numba's start-up in a fresh process
    costs more than the loop saves."""
    WHOLE_RUN_C_FROM = 10_000
    """Fewest jobs for which :meth:`run` runs one FCFS/EASY cluster in the C extension's loop (:mod:`vcsched.native`,
    no start-up cost); below, the event loop takes under a tenth of a second and stays the path of small runs."""

    def _run_whole(self) -> bool:
        """The fast path of :meth:`run`: one FCFS or EASY cluster, no meta-scheduler, no event log, nothing
        scheduled, at least :attr:`WHOLE_RUN_C_FROM` jobs with the C extension or :attr:`WHOLE_RUN_FROM` with
        numba. Runs ``simulate_one`` (the C extension's, else :func:`vcsched.sim.whole_run.simulate_one`: the
        same rule) and leaves the records the event loop would (starts, ends, EASY's head reservations,
        submissions)."""
        from vcsched.native import speedups
        from vcsched.sim.easy import EasyCluster
        from vcsched.sim.fcfs import FCFSCluster

        n = len(self.jobs)
        c = self.clusters[0]
        loop = speedups()
        least = self.WHOLE_RUN_C_FROM if loop is not None else self.WHOLE_RUN_FROM
        if (len(self.clusters) != 1 or type(c) not in (FCFSCluster, EasyCluster) or self.meta is not None
                or self.log is not None or len(self.kernel) or self._next or n < max(least, 1)):
            return False
        procs = np.asarray(self.jobs.procs, dtype=np.int64)
        if loop is None:
            from vcsched.sim import whole_run

            loop = whole_run
        start, finish, head = np.empty(n), np.empty(n), np.full(n, np.nan)
        easy = type(c) is EasyCluster
        passes = loop.simulate_one(np.ascontiguousarray(self.jobs.submit, dtype=np.float64),
                                   *(np.ascontiguousarray(t, dtype=np.float64) for t in c.times_here),
                                   np.ascontiguousarray(procs), c.procs, easy, start, finish, head)
        c.started, c.ended = DenseRecords(start), DenseRecords(finish)
        if easy:
            blocked = np.flatnonzero(~np.isnan(head))
            c.head_reservations.update(zip(blocked.tolist(), head[blocked].tolist()))
        self.location = np.zeros(n, dtype=np.int64)
        self.submitted_at = np.array(self.jobs.submit, dtype=np.float64)
        self.submission_seq = np.arange(n)
        self._submissions = itertools.count(n)
        self._next = self.arrived = n
        self.kernel.now = float(finish.max())
        self.kernel.processed = int(passes)
        return True

    def _result(self) -> SimulationResult:
        start, finish, where = self._columns()
        start[np.isinf(start)] = np.nan
        finish[np.isinf(finish)] = np.nan
        sub = np.array(self.submitted_at, dtype=np.float64)
        sub[np.isinf(sub)] = np.nan
        return SimulationResult(jobs=self.jobs, clusters=self.clusters, start=start, finish=finish,
                                cluster=where, submitted_to=sub,
                                resubmissions=np.array(self.resubmissions, dtype=np.int64),
                                submission_seq=np.array(self.submission_seq, dtype=np.int64),
                                events=self.kernel.processed, log=self.log)


def _same_submissions(snap, rows: np.ndarray, clusters: np.ndarray) -> bool:
    """Whether jobs ``rows`` submitted to ``clusters`` are exactly the reservations made on ``snap``, in order."""
    done, where, _ = snap.reservations()
    return done.size == rows.size and bool((done == rows).all()) and bool((where == clusters).all())


def simulate_grid(clusters: Sequence[Cluster], jobs: JobTable, *, meta: MetaScheduler | None = None,
                  record: bool = False, progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Simulate ``jobs`` on batch ``clusters`` (see :class:`Grid`); returns a :class:`SimulationResult`.

    The time-shared simulator is :func:`vcsched.sim.timeshare.simulate_timeshare`.

    Examples
    --------
    >>> from vcsched.problems.workload import from_arrays
    >>> from vcsched.sim import JobTable, make_cluster, simulate_grid
    >>> w = from_arrays([0, 0, 1], [10, 5, 2], [10, 5, 2], [60, 60, 40])
    >>> r = simulate_grid([make_cluster("c", 100, policy="easy")], JobTable.from_workloads([w]))
    >>> r.start.tolist(), r.finish.tolist()
    ([0.0, 10.0, 1.0], [10.0, 15.0, 3.0])
    """
    return Grid(clusters, jobs, meta=meta, record=record).run(progress=progress)
