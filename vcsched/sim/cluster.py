"""The base batch cluster: job times on the cluster, the queries of the seed's server part, starts and ends.

A cluster has a number of processors, a speed factor and a local batch policy (seed
§3.1: Simbatch simulates FCFS and CBF; EASY is added). It offers the queries that the
seed's server part offers to grid middleware (§2.1, §3.1): submit, cancel a waiting
job, list the waiting jobs and the **estimated completion time** (ECT) of a job,
queued there or not, planned with requested times and the cluster's speed.

Rules of an instant, enforced by the kernel priorities (:mod:`vcsched.sim.kernel`):

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

The policies are leaf modules: :mod:`vcsched.sim.queued` (the submission-order queue and
estimate plan shared by FCFS and EASY), :mod:`vcsched.sim.fcfs`, :mod:`vcsched.sim.easy`,
:mod:`vcsched.sim.cbf`; :mod:`vcsched.sim.batch` holds the registry and
:func:`~vcsched.sim.batch.make_cluster`.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.sim.kernel import PRIORITY_END, PRIORITY_PASS, PRIORITY_REACT, Kernel
from vcsched.sim.profile import Profile

__all__ = ["Cluster", "ClusterContext", "DenseRecords", "planned_duration", "INF"]

INF = float("inf")


def planned_duration(requested: float) -> float:
    """Duration used to plan a job: its requested time, or 1 s when that is 0."""
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


class DenseRecords(Mapping):
    """The records ``job -> date`` of jobs ``0 .. n-1`` held as one array (a read-only mapping): the starts and
    ends that :meth:`vcsched.sim.Grid.run`'s compiled fast path leaves, without a dict entry per job."""

    __slots__ = ("dates",)

    def __init__(self, dates: np.ndarray) -> None:
        self.dates = dates

    def __len__(self) -> int:
        return int(self.dates.size)

    def __iter__(self):
        return iter(range(self.dates.size))

    def __getitem__(self, j: int) -> float:
        if not 0 <= j < self.dates.size:
            raise KeyError(j)
        return float(self.dates[j])


