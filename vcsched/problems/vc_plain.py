"""VCSched on plain Python lists: the instance file's rules and the reference placement rules.

Seed 001 (Casanova, Schanzenbach, Stillwell, Vivien, INRIA RR-6692, 2008),
§2.3, §3.5 and §5.1; the model is described in :mod:`vcsched.problems.vc`.
This module imports no numpy, so that ``vcsched vc solve small.json --method
mcb8`` starts without it (issue 19: numpy's import alone costs more than the
whole start-up target). It holds:

* the validation of instance documents (:func:`parse_plain_instance`, the
  only implementation: :func:`vcsched.problems.vc.parse_instance` converts
  its result to arrays), the size limits and :class:`PlainInstance`;
* :class:`Allocation` and :class:`CheckReport`, shared by both forms (an
  allocation holds numpy arrays on the numpy path, lists here);
* the *plain* forms of the rules that :mod:`vcsched.problems.vc` also has in
  vectorised numpy form for large instances: host loads, the best minimum
  yield of a placement, the average-yield phase for one-task jobs (§3.5) and
  the checker. Both forms do the same floating-point operations in the same
  order, so they give identical numbers (tested over random instances in
  ``tests/vc/test_vc_plain.py``); the plain form is the reference.

Choice: the average yield is ``math.fsum`` of the per-job yields divided by
the number of jobs (exactly rounded), in both forms, so that they agree to
the last bit.

Examples
--------
>>> inst = parse_plain_instance({"hosts": 2, "jobs": [{"cpu": 0.8, "mem": 0.5}, {"cpu": 0.8, "mem": 0.5},
...                                                   {"cpu": 0.4, "mem": 0.4}]})
>>> alloc = plain_allocation_from_placement(inst, [0, 1, 1])  # host 1 load 1.2: Y = 1 / 1.2
>>> [round(c, 4) for c in alloc.task_cpu]  # the job alone on host 0 gets its full need
[0.8, 0.6667, 0.3333]
>>> report = plain_check_allocation(inst, alloc)
>>> report.valid, round(report.min_yield, 4), round(report.avg_yield, 4)  # yields 1, 1 / 1.2, 1 / 1.2
(True, 0.8333, 0.8889)
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from typing import Any

from vcsched.errors import InvalidInputError
from vcsched.problems.jsonfile import check_keys, int_field, load_json, number_field

__all__ = [
    "PlainInstance",
    "Allocation",
    "CheckReport",
    "parse_plain_instance",
    "load_plain_instance",
    "plain_host_loads",
    "plain_placement_min_yield",
    "plain_allocation_from_placement",
    "plain_check_allocation",
    "check_size",
    "TOL",
    "MEM_EPS",
    "MIN_CPU",
    "MAX_HOSTS",
    "MAX_TASKS",
    "MAX_HOST_TASKS",
]

TOL = 1e-7
"""Absolute tolerance of the checker on capacities and equalities."""

MEM_EPS = 1e-12
"""Slack allowed on a host's memory when a heuristic tests whether a task fits.

