"""DIET hierarchical request flow: agent tree, server daemons (SeDs), clients (seed 004 §3-5).

A Master Agent (MA) at the root, Local Agents (LA) below it, SeDs at the leaves.
A client request travels down the tree to every SeD, each SeD answers with its
estimates (a :class:`Response`), every agent merges its children's lists and
keeps the ``n_best`` best (§4), and the client submits its solve to the first
server of the list it gets back. The simulator owns the *mechanics* (timings,
processor sharing, queues, the MA's window loop); every *decision* comes from a
policy object passed in (:class:`DietPolicy`, implemented in ``heuristics.diet``):
the simulator never imports a policy.

Model and documented choices
----------------------------
Timing of one request (all parameters of :class:`DietPlatform`):

* client -> MA: ``hop_latency``; every agent spends ``agent_time`` before
  forwarding down, every hop costs ``hop_latency``; a SeD answers after
  ``sed_time``; an agent waits for all its children's answers, then spends
  ``agent_time`` sorting (Algorithm 1) and sends its list up; MA -> client:
  ``hop_latency``. Agents handle requests concurrently (no agent-side queueing:
  the paper's tree is far from its agent bottleneck, §3).
* The client then sends the solve to the chosen SeD: it arrives after
  ``hop_latency + submit_overhead + in_bytes / bandwidth``. This delay is why
  SeD information can be stale when requests follow each other closely (§5.2,
  *taskLatency*); ``submit_overhead`` is an assumption (see
  :mod:`vcsched.scenarios.diet`).
* The result returns to the client ``hop_latency + out_bytes / bandwidth``
  after the computation ends; turnaround = result at client - submission.

SeDs (§5.1):

* ``cpus`` processors shared among the running jobs: with ``n`` jobs running,
  each progresses at rate ``speed * min(1, cpus / n)`` (a job cannot use more
  than one processor; §6.4.3 observed that two dgemm run in the time of one on
  2 CPUs and four in twice that time).
  With ``interference`` ``a`` > 0 (a platform option, 0 by default) jobs in
  excess of the processors also slow each other down, as contention for memory
  and cache would (§6.4.3 names it as a possible cost of Standard's many jobs
  per SeD, and measured it as negligible for dgemm): each running job
  progresses at ``speed * min(1, cpus / n) / (1 + a * max(0, n - cpus) / cpus)``.
  This is our choice of a simple model (the paper gives none): no effect while
  ``n <= cpus``, and the total throughput falls linearly in the oversubscription
  ``(n - cpus) / cpus``; e.g. four equal jobs on 2 CPUs take ``2T (1 + a)``
  instead of ``2T``.
* A job's actual work is its cost, or with ``exec_cv`` > 0 its cost times a
  Gamma factor of mean 1 and that coefficient of variation (seeded; the SeD
  still predicts the cost): real executions vary a little, which keeps jobs
  started together from finishing in lock-step forever.
* Optional limit on concurrent solves (``concurrency_limit`` of the policy):
  jobs beyond it wait in a FIFO queue and are released in arrival order.
  With ``queue_sync`` > 0 (a platform option, 0 by default) a job released
  from the queue starts computing ``queue_sync`` seconds after the slot freed
  and holds the slot meanwhile without computing: the cost of the semaphore
  hand-off between request threads (§5.1, §6.4.3: "some overhead is associated
  with managing the synchronization of requests"). A job that finds a free
  slot on arrival starts at once.
* Estimates a SeD returns: ``exec_time`` = the job's cost / speed (a
  FAST-like, load-unaware prediction), ``num_jobs`` = jobs present (running +
  waiting), ``since_last_solve`` = time since the last solve request arrived
  (``inf`` if none yet), ``queue_wait`` = estimated wait before a new job would
  start: 0 when a slot is free and no job waits (always 0 without a limit);
  otherwise the earliest predicted release of a running slot plus the sum of the
  waiting jobs' predicted times divided by the number of slots (the paper keeps
  only the count and sum of the waiting jobs, §5.1). Predicted release of a
  running job = its start + cost / speed (dedicated-CPU prediction).

MA window loop (Algorithm 2, when the policy has a ``master``): requests wait at
the MA in FIFO order; at each tick the MA takes ``min(waiting, max_window_size)``
of them, sends them down together, waits for all their answers, calls
``master.refine`` (Algorithm 3 or a variant), returns the lists to the clients,
asks ``master`` for the next window time and sleeps. When idle at the minimum
window time, the MA's polling ticks are skipped until the next request arrives
(the next tick is the first one of the polling grid after the arrival): this
is the same schedule as polling every ``min_window_time``, without the events.

SeDs can be added and removed during a run (:class:`SeDChange`). A removed
SeD's running and waiting jobs are resubmitted by their clients from the MA
(counted in ``resubmissions``): no request is lost. A client whose chosen SeD
disappeared before its solve arrived tries the next server of its list, and
resubmits when none is left.

References
----------
H. Dail, F. Desprez, "Experiences with hierarchical request flow management
for Network-Enabled Server Environments", INRIA RR-5527, 2005 (seed 004).
"""

