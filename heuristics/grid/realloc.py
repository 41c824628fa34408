"""Task reallocation between batch clusters: Algorithms 1 and 2 of the seed paper with six heuristics.

Caniou, Charrier, Desprez, *Analysis of Tasks Reallocation in a Dedicated Grid
Environment*, INRIA RR-7226 (2010): §2.2.1 (Algorithm 1, reallocation without
cancellation; Algorithm 2, reallocation with cancellation), §2.2.2 (the scheduling
heuristics MCT, MinMin, MaxMin, MaxGain, MaxRelGain, Sufferage), §4 (period one hour,
first event one hour after the first submission).

The policy object :class:`Reallocation` is passed to the engine as ``meta``
(:class:`vcsched.sim.Grid`): ``map`` is the MCT arrival mapping (§2.1), ``start``
registers the periodic reallocation event with :meth:`vcsched.sim.Grid.every`. The
engine never imports this module.

Decisions where the paper is ambiguous (each one tested in ``tests/grid``)
---------------------------------------------------------------------------
* **ECT** of a job on its current cluster is its planned completion there; on another
  cluster, its completion if submitted there now (the engine's ``ect_many``: requested
  times scaled by the speed ratio, i.e. the seed's automatic walltime adjustment).
* **Submission order** (MCT, and every tie) is the job's row in the job table: the
  global order of the original submissions (submit time, then site, then trace order).
* **Algorithm 1**: the heuristic ranks the jobs still in the list using, for each job,
  ``best`` = its minimum ECT over all clusters (its current one included) and
  ``current`` = its ECT where it waits. The chosen job moves to the cluster of ``best``
  when ``best + threshold < current`` (strictly: a gain of exactly ``threshold`` does not
  move it). Ties between destination clusters go to the first in platform order.
* **Algorithm 2**: every waiting job of every cluster is cancelled first; the heuristic
  then ranks the remaining jobs with ECTs "as if submitted now" on the current state of
  the clusters (re-evaluated after each resubmission), and each chosen job goes to the
  cluster of its minimum ECT; a tie with the job's previous cluster keeps it there (not
  a move), other ties go to the first cluster. The ``current`` ECT of MaxGain and
  MaxRelGain, the threshold and the queue order are discussed below.
* **Sufferage** is the difference between the two smallest ECTs of a job; a job that fits
  on one cluster only has an infinite sufferage (it is chosen first).
* **MaxRelGain** divides the gain by the job's number of processors.
* With a single cluster, a reallocation event does nothing (Algorithm 2 would otherwise
  only reorder the queue, which is not a reallocation).
* Every move counts as one reallocation (§3.4: "a job can be counted several times if it
  was migrated several times"); in Algorithm 2 a job resubmitted to its own cluster is
  not a move (§4.2: "we save the location of a job and if it is submitted on another
  cluster, we count this as a reallocation"). :meth:`Reallocation.move_counts` also gives
  the two other counts one could read (jobs moved at least once; jobs that end on
  another cluster than the one MCT gave them at arrival).
* **Queue position of a resubmitted job** (Algorithm 2): the end of the queue, so after an
  event the queues hold the waiting jobs in the heuristic's order (``queue_order=
  "heuristic"``, the default). The paper says so in §4.3 ("It is possible for a job to be
  canceled each time and resubmitted after new jobs"), and Simbatch's batch server pushes
  every (re)submission at the end of its queue. ``queue_order="submission"`` is the other
  reading: the clusters are chosen in the heuristic's order as above, then the event's
  jobs are cancelled again and queued in their original submission order.
* **No threshold in Algorithm 2** (its pseudo-code has none; default
  ``cancel_threshold=False``). With ``cancel_threshold=True`` a resubmitted job goes back
  to its previous cluster unless another one finishes it more than ``threshold`` earlier,
  as in Algorithm 1.
* **Current ECT in Algorithm 2** (MaxGain, MaxRelGain): by default (``current_ect=
  "resubmit"``) the ECT on the job's previous cluster in the state of the event (as if
  resubmitted there now); ``current_ect="planned"`` is its planned completion there just
  before the cancellation, fixed during the event (§2.2.2's "CurrentECT" read literally).

Complexity (§2.2.2)
-------------------
Algorithm 1, MCT: O(n) scalar ECT evaluations per event. The offline heuristics need,
after each choice, the ECTs of the remaining jobs; only the columns of the clusters
touched by the choice change, and each column is recomputed with one vectorised call
(:meth:`vcsched.sim.Cluster.ect_many`), so an event costs O(n) numpy calls of size O(n)
each instead of O(n^2) scalar ECT queries; the choice of the built-in heuristics is
compiled (:mod:`heuristics.grid.fastselect`, tested equal to numpy's).

Algorithm 2 runs an event as one compiled loop (:mod:`heuristics.grid.fastevent`) on a
planning snapshot of the grid (:meth:`vcsched.sim.Grid.planning_snapshot`): the
simulator answers the ECTs and takes the reservations with the clusters' own planning
rules, the heuristic only chooses. Its heuristic needs a compiled key (every built-in
one has). A plain oracle of the same event, one grid query and submission at a time, is
kept in the tests (``tests/grid/realloc_oracle.py``); both give the same ``jobs.csv``
byte for byte.
"""

