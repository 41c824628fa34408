"""VCSched: max-min yield allocation of virtual machines on identical hosts.

Seed 001 (Casanova, Schanzenbach, Stillwell, Vivien, INRIA RR-6692, 2008), §2.3
and §5.1. ``H`` identical hosts with CPU capacity 1 and memory capacity 1.
Job ``i`` has ``T_i`` tasks (VM instances); every task needs CPU ``alpha_i``
to run at full speed and memory ``m_i``. An allocation places each task on
one host and gives it a CPU fraction ``c <= alpha_i``; the tasks of one job get
the same CPU (eq. 20). The yield of job ``i`` is ``c_i / alpha_i`` and
VCSched maximises the minimum yield.

Everything here works on flat *task* arrays: the tasks of job ``i`` are the
entries ``offsets[i]:offsets[i + 1]``.

The key fact used by the exact formulations and the heuristics: for a fixed
placement, the best minimum yield is ``min(1, 1 / max_j L_j)`` where ``L_j`` is
the total CPU need of the tasks on host ``j`` (give every task ``alpha_i * Y``).

Choice: the average yield is ``math.fsum`` of the per-job yields divided by
the number of jobs (exactly rounded).

Examples
--------
>>> inst = parse_instance({"hosts": 2, "jobs": [{"cpu": 0.8, "mem": 0.5}, {"cpu": 0.8, "mem": 0.5},
...                                             {"cpu": 0.4, "mem": 0.4}]})
>>> alloc = allocation_from_placement(inst, [0, 1, 1])  # host 1 load 1.2: Y = 1 / 1.2
>>> [round(c, 4) for c in alloc.task_cpu.tolist()]  # the job alone on host 0 gets its full need
[0.8, 0.6667, 0.3333]
>>> report = check_allocation(inst, alloc)
>>> report.valid, round(report.min_yield, 4), round(report.avg_yield, 4)  # yields 1, 1 / 1.2, 1 / 1.2
(True, 0.8333, 0.8889)
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.findings import Findings
from vcsched.problems.jsonfile import check_keys, instance_head, int_field, load_json, number_field
from vcsched.problems.vc_limits import MIN_CPU

__all__ = [
    "VCInstance",
    "Allocation",
    "CheckReport",
    "check_allocation",
    "host_loads",
    "host_memory",
    "placement_min_yield",
    "allocation_from_placement",
    "maximize_average_yield",
    "parse_instance",
    "load_instance",
    "instance_to_dict",
    "save_instance",
    "TOL",
    "MEM_EPS",
    "placement_problem",
    "MIN_CPU",
    "MAX_HOSTS",
    "MAX_TASKS",
    "MAX_HOST_TASKS",
    "check_size",
]


TOL = 1e-7
"""Absolute tolerance of the checker on capacities and equalities."""

MEM_EPS = 1e-12
"""Slack allowed on a host's memory when a heuristic tests whether a task fits.

Tiny (the checker tolerates ``1e-7`` in total) so that packings filled
exactly to capacity, like the planted instances of the tests, are accepted
despite rounding."""


MAX_HOSTS = 100_000
"""Most hosts in an instance: the heuristics keep per-host arrays and scan them per task."""

MAX_TASKS = 1_000_000
"""Most tasks (sum of ``tasks`` over the jobs) in an instance."""

MAX_HOST_TASKS = 1_000_000_000
"""Largest ``hosts * tasks``: every heuristic examines the hosts for each task it places,
so this bounds their work (about a second per 10^8 on one core)."""

JOB_FIELDS = ("cpu", "mem", "tasks", "current_host")
INSTANCE_FIELDS = ("hosts", "jobs", "migration_budget")


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (other values unchanged), for the field readers."""
    return value.item() if isinstance(value, np.generic) else value


