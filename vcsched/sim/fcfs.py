"""First come, first served (seed §3.1, FCFS [22]): a job starts once every earlier job has started and enough
processors are free."""

from __future__ import annotations

import numpy as np

from vcsched.sim.queued import QueuedCluster, _Run

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

    def _reset(self) -> None:
        super()._reset()
        self._run: _Run | None = None  # a bulk adoption's jobs, ahead of every job of waiting_jobs

    # ------------------------------------------------------------------ the queue: _run, then waiting_jobs
    def waiting(self) -> list[int]:
        run = self._run
        if run is None or not run.alive:
            return list(self.waiting_jobs)
        return run.live().tolist() + list(self.waiting_jobs)

    def is_waiting(self, j: int) -> bool:
        return j in self.waiting_jobs or (self._run is not None and self._run.place(j) >= 0)

    def busy(self) -> bool:
        return bool(self.waiting_jobs or self.running_jobs) or (self._run is not None and self._run.alive > 0)

    def waiting_rows(self) -> np.ndarray:
        rows = super().waiting_rows()
        run = self._run
        if run is None or not run.alive:
            return rows
        return np.concatenate((run.live(), rows))

    def _head(self) -> int | None:
        run = self._run
        if run is not None:
            p = run.head()
            if p >= 0:
                return int(run.jobs[p])
            self._run = None
        return super()._head()

    def cancel(self, j: int) -> bool:
        run = self._run
        if run is not None and j not in self.waiting_jobs and run.pop(j) is not None:
            self._on_cancel(j)
            self._request_pass()
            return True
        return super().cancel(j)

    def _pass(self, _=None) -> None:
        self._pass_pending = False
        P = self.P
        run = self._run
        while run is not None:  # the bulk adoption's jobs first
            p = run.head()
            if p < 0:
                self._run = run = None
                break
            j = int(run.jobs[p])
            if P[j] > self.free:
                return
            run.pop(j)
            self._start(j)
        waiting = self.waiting_jobs
        if not waiting:
            return
        while waiting:
            j = self._head()
            if P[j] > self.free:
                break
            del waiting[j]
            self._fifo.popleft()
            self._start(j)

    def cancel_many(self, jobs) -> None:
        """:meth:`Cluster.cancel_many` with one plan drop and one pass request (FCFS's cancellation hook only drops
        the plan)."""
        gone = False
        run = self._run
        if run is not None and run.alive:
            gone = run.remove(np.asarray(jobs, dtype=np.int64))
            if not run.alive:
                self._run = None
        waiting = self.waiting_jobs
        if waiting:
            jobs = jobs.tolist() if isinstance(jobs, np.ndarray) else jobs
            if len(jobs) >= len(waiting) and waiting.keys() <= set(jobs):  # every waiting job (Algorithm 2's case)
                waiting.clear()
                gone = True
            else:
                mine = [j for j in jobs if j in waiting]
                for j in mine:
                    del waiting[j]
                gone = gone or bool(mine)
        if not waiting:
            self._fifo.clear()  # every entry is stale (what _head would drop one by one)
        if gone:
            self._plan = None
            self._request_pass()

    def planning_token(self):
        return (self._plan, self._tickets)

    def adopt_plan(self, jobs: list[int], t: np.ndarray, f: np.ndarray, starts, token) -> bool:
        """:meth:`Cluster.adopt_plan`: what one :meth:`submit` per job would do, with the planning done.

        Each job gets the next ticket and goes to the end of the queue, and the estimate
        plan, the one the snapshot copied (:meth:`resubmission_plan` made it current, and
        the token says it is still this plan with no submission since), takes the
        snapshot's profile, the jobs' planned starts, and the lower bound of the next one
        (the last start). On an empty queue the jobs are kept as arrays (a :class:`_Run`)
        instead of one dict entry each. Tested equal to one submission per job.
        """
        est = self._plan
        if est is None or token is None or token[0] is not est or token[1] != self._tickets:
            return False
        rows = np.asarray(jobs, dtype=np.int64)
        procs = self.procs
        if rows.size and int(self._widths[rows].max()) > procs:
            self._too_wide(next(j for j in rows.tolist() if self.P[j] > procs))
        t0 = self._tickets
        if not self.waiting_jobs and (self._run is None or not self._run.alive):
            self._run = _Run(rows, np.arange(t0 + 1, t0 + 1 + rows.size, dtype=np.float64), self._widths.size, True)
        else:
            jobs = rows.tolist()
            tickets = range(t0 + 1, t0 + 1 + len(jobs))
            self.waiting_jobs.update(zip(jobs, tickets))
            self._fifo.extend(zip(tickets, jobs))
        self._tickets = t0 + rows.size
        est.adopt(rows, t, f, starts)
        if rows.size:
            self._request_pass()
        return True
