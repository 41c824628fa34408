"""The workloads of ``vcsched dfrs``: a real trace (window) or a Lublin-Feitelson workload at an offered load,
turned into DFRS jobs on a platform (:mod:`vcsched.problems.dfrs`)."""

from __future__ import annotations

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.dfrs import DfrsJobs, DfrsPlatform, dfrs_jobs

__all__ = ["dfrs_workload", "lublin_at_load", "LUBLIN_SPAN"]

LUBLIN_SPAN = 30 * 86400.0
"""Seconds over which the Lublin-Feitelson arrivals are first drawn (then scaled to the offered load)."""


def lublin_at_load(n: int, procs: int, load: float, seed: int):
    """``n`` Lublin-Feitelson jobs for ``procs`` processors, arrivals scaled so that the offered load
    ``sum(size * run) / (procs * span)`` is ``load`` (``span`` the arrival window)."""
    from vcsched.generators.lublin_workload import lublin_workload, offered_load
    from vcsched.problems.workload import from_arrays

    w = lublin_workload(n, procs, LUBLIN_SPAN, np.random.default_rng(seed))
    scale = offered_load(w.processors, w.run_time, procs, LUBLIN_SPAN) / load
    return from_arrays(w.submit_time * scale, w.run_time, w.requested_time, w.processors, max_procs=procs,
                       source=f"lublin-{n}-load{load:g}-seed{seed}")


def dfrs_workload(*, trace: str | None = None, window: dict | None = None, lublin_jobs: int | None = None,
                  load: float | None = None, hosts: int | None = None, cores: int = 1, memory: str = "trace",
                  host_memory: float | None = None, seed: int = 0,
                  skip_bad_lines: bool = False) -> tuple[DfrsJobs, DfrsPlatform]:
    """The jobs and platform of a ``dfrs`` command. With a trace, ``hosts`` defaults to the header's
    processors divided by ``cores``; with Lublin (``lublin_jobs``, ``load``), to 64."""
    if trace is not None:
        from vcsched.scenarios.platform import read_trace

        w = read_trace(trace, window or {}, skip_bad_lines=skip_bad_lines, where="--trace")
        if hosts is None:
            if w.machine_size is None:
                raise InvalidInputError(f"--trace {trace}: the header gives neither MaxProcs nor MaxNodes; pass --hosts")
            hosts = max(w.machine_size // cores, 1)
    else:
        hosts = 64 if hosts is None else hosts
        if lublin_jobs is None or load is None:
            raise InvalidInputError("--workload lublin needs --jobs N and --load L")
        w = lublin_at_load(lublin_jobs, hosts * cores, load, seed)
        if memory == "trace":
            memory = "model"
    platform = DfrsPlatform(int(hosts), int(cores))
    return dfrs_jobs(w, platform, memory, host_memory=host_memory, seed=seed, skip_bad_lines=skip_bad_lines), platform
