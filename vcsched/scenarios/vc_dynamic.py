"""Dynamic VCSched workloads for :func:`vcsched.sim.vcdynamic.simulate_dynamic` (seed 001 §6).

The builders compose the §4.1 need generators (:mod:`vcsched.generators.vc`,
:mod:`vcsched.generators.lublin`) with the simulator's
:class:`~vcsched.sim.vcdynamic.DynamicWorkload`, so they sit above both.
"""

from __future__ import annotations

import math

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.generators.lublin import lublin_sizes
from vcsched.generators.vc import truncated_normal
from vcsched.problems.vc_limits import MAX_EXPECTED_ARRIVALS
from vcsched.sim.vcdynamic import DynamicWorkload

__all__ = ["poisson_workload", "swf_workload", "check_expected_arrivals"]


def check_expected_arrivals(arrival_rate: float, duration: float) -> None:
    """Refuse more than :data:`~vcsched.problems.vc_limits.MAX_EXPECTED_ARRIVALS` expected arrivals."""
    expected = arrival_rate * duration
    if expected > MAX_EXPECTED_ARRIVALS:
        raise InvalidInputError(f"vc adapt: --arrival-rate {arrival_rate:g} x --duration {duration:g} = "
                                f"{expected:.4g} expected arrivals, more than the limit of {MAX_EXPECTED_ARRIVALS:,}; "
                                "lower the rate or the duration")


def poisson_workload(
    hosts: int,
    arrival_rate: float,
    mean_lifetime: float,
    duration: float,
    *,
    slack: float = 0.5,
    cv_mem: float = 0.5,
    cv_cpu: float = 0.5,
    mean_cpu: float = 0.5,
    tasks: str | None = None,
    rng: np.random.Generator | int | None = None,
) -> DynamicWorkload:
    """Poisson arrivals (rate ``arrival_rate``) on ``[0, duration)`` with exponential lifetimes.

    Needs are drawn as in §4.1 (normal truncated to (0, 1]); the mean memory
    need is ``hosts * (1 - slack) / N`` where ``N = arrival_rate *
    mean_lifetime`` is the mean number of jobs in the system (Little's law),
    so ``slack`` plays the role it has in the static instances. With
    ``tasks="lublin"`` task counts follow the Lublin-Feitelson model and the
    memory mean is divided by the mean task count.
    """
    for name, value in (("arrival_rate", arrival_rate), ("mean_lifetime", mean_lifetime), ("duration", duration)):
        if not (value > 0 and math.isfinite(value)):
            raise InvalidInputError(f"{name} must be a positive number, got {value}")
    check_expected_arrivals(arrival_rate, duration)
    rng = np.random.default_rng(rng)
    n = int(rng.poisson(arrival_rate * duration))
    arrival = np.sort(rng.uniform(0.0, duration, n))
    lifetime = rng.exponential(mean_lifetime, n)
    counts = lublin_sizes(n, rng, max_size=min(64, hosts)) if tasks == "lublin" else np.ones(n, dtype=np.int64)
    mean_tasks = 3.0 if tasks == "lublin" else 1.0
    mean_jobs = max(arrival_rate * mean_lifetime, 1e-9)
    mean_mem = min(hosts * (1.0 - slack) / (mean_jobs * mean_tasks), 1.0)
    mem = truncated_normal(mean_mem, cv_mem, n, rng) if n else np.zeros(0)
    cpu = truncated_normal(mean_cpu, cv_cpu, n, rng) if n else np.zeros(0)
    return DynamicWorkload(arrival, lifetime, cpu, mem, counts)


def swf_workload(
    workload,
    hosts: int,
    *,
    slack: float = 0.5,
    cv_mem: float = 0.5,
    cv_cpu: float = 0.5,
    mean_cpu: float = 0.5,
    max_tasks: int = 64,
    rng: np.random.Generator | int | None = None,
) -> DynamicWorkload:
    """Jobs of a real trace (a :class:`vcsched.problems.workload.Workload`, e.g. from
    :func:`~vcsched.problems.workload.read_swf` and a time window) as VCSched jobs.

    Arrival = submit time (shifted to start at 0), lifetime = the run time
    the job really had (capped at its requested time), tasks = its processors
    (capped at ``max_tasks``); CPU and memory needs are drawn as in §4.1, the
    memory mean being ``hosts * (1 - slack)`` divided by the mean number of
    tasks in the system (Little's law over the trace's span).
    """
    rng = np.random.default_rng(rng)
    submit = np.asarray(workload.submit_time, dtype=float)
    order = np.argsort(submit, kind="stable")
    arrival = submit[order] - (submit[order][0] if submit.size else 0.0)
    lifetime = np.asarray(workload.effective_run_time, dtype=float)[order]
    tasks = np.clip(np.asarray(workload.processors, dtype=np.int64)[order], 1, max_tasks)
    n = arrival.size
    span = max(float(arrival[-1]) if n else 0.0, 1e-9)
    mean_in_system = max(float(np.dot(tasks, lifetime)) / span, 1e-9)
    mean_mem = min(hosts * (1.0 - slack) / mean_in_system, 1.0)
    mem = truncated_normal(mean_mem, cv_mem, n, rng) if n else np.zeros(0)
    cpu = truncated_normal(mean_cpu, cv_cpu, n, rng) if n else np.zeros(0)
    return DynamicWorkload(arrival, np.maximum(lifetime, 0.0), cpu, mem, tasks)
