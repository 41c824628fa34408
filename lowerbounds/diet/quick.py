"""Closed-form bounds of a DIET run (seed 004 §5-6): capacity over time, makespan, turnaround, throughput.

What every request pays and why each bound holds: :mod:`lowerbounds.diet.instance`.
"""

from __future__ import annotations

import math

import numpy as np

from lowerbounds.diet.instance import DietInstance
from vcsched.errors import InvalidInputError
from vcsched.problems.diet import DietPlatform
from vcsched.sim.diet import execution_factors, iter_execution_factors

__all__ = ["sed_rate", "makespan_bound", "turnaround_bound", "throughput_bound", "quick_bounds"]


_FACTOR_ITERATIONS = 8

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
