"""Lower bounds and an upper bound on throughput for the DIET simulator (seed 004 §5-6).

Every bound here reads the same tree, workload, SeD changes and platform that
:func:`vcsched.sim.diet.simulate_diet` reads (a :class:`vcsched.scenarios.diet.Scenario`, or any object with
``tree``, ``workload``, ``changes``, ``platform`` and ``window``), never a policy, and never runs the simulator.
The best clairvoyant placement (an exact search) is in :mod:`lowerbounds.diet_placement`.

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
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from lowerbounds.reference import MetricReference
from vcsched.arguments import integer, number
from vcsched.errors import InvalidInputError
from vcsched.problems.diet import DietPlatform
from vcsched.sim.diet import answer_time, execution_factors, iter_execution_factors

__all__ = ["DietInstance", "Machine", "diet_instance", "MetricBound", "quick_bounds", "lp_bounds",
           "makespan_bound", "turnaround_bound", "throughput_bound", "sed_rate", "diet_bounds", "METRICS",
           "METHODS", "EXACT_MAX_TASKS"]

METRICS = ("makespan", "mean_turnaround", "throughput")
_FACTOR_ITERATIONS = 8


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
    factor to the ``k``-th request: the clairvoyant instance of :mod:`lowerbounds.diet_placement`.
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
    ``placement``, and ``message`` when a method fell back."""

    kind: str = "lower"
    bound: float | None = None
    placement: list | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {**self._summary(), "kind": self.kind}
        if self.method == "exact":
            out.update(self._search(self.bound, placement=self.placement))
        if self.message:
            out["message"] = self.message
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


# ----------------------------------------------------------------------------------------------------------------
# Capacity over time
# ----------------------------------------------------------------------------------------------------------------
def sed_rate(platform: DietPlatform, speed: float, jobs: int) -> float:
    """Total rate of a SeD running ``jobs`` jobs (the simulator's model, interference included).

    ``speed x min(jobs, cpus) / (1 + a max(0, jobs - cpus) / cpus)``: it grows up to ``jobs = cpus`` and
    never grows after it (``a >= 0``), so ``cpus x speed`` is the most a SeD ever gives.
    """
    c = platform.cpus
    over = max(0, jobs - c)
    return speed * min(jobs, c) / (1.0 + platform.interference * over / c)


def _fill_time(start: float, work: float, inst: DietInstance, releases: np.ndarray) -> float:
    """Earliest ``T`` with ``int_start^T min(cap(t), v_max x #{releases <= t}) dt >= work``."""
    if work <= 0:
        return start
    times, caps = inst.capacity_steps()
    rel = np.sort(releases)
    points = sorted({start, *[t for t in times if t > start], *[r for r in rel if r > start]})
    v = inst.v_max
    done = 0.0
    for a, b in zip(points, [*points[1:], math.inf]):
        k = np.searchsorted(times, a, side="right") - 1
        cap = caps[k] if k >= 0 else 0.0
        rate = min(cap, v * np.searchsorted(rel, a, side="right"))
        if rate > 0 and done + rate * (b - a) >= work:
            return a + (work - done) / rate
        done += rate * (b - a)
    return math.inf


def _smallest_works(cost: np.ndarray, factors: np.ndarray, k: int, *, among: np.ndarray | None = None) -> float:
    """Least total work of ``k`` requests (of ``among``, default all) when the factors may go to any request:
    the ``k`` smallest costs (of ``among``) with the ``k`` smallest factors, the largest cost with the smallest
    factor (rearrangement inequality)."""
    c = np.sort(cost if among is None else cost[among])[:k]
    f = np.sort(factors)[:k]
    return float(np.dot(c[::-1], f))


def _bottleneck_makespan(base: np.ndarray, cost: np.ndarray, factors: np.ndarray, v: float) -> float:
    """``min`` over assignments of factors to requests of ``max_j base_j + cost_j f_j / v``.

    ``T`` is reachable iff the requests sorted by their largest allowed factor ``(T - base_j) v / cost_j``
    dominate the sorted factors term by term (a greedy matching on nested intervals); bisection on ``T``.
    """
    f = np.sort(factors)
    lo = float(np.max(base + cost * f[0] / v))
    hi = float(np.max(base) + np.max(cost) * f[-1] / v)

    def ok(t: float) -> bool:
        allowed = np.sort((t - base) * v / np.maximum(cost, 1e-300))
        return bool(np.all(allowed >= f - 1e-12))

    for _ in range(100):
        if hi - lo <= 1e-9 * max(1.0, abs(hi)):
            break
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return lo