from __future__ import annotations

import math
from collections.abc import Container, Mapping, Sequence
from typing import Any

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.diet import (
    AgentTree,
    DietPlatform,
    DietRun,
    SeDChange,
    TaskRecord,
    TaskSpec,
    Workload,
)
from vcsched.sim.diet_policy import DietPolicy, Response
from vcsched.sim.kernel import PRIORITY_ARRIVAL, PRIORITY_END, PRIORITY_PASS, Kernel

__all__ = ["simulate_diet", "answer_time", "execution_factors", "iter_execution_factors"]

_EPS = 1e-9


def answer_time(node: str, now: float, children: Mapping[str, Sequence[str]], seds: Container[str],
                platform: DietPlatform, depth: int = 0) -> float:
    """Time ``node`` sends its answer up for a request the MA released at ``now`` (``node`` at ``depth``).

    The request reaches a node at depth ``d`` after ``d`` x (``agent_time`` + ``hop_latency``); a SeD answers
    ``sed_time`` later; an agent waits for all its children's answers (each one hop up), then spends
    ``agent_time`` sorting. ``answer_time(root, t, ...)`` is when the MA holds the sorted lists.
    """
    p = platform
    arrive = now + depth * (p.agent_time + p.hop_latency)
    if node in seds:
        return arrive + p.sed_time
    kids = children.get(node, [])
    latest = max((answer_time(c, now, children, seds, p, depth + 1) + p.hop_latency for c in kids),
                 default=arrive + p.agent_time)
    return latest + p.agent_time


def _noise_generator(rng: np.random.Generator) -> np.random.Generator:
    """The execution-noise stream of a run whose tie-break generator is ``rng`` (its first spawned child)."""
    return rng.spawn(1)[0]


def _gamma_factors(gen: np.random.Generator, cv: float, size: int | None):
    shape = 1.0 / (cv * cv)
    return gen.gamma(shape, 1.0 / shape, size=size)


def execution_factors(platform: DietPlatform, seed: Any, count: int) -> np.ndarray:
    """The factors (actual work / cost) of the first ``count`` jobs the SeDs accept in a run seeded ``seed``.

    The simulator draws one factor per accepted job, in the order the SeDs accept them, from a stream of
    its own (independent of the agents' tie-breaks, hence of the policy): the ``k``-th job accepted gets
    the ``k``-th factor. All ones when ``platform.exec_cv`` is 0.
    """
    return np.concatenate([np.zeros(0), *iter_execution_factors(platform, seed, count)])


def iter_execution_factors(platform: DietPlatform, seed: Any, count: int, *, chunk: int = 1 << 20):
    """:func:`execution_factors` in consecutive pieces of at most ``chunk`` factors (same values, bounded
    memory)."""
    count = int(count)
    if platform.exec_cv <= 0:
        for k in range(0, count, chunk):
            yield np.ones(min(chunk, count - k))
        return
    gen = _noise_generator(np.random.default_rng(seed))
    for k in range(0, count, chunk):
        yield np.asarray(_gamma_factors(gen, platform.exec_cv, min(chunk, count - k)), dtype=float)


# ----------------------------------------------------------------------------------------------------------------
# SeD with processor sharing and an optional FIFO queue
# ----------------------------------------------------------------------------------------------------------------
class _Job:
    __slots__ = ("req", "remaining", "start", "pred_end")

    def __init__(self, req: _Request, work: float) -> None:
        self.req = req
        self.remaining = work
        self.start = math.nan
        self.pred_end = math.nan


