"""Position-indexed MILP of the best clairvoyant placement's makespan (PuLP + HiGHS).

Same model as :mod:`lowerbounds.diet.placement`. Each CPU ``m`` has positions ``i = 1 .. K_m``;
``x[j, m, i] = 1`` puts request ``j`` at position ``i`` of ``m``; ``S[m, i]`` is that position's start:

* every request in one position, every position at most one request, positions filled from the first;
* ``S[m, i] >= sum_j e[j, m] x[j, m, i]`` (earliest start on ``m``) and ``S[m, i+1] >= S[m, i] + sum_j p[j, m]
  x[j, m, i]`` (one job at a time on a CPU);
* ``T >= S[m, i] + sum_j (p[j, m] + d_out[j]) x[j, m, i]``; a SeD that leaves: its jobs end before it leaves;
* interchangeable CPUs (same speed, join, leave) are numbered by first start: ``S[m_k, 1] <= S[m_k+1, 1]`` and
  ``S[m_k, 1] >= `` the ``k``-th smallest earliest start (valid: their first jobs are distinct requests).

``K_m``: the most jobs CPU ``m`` can end before the incumbent's makespan (given the ``k``-th smallest earliest start
and the smallest computing times), so a placement at least as good as the incumbent is never cut off. The objective
``T - min(submit)`` is the makespan; HiGHS's status, bound and gap are reported as they are
(:func:`vcsched.formulations.solve.solve_model`).
"""

from __future__ import annotations

import math

import numpy as np
import pulp

from lowerbounds.diet.instance import DietInstance, timing
from vcsched.formulations.solve import SolveOutcome, new_var, solve_model

__all__ = ["makespan_milp"]


def _positions(e: np.ndarray, p: np.ndarray, machines: list, horizon: float) -> tuple[list[int], list[float]]:
    """Positions per CPU (``K_m``) and the class-ordered earliest first start of each CPU."""
    rank: dict[tuple, int] = {}
    counts, firsts = [], []
    n = e.shape[0]
    for m, mach in enumerate(machines):
        key = (mach.speed, mach.join, mach.leave)
        k = rank.get(key, 0)
        rank[key] = k + 1
        first = float(np.sort(e[:, m])[min(k, n - 1)])
        prefix = first + np.cumsum(np.sort(p[:, m]))
        counts.append(int(np.sum(prefix <= min(horizon, mach.leave) + 1e-9)))
        firsts.append(first)
    return counts, firsts


def makespan_milp(inst: DietInstance, incumbent: float, *, time_limit: float,
                  start: list[tuple[int, int, int]] | None = None,
                  node_limit: int | None = None) -> tuple[SolveOutcome, list | None]:
    """Solve the MILP; ``incumbent`` is a known makespan (sets ``K_m``); ``start``: (request, CPU, position)
    triples of a placement to start from; ``node_limit``: HiGHS's ``mip_max_nodes``. Returns HiGHS's outcome
    and the (request, CPU, start) triples found."""

    e, p, machines = timing(inst)
    s0 = float(np.min(inst.submit))
    horizon = incumbent + s0 - float(np.min(inst.d_out))
    counts, firsts = _positions(e, p, machines, horizon)
    prob = pulp.LpProblem("diet_placement_makespan", pulp.LpMinimize)
    end = new_var("T")
    x: dict[tuple[int, int, int], pulp.LpVariable] = {}
    for m, k in enumerate(counts):
        for i in range(k):
            for j in range(inst.n):
                if e[j, m] + p[j, m] <= min(horizon, machines[m].leave) + 1e-9:
                    x[j, m, i] = new_var(f"x_{j}_{m}_{i}", 0, 1, pulp.LpBinary)
    starts = {(m, i): new_var(f"S_{m}_{i}", firsts[m]) for m, k in enumerate(counts) for i in range(k)}
    _constraints(prob, inst, x, starts, end, e, p, counts, machines)
    prob += end
    values = None
    if start:
        values = {x[j, m, i]: 1.0 for j, m, i in start if (j, m, i) in x}
    options = {"mip_max_nodes": int(node_limit)} if node_limit is not None else None
    out = solve_model(prob, time_limit=time_limit, mip=True, start=values, options=options)
    found = None
    if out.status.has_solution:
        found = sorted((j, m, float(starts[m, i].varValue)) for (j, m, i), v in x.items()
                       if v.varValue is not None and v.varValue > 0.5)
    return out, found


def _constraints(prob, inst, x, starts, end, e, p, counts, machines) -> None:
    by_job: dict[int, list] = {}
    by_slot: dict[tuple[int, int], list] = {}
    for (j, m, i), v in x.items():
        by_job.setdefault(j, []).append(v)
        by_slot.setdefault((m, i), []).append((j, v))
    for j in range(inst.n):
        prob += pulp.lpSum(by_job.get(j, [])) == 1
    previous_first: dict[tuple, tuple[int, int]] = {}
    for m, k in enumerate(counts):
        for i in range(k):
            slot = by_slot.get((m, i), [])
            prob += pulp.lpSum(v for _, v in slot) <= 1
            prob += starts[m, i] >= pulp.lpSum(e[j, m] * v for j, v in slot)
            work = pulp.lpSum(p[j, m] * v for j, v in slot)
            prob += end >= starts[m, i] + pulp.lpSum((p[j, m] + inst.d_out[j]) * v for j, v in slot)
            if math.isfinite(machines[m].leave):
                prob += starts[m, i] + work <= machines[m].leave
            if i + 1 < k:
                prob += starts[m, i + 1] >= starts[m, i] + work
                prob += pulp.lpSum(v for _, v in by_slot.get((m, i + 1), [])) <= pulp.lpSum(v for _, v in slot)
        key = (machines[m].speed, machines[m].join, machines[m].leave)
        if k and key in previous_first:
            prev = previous_first[key]
            prob += starts[prev] <= starts[m, 0]
            prob += pulp.lpSum(v for _, v in by_slot.get(prev, [])) >= \
                pulp.lpSum(v for _, v in by_slot.get((m, 0), []))
        if k:
            previous_first[key] = (m, 0)