@dataclasses.dataclass(frozen=True, eq=False)
class VCInstance:
    """A VCSched instance.

    Parameters
    ----------
    hosts : int
        Number of identical hosts ``H >= 1``.
    cpu : array of float, shape (J,)
        CPU need ``alpha_i`` of each task of job ``i``, in (0, 1].
    mem : array of float, shape (J,)
        Memory need ``m_i`` of each task of job ``i``, in [0, 1].
    tasks : array of int, shape (J,)
        Number of tasks ``T_i >= 1`` (1 for a sequential job).
    current_host : tuple, optional
        For adaptation (§6.1): per job ``None`` (a new job), an ``int`` (host
        of a one-task job) or a tuple of ints (host of each task).
    migration_budget : float, optional
        ``B`` of eq. 31 (``None``: unbounded).
    """

    hosts: int
    cpu: np.ndarray
    mem: np.ndarray
    tasks: np.ndarray
    current_host: tuple | None = None
    migration_budget: float | None = None

    @classmethod
    def from_arrays(
        cls,
        hosts: int,
        cpu: Sequence[float],
        mem: Sequence[float],
        tasks: Sequence[int] | None = None,
        *,
        current_host: Sequence[Any] | None = None,
        migration_budget: float | None = None,
    ) -> VCInstance:
        """Build and validate an instance from plain sequences."""
        jobs = []
        for i in range(len(cpu)):
            job: dict[str, Any] = {"cpu": _plain(cpu[i]), "mem": _plain(mem[i])}
            if tasks is not None:
                job["tasks"] = _plain(tasks[i])
            if current_host is not None:
                ch = current_host[i]
                job["current_host"] = [_plain(h) for h in ch] if isinstance(ch, (tuple, list, np.ndarray)) else _plain(ch)
            jobs.append(job)
        data: dict[str, Any] = {"hosts": hosts, "jobs": jobs}
        if migration_budget is not None:
            data["migration_budget"] = migration_budget
        return parse_instance(data)

    @property
    def n_jobs(self) -> int:
        return int(self.cpu.shape[0])

    @property
    def n_tasks(self) -> int:
        return int(self.tasks.sum())

    @property
    def is_parallel(self) -> bool:
        return bool(np.any(self.tasks > 1))

    @property
    def offsets(self) -> np.ndarray:
        """Start index of each job's tasks in the flat task arrays (length J + 1)."""
        return np.concatenate(([0], np.cumsum(self.tasks)))

    @property
    def task_job(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_jobs), self.tasks)

    @property
    def task_cpu(self) -> np.ndarray:
        return np.repeat(self.cpu, self.tasks)

    @property
    def task_mem(self) -> np.ndarray:
        return np.repeat(self.mem, self.tasks)

    def current_task_host(self) -> np.ndarray:
        """Current host of every task, -1 for tasks of new jobs (flat array)."""
        out = np.full(self.n_tasks, -1, dtype=np.int64)
        if self.current_host is None:
            return out
        offsets = self.offsets
        for i, ch in enumerate(self.current_host):
            if ch is None:
                continue
            hosts = [ch] if isinstance(ch, int) else list(ch)
            out[offsets[i] : offsets[i + 1]] = hosts
        return out

    def replace(self, **changes: Any) -> VCInstance:
        return dataclasses.replace(self, **changes)

    def __repr__(self) -> str:
        return f"VCInstance(hosts={self.hosts}, jobs={self.n_jobs}, tasks={self.n_tasks})"


def check_size(hosts: int, tasks: int, *, where: str = "instance") -> None:
    """Refuse an instance beyond the documented size limits (:data:`MAX_HOSTS`,
    :data:`MAX_TASKS`, :data:`MAX_HOST_TASKS`) before anything is allocated for it."""
    if hosts > MAX_HOSTS:
        raise InvalidInputError(f"{where}: {hosts:,} hosts is more than the limit of {MAX_HOSTS:,}")
    if tasks > MAX_TASKS:
        raise InvalidInputError(f"{where}: {tasks:,} tasks in all is more than the limit of {MAX_TASKS:,}")
    if hosts * tasks > MAX_HOST_TASKS:
        raise InvalidInputError(f"{where}: {hosts:,} hosts x {tasks:,} tasks = {hosts * tasks:,} is more than the "
                                f"limit of {MAX_HOST_TASKS:,} (hosts x tasks bounds the heuristics' work)")


