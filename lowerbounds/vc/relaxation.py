"""Upper bounds on the VCSched minimum yield (seed 001 §3.1).

* :func:`closed_form_bound`: ``Y = min(H / sum_i T_i alpha_i, 1)`` when the
  total memory fits (``sum_i T_i m_i <= H``), else the instance is infeasible
  even fractionally.
* :func:`lp_relaxation`: the MILP with integrality dropped, solved by HiGHS.
  It returns the fractional assignment ``e_ij`` (a simplex vertex, not the
  uniform ``1/H`` of the closed form) that RRND/RRNZ round.
"""

from __future__ import annotations

import time

import numpy as np

from vcsched.arguments import of_type
from vcsched.errors import InvalidInputError
from vcsched.formulations.solve import solve_model
from vcsched.formulations.vc_milp import build_compact_model, build_literal_model
from vcsched.problems.vc import VCInstance
from vcsched.problems.vc_metrics import closed_form_yield
from vcsched.result import Result, Status

__all__ = ["closed_form_bound", "lp_relaxation", "LPRelaxation"]


def closed_form_bound(instance: VCInstance) -> Result:
    """§3.1 closed form (:func:`vcsched.problems.vc_metrics.closed_form_yield`, where its validity
    is argued) as a Result: ``optimal`` with objective and bound ``min(1, H / sum T_i alpha_i)``,
    or ``infeasible`` when the total memory exceeds the hosts'."""
    t0 = time.perf_counter()
    y = closed_form_yield(instance)
    if y is None:
        total_mem = float(np.dot(instance.tasks, instance.mem))
        return Result("lp-closed", Status.INFEASIBLE, None, None, None, None, time.perf_counter() - t0,
                      f"total memory {total_mem:.6g} exceeds {instance.hosts} hosts")
    return Result("lp-closed", Status.OPTIMAL, y, y, 0.0, None, time.perf_counter() - t0, "closed form (§3.1)")


class LPRelaxation:
    """Fractional solution of the relaxed MILP: ``e[i, j]`` = share of job i's tasks on host j."""

    def __init__(self, e: np.ndarray, y: float) -> None:
        self.e = e
        self.y = y

    def __repr__(self) -> str:
        return f"LPRelaxation(y={self.y:.6g}, shape={self.e.shape})"


def lp_relaxation(instance: VCInstance, *, formulation: str = "compact", time_limit: float | None = None) -> Result:
    """Solve the LP relaxation of the VCSched MILP with HiGHS.

    ``objective`` and ``bound`` are the relaxed optimum (an upper bound on the
    min yield); ``solution`` is an :class:`LPRelaxation` whose ``e`` rows sum
    to 1 (fraction of each job on each host).
    """
    of_type(instance, "instance", VCInstance)
    t0 = time.perf_counter()
    if formulation == "compact":
        model = build_compact_model(instance, relax=True)
    elif formulation == "literal":
        model = build_literal_model(instance, relax=True)
    else:
        raise InvalidInputError(f"formulation must be 'compact' or 'literal', got {formulation!r}")
    build = time.perf_counter() - t0
    out = solve_model(model.problem, mip=False, time_limit=time_limit, variables=model.variables)
    extra = {"build_seconds": build, "solve_seconds": out.seconds, "formulation": formulation}
    method = "lp" if formulation == "compact" else "lp-literal"
    if not out.status.has_solution:
        return Result(method, out.status, None, None, None, None, time.perf_counter() - t0, out.message, extra)
    e = model.job_host_values(instance) / instance.tasks[:, None]
    y = model.min_yield(out.objective)
    e = np.clip(e, 0.0, None)
    e /= e.sum(axis=1, keepdims=True)
    return Result(method, out.status, y, y, 0.0,
                  LPRelaxation(e, y), time.perf_counter() - t0, out.message, extra)
