"""Dynamic fractional resource scheduling (DFRS): jobs of an HPC trace as virtual clusters.

The model (after Stillwell, Vivien and Casanova, IPDPS 2010 / TPDS 2012, on
the VCSched allocator of seed 001 §2.1-2.2, §5):

* the platform is ``hosts`` identical hosts of capacity (CPU 1, memory 1), each with
  ``cores`` cores (:class:`DfrsPlatform`);
* a job submitted at ``r`` asking ``q`` processors is ``q`` tasks (VM instances) of CPU need
  ``1 / cores`` each (one core) and memory need ``mem`` (a fraction of a host's memory), the
  same for every task of the job (:class:`DfrsJobs`);
* ``run`` is the time the job needs on dedicated resources (yield 1): the trace's
  ``min(run time, requested time)`` (:attr:`vcsched.problems.workload.Workload.effective_run_time`,
  what the batch simulator runs); ``requested`` is the trace's requested time (the batch
  baselines plan with it).

Memory (:func:`task_memory`, ``--memory``):

``trace``
    SWF field 7 (used memory per processor, KB), else field 10 (requested memory per
    processor), divided by the memory of a host's core share: ``host_memory / cores`` where
    ``host_memory`` (KB) is given or, for the traces whose memory is known
    (:data:`CORE_MEMORY_KB`), ``cores`` times the memory per processor of that machine. So
    a task's need is a fraction of the host: ``field / (cores * per-processor memory)``.
    Jobs whose trace records neither field get the ``model`` draw (seeded).
``model``
    every job draws its per-processor need from :data:`MODEL_QUANTILES` (the empirical
    distribution of LANL-CM5's field 7 over its 32 MB nodes, 5 % quantiles, linear
    interpolation between them) with the given seed; the task's host fraction is the draw
    divided by ``cores``.
``fixed:X``
    every task needs ``X`` of a host (``0 <= X <= 1``).

A need above 1 (a task larger than a host) is an error naming the job; a job wider than
``hosts * cores`` tasks is an error too, or is dropped and counted with
``skip_bad_lines=True`` (as the batch simulator's ``--skip-bad-lines``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from vcsched.errors import InvalidInputError

__all__ = ["DfrsPlatform", "DfrsJobs", "CORE_MEMORY_KB", "MODEL_QUANTILES", "MEMORY_MODES", "parse_memory",
           "task_memory", "dfrs_jobs", "BOUNDED_STRETCH_TAU"]

BOUNDED_STRETCH_TAU = 10.0
"""Seconds: the bounded stretch is ``max(1, (end - submit) / max(run, tau))`` (the batch simulator's bsld)."""

CORE_MEMORY_KB = {"HPC2N": 2_097_152.0, "LANL-CM5": 32_768.0}
"""Memory per processor (KB) of the machines whose traces record memory: HPC2N's Seth (2 GB per
processor: the trace's largest field 7 is 2,048,000 KB) and the CM-5 of LANL (32 MB per node)."""

MODEL_QUANTILES = np.array([113, 1036, 1352, 1460, 1624, 1840, 2016, 2272, 2576, 2716, 3120, 3592, 4040, 4360,
                            5104, 6672, 8284, 10232, 12856, 18504, 29124], dtype=float) / 32_768.0
"""The ``model`` memory distribution: quantiles 0, 0.05, ..., 1 of LANL-CM5's field 7 (KB per processor,
105,620 jobs that record it) over its nodes' 32 MB; a draw interpolates linearly between them."""

MEMORY_MODES = ("trace", "model", "fixed:X")


@dataclasses.dataclass(frozen=True)
class DfrsPlatform:
    """``hosts`` identical hosts (CPU 1, memory 1) of ``cores`` cores each."""

    hosts: int
    cores: int = 1

    def __post_init__(self) -> None:
        if int(self.hosts) < 1 or int(self.cores) < 1:
            raise InvalidInputError(f"a platform needs hosts >= 1 and cores >= 1 (got {self.hosts}, {self.cores})")

    @property
    def processors(self) -> int:
        return int(self.hosts) * int(self.cores)


@dataclasses.dataclass(frozen=True)
class DfrsJobs:
    """Jobs in submission order (arrays of length n): id, submit time, tasks, memory need of each task
    (fraction of a host), run time on dedicated resources, requested time."""

    job_id: np.ndarray
    submit: np.ndarray
    tasks: np.ndarray
    mem: np.ndarray
    run: np.ndarray
    requested: np.ndarray
    skipped: int = 0

    def __post_init__(self) -> None:
        n = self.submit.shape[0]
        for name in ("job_id", "tasks", "mem", "run", "requested"):
            if getattr(self, name).shape != (n,):
                raise InvalidInputError(f"DfrsJobs field {name!r} must have {n} entries")
        if n and np.any(np.diff(self.submit) < 0):
            raise InvalidInputError("submit times must be sorted")

    def __len__(self) -> int:
        return int(self.submit.shape[0])

    @classmethod
    def from_arrays(cls, submit, run, tasks, mem, requested=None, job_id=None) -> DfrsJobs:
        submit = np.asarray(submit, dtype=float)
        n = submit.shape[0]
        run = np.asarray(run, dtype=float)
        return cls(np.arange(1, n + 1) if job_id is None else np.asarray(job_id, dtype=np.int64), submit,
                   np.asarray(tasks, dtype=np.int64), np.broadcast_to(np.asarray(mem, dtype=float), (n,)).copy(),
                   run, run.copy() if requested is None else np.asarray(requested, dtype=float))

    def select(self, mask: np.ndarray) -> DfrsJobs:
        return dataclasses.replace(self, job_id=self.job_id[mask], submit=self.submit[mask], tasks=self.tasks[mask],
                                   mem=self.mem[mask], run=self.run[mask], requested=self.requested[mask])


def parse_memory(text: str) -> tuple[str, float | None]:
    """``"trace"``, ``"model"`` or ``"fixed:X"`` -> (mode, X); a bad value is one line naming ``--memory``."""
    if text in ("trace", "model"):
        return text, None
    if text.startswith("fixed:"):
        try:
            x = float(text[6:])
        except ValueError:
            x = float("nan")
        if 0.0 <= x <= 1.0:
            return "fixed", x
        raise InvalidInputError(f"--memory {text}: X must be a number in [0, 1] (a fraction of a host's memory)")
    raise InvalidInputError(f"--memory {text}: use trace, model or fixed:X with X in [0, 1]")


def known_core_memory(source: str) -> float | None:
    """Memory per processor (KB) of a trace named in :data:`CORE_MEMORY_KB` (by file name), else None."""
    name = str(source).rsplit("/", 1)[-1].upper()
    for key, kb in CORE_MEMORY_KB.items():
        if name.startswith(key):
            return kb
    return None


def _model_draw(n: int, rng: np.random.Generator) -> np.ndarray:
    u = rng.random(n) * (MODEL_QUANTILES.size - 1)
    k = np.minimum(u.astype(np.int64), MODEL_QUANTILES.size - 2)
    frac = u - k
    return MODEL_QUANTILES[k] * (1.0 - frac) + MODEL_QUANTILES[k + 1] * frac


def task_memory(fields: np.ndarray, source: str, cores: int, memory: str, *, host_memory: float | None = None,
                seed: int = 0) -> np.ndarray:
    """Memory need of each job's tasks as a fraction of a host (module docstring); ``fields`` are the SWF
    fields (n x 18). ``host_memory`` (KB) overrides the table; ``seed`` drives the model draws."""
    mode, x = parse_memory(memory)
    n = fields.shape[0]
    if mode == "fixed":
        return np.full(n, x)
    draw = _model_draw(n, np.random.default_rng(seed)) / cores
    if mode == "model":
        return draw
    per_proc = host_memory / cores if host_memory is not None else known_core_memory(source)
    recorded = np.where(fields[:, 6] > 0, fields[:, 6], fields[:, 9])
    if per_proc is None:
        if np.any(recorded > 0):
            raise InvalidInputError(f"--memory trace: {source} does not say its hosts' memory; give --host-memory KB "
                                    "(or use --memory model)")
        return draw
    if not per_proc > 0:
        raise InvalidInputError(f"--host-memory {host_memory}: must be > 0 KB")
    return np.where(recorded > 0, recorded / (cores * per_proc), draw)


def dfrs_jobs(workload, platform: DfrsPlatform, memory: str = "trace", *, host_memory: float | None = None,
              seed: int = 0, skip_bad_lines: bool = False) -> DfrsJobs:
    """The DFRS jobs of a :class:`~vcsched.problems.workload.Workload` on ``platform`` (module docstring).

    Raises :class:`InvalidInputError` (naming the job) for a job wider than the platform (unless
    ``skip_bad_lines``) or a task needing more than a host's memory.
    """
    mem = task_memory(workload.fields, workload.source, platform.cores, memory, host_memory=host_memory, seed=seed)
    tasks = workload.processors
    wide = tasks > platform.processors
    skipped = int(workload.skipped)
    if np.any(wide):
        k = int(np.argmax(wide))
        if not skip_bad_lines:
            raise InvalidInputError(
                f"{workload.source}: job {int(workload.job_id[k])} asks {int(tasks[k])} processors, more than the "
                f"platform's {platform.processors} (--hosts x --cores); give more hosts or --skip-bad-lines")
        skipped += int(wide.sum())
    big = mem > 1.0 + 1e-12
    if np.any(big & ~wide):
        k = int(np.argmax(big & ~wide))
        raise InvalidInputError(
            f"{workload.source}: job {int(workload.job_id[k])} needs {mem[k]:.4g} of a host's memory per task (> 1); "
            "give a larger --host-memory or another --memory")
    per_host = np.where(mem > 0, np.floor((1.0 + 1e-12) / np.maximum(mem, 1e-300)), np.inf)
    no_room = ~wide & (tasks > platform.hosts * np.minimum(per_host, platform.cores * 1e18))
    if np.any(no_room):
        k = int(np.argmax(no_room))
        raise InvalidInputError(
            f"{workload.source}: job {int(workload.job_id[k])}'s {int(tasks[k])} tasks of memory {mem[k]:.4g} do not "
            f"fit in the memory of {platform.hosts} hosts; give more hosts, a larger --host-memory or another --memory")
    keep = ~wide
    return DfrsJobs(workload.job_id[keep], workload.submit_time[keep].astype(float), tasks[keep].astype(np.int64),
                    np.minimum(mem[keep], 1.0), workload.effective_run_time[keep].astype(float),
                    workload.requested_time[keep].astype(float), skipped=skipped)
