"""The MILP of VCSched with d rigid resources and host types, and its LP relaxation.

Seed 001's MILP (§2.5, eq. 3-11) with the compact reading of :mod:`vcsched.formulations.vc_milp`:
for a fixed placement the best minimum yield is ``min(1, min_h C_h / L_h)`` (``L_h`` the CPU need
on host ``h``, ``C_h`` its CPU), so with ``t = 1 / Y``::

    minimise t
    sum_h x_jh = 1                          every job on one host
    sum_j r_jk x_jh <= cap_hk               every host h, every rigid resource k
    sum_j cpu_j x_jh - C_h t <= 0           every host h (CPU at yield 1 / t)
    t >= max(1, sum_j cpu_j / sum_h C_h),   x_jh in {0, 1}

Hosts are numbered type by type; hosts of one type are interchangeable, so their CPU loads are
made non-increasing (symmetry breaking, MILP only). The minimum yield is ``1 / t``: the MILP's
optimum is the optimal minimum yield (checked against brute force over every job-to-host map in
the tests); the LP relaxation (``x_jh`` in ``[0, 1]``) gives an upper bound ``1 / t_LP``. On one
type of unit hosts with ``mem`` it is the compact model of :mod:`vcsched.formulations.vc_milp`
with one row per task (the same optimum: tested).
"""

from __future__ import annotations

import math
import time

import numpy as np
import pulp

from vcsched.formulations.solve import new_var, solve_model
from vcsched.problems.vc_hetero import HeteroInstance, allocation_from_placement, check_hetero
from vcsched.result import Result, Status

__all__ = ["build_hetero_model", "solve_hetero_milp", "hetero_lp_bound", "load_floor"]


def load_floor(inst: HeteroInstance) -> float:
    """A valid lower bound on ``t = 1 / Y``: ``max(1, total CPU need / total host CPU)``."""
    return max(1.0, math.fsum(inst.job_cpu.tolist()) / float(np.dot(inst.host_cpu, inst.host_count)))


def build_hetero_model(inst: HeteroInstance, *, relax: bool = False) -> tuple[pulp.LpProblem, list, np.ndarray, pulp.LpVariable]:
    """``(problem, variables, x (n, H) of variables, t)`` of the model in the module docstring."""
    n, hosts = inst.n_jobs, inst.n_hosts
    cat = pulp.LpContinuous if relax else pulp.LpBinary
    t = new_var("t", load_floor(inst))
    x = np.array([[new_var(f"x_{j}_{h}", 0, 1, cat) for h in range(hosts)] for j in range(n)], dtype=object)
    prob = pulp.LpProblem("vc_hetero", pulp.LpMinimize)
    prob += pulp.LpAffineExpression([(t, 1.0)])
    for j in range(n):
        prob += pulp.LpAffineExpression([(x[j, h], 1.0) for h in range(hosts)]) == 1
    cap, cpu = inst.hosts_cap, inst.hosts_cpu
    for h in range(hosts):
        for k in range(inst.d):
            terms = [(x[j, h], float(inst.job_rigid[j, k])) for j in range(n) if inst.job_rigid[j, k] > 0]
            if terms:
                prob += pulp.LpAffineExpression(terms) <= float(cap[h, k])
        prob += pulp.LpAffineExpression([(x[j, h], float(inst.job_cpu[j])) for j in range(n)] + [(t, -float(cpu[h]))]) <= 0
    if not relax:
        _break_symmetry(prob, inst, x)
    return prob, [t, *x.ravel().tolist()], x, t


def _break_symmetry(prob: pulp.LpProblem, inst: HeteroInstance, x: np.ndarray) -> None:
    """Hosts of one type: CPU load of host h >= that of host h + 1 (any solution relabels so)."""
    types = inst.host_type
    for h in range(inst.n_hosts - 1):
        if types[h] == types[h + 1]:
            prob += pulp.LpAffineExpression([(x[j, h], float(inst.job_cpu[j])) for j in range(inst.n_jobs)]
                                            + [(x[j, h + 1], -float(inst.job_cpu[j])) for j in range(inst.n_jobs)]) >= 0


def solve_hetero_milp(inst: HeteroInstance, *, time_limit: float | None = None, gap: float | None = None) -> Result:
    """Solve the MILP with HiGHS. ``objective``: the minimum yield of the checked allocation
    (:class:`vcsched.problems.vc_hetero.HeteroAllocation` in ``solution``); ``bound``: ``1 / t``
    of the solver's proven lower bound on ``t``; ``status`` as HiGHS proved it."""
    t0 = time.perf_counter()
    prob, variables, x, _ = build_hetero_model(inst)
    out = solve_model(prob, time_limit=time_limit, gap_rel=gap, variables=variables)
    bound = None if out.bound is None or not math.isfinite(out.bound) else min(1.0, 1.0 / out.bound)
    extra = {"nodes": out.nodes, "solve_seconds": out.seconds}
    if not out.status.has_solution:
        return Result("milp", out.status, None, bound, None, None, time.perf_counter() - t0, out.message, extra)
    values = np.array([[v.varValue or 0.0 for v in row] for row in x])
    alloc = allocation_from_placement(inst, values.argmax(axis=1))
    report = check_hetero(inst, alloc)
    if not report.valid:
        return Result("milp", Status.ERROR, None, bound, None, None, time.perf_counter() - t0,
                      f"the solver's placement fails the checker: {report.message}", extra)
    gap_value = None if bound is None else max(0.0, bound - report.min_yield) / max(bound, 1e-12)
    return Result("milp", out.status, report.min_yield, bound, gap_value, alloc,
                  time.perf_counter() - t0, out.message, extra)


def hetero_lp_bound(inst: HeteroInstance, *, time_limit: float | None = None) -> Result:
    """The LP relaxation: ``objective`` and ``bound`` are ``1 / t_LP``, an upper bound on the
    optimal minimum yield (no allocation: ``solution`` is the fractional ``x``, shape (n, H))."""
    t0 = time.perf_counter()
    prob, variables, x, _ = build_hetero_model(inst, relax=True)
    out = solve_model(prob, mip=False, time_limit=time_limit, variables=variables)
    if not out.status.has_solution:
        return Result("lp", out.status, None, None, None, None, time.perf_counter() - t0, out.message)
    y = min(1.0, 1.0 / out.objective)
    values = np.array([[v.varValue or 0.0 for v in row] for row in x])
    return Result("lp", out.status, y, y, 0.0, values, time.perf_counter() - t0, out.message)