from __future__ import annotations

import time

import numpy as np

from heuristics.grid import fastevent, fastselect, fastwidths, first_min, make_meta
from heuristics.grid.selection import HEURISTICS, select_job
from vcsched.errors import InvalidInputError
from vcsched.names.grid import CURRENT_ECTS, QUEUE_ORDERS
from vcsched.names.grid import REALLOC_ALGORITHMS as ALGORITHMS
from vcsched.problems.grid_limits import MAX_REALLOC_EVENTS, MIN_PERIOD
from vcsched.sim import planning

__all__ = ["HEURISTICS", "ALGORITHMS", "QUEUE_ORDERS", "CURRENT_ECTS", "Reallocation", "label", "select_job"]


_INF = float("inf")


def label(algorithm: str, heuristic: str) -> str:
    """Short name of a policy as in the paper's tables: ``MinMin``, ``MinMin-C`` (Algorithm 2), ``none``."""
    if algorithm == "none":
        return "none"
    return HEURISTICS.get(heuristic).label + ("-C" if algorithm == "cancel" else "")


class Reallocation:
    """MCT mapping at arrival plus periodic reallocation (seed §2.2.1, Algorithms 1 and 2).

    Parameters
    ----------
    algorithm : {"none", "no-cancel", "cancel"}
        ``no-cancel`` is Algorithm 1, ``cancel`` is Algorithm 2, ``none`` only maps with MCT.
    heuristic : str, default "mct"
        One of :data:`HEURISTICS` (§2.2.2).
    period : float, default 3600
        Seconds between two reallocation events (§2.2.1: one hour).
    threshold : float, default 60
        Algorithm 1 moves a job only if it finishes more than ``threshold`` seconds earlier.
    first : float, optional
        Time of the first event; default one period after the first submission (§4.1).
    verify : bool, default False
        Algorithm 1: check, before every choice of an offline heuristic, that the
        incrementally updated ECT matrix equals a fresh :meth:`vcsched.sim.Grid.ect_matrix`;
        Algorithm 2: check after every event that each resubmitted job's completion planned
        on the snapshot is its ECT on its cluster (slow; for tests).
    cancel_threshold : bool, default False
        Algorithm 2 keeps a job on its previous cluster unless another one finishes it more
        than ``threshold`` earlier (the paper's Algorithm 2 has no threshold).
    queue_order : {"heuristic", "submission"}, default "heuristic"
        Algorithm 2: queue the event's jobs in the heuristic's order (each resubmission at
        the end of the queue, as in the paper and Simbatch) or, after choosing their clusters,
        in their original submission order.
    current_ect : {"resubmit", "planned"}, default "resubmit"
        Algorithm 2's ``current`` ECT for MaxGain and MaxRelGain (see the module notes).
    prune : bool, default True
        Algorithm 2 skips the ECTs a resubmission cannot change (an exact shortcut,
        :func:`vcsched.sim.planning.refresh_column`; ``False`` recomputes them, the same run).
    grouped : bool, default True
        MinMin and MaxMin on FCFS clusters choose among groups of comparable jobs
        (:func:`heuristics.grid.fastevent.plan_event_grouped`; ``False``: among every job, the same run).
    bulk_submit : bool, default True
        Algorithm 2 submits an event's jobs with one :meth:`vcsched.sim.Grid.submit_many`
        (FCFS clusters adopt the planning snapshot's plan); ``False`` submits them one by
        one (the same run).
    arrival : str, default "mct"
        The meta-scheduler that maps each arriving job (:data:`heuristics.grid.META_SCHEDULERS`:
        ``mct``, seed §2.1, or ``origin``), the same as the reference run's
        (:func:`vcsched.scenarios.grid_run.arrival_mapping`).

    Attributes
    ----------
    reallocations : int
        Moves so far (a job moved twice counts twice).
    moves_in, moves_out : ndarray of int
        Moves into / out of each cluster.
    job_moves : ndarray of int
        Moves of each job (row of the job table).
    arrival_cluster : ndarray of int
        Cluster chosen by the arrival mapping at each job's arrival (``-1`` before it arrives).
    events : int
        Reallocation events run (with at least one waiting job).
    seconds : float
        Wall time spent inside reallocation events.

    Examples
    --------
    >>> from vcsched.problems.workload import from_arrays
    >>> from vcsched.sim import JobTable, make_cluster, simulate_grid
    >>> w = from_arrays([0, 0, 1], [7200, 7200, 60], [7200, 7200, 60], [2, 2, 1])
    >>> jobs = JobTable.from_workloads([w])
    >>> pol = Reallocation("cancel", "minmin")
    >>> r = simulate_grid([make_cluster("a", 2), make_cluster("b", 2)], jobs, meta=pol)
    >>> pol.reallocations
    0
    """

    def __init__(self, algorithm: str = "no-cancel", heuristic: str = "mct", *, period: float = 3600.0,
                 threshold: float = 60.0, first: float | None = None, verify: bool = False,
                 cancel_threshold: bool = False, queue_order: str = "heuristic",
                 current_ect: str = "resubmit", prune: bool = True, grouped: bool = True,
                 bulk_submit: bool = True, arrival: str = "mct") -> None:
        algorithm = str(algorithm).lower()
        if algorithm not in ALGORITHMS:
            raise InvalidInputError(f"unknown reallocation algorithm {algorithm!r}; choose one of: "
                                    f"{', '.join(ALGORITHMS)}")
        spec = HEURISTICS.get(heuristic)  # raises UnknownNameError with the valid names
        if algorithm == "cancel" and spec.code is None:
            raise InvalidInputError(f"reallocation heuristic {heuristic!r} has no compiled key; Algorithm 2 "
                                    f"(cancel) needs one")
        if not period >= MIN_PERIOD:
            raise InvalidInputError(f"reallocation period must be at least {MIN_PERIOD:g} s, got {period}")
        if not threshold >= 0:
            raise InvalidInputError(f"reallocation threshold must be >= 0 seconds, got {threshold}")
        self.algorithm = algorithm
        self.heuristic = str(heuristic).lower()
        self.period = float(period)
        self.threshold = float(threshold)
        self.first = first
        self.verify = bool(verify)
        self.cancel_threshold = bool(cancel_threshold)
        if queue_order not in QUEUE_ORDERS:
            raise InvalidInputError(f"unknown queue order {queue_order!r}; choose one of: {', '.join(QUEUE_ORDERS)}")
        self.queue_order = queue_order
        if current_ect not in CURRENT_ECTS:
            raise InvalidInputError(f"unknown current-ECT reading {current_ect!r}; choose one of: "
                                    f"{', '.join(CURRENT_ECTS)}")
        self.current_ect = current_ect
        self.prune = bool(prune)
        self.grouped = bool(grouped)
        self.bulk_submit = bool(bulk_submit)
        self.arrival = make_meta(arrival)  # raises UnknownNameError with the valid names
        self.name = self.label
        self._reset(0, 0)

    @property
    def label(self) -> str:
        """Short name as in the paper's tables: ``MinMin``, ``MinMin-C``, ``none``."""
        return label(self.algorithm, self.heuristic)

    def _reset(self, n_jobs: int, n_clusters: int) -> None:
        self.reallocations = 0
        self.moves_in = np.zeros(n_clusters, dtype=np.int64)
        self.moves_out = np.zeros(n_clusters, dtype=np.int64)
        self.job_moves = np.zeros(n_jobs, dtype=np.int64)
        self.arrival_cluster = np.full(n_jobs, -1, dtype=np.int64)
        self.events = 0
        self.seconds = 0.0

    # ------------------------------------------------------------------ engine interface
    def map(self, grid, job: int) -> int:
        """The arrival mapping's cluster for an arriving job (MCT by default, §2.1), recorded."""
        k = self.arrival.map(grid, job)
        if job < self.arrival_cluster.size:
            self.arrival_cluster[job] = k
        return k

    def start(self, grid) -> None:
        """Reset the counters and register the periodic event (first one period after the first submission)."""
        self._reset(len(grid.jobs), len(grid.clusters))
        if self.algorithm == "none" or not len(grid.jobs):
            return
        if self.algorithm == "cancel" and any(c.resubmission_plan() is None for c in grid.clusters):
            raise InvalidInputError("Algorithm 2 (cancel) needs clusters that offer a resubmission plan "
                                    "(FCFS, EASY, CBF)")
        self._check_events(grid.jobs)
        first = self.first if self.first is not None else float(grid.jobs.submit.min()) + self.period
        grid.every(self.period, self.reallocate, first=max(first, grid.now))

    def _check_events(self, jobs) -> None:
        """At most :data:`~vcsched.problems.grid_limits.MAX_REALLOC_EVENTS` periods in the submission span."""
        span = float(jobs.submit.max() - jobs.submit.min())
        if span / self.period > MAX_REALLOC_EVENTS:
            raise InvalidInputError(f"--period {self.period:g}: the jobs are submitted over {span:g} s, which would "
                                    f"take more than {MAX_REALLOC_EVENTS:,} reallocation events; give --period "
                                    f"{span / MAX_REALLOC_EVENTS:.6g} or more")

    def reallocate(self, grid) -> None:
        """One reallocation event (Algorithm 1 or 2) on the current state of ``grid``."""
        if len(grid.clusters) < 2:
            return
        waiting = np.sort(grid.waiting_rows())
        if not waiting.size:
            return
        t0 = time.perf_counter()
        self.events += 1
        if self.algorithm == "no-cancel":
            self._algorithm1(grid, waiting.tolist())
        else:
            self._algorithm2(grid, waiting)
        self.seconds += time.perf_counter() - t0

    def stats(self, clusters=None) -> dict:
        """Counters as a dict: ``reallocations``, ``events``, ``seconds`` and per-cluster moves in/out."""
        out = {"reallocations": int(self.reallocations), "realloc_events": int(self.events),
               "realloc_seconds": float(self.seconds)}
        if clusters is not None:
            out["clusters"] = {c.name: {"reallocations": int(self.moves_in[k]),
                                        "reallocations_out": int(self.moves_out[k])}
                               for k, c in enumerate(clusters)}
        return out

    def move_counts(self, result) -> dict:
        """Three counts of the reallocations of a finished run (``result`` of this policy's simulation).

        ``reallocations``: every move (the paper's count, §3.4); ``jobs_moved``: jobs moved
        at least once; ``displaced``: jobs that ran on another cluster than the one MCT
        chose at their arrival (a job moved there and back is not displaced).
        """
        ran = result.cluster >= 0
        displaced = ran & (self.arrival_cluster >= 0) & (result.cluster != self.arrival_cluster)
        return {"reallocations": int(self.reallocations), "jobs_moved": int((self.job_moves > 0).sum()),
                "displaced": int(displaced.sum())}

    # ------------------------------------------------------------------ helpers
    def _move(self, job: int, src: int, dst: int) -> None:
        self.reallocations += 1
        self.moves_out[src] += 1
        self.moves_in[dst] += 1
        self.job_moves[job] += 1

    @staticmethod
    def _column(grid, k: int, jobs: np.ndarray, procs: np.ndarray, out: np.ndarray, rows: np.ndarray) -> None:
        """Recompute ``out[rows, k]`` (ECT of ``jobs[rows]`` on cluster ``k``) with one vectorised call."""
        c = grid.clusters[k]
        fits = procs[rows] <= c.procs
        sel = rows[fits]
        out[rows[~fits], k] = _INF
        if sel.size:
            out[sel, k] = c.ect_many(jobs[sel])

    @staticmethod
    def _row(grid, jobs: np.ndarray, out: np.ndarray, i: int, clusters) -> None:
        """Recompute ``out[i, k]`` for each cluster ``k`` of ``clusters`` with scalar ECT queries.

        For one job this is cheaper than a vectorised call per cluster, and gives the same
        values (:meth:`vcsched.sim.Profile.earliest` and ``earliest_many`` agree exactly).
        """
        j = int(jobs[i])
        for k in clusters:
            out[i, k] = grid.ect(j, k)

    def _matrix(self, grid, jobs: np.ndarray, procs: np.ndarray) -> np.ndarray:
        n, K = jobs.size, len(grid.clusters)
        E = np.empty((n, K))
        rows = np.arange(n)
        for k in range(K):
            self._column(grid, k, jobs, procs, E, rows)
        return E

    def _refresh(self, grid, dirty: set, jobs, procs, E, alive, row: int | None = None) -> None:
        """Bring the dirty columns of ``E`` up to date for the alive rows (or only for ``row``)."""
        if not dirty:
            return
        rows = np.flatnonzero(alive) if row is None else np.array([row])
        if rows.size:
            for k in sorted(dirty):
                self._column(grid, k, jobs, procs, E, rows)
        if row is None:
            dirty.clear()

    @staticmethod
    def _check(grid, jobs, E, alive) -> None:
        live = np.flatnonzero(alive)
        fresh = grid.ect_matrix(jobs[live].tolist())
        if not np.allclose(E[live], fresh, rtol=0, atol=1e-6):
            raise AssertionError(f"stale ECT matrix at t={grid.now}: max diff "
                                 f"{np.nanmax(np.abs(np.where(np.isinf(fresh), 0, E[live] - fresh)))}")

    # ------------------------------------------------------------------ Algorithm 1
    def _algorithm1(self, grid, waiting: list) -> None:
        """Algorithm 1: choose a job, move it if another cluster finishes it > threshold earlier."""
        jobs = np.asarray(waiting, dtype=np.int64)
        procs = np.asarray(grid.jobs.procs[jobs], dtype=np.float64)
        loc = np.array([grid.current_cluster(j) for j in waiting], dtype=np.int64)
        E = self._matrix(grid, jobs, procs)
        n = jobs.size
        alive = np.ones(n, dtype=bool)
        dirty: set = set()
        mct = self.heuristic == "mct"
        rows = np.arange(n)
        for step in range(n):
            if mct:
                i = step
                self._row(grid, jobs, E, i, dirty)
            else:
                self._refresh(grid, dirty, jobs, procs, E, alive)
                if self.verify:
                    self._check(grid, jobs, E, alive)
                i = select_job(self.heuristic, E, E[rows, loc], procs, alive)
            alive[i] = False
            a = int(loc[i])
            row = E[i].tolist()
            b = first_min(row)
            if row[b] + self.threshold < row[a]:
                j = int(jobs[i])
                if not grid.cancel(j):  # pragma: no cover - waiting jobs cannot start during the event
                    continue
                grid.submit(j, b)
                loc[i] = b
                self._move(j, a, b)
                dirty.update((a, b))  # MCT: every later row needs these two columns again

    # ------------------------------------------------------------------ Algorithm 2
    def _algorithm2(self, grid, jobs: np.ndarray) -> None:
        """Algorithm 2: cancel every waiting job (``jobs``, in row order), resubmit them one by one (heuristic order
        and cluster)."""
        prev = np.array(grid.location[jobs], dtype=np.int64)
        planned = self._planned(grid, jobs, prev) if self.current_ect == "planned" else None
        grid.cancel_many(jobs)
        self._resubmit(grid, jobs, prev, planned)
        if self.queue_order == "submission":
            self._requeue_in_submission_order(grid, jobs)

    def _resubmit(self, grid, jobs: np.ndarray, prev: np.ndarray, planned: np.ndarray | None) -> None:
        """Algorithm 2's choices on a planning snapshot of the grid (one compiled loop,
        :mod:`heuristics.grid.fastevent`), then the resubmissions in the chosen order."""
        snap = grid.planning_snapshot(jobs)  # not None: checked in start()
        spec = HEURISTICS.get(self.heuristic)
        choice = fastevent.Choice(spec.code, spec.maximise, prev, planned if planned is not None else np.zeros(jobs.size),
                                  planned is not None, self.threshold if self.cancel_threshold else 0.0, self.prune)
        groups, distinct = None, []
        if self.grouped and spec.code in (fastselect.MINMIN, fastselect.MAXMIN) and snap.state.advances.all() \
                and planning.monotone_after_lower(snap.state):
            distinct = _distinct_columns(snap.state.D)
            groups = _comparable_groups(snap.state.widths, np.asarray(grid.jobs.origin[jobs]),
                                        np.asarray(grid.jobs.requested_time[jobs]) == 0, snap.state.D, spec.maximise,
                                        distinct)
        if groups is not None and len(distinct) == 1:  # one duration per job: the groups are the widths
            fastwidths.plan_event_widths(snap.state, choice, fastevent.Groups(*groups))
        elif groups is not None:
            fastevent.plan_event_grouped(snap.state, choice, fastevent.Groups(*groups))
        else:
            fastevent.plan_event(snap.state, choice)
        rows, dest, starts = snap.reserved()
        if self.bulk_submit:
            grid.submit_many(jobs[rows], dest)
        else:
            for j, b in zip(jobs[rows].tolist(), dest.tolist()):
                grid.submit(j, b)
        self._count_moves(jobs[rows], prev[rows], dest)
        if self.verify:
            ours = snap.state.D[rows, dest] + starts
            theirs = np.array([grid.ect(int(j), int(k)) for j, k in zip(jobs[rows], dest)])
            if not np.array_equal(ours, theirs):
                raise AssertionError(f"planning snapshot and clusters disagree at t={grid.now}")

    def _count_moves(self, jobs: np.ndarray, prev: np.ndarray, dest: np.ndarray) -> None:
        moved = np.flatnonzero(dest != prev)
        if moved.size:
            self.reallocations += moved.size
            K = self.moves_out.size
            self.moves_out += np.bincount(prev[moved], minlength=K)
            self.moves_in += np.bincount(dest[moved], minlength=K)
            self.job_moves[jobs[moved]] += 1  # an event resubmits each job once

    @staticmethod
    def _planned(grid, jobs: np.ndarray, where: np.ndarray) -> np.ndarray:
        """Planned completion of each waiting job on the cluster where it waits (one vectorised call per cluster)."""
        out = np.empty(jobs.size)
        for k in np.unique(where):
            sel = np.flatnonzero(where == k)
            out[sel] = grid.clusters[int(k)].ect_many(jobs[sel])
        return out

    @staticmethod
    def _requeue_in_submission_order(grid, jobs: np.ndarray) -> None:
        """Cancel the jobs resubmitted by this event and submit them again, in their original submission order."""
        where = [grid.current_cluster(int(j)) for j in jobs]
        for j in jobs:
            grid.cancel(int(j))
        for j, k in sorted(zip(jobs.tolist(), where)):
            grid.submit(j, k)