# ----------------------------------------------------------------------------------------------------------------
# Quick (closed-form) bounds
# ----------------------------------------------------------------------------------------------------------------
def makespan_bound(inst: DietInstance) -> float:
    """Lower bound on the makespan of independent submissions, valid for every policy (module docstring).

    Validity: (i) request ``j``'s result is back no earlier than ``s_j + d_in_j`` (it cannot reach a SeD
    sooner) plus ``c_j f / v_max`` (no job runs faster than its SeD's speed) plus ``d_out_j``; whatever the
    assignment of the run's factors, the largest of these is at least the bottleneck minimum. (ii) The requests
    released at or after ``r`` compute only after ``r``; at every instant the SeDs present give at most their
    total ``cpus x speed`` (:func:`sed_rate`) and each released request at most ``v_max``; so the last of them
    ends no earlier than when that capacity has done their least possible work. Either way the makespan,
    measured from the first submission, is at least the bound.
    """
    if inst.n == 0:
        return 0.0
    s0 = float(np.min(inst.submit))
    per = _bottleneck_makespan(inst.submit + inst.d_in + inst.d_out, inst.cost, inst.factors, inst.v_max)
    rel = inst.release()
    order = np.argsort(rel, kind="stable")
    q = float(np.min(inst.d_out))
    energy = -math.inf
    for i in range(inst.n):
        suffix = order[i:]
        work = _smallest_works(inst.cost, inst.factors, len(suffix), among=suffix)
        energy = max(energy, _fill_time(float(rel[order[i]]), work, inst, rel[suffix]) + q)
    return max(per, energy) - s0


def turnaround_bound(inst: DietInstance) -> float:
    """Lower bound on the mean turnaround of independent submissions, valid for every policy.

    Validity: the sum of turnarounds is ``sum(end_j) + sum(d_out_j) - sum(s_j)``, ``end_j`` the end of ``j``'s
    computation. (i) ``end_j >= s_j + d_in_j + c_j f_j / v_max``; the sum over ``j`` is least when the largest
    costs take the smallest factors. (ii) Sort the ends: by the ``k``-th one, ``k`` jobs are complete, so the
    capacity of :func:`makespan_bound` (ii) counted from the first release has done at least the ``k``
    smallest possible works; and the ``k``-th smallest end is at least the ``k``-th smallest of the per-request
    lower bounds ``s_j + d_in_j + c_j f_min / v_max``. The sum over ``k`` of the larger of the two bounds the sum
    of the ends.
    """
    n = inst.n
    if n == 0:
        return 0.0
    v = inst.v_max
    per = float(np.sum(inst.d_in + inst.d_out)) + _smallest_works(inst.cost, inst.factors, n) / v
    rel = inst.release()
    single = np.sort(rel + inst.cost * float(np.min(inst.factors)) / v)
    start = float(np.min(rel))
    ends = [max(_fill_time(start, _smallest_works(inst.cost, inst.factors, k), inst, rel), single[k - 1])
            for k in range(1, n + 1)]
    area = float(np.sum(ends) + np.sum(inst.d_out) - np.sum(inst.submit))
    return max(per, area) / n


def _user_draw_bound(inst: DietInstance, cycle_base: float, c_min: float) -> tuple[np.ndarray, int]:
    """Factors that can occur in a run of sequential users: the first ``M`` of the stream, ``M`` an upper bound
    on the jobs accepted, found by a decreasing fixed point (each user's submissions are at least a cycle
    ``cycle_base + c_min f_min / v_max`` apart, ``f_min`` the smallest factor of the first ``M``)."""
    v = inst.v_max

    def count(f_min: float) -> int:
        cycle = cycle_base + c_min * f_min / v
        if cycle <= 0:
            raise InvalidInputError("DIET bounds: sequential users with no delay and no work cannot be bounded")
        return int(sum(max(0, math.ceil((u.stop - u.start) / cycle)) for u in inst.users))

    if inst.platform.exec_cv <= 0:
        return np.ones(1), count(1.0)
    m = count(0.0)  # no work at all: the most requests there can be; streamed, it can be tens of millions
    f_min = min(float(np.min(c)) for c in iter_execution_factors(inst.platform, inst.seed, m))
    m = min(m, count(f_min))
    factors = execution_factors(inst.platform, inst.seed, m)
    for _ in range(_FACTOR_ITERATIONS):
        m_next = count(float(np.min(factors)))
        if m_next >= m:
            break
        m = m_next
        factors = factors[:m]
    return factors, m