Tiny (the checker tolerates ``1e-7`` in total) so that packings filled
exactly to capacity, like the planted instances of the tests, are accepted
despite rounding."""

MIN_CPU = 1e-9
"""Smallest CPU need accepted (``cpu`` in ``[1e-9, 1]``): the heuristics divide by
``alpha_i`` and sort by ratios of needs, which overflow for needs near the
smallest float (``5e-324``); a VM needing less than a billionth of a host is
not a meaningful model."""

MAX_HOSTS = 100_000
"""Most hosts in an instance: the heuristics keep per-host arrays and scan them per task."""

MAX_TASKS = 1_000_000
"""Most tasks (sum of ``tasks`` over the jobs) in an instance."""

MAX_HOST_TASKS = 1_000_000_000
"""Largest ``hosts * tasks``: every heuristic examines the hosts for each task it places,
so this bounds their work (about a second per 10^8 on one core)."""

JOB_FIELDS = ("cpu", "mem", "tasks", "current_host")
INSTANCE_FIELDS = ("hosts", "jobs", "migration_budget")


# --------------------------------------------------------------------------- instances


@dataclasses.dataclass(frozen=True)
class PlainInstance:
    """A validated VCSched instance as tuples (fields as in :class:`vcsched.problems.vc.VCInstance`).

    ``cpu``, ``mem``, ``tasks`` have one entry per job; ``current_host`` is
    ``None`` or one entry per job (``None``, an int, or a tuple of ints).
    """

    hosts: int
    cpu: tuple[float, ...]
    mem: tuple[float, ...]
    tasks: tuple[int, ...]
    current_host: tuple | None = None
    migration_budget: float | None = None

    @property
    def n_jobs(self) -> int:
        return len(self.cpu)

    @property
    def n_tasks(self) -> int:
        return sum(self.tasks)

    @property
    def is_parallel(self) -> bool:
        return any(t > 1 for t in self.tasks)

    @property
    def task_cpu(self) -> list[float]:
        """CPU need of every task (the tasks of job ``i`` are consecutive)."""
        return [c for c, t in zip(self.cpu, self.tasks) for _ in range(t)]

    @property
    def task_mem(self) -> list[float]:
        return [m for m, t in zip(self.mem, self.tasks) for _ in range(t)]


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


def parse_plain_instance(data: Any, source: str = "<instance>") -> PlainInstance:
    """Validate a decoded JSON document and build a :class:`PlainInstance`.

    Raises :class:`InvalidInputError` naming ``source``, the job index and the
    field, e.g. ``inst.json: job 3: field 'cpu' must be >= 1e-09 and <= 1, got 1.5``.
    Unknown fields are refused with the nearest known name; sizes beyond
    :data:`MAX_HOSTS`, :data:`MAX_TASKS` and :data:`MAX_HOST_TASKS` are refused
    before any array is allocated; ``cpu`` must be at least :data:`MIN_CPU`.
    """
    if not isinstance(data, dict):
        raise _fail(source, "top level", "expected a JSON object with 'hosts' and 'jobs'")
    check_keys(data, INSTANCE_FIELDS, where=source)
    if "hosts" not in data:
        raise _fail(source, "field 'hosts'", "missing (number of identical hosts, an integer >= 1)")
    hosts = int_field(data, "hosts", where=source, low=1, high=MAX_HOSTS)
    jobs = data.get("jobs")
    if not isinstance(jobs, list) or not jobs:
        raise _fail(source, "field 'jobs'", "missing or empty (a list of {\"cpu\": ..., \"mem\": ...} objects)")
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
    return PlainInstance(
        hosts=hosts,
        cpu=tuple(cpu),
        mem=tuple(mem),
        tasks=tuple(tasks),
        current_host=tuple(current) if any(c is not None for c in current) else None,
        migration_budget=budget,
    )


def load_plain_instance(path: str | os.PathLike) -> PlainInstance:
    """Read a VCSched JSON file (format in the README) through the toolkit's one JSON loader
    (:func:`vcsched.problems.jsonfile.load_json`: a directory, a binary or UTF-16 file, NaN or
    Infinity are refused with one line)."""
    source = os.fspath(path)
    return parse_plain_instance(load_json(source, what="VCSched instance"), source)


# --------------------------------------------------------------------------- allocations


@dataclasses.dataclass(frozen=True, eq=False)
class Allocation:
    """Placement and CPU fraction of every task (flat sequences of length ``n_tasks``:
    numpy arrays from the numpy path, lists from the plain one)."""

    task_host: Any
    task_cpu: Any

    def assignment(self, instance: Any) -> list[Any]:
        """Host per job: an int for a one-task job, a list for a parallel job."""
        return _per_job(instance.tasks, [int(h) for h in _python_values(self.task_host)])

    def cpu(self, instance: Any) -> list[Any]:
        """CPU fraction per job (one-task job) or per task (list, parallel job)."""
        return _per_job(instance.tasks, [float(c) for c in _python_values(self.task_cpu)])


def _python_values(values: Any) -> Any:
    """An array's values as Python numbers (``tolist``: one C call), a list as it is."""
    return values.tolist() if hasattr(values, "tolist") else values


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
class CheckReport:
    """What a checker (:func:`vcsched.problems.vc.check_allocation` or :func:`plain_check_allocation`) found."""

    valid: bool
    violations: tuple[str, ...]
    min_yield: float | None
    avg_yield: float | None
    job_yield: Any

    def raise_if_invalid(self) -> None:
        if not self.valid:
            raise AssertionError("invalid allocation: " + "; ".join(self.violations[:5]))


def plain_host_loads(hosts: int, task_host: Sequence[int], task_cpu: Sequence[float]) -> list[float]:
    """Total CPU need ``L_j`` of the tasks on each host, summed in task order."""
    loads = [0.0] * hosts
    for h, c in zip(task_host, task_cpu):
        loads[h] += c
    return loads


def plain_placement_min_yield(hosts: int, task_host: Sequence[int], task_cpu: Sequence[float]) -> float:
    """Best minimum yield of a placement: ``min(1, 1 / max_j L_j)`` (module docstring of
    :mod:`vcsched.problems.vc`); ``task_cpu`` are the tasks' CPU needs ``alpha_i``."""
    peak = max(plain_host_loads(hosts, task_host, task_cpu), default=0.0)
    return 1.0 if peak <= 1.0 else 1.0 / peak


