"""Time-shared servers in a client-agent-server system: the simulator.

Model (seed 003, Caniou & Jeannot RR-5168, §2)
----------------------------------------------
* Clients submit requests to one agent, which maps each request to a server at its
  arrival (the *policy*, passed in: this module imports none). The agent returns a
  ranked list of servers; the client tries them in order (NetSolve's fault
  tolerance) and the first that has room accepts the request.
* A server runs every task it accepts at once. A task has three phases: input
  transfer, computation, output transfer (Tables 4-5). **Transfers are dedicated**
  (not shared, not slowed down by other tasks: our choice, the paper only says the
  HTM simulates the three phases, §2.3); **the computations in progress share the
  CPU equally**: with n tasks computing, each progresses at rate 1/n (§2.3).
* **Memory collapse model (§5.2.1)**: a task holds ``task_memory[type]`` MB on its
  server from its arrival to the end of its output transfer; a server whose capacity
  (by default its physical memory, Table 3, see :func:`vcsched.problems.timeshare.make_platform`)
  would be exceeded *refuses* the request, and the client tries
  the next server of the agent's list. A request refused by every listed server is
  lost: it never completes (``completion = nan``, ``server = -1``) and, inside an
  application, counts as done at its refusal so that its children are released (the
  paper's NetSolve client does so, §5.6.3). Completed-task counts show collapses.
  We did not model swapping slow-downs: a server is either able to take a task or not.
  With ``overflow="close"`` a server that refuses a request for lack of memory is
  closed: it refuses every later request (the servers that "cannot accept any more
  jobs because they run out of memory" and "collapsed", §5.2.1); the tasks it holds
  still finish. The default ``"refuse"`` refuses only the requests that do not fit.
* Load reports (the monitors NetSolve's MCT relies on, §5): a server reports its
  load (the number of tasks in their computation phase) to the agent when it
  changes, at most once per ``report_period`` (60 s); a change inside the period is
  reported at its end if the load still differs from the last report. The agent is
  told when a task finishes (at the end of its output transfer). With
  ``load_sensor="loadavg"`` the server reports instead a Unix-style load average
  (NetSolve's real sensor), checked every 60 s: see :func:`simulate_timeshare`.

Where each part lives
---------------------
* this module: the simulator (:class:`TimeshareSimulation`, run by
  :func:`simulate_timeshare`), the policy interface and the run's outcome;
* :mod:`vcsched.sim.processor_sharing`: the processor-sharing maths the Historical
  Trace Manager replays (:func:`ps_advance`, :func:`ps_completion_times`); the
  simulator itself keeps each server's finish tags in a heap and advances virtual
  time event by event (:meth:`TimeshareSimulation._advance`);
* :mod:`vcsched.sim.htm`: the agent's :class:`HistoricalTraceManager` (§2.3-2.4).

Their public names are importable from here too.
"""

from __future__ import annotations

import abc
import dataclasses
import heapq
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.names.timeshare import LOAD_SENSORS, OVERFLOWS
from vcsched.problems.timeshare import Platform, TimeshareWorkload
from vcsched.sim.htm import HistoricalTraceManager
from vcsched.sim.kernel import Kernel
from vcsched.sim.processor_sharing import ps_advance, ps_completion_times

__all__ = [
    "ps_advance",
    "ps_completion_times",
    "HistoricalTraceManager",
    "TimesharePolicy",
    "TimeshareRun",
    "TimeshareSimulation",
    "simulate_timeshare",
    "simulate",
    "LOAD_SENSORS",
    "OVERFLOWS",
    "PRIORITY_TS_END",
    "PRIORITY_TS_JOIN",
    "PRIORITY_TS_REPORT",
    "PRIORITY_TS_SUBMIT",
]

# Order of the events of one instant (lower first): a task that ends at t is gone
# before a task that joins at t, and both before the load report and the agent's
# decisions at t.
PRIORITY_TS_END = 0
PRIORITY_TS_JOIN = 5
PRIORITY_TS_REPORT = 15
PRIORITY_TS_SUBMIT = 20


class TimesharePolicy(abc.ABC):
    """Interface of an agent's mapping policy (the simulator never imports one).

    Subclasses implement :meth:`choose`; the hooks default to doing nothing.
    """

    name = "policy"

    def start(self, platform: Platform, n_tasks: int) -> None:
        """Called once before a simulation (reset any state)."""

    @abc.abstractmethod
    def choose(self, task: int, ttype: int, now: float) -> Sequence[int]:
        """Servers to try for request ``task`` of type ``ttype`` arriving at ``now``, best first.

        The client tries them in order until one accepts (memory); return a single server
        for no fault tolerance.
        """

    def load_report(self, server: int, load: int, now: float) -> None:
        """A server reports its load (number of tasks computing)."""

    def task_finished(self, server: int, task: int, now: float) -> None:
        """The agent learns that ``task`` finished on ``server`` (result sent back)."""