def throughput_bound(inst: DietInstance, makespan_lb: float | None = None) -> float:
    """Upper bound on the throughput (requests per second) the simulator reports.

    Independent submissions: throughput = ``n`` / makespan <= ``n`` / :func:`makespan_bound`.

    Sequential users over the measured window ``[t0, t1)`` (throughput = requests submitted in it and completed,
    over ``t1 - t0``). Validity: (a) a user's submissions are at least a cycle ``d_in + c f_min / v_max +
    d_out + think`` apart, so it submits at most ``ceil((t1 - max(t0, start)) / cycle)`` in the window;
    (b) all but the last of a user's windowed requests reach their SeD in ``I = [t0 + d_in, t1 - think - d_out]``
    and end computing in it (the next one is submitted before ``t1``), so their works fit in the capacity of
    ``I``, at most ``sum cpus x speed`` per second (:func:`sed_rate`: interference never raises a SeD's rate
    above that); :func:`_jobs_fitting` bounds their number. Factors: the run's first ``M`` factors, ``M``
    bounding the jobs ever accepted (:func:`_user_draw_bound`).
    """
    if not inst.users:
        if makespan_lb is None:
            makespan_lb = makespan_bound(inst)
        return inst.n / makespan_lb if makespan_lb > 0 else math.inf
    t0, t1 = inst.window if inst.window is not None else (0.0, max(u.stop for u in inst.users))
    think = min(u.think_time for u in inst.users)
    c_min = float(np.min(inst.cost))
    base = float(np.min(inst.d_in + inst.d_out)) + think
    factors, _ = _user_draw_bound(inst, base, c_min)
    f_min = float(np.min(factors))
    cycle = base + c_min * f_min / inst.v_max
    active = [u for u in inst.users if u.start < t1 and u.stop > t0]
    per_user = sum(math.ceil((t1 - max(t0, u.start)) / cycle) for u in active)
    span = (t1 - think - float(np.min(inst.d_out))) - (t0 + float(np.min(inst.d_in)))
    cap = sum(m.speed for m in inst.machines) * max(0.0, span)
    if inst.platform.exec_cv > 0:
        fitting = _jobs_fitting(factors, cap / c_min, len(inst.users))
    else:
        fitting = int(math.floor(cap / c_min * (1 + 1e-12)))
    return min(per_user, len(active) + fitting) / (t1 - t0)


def _jobs_fitting(factors: np.ndarray, budget: float, in_flight: int) -> int:
    """Most jobs ``C`` that can be accepted and end computing within one interval whose capacity is ``budget``
    (in units of the cost), when the ``k``-th job accepted does ``factors[k]`` (sequential users).

    Validity: the jobs the SeDs accept during the interval are consecutive in acceptance order, so they use a
    block ``[A, B)`` of the factors; at most ``in_flight`` of them (one per user) are still in the system at its
    end, so ``B - A <= |C| + in_flight``; ``C``'s works fit in the budget, and they are at least the ``|C|``
    smallest factors of the block, hence at least the sum of the window ``[A, A + |C| + in_flight)`` minus its
    ``in_flight`` largest factors, at least minus the ``in_flight`` largest of all. The least such window sum
    over ``A`` grows with ``|C|``: bisection on ``|C|``. (A block longer than the stream allows is bounded by the
    ``|C|`` smallest factors of all.)
    """
    m = len(factors)
    sums = np.concatenate([[0.0], np.cumsum(factors)])
    top = float(np.sum(np.sort(factors)[m - min(in_flight, m):]))
    smallest = np.concatenate([[0.0], np.cumsum(np.sort(factors))])

    def least(k: int) -> float:
        length = k + in_flight
        if length > m:
            return float(smallest[min(k, m)]) if k <= m else math.inf
        return float(np.min(sums[length:] - sums[:m - length + 1])) - top

    lo, hi = 0, m
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if least(mid) <= budget * (1 + 1e-12) else (lo, mid - 1)
    return lo


def _users_turnaround(inst: DietInstance) -> float:
    """Sequential users: every request pays ``d_in + c f_min / v_max + d_out`` (``f_min`` as in
    :func:`throughput_bound`); the window's makespan is at least one turnaround."""
    think = min(u.think_time for u in inst.users)
    base = float(np.min(inst.d_in + inst.d_out))
    factors, _ = _user_draw_bound(inst, base + think, float(np.min(inst.cost)))
    return base + float(np.min(inst.cost)) * float(np.min(factors)) / inst.v_max


def quick_bounds(inst: DietInstance) -> dict[str, float]:
    """The closed-form bounds: ``makespan`` and ``mean_turnaround`` (lower), ``throughput`` (upper)."""
    if inst.users:
        t = _users_turnaround(inst)
        return {"makespan": t, "mean_turnaround": t, "throughput": throughput_bound(inst)}
    ms = makespan_bound(inst)
    return {"makespan": float(ms), "mean_turnaround": float(turnaround_bound(inst)),
            "throughput": float(throughput_bound(inst, ms))}