@dataclasses.dataclass(frozen=True, eq=False)
class Allocation:
    """Placement and CPU fraction of every task (flat arrays of length ``n_tasks``)."""

    task_host: np.ndarray
    task_cpu: np.ndarray

    def assignment(self, instance: VCInstance) -> list[Any]:
        """Host per job: an int for a one-task job, a list for a parallel job."""
        return _per_job(instance.tasks.tolist(), [int(h) for h in np.asarray(self.task_host).tolist()])

    def cpu(self, instance: VCInstance) -> list[Any]:
        """CPU fraction per job (one-task job) or per task (list, parallel job)."""
        return _per_job(instance.tasks.tolist(), [float(c) for c in np.asarray(self.task_cpu).tolist()])


def _per_job(tasks: Sequence[int], flat: list) -> list[Any]:
    out: list[Any] = []
    start = 0
    for t in tasks:
        t = int(t)
        chunk = flat[start : start + t]
        out.append(chunk[0] if t == 1 else chunk)
        start += t
    return out


@dataclasses.dataclass(frozen=True)
class CheckReport(Findings):
    """What :func:`check_allocation` found (``job_yield``: an array, or ``None`` when the
    allocation's shape or hosts are wrong)."""

    min_yield: float | None
    avg_yield: float | None
    job_yield: np.ndarray | None

    noun = "allocation"


def per_host_sum(task_host: np.ndarray, weights: np.ndarray, hosts: int) -> np.ndarray:
    """Sum of ``weights`` per host, always as float64 (length ``hosts``).

    ``np.bincount`` returns int64 zeros when no task is placed, even with float
    weights: loads added to such an array later would be truncated to 0. Every
    per-host sum of loads or memory goes through here.
    """
    host = np.asarray(task_host, dtype=np.int64)
    return np.bincount(host, weights=np.asarray(weights, dtype=float), minlength=hosts).astype(float, copy=False)


def host_loads(instance: VCInstance, task_host: np.ndarray) -> np.ndarray:
    """Total CPU need ``L_j`` of the tasks placed on each host."""
    return per_host_sum(task_host, instance.task_cpu, instance.hosts)


def host_memory(instance: VCInstance, task_host: np.ndarray) -> np.ndarray:
    """Total memory of the tasks placed on each host."""
    return per_host_sum(task_host, instance.task_mem, instance.hosts)


def placement_problem(instance: VCInstance, task_host: Any) -> str | None:
    """Why ``task_host`` is not a placement of ``instance`` whose hosts' memory holds their
    tasks, or ``None`` when it is: one integer host per task, each in ``0..H-1``, every host's
    memory at most ``1 + MEM_EPS`` (the test the heuristics apply when they place a task)."""
    th = np.asarray(task_host)
    if th.shape != (instance.n_tasks,) or not np.issubdtype(th.dtype, np.integer):
        return (f"`task_host` must be {instance.n_tasks} integers (one host per task), "
                f"got shape {th.shape} and dtype {th.dtype}")
    if th.size and (th.min() < 0 or th.max() >= instance.hosts):
        return f"`task_host` has hosts outside 0..{instance.hosts - 1}"
    used = host_memory(instance, th)
    if np.any(used > 1.0 + MEM_EPS):
        j = int(np.argmax(used))
        return f"the placement overfills the memory of host {j} ({used[j]:.6g} > 1)"
    return None


def placement_min_yield(instance: VCInstance, task_host: np.ndarray) -> float:
    """Best minimum yield of a placement: ``min(1, 1 / max_j L_j)``."""
    peak = float(host_loads(instance, task_host).max(initial=0.0))
    return 1.0 if peak <= 1.0 else 1.0 / peak


