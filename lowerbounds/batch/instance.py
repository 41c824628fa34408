"""The clairvoyant offline relaxation of batch clusters and grids (seed 000 §2.2, §3.1-3.4).

:class:`BatchInstance` is the problem every bound of :mod:`lowerbounds.batch` bounds:
each job ``j`` (submission ``r_j``, width ``q_j``) runs once, without interruption, on
one cluster ``k`` where it fits (``q_j <= m_k``), for ``p_jk`` seconds, starting no earlier
than ``r_j``; at no time does a cluster use more than its ``m_k`` processors. Everything is
known in advance.

It is built from the simulator's own objects (:func:`batch_instance`): a
:class:`vcsched.sim.JobTable` and the list of clusters given to
:func:`vcsched.sim.simulate_grid`. The duration on a cluster is computed exactly as
``Cluster.bind`` computes ``run_here``: the job's run time (already
``min(run time, requested time)``: a job whose run time exceeds its requested time is
killed at its walltime, :attr:`vcsched.problems.workload.Workload.effective_run_time`)
times ``speed(origin) / speed(k)``, or the run time itself when the two speeds are equal.

Why every simulated schedule is feasible here: the simulator starts a job only after its
arrival, on one cluster, with its processors free (a cluster never runs more than its
processors), keeps it running for ``run_here`` and never interrupts it (reallocation
cancels *waiting* jobs only; a cancelled job is resubmitted, never restarted). So each
run of FCFS, EASY, CBF, MCT and reallocation (Algorithms 1 and 2 with any heuristic) is
a feasible schedule of this problem, and a lower bound on its optimum bounds each of them.

Metrics (identical to :func:`vcsched.sim.output.metrics`): makespan ``max C - min r``,
mean response time ``mean(C - r)``, mean bounded slowdown
``mean(max(1, (C - r) / max(p, tau)))`` with ``tau = 10`` s and ``p`` the execution time
on the cluster where the job ran (``finish - start``), and max stretch
``max (C - r) / p`` over the jobs with ``p > 0`` (a job of zero execution time has no
stretch). :func:`schedule_metrics` computes them for a schedule of this problem.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.names.grid import REFERENCE_METRICS
from vcsched.sim.jobmetrics import BSLD_TAU, bounded_slowdown, max_stretch

__all__ = ["BatchInstance", "batch_instance", "schedule_metrics", "check_batch_schedule", "BSLD_TAU",
           "bounded_slowdown", "METRICS", "SIMULATOR_METRIC"]


METRICS = REFERENCE_METRICS
SIMULATOR_METRIC = {"makespan": "makespan", "mean_response": "mean_response", "mean_bounded_slowdown": "mean_bsld",
                    "max_stretch": "max_stretch"}
"""Name of each bounded metric in the simulator's overall metrics (:func:`vcsched.sim.output.metrics`)."""


