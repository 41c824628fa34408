"""Quantities of VCSched placements shared by the models, the heuristics and the simulator.

* :func:`current_counts` and :func:`migration_cost`: how far a placement is
  from the instance's current one (seed 001 §6.1, eq. 31), counting the tasks
  of one job as interchangeable.
* :func:`closed_form_yield`: the §3.1 closed form, an upper bound on the
  minimum yield from the total CPU and memory needs.
* :func:`load_lower_bound`: a lower bound on the largest host load of any
  placement, hence (``Y = min(1, 1 / L)``) an upper bound on the minimum yield.

Examples
--------
>>> from vcsched.problems.vc import VCInstance
>>> inst = VCInstance.from_arrays(2, [0.6, 0.6, 0.6], [0.1, 0.1, 0.1])
>>> load_lower_bound(inst)  # some host holds two of the three tasks
1.2
>>> round(closed_form_yield(inst), 4)  # 2 hosts for 1.8 of CPU: min(1, 2 / 1.8)
1.0
"""

from __future__ import annotations

import numpy as np

from vcsched.problems.vc import MEM_EPS, VCInstance

__all__ = ["current_counts", "migration_cost", "closed_form_yield", "load_lower_bound"]


def current_counts(instance: VCInstance) -> np.ndarray:
    """``cur[i, j]`` = number of tasks of job ``i`` currently on host ``j`` (zeros for new jobs)."""
    cur = np.zeros((instance.n_jobs, instance.hosts), dtype=np.int64)
    th = instance.current_task_host()
    mask = th >= 0
    np.add.at(cur, (instance.task_job[mask], th[mask]), 1)
    return cur


def migration_cost(instance: VCInstance, task_host: np.ndarray) -> dict[str, float]:
    """Memory moved and number of moved tasks from the current placement.

    Tasks of one job are interchangeable, so job ``i`` moves
    ``sum_j max(0, n_ij - cur_ij)`` tasks (the best matching of old and new
    positions). Returns ``{"migrations": int, "migrated_memory": float}``, or
    ``{}`` when the instance has no current placement.
    """
    if instance.current_host is None:
        return {}
    new = np.zeros((instance.n_jobs, instance.hosts), dtype=np.int64)
    np.add.at(new, (instance.task_job, task_host), 1)
    cur = current_counts(instance)
    has_cur = np.array([ch is not None for ch in instance.current_host])
    moved = np.maximum(new - cur, 0).sum(axis=1) * has_cur
    return {"migrations": int(moved.sum()), "migrated_memory": float(np.dot(moved, instance.mem))}


def closed_form_yield(instance: VCInstance) -> float | None:
    """The §3.1 closed form: ``min(1, H / sum_i T_i alpha_i)``, or ``None`` when the tasks' total
    memory ``sum_i T_i m_i`` exceeds the ``H`` hosts' (by more than :data:`MEM_EPS`).

    Validity: summing the CPU constraints of the hosts, every placement with minimum yield
    ``Y`` has ``Y sum_i T_i alpha_i <= H``, and ``Y <= 1``; the memory constraints sum to
    ``sum_i T_i m_i <= H``, so with more memory no allocation exists, even fractional (this is
    the optimum of the LP relaxation with every job spread evenly, ``e_ij = 1 / H``).
    """
    if float(np.dot(instance.tasks, instance.mem)) > instance.hosts + MEM_EPS:
        return None
    return min(1.0, instance.hosts / float(np.dot(instance.tasks, instance.cpu)))


def load_lower_bound(instance: VCInstance) -> float:
    """Lower bound on the largest host load ``L`` of any placement.

    ``max(1, sum_i T_i alpha_i / H, max_i alpha_i, a_{kH-k+1} + ... + a_{kH+1})``
    where ``a_1 >= a_2 >= ...`` are the task CPU needs: the average load
    (§3.1), the largest task, and the pigeonhole bounds (some host holds
    ``k + 1`` of the ``kH + 1`` largest tasks, for every ``k >= 1``).
    ``L <= 1`` means every job gets yield 1, hence the 1.
    """
    task_cpu = instance.task_cpu
    total = float(task_cpu.sum())
    bound = max(1.0, total / instance.hosts, float(task_cpu.max()))
    top = np.sort(task_cpu)[::-1]
    H = instance.hosts
    k = 1
    while k * H + 1 <= top.size:
        bound = max(bound, float(top[k * H - k : k * H + 1].sum()))
        k += 1
    return bound
