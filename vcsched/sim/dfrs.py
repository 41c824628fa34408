"""The DFRS engine: jobs as virtual clusters whose work progresses at their yield.

Jobs (:class:`vcsched.problems.dfrs.DfrsJobs`) arrive at their submit times on ``hosts``
hosts of ``cores`` cores. A *policy* (passed in, :class:`DfrsPolicy`; the policies live in
:mod:`heuristics.dfrs`) decides, at each decision instant, which jobs run, the host of each
of their tasks and their yields. The engine owns the rules and never trusts the policy:

* a running job of yield ``y`` gets ``y / cores`` CPU on the host of each of its tasks; on
  every host the CPU given (sum over its tasks) and the memory held (sum of the needs of
  the tasks running there) stay at most 1, else :class:`PolicyError`;
* its work grows at rate ``y``; it ends when its work reaches its run time ``p``
  (a job with ``p = 0`` ends when it is first placed);
* a running job whose task hosts change (a *migration*, counted per task, memory moved
  = tasks moved x need) or a paused job that is placed again (a *resume*, also counting
  the tasks placed elsewhere than before its pause as migrations) makes no progress for
  ``penalty`` seconds; it holds its memory and its CPU during that time. A first start
  has no penalty. A job left out of a decision while running is *paused* (it holds
  nothing until resumed);
* the memory moved at one decision is at most ``budget`` (seed 001 eq. 31).

**Non-clairvoyance is structural**: the policy receives a :class:`View` built from the
jobs in the system, which holds submit times, task counts, memory needs, elapsed flow
times and the work done so far, never a run time.

Decision instants: each arrival, each completion and, when the policy has a ``period``,
every ``period`` seconds from the first submit time while jobs are in the system (ticks
when the system is empty are skipped). Several events at one instant give one decision:
completions first, then arrivals, then the tick (the ``reasons`` of the view). Placing a
zero-work job ends it at once and triggers another decision at the same instant.

Why an event loop of its own rather than :class:`vcsched.sim.kernel.Kernel`: there are only
three kinds of events and the next completion changes at every decision (every yield may
change), so a heap of completion events would hold mostly stale entries; a scan of the
running jobs for the earliest completion after each decision is simpler and as fast.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Protocol

import numpy as np

from vcsched.errors import InvalidInputError, VcschedError
from vcsched.problems.dfrs import BOUNDED_STRETCH_TAU, DfrsJobs, DfrsPlatform

__all__ = ["View", "Decision", "DfrsPolicy", "PolicyError", "DfrsResult", "simulate_dfrs", "job_metrics", "job_stretch",
           "WAITING", "RUNNING", "PAUSED"]

WAITING, RUNNING, PAUSED = "waiting", "running", "paused"
CAP_TOL = 1e-9
"""Slack on a host's CPU and memory (sums of floats)."""


class PolicyError(VcschedError):
    """A policy returned a decision that breaks the rules (a bug in the policy)."""


@dataclasses.dataclass(frozen=True)
class View:
    """What a policy sees at a decision: the jobs in the system, in arrival order (lists of equal length).

    ``state[k]`` is :data:`WAITING` (never started), :data:`RUNNING` or :data:`PAUSED`; ``hosts[k]``
    the hosts of a running job's tasks (else ``None``), ``last_hosts[k]`` where the tasks were
    before the last pause (``None`` if never paused). ``flow[k] = now - submit[k]``, ``work[k]`` the
    work done (the job's virtual time). No run time: policies are non-clairvoyant.
    """

    now: float
    hosts_count: int
    cores: int
    reasons: tuple[str, ...]
    jobs: list[int]
    submit: list[float]
    tasks: list[int]
    mem: list[float]
    flow: list[float]
    work: list[float]
    state: list[str]
    hosts: list[tuple[int, ...] | None]
    last_hosts: list[tuple[int, ...] | None]