class _SeD:
    """A server daemon: processor sharing on ``cpus`` CPUs, optional limit with a FIFO queue."""

    def __init__(self, sim: _Simulation, name: str, speed: float) -> None:
        self.sim = sim
        self.name = name
        self.speed = speed
        self.cpus = sim.platform.cpus
        self.limit = sim.policy.concurrency_limit
        self.running: list[_Job] = []
        self.waiting: list[_Job] = []
        self.handoff: list[_Job] = []
        self.last_solve = -math.inf
        self.updated = 0.0
        self.version = 0
        self.alive = True

    # -- estimates (§4, §5.1) --
    def slots(self) -> int:
        return self.cpus if self.limit is None else min(self.cpus, self.limit)

    def response(self, cost: float, now: float) -> Response:
        wait = 0.0
        busy = len(self.running) + len(self.handoff)
        if self.limit is not None and (busy >= self.limit or self.waiting):
            full = busy >= self.limit and self.running
            first = max(0.0, min(j.pred_end for j in self.running) - now) if full else 0.0
            wait = first + sum(j.req.spec.cost / self.speed for j in self.waiting) / self.limit
        return Response(sed=self.name, exec_time=cost / self.speed,
                        num_jobs=len(self.running) + len(self.handoff) + len(self.waiting),
                        since_last_solve=now - self.last_solve, queue_wait=wait, slots=self.slots())

    # -- processor sharing --
    def _rate(self) -> float:
        n = len(self.running)
        if not n:
            return 0.0
        rate = self.speed * min(1.0, self.cpus / n)
        a = self.sim.platform.interference
        return rate / (1.0 + a * (n - self.cpus) / self.cpus) if a and n > self.cpus else rate

    def _advance(self, now: float) -> None:
        dt = now - self.updated
        if dt > 0 and self.running:
            done = dt * self._rate()
            for j in self.running:
                j.remaining -= done
        self.updated = now

    def _reschedule(self, now: float) -> None:
        self.version += 1
        if not self.running:
            return
        rate = self._rate()
        t = now + max(0.0, min(j.remaining for j in self.running)) / rate
        self.sim.kernel.schedule(t, PRIORITY_END, self._on_completion, self.version)

    def _start(self, job: _Job, now: float) -> None:
        job.start = now
        job.pred_end = now + job.req.spec.cost / self.speed
        job.req.record.start = now
        self.running.append(job)
        self.sim.log(now, "start", job.req.record.task, self.name)

    def accept(self, req: _Request, now: float) -> None:
        self._advance(now)
        self.last_solve = now
        job = _Job(req, self.sim.actual_work(req.spec.cost))
        req.record.arrive_sed = now
        req.record.sed = self.name
        self.sim.log(now, "arrive", req.record.task, self.name)
        if self._free_slot():
            self._start(job, now)
        else:
            self.waiting.append(job)
        self._reschedule(now)

    def _free_slot(self) -> bool:
        return self.limit is None or len(self.running) + len(self.handoff) < self.limit

    def _release_waiting(self, now: float) -> None:
        """Start queued jobs on free slots in FIFO order, after ``queue_sync`` seconds if set."""
        sync = self.sim.platform.queue_sync
        while self.waiting and self._free_slot():
            job = self.waiting.pop(0)
            if sync > 0:
                self.handoff.append(job)
                self.sim.kernel.schedule(now + sync, PRIORITY_END, self._handoff_done, job)
            else:
                self._start(job, now)

    def _handoff_done(self, job: _Job) -> None:
        if not self.alive or job not in self.handoff:
            return
        now = self.sim.kernel.now
        self._advance(now)
        self.handoff.remove(job)
        self._start(job, now)
        self._reschedule(now)

    def _on_completion(self, version: int) -> None:
        if version != self.version or not self.alive:
            return
        now = self.sim.kernel.now
        self._advance(now)
        finished = [j for j in self.running if j.remaining <= _EPS * max(1.0, j.req.spec.cost)]
        self.running = [j for j in self.running if j not in finished]
        for j in finished:
            j.req.record.end = now
            self.sim.log(now, "end", j.req.record.task, self.name)
            self.sim.result_returns(j.req, now)
        self._release_waiting(now)
        self._reschedule(now)

    def remove(self, now: float) -> list[_Request]:
        self.alive = False
        self.version += 1
        lost = [j.req for j in self.running + self.handoff + self.waiting]
        self.running, self.handoff, self.waiting = [], [], []
        return lost