@dataclasses.dataclass(frozen=True)
class BatchInstance:
    """Jobs and clusters of the clairvoyant relaxation.

    Attributes
    ----------
    release : ndarray of float, shape (n,)
        Submission time of each job.
    width : ndarray of int, shape (n,)
        Processors of each job.
    duration : ndarray of float, shape (n, K)
        ``p_jk``, the time job ``j`` runs on cluster ``k``; ``inf`` where it does not fit.
    procs : ndarray of int, shape (K,)
    speed : ndarray of float, shape (K,)
    work : ndarray of float, shape (n,)
        ``q_j p_jk s_k``, the same on every cluster where the job fits (speed-normalised
        processor-seconds): cluster ``k`` processes at most ``m_k s_k`` of it per second.
    """

    release: np.ndarray
    width: np.ndarray
    duration: np.ndarray
    procs: np.ndarray
    speed: np.ndarray
    work: np.ndarray

    def __len__(self) -> int:
        return int(self.release.size)

    @property
    def clusters(self) -> int:
        return int(self.procs.size)

    @property
    def fits(self) -> np.ndarray:
        """``fits[j, k]``: job ``j`` fits on cluster ``k``."""
        return np.isfinite(self.duration)

    @property
    def pmin(self) -> np.ndarray:
        """Shortest duration of each job over the clusters where it fits."""
        return self.duration.min(axis=1)

    @property
    def pmax(self) -> np.ndarray:
        """Longest duration of each job over the clusters where it fits."""
        return np.where(self.fits, self.duration, -np.inf).max(axis=1)

    def subset(self, rows: np.ndarray) -> BatchInstance:
        """The instance restricted to the jobs ``rows`` (same clusters)."""
        rows = np.asarray(rows)
        return BatchInstance(self.release[rows], self.width[rows], self.duration[rows], self.procs, self.speed,
                             self.work[rows])

    @classmethod
    def from_arrays(cls, release, width, duration, procs, speed=None) -> BatchInstance:
        """Build and validate an instance from plain arrays (``duration`` of shape (n, K), finite where it fits).

        ``duration[j, k]`` is replaced by ``inf`` where ``width[j] > procs[k]``.
        """
        r = np.asarray(release, dtype=float).reshape(-1)
        q = np.asarray(width, dtype=np.int64).reshape(-1)
        m = np.asarray(procs, dtype=np.int64).reshape(-1)
        p = np.asarray(duration, dtype=float).reshape(r.size, m.size).copy()
        s = np.ones(m.size) if speed is None else np.asarray(speed, dtype=float).reshape(-1)
        _validate(r, q, p, m, s)
        p[q[:, None] > m[None, :]] = np.inf
        if r.size and not np.isfinite(p).any(axis=1).all():
            j = int(np.flatnonzero(~np.isfinite(p).any(axis=1))[0])
            raise InvalidInputError(f"job {j} (width {q[j]}) fits on no cluster (largest has {m.max()} processors)")
        fin = np.isfinite(p)
        work = np.where(fin, q[:, None] * p * s[None, :], np.inf).min(axis=1) if r.size else np.zeros(0)
        return cls(r, q, p, m, s, work)


def _validate(r, q, p, m, s) -> None:
    if m.size == 0:
        raise InvalidInputError("the platform has no cluster")
    if (m < 1).any():
        raise InvalidInputError("every cluster needs at least one processor")
    if s.size != m.size or not (np.isfinite(s).all() and (s > 0).all()):
        raise InvalidInputError("cluster speeds must be positive and finite, one per cluster")
    if q.size != r.size:
        raise InvalidInputError("release and width must have one entry per job")
    if not np.isfinite(r).all() or (r < 0).any():
        raise InvalidInputError("submission times must be finite and >= 0")
    if (q < 1).any():
        raise InvalidInputError("job widths must be >= 1")
    fits = q[:, None] <= m[None, :]
    if np.isnan(p).any() or (p[fits] < 0).any() or not np.isfinite(p[fits]).all():
        raise InvalidInputError("durations must be finite and >= 0 where the job fits")


