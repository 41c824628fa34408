"""The average-yield LP of seed 001 §5.1 as a PuLP model: the oracle for
:func:`vcsched.problems.vc.maximize_average_yield` (which solves the same LP
with highspy, and the paper's greedy for one-task jobs)."""

from __future__ import annotations

import numpy as np
import pulp

from vcsched.formulations.solve import new_var, solve_model
from vcsched.problems.vc import VCInstance


def average_yield_lp(instance: VCInstance, task_host: np.ndarray, min_yield: float) -> np.ndarray:
    """Per-job CPU ``c_i`` maximising the average per-job yield for a fixed placement.

    LP: max sum_i c_i / alpha_i  s.t.  sum_i n_ij c_i <= 1 (each host j),
    alpha_i Y <= c_i <= alpha_i.
    """
    J = instance.n_jobs
    alpha = instance.cpu
    n = np.zeros((J, instance.hosts), dtype=np.int64)
    np.add.at(n, (instance.task_job, task_host), 1)
    prob = pulp.LpProblem("average_yield", pulp.LpMaximize)
    c = [new_var(f"c_{i}", float(alpha[i] * min_yield), float(alpha[i])) for i in range(J)]
    prob += pulp.LpAffineExpression([(c[i], 1.0 / float(alpha[i])) for i in range(J)])
    for j in range(instance.hosts):
        rows = np.flatnonzero(n[:, j])
        if rows.size:
            prob += pulp.LpAffineExpression([(c[i], float(n[i, j])) for i in rows]) <= 1, f"cpu_{j}"
    out = solve_model(prob, mip=False, variables=c)
    assert out.status.value == "optimal", out.message
    return np.array([min(max(v.varValue or 0.0, alpha[i] * min_yield), alpha[i]) for i, v in enumerate(c)])
