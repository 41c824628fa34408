"""The time-shared servers' experiment instances as ``vcsched timeshare simulate|bound`` build them (seed 003).

:func:`build` is the one builder of a scenario's instance with the workload and platform options (memory model,
swap share, compute scales, the first ``tasks`` tasks), so the Python API and the command line refuse the same
inputs with the same messages.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from vcsched.errors import InvalidInputError

__all__ = ["build", "platform_for"]


def platform_for(scenario: str, platform: str | None = None, *, memory: str = "ram", swap_share: float = 1.0,
                 compute_scale: Sequence[tuple[str, float]] = ()) -> Any:
    """``platform`` as given (a name of :data:`vcsched.problems.timeshare.PLATFORMS`, or None for the scenario's
    own), or that platform rebuilt with the ``memory`` / ``swap_share`` capacity and the ``compute_scale``
    factors (``(server, factor)`` pairs)."""
    if memory == "ram" and swap_share == 1.0 and not compute_scale:
        return platform
    from vcsched.problems.timeshare import PLATFORMS, make_platform

    if swap_share != 1.0 and memory != "ram+swap":
        raise InvalidInputError("--swap-share applies to --memory ram+swap; add --memory ram+swap or drop it")
    if scenario == "a" and platform is not None:
        return platform  # generate_scenario explains that scenario a has its own servers
    name = "dgemm" if scenario == "a" else (platform or "2")
    kind, servers = PLATFORMS[name]
    scale = dict(compute_scale)
    if len(scale) != len(compute_scale):
        raise InvalidInputError("--compute-scale names a server twice; give each server once")
    return make_platform(kind, servers, name=name, memory=memory, swap_share=swap_share, compute_scale=scale)


def build(scenario: str, *, platform: str | None = None, memory: str = "ram", swap_share: float = 1.0,
          compute_scale: Sequence[tuple[str, float]] = (), mu: float | None = None, seed: int = 0,
          interarrival: str = "poisson", noise: float = 0.0, tasks: int | None = None) -> Any:
    """The scenario's instance (:func:`vcsched.generators.timeshare.generate_scenario`) on the platform of
    :func:`platform_for`, cut to its first ``tasks`` tasks (:func:`vcsched.problems.timeshare.first_tasks`)."""
    from vcsched.generators.timeshare import generate_scenario
    from vcsched.problems.timeshare import first_tasks

    chosen = platform_for(scenario, platform, memory=memory, swap_share=swap_share, compute_scale=compute_scale)
    instance = generate_scenario(scenario, platform=chosen, mu=mu, rng=seed, interarrival=interarrival, noise=noise)
    n = instance.workload.n_tasks
    if tasks is None:
        return instance
    if tasks > n:
        raise InvalidInputError(f"--tasks: scenario {scenario} has {n} tasks; give at most {n}")
    workload, keep = first_tasks(instance.workload, tasks)
    factor = None if instance.work_factor is None else instance.work_factor[keep]
    return dataclasses.replace(instance, workload=workload, work_factor=factor)