def lp_bounds(inst: DietInstance, *, time_limit: float = 60.0) -> dict[str, float]:
    """The interval-indexed preemptive LP (:mod:`lowerbounds.diet_lp`); quick bounds for sequential users."""
    from lowerbounds.diet_lp import preemptive_lp_bounds

    if inst.users:
        return quick_bounds(inst)
    return preemptive_lp_bounds(inst, time_limit=time_limit)


def _timed(fn, *args, **kwargs) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


# ----------------------------------------------------------------------------------------------------------------
# The method table: what ``vcsched diet bound --method`` computes
# ----------------------------------------------------------------------------------------------------------------
METHODS = ("quick", "lp", "exact", "best")
MAX_TIME_LIMIT = 86400.0
"""Largest ``time_limit`` of :func:`diet_bounds` (seconds; ``diet bound --time-limit``'s range is (0, this])."""
EXACT_MAX_TASKS = 200
"""Largest number of requests the exact placement search is tried on (beyond: bound and list-scheduling gap)."""


def _relaxation(inst: DietInstance, method: str, time_limit: float) -> dict[str, MetricBound]:
    quick, tq = _timed(quick_bounds, inst)
    out = {k: MetricBound(k, float(v), "quick", tq, kind="upper" if k == "throughput" else "lower")
           for k, v in quick.items()}
    if method in ("lp", "best") and not inst.users:
        lp, tl = _timed(lp_bounds, inst, time_limit=time_limit)
        for k, v in lp.items():
            better = v < quick[k] if k == "throughput" else v > quick[k]
            if method == "lp" or better:
                out[k] = MetricBound(k, float(v), "lp" if better or method == "lp" else "quick", tq + tl,
                                     kind=out[k].kind)
    return out


def _exact(inst: DietInstance, time_limit: float) -> dict[str, MetricBound]:
    from lowerbounds.diet_placement import best_placement

    relax = _relaxation(inst, "best", time_limit)
    if inst.users:
        msg = ("exact placement search not available for sequential users (the number of requests depends on the "
               "placement); reporting the bounds")
        return {k: dataclasses.replace(b, message=msg) for k, b in relax.items()}
    limit = time_limit if inst.n <= EXACT_MAX_TASKS else 0.0
    out: dict[str, MetricBound] = {}
    for metric in ("makespan", "mean_turnaround"):
        res = best_placement(inst, metric, time_limit=limit, root_bound=relax[metric].value)
        msg = res.message
        if inst.n > EXACT_MAX_TASKS:
            msg = (f"too large for the exact search ({inst.n} requests > {EXACT_MAX_TASKS}); bound and gap of "
                   "list scheduling")
        out[metric] = MetricBound(metric, res.value, "exact", res.seconds, status=str(res.status),
                                  optimum=res.value if res.status.value == "optimal" else None, bound=res.bound,
                                  gap=res.gap, placement=res.placement, message=msg or None)
    ms = out["makespan"]
    tp = relax["throughput"]
    value = inst.n / ms.value if ms.value else None
    bound = inst.n / ms.bound if ms.bound and ms.bound > 0 else tp.value
    out["throughput"] = MetricBound("throughput", value, "exact", ms.seconds, kind="upper", status=ms.status,
                                    optimum=value if ms.optimum is not None else None, bound=bound,
                                    gap=None if value is None else abs(bound - value) / bound,
                                    placement=ms.placement, message=ms.message)
    return out


def diet_bounds(scenario: Any, *, seed: int = 0, method: str = "best",
                time_limit: float = 60.0) -> dict[str, MetricBound]:
    """Bounds on ``makespan``, ``mean_turnaround`` (lower) and ``throughput`` (upper) of ``scenario``'s runs.

    ``method``: ``quick`` (closed forms), ``lp`` (the preemptive LP, :mod:`lowerbounds.diet_lp`), ``best`` (the
    stronger of the two for each metric) -- bounds valid for every policy; ``exact`` -- the best clairvoyant
    placement (:mod:`lowerbounds.diet_placement`) with its status, bound, gap and placement, within
    ``time_limit`` seconds per metric. ``seed`` is the run's seed (its execution-noise factors).
    """
    if method not in METHODS:
        raise InvalidInputError(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    number(time_limit, "time_limit", low=0, low_open=True, high=MAX_TIME_LIMIT)
    if not (hasattr(scenario, "platform") and hasattr(scenario, "workload")):
        raise InvalidInputError(f"scenario must be a DIET scenario (vcsched.scenarios.diet.Scenario), got "
                                f"{type(scenario).__name__}")
    integer(seed, "seed", low=0)
    inst = diet_instance(scenario, seed=seed)
    if method == "exact":
        return _exact(inst, time_limit)
    return _relaxation(inst, method, time_limit)