@dataclasses.dataclass
class Decision:
    """Jobs to run: ``placement[job]`` the host of each task, ``yields[job]`` in ``(0, 1]``."""

    placement: dict[int, tuple[int, ...]]
    yields: dict[int, float]


class DfrsPolicy(Protocol):
    name: str
    period: float | None

    def decide(self, view: View) -> Decision: ...


@dataclasses.dataclass(frozen=True)
class DfrsResult:
    """Per-job columns (start = first placement, end, migrations, pauses), totals, and, with ``record``,
    every decision: ``(time, {job: (hosts, yield, penalty_until)})`` in time order."""

    policy: str
    jobs: DfrsJobs
    platform: DfrsPlatform
    start: np.ndarray
    end: np.ndarray
    migrations: np.ndarray
    pauses: np.ndarray
    memory_moved: float
    decisions: int
    log: tuple = ()

    def metrics(self) -> dict:
        m = job_metrics(self.jobs.submit, self.end, self.jobs.run, self.jobs.tasks, self.platform.processors)
        m.update(migrations=int(self.migrations.sum()), pauses=int(self.pauses.sum()),
                 memory_moved=float(self.memory_moved))
        return m


def job_stretch(submit: np.ndarray, end: np.ndarray, run: np.ndarray) -> np.ndarray:
    """Each job's stretch ``(end - submit) / run``; NaN for a job of zero run time (no stretch is defined)."""
    pos = run > 0
    return np.where(pos, (end - submit) / np.where(pos, run, 1.0), np.nan)


def job_metrics(submit: np.ndarray, end: np.ndarray, run: np.ndarray, tasks: np.ndarray, processors: int) -> dict:
    """Max and mean stretch ``(end - submit) / run`` over the jobs of positive run time, mean bounded stretch
    ``max(1, (end - submit) / max(run, 10 s))`` over all jobs, utilisation ``sum(tasks * run) / (processors *
    makespan)``, makespan ``max end - min submit`` (the batch simulator's definitions, :mod:`vcsched.sim.output`)."""
    if submit.size == 0:
        return {"jobs": 0, "max_stretch": None, "mean_stretch": None, "mean_bounded_stretch": None,
                "utilization": None, "makespan": None}
    response = end - submit
    stretch = job_stretch(submit, end, run)[run > 0]
    makespan = float(end.max() - submit.min())
    return {"jobs": int(submit.size),
            "max_stretch": float(stretch.max()) if stretch.size else None,
            "mean_stretch": float(stretch.mean()) if stretch.size else None,
            "mean_bounded_stretch": float(np.maximum(1.0, response / np.maximum(run, BOUNDED_STRETCH_TAU)).mean()),
            "utilization": float((tasks * run).sum() / (processors * makespan)) if makespan > 0 else None,
            "makespan": makespan}