@dataclasses.dataclass
class TimeshareRun:
    """Outcome of one simulation (arrays indexed by task).

    Attributes
    ----------
    arrival : submission dates to the agent (``nan`` if never submitted)
    server : server that ran the task (``-1``: refused everywhere)
    compute_start, compute_end, completion : dates (``nan`` when not reached)
    duration : ``d_i``, unloaded duration on its server (``nan`` when refused)
    refusals : number of refusals (memory) met by each task
    ttype, client : from the workload
    trace : list of (time, event, task, server) when asked for
    decision_seconds : wall time spent in the policy's ``choose``
    decisions : number of decisions
    """

    arrival: np.ndarray
    server: np.ndarray
    compute_start: np.ndarray
    compute_end: np.ndarray
    completion: np.ndarray
    duration: np.ndarray
    refusals: np.ndarray
    ttype: np.ndarray
    client: np.ndarray
    servers: tuple
    trace: list
    decision_seconds: float
    decisions: int


class _Server:
    """State of one time-shared server during a run.

    ``t``, ``v``: date and virtual time it was last brought up to (:meth:`TimeshareSimulation._advance`);
    ``heap``: (finish tag, task) of the tasks computing; ``version``: bumped at each
    change, so that a stale end-of-computation event is ignored; ``mem``: memory held;
    ``reported``, ``last_report``, ``check_pending``: the load-report state; ``la``,
    ``la_t``: the Unix-style load average and the date it was brought up to.
    """

    __slots__ = ("t", "v", "heap", "version", "mem", "reported", "last_report", "check_pending", "la", "la_t")

    def __init__(self) -> None:
        self.la = 0.0
        self.la_t = 0.0
        self.t = 0.0
        self.v = 0.0
        self.heap: list = []
        self.version = 0
        self.mem = 0.0
        self.reported = 0
        self.last_report = -math.inf
        self.check_pending = False