def batch_instance(jobs, clusters) -> BatchInstance:
    """The relaxation of a simulation: the simulator's job table and clusters.

    Parameters
    ----------
    jobs : vcsched.sim.JobTable
        Submit times, run times (already capped at the requested time), widths and origins.
    clusters : list
        Cluster objects (or anything with ``procs`` and ``speed``), in the simulator's order;
        ``jobs.origin`` indexes them.

    Notes
    -----
    ``p_jk = run_time_j * (speed[origin_j] / speed[k])``, or ``run_time_j`` when the two
    speeds are equal: the same floating-point operations as ``Cluster.bind``.
    """
    procs = np.array([int(c.procs) for c in clusters], dtype=np.int64)
    speed = np.array([float(c.speed) for c in clusters], dtype=float)
    n = len(jobs)
    if n and (jobs.origin.min() < 0 or jobs.origin.max() >= len(clusters)):
        raise InvalidInputError("a job's origin is not one of the clusters")
    too_wide = np.flatnonzero(np.asarray(jobs.procs) > procs.max()) if n else np.zeros(0, dtype=np.int64)
    if too_wide.size:
        j = int(too_wide[0])
        raise InvalidInputError(f"job {jobs.job_id[j]} needs {int(jobs.procs[j])} processors, more than the largest "
                                f"cluster ({int(procs.max())}); {too_wide.size} job(s) fit on no cluster")
    origin_speed = speed[jobs.origin] if n else np.zeros(0)
    run = np.asarray(jobs.run_time, dtype=float)
    p = np.empty((n, procs.size))
    for k, s in enumerate(speed.tolist()):
        ratio = origin_speed / s
        p[:, k] = np.where(origin_speed == s, run, run * ratio)
    return BatchInstance.from_arrays(np.asarray(jobs.submit, dtype=float), np.asarray(jobs.procs), p, procs, speed)


def schedule_metrics(inst: BatchInstance, cluster: np.ndarray, start: np.ndarray, *, tau: float = BSLD_TAU) -> dict:
    """The four metrics of a schedule (``cluster[j]``, ``start[j]``), as the simulator defines them."""
    n = len(inst)
    if n == 0:
        return {m: None for m in METRICS}
    rows = np.arange(n)
    p = inst.duration[rows, cluster]
    finish = start + p
    response = finish - inst.release
    bsld = bounded_slowdown(response, p, tau)
    return {"makespan": float(finish.max() - inst.release.min()), "mean_response": float(response.mean()),
            "mean_bounded_slowdown": float(bsld.mean()), "max_stretch": max_stretch(response, p)}


def check_batch_schedule(inst: BatchInstance, cluster: np.ndarray, start: np.ndarray, *, tol: float = 1e-7) -> None:
    """Raise ``AssertionError`` unless the schedule is feasible (releases, fits, capacity at every start).

    Every job has a start (finite) and a cluster; at each job's start ``t`` the jobs counted on its
    cluster are those with ``start <= t + tol`` and ``finish > t + tol``, and their widths add up to at
    most the cluster's processors. O(n log n): on each cluster the usage at ``t`` is the width of the
    jobs started by ``t + tol`` minus the width of those finished by then (a job finishes after it
    starts), from two sorted prefix sums. The plain quadratic check is ``tests/grid/batch_oracle.py``.
    """
    cluster = np.asarray(cluster, dtype=np.int64).reshape(-1)
    start = np.asarray(start, dtype=float).reshape(-1)
    n = len(inst)
    assert cluster.size == n and start.size == n, "the schedule needs one cluster and one start per job"
    assert np.isfinite(start).all(), "a job has no start"
    assert ((cluster >= 0) & (cluster < inst.clusters)).all(), "a job runs on no cluster"
    assert (start >= inst.release - tol).all(), "a job starts before its submission"
    rows = np.arange(n)
    p = inst.duration[rows, cluster]
    assert np.isfinite(p).all(), "a job runs on a cluster where it does not fit"
    finish = start + p
    for k in range(inst.clusters):
        on = rows[cluster == k]
        if on.size == 0:
            continue
        w = inst.width[on]
        by_start, by_finish = np.argsort(start[on], kind="stable"), np.argsort(finish[on], kind="stable")
        s_sorted, f_sorted = start[on][by_start], finish[on][by_finish]
        s_cum = np.concatenate(([0], np.cumsum(w[by_start])))
        f_cum = np.concatenate(([0], np.cumsum(w[by_finish])))
        t = start[on] + tol
        usage = s_cum[np.searchsorted(s_sorted, t, side="right")] - f_cum[np.searchsorted(f_sorted, t, side="right")]
        bad = np.flatnonzero(usage > inst.procs[k])
        assert bad.size == 0, f"cluster {k} over capacity at {start[on][bad[0]] if bad.size else 0}"
