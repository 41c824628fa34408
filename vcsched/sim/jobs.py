"""The job table of a simulation: numpy columns in, plain Python lists for the event loop.

One row per job of the simulation, ordered by submission (submit time, then origin
cluster, then position in its trace): this order is the "submission order" that
breaks ties between jobs arriving at the same instant.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.workload import Workload

__all__ = ["JobTable"]


@dataclasses.dataclass
class JobTable:
    """Jobs to simulate (columns) and their outcome (filled by the simulation).

    Attributes
    ----------
    job_id : ndarray of str or int
        Identifier written to ``jobs.csv`` (the SWF job id; ``"<origin>!<id>"`` when jobs
        come from several traces, as Batsim does for several workloads).
    submit, run_time, requested_time : ndarray of float
        Submit time, the time the job runs (already capped at its requested time) and
        the requested time, both measured on the **origin** cluster.
    procs : ndarray of int
    origin : ndarray of int
        Index of the cluster (site) where the job was submitted; its speed is the
        reference of ``run_time`` and ``requested_time``.
    """

    job_id: np.ndarray
    submit: np.ndarray
    run_time: np.ndarray
    requested_time: np.ndarray
    procs: np.ndarray
    origin: np.ndarray
    profile: np.ndarray | None = None
    """Each job's profile name when its workload names them (a Batsim workload), else None."""

    def __len__(self) -> int:
        return int(self.submit.size)

    @classmethod
    def from_workloads(cls, workloads: list[Workload], origins: list[int] | None = None,
                       labels: list[str] | None = None) -> JobTable:
        """Concatenate workloads (one per origin cluster) in submission order.

        Parameters
        ----------
        workloads : list of Workload
        origins : list of int, optional
            Origin cluster index of each workload (default ``0, 1, ...``).
        labels : list of str, optional
            Prefix of the job ids of each workload; without labels and with one
            workload the ids are the SWF integers.
        """
        if origins is None:
            origins = list(range(len(workloads)))
        if len(origins) != len(workloads):
            raise InvalidInputError("from_workloads: give one origin per workload")
        parts = []
        for k, (w, o) in enumerate(zip(workloads, origins)):
            n = len(w)
            ids = w.job_id
            if labels is not None:
                ids = np.array([f"{labels[k]}!{i}" for i in ids.tolist()], dtype=object)
            parts.append((w.submit_time, w.effective_run_time, w.requested_time, w.processors,
                          np.full(n, o, dtype=np.int64), ids, np.arange(n)))
        if not parts:
            raise InvalidInputError("no workload to simulate")
        submit = np.concatenate([p[0] for p in parts]).astype(np.float64)
        origin = np.concatenate([p[4] for p in parts])
        pos = np.concatenate([p[6] for p in parts])
        if len(parts) == 1 and bool((submit[1:] >= submit[:-1]).all()):
            order = slice(None)  # one workload in submission order: the order of the sort below, without sorting
        else:
            order = np.lexsort((pos, origin, submit))
        ids = np.concatenate([np.asarray(p[5], dtype=object) for p in parts]) if labels is not None \
            else np.concatenate([p[5] for p in parts])
        named = any(len(w.profiles) for w in workloads)
        profile = np.concatenate([w.profile for w in workloads])[order] if named else None
        return cls(job_id=ids[order], submit=submit[order], profile=profile,
                   run_time=np.concatenate([p[1] for p in parts]).astype(np.float64)[order],
                   requested_time=np.concatenate([p[2] for p in parts]).astype(np.float64)[order],
                   procs=np.concatenate([p[3] for p in parts]).astype(np.int64)[order], origin=origin[order])
