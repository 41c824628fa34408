"""The time-shared servers' costs and result type shared by every reference of :mod:`lowerbounds.timeshare`."""

from __future__ import annotations

import dataclasses

import numpy as np

from lowerbounds.reference import MetricReference
from vcsched.errors import InvalidInputError
from vcsched.names.timeshare import METRICS
from vcsched.problems.timeshare import Platform, TimeshareWorkload

__all__ = ["TaskCosts", "MetricBound", "METRICS", "BoundsInterrupted", "INTERRUPTED"]


@dataclasses.dataclass(frozen=True)
class TaskCosts:
    """Per (task, server) costs as the simulator applies them.

    ``p`` is the real computation time (tables x work factor), ``inp`` / ``out`` the transfers,
    ``dur = inp + p + out`` the real unloaded duration, ``den`` the stretch's denominator (the
    tables' unloaded duration, :attr:`Platform.duration`, what the simulator divides by);
    ``arrival`` the release of tasks without parents (``nan`` for the others), ``fixed`` which tasks
    have one, ``est`` the earliest date a task can reach the agent (its release, or for a DAG task
    the latest ``est + min dur`` of its parents).
    """

    p: np.ndarray
    inp: np.ndarray
    out: np.ndarray
    den: np.ndarray
    arrival: np.ndarray
    fixed: np.ndarray
    est: np.ndarray
    parents: tuple
    memory: np.ndarray
    task_memory: np.ndarray

    @classmethod
    def of(cls, platform: Platform, workload: TimeshareWorkload, work_factor=None) -> TaskCosts:
        n = workload.n_tasks
        k = workload.ttype
        if n and k.max() >= platform.n_types:
            raise InvalidInputError(f"workload has task type {int(k.max())} but the platform has "
                                    f"{platform.n_types} types")
        f = np.ones(n) if work_factor is None else np.asarray(work_factor, dtype=float)
        if f.shape != (n,) or np.any(~(f > 0)):
            raise InvalidInputError(f"work_factor must hold one positive number per task ({n} tasks)")
        p = platform.compute[:, k].T * f[:, None]
        inp, out = platform.input[:, k].T, platform.output[:, k].T
        fixed = np.array([not ps for ps in workload.parents], dtype=bool)
        dmin = (inp + p + out).min(axis=1) if n else np.empty(0)
        est = np.where(fixed, workload.release, 0.0)
        for i, ps in enumerate(workload.parents):
            if ps:
                est[i] = max(est[q] + dmin[q] for q in ps)
        return cls(p=p, inp=inp, out=out, den=platform.duration[:, k].T, arrival=np.asarray(workload.release),
                   fixed=fixed, est=est, parents=workload.parents, memory=platform.memory,
                   task_memory=platform.task_memory[k])

    @property
    def n(self) -> int:
        return self.p.shape[0]

    @property
    def dur(self) -> np.ndarray:
        return self.inp + self.p + self.out

    def subset(self, idx) -> TaskCosts:
        """The tasks ``idx`` alone (their parents outside ``idx`` forgotten; use on tasks without parents)."""
        idx = np.asarray(idx, dtype=np.int64)
        pos = {int(i): r for r, i in enumerate(idx)}
        parents = tuple(tuple(pos[q] for q in self.parents[i] if q in pos) for i in idx)
        return dataclasses.replace(self, p=self.p[idx], inp=self.inp[idx], out=self.out[idx], den=self.den[idx],
                                   arrival=self.arrival[idx], fixed=self.fixed[idx], est=self.est[idx],
                                   parents=parents, task_memory=self.task_memory[idx])


INTERRUPTED = "interrupted: the bound proven before the interrupt"
"""The message of a :class:`MetricBound` whose computation an interrupt (SIGINT) cut short."""


class BoundsInterrupted(KeyboardInterrupt):
    """An interrupt during a bound computation that carries what it had proven: ``partial`` maps metric names to
    valid bounds (the metrics it had not reached are absent). A ``KeyboardInterrupt``, so a caller that does not
    look for it is interrupted as usual."""

    def __init__(self, partial: dict) -> None:
        super().__init__("interrupted")
        self.partial = partial


@dataclasses.dataclass(frozen=True)
class MetricBound(MetricReference):
    """One metric's reference: ``value`` (a lower bound, or the optimum when ``status`` is optimal); a bound
    that no search closed has ``status`` ``"bound"``. ``interrupted``: an interrupt cut its computation short
    (``value`` is the bound proven before it, still valid; ``message`` is :data:`INTERRUPTED`)."""

    status: str | None = "bound"
    message: str | None = ""
    mapping: tuple | None = None
    interrupted: bool = False

    def to_dict(self) -> dict:
        """``value``, ``method``, ``seconds``; with the exact search also ``status``, ``optimum`` (when optimal),
        ``bound``, ``gap`` (of the best mapping found to the bound), ``mapping`` (server index per task) and
        ``message``; ``interrupted`` (true) when an interrupt cut it short."""
        out = self._summary()
        if self.method == "exact" or self.mapping is not None:
            out.update(self._search(self.value, mapping=None if self.mapping is None else list(self.mapping)),
                       message=self.message)
        if self.interrupted:
            out["interrupted"] = True
        return out