@dataclasses.dataclass(frozen=True)
class ClusterContext:
    """What a cluster needs from the platform it joins (:meth:`Cluster.join`), instead of the platform itself.

    Attributes
    ----------
    kernel : Kernel
        The shared event loop.
    job_id : sequence
        Each job's identifier (for error messages).
    widths : list of int
        Each job's processors.
    run_time, requested_time : ndarray
        Each job's run and requested time at its origin's speed.
    origin_speed : ndarray
        The speed of each job's origin cluster.
    log : callable or None
        ``log(now, event, job, cluster_name)`` for starts and ends, when the platform records an event log.
    """

    kernel: Kernel
    job_id: object
    widths: list
    run_time: np.ndarray
    requested_time: np.ndarray
    origin_speed: np.ndarray
    log: Callable | None = None

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
    The cluster is inert until a platform (:class:`vcsched.sim.platform.Grid`) hands it a
    :class:`ClusterContext` (:meth:`join`): the kernel, the job table's columns and the
    event log; the cluster keeps no reference to the platform. Per-job values are kept in
    Python lists indexed by the job's row in the table, which is much faster than numpy
    scalars in the event loop.

    The cluster records what happens on it: :attr:`started` and :attr:`ended` map each
    job that started (ended) here to its date; the platform reads them (:meth:`records`)
    and asks :meth:`is_waiting` and :meth:`busy`.

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

    # ------------------------------------------------------------------ joining a platform
    def join(self, ctx: ClusterContext, index: int) -> None:
        """Attach to a platform's kernel and job table (called by the platform)."""
        self.index = index
        self.kernel = ctx.kernel
        self._job_id = ctx.job_id
        self._log = ctx.log  # told of starts and ends when the platform records an event log
        self.P = ctx.widths
        # run and requested times of every job on this cluster, precomputed (vectorised) for the event loop
        ratio = ctx.origin_speed / self.speed
        same = ctx.origin_speed == self.speed
        run_here = np.where(same, ctx.run_time, ctx.run_time * ratio)
        req_here = np.where(same, ctx.requested_time, ctx.requested_time * ratio)
        self.times_here = (run_here, req_here)  # as arrays; the lists run_here and req_here are made on first use
        self.__dict__.pop("run_here", None)
        self.__dict__.pop("req_here", None)
        # planned durations (planned_duration) and widths as arrays, for the vectorised ECTs
        self._planned = np.where(req_here > 0, req_here, 1.0)
        self._widths = np.asarray(ctx.widths, dtype=np.int64)
        self.free = self.procs
        self.waiting_jobs: dict[int, int | None] = {}  # waiting jobs in their submission order here
        self.running_jobs: dict[int, float] = {}  # job -> requested end on this cluster
        self.started: dict[int, float] = {}  # job -> its start here
        self.ended: dict[int, float] = {}  # job -> its end here
        self._pass_pending = False
        self._react_pending = False
        self._reset()

    def _reset(self) -> None:
        pass

    def __getattr__(self, name: str):
        """``run_here`` and ``req_here``, each job's run and requested time here as a list for the event loop, are
        made from :attr:`times_here` on first use (a whole run in compiled code never needs them)."""
        if name in ("run_here", "req_here") and "times_here" in self.__dict__:
            value = self.__dict__["times_here"][name == "req_here"].tolist()
            setattr(self, name, value)
            return value
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ job times on this cluster
    def run_time(self, j: int) -> float:
        """Run time of job ``j`` on this cluster (capped at its requested time, scaled by speed)."""
        return self.run_here[j]

    def requested_time(self, j: int) -> float:
        """Requested time (walltime) of job ``j`` on this cluster, scaled by speed."""
        return self.req_here[j]

    def planned_durations(self, jobs: np.ndarray) -> np.ndarray:
        """Planned duration here (:func:`planned_duration` of the speed-scaled requested time) of each job row."""
        return self._planned[jobs]

    # ------------------------------------------------------------------ queries (seed §2.1)
    def waiting(self) -> list[int]:
        """Waiting jobs (rows of the job table) in their submission order on this cluster."""
        return list(self.waiting_jobs)

    def waiting_rows(self) -> np.ndarray:
        """:meth:`waiting` as an array of job rows."""
        return np.fromiter(self.waiting_jobs, dtype=np.int64, count=len(self.waiting_jobs))

    def running(self) -> list[int]:
        return list(self.running_jobs)

    def is_waiting(self, j: int) -> bool:
        """Whether job ``j`` waits here."""
        return j in self.waiting_jobs

    def busy(self) -> bool:
        """Whether some job waits or runs here."""
        return bool(self.waiting_jobs or self.running_jobs)

    def records(self) -> tuple[Mapping, Mapping]:
        """The start and the end of each job that started (ended) here: ``(started, ended)``, job -> date
        (dicts, or :class:`DenseRecords` after a compiled whole run)."""
        return self.started, self.ended

    def _too_wide(self, j: int) -> None:
        raise InvalidInputError(
            f"job {self._job_id[j]} needs {self.P[j]} processors but cluster {self.name!r} has "
            f"{self.procs}; map it to a larger cluster or drop it from the workload")

    @abc.abstractmethod
    def submit(self, j: int) -> None:
        """Submit job ``j`` now (the platform records where and when)."""

    @abc.abstractmethod
    def cancel(self, j: int) -> bool:
        """Cancel waiting job ``j``; False (and nothing done) when it is not waiting here."""

    def cancel_many(self, jobs) -> None:
        """Cancel waiting jobs ``jobs`` (a list or an array of rows): the same as :meth:`cancel` for each (jobs not
        waiting here are ignored)."""
        for j in (jobs.tolist() if isinstance(jobs, np.ndarray) else jobs):
            self.cancel(j)

    def submit_many(self, jobs: list[int]) -> None:
        """Submit ``jobs`` now, in this order: the same as :meth:`submit` for each."""
        for j in jobs:
            self.submit(j)

    @abc.abstractmethod
    def ect(self, j: int) -> float:
        """Estimated completion time of job ``j`` here, whether it is queued here or not."""

    @abc.abstractmethod
    def ect_many(self, jobs: Iterable[int]) -> np.ndarray:
        """ECT of several jobs, each considered alone as if submitted here now (vectorised).

        Jobs queued here get their planned completion time; the others are placed at
        the earliest slot of the current plan without Python loops over them.
        """

    # ------------------------------------------------------------------ planning interface (vcsched.sim.planning)
    def resubmission_plan(self) -> tuple[Profile, float, bool] | None:
        """What a job submitted now is planned on, for the grid's planning snapshot.

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

    def planning_token(self):
        """What :meth:`adopt_plan` checks to know that the plan did not change since a snapshot (None: no adoption)."""
        return None

    def adopt_plan(self, jobs: list[int], t: np.ndarray, f: np.ndarray, starts: list[float], token) -> bool:
        """Submit ``jobs`` now with the plan a :class:`vcsched.sim.planning.PlanningSnapshot` made for them here:
        the profile after their reservations (``t``, ``f``) and their starts. ``token`` is :meth:`planning_token`
        at the snapshot. False (nothing done) when this cluster does not adopt plans or its plan changed since;
        the caller then submits them with :meth:`submit_many`."""
        return False

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
        self.started[j] = now
        if self._log is not None:
            self._log(now, "start", j, self.name)
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
        if self._log is not None:
            self._log(now, "end", j, self.name)
        self._on_end(j, req_end)

    def _on_end(self, j: int, req_end: float) -> None:
        pass

    @abc.abstractmethod
    def _pass(self, _=None) -> None:
        """Start the waiting jobs the policy allows now (one pass of the policy at this instant)."""

    # ------------------------------------------------------------------ estimates
    def _ect_many_on(self, prof: Profile, starts: dict, lower: float, jobs, run=None) -> np.ndarray:
        """ECT of ``jobs`` (iterable or array of rows): planned ``starts`` + duration, else the earliest slot of ``prof``.

        ``run`` (optional, :class:`vcsched.sim.queued._Run`) holds more planned starts, as arrays."""
        rows = jobs if isinstance(jobs, np.ndarray) else np.array(list(jobs), dtype=np.int64)
        d = self._planned[rows]
        queued = _planned_mask(rows, starts, self._widths.size)
        in_run = None
        if run is not None and run.alive:
            in_run, run_starts = run.lookup(rows)
            queued = queued | in_run
        if not queued.any():
            return prof.earliest_many(self._widths[rows], d, lower) + d
        out = np.empty(rows.size)
        if in_run is not None:
            out[in_run] = run_starts[in_run] + d[in_run]
            mine = queued & ~in_run
        else:
            mine = queued
        if mine.any():
            out[mine] = np.array([starts[j] for j in rows[mine].tolist()]) + d[mine]
        other = ~queued
        if other.any():
            out[other] = prof.earliest_many(self._widths[rows[other]], d[other], lower) + d[other]
        return out
