"""VCSched under a dynamic workload (seed 001 §6, beyond the paper).

Jobs arrive and leave; at every arrival or departure an *adaptation policy*
(passed in; see :class:`AdaptationPolicy`) chooses a new placement of all
jobs in the system, moving at most a budget ``B`` of memory (eq. 31) or of
tasks (count mode). CPU fractions follow from the placement (every job gets
``alpha_i Y`` and the average-yield phase of §3.5 shares what is left).

The engine owns the bookkeeping and never trusts a policy: it recomputes the
migration cost, refuses a placement that exceeds the budget, overflows
memory, or moves a task while the policy claimed otherwise
(:class:`PolicyError`), and runs the checker on every allocation.

Metrics, over ``[0, duration]``:

``mean_min_yield``
    time average of the minimum yield over the periods with at least one job
    in the system (an empty system has no yield);
``min_min_yield``
    the smallest minimum yield after any event;
``mean_avg_yield``
    time average of the average (per-job) yield, same periods;
``migrated_memory``, ``migrations``
    memory moved and tasks moved, summed over all adaptations;
``rejected``
    arrivals the policy could not admit (no placement fits in memory within
    the budget); a rejected job never comes back;
``events``
    number of adaptations (arrivals + departures of admitted jobs).

Progress: :func:`simulate_dynamic` takes an optional ``progress`` callback,
called with the *simulated time* reached (``min(now, duration)``) after every
event and once more with ``duration`` at the end: the values never decrease
and end at the total, so a caller can draw a bar over ``[0, duration]`` (the
command line draws one with tqdm; this module imports no display package).
Simulated time rather than events processed, because the number of events is
not known in advance (rejected arrivals have no departure; jobs still running
at ``duration`` never leave).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Protocol

import numpy as np

from vcsched.errors import InvalidInputError, VcschedError
from vcsched.problems.vc import TOL, VCInstance, allocation_from_placement, check_allocation, host_memory
from vcsched.problems.vc_metrics import migration_cost
from vcsched.sim.kernel import Kernel

__all__ = [
    "DynamicWorkload",
    "AdaptationPolicy",
    "PolicyError",
    "EventRecord",
    "DynamicResult",
    "simulate_dynamic",
]

PRIORITY_DEPARTURE = 0
PRIORITY_ARRIVAL = 1


@dataclasses.dataclass(frozen=True)
class DynamicWorkload:
    """Jobs with arrival time, lifetime, CPU need, memory need and task count (arrays of length n)."""

    arrival: np.ndarray
    lifetime: np.ndarray
    cpu: np.ndarray
    mem: np.ndarray
    tasks: np.ndarray

    def __post_init__(self) -> None:
        n = self.arrival.shape[0]
        for name in ("lifetime", "cpu", "mem", "tasks"):
            if getattr(self, name).shape != (n,):
                raise InvalidInputError(f"workload field {name!r} must have {n} entries")
        if n and (np.any(np.diff(self.arrival) < 0)):
            raise InvalidInputError("arrivals must be sorted")

    @property
    def n_jobs(self) -> int:
        return int(self.arrival.shape[0])


class PolicyError(VcschedError):
    """An adaptation policy returned a placement that breaks the rules (a bug in the policy)."""


class AdaptationPolicy(Protocol):
    """What the engine asks of a policy.

    ``adapt(instance, budget)`` receives the jobs now in the system, with
    ``instance.current_host`` giving each job's current hosts (``None`` for
    the job that just arrived) and ``budget`` the memory (or task count, per
    ``budget_mode``) that may move; it returns the new host of every task (a
    flat array) or ``None`` to reject the arriving job (then the others stay
    where they are).
    """

    name: str
    budget_mode: str

    def adapt(self, instance: VCInstance, budget: float) -> np.ndarray | None: ...


@dataclasses.dataclass(frozen=True)
class EventRecord:
    time: float
    kind: str  # "arrival", "departure", "rejected"
    job: int
    jobs_in_system: int
    min_yield: float | None
    avg_yield: float | None
    migrated_memory: float
    migrations: int


@dataclasses.dataclass(frozen=True)
class DynamicResult:
    policy: str
    budget: float
    mean_min_yield: float | None
    min_min_yield: float | None
    mean_avg_yield: float | None
    migrated_memory: float
    migrations: int
    rejected: int
    events: int
    trace: tuple[EventRecord, ...]

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        del out["trace"]
        return out


class _State:
    """Jobs in the system and their placement."""

    def __init__(self, hosts: int, workload: DynamicWorkload) -> None:
        self.hosts = hosts
        self.w = workload
        self.jobs: list[int] = []  # workload indices, in arrival order
        self.task_host: dict[int, np.ndarray] = {}

    def instance(self, jobs: list[int], new_job: int | None) -> VCInstance:
        w = self.w
        idx = np.asarray(jobs, dtype=np.int64)
        current = []
        for j in jobs:
            if j == new_job:
                current.append(None)
            else:
                hosts = self.task_host[j]
                current.append(int(hosts[0]) if w.tasks[j] == 1 else tuple(int(h) for h in hosts))
        return VCInstance(hosts=self.hosts, cpu=w.cpu[idx], mem=w.mem[idx], tasks=w.tasks[idx].astype(np.int64),
                          current_host=tuple(current))


def _validate(policy: AdaptationPolicy, inst: VCInstance, task_host, budget: float) -> tuple[np.ndarray, dict]:
    th = np.asarray(task_host)
    if th.shape != (inst.n_tasks,) or not np.issubdtype(th.dtype, np.integer):
        raise PolicyError(f"policy {policy.name!r} returned {th.shape} hosts for {inst.n_tasks} tasks")
    if th.min(initial=0) < 0 or th.max(initial=0) >= inst.hosts:
        raise PolicyError(f"policy {policy.name!r} placed a task outside 0..{inst.hosts - 1}")
    if np.any(host_memory(inst, th) > 1 + TOL):
        raise PolicyError(f"policy {policy.name!r} overflowed a host's memory")
    cost = migration_cost(inst, th)
    spent = cost["migrated_memory"] if policy.budget_mode == "memory" else cost["migrations"]
    if spent > budget + 1e-7:
        raise PolicyError(f"policy {policy.name!r} moved {spent:.6g} > budget {budget:.6g} ({policy.budget_mode})")
    return th.astype(np.int64), cost


class _Run:
    """One run of :func:`simulate_dynamic`: the jobs in the system, the time integrals of the
    yields, the totals and the trace, updated event by event on ``kernel``."""

    def __init__(self, hosts: int, workload: DynamicWorkload, policy: AdaptationPolicy, budget: float,
                 duration: float, progress: Callable[[float], None] | None) -> None:
        self.state = _State(hosts, workload)
        self.w, self.policy, self.budget, self.duration, self.progress = workload, policy, budget, duration, progress
        self.kernel = Kernel()
        self.trace: list[EventRecord] = []
        self.migrated_memory, self.migrations, self.rejected = 0.0, 0, 0
        self.current_min: float | None = None
        self.current_avg: float | None = None
        self.since = 0.0
        self.integral_min = self.integral_avg = self.busy = 0.0

    def tick(self) -> None:
        if self.progress is not None:
            self.progress(min(self.kernel.now, self.duration))

    def advance(self, now: float) -> None:
        """Add the yields held since the last event to the time integrals (up to ``duration``)."""
        t_end = min(now, self.duration)
        if self.current_min is not None and t_end > self.since:
            dt = t_end - self.since
            self.integral_min += self.current_min * dt
            self.integral_avg += self.current_avg * dt
            self.busy += dt
        self.since = max(self.since, t_end)

    def apply(self, jobs: list[int], th: np.ndarray | None, inst: VCInstance | None) -> tuple[float | None, float | None]:
        """Place ``jobs`` at ``th``; the minimum and average yields of the checked allocation."""
        state = self.state
        state.jobs = jobs
        state.task_host = {}
        if not jobs:
            return None, None
        offsets = inst.offsets
        for pos, j in enumerate(jobs):
            state.task_host[j] = th[offsets[pos] : offsets[pos + 1]].copy()
        report = check_allocation(inst, allocation_from_placement(inst, th))
        if not report.valid:
            raise PolicyError(f"policy {self.policy.name!r}: allocation rejected: {report.violations[:2]}")
        return report.min_yield, report.avg_yield

    def record(self, kind: str, job: int, y, a, cost) -> None:
        self.current_min, self.current_avg = y, a
        self.trace.append(EventRecord(self.kernel.now, kind, job, len(self.state.jobs), y, a,
                                      float(cost.get("migrated_memory", 0.0)), int(cost.get("migrations", 0))))

    def adapt(self, kind: str, job: int, jobs: list[int], th: np.ndarray, inst: VCInstance) -> None:
        """Apply a policy's placement ``th`` of ``jobs`` (validated) and record the event."""
        th, cost = _validate(self.policy, inst, th, self.budget)
        y, a = self.apply(jobs, th, inst)
        self.migrated_memory += cost["migrated_memory"]
        self.migrations += cost["migrations"]
        self.record(kind, job, y, a, cost)

    def on_arrival(self, job: int) -> None:
        self.advance(self.kernel.now)
        jobs = self.state.jobs + [job]
        inst = self.state.instance(jobs, new_job=job)
        th = self.policy.adapt(inst, self.budget)
        if th is None:
            self.rejected += 1
            self.record("rejected", job, self.current_min, self.current_avg, {})
        else:
            self.adapt("arrival", job, jobs, th, inst)
            self.kernel.schedule(self.kernel.now + float(self.w.lifetime[job]), PRIORITY_DEPARTURE, self.on_departure, job)
        self.tick()

    def on_departure(self, job: int) -> None:
        self.advance(self.kernel.now)
        jobs = [j for j in self.state.jobs if j != job]
        if not jobs:
            self.apply([], None, None)
            self.record("departure", job, None, None, {})
        else:
            inst = self.state.instance(jobs, new_job=None)
            th = self.policy.adapt(inst, self.budget)
            if th is None:
                raise PolicyError(f"policy {self.policy.name!r} rejected a departure (only arrivals can be rejected)")
            self.adapt("departure", job, jobs, th, inst)
        self.tick()

    def result(self) -> DynamicResult:
        yields = [r.min_yield for r in self.trace if r.min_yield is not None and r.kind != "rejected"]
        busy = self.busy
        return DynamicResult(
            policy=self.policy.name,
            budget=float(self.budget),
            mean_min_yield=self.integral_min / busy if busy > 0 else None,
            min_min_yield=min(yields) if yields else None,
            mean_avg_yield=self.integral_avg / busy if busy > 0 else None,
            migrated_memory=self.migrated_memory,
            migrations=self.migrations,
            rejected=self.rejected,
            events=sum(r.kind != "rejected" for r in self.trace),
            trace=tuple(self.trace),
        )


