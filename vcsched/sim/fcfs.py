"""First come, first served (seed §3.1, FCFS [22]): a job starts once every earlier job has started and enough
processors are free."""

from __future__ import annotations

import numpy as np

from vcsched.sim.queued import QueuedCluster

__all__ = ["FCFSCluster"]


class FCFSCluster(QueuedCluster):
    """First come, first served: a job starts as soon as every earlier job has started and
    enough processors are free (seed §3.1, FCFS [22]).

    Its estimate plan puts each waiting job no earlier than the previous one's start, so a
    submission only extends it: a :class:`vcsched.sim.planning.PlanningSnapshot` that
    reserved jobs here computed exactly what submitting them would, and the cluster adopts
    it (:meth:`adopt_plan`).
    """

    policy = "fcfs"
    plan_in_order = True

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

    def cancel_many(self, jobs: list[int]) -> None:
        """:meth:`Cluster.cancel_many` with one plan drop and one pass request (FCFS's cancellation hook only drops
        the plan)."""
        waiting = self.waiting_jobs
        if len(jobs) >= len(waiting) and waiting.keys() <= set(jobs):  # every waiting job (Algorithm 2's case)
            gone = bool(waiting)
            waiting.clear()
        else:
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
        est.adopt(jobs, t, f, starts)
        if jobs:
            self._request_pass()
        return True