def check_allocation(instance: VCInstance, allocation: Allocation, *, tol: float = TOL) -> CheckReport:
    """Check every constraint of VCSched (eq. 5-10, 14-20) and compute the yields.

    Checks: each task on exactly one existing host; host CPU <= 1; host memory
    <= 1; 0 <= task CPU <= alpha_i; equal CPU for the tasks of one job.
    Returns the minimum yield and the average per-job yield (§5.1), the latter
    as ``math.fsum`` of the job yields over their number.
    """
    violations: list[str] = []
    host = np.asarray(allocation.task_host)
    cpu = np.asarray(allocation.task_cpu, dtype=float)
    K = instance.n_tasks
    if host.shape != (K,) or cpu.shape != (K,):
        return CheckReport(False, (f"expected {K} tasks, got host {host.shape} and cpu {cpu.shape}",), None, None, None)
    if not np.issubdtype(host.dtype, np.integer):
        return CheckReport(False, ("task_host must be integers",), None, None, None)
    bad = np.flatnonzero((host < 0) | (host >= instance.hosts))
    if bad.size:
        violations.append(f"task {bad[0]} on host {host[bad[0]]} outside 0..{instance.hosts - 1}")
        return CheckReport(False, tuple(violations), None, None, None)
    if not np.all(np.isfinite(cpu)):
        return CheckReport(False, ("non-finite CPU fraction",), None, None, None)
    used_cpu = per_host_sum(host, cpu, instance.hosts)
    for j in np.flatnonzero(used_cpu > 1 + tol):
        violations.append(f"host {j} CPU {used_cpu[j]:.9g} > 1")
    used_mem = host_memory(instance, host)
    for j in np.flatnonzero(used_mem > 1 + tol):
        violations.append(f"host {j} memory {used_mem[j]:.9g} > 1")
    need = instance.task_cpu
    for k in np.flatnonzero((cpu < -tol) | (cpu > need + tol)):
        violations.append(f"task {k} CPU {cpu[k]:.9g} outside [0, {need[k]:.9g}]")
    job = instance.task_job
    cmax = np.full(instance.n_jobs, -np.inf)
    cmin = np.full(instance.n_jobs, np.inf)
    np.maximum.at(cmax, job, cpu)
    np.minimum.at(cmin, job, cpu)
    for i in np.flatnonzero(cmax - cmin > tol):
        violations.append(f"job {i} tasks have unequal CPU ({cmin[i]:.9g} .. {cmax[i]:.9g})")
    job_yield = np.minimum(cmin / instance.cpu, 1.0)
    return CheckReport(
        valid=not violations,
        violations=tuple(violations),
        min_yield=float(job_yield.min()),
        avg_yield=math.fsum(job_yield.tolist()) / instance.n_jobs,
        job_yield=job_yield,
    )


def allocation_from_placement(
    instance: VCInstance, task_host: np.ndarray, min_yield: float | None = None, *, second_phase: bool = True
) -> Allocation:
    """CPU fractions for a placement: every task gets ``alpha_i * Y`` (Y the best
    min yield of the placement unless given), then the average-yield phase (§3.5)."""
    task_host = np.asarray(task_host, dtype=np.int64)
    y = placement_min_yield(instance, task_host) if min_yield is None else float(min_yield)
    if second_phase:
        return maximize_average_yield(instance, task_host, y)
    return Allocation(task_host, instance.task_cpu * y)


