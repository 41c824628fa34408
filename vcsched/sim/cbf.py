"""Conservative backfilling (CBF): the queue of waiting jobs and the cluster that plans it.

Every waiting job holds a reservation on the cluster's profile; a job is placed at its
earliest slot when submitted and moved earlier by the re-plan (or, with the ``full`` rule,
re-reserved from scratch, as Simbatch does). The loops are compiled
(:mod:`vcsched.sim.compiled`); :class:`CBFQueue` names the arrays they work on. The base
class is in :mod:`vcsched.sim.cluster`.
"""

from __future__ import annotations

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.names.grid import CBF_REPLAN_RULES
from vcsched.sim.cluster import INF, Cluster, planned_duration
from vcsched.sim.kernel import PRIORITY_PASS
from vcsched.sim.profile import Profile

__all__ = ["CBFQueue", "CBFCluster"]


class CBFQueue:
    """The waiting jobs of a conservative-backfilling cluster, in submission order.

    Five parallel numpy arrays with spare room, so that the compiled loops of
    :mod:`vcsched.sim.compiled` work on them in place: :attr:`job` (row of the job
    table), :attr:`width` (processors), :attr:`duration` (planned duration),
    :attr:`start` (reservation) and :attr:`stamp` (order stamp: the count of
    reservations given when this one was given; jobs due at one instant start by
    reservation, then stamp). The first :attr:`size` entries are the queue.
    :attr:`last_stamp` is the last stamp given and :attr:`next_start` the earliest
    reservation in the queue (never later than the true one; ``inf`` when empty).
    """

    __slots__ = ("job", "width", "duration", "start", "stamp", "size", "last_stamp", "next_start", "_due", "_core")

    def __init__(self, room: int) -> None:
        from vcsched.sim import compiled  # here, not at module level: numba loads only when CBF is used

        self._core = compiled
        self.job = np.empty(room, dtype=np.int64)
        self.width = np.empty(room, dtype=np.int64)
        self.duration = np.empty(room)
        self.start = np.empty(room)
        self.stamp = np.empty(room, dtype=np.int64)
        self.size = 0
        self.last_stamp = 0
        self.next_start = INF
        self._due = self._due_arrays(room)

    @staticmethod
    def _due_arrays(room: int) -> tuple:
        """Output arrays of :func:`compiled.pop_due`: job, reservation, planned duration, stamp."""
        return (np.empty(room, dtype=np.int64), np.empty(room), np.empty(room), np.empty(room, dtype=np.int64))

    def _grow(self) -> None:
        for name in ("job", "width", "duration", "start", "stamp"):
            a = getattr(self, name)
            setattr(self, name, np.concatenate((a, np.empty_like(a))))
        self._due = self._due_arrays(self.job.size)

    def push(self, j: int, width: int, duration: float, start: float) -> None:
        """Append job ``j``, reserved at ``start``, at the end of the queue with the next stamp."""
        i = self.size
        if i == self.job.size:
            self._grow()
        self.last_stamp += 1
        self.job[i], self.width[i], self.duration[i], self.start[i] = j, width, duration, start
        self.stamp[i] = self.last_stamp
        self.size = i + 1

    def index(self, j: int) -> int:
        """Position of waiting job ``j`` in the queue."""
        return int(np.flatnonzero(self.job[:self.size] == j)[0])

    def remove(self, i: int) -> None:
        """Remove entry ``i`` (the queue keeps its order): :func:`compiled.remove`."""
        self.size = self._core.remove(self.job, self.width, self.duration, self.start, self.stamp, self.size, i)

    def replan(self, prof: Profile, now: float) -> int:
        """Re-plan every entry on ``prof`` (:func:`compiled.replan`, a move gets a new stamp); returns the moves."""
        # a move inserts at most four breakpoints
        self.last_stamp, moved, self.next_start = prof.apply(
            self._core.replan, 4 * self.size, self.width, self.duration, self.start, self.stamp, self.size, now,
            prof.total, self.last_stamp)
        return moved

    def replan_full(self, prof: Profile, now: float) -> int:
        """Re-plan from scratch (:func:`compiled.replan_full`, a changed reservation gets a new stamp); returns the moves."""
        # each release and each reservation inserts at most two breakpoints
        self.last_stamp, moved, self.next_start = prof.apply(
            self._core.replan_full, 4 * self.size, self.width, self.duration, self.start, self.stamp, self.size,
            now, prof.total, self.last_stamp)
        return moved

    def pop_due(self, now: float) -> list[tuple[float, int, int, float]]:
        """Take out the entries reserved at or before ``now`` (:func:`compiled.pop_due`).

        Returns them as (reservation, stamp, job, planned duration), sorted: the order
        they start in.
        """
        out_job, out_start, out_duration, out_stamp = self._due
        self.size, count, self.next_start = self._core.pop_due(self.job, self.width, self.duration, self.start, self.stamp,
                                                         self.size, now, out_job, out_start, out_duration, out_stamp)
        due = sorted(zip(out_start[:count].tolist(), out_stamp[:count].tolist(), out_job[:count].tolist(),
                         out_duration[:count].tolist()))
        return due

    def reservations(self) -> dict[int, float]:
        """Reservation of each waiting job (a snapshot)."""
        return dict(zip(self.job[:self.size].tolist(), self.start[:self.size].tolist()))


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

    The profile (a :class:`Profile`) and the queue (a :class:`CBFQueue`) are numpy arrays
    worked on by the compiled functions of :mod:`vcsched.sim.compiled` (numba is
    imported, and the functions compiled or loaded from its cache, when the first CBF
    cluster is bound). The re-plan is the literal rule; ``tests/sim/test_sim_cbf_perf.py``
    checks it against an independent pure-Python implementation of the rule on the numpy
    oracle profile of ``tests/sim/plain_profile.py``. :attr:`profile` and
    :attr:`reservation` are snapshots for inspection.
    """

    policy = "cbf"
    _ROOM = 64  # initial room of the queue arrays (doubled when needed)
    REPLAN_RULES = CBF_REPLAN_RULES
    replan_rule = "earliest"
    """Re-plan rule (:meth:`set_replan_rule`): ``earliest`` (default) or ``full`` (Simbatch's)."""

    def _reset(self) -> None:
        self._prof = Profile(self.procs, self.kernel.now)
        self._queue = CBFQueue(self._ROOM)
        self._planned_end: dict[int, float] = {}  # running job -> reservation + planned duration
        self.first_reservation: dict[int, float] = {}  # job -> reservation given at its (last) submission here
        self._stale = False
        self._wake = INF
        self.replans = 0
        self.moves = 0

    # ------------------------------------------------------------------ state
    @property
    def profile(self) -> Profile:
        """A copy of the availability profile (running jobs until their planned ends, reservations)."""
        return self._prof.copy()

    @property
    def reservation(self) -> dict[int, float]:
        """Current reservation of each waiting job (a snapshot)."""
        return self._queue.reservations()

    # ------------------------------------------------------------------ jobs
    def submit(self, j: int) -> None:
        p = self.P[j]
        if p > self.procs:
            self._too_wide(j)
        self._replan_if_stale()
        d = planned_duration(self.req_here[j])
        now = self.kernel.now
        s = self._prof.reserve_earliest(p, d, now, now)
        queue = self._queue
        queue.push(j, p, d, s)
        self.waiting_jobs[j] = None
        self.first_reservation[j] = s
        if s < queue.next_start:
            queue.next_start = s
        self._wake_at(s)

    def cancel(self, j: int) -> bool:
        if j not in self.waiting_jobs:
            return False
        del self.waiting_jobs[j]
        queue = self._queue
        i = queue.index(j)
        s, d, p = float(queue.start[i]), float(queue.duration[i]), int(queue.width[i])
        queue.remove(i)
        self._release(s, s + d, p)
        return True

    def _release(self, a: float, b: float, q: int) -> None:
        """Free ``q`` processors on ``[a, b)`` and re-plan at this instant (cancellation, early end)."""
        self._prof.add(a, b, q)
        self._stale = True
        self._request_react()

    def _on_end(self, j: int, req_end: float) -> None:
        now = self.kernel.now
        end = self._planned_end.pop(j)
        if now < end:
            self._release(now, end, self.P[j])

    def _end(self, j: int) -> None:
        self._finish(j)  # no pass: jobs start at their reservations (wake-ups) or after the re-plan

    def _react(self, _=None) -> None:
        self._react_pending = False
        self._replan_if_stale()

    def _replan_if_stale(self) -> None:
        if self._stale:
            self._stale = False
            self._replan()

    def set_replan_rule(self, rule: str) -> None:
        """Choose the re-plan rule at an early end or a cancellation: ``"earliest"`` or ``"full"``.

        ``earliest`` (the default) is the rule above: each waiting job, in submission
        order, moves to its earliest slot from now if that is earlier, so no job is ever
        delayed. ``full`` is Simbatch's (``frs69wq/Simbatch``, the simulator of seed 000,
        §3.1): every waiting reservation is dropped and the queue is re-reserved from
        scratch in submission order, so a job may get a later slot than before when an
        earlier-queued job takes the room it had (:func:`vcsched.sim.compiled.replan_full`).
        Simbatch re-plans at every end, but a re-plan from scratch changes nothing when
        every job ended at its planned end (the reservations are then already the
        from-scratch plan in queue order), so both rules re-plan on the same triggers.

        Why ``earliest`` stays the default: seed 000 defines CBF (§3.1) as finding an
        earlier slot "without delaying other jobs (Conservative)", which a re-plan from
        scratch does not guarantee; the paper ran Simbatch, whose rule is ``full``, so it
        is the option that reproduces the paper's simulator rather than its text.
        """
        if rule not in self.REPLAN_RULES:
            raise InvalidInputError(f"cluster {self.name!r}: unknown CBF re-plan rule {rule!r}; choose one of: "
                                    f"{', '.join(self.REPLAN_RULES)}")
        self.replan_rule = rule

    def _replan(self) -> None:
        """Re-plan every waiting job once, in submission order, at its earliest slot from now
        (:func:`vcsched.sim.compiled.replan`; with :meth:`set_replan_rule` ``"full"``: from
        scratch, :func:`vcsched.sim.compiled.replan_full`)."""
        self.replans += 1
        queue = self._queue
        if self.replan_rule == "full":
            moved = queue.replan_full(self._prof, self.kernel.now)
        else:
            moved = queue.replan(self._prof, self.kernel.now)
        self.moves += moved
        if moved:
            self._wake_at(self._queue.next_start)

    # ------------------------------------------------------------------ starts
    def _wake_at(self, s: float) -> None:
        if s < self._wake:
            self._wake = s
            self.kernel.schedule(s, PRIORITY_PASS, self._wake_pass)

    def _wake_pass(self, _=None) -> None:
        if self.kernel.now >= self._wake:
            self._wake = INF
        self._do_pass()

    def _pass(self, _=None) -> None:
        self._pass_pending = False
        self._do_pass()

    def _do_pass(self) -> None:
        """Start the jobs reserved at or before now, by reservation then order stamp."""
        self._replan_if_stale()
        now = self.kernel.now
        queue = self._queue
        if queue.next_start <= now:
            due = queue.pop_due(now)
            waiting, planned_end = self.waiting_jobs, self._planned_end
            for s, _, j, d in due:
                del waiting[j]
                planned_end[j] = s + d
                self._start(j)
        if queue.next_start < INF:
            self._wake_at(queue.next_start)

    # ------------------------------------------------------------------ estimates
    def ect(self, j: int) -> float:
        self._replan_if_stale()
        if j in self.waiting_jobs:
            queue = self._queue
            i = queue.index(j)
            return float(queue.start[i] + queue.duration[i])
        if self.P[j] > self.procs:
            return INF
        d = planned_duration(self.req_here[j])
        return self._prof.earliest(self.P[j], d, self.kernel.now) + d

    def ect_many(self, jobs) -> np.ndarray:
        self._replan_if_stale()
        return self._ect_many_on(self._prof, self.reservation, self.kernel.now, jobs)

    def resubmission_plan(self) -> tuple[Profile, float, bool]:
        """The profile after the pending re-plan; a submission reserves its earliest slot from now."""
        self._replan_if_stale()
        return self._prof.copy(), self.kernel.now, False
