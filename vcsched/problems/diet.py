"""DIET's problem types (seed 004 §3-5): platform timings, agent tree, requests, workloads, runs and their metrics.

The simulator that plays them, and the policy interface, are in
:mod:`vcsched.sim.diet`; the paper's experiments built from them are in
:mod:`vcsched.scenarios.diet`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.diet_limits import MAX_INTERFERENCE

__all__ = [
    "DietPlatform",
    "AgentTree",
    "TaskSpec",
    "SequentialUser",
    "Workload",
    "SeDChange",
    "TaskRecord",
    "DietRun",
    "run_metrics",
]




@dataclasses.dataclass(frozen=True)
class DietPlatform:
    """Timing parameters of the middleware (seconds, bytes per second).

    Defaults are documented assumptions for a 1 Gbit/s LAN with CORBA calls of
    about a millisecond (the paper gives no per-hop figures), see
    :mod:`vcsched.scenarios.diet`.
    """

    hop_latency: float = 0.001
    agent_time: float = 0.002
    sed_time: float = 0.001
    n_best: int = 8
    submit_overhead: float = 1.25
    bandwidth: float = 125e6
    cpus: int = 2
    exec_cv: float = 0.0
    queue_sync: float = 0.0
    """Seconds a SeD-queue hand-off holds a freed slot before the next queued job computes (§5.1; 0: none)."""
    interference: float = 0.0
    """Memory/cache interference ``a`` in [0, 1] between jobs competing on a SeD's CPUs (§6.4.3; 0: none)."""

    def __post_init__(self) -> None:
        for name in ("hop_latency", "agent_time", "sed_time", "submit_overhead", "queue_sync", "exec_cv"):
            v = getattr(self, name)
            if not (v >= 0 and math.isfinite(v)):
                raise InvalidInputError(f"DietPlatform.{name} must be a finite number >= 0, got {v}")
        if not (0 <= self.interference <= MAX_INTERFERENCE):
            raise InvalidInputError(f"DietPlatform.interference must be a number in [0, {MAX_INTERFERENCE:g}], "
                                    f"got {self.interference}")
        if not self.bandwidth > 0:
            raise InvalidInputError(f"DietPlatform.bandwidth must be > 0, got {self.bandwidth}")
        if int(self.n_best) < 1 or int(self.cpus) < 1:
            raise InvalidInputError("DietPlatform.n_best and DietPlatform.cpus must be integers >= 1")


@dataclasses.dataclass
class AgentTree:
    """The agent hierarchy: ``parent`` maps each agent and SeD to its parent (the MA has none).

    Build one with :meth:`balanced`; SeDs are the names listed in ``seds``.
    """

    root: str
    parent: dict[str, str]
    seds: list[str]
    speed: dict[str, float] = dataclasses.field(default_factory=dict)

    @classmethod
    def balanced(cls, n_las: int, seds_per_la: int, *, prefix: str = "sed") -> AgentTree:
        """One MA, ``n_las`` LAs under it, ``seds_per_la`` SeDs under each LA (``LA0`` .. , ``sed0`` ..)."""
        if n_las < 0 or seds_per_la < 0:
            raise InvalidInputError("AgentTree.balanced: n_las and seds_per_la must be >= 0")
        parent: dict[str, str] = {}
        seds: list[str] = []
        for a in range(n_las):
            parent[f"LA{a}"] = "MA"
        k = 0
        for a in range(n_las):
            for _ in range(seds_per_la):
                name = f"{prefix}{k}"
                parent[name] = f"LA{a}"
                seds.append(name)
                k += 1
        return cls(root="MA", parent=parent, seds=seds)

    def depth(self, node: str) -> int:
        d = 0
        while node != self.root:
            node = self.parent[node]
            d += 1
        return d


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """A request: ``cost`` seconds on one dedicated processor of speed 1, data sizes in bytes."""

    cost: float
    in_bytes: float = 0.0
    out_bytes: float = 0.0


