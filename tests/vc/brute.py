"""Brute-force optimum of tiny VCSched instances (enumerate every task -> host map)."""

from __future__ import annotations

import itertools

import numpy as np

from vcsched.problems.vc import VCInstance


def all_placements(instance: VCInstance) -> np.ndarray:
    """Every task -> host array (H ** K rows)."""
    K, H = instance.n_tasks, instance.hosts
    return np.array(list(itertools.product(range(H), repeat=K)), dtype=np.int64).reshape(-1, K)


def brute_force_min_yield(instance: VCInstance, budget=None, budget_mode="memory") -> float | None:
    """Best min yield over all placements fitting in memory (and the migration budget), None if none."""
    P = all_placements(instance)
    H = instance.hosts
    onehot = np.zeros((P.shape[0], P.shape[1], H))
    np.put_along_axis(onehot, P[:, :, None], 1.0, axis=2)
    mem = np.einsum("pkh,k->ph", onehot, instance.task_mem)
    load = np.einsum("pkh,k->ph", onehot, instance.task_cpu)
    ok = (mem <= 1 + 1e-12).all(axis=1)
    if budget is not None and instance.current_host is not None:
        ok &= migration_costs(instance, P, budget_mode) <= budget + 1e-9
    if not ok.any():
        return None
    peak = load[ok].max(axis=1)
    return float(np.minimum(1.0, 1.0 / np.maximum(peak, 1e-300)).max())


def migration_costs(instance: VCInstance, P: np.ndarray, mode: str) -> np.ndarray:
    """Moved memory (or moved tasks) of each placement, matching the tasks of a job (they are identical)."""
    cur = instance.current_task_host()
    J, H = instance.n_jobs, instance.hosts
    job = instance.task_job
    weight = instance.mem if mode == "memory" else np.ones(J)
    cur_counts = np.zeros((J, H))
    for k in range(instance.n_tasks):
        if cur[k] >= 0:
            cur_counts[job[k], cur[k]] += 1
    has_cur = np.array([cur[instance.offsets[i]] >= 0 for i in range(J)])
    costs = np.zeros(P.shape[0])
    for p, row in enumerate(P):
        new = np.zeros((J, H))
        np.add.at(new, (job, row), 1)
        moved = np.maximum(new - cur_counts, 0).sum(axis=1) * has_cur
        costs[p] = float(np.dot(moved, weight))
    return costs
