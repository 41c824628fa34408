"""A clairvoyant schedule of DIET's sequential users (seed 004 §6.4): the feasible side of their brackets.

With sequential users the requests are not given in advance: each user submits its next request ``think`` seconds
after the previous result is back, until its ``stop``. So the placement search of :mod:`lowerbounds.diet.placement`
(a fixed set of requests) does not apply. :func:`closed_loop_schedule` builds one schedule of the placement model
(:mod:`lowerbounds.diet.placement`: each request on one SeD CPU, alone on it, its solve reaching the CPU no earlier
than :meth:`~lowerbounds.diet.DietInstance.earliest_start`, its result back ``d_out`` after its computation ends)
in closed loop, and :func:`user_metrics` gives its makespan, mean turnaround and throughput over the measured
window as :func:`vcsched.problems.diet.run_metrics` computes them.

**The rule (non-delay list scheduling).** Among the requests submitted and not yet placed (at most one per user)
and the CPUs, take the pair whose computation can start first (then the one that ends first, then the request
submitted first, then the lower user and CPU index: first come, first served among requests that wait); the request starts there at ``max(earliest start, the CPU's end of its previous job)``,
doing ``cost x`` the ``k``-th factor of the run's execution-noise stream if it is the ``k``-th job placed.
When its result is back the user's next request is submitted (``think`` later, if before its ``stop``).

**Why the schedule is feasible, hence its values bound the optimum.** Every step starts a job no earlier than
the previous step's (the candidates' starts only grow: a CPU's end only moves later, and a new request is
submitted after a placed request's result is back, later than that request's start). So the jobs are accepted
in the order they are placed, and the ``k``-th accepted does the ``k``-th factor, as in the simulator
(:func:`vcsched.sim.diet.execution_factors`; at equal starts the agent, which releases the solves, chooses
the order). A CPU runs its jobs one after the other, each after its earliest start, and ends it before its SeD
leaves; the agent plays it by holding each request until its CPU frees. So this is one clairvoyant schedule:
its window's makespan and mean turnaround are at least the optimum's (to minimise), its throughput at most the
optimum's (to maximise). Checked by :func:`check_schedule` in the tests.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from lowerbounds.diet.instance import DietInstance
from vcsched.sim.diet import execution_factors

__all__ = ["UserSchedule", "closed_loop_schedule", "user_metrics"]


@dataclasses.dataclass(frozen=True)
class UserSchedule:
    """The requests of a closed-loop schedule in the order placed: ``user``, ``submit``, ``cpu`` (index into
    ``inst.machines``), ``start``, ``work`` (cost x factor), ``end`` (computation) and ``done`` (result back)."""

    user: np.ndarray
    submit: np.ndarray
    cpu: np.ndarray
    start: np.ndarray
    work: np.ndarray
    end: np.ndarray
    done: np.ndarray
    seconds: float = 0.0

    @property
    def n(self) -> int:
        return int(self.user.size)


def _factors(inst: DietInstance, count: int) -> np.ndarray:
    return execution_factors(inst.platform, inst.seed, count)


def closed_loop_schedule(inst: DietInstance) -> UserSchedule | None:
    """The non-delay closed-loop schedule of ``inst``'s sequential users (module docstring); ``None`` when a
    request fits on no CPU before its SeD leaves."""
    tic = time.perf_counter()
    h = inst.platform.hop_latency
    speed = np.array([m.speed for m in inst.machines])
    join = np.array([m.join for m in inst.machines])
    leave = np.array([m.leave for m in inst.machines])
    free = np.full(len(inst.machines), -math.inf)
    users = inst.users
    pending = np.array([u.start if u.start < u.stop else math.inf for u in users], dtype=float)
    cost = inst.cost
    factors = _factors(inst, 1024)
    rows: list[tuple] = []
    while np.isfinite(pending).any():
        k = len(rows)
        if k >= factors.size:
            factors = _factors(inst, 2 * factors.size)
        live = np.flatnonzero(np.isfinite(pending))
        ready = np.maximum(pending[live, None] + h, join[None, :]) + inst.d_in[live, None] - h
        start = np.maximum(ready, free[None, :])
        end = start + (cost[live] * factors[k])[:, None] / speed[None, :]
        start = np.where(end <= leave[None, :] + 1e-9, start, math.inf)
        best = start.min()
        if not math.isfinite(best):
            return None
        cand = np.argwhere(start == best)
        i, m = min(cand.tolist(), key=lambda c: (end[c[0], c[1]], pending[live[c[0]]], live[c[0]], c[1]))
        u = int(live[i])
        done = float(end[i, m] + inst.d_out[u])
        rows.append((u, pending[u], m, best, cost[u] * factors[k], float(end[i, m]), done))
        free[m] = end[i, m]
        nxt = done + users[u].think_time
        pending[u] = nxt if nxt < users[u].stop else math.inf
    cols = list(zip(*rows)) if rows else [()] * 7
    arrays = [np.asarray(c, dtype=np.int64 if j in (0, 2) else float) for j, c in enumerate(cols)]
    return UserSchedule(*arrays, seconds=time.perf_counter() - tic)


def user_metrics(inst: DietInstance, schedule: UserSchedule) -> dict[str, float | None]:
    """``makespan``, ``mean_turnaround`` and ``throughput`` of ``schedule`` over ``inst.window`` (every request
    without one), as :func:`vcsched.problems.diet.run_metrics` computes them from a run's records."""
    keep = np.ones(schedule.n, dtype=bool)
    if inst.window is not None:
        keep = (schedule.submit >= inst.window[0]) & (schedule.submit < inst.window[1])
    if not keep.any():
        return {"makespan": None, "mean_turnaround": None, "throughput": 0.0}
    submit, done = schedule.submit[keep], schedule.done[keep]
    makespan = float(done.max() - submit.min())
    if inst.window is not None:
        throughput = keep.sum() / (inst.window[1] - inst.window[0])
    else:
        throughput = keep.sum() / makespan if makespan > 0 else None
    return {"makespan": makespan, "mean_turnaround": float(np.mean(done - submit)),
            "throughput": None if throughput is None else float(throughput)}