def _distinct_columns(D: np.ndarray) -> list[int]:
    """The columns of ``D`` not equal to an earlier one (``[0]`` when every cluster plans a job for the same
    time)."""
    return [k for k in range(D.shape[1]) if not any(np.array_equal(D[:, k], D[:, q]) for q in range(k))]


def _comparable_groups(widths: np.ndarray, origin: np.ndarray, zero_request: np.ndarray, D: np.ndarray,
                       maximise: bool, distinct: list[int] | None = None):
    """The groups of :func:`heuristics.grid.fastevent.plan_event_grouped`, or None when they do not apply.

    Rows are grouped by width, origin site and requested time zero (planned as 1 s); in a
    group the planned durations on every cluster are the requested time times one ratio
    per cluster, so ordering the rows by their ``D`` row (largest first when maximising)
    orders every column. When every column of ``D`` is the same (clusters of one speed),
    the rows are grouped by width only: one column orders them all. This is checked here, not assumed: None if some group's rows are
    not ordered on every column. ``distinct``: :func:`_distinct_columns` of ``D`` if already known. Returns
    ``(uw, rw, gorder, gstart, gend, blockend)``.
    """
    n, K = D.shape
    uw, rw = _small_unique(np.asarray(widths, dtype=np.int64))
    if distinct is None:
        distinct = _distinct_columns(D)
    if len(distinct) == 1:  # every cluster plans a job for the same time: the rows of one width are comparable
        gid = rw
    else:
        origin = np.asarray(origin, dtype=np.int64)
        code = (rw * (int(origin.max()) + 1 if n else 1) + origin) * 2 + np.asarray(zero_request, dtype=np.int64)
        _, gid = _small_unique(code)  # groups numbered in (width, origin, zero request) order
    sign = -1.0 if maximise else 1.0
    # by group, then the D row (each distinct column once: an equal column orders nothing more), then row order
    # (lexsort is stable, so rows that tie on every key keep their order)
    if len(distinct) == 1 and gid.size and int(gid.max()) < 2 ** 15:  # the same order by two stable sorts, the
        gorder = np.argsort(sign * D[:, distinct[0]], kind="stable")  # second a radix sort of small group numbers
        gorder = gorder[np.argsort(gid[gorder].astype(np.int16), kind="stable")]
    else:
        gorder = np.lexsort([sign * D[:, k] for k in reversed(distinct)] + [gid])
    g, Ds = gid[gorder], D[gorder]
    same_group = g[1:] == g[:-1]
    steps = sign * (Ds[1:] - Ds[:-1])  # >= 0 on every column between rows of one group
    if not (steps[same_group] >= 0).all():
        return None
    new_block = np.ones(n, dtype=bool)
    new_block[1:] = ~same_group | (Ds[1:] != Ds[:-1]).any(axis=1)
    starts = np.flatnonzero(new_block)
    ends = np.append(starts[1:], n)
    blockend = np.repeat(ends, ends - starts)
    gstart = np.flatnonzero(np.r_[True, ~same_group])
    gend = np.append(gstart[1:], n)
    return (uw.astype(np.int64), rw.astype(np.int64), gorder.astype(np.int64), gstart.astype(np.int64),
            gend.astype(np.int64), blockend.astype(np.int64))


def _small_unique(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(values, return_inverse=True)`` for non-negative integers: by counting when their range is
    small (widths, group codes: no sort of the rows), else by numpy."""
    values = values.ravel()
    top = int(values.max()) if values.size else -1
    if values.size == 0 or int(values.min()) < 0 or top > 4 * values.size + 4096:
        uniq, inverse = np.unique(values, return_inverse=True)
        return uniq, inverse.ravel()
    present = np.bincount(values, minlength=top + 1) > 0
    uniq = np.flatnonzero(present)
    rank = np.cumsum(present) - 1
    return uniq.astype(values.dtype), rank[values]