@dataclasses.dataclass(frozen=True)
class SequentialUser:
    """A user who submits one request at a time, the next as soon as the previous result is back (§6.1.2).

    Submits first at ``start``; stops submitting at ``stop`` (a request in flight completes).
    """

    start: float
    stop: float
    task: TaskSpec
    think_time: float = 0.0


@dataclasses.dataclass(frozen=True)
class Workload:
    """Independent submissions ``arrivals`` = ((time, TaskSpec), ...) and sequential ``users``."""

    arrivals: tuple = ()
    users: tuple = ()


@dataclasses.dataclass(frozen=True)
class SeDChange:
    """Add (``parent`` given) or remove (``parent`` None) SeD ``sed`` at ``time``."""

    time: float
    sed: str
    parent: str | None = None
    speed: float = 1.0


@dataclasses.dataclass
class TaskRecord:
    """Life of one request (times in seconds; NaN until reached)."""

    task: int
    user: int
    cost: float
    submit: float
    sed: str = ""
    at_ma: float = math.nan
    list_at_client: float = math.nan
    arrive_sed: float = math.nan
    start: float = math.nan
    end: float = math.nan
    done: float = math.nan
    resubmissions: int = 0


@dataclasses.dataclass
class DietRun:
    """Outcome of :func:`simulate_diet`: one record per request, the event trace, counters."""

    policy: str
    tasks: list[TaskRecord]
    trace: list[tuple]
    windows: list[tuple[float, int, float]]
    events: int
    end_time: float


def run_metrics(run: DietRun, *, window: tuple[float, float] | None = None) -> dict[str, Any]:
    """Makespan, mean/std turnaround, throughput, tasks per SeD and the turnaround decomposition (Fig 4).

    Parameters
    ----------
    window : (t0, t1), optional
        Measured window (§6.4.1): only requests *submitted* in ``[t0, t1)`` count,
        and ``throughput`` = their number / ``(t1 - t0)``. Without it, every
        request counts and ``throughput`` = completed requests / makespan.

    Returns
    -------
    dict
        ``makespan`` (last result back - first submission), ``mean_turnaround``,
        ``std_turnaround``, ``throughput`` (requests per second), ``tasks_per_sed``
        (SeD -> count, in tree order of first use), ``completed``, ``submitted``,
        ``mean_choose``, ``mean_queue``, ``mean_compute`` (s), ``resubmissions``.
    """
    recs = run.tasks
    if window is not None:
        recs = [r for r in recs if window[0] <= r.submit < window[1]]
    done = [r for r in recs if not math.isnan(r.done)]
    out: dict[str, Any] = {"submitted": len(recs), "completed": len(done)}
    if not done:
        out.update(makespan=None, mean_turnaround=None, std_turnaround=None, throughput=0.0, tasks_per_sed={},
                   mean_choose=None, mean_queue=None, mean_compute=None, resubmissions=0)
        return out
    submit = np.array([r.submit for r in done])
    fin = np.array([r.done for r in done])
    turn = fin - submit
    makespan = float(fin.max() - min(r.submit for r in recs))
    per_sed: dict[str, int] = {}
    for r in sorted(done, key=lambda r: r.arrive_sed):
        per_sed[r.sed] = per_sed.get(r.sed, 0) + 1
    if window is not None:
        throughput = len(done) / (window[1] - window[0])
    else:
        throughput = len(done) / makespan if makespan > 0 else None
    out.update(
        makespan=makespan,
        mean_turnaround=float(turn.mean()),
        std_turnaround=float(turn.std(ddof=1)) if len(turn) > 1 else 0.0,
        throughput=throughput,
        tasks_per_sed=per_sed,
        mean_choose=float(np.mean([r.arrive_sed - r.submit for r in done])),
        mean_queue=float(np.mean([r.start - r.arrive_sed for r in done])),
        mean_compute=float(np.mean([r.end - r.start for r in done])),
        resubmissions=int(sum(r.resubmissions for r in recs)),
    )
    return out