class _Run:
    """The state of one simulation (lists indexed by job)."""

    def __init__(self, jobs: DfrsJobs, platform: DfrsPlatform, policy: DfrsPolicy, penalty: float, budget: float,
                 record: bool) -> None:
        n = len(jobs)
        self.jobs, self.platform, self.policy = jobs, platform, policy
        self.penalty, self.budget, self.record = float(penalty), float(budget), record
        self.submit = jobs.submit.tolist()
        self.run = jobs.run.tolist()
        self.tasks = jobs.tasks.tolist()
        self.mem = jobs.mem.tolist()
        self.work = [0.0] * n
        self.state: list[str | None] = [None] * n
        self.hosts: list[tuple | None] = [None] * n
        self.last_hosts: list[tuple | None] = [None] * n
        self.yld = [0.0] * n
        self.pu = [0.0] * n  # no progress before this time
        self.finish_at = [math.inf] * n
        self.start = [math.nan] * n
        self.end = [math.nan] * n
        self.migrations = [0] * n
        self.pauses = [0] * n
        self.memory_moved = 0.0
        self.active: list[int] = []  # jobs in the system, arrival order
        self.now = 0.0
        self.decisions = 0
        self.log: list = []

    # ------------------------------------------------------------------ time
    def advance(self, t: float) -> None:
        """Work done by the running jobs from ``now`` to ``t`` (none during a penalty)."""
        now = self.now
        for j in self.active:
            if self.state[j] == RUNNING:
                since = now if now > self.pu[j] else self.pu[j]
                if t > since:
                    self.work[j] += self.yld[j] * (t - since)
        self.now = t

    def complete_due(self) -> bool:
        done = [j for j in self.active if self.state[j] == RUNNING and self.finish_at[j] <= self.now]
        for j in done:
            self.work[j] = self.run[j]
            self.end[j] = self.now
            self.state[j] = "done"
            self.hosts[j] = None
        if done:
            self.active = [j for j in self.active if self.state[j] != "done"]
        return bool(done)

    def next_completion(self) -> float:
        best = math.inf
        for j in self.active:
            if self.state[j] == RUNNING and self.finish_at[j] < best:
                best = self.finish_at[j]
        return best

    # ------------------------------------------------------------------ decisions
    def view(self, reasons: tuple[str, ...]) -> View:
        a, now = self.active, self.now
        return View(now, self.platform.hosts, self.platform.cores, reasons, list(a),
                    [self.submit[j] for j in a], [self.tasks[j] for j in a], [self.mem[j] for j in a],
                    [now - self.submit[j] for j in a], [self.work[j] for j in a], [self.state[j] for j in a],
                    [self.hosts[j] for j in a], [self.last_hosts[j] for j in a])

    def decide(self, reasons: tuple[str, ...]) -> None:
        decision = self.policy.decide(self.view(reasons))
        self.decisions += 1
        _validate(self, decision)
        self.apply(decision)

    def apply(self, d: Decision) -> None:
        now, pen = self.now, self.penalty
        moved = 0.0
        for j in self.active:
            new = d.placement.get(j)
            old_state = self.state[j]
            if new is None:
                if old_state == RUNNING:
                    self.state[j], self.last_hosts[j], self.hosts[j] = PAUSED, self.hosts[j], None
                    self.pauses[j] += 1
                    self.finish_at[j] = math.inf
                continue
            new = tuple(new)
            if old_state == WAITING:
                self.start[j] = now
            else:
                before = self.hosts[j] if old_state == RUNNING else self.last_hosts[j]
                changed = sum(1 for a, b in zip(new, before) if a != b)
                if changed:
                    self.migrations[j] += changed
                    moved += changed * self.mem[j]
                if changed or old_state == PAUSED:
                    self.pu[j] = max(self.pu[j], now + pen)
            self.state[j], self.hosts[j], self.yld[j] = RUNNING, new, float(d.yields[j])
            since = max(now, self.pu[j])
            self.finish_at[j] = since + (self.run[j] - self.work[j]) / self.yld[j]
        if moved > self.budget + 1e-9:
            raise PolicyError(f"policy {self.policy.name!r} moved {moved:.6g} memory > budget {self.budget:.6g}")
        self.memory_moved += moved
        if self.record:
            self.log.append((now, {j: (self.hosts[j], self.yld[j], self.pu[j]) for j in self.active
                                   if self.state[j] == RUNNING}))