# ----------------------------------------------------------------------------------------------------------------
# The simulation
# ----------------------------------------------------------------------------------------------------------------
class _Request:
    __slots__ = ("spec", "record", "servers", "snapshots", "user_index")

    def __init__(self, spec: TaskSpec, record: TaskRecord, user_index: int | None) -> None:
        self.spec = spec
        self.record = record
        self.servers: list[str] = []
        self.snapshots: dict[str, Response] = {}
        self.user_index = user_index


class _Simulation:
    def __init__(self, tree: AgentTree, workload: Workload, policy: DietPolicy, platform: DietPlatform,
                 changes: Sequence[SeDChange], rng: np.random.Generator, trace: bool) -> None:
        self.kernel = Kernel()
        self.platform = platform
        self.policy = policy
        self.rng = rng
        self.noise_rng = _noise_generator(rng)  # execution noise: its own stream, tie-breaks unchanged
        self.tracing = trace
        self.trace: list[tuple] = []
        self.windows: list[tuple[float, int, float]] = []
        self.root = tree.root
        self.parent: dict[str, str] = {}
        self.children: dict[str, list[str]] = {tree.root: []}
        self.seds: dict[str, _SeD] = {}
        self._layers: list | None = None  # _sed_layers, until the tree changes
        for node, par in tree.parent.items():
            if node not in tree.seds:
                self._add_node(node, par)
        for name in tree.seds:
            self._add_sed(name, tree.parent[name], tree.speed.get(name, 1.0))
        self.records: list[TaskRecord] = []
        self.workload = workload
        self.ma_queue: list[_Request] = []
        master = policy.master
        self.window_time = master.initial_window_time() if master is not None else 0.0
        self.parked_at: float | None = None
        self.additions = sorted(c.time for c in changes if c.parent is not None)
        for change in changes:
            self.kernel.schedule(change.time, PRIORITY_ARRIVAL, self._apply_change, change)
        for time, spec in workload.arrivals:
            self.kernel.schedule(float(time), PRIORITY_ARRIVAL, self._submit, (spec, None))
        for u, user in enumerate(workload.users):
            self.kernel.schedule(float(user.start), PRIORITY_ARRIVAL, self._submit, (user.task, u))
        if master is not None:
            self.kernel.schedule(0.0, PRIORITY_PASS, self._tick, None)

    def actual_work(self, cost: float) -> float:
        """Work of a job: its cost, times a Gamma(mean 1, cv ``exec_cv``) factor when ``exec_cv`` > 0."""
        cv = self.platform.exec_cv
        if cv <= 0:
            return cost
        return cost * float(_gamma_factors(self.noise_rng, cv, None))

    # -- tree --
    def _add_node(self, node: str, par: str) -> None:
        if node in self.parent or node == self.root:
            raise InvalidInputError(f"agent tree: node {node!r} appears twice; give every agent and SeD one name")
        self.parent[node] = par
        self.children.setdefault(par, []).append(node)
        self.children.setdefault(node, [])
        self._layers = None

    def _add_sed(self, name: str, par: str, speed: float) -> None:
        if par != self.root and par not in self.parent:
            raise InvalidInputError(f"agent tree: SeD {name!r} has unknown parent agent {par!r}; add the agent first")
        if par in self.seds:
            raise InvalidInputError(f"agent tree: SeD {name!r} cannot have SeD {par!r} as parent; use an agent")
        self._add_node(name, par)
        self.seds[name] = _SeD(self, name, speed)

    def _apply_change(self, change: SeDChange) -> None:
        now = self.kernel.now
        if change.parent is not None:
            self._add_sed(change.sed, change.parent, change.speed)
            self.log(now, "add_sed", -1, change.sed)
            return
        sed = self.seds.pop(change.sed, None)
        if sed is None:
            raise InvalidInputError(f"SeD change at t={change.time}: no SeD named {change.sed!r} to remove")
        par = self.parent.pop(change.sed)
        self.children[par].remove(change.sed)
        self.children.pop(change.sed, None)
        self._layers = None
        self.log(now, "remove_sed", -1, change.sed)
        for req in sed.remove(now):
            self._resubmit(req, now)

    def log(self, time: float, what: str, task: int, where: str) -> None:
        if self.tracing:
            self.trace.append((round(time, 9), what, task, where))

    # -- clients --
    def _submit(self, arg: tuple) -> None:
        spec, user = arg
        now = self.kernel.now
        rec = TaskRecord(task=len(self.records), user=-1 if user is None else user, cost=spec.cost, submit=now)
        self.records.append(rec)
        req = _Request(spec, rec, user)
        self.log(now, "submit", rec.task, "client")
        self.kernel.schedule(now + self.platform.hop_latency, PRIORITY_ARRIVAL, self._at_ma, req)

    def _resubmit(self, req: _Request, now: float) -> None:
        req.record.resubmissions += 1
        req.record.start = math.nan
        self.log(now, "resubmit", req.record.task, "client")
        self.kernel.schedule(now + self.platform.hop_latency, PRIORITY_ARRIVAL, self._at_ma, req)

    def _at_ma(self, req: _Request) -> None:
        now = self.kernel.now
        if math.isnan(req.record.at_ma):
            req.record.at_ma = now
        self.log(now, "at_ma", req.record.task, self.root)
        if self.policy.master is None:
            reply = self._release([req], now)
            self.kernel.schedule(reply, PRIORITY_ARRIVAL, self._online_reply, req)
            return
        self.ma_queue.append(req)
        if self.parked_at is not None:
            step = self.policy.master.min_window_time
            k = max(1, math.ceil((now - self.parked_at) / step - 1e-9))
            tick = self.parked_at + k * step
            self.parked_at = None
            self.kernel.schedule(max(tick, now), PRIORITY_PASS, self._tick, None)

    # -- the hierarchy: snapshots at the SeDs, aggregation on the way up --
    def _release(self, reqs: list[_Request], now: float) -> float:
        """Send ``reqs`` down the tree from the MA at ``now``; returns when the MA has the sorted lists."""
        for offset, names in self._sed_layers():
            self.kernel.schedule(now + offset, PRIORITY_ARRIVAL, self._snapshot, (reqs, names))
        return self._ready(self.root, now)

    def _sed_layers(self) -> list[tuple[float, list[str]]]:
        """The SeDs by the delay a request takes to reach them (depth x (agent time + hop latency)), nearest
        first, each layer in the SeDs' order; kept until the tree changes (``_add_node``, ``_apply_change``)."""
        if self._layers is None:
            p = self.platform
            layers: dict[float, list[str]] = {}
            for name in self.seds:
                depth, node = 0, name
                while node != self.root:
                    node, depth = self.parent[node], depth + 1
                layers.setdefault(depth * (p.agent_time + p.hop_latency), []).append(name)
            self._layers = sorted(layers.items())
        return self._layers

    def _ready(self, node: str, now: float) -> float:
        """Time ``node`` sends its answer up for a request the MA released at ``now``."""
        return answer_time(node, now, self.children, self.seds, self.platform)

    def _snapshot(self, arg: tuple) -> None:
        reqs, names = arg
        now = self.kernel.now
        for req in reqs:
            for name in names:
                sed = self.seds.get(name)
                if sed is not None:
                    req.snapshots[name] = sed.response(req.spec.cost, now)

    def _aggregate(self, req: _Request, node: str) -> list[Response]:
        if node in self.seds:
            r = req.snapshots.get(node)
            return [r] if r is not None else []
        merged: list[Response] = []
        for child in self.children.get(node, []):
            merged.extend(self._aggregate(req, child))
        # SeDs removed since the snapshot are no longer children; those added later were not asked.
        if not merged:
            return []
        return list(self.policy.select(merged, self.platform.n_best, self.rng))

    def _online_reply(self, req: _Request) -> None:
        now = self.kernel.now
        servers = [r.sed for r in self._aggregate(req, self.root)]
        req.snapshots = {}
        self._to_client(req, servers, now)

    def _to_client(self, req: _Request, servers: list[str], now: float) -> None:
        req.servers = servers
        self.kernel.schedule(now + self.platform.hop_latency, PRIORITY_ARRIVAL, self._client_got_list, req)

    def _client_got_list(self, req: _Request) -> None:
        now = self.kernel.now
        req.record.list_at_client = now
        self.log(now, "list", req.record.task, ",".join(req.servers[:3]))
        self._send_solve(req, now)

    def _send_solve(self, req: _Request, now: float) -> None:
        while req.servers and req.servers[0] not in self.seds:
            req.servers.pop(0)
        if not req.servers:
            if self.seds:
                self._resubmit(req, now)
            else:  # no server at all: wait for the next SeD to join, or give up (the record stays unfinished)
                later = [t for t in self.additions if t >= now]
                if later:
                    self.kernel.schedule(later[0], PRIORITY_PASS, lambda r: self._resubmit(r, self.kernel.now), req)
                else:
                    self.log(now, "unserved", req.record.task, "client")
            return
        p = self.platform
        delay = p.hop_latency + p.submit_overhead + req.spec.in_bytes / p.bandwidth
        self.kernel.schedule(now + delay, PRIORITY_ARRIVAL, self._solve_arrives, req)

    def _solve_arrives(self, req: _Request) -> None:
        now = self.kernel.now
        sed = self.seds.get(req.servers[0])
        if sed is None:  # removed while the data was in flight: next server of the list
            self._send_solve(req, now)
            return
        sed.accept(req, now)

    def result_returns(self, req: _Request, now: float) -> None:
        p = self.platform
        self.kernel.schedule(now + p.hop_latency + req.spec.out_bytes / p.bandwidth, PRIORITY_ARRIVAL,
                             self._done, req)

    def _done(self, req: _Request) -> None:
        now = self.kernel.now
        req.record.done = now
        self.log(now, "done", req.record.task, req.record.sed)
        if req.user_index is not None:
            user = self.workload.users[req.user_index]
            nxt = now + user.think_time
            if nxt < user.stop:
                self.kernel.schedule(nxt, PRIORITY_ARRIVAL, self._submit, (user.task, req.user_index))

    # -- Algorithm 2: the MA's GlobalTaskManager loop --
    def _tick(self, _: Any) -> None:
        master = self.policy.master
        now = self.kernel.now
        self.log(now, "tick", len(self.ma_queue), self.root)
        if not self.ma_queue:
            new = master.window_time_after_idle(self.window_time)
            if new <= master.min_window_time and self.window_time <= master.min_window_time:
                self.window_time = new
                self.parked_at = now  # no polling events until the next request (same grid of ticks)
                return
            self.window_time = new
            self.kernel.schedule(now + new, PRIORITY_PASS, self._tick, None)
            return
        size = min(len(self.ma_queue), int(master.max_window_size))
        reqs, self.ma_queue = self.ma_queue[:size], self.ma_queue[size:]
        for req in reqs:
            self.log(now, "release", req.record.task, self.root)
        reply = self._release(reqs, now)
        self.kernel.schedule(reply, PRIORITY_ARRIVAL, self._window_reply, reqs)

    def _window_reply(self, reqs: list[_Request]) -> None:
        master = self.policy.master
        now = self.kernel.now
        lists = [self._aggregate(req, self.root) for req in reqs]
        chosen, min_wait = master.refine(lists, [r.spec.cost for r in reqs])
        for req, resp, first in zip(reqs, lists, chosen):
            rest = [r.sed for r in resp if r.sed != first]
            req.snapshots = {}
            self._to_client(req, ([first] if first else []) + rest, now)
        self.window_time = master.window_time_after_schedule(min_wait)
        self.windows.append((now, len(reqs), self.window_time))
        self.log(now, "window", len(reqs), f"{self.window_time:.6g}")
        self.kernel.schedule(now + self.window_time, PRIORITY_PASS, self._tick, None)