def maximize_average_yield(instance: VCInstance, task_host: np.ndarray, min_yield: float) -> Allocation:
    """Second phase (§3.5, §5.1): keep the placement and a minimum yield ``Y``,
    maximise the average per-job yield.

    For one-task jobs this is the paper's greedy, optimal by an exchange
    argument: every job starts at ``alpha_i * Y``; on each host the spare CPU
    goes to the jobs in increasing ``alpha_i`` order until each is satisfied.
    Ties in ``alpha_i`` are broken by job index. The spare CPU already given
    on a host is the difference of running sums over the jobs sorted by
    (host, ``alpha_i``, index).

    For parallel jobs the tasks of one job share one CPU value across hosts,
    which couples hosts; the greedy is no longer optimal, so the LP
    ``max sum_i c_i / alpha_i`` s.t. ``sum_i n_ij c_i <= 1``,
    ``alpha_i Y <= c_i <= alpha_i`` is solved exactly with HiGHS
    (:func:`_average_yield_lp`: the same LP as the tests' PuLP oracle, passed to
    ``highspy`` as arrays). Should HiGHS fail, every job keeps ``alpha_i Y``.
    """
    task_host = np.asarray(task_host, dtype=np.int64)
    y = float(min(max(min_yield, 0.0), 1.0))
    # Guard against rounding: never start above what the placement allows.
    y = min(y, placement_min_yield(instance, task_host))
    alpha = instance.cpu
    base = alpha * y
    if instance.is_parallel:
        job_cpu = _average_yield_lp(instance, task_host, base)
        return Allocation(task_host, np.repeat(job_cpu, instance.tasks))
    used = per_host_sum(task_host, base, instance.hosts)
    spare = np.maximum(1.0 - used, 0.0)
    order = np.lexsort((np.arange(instance.n_jobs), alpha, task_host))
    headroom = (alpha - base)[order]
    hosts_sorted = task_host[order]
    csum = np.cumsum(headroom)
    # cumulative headroom of earlier jobs on the same host
    start_of_host = np.searchsorted(hosts_sorted, hosts_sorted, side="left")
    before = csum - headroom - np.where(start_of_host > 0, csum[start_of_host - 1], 0.0)
    extra_sorted = np.clip(spare[hosts_sorted] - before, 0.0, headroom)
    cpu = base.copy()
    cpu[order] += extra_sorted
    return Allocation(task_host, np.minimum(cpu, alpha))


def _average_yield_lp(instance: VCInstance, task_host: np.ndarray, base: np.ndarray) -> np.ndarray:
    """The CPU of each job maximising ``sum_i c_i / alpha_i`` s.t. ``sum_i n_ij c_i <= 1`` on every host ``j``
    (``n_ij`` tasks of job ``i`` on host ``j``) and ``base_i <= c_i <= alpha_i``; ``base`` when HiGHS does not
    report an optimum. One column per job, its entries the hosts of its tasks with their counts."""
    from vcsched.highs import new_highs

    highspy, h = new_highs()
    n, hosts = instance.n_jobs, instance.hosts
    key = np.unique(instance.task_job * hosts + task_host, return_counts=True)
    cells, counts = key
    job, host = np.divmod(cells, hosts)  # sorted by job, then host: column-wise order
    start = np.searchsorted(job, np.arange(n + 1)).astype(np.int32)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, hosts
    lp.col_cost_ = -1.0 / instance.cpu
    lp.col_lower_, lp.col_upper_ = base, instance.cpu
    lp.row_lower_ = np.full(hosts, -highspy.kHighsInf)
    lp.row_upper_ = np.ones(hosts)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, hosts
    lp.a_matrix_.start_, lp.a_matrix_.index_ = start, host.astype(np.int32)
    lp.a_matrix_.value_ = counts.astype(float)
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return base
    return np.clip(np.asarray(h.getSolution().col_value), base, instance.cpu)


# --------------------------------------------------------------------------- files


def _fail(source: str, where: str, what: str) -> InvalidInputError:
    return InvalidInputError(f"{source}: {where}: {what}")


def _host_index(value: Any, where: str, hosts: int) -> int:
    return int(int_field({"current_host": value}, "current_host", where=where, low=0, high=hosts - 1))


