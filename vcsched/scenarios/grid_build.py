"""One builder of every grid command's clusters and jobs: a trace on one cluster, a platform file, or a
scenario of seed 000 (``vcsched grid simulate`` and ``grid bound`` read the same workload through it).

:func:`build` takes exactly one of ``trace``, ``platform`` or ``scenario``; the Python API and the command
line therefore refuse the same inputs with the same messages.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from vcsched.errors import InvalidInputError

__all__ = ["GridWorkload", "build", "cluster_name"]


@dataclasses.dataclass(frozen=True)
class GridWorkload:
    """What a grid run simulates: the clusters, the job table, the arrival mapping's name (``"mct"``,
    ``"origin"``-like ``None``, or the platform file's ``meta``) and the workloads read (for their counts of
    skipped lines)."""

    clusters: list
    jobs: Any
    meta: str | None
    workloads: tuple = ()


def cluster_name(trace: str) -> str:
    """The cluster's name for a one-trace platform: the trace's file name without ``.gz``, ``.swf``, ``.json``."""
    name = Path(trace).name
    for suffix in (".gz", ".swf", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _from_scenario(scenario: str, *, heterogeneous: bool, batch: str, days, seed: int, overestimate: float,
                   max_load: float | None) -> GridWorkload:
    from vcsched.scenarios.grid import build_scenario

    extra = {} if max_load is None else {"max_load": max_load}
    clusters, jobs = build_scenario(scenario, heterogeneous=heterogeneous, batch=batch, days=days, seed=seed,
                                    overestimate=overestimate, **extra)
    return GridWorkload(clusters, jobs, "mct")


def _from_platform(platform: str, *, skip_bad_lines: bool, shift: bool) -> GridWorkload:
    from vcsched.scenarios.platform import load_platform
    from vcsched.sim import JobTable

    clusters, workloads, origins, labels, meta = load_platform(platform, skip_bad_lines=skip_bad_lines, shift=shift)
    jobs = JobTable.from_workloads(workloads, origins, labels if len(workloads) > 1 else None)
    if not meta or str(meta).lower() in ("none", "origin"):
        meta = None
    return GridWorkload(clusters, jobs, meta, tuple(workloads))


def _from_trace(trace: str, *, policy: str, procs: int | None, speed: float, window: dict,
                skip_bad_lines: bool) -> GridWorkload:
    from vcsched.scenarios.platform import MAX_CLUSTER_PROCS, read_trace
    from vcsched.sim import JobTable, make_cluster

    w = read_trace(trace, window, skip_bad_lines=skip_bad_lines, where="--trace")
    procs = procs or w.machine_size
    if procs is None:
        raise InvalidInputError(f"{trace}: the header gives neither MaxProcs nor MaxNodes; pass --procs")
    if procs > MAX_CLUSTER_PROCS:
        raise InvalidInputError(f"{trace}: the header gives {procs} processors, more than the "
                                f"{MAX_CLUSTER_PROCS:,} a cluster may have; pass --procs")
    clusters = [make_cluster(cluster_name(trace), procs, speed, policy)]
    return GridWorkload(clusters, JobTable.from_workloads([w]), None, (w,))


def build(*, trace: str | None = None, platform: str | None = None, scenario: str | None = None,
          policy: str = "fcfs", procs: int | None = None, speed: float = 1.0, start: float | None = None,
          end: float | None = None, days: float | None = None, skip_bad_lines: bool = False, shift: bool = True,
          heterogeneous: bool = False, batch: str = "fcfs", seed: int = 0, overestimate: float = 10.0,
          max_load: float | None = None) -> GridWorkload:
    """The clusters and jobs of one grid run.

    Parameters
    ----------
    trace, platform, scenario
        Exactly one: an SWF or Batsim JSON trace on one cluster of ``procs`` processors (default: the
        header's) at ``speed`` under ``policy``, cut to ``start``/``end``/``days``; a platform file
        (:func:`vcsched.scenarios.platform.load_platform`, ``shift`` aligns the traces' starts); or a
        seed 000 scenario (:func:`vcsched.scenarios.grid.build_scenario`, with ``heterogeneous``, ``batch``,
        ``days``, ``seed``, ``overestimate``, ``max_load``).
    """
    given = [name for name, v in (("trace", trace), ("platform", platform), ("scenario", scenario)) if v]
    if len(given) != 1:
        raise InvalidInputError("give exactly one of --trace, --platform or --scenario"
                                + (f" (got {', '.join('--' + g for g in given)})" if given else ""))
    if scenario:
        return _from_scenario(scenario, heterogeneous=heterogeneous, batch=batch, days=days, seed=seed,
                              overestimate=overestimate, max_load=max_load)
    if platform:
        return _from_platform(platform, skip_bad_lines=skip_bad_lines, shift=shift)
    return _from_trace(trace, policy=policy, procs=procs, speed=speed,
                       window={"start": start, "end": end, "days": days}, skip_bad_lines=skip_bad_lines)