class TimeshareSimulation:
    """One run of the client-agent-server model under a policy (see :func:`simulate_timeshare`).

    The event handlers (methods ``_submit``, ``_join``, ``_compute_done``, ``_done`` and
    the load-report ones) share the state held here: the kernel, one :class:`_Server`
    per server, and per-task arrays (``arrival``, ``server_of``, ``compute_start``,
    ``compute_end``, ``completion``, ``refusals``) that :meth:`run` returns as a
    :class:`TimeshareRun`. Use it once: build, then :meth:`run`.
    """

    def __init__(self, platform: Platform, workload: TimeshareWorkload, policy: Any, *, report_period: float = 60.0,
                 work_factor: np.ndarray | None = None, trace: bool = False, load_sensor: str = "count",
                 loadavg_tau: float = 60.0, report_threshold: float = 0.5, overflow: str = "refuse") -> None:
        n = workload.n_tasks
        factor = np.ones(n) if work_factor is None else np.asarray(work_factor, dtype=float)
        if factor.shape != (n,) or np.any(factor <= 0):
            raise InvalidInputError(f"work_factor must hold one positive number per task ({n} tasks), "
                                    f"got shape {factor.shape}")
        if load_sensor not in LOAD_SENSORS:
            raise InvalidInputError(f"unknown load sensor {load_sensor!r}; choose one of {', '.join(LOAD_SENSORS)}")
        if overflow not in OVERFLOWS:
            raise InvalidInputError(f"unknown memory overflow rule {overflow!r}; choose one of {', '.join(OVERFLOWS)}")
        self.close_on_overflow = overflow == "close"
        self.closed = np.zeros(platform.n_servers, dtype=bool)
        self.platform = platform
        self.workload = workload
        self.policy = policy
        self.period = float(report_period)
        self.factor = factor
        self.tracing = bool(trace)
        self.smoothed = load_sensor == "loadavg"
        self.loadavg_tau = loadavg_tau
        self.report_threshold = report_threshold
        self.kernel = Kernel()
        self.servers = [_Server() for _ in range(platform.n_servers)]
        self.ttype = workload.ttype
        self.mem_cap = platform.memory
        self.task_mem = platform.task_memory
        self.arrival = np.full(n, np.nan)
        self.server_of = np.full(n, -1, dtype=np.int64)
        self.compute_start = np.full(n, np.nan)
        self.compute_end = np.full(n, np.nan)
        self.completion = np.full(n, np.nan)
        self.refusals = np.zeros(n, dtype=np.int64)
        self.log: list = []
        self.children: list[list[int]] = [[] for _ in range(n)]
        self.missing = np.zeros(n, dtype=np.int64)  # parents not yet done (or lost)
        for i, parents in enumerate(workload.parents):
            self.missing[i] = len(parents)
            for p in parents:
                self.children[p].append(i)
        self.unfinished = n
        self.decision_seconds = 0.0
        self.decisions = 0

    def run(self) -> TimeshareRun:
        """Submit the tasks without parents at their release dates, run to the end, return the outcome."""
        platform, workload = self.platform, self.workload
        n = workload.n_tasks
        self.policy.start(platform, n)
        for i in range(n):
            if self.missing[i] == 0:
                self.kernel.schedule(float(workload.release[i]), PRIORITY_TS_SUBMIT, self._submit, i)
        if self.smoothed and n:
            for s in range(platform.n_servers):
                self.kernel.schedule(self.period, PRIORITY_TS_REPORT, self._periodic_check, s)
        self.kernel.run()
        duration = np.full(n, np.nan)
        ok = self.server_of >= 0
        duration[ok] = platform.duration[self.server_of[ok], self.ttype[ok]]
        return TimeshareRun(arrival=self.arrival, server=self.server_of, compute_start=self.compute_start,
                            compute_end=self.compute_end, completion=self.completion, duration=duration,
                            refusals=self.refusals, ttype=self.ttype.copy(), client=workload.client.copy(),
                            servers=platform.servers, trace=self.log, decision_seconds=self.decision_seconds,
                            decisions=self.decisions)

    # -- tasks: submission, input transfer, computation, output transfer ------------------
    def _submit(self, i: int) -> None:
        """Task ``i`` reaches the agent: the policy ranks the servers, the first with room takes it (§2, §5.2.1)."""
        now = self.kernel.now
        self.arrival[i] = now
        k = int(self.ttype[i])
        tic = time.perf_counter()
        ranked = self.policy.choose(i, k, now)
        self.decision_seconds += time.perf_counter() - tic
        self.decisions += 1
        tracing, log = self.tracing, self.log
        if tracing:
            log.append((now, "submit", i, int(ranked[0]) if len(ranked) else -1))
        need = self.task_mem[k]
        for s in ranked:
            s = int(s)
            srv = self.servers[s]
            if self.closed[s] or srv.mem + need > self.mem_cap[s] + 1e-9:
                self.closed[s] = self.close_on_overflow
                self.refusals[i] += 1
                if tracing:
                    log.append((now, "refuse", i, s))
                continue
            srv.mem += need
            self.server_of[i] = s
            self.kernel.schedule(now + self.platform.input[s, k], PRIORITY_TS_JOIN, self._join, i)
            return
        if tracing:
            log.append((now, "lost", i, -1))
        self.unfinished -= 1
        self._release_children(i)

    def _join(self, i: int) -> None:
        """Task ``i``'s input transfer ends: it starts computing (its finish tag is ``V + work``)."""
        s = int(self.server_of[i])
        srv = self.servers[s]
        now = self.kernel.now
        self._touch_loadavg(srv)
        self._advance(srv)
        self.compute_start[i] = now
        heapq.heappush(srv.heap, (srv.v + self.platform.compute[s, self.ttype[i]] * self.factor[i], i))
        if self.tracing:
            self.log.append((now, "start", i, s))
        self._reschedule(s)
        self._load_changed(s)

    def _compute_done(self, arg: tuple[int, int]) -> None:
        """The task with the smallest tag on server ``s`` ends its computation (unless the server changed since)."""
        s, version = arg
        srv = self.servers[s]
        if version != srv.version:
            return
        now = self.kernel.now
        self._touch_loadavg(srv)
        tag, i = heapq.heappop(srv.heap)
        srv.v = tag
        srv.t = now
        self.compute_end[i] = now
        if self.tracing:
            self.log.append((now, "compute_end", i, s))
        self.kernel.schedule(now + self.platform.output[s, self.ttype[i]], PRIORITY_TS_END, self._done, i)
        self._reschedule(s)
        self._load_changed(s)

    def _done(self, i: int) -> None:
        """Task ``i``'s output transfer ends: it frees its memory, the agent is told, its children are released."""
        s = int(self.server_of[i])
        now = self.kernel.now
        self.completion[i] = now
        self.unfinished -= 1
        self.servers[s].mem -= self.task_mem[self.ttype[i]]
        if self.tracing:
            self.log.append((now, "done", i, s))
        self.policy.task_finished(s, i, now)
        self._release_children(i)

    def _release_children(self, i: int) -> None:
        """Task ``i`` is done or lost: submit, now, each child whose parents are all done or lost."""
        missing = self.missing
        for c in self.children[i]:
            missing[c] -= 1
            if missing[c] == 0:
                self.kernel.schedule(self.kernel.now, PRIORITY_TS_SUBMIT, self._submit, c)

    # -- processor sharing (virtual time) ----------------------------------------------
    def _advance(self, srv: _Server) -> None:
        """Bring the server's virtual time to now: it advanced at rate ``1 / (tasks computing)``."""
        now = self.kernel.now
        if srv.heap and now > srv.t:
            srv.v += (now - srv.t) / len(srv.heap)
        srv.t = now

    def _reschedule(self, s: int) -> None:
        """Schedule the end of the computation with the smallest tag on server ``s`` (older events go stale)."""
        srv = self.servers[s]
        srv.version += 1
        if srv.heap:
            tag = srv.heap[0][0]
            when = srv.t + (tag - srv.v) * len(srv.heap)
            self.kernel.schedule(max(when, self.kernel.now), PRIORITY_TS_END, self._compute_done, (s, srv.version))

    # -- load reports (§5) ---------------------------------------------------------------
    def _load_changed(self, s: int) -> None:
        """Sensor ``count``: report now if the period since the last report has passed, else check at its end."""
        if self.smoothed:
            return
        srv = self.servers[s]
        if self.kernel.now - srv.last_report >= self.period:
            self._send_report(s)
        elif not srv.check_pending:
            srv.check_pending = True
            self.kernel.schedule(srv.last_report + self.period, PRIORITY_TS_REPORT, self._report_check, s)

    def _send_report(self, s: int) -> None:
        srv = self.servers[s]
        srv.last_report = self.kernel.now
        srv.reported = len(srv.heap)
        self.policy.load_report(s, srv.reported, self.kernel.now)

    def _report_check(self, s: int) -> None:
        """End of a report period with a change inside it: report if the load still differs from the last report."""
        srv = self.servers[s]
        srv.check_pending = False
        if len(srv.heap) != srv.reported:
            self._send_report(s)

    def _touch_loadavg(self, srv: _Server) -> None:
        """Bring the load average to now (exact exponential smoothing of the constant count since ``la_t``)."""
        now = self.kernel.now
        if now > srv.la_t:
            k = len(srv.heap)
            srv.la = k + (srv.la - k) * math.exp(-(now - srv.la_t) / self.loadavg_tau)
            srv.la_t = now

    def _periodic_check(self, s: int) -> None:
        """Sensor ``loadavg``: every period, report the load average if it moved by the threshold."""
        srv = self.servers[s]
        self._touch_loadavg(srv)
        now = self.kernel.now
        if abs(srv.la - srv.reported) >= self.report_threshold:
            srv.last_report = now
            srv.reported = srv.la
            self.policy.load_report(s, srv.la, now)
        if self.unfinished > 0:
            self.kernel.schedule(now + self.period, PRIORITY_TS_REPORT, self._periodic_check, s)