def _validate(run: _Run, d: Decision) -> None:
    """Refuse a decision that places a job not in the system, gives a bad yield, or overflows a host."""
    hosts, cores, name = run.platform.hosts, run.platform.cores, run.policy.name
    idx_parts: list = []
    cpu_parts: list[float] = []
    mem_parts: list[float] = []
    active = set(run.active)
    for j, placed in d.placement.items():
        if j not in active:
            raise PolicyError(f"policy {name!r} placed job {j}, which is not in the system")
        if len(placed) != run.tasks[j]:
            raise PolicyError(f"policy {name!r} placed {len(placed)} tasks of job {j}, which has {run.tasks[j]}")
        y = d.yields.get(j)
        if y is None or not 0.0 < y <= 1.0 + CAP_TOL:
            raise PolicyError(f"policy {name!r} gave job {j} the yield {y} (must be in (0, 1])")
        if min(placed) < 0 or max(placed) >= hosts:
            raise PolicyError(f"policy {name!r} placed a task of job {j} outside hosts 0..{hosts - 1}")
        q = len(placed)
        idx_parts.extend(placed)
        cpu_parts.extend([min(y, 1.0) / cores] * q)
        mem_parts.extend([run.mem[j]] * q)
    idx = np.array(idx_parts, dtype=np.int64)
    cpu = np.bincount(idx, np.array(cpu_parts), minlength=hosts)  # summed in the order of the placement
    mem = np.bincount(idx, np.array(mem_parts), minlength=hosts)
    if cpu.max(initial=0.0) > 1.0 + CAP_TOL or mem.max(initial=0.0) > 1.0 + CAP_TOL:
        raise PolicyError(f"policy {name!r} overflowed a host at t={run.now:g} "
                          f"(CPU {cpu.max():.6g}, memory {mem.max():.6g})")
    for j in d.yields:
        d.yields[j] = min(float(d.yields[j]), 1.0)


def simulate_dfrs(jobs: DfrsJobs, platform: DfrsPlatform, policy: DfrsPolicy, *, penalty: float = 300.0,
                  budget: float = math.inf, record: bool = False,
                  progress: Callable[[int], None] | None = None) -> DfrsResult:
    """Simulate ``jobs`` on ``platform`` under ``policy`` (module docstring); every job ends.

    ``progress``, when given, is called with the number of jobs ended so far after each decision.
    """
    if not penalty >= 0:
        raise InvalidInputError(f"penalty must be >= 0, got {penalty}")
    if not budget >= 0:
        raise InvalidInputError(f"budget must be >= 0, got {budget}")
    period = getattr(policy, "period", None)
    if period is not None and not period > 0:
        raise InvalidInputError(f"period must be > 0, got {period}")
    run = _Run(jobs, platform, policy, penalty, budget, record)
    _loop(run, period, progress)
    return DfrsResult(policy.name, jobs, platform, np.array(run.start), np.array(run.end),
                      np.array(run.migrations, dtype=np.int64), np.array(run.pauses, dtype=np.int64),
                      run.memory_moved, run.decisions, tuple(run.log))


def _next_tick(origin: float, period: float, after: float, inclusive: bool) -> float:
    k = math.ceil((after - origin) / period) if inclusive else math.floor((after - origin) / period) + 1
    t = origin + k * period
    return t if (t > after or (inclusive and t >= after)) else t + period


def _loop(run: _Run, period: float | None, progress) -> None:
    n = len(run.submit)
    submit = run.submit
    nxt = 0
    origin = submit[0] if n else 0.0
    tick = math.inf
    ended = 0
    while nxt < n or run.active:
        t_arr = submit[nxt] if nxt < n else math.inf
        if period is not None and not run.active:
            tick = _next_tick(origin, period, t_arr, inclusive=False)
        t = min(t_arr, run.next_completion(), tick)
        if t == math.inf:
            stuck = [int(run.jobs.job_id[j]) for j in run.active[:3]]
            raise PolicyError(f"policy {run.policy.name!r} leaves jobs {stuck} waiting forever in an idle system")
        run.advance(t)
        reasons = []
        if run.complete_due():
            reasons.append("completion")
        while nxt < n and submit[nxt] <= t:
            run.state[nxt] = WAITING
            run.active.append(nxt)
            nxt += 1
            if "arrival" not in reasons:
                reasons.append("arrival")
        if tick <= t:
            reasons.append("period")
            tick = _next_tick(origin, period, t, inclusive=False)
        if run.active:
            run.decide(tuple(reasons))
            while run.complete_due():  # zero-work jobs placed now
                if run.active:
                    run.decide(("completion",))
        if progress is not None and nxt - len(run.active) != ended:
            ended = nxt - len(run.active)
            progress(ended)
