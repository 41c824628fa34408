"""Lower bounds and an upper bound on throughput for the DIET simulator (seed 004 §5-6).

Every bound here reads the same tree, workload, SeD changes and platform that
:func:`vcsched.sim.diet.simulate_diet` reads (a :class:`vcsched.scenarios.diet.Scenario`, or any object with
``tree``, ``workload``, ``changes``, ``platform`` and ``window``), never a policy, and never runs the simulator.
The best clairvoyant placement (an exact search) is in :mod:`lowerbounds.diet.placement`.

What every request pays (the simulator's timings, :mod:`vcsched.sim.diet`)
--------------------------------------------------------------------------
A request submitted at ``s`` reaches the MA at ``s + h`` (``h`` = ``hop_latency``). The MA releases it at some
``t >= s + h`` (at once without a window scheduler, at a later tick with one); the MA holds the sorted lists
``R`` seconds later (:func:`vcsched.sim.diet.answer_time` of the tree in place at ``t``), the client gets its
list one hop later, and its solve reaches the SeD after ``h + submit_overhead + in_bytes / bandwidth`` more.
So no solve reaches a SeD before ``s + d_in`` with ``d_in = 3h + R_min + submit_overhead + in_bytes/bandwidth``,
``R_min`` the smallest ``R`` over the trees of the run (the initial one and the one after each change). A SeD
added at ``J`` answers only requests released at ``t >= J`` (the others did not ask it), so a solve reaches it
no earlier than ``max(s + h, J) + d_in - h``. The result is back ``d_out = h + out_bytes / bandwidth`` after the
computation ends. Turnaround = result back - submission; makespan = last result back - first submission.

Computation: a job of cost ``c`` does the work ``c f`` where ``f`` is the run's execution-noise factor
(:func:`vcsched.sim.diet.execution_factors`; 1 without noise). A SeD of speed ``v`` with ``cpus`` CPUs gives each
of its ``n`` running jobs ``v min(1, cpus/n) / (1 + a max(0, n - cpus)/cpus)``: at most ``v`` per job and at most
``cpus v`` in all (the interference ``a >= 0`` only lowers it, and a SeD queue or hand-off only idles it).

The noise factors go to the jobs in the order the SeDs accept them, which a policy could change. The bounds
below therefore hold for *every* assignment of the run's factors to its requests: for a workload of independent
submissions and no SeD removed, each request is accepted exactly once, so the factors used are the first ``n``
of the stream, in some order. (With a SeD removed, the resubmitted jobs draw more factors; such a run is bounded
only without noise.)

Bounds (``quick``: closed forms; ``lp``: the interval-indexed preemptive LP of :func:`lp_bounds`)
---------------------------------------------------------------------------------------------
* makespan: (i) every request: ``s_j + d_in_j + c_j f / v_max + d_out_j``, with the factors assigned to the
  requests so as to make the largest of these smallest (a bottleneck assignment); (ii) the work of the requests
  released (``s_j + d_in_j``) at or after ``r`` -- at least the sum of the smallest possible works -- fits in
  the capacity from ``r`` on, where at time ``t`` the SeDs present give at most ``min(sum cpus v, v_max x
  (requests released by t))``.
* mean turnaround: (i) every request pays ``d_in + c f / v_max + d_out`` (factors assigned to minimise the sum);
  (ii) the ``k``-th computation to end ends no earlier than when the capacity above can have done the ``k``
  smallest works, nor earlier than the ``k``-th smallest single-request bound; the sum over ``k``.
* throughput (an upper bound): for independent submissions ``n`` / the makespan bound; for sequential users over
  the measured window ``[t0, t1)``, see :func:`throughput_bound`.

References
----------
H. Dail, F. Desprez, "Experiences with hierarchical request flow management for Network-Enabled Server
Environments", INRIA RR-5527, 2005 (seed 004), §5-6.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from lowerbounds.reference import MetricReference
from vcsched.errors import InvalidInputError
from vcsched.names.diet import METRICS
from vcsched.problems.diet import DietPlatform
from vcsched.sim.diet import answer_time, execution_factors

__all__ = ["DietInstance", "Machine", "MetricBound", "diet_instance", "timing", "METRICS"]


@dataclasses.dataclass(frozen=True)
class Machine:
    """One CPU of a SeD: its speed, when the SeD joins (``-inf``: from the start) and leaves (``inf``: never)."""

    sed: str
    cpu: int
    speed: float
    join: float = -math.inf
    leave: float = math.inf


@dataclasses.dataclass(frozen=True)
class DietInstance:
    """The timings, works and capacity a DIET run cannot escape, read from a scenario (module docstring).

    Requests are in submission order (the simulator's task ids). ``factors`` are the run's first ``n``
    execution-noise factors (ones without noise; ``None`` for sequential users). ``work`` gives the ``k``-th
    factor to the ``k``-th request: the clairvoyant instance of :mod:`lowerbounds.diet.placement`.
    """

    platform: DietPlatform
    submit: np.ndarray
    cost: np.ndarray
    d_in: np.ndarray
    d_out: np.ndarray
    factors: np.ndarray | None
    machines: tuple[Machine, ...]
    users: tuple = ()
    window: tuple[float, float] | None = None
    seed: int = 0

    @property
    def n(self) -> int:
        return len(self.submit)

    @property
    def work(self) -> np.ndarray:
        return self.cost * self.factors

    @property
    def v_max(self) -> float:
        return max(m.speed for m in self.machines)

    def earliest_start(self, j: int, m: Machine) -> float:
        """Earliest time request ``j``'s solve can reach (and start on) machine ``m``."""
        h = self.platform.hop_latency
        return max(self.submit[j] + h, m.join) + self.d_in[j] - h

    def release(self) -> np.ndarray:
        """Earliest start of each request on any machine."""
        return np.array([min(self.earliest_start(j, m) for m in self.machines if m.leave > self.submit[j])
                         for j in range(self.n)])

    def capacity_steps(self) -> tuple[np.ndarray, np.ndarray]:
        """Breakpoints ``t`` and total rate ``cap`` on ``[t[i], t[i+1])`` (the last one forever), from the
        earliest time any solve reaches each machine (a joining SeD: its join + the smallest ``d_in - h``)."""
        h = self.platform.hop_latency
        lag = float(np.min(self.d_in)) - h if self.n else 0.0
        events: list[tuple[float, float]] = []
        for m in self.machines:
            start = m.join + lag if math.isfinite(m.join) else -math.inf
            events.append((start, m.speed))
            if math.isfinite(m.leave):
                events.append((m.leave, -m.speed))
        times = sorted({t for t, _ in events})
        caps = [sum(v for t, v in events if t <= x) for x in times]
        return np.array(times), np.array(caps)


@dataclasses.dataclass(frozen=True)
class MetricBound(MetricReference):
    """A bound on one metric: ``value`` (a lower bound, or an upper bound for ``throughput``, as ``kind`` says), the
    ``method`` that gave it, ``seconds`` spent; with ``exact`` also ``status``, ``optimum``, ``bound``, ``gap`` and the
    ``placement``, and ``message`` when a method fell back; ``interrupted`` when an interrupt (SIGINT) cut its
    computation short (``value`` is then the bound proven before it)."""

    kind: str = "lower"
    bound: float | None = None
    placement: list | None = None
    interrupted: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = {**self._summary(), "kind": self.kind}
        if self.method == "exact":
            out.update(self._search(self.bound, placement=self.placement))
        if self.message:
            out["message"] = self.message
        if self.interrupted:
            out["interrupted"] = True
        return out


# ----------------------------------------------------------------------------------------------------------------
# The instance
# ----------------------------------------------------------------------------------------------------------------
def _tree_states(tree: Any, changes: Sequence[Any]) -> tuple[list[tuple[dict, set]], list[Machine]]:
    """The trees of the run (parent map and SeD set after each change) and the machines (CPUs) of every SeD."""
    parent = dict(tree.parent)
    seds = set(tree.seds)
    joined = {s: -math.inf for s in tree.seds}
    speeds = {s: float(tree.speed.get(s, 1.0)) for s in tree.seds}
    left: dict[str, float] = {}
    states = [(dict(parent), set(seds))]
    for ch in sorted(changes, key=lambda c: c.time):
        if ch.parent is not None:
            parent[ch.sed] = ch.parent
            seds.add(ch.sed)
            joined[ch.sed], speeds[ch.sed] = float(ch.time), float(ch.speed)
        else:
            parent.pop(ch.sed, None)
            seds.discard(ch.sed)
            left[ch.sed] = float(ch.time)
        states.append((dict(parent), set(seds)))
    return states, [(s, speeds[s], joined[s], left.get(s, math.inf)) for s in joined]


def _answer_delay(root: str, parent: dict, seds: set, platform: DietPlatform) -> float:
    children: dict[str, list[str]] = {}
    for node, par in parent.items():
        children.setdefault(par, []).append(node)
    return answer_time(root, 0.0, children, seds, platform)


def diet_instance(scenario: Any, *, seed: int = 0) -> DietInstance:
    """Read a scenario's tree, workload, SeD changes and platform into a :class:`DietInstance`.

    ``seed`` is the run's seed (``simulate_scenario(..., seed=)``), which fixes its execution-noise factors.
    """
    p: DietPlatform = scenario.platform
    wl = scenario.workload
    if wl.arrivals and wl.users:
        raise InvalidInputError("DIET bounds: a workload mixes independent submissions and sequential users; "
                                "bound them separately")
    states, seds = _tree_states(scenario.tree, scenario.changes)
    r_min = min(_answer_delay(scenario.tree.root, par, s, p) for par, s in states)
    machines = tuple(Machine(name, c, v, j, lv) for name, v, j, lv in seds for c in range(p.cpus))
    if not machines:
        raise InvalidInputError("DIET bounds: the run has no SeD")
    removed = any(math.isfinite(m.leave) for m in machines)
    order = sorted(range(len(wl.arrivals)), key=lambda k: float(wl.arrivals[k][0]))
    specs = [wl.arrivals[k][1] for k in order] if wl.arrivals else [u.task for u in wl.users]
    submit = np.array([float(wl.arrivals[k][0]) for k in order]) if wl.arrivals else \
        np.array([float(u.start) for u in wl.users])
    d_in = np.array([3 * p.hop_latency + r_min + p.submit_overhead + t.in_bytes / p.bandwidth for t in specs])
    d_out = np.array([p.hop_latency + t.out_bytes / p.bandwidth for t in specs])
    cost = np.array([float(t.cost) for t in specs])
    factors = None
    if wl.arrivals:
        factors = execution_factors(p, seed, len(order))
    if removed and p.exec_cv > 0:
        raise InvalidInputError("DIET bounds: with a SeD removed, resubmitted jobs draw more noise factors; "
                                "bound such a run with exec_cv = 0")
    return DietInstance(p, submit, cost, d_in, d_out, factors, machines, tuple(wl.users), scenario.window,
                        int(seed))




def timing(inst: DietInstance) -> tuple[np.ndarray, np.ndarray, list]:
    """``e[j, m]`` earliest start of ``j`` on CPU ``m`` and ``p[j, m]`` its computing time there."""
    e = np.array([[inst.earliest_start(j, m) for m in inst.machines] for j in range(inst.n)]).reshape(inst.n, -1)
    speeds = np.array([m.speed for m in inst.machines])
    p = inst.work[:, None] / speeds[None, :]
    return e, p, list(inst.machines)
