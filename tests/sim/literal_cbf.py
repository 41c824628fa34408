"""Conservative backfilling written as the rule reads, on :class:`PlainProfile`: the reference for the compiled CBF.

Nothing here is shared with :class:`vcsched.sim.cbf.CBFCluster` but the base class's
bookkeeping (job times, starts, ends): the profile is a :class:`PlainProfile` (the numpy
oracle of ``tests/sim/plain_profile.py``, which shares no code with the compiled profile
rules), the queue a dict, the starts a heap. At submission a job gets ``PlainProfile.earliest`` from now; at a
re-plan every waiting job, in submission order, is released and re-inserted at its
earliest slot from now; a job starts at its reservation.
"""

from __future__ import annotations

import heapq

import numpy as np

from tests.sim.plain_profile import PlainProfile
from vcsched.sim.cluster import Cluster, planned_duration
from vcsched.sim.kernel import PRIORITY_PASS


class LiteralCBF(Cluster):
    policy = "cbf"

    def _reset(self):
        self.profile = PlainProfile(self.procs, self.kernel.now)
        self.reservation: dict[int, float] = {}
        self.duration: dict[int, float] = {}
        self.first_reservation: dict[int, float] = {}
        self.planned_end: dict[int, float] = {}
        self.starts: list = []  # heap of (reservation, stamp, job), entries of moved or cancelled jobs left behind
        self.stamp = 0
        self.stale = False
        self.replans = 0

    def _give(self, j, s):
        self.reservation[j] = s
        self.stamp += 1
        heapq.heappush(self.starts, (s, self.stamp, j))
        self.kernel.schedule(s, PRIORITY_PASS, self._pass)

    def submit(self, j):
        if self.P[j] > self.procs:
            self._too_wide(j)
        self._replan_if_stale()
        now = self.kernel.now
        self.profile.trim(now)
        d = planned_duration(self.req_here[j])
        s = self.profile.earliest(self.P[j], d, now)
        self.profile.reserve(s, d, self.P[j])
        self.waiting_jobs[j] = None
        self.duration[j] = d
        self.first_reservation[j] = s
        self._give(j, s)

    def cancel(self, j):
        if j not in self.waiting_jobs:
            return False
        del self.waiting_jobs[j]
        self.profile.release(self.reservation.pop(j), self.duration.pop(j), self.P[j])
        self.stale = True
        self._request_react()
        return True

    def _on_end(self, j, req_end):
        now = self.kernel.now
        end = self.planned_end.pop(j)
        if now < end:
            self.profile.add(now, end, self.P[j])
            self.stale = True
            self._request_react()

    def _end(self, j):
        self._finish(j)

    def _react(self, _=None):
        self._react_pending = False
        self._replan_if_stale()

    def resubmission_plan(self):
        """What a submission now reserves its earliest slot from now on (for the grid's planning snapshot)."""
        from vcsched.sim.profile import Profile

        self._replan_if_stale()
        prof = self.profile.copy()
        prof.trim(self.kernel.now)
        return Profile.from_steps(self.procs, prof.t, prof.f), self.kernel.now, False

    def _replan_if_stale(self):
        if self.stale:
            self.stale = False
            self.replan()

    def replan(self):
        now = self.kernel.now
        prof = self.profile
        prof.trim(now)
        self.replans += 1
        for j in self.waiting_jobs:
            s_old, d, p = self.reservation[j], self.duration[j], self.P[j]
            if s_old <= now:
                continue
            prof.release(s_old, d, p)
            s = prof.earliest(p, d, now)
            prof.reserve(s, d, p)
            assert s <= s_old, "a re-plan never delays a job"
            if s < s_old:
                self._give(j, s)

    def _pass(self, _=None):
        self._pass_pending = False
        self._replan_if_stale()
        now = self.kernel.now
        while self.starts and self.starts[0][0] <= now:
            s, _, j = heapq.heappop(self.starts)
            if j in self.waiting_jobs and self.reservation[j] == s:
                del self.waiting_jobs[j]
                del self.reservation[j]
                self.planned_end[j] = s + self.duration.pop(j)
                self._start(j)

    def ect(self, j):
        self._replan_if_stale()
        if j in self.waiting_jobs:
            return self.reservation[j] + self.duration[j]
        d = planned_duration(self.req_here[j])
        return self.profile.earliest(self.P[j], d, self.kernel.now) + d

    def ect_many(self, jobs):
        return np.array([self.ect(j) for j in jobs])