def simulate_diet(tree: AgentTree, workload: Workload, policy: DietPolicy, *, platform: DietPlatform | None = None,
                  changes: Sequence[SeDChange] = (), rng: Any = None, trace: bool = False,
                  until: float | None = None) -> DietRun:
    """Run the DIET request-flow simulation of ``workload`` on ``tree`` under ``policy``.

    Parameters
    ----------
    tree : AgentTree
        MA, LAs and the SeDs present at time 0.
    workload : Workload
        Independent submissions and sequential users.
    policy : DietPolicy
        Agent sorting, SeD concurrency limit and optional MA window scheduler
        (``heuristics.diet.make_approach``).
    platform : DietPlatform, optional
        Latencies, ``n_best``, CPUs per SeD.
    changes : sequence of SeDChange
        SeDs added or removed during the run (§6.3).
    rng : seed or numpy Generator
        Source of the random tie-breaks of the agents' sorting (Algorithm 1).
    trace : bool
        Record the event trace ``(time, event, task, where)``.
    until : float, optional
        Stop the clock there (requests still in flight keep NaN times).

    Returns
    -------
    DietRun
    """
    platform = platform or DietPlatform()
    sim = _Simulation(tree, workload, policy, platform, changes, np.random.default_rng(rng), trace)
    sim.kernel.run(until)
    return DietRun(policy=getattr(policy, "name", type(policy).__name__), tasks=sim.records, trace=sim.trace,
                   windows=sim.windows, events=sim.kernel.processed, end_time=sim.kernel.now)