def plain_allocation_from_placement(instance: PlainInstance, task_host: Sequence[int],
                                    min_yield: float | None = None) -> Allocation:
    """CPU fractions of a placement of one-task jobs: every job gets ``alpha_i * Y`` (Y the best
    minimum yield of the placement unless given), then the average-yield phase (§3.5, §5.1).

    The phase is the greedy of :func:`vcsched.problems.vc.maximize_average_yield`: on each host
    the spare CPU goes to the jobs in increasing ``alpha_i`` order (ties by job index) until each
    is satisfied. The spare CPU already given on a host is the difference of running sums over
    the jobs sorted by (host, ``alpha_i``, index), as in the vectorised form, so both give the
    same numbers. Parallel jobs couple hosts (an LP, numpy path only): ``ValueError``.
    """
    if instance.is_parallel:
        raise ValueError("the plain average-yield phase handles one-task jobs only; parallel jobs need the LP of "
                         "vcsched.problems.vc.maximize_average_yield")
    alpha = instance.cpu
    task_host = [int(h) for h in task_host]
    best = plain_placement_min_yield(instance.hosts, task_host, alpha)
    y = best if min_yield is None else float(min(max(min_yield, 0.0), 1.0))
    y = min(y, best)  # never start above what the placement allows
    base = [a * y for a in alpha]
    used = plain_host_loads(instance.hosts, task_host, base)
    spare = [max(1.0 - u, 0.0) for u in used]
    order = sorted(range(len(alpha)), key=lambda i: (task_host[i], alpha[i], i))
    cpu = list(base)
    csum = 0.0
    csum_before_host = 0.0  # running sum at the end of the previous host's jobs
    previous = None
    for i in order:
        h = task_host[i]
        if h != previous:
            csum_before_host, previous = csum, h
        headroom = alpha[i] - base[i]
        csum += headroom
        before = csum - headroom - csum_before_host
        extra = min(max(spare[h] - before, 0.0), headroom)
        cpu[i] = min(base[i] + extra, alpha[i])
    return Allocation(task_host, cpu)


def plain_check_allocation(instance: PlainInstance, allocation: Allocation, *, tol: float = TOL) -> CheckReport:
    """The checker of :func:`vcsched.problems.vc.check_allocation` on lists: every constraint of
    VCSched (eq. 5-10, 14-20), the same violation messages in the same order, the same yields
    (``job_yield`` is a list)."""
    host = list(allocation.task_host)
    cpu = list(allocation.task_cpu)
    K = instance.n_tasks
    if len(host) != K or len(cpu) != K:
        return CheckReport(False, (f"expected {K} tasks, got host {(len(host),)} and cpu {(len(cpu),)}",),
                           None, None, None)
    if not all(isinstance(h, int) and not isinstance(h, bool) for h in host):
        return CheckReport(False, ("task_host must be integers",), None, None, None)
    for k, h in enumerate(host):
        if not 0 <= h < instance.hosts:
            return CheckReport(False, (f"task {k} on host {h} outside 0..{instance.hosts - 1}",), None, None, None)
    cpu = [float(c) for c in cpu]
    if not all(math.isfinite(c) for c in cpu):
        return CheckReport(False, ("non-finite CPU fraction",), None, None, None)
    violations: list[str] = []
    used_cpu = plain_host_loads(instance.hosts, host, cpu)
    violations += [f"host {j} CPU {u:.9g} > 1" for j, u in enumerate(used_cpu) if u > 1 + tol]
    used_mem = plain_host_loads(instance.hosts, host, instance.task_mem)
    violations += [f"host {j} memory {u:.9g} > 1" for j, u in enumerate(used_mem) if u > 1 + tol]
    need = instance.task_cpu
    violations += [f"task {k} CPU {c:.9g} outside [0, {a:.9g}]" for k, (c, a) in enumerate(zip(cpu, need))
                   if c < -tol or c > a + tol]
    cmin, cmax = [math.inf] * instance.n_jobs, [-math.inf] * instance.n_jobs
    k = 0
    for i, t in enumerate(instance.tasks):
        for c in cpu[k : k + t]:
            cmin[i], cmax[i] = min(cmin[i], c), max(cmax[i], c)
        k += t
    violations += [f"job {i} tasks have unequal CPU ({lo:.9g} .. {hi:.9g})"
                   for i, (lo, hi) in enumerate(zip(cmin, cmax)) if hi - lo > tol]
    job_yield = [min(lo / a, 1.0) for lo, a in zip(cmin, instance.cpu)]
    return CheckReport(
        valid=not violations,
        violations=tuple(violations),
        min_yield=min(job_yield),
        avg_yield=math.fsum(job_yield) / len(job_yield),
        job_yield=job_yield,
    )