def simulate_dynamic(
    hosts: int,
    workload: DynamicWorkload,
    policy: AdaptationPolicy,
    *,
    budget: float = math.inf,
    duration: float | None = None,
    progress: Callable[[float], None] | None = None,
) -> DynamicResult:
    """Run the dynamic workload under ``policy`` with a per-adaptation budget ``budget``.

    Events at the same instant: departures first, then arrivals (in
    arrival order); each is one adaptation. Jobs still running at
    ``duration`` (default: last arrival) are cut off there.

    ``progress``, when given, is called with the simulated time reached after
    every event (``min(now, duration)``, never decreasing) and with
    ``duration`` at the end (module docstring); it does not change the run.
    """
    if hosts < 1:
        raise InvalidInputError(f"hosts must be >= 1, got {hosts}")
    if not budget >= 0:
        raise InvalidInputError(f"budget must be >= 0, got {budget}")
    if duration is None:
        duration = float(workload.arrival[-1]) if workload.n_jobs else 0.0
    run = _Run(hosts, workload, policy, budget, duration, progress)
    for job in range(workload.n_jobs):
        if workload.arrival[job] <= duration:
            run.kernel.schedule(float(workload.arrival[job]), PRIORITY_ARRIVAL, run.on_arrival, job)
    run.kernel.run(until=duration)
    run.advance(duration)
    if progress is not None:
        progress(duration)
    return run.result()