def _current_host(job: dict, tasks: int, hosts: int, source: str, where: str) -> Any:
    """``None``, an int (one-task job) or a tuple of ints (one per task), each in ``0..hosts-1``."""
    ch = job.get("current_host")
    if ch is None:
        return None
    if isinstance(ch, list):
        if len(ch) != tasks:
            raise _fail(source, f"{where}, field 'current_host'", f"lists {len(ch)} hosts for {tasks} tasks")
        return tuple(_host_index(h, where, hosts) for h in ch)
    if tasks != 1:
        raise _fail(source, f"{where}, field 'current_host'", f"a job with {tasks} tasks needs a list of {tasks} hosts")
    return _host_index(ch, where, hosts)


def parse_instance(data: Any, source: str = "<instance>") -> VCInstance:
    """Validate a decoded JSON document and build a :class:`VCInstance`.

    Raises :class:`InvalidInputError` naming ``source``, the job index and the
    field, e.g. ``inst.json: job 3: field 'cpu' must be >= 1e-09 and <= 1, got 1.5``.
    Unknown fields are refused with the nearest known name; sizes beyond
    :data:`MAX_HOSTS`, :data:`MAX_TASKS` and :data:`MAX_HOST_TASKS` are refused
    before any array is allocated; ``cpu`` must be at least :data:`MIN_CPU`.
    """
    hosts, jobs = instance_head(data, source=source, known=INSTANCE_FIELDS,
                                expected="a JSON object with 'hosts' and 'jobs'", count_key="hosts",
                                counts="number of identical hosts", count_high=MAX_HOSTS,
                                list_key="jobs", item='{"cpu": ..., "mem": ...}')
    cpu, mem, tasks, current = [], [], [], []
    total = 0
    for i, job in enumerate(jobs):
        where = f"{source}: job {i}"
        if not isinstance(job, dict):
            raise _fail(source, f"job {i}", "expected an object with 'cpu' and 'mem'")
        check_keys(job, JOB_FIELDS, where=where)
        cpu.append(number_field(job, "cpu", where=where, required=True, low=MIN_CPU, high=1.0))
        mem.append(number_field(job, "mem", where=where, required=True, low=0.0, high=1.0))
        t = int_field(job, "tasks", where=where, default=1, low=1, high=MAX_TASKS)
        total += t
        check_size(hosts, total, where=source)
        tasks.append(t)
        current.append(_current_host(job, t, hosts, source, where))
    budget = data.get("migration_budget")
    if budget is not None:
        budget = number_field(data, "migration_budget", where=source, low=0.0)
    return VCInstance(
        hosts=hosts,
        cpu=np.asarray(cpu, dtype=float),
        mem=np.asarray(mem, dtype=float),
        tasks=np.asarray(tasks, dtype=np.int64),
        current_host=tuple(current) if any(c is not None for c in current) else None,
        migration_budget=budget,
    )


def load_instance(path: str | os.PathLike) -> VCInstance:
    """Read a VCSched JSON file (format in the README) through the toolkit's one JSON loader
    (:func:`vcsched.problems.jsonfile.load_json`: a directory, a binary or UTF-16 file, NaN or
    Infinity are refused with one line)."""
    source = os.fspath(path)
    return parse_instance(load_json(source, what="VCSched instance"), source)


def instance_to_dict(instance: VCInstance) -> dict[str, Any]:
    jobs = []
    for i in range(instance.n_jobs):
        job: dict[str, Any] = {"cpu": float(instance.cpu[i]), "mem": float(instance.mem[i])}
        if instance.tasks[i] != 1:
            job["tasks"] = int(instance.tasks[i])
        if instance.current_host is not None:
            ch = instance.current_host[i]
            job["current_host"] = list(ch) if isinstance(ch, tuple) else ch
        jobs.append(job)
    out: dict[str, Any] = {"hosts": instance.hosts, "jobs": jobs}
    if instance.migration_budget is not None:
        out["migration_budget"] = instance.migration_budget
    return out


def save_instance(instance: VCInstance, path: str | os.PathLike) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(instance_to_dict(instance), fh, indent=1)
        fh.write("\n")
