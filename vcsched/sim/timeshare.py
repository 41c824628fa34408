"""Time-shared servers in a client-agent-server system, and the Historical Trace Manager.

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
* Load reports (the monitors NetSolve's MCT relies on, §5): a server reports its
  load (the number of tasks in their computation phase) to the agent when it
  changes, at most once per ``report_period`` (60 s); a change inside the period is
  reported at its end if the load still differs from the last report. The agent is
  told when a task finishes (at the end of its output transfer). With
  ``load_sensor="loadavg"`` the server reports instead a Unix-style load average
  (NetSolve's real sensor), checked every 60 s: see :func:`simulate`.

Processor sharing in closed form
--------------------------------
With virtual time ``V`` advancing at rate ``1/n(t)``, a task joining the computation
at virtual time ``V_j`` with work ``w`` ends when ``V`` reaches its *tag* ``V_j + w``.
With tags ``F_1 <= ... <= F_n`` and no join, task ``k`` ends at
``t + sum_{l<=k} (F_l - F_{l-1}) (n - l + 1)`` (``F_0 = V(t)``): one sort and one
cumulative sum (the water-level computation). Joins (tasks still in their input
transfer, or the new task) split the horizon into segments handled the same way:
:func:`ps_advance`.

The Historical Trace Manager (§2.3-2.4)
---------------------------------------
:class:`HistoricalTraceManager` replays this model from the agent's mapping decisions
alone (it is told nothing else) to predict, for a new task on every server, its
completion date ``T_t`` and the sum of the perturbations ``δ_k = T_k - T'_k`` it causes
to the tasks already there. Its cost per decision is O(n log n) per server in the
number n of tasks the HTM believes are on that server (numpy over tasks; the four
servers are looped over).
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import math
import time
from typing import Any, Sequence

import numpy as np

from vcsched.problems.timeshare import Platform, Workload
from vcsched.sim.kernel import Kernel

__all__ = [
    "ps_advance",
    "ps_completion_times",
    "HistoricalTraceManager",
    "TimesharePolicy",
    "TimeshareRun",
    "simulate",
    "LOAD_SENSORS",
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

_EMPTY_F = np.empty(0)
_EMPTY_I = np.empty(0, dtype=np.int64)


_COUNTS = np.arange(1024, 0, -1, dtype=float)


def _counts(n: int) -> np.ndarray:
    """The view ``[n, n-1, ..., 1]`` of a cached array (numbers of tasks sharing the CPU)."""
    global _COUNTS
    if n > _COUNTS.size:
        _COUNTS = np.arange(max(n, 2 * _COUNTS.size), 0, -1, dtype=float)
    return _COUNTS[_COUNTS.size - n:]


def _insert(a: np.ndarray, pos: int, value) -> np.ndarray:
    out = np.empty(a.size + 1, dtype=a.dtype)
    out[:pos] = a[:pos]
    out[pos] = value
    out[pos + 1:] = a[pos:]
    return out


def _segment_times(t: float, v: float, tags: np.ndarray) -> np.ndarray:
    """End dates of the tasks of sorted ``tags`` from ``(t, V=v)`` when nobody joins (water level)."""
    n = tags.size
    d = np.empty(n)
    d[0] = tags[0] - v
    if n > 1:
        np.subtract(tags[1:], tags[:-1], out=d[1:])
    d *= _counts(n)
    np.cumsum(d, out=d)
    d += t
    return d


_SMALL = 48  # below this many tasks, plain Python floats beat numpy's per-call overhead


def _ps_advance_small(t, v, tags, ids, joins, until):
    """:func:`ps_advance` on Python lists, with the same floating-point operations as the numpy path."""
    ended_ids: list = []
    ended_times: list = []
    k = 0
    nj = len(joins)
    inf = math.inf
    while True:
        next_join = joins[k][0] if k < nj else inf
        stop = next_join if next_join < until else until
        n = len(tags)
        if n:
            m = 0
            acc = 0.0
            prev = v
            c = float(n)
            t_m, v_m = t, v
            for x in tags:
                acc += (x - prev) * c
                end = acc + t
                if end > stop:
                    break
                ended_times.append(end)
                t_m, v_m = end, x
                prev = x
                c -= 1.0
                m += 1
            if m:
                ended_ids.extend(ids[:m])
                tags, ids = tags[m:], ids[m:]
            if stop == inf:
                t, v = t_m, v_m
                break
            v = v_m + (stop - t_m) / len(tags) if tags else v_m
            t = stop
        else:
            if stop == inf:
                break
            t = stop
        if next_join <= until and k < nj:
            _, work, tid = joins[k]
            tag = v + work
            pos = bisect.bisect_right(tags, tag)
            tags = tags[:pos] + [tag] + tags[pos:]
            ids = ids[:pos] + [tid] + ids[pos:]
            k += 1
        else:
            break
    return (t, v, np.array(tags, dtype=float), np.array(ids, dtype=np.int64), list(joins[k:]),
            np.array(ended_ids, dtype=np.int64), np.array(ended_times, dtype=float))


def ps_advance(t: float, v: float, tags: np.ndarray, ids: np.ndarray, joins: Sequence[tuple[float, float, int]],
               until: float = math.inf):
    """Run processor sharing from time ``t`` to ``until`` (to the end by default).

    Parameters
    ----------
    t, v : float
        Current date and virtual time.
    tags : ndarray
        Sorted finish tags (virtual dates) of the tasks computing at ``t``.
    ids : ndarray of int
        Task identifiers, aligned with ``tags``.
    joins : sequence of (date, work, id)
        Tasks that start computing later (input transfer in progress), sorted by date.
    until : float
        Stop date; joins at exactly ``until`` are applied (they precede decisions).

    Returns
    -------
    (t, v, tags, ids, joins, ended_ids, ended_times)
        The state at ``until`` (or at the last end), the joins not yet applied, and the
        tasks whose computation ended, with their end dates (in end order).

    Notes
    -----
    O((k + 1) n) after the tags are sorted, for k joins.
    """
    if tags.size + len(joins) <= _SMALL:
        return _ps_advance_small(t, v, tags.tolist(), ids.tolist(), joins, until)
    ended_ids: list[np.ndarray] = []
    ended_times: list[np.ndarray] = []
    k = 0
    nj = len(joins)
    while True:
        next_join = joins[k][0] if k < nj else math.inf
        stop = next_join if next_join < until else until
        n = tags.size
        if n:
            times = _segment_times(t, v, tags)
            m = n if stop == math.inf else int(np.searchsorted(times, stop, side="right"))
            if m:
                ended_ids.append(ids[:m])
                ended_times.append(times[:m])
                t_m, v_m = float(times[m - 1]), float(tags[m - 1])
                tags, ids = tags[m:], ids[m:]
            else:
                t_m, v_m = t, v
            if stop == math.inf:
                t, v = t_m, v_m
                break
            v = v_m + (stop - t_m) / tags.size if tags.size else v_m
            t = stop
        else:
            if stop == math.inf:
                break
            t = stop
        if next_join <= until and k < nj:
            _, work, tid = joins[k]
            tag = v + work
            pos = int(np.searchsorted(tags, tag, side="right"))
            tags = _insert(tags, pos, tag)
            ids = _insert(ids, pos, tid)
            k += 1
        else:
            break
    if ended_ids:
        e_ids = np.concatenate(ended_ids) if len(ended_ids) > 1 else ended_ids[0]
        e_times = np.concatenate(ended_times) if len(ended_times) > 1 else ended_times[0]
    else:
        e_ids, e_times = _EMPTY_I, _EMPTY_F
    return t, v, tags, ids, list(joins[k:]), e_ids, e_times


def ps_completion_times(works: Sequence[float], starts: Sequence[float] | None = None) -> np.ndarray:
    """Computation end dates of tasks sharing one CPU equally (1/n each), in closed form.

    Parameters
    ----------
    works : sequence of float
        Computation time of each task on the unloaded server.
    starts : sequence of float, optional
        Date each task starts computing (default all 0).

    Examples
    --------
    Two tasks of 10 and 30 s started together end at 20 and 40 s; a task of 10 s
    arriving at 5 s beside a task of 10 s: the first ends at 15, the second at 20.

    >>> ps_completion_times([10, 30]).tolist()
    [20.0, 40.0]
    >>> ps_completion_times([10, 10], [0, 5]).tolist()
    [15.0, 20.0]
    """
    works = np.asarray(works, dtype=float)
    starts = np.zeros_like(works) if starts is None else np.asarray(starts, dtype=float)
    order = np.argsort(starts, kind="stable")
    joins = [(float(starts[i]), float(works[i]), int(i)) for i in order]
    t0 = joins[0][0] if joins else 0.0
    *_, e_ids, e_times = ps_advance(t0, 0.0, _EMPTY_F, _EMPTY_I, joins)
    out = np.empty(works.size)
    out[e_ids] = e_times
    return out


@dataclasses.dataclass
class _Trace:
    """What the HTM believes about one server at date ``t``."""

    t: float = 0.0
    v: float = 0.0
    tags: np.ndarray = dataclasses.field(default_factory=lambda: _EMPTY_F)
    ids: np.ndarray = dataclasses.field(default_factory=lambda: _EMPTY_I)
    joins: list = dataclasses.field(default_factory=list)

    def empty(self) -> bool:
        return self.tags.size == 0 and not self.joins

    def task_ids(self) -> np.ndarray:
        if not self.joins:
            return self.ids
        return np.concatenate([self.ids, np.array([j[2] for j in self.joins], dtype=np.int64)])


class HistoricalTraceManager:
    """The agent's Historical Trace Manager (§2.3): a processor-sharing replay of its decisions.

    Parameters
    ----------
    platform : Platform
        Costs the agent knows (Tables 4-5, "available directly in the code of NetSolve").

    Notes
    -----
    The HTM is told only the mapping decisions (Fig. 2-4, last line); it never learns
    real completions or refusals (task feedback is the paper's future work, §6), so a
    task refused by its server stays in the HTM's Gantt chart until its predicted end.

    A schedule predicted at a commit does not change until the next commit on the same
    server, so the baseline dates ``T'_k`` are cached per task and a prediction costs one
    replay per server (with the new task); a commit costs one more replay.

    Examples
    --------
    >>> from vcsched.problems.timeshare import platform_for
    >>> htm = HistoricalTraceManager(platform_for("2"))
    >>> T, P = htm.predict(0, now=0.0)
    >>> [round(float(x), 2) for x in T]          # unloaded: input + computation + output
    [16.14, 17.25, 128.25, 127.77]
    >>> htm.commit(0, task=0, ttype=0, now=0.0)
    >>> T, P = htm.predict(0, now=0.0)
    >>> round(float(T[0]), 2), round(float(P[0]), 2)  # shares spinnaker with task 0: both take 32 s
    (32.14, 16.0)
    """

    def __init__(self, platform: Platform, capacity: int = 1024) -> None:
        self.platform = platform
        self._in = platform.input
        self._comp = platform.compute
        self._out = platform.output
        self._traces = [_Trace() for _ in range(platform.n_servers)]
        self._end = np.full(capacity, np.nan)  # predicted computation end of each committed task
        self._out_of = np.zeros(capacity)  # its output time
        self._server = np.full(capacity, -1, dtype=np.int64)
        self._last: tuple | None = None  # (now, ttype, per-server replays) of the last prediction

    # -- state -----------------------------------------------------------------------
    def _grow(self, task: int) -> None:
        if task < self._end.size:
            return
        size = max(2 * self._end.size, task + 1)
        for name, fill in (("_end", np.nan), ("_out_of", 0.0), ("_server", -1)):
            old = getattr(self, name)
            new = np.full(size, fill, dtype=old.dtype)
            new[: old.size] = old
            setattr(self, name, new)

    def _advance(self, s: int, now: float) -> _Trace:
        tr = self._traces[s]
        if tr.t < now and not tr.empty():
            t, v, tags, ids, joins, _, _ = ps_advance(tr.t, tr.v, tr.tags, tr.ids, tr.joins, until=now)
            tr.t, tr.v, tr.tags, tr.ids, tr.joins = now, v, tags, ids, joins
        elif tr.t < now:
            tr.t = now
        return tr

    def tasks_on(self, server: int, now: float) -> np.ndarray:
        """Identifiers of the tasks the HTM believes are computing or receiving input on ``server`` at ``now``."""
        return self._advance(server, now).task_ids()

    def predicted_completion(self, tasks=None) -> np.ndarray:
        """Predicted completion dates (end of output transfer) of committed tasks (all by default)."""
        ends = self._end + self._out_of
        return ends if tasks is None else ends[np.asarray(tasks)]

    # -- predictions ---------------------------------------------------------------------
    def _replay(self, s: int, ttype: int, now: float):
        tr = self._advance(s, now)
        join = (now + self._in[s, ttype], self._comp[s, ttype], -1)
        if tr.empty():
            return float(join[0] + join[1]), 0.0, _EMPTY_I, _EMPTY_F
        joins = tr.joins
        if not joins or joins[-1][0] <= join[0]:
            joins = joins + [join]
        else:
            joins = sorted(joins + [join], key=lambda j: j[0])
        *_, e_ids, e_times = ps_advance(tr.t, tr.v, tr.tags, tr.ids, joins)
        pos = np.flatnonzero(e_ids == -1)
        t_new = float(e_times[pos[0]])
        mask = np.ones(e_ids.size, dtype=bool)
        mask[pos] = False
        old_ids, old_ends = e_ids[mask], e_times[mask]
        perturbation = float(np.sum(old_ends - self._end[old_ids])) if old_ids.size else 0.0
        return t_new, perturbation, old_ids, old_ends

    def predict(self, ttype: int, now: float) -> tuple[np.ndarray, np.ndarray]:
        """For a new task of type ``ttype`` submitted at ``now``, on every server.

        Returns
        -------
        T : ndarray, shape (n_servers,)
            Predicted completion date ``T_t`` (end of its output transfer).
        P : ndarray, shape (n_servers,)
            Sum of the perturbations ``Σ δ_k = Σ (T_k - T'_k)`` over the tasks already
            on the server (Fig. 3; MSF adds ``T_t - a_t``, Fig. 4).
        """
        n = self.platform.n_servers
        T = np.empty(n)
        P = np.empty(n)
        replays = []
        for s in range(n):
            t_new, pert, old_ids, old_ends = self._replay(s, ttype, now)
            T[s] = t_new + self._out[s, ttype]
            P[s] = pert
            replays.append((old_ids, old_ends))
        self._last = (now, ttype, replays)
        return T, P

    def predict_detail(self, ttype: int, now: float) -> list[dict]:
        """Per server: ``ids`` of the tasks there, their dates without (``before``) and with (``after``) the new task,
        and the new task's date ``new`` (all completion dates, output included). For tests and the MSF check."""
        out = []
        T, _ = self.predict(ttype, now)
        for s, (old_ids, old_ends) in enumerate(self._last[2]):
            ids = old_ids
            out.append({"ids": ids, "before": self._end[ids] + self._out_of[ids],
                        "after": old_ends + self._out_of[ids], "new": float(T[s])})
        return out

    # -- decisions -----------------------------------------------------------------------
    def commit(self, server: int, task: int, ttype: int, now: float) -> None:
        """Record that ``task`` (type ``ttype``, submitted at ``now``) is mapped on ``server`` (Fig. 2, line 5)."""
        self._grow(task)
        s = int(server)
        self._last = None
        tr = self._advance(s, now)
        in_t, comp = self._in[s, ttype], self._comp[s, ttype]
        tr.joins = sorted(tr.joins + [(now + in_t, comp, int(task))], key=lambda j: j[0])
        *_, e_ids, e_times = ps_advance(tr.t, tr.v, tr.tags, tr.ids, tr.joins)
        self._end[e_ids] = e_times
        self._out_of[task] = self._out[s, ttype]
        self._server[task] = s


class TimesharePolicy:
    """Interface of an agent's mapping policy (the simulator never imports one).

    Subclasses implement :meth:`choose`; the hooks default to doing nothing.
    """

    name = "policy"

    def start(self, platform: Platform, n_tasks: int) -> None:
        """Called once before a simulation (reset any state)."""

    def choose(self, task: int, ttype: int, now: float) -> Sequence[int]:
        """Servers to try for request ``task`` of type ``ttype`` arriving at ``now``, best first.

        The client tries them in order until one accepts (memory); return a single server
        for no fault tolerance.
        """
        raise NotImplementedError

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
    __slots__ = ("t", "v", "heap", "version", "mem", "reported", "last_report", "check_pending", "la", "la_t")

    def __init__(self) -> None:
        self.la = 0.0  # Unix-style load average and the date it was last brought up to
        self.la_t = 0.0
        self.t = 0.0
        self.v = 0.0
        self.heap: list = []
        self.version = 0
        self.mem = 0.0
        self.reported = 0
        self.last_report = -math.inf
        self.check_pending = False


LOAD_SENSORS = ("count", "loadavg")


def simulate(platform: Platform, workload: Workload, policy: Any, *, report_period: float = 60.0,
             work_factor: np.ndarray | None = None, trace: bool = False, load_sensor: str = "count",
             loadavg_tau: float = 60.0, report_threshold: float = 0.5) -> TimeshareRun:
    """Simulate the client-agent-server system under ``policy``.

    Parameters
    ----------
    platform : Platform
    workload : Workload
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

    Returns
    -------
    TimeshareRun
    """
    n = workload.n_tasks
    ns = platform.n_servers
    kernel = Kernel()
    servers = [_Server() for _ in range(ns)]
    arrival = np.full(n, np.nan)
    server_of = np.full(n, -1, dtype=np.int64)
    c_start = np.full(n, np.nan)
    c_end = np.full(n, np.nan)
    completion = np.full(n, np.nan)
    refusals = np.zeros(n, dtype=np.int64)
    ttype = workload.ttype
    factor = np.ones(n) if work_factor is None else np.asarray(work_factor, dtype=float)
    if factor.shape != (n,) or np.any(factor <= 0):
        raise ValueError("work_factor must hold one positive number per task")
    log: list = []
    children: list[list[int]] = [[] for _ in range(n)]
    missing = np.zeros(n, dtype=np.int64)
    for i, ps in enumerate(workload.parents):
        missing[i] = len(ps)
        for p in ps:
            children[p].append(i)
    decision_time = 0.0
    decisions = 0
    policy.start(platform, n)
    period = float(report_period)
    mem_cap = platform.memory
    task_mem = platform.task_memory
    if load_sensor not in LOAD_SENSORS:
        raise ValueError(f"unknown load sensor {load_sensor!r}; choose one of {', '.join(LOAD_SENSORS)}")
    smoothed = load_sensor == "loadavg"
    unfinished = [n]

    def touch_la(srv: _Server) -> None:
        now = kernel.now
        if now > srv.la_t:
            k = len(srv.heap)
            srv.la = k + (srv.la - k) * math.exp(-(now - srv.la_t) / loadavg_tau)
            srv.la_t = now

    def periodic_check(s: int) -> None:
        srv = servers[s]
        touch_la(srv)
        if abs(srv.la - srv.reported) >= report_threshold:
            srv.last_report = kernel.now
            srv.reported = srv.la
            policy.load_report(s, srv.la, kernel.now)
        if unfinished[0] > 0:
            kernel.schedule(kernel.now + period, PRIORITY_TS_REPORT, periodic_check, s)

    def load_changed(s: int) -> None:
        if smoothed:
            return
        srv = servers[s]
        now = kernel.now
        if now - srv.last_report >= period:
            send_report(s)
        elif not srv.check_pending:
            srv.check_pending = True
            kernel.schedule(srv.last_report + period, PRIORITY_TS_REPORT, report_check, s)

    def send_report(s: int) -> None:
        srv = servers[s]
        srv.last_report = kernel.now
        srv.reported = len(srv.heap)
        policy.load_report(s, srv.reported, kernel.now)

    def report_check(s: int) -> None:
        srv = servers[s]
        srv.check_pending = False
        if len(srv.heap) != srv.reported:
            send_report(s)

    def advance(srv: _Server) -> None:
        now = kernel.now
        if srv.heap and now > srv.t:
            srv.v += (now - srv.t) / len(srv.heap)
        srv.t = now

    def reschedule(s: int) -> None:
        srv = servers[s]
        srv.version += 1
        if srv.heap:
            tag = srv.heap[0][0]
            when = srv.t + (tag - srv.v) * len(srv.heap)
            kernel.schedule(max(when, kernel.now), PRIORITY_TS_END, compute_done, (s, srv.version))

    def release_children(i: int) -> None:
        for c in children[i]:
            missing[c] -= 1
            if missing[c] == 0:
                kernel.schedule(kernel.now, PRIORITY_TS_SUBMIT, submit, c)

    def submit(i: int) -> None:
        nonlocal decision_time, decisions
        now = kernel.now
        arrival[i] = now
        k = int(ttype[i])
        tic = time.perf_counter()
        ranked = policy.choose(i, k, now)
        decision_time += time.perf_counter() - tic
        decisions += 1
        if trace:
            log.append((now, "submit", i, int(ranked[0]) if len(ranked) else -1))
        for s in ranked:
            s = int(s)
            srv = servers[s]
            if srv.mem + task_mem[k] > mem_cap[s] + 1e-9:
                refusals[i] += 1
                if trace:
                    log.append((now, "refuse", i, s))
                continue
            srv.mem += task_mem[k]
            server_of[i] = s
            kernel.schedule(now + platform.input[s, k], PRIORITY_TS_JOIN, join, i)
            return
        if trace:
            log.append((now, "lost", i, -1))
        unfinished[0] -= 1
        release_children(i)

    def join(i: int) -> None:
        s = int(server_of[i])
        srv = servers[s]
        touch_la(srv)
        advance(srv)
        c_start[i] = kernel.now
        heapq.heappush(srv.heap, (srv.v + platform.compute[s, ttype[i]] * factor[i], i))
        if trace:
            log.append((kernel.now, "start", i, s))
        reschedule(s)
        load_changed(s)

    def compute_done(arg) -> None:
        s, version = arg
        srv = servers[s]
        if version != srv.version:
            return
        touch_la(srv)
        tag, i = heapq.heappop(srv.heap)
        srv.v = tag
        srv.t = kernel.now
        c_end[i] = kernel.now
        if trace:
            log.append((kernel.now, "compute_end", i, s))
        kernel.schedule(kernel.now + platform.output[s, ttype[i]], PRIORITY_TS_END, done, i)
        reschedule(s)
        load_changed(s)

    def done(i: int) -> None:
        s = int(server_of[i])
        completion[i] = kernel.now
        unfinished[0] -= 1
        servers[s].mem -= task_mem[ttype[i]]
        if trace:
            log.append((kernel.now, "done", i, s))
        policy.task_finished(s, i, kernel.now)
        release_children(i)

    for i in range(n):
        if missing[i] == 0:
            kernel.schedule(float(workload.release[i]), PRIORITY_TS_SUBMIT, submit, i)
    if smoothed and n:
        for s in range(ns):
            kernel.schedule(period, PRIORITY_TS_REPORT, periodic_check, s)
    kernel.run()
    duration = np.full(n, np.nan)
    ok = server_of >= 0
    duration[ok] = platform.duration[server_of[ok], ttype[ok]]
    return TimeshareRun(arrival=arrival, server=server_of, compute_start=c_start, compute_end=c_end,
                        completion=completion, duration=duration, refusals=refusals, ttype=ttype.copy(),
                        client=workload.client.copy(), servers=platform.servers, trace=log,
                        decision_seconds=decision_time, decisions=decisions)
