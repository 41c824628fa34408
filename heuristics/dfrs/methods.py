"""The DFRS policies by name, one :func:`simulate_policy` for Python and ``vcsched dfrs simulate``.

:data:`POLICIES` is the table the command line's choices and the Python API both read: each
:class:`PolicySpec` says whether the policy is a batch baseline (run by the batch simulator,
:mod:`vcsched.sim`, on ``hosts x cores`` processors with the trace's requested times; each task holds
a whole core, memory is not modelled there) or a fractional one (:mod:`vcsched.sim.dfrs`) and builds it.

Every run gives a :class:`PolicyRun`: the metrics of :func:`vcsched.sim.dfrs.job_metrics` plus
``migrations``, ``pauses``, ``memory_moved`` (0 for the batch baselines), and the per-job columns
(``start``, ``end``, ``migrations``, ``pauses``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import numpy as np

from heuristics.dfrs.cpu import CPU_TARGETS
from heuristics.dfrs.policies import HYSTERESIS, GreedyPolicy, Mcb8Periodic
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.names import dfrs as names
from vcsched.problems.dfrs import DfrsJobs, DfrsPlatform
from vcsched.registry import Registry
from vcsched.sim.dfrs import job_metrics, job_stretch, simulate_dfrs

__all__ = ["PolicySpec", "PolicyRun", "POLICIES", "make_policy", "simulate_policy", "simulate_policies",
           "DEFAULT_PENALTY", "DEFAULT_PERIOD", "DEFAULT_HYSTERESIS", "CPU_TARGETS", "JOB_COLUMNS", "job_rows"]

DEFAULT_PENALTY = 300.0
DEFAULT_PERIOD = 600.0
DEFAULT_HYSTERESIS = HYSTERESIS


@dataclasses.dataclass(frozen=True)
class PolicySpec:
    """``batch``: the batch simulator's policy name (``easy``/``fcfs``), else ``None``; ``build(period, budget,
    cpu_target, on_arrival, hysteresis)`` makes a fractional policy object."""

    name: str
    batch: str | None = None
    build: Callable | None = None
    periodic: bool = False


def _table() -> Registry:
    reg: Registry = Registry("DFRS policy", names.POLICIES)
    specs = [
        PolicySpec("easy", batch="easy"),
        PolicySpec("fcfs", batch="fcfs"),
        PolicySpec("greedy", build=lambda period, budget, cpu, arrival, hyst: GreedyPolicy("greedy", cpu_target=cpu)),
        PolicySpec("greedy-pmtn", build=lambda period, budget, cpu, arrival, hyst: GreedyPolicy("greedy-pmtn", preempt=True,
                                                                                 cpu_target=cpu)),
        PolicySpec("greedy-pmtn-migr", build=lambda period, budget, cpu, arrival, hyst: GreedyPolicy(
            "greedy-pmtn-migr", preempt=True, move_paused=True, cpu_target=cpu, budget=budget)),
        PolicySpec("mcb8-per", periodic=True, build=lambda period, budget, cpu, arrival, hyst: Mcb8Periodic(
            "mcb8-per", period=period, budget=budget, cpu_target=cpu, on_arrival=arrival, hysteresis=hyst)),
        PolicySpec("mcb8-per-stretch", periodic=True, build=lambda period, budget, cpu, arrival, hyst: Mcb8Periodic(
            "mcb8-per-stretch", period=period, budget=budget, stretch=True, cpu_target=cpu,
            on_arrival=arrival, hysteresis=hyst)),
    ]
    for spec in specs:
        reg.register(spec.name)(spec)
    return reg


POLICIES = _table()
"""Every DFRS policy by name (:class:`PolicySpec`)."""


@dataclasses.dataclass(frozen=True)
class PolicyRun:
    policy: str
    metrics: dict
    start: np.ndarray
    end: np.ndarray
    migrations: np.ndarray
    pauses: np.ndarray


def make_policy(name: str, *, period: float = DEFAULT_PERIOD, budget: float = math.inf,
                cpu_target: str = "avgyield", on_arrival: bool = False, hysteresis: float = DEFAULT_HYSTERESIS):
    """The fractional policy object ``name`` (a batch name is refused: it does not run in the DFRS engine)."""
    spec = POLICIES.get(name)
    if spec.batch is not None:
        raise InvalidInputError(f"{name!r} is a batch baseline; run it with simulate_policy")
    if cpu_target not in CPU_TARGETS:
        raise UnknownNameError(f"unknown CPU target {cpu_target!r}; choose one of {CPU_TARGETS}")
    return spec.build(float(period), float(budget), cpu_target, bool(on_arrival), float(hysteresis))


def _batch(jobs: DfrsJobs, platform: DfrsPlatform, policy: str) -> PolicyRun:
    from vcsched.problems.workload import from_arrays
    from vcsched.sim import JobTable, make_cluster, simulate_grid

    w = from_arrays(jobs.submit, jobs.run, np.maximum(jobs.requested, jobs.run), jobs.tasks, job_id=jobs.job_id,
                    max_procs=platform.processors)
    table = JobTable.from_workloads([w])
    res = simulate_grid([make_cluster("dfrs", platform.processors, policy=policy)], table)
    order = np.argsort(table.submit, kind="stable")
    if not np.array_equal(table.submit[order], jobs.submit):
        raise RuntimeError("batch simulator reordered the jobs")  # pragma: no cover
    start, end = res.start[order], res.finish[order]
    zeros = np.zeros(len(jobs), dtype=np.int64)
    m = job_metrics(jobs.submit, end, jobs.run, jobs.tasks, platform.processors)
    m.update(migrations=0, pauses=0, memory_moved=0.0)
    return PolicyRun(policy, m, start, end, zeros, zeros)


def simulate_policy(jobs: DfrsJobs, platform: DfrsPlatform, policy: str, *, penalty: float = DEFAULT_PENALTY,
                    period: float = DEFAULT_PERIOD, budget: float = math.inf, cpu_target: str = "avgyield",
                    on_arrival: bool = False, hysteresis: float = DEFAULT_HYSTERESIS,
                    progress: Callable[[int], None] | None = None) -> PolicyRun:
    """Run ``policy`` (a name of :data:`POLICIES`) on ``jobs``; the batch baselines ignore penalty, period,
    budget, CPU target, ``on_arrival`` (the MCB8 policies' re-allocation at each arrival too) and ``hysteresis``
    (:class:`heuristics.dfrs.policies.Mcb8Periodic`)."""
    spec = POLICIES.get(policy)
    if spec.batch is not None:
        return _batch(jobs, platform, spec.batch)
    pol = make_policy(policy, period=period, budget=budget, cpu_target=cpu_target, on_arrival=on_arrival,
                      hysteresis=hysteresis)
    result = simulate_dfrs(jobs, platform, pol, penalty=penalty, budget=budget, progress=progress)
    return PolicyRun(spec.name, result.metrics(), result.start, result.end, result.migrations, result.pauses)


def simulate_policies(jobs: DfrsJobs, platform: DfrsPlatform, policies: Sequence[str], **options) -> list[PolicyRun]:
    """:func:`simulate_policy` for each name, on the same jobs (paired)."""
    for name in policies:
        POLICIES.get(name)
    return [simulate_policy(jobs, platform, name, **options) for name in policies]


JOB_COLUMNS = ("policy", "job_id", "submission_time", "starting_time", "finish_time", "execution_time", "stretch",
               "migrations", "pauses")
"""The per-job table of a DFRS run (``dfrs simulate -o``), one row per policy and job, Batsim-like names."""


def job_rows(jobs: DfrsJobs, runs: Sequence[PolicyRun]) -> list[dict]:
    """One row per run and job (:data:`JOB_COLUMNS`): the policy, the job's id, submission, start, finish and run
    times, its stretch (:func:`vcsched.sim.dfrs.job_stretch`; NaN for a job of zero run time), and the times it
    was migrated and paused."""
    rows = []
    for run in runs:
        stretch = job_stretch(jobs.submit, run.end, jobs.run)
        for k in range(len(jobs)):
            rows.append({"policy": run.policy, "job_id": int(jobs.job_id[k]), "submission_time": float(jobs.submit[k]),
                         "starting_time": float(run.start[k]), "finish_time": float(run.end[k]),
                         "execution_time": float(jobs.run[k]), "stretch": float(stretch[k]),
                         "migrations": int(run.migrations[k]), "pauses": int(run.pauses[k])})
    return rows