def simulate_timeshare(platform: Platform, workload: TimeshareWorkload, policy: Any, *, report_period: float = 60.0,
                       work_factor: np.ndarray | None = None, trace: bool = False, load_sensor: str = "count",
                       loadavg_tau: float = 60.0, report_threshold: float = 0.5,
                       overflow: str = "refuse") -> TimeshareRun:
    """Simulate the client-agent-server system under ``policy`` (a :class:`TimeshareSimulation`).

    Also importable as ``vcsched.sim.timeshare.simulate`` (its former name).

    Parameters
    ----------
    platform : Platform
    workload : vcsched.problems.timeshare.TimeshareWorkload
    policy : TimesharePolicy
        Any object with the interface of :class:`TimesharePolicy`.
    report_period : float
        Minimum time between two load reports of a server (NetSolve: 60 s, §5).
    work_factor : ndarray, optional
        Multiplies each task's real computation time (the agent still uses the tables):
        a way to model the prediction errors of a real platform (Table 1). Default 1.
    trace : bool
        Record the events ``(time, event, task, server)`` with events ``submit``,
        ``refuse``, ``lost``, ``start`` (computation), ``compute_end``, ``done``.
    load_sensor : {"count", "loadavg"}
        What a server reports: the number of tasks computing, sent when it changes (at
        most once per period; default), or a Unix-style load average (the number of
        computing tasks exponentially smoothed with time constant ``loadavg_tau`` = 60 s,
        computed exactly between events), checked every ``report_period`` and sent when
        it moved by at least ``report_threshold`` since the last report (NetSolve's
        real sensor, §2.2 and §5).
    overflow : {"refuse", "close"}
        A request that would exceed a server's memory is refused (default); with
        ``"close"`` the server also refuses every later request (§5.2.1's collapse).

    Returns
    -------
    TimeshareRun

    Raises
    ------
    InvalidInputError
        ``work_factor`` of the wrong shape or not positive; unknown ``load_sensor`` or ``overflow``.
    """
    return TimeshareSimulation(platform, workload, policy, report_period=report_period, work_factor=work_factor,
                               trace=trace, load_sensor=load_sensor, loadavg_tau=loadavg_tau,
                               report_threshold=report_threshold, overflow=overflow).run()


simulate = simulate_timeshare
