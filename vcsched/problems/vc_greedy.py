"""The least-loaded-first placement rule of VCSched (seed 001 §3.3).

One rule, used by the greedy heuristics (:mod:`heuristics.vc.greedy`: GR in job
order, SG by decreasing memory) and by the exact models' starting placement
(:mod:`vcsched.formulations.vc_starts`).
"""

from __future__ import annotations

import heapq

import numpy as np

from vcsched.problems.vc import MEM_EPS, VCInstance

__all__ = ["least_loaded_placement", "COMPILED_FROM"]

COMPILED_FROM = 500_000
"""Tasks from which :func:`least_loaded_placement` runs compiled
(:mod:`vcsched.problems.vc_greedy_compiled`, the same placement and count). A solve calls it once
(GR, SG) or twice (the exact models' start); the heaps in Python take about 1 s per million tasks
and the compiled walk a quarter of that, but loading numba costs about 0.45 s once per process, so
below about half a million tasks one or two calls are cheaper in Python
(``python benchmarks/bench_thresholds.py --rule least-loaded``: at 300,000 tasks 0.30 s plain
against 0.59 s compiled for the first call)."""


def least_loaded_placement(instance: VCInstance, order: np.ndarray) -> tuple[np.ndarray | None, int]:
    """Tasks taken in ``order``, each on the host of least ``(load, host index)`` whose memory
    fits it: the first phase of GR and SG (seed 001 §3.3) and the starting placement of the
    exact models (:func:`vcsched.formulations.vc_starts.load_balancing_incumbent`).

    Hosts live in one of two places. The *open* heap, keyed by ``(load, index)``,
    holds hosts that fitted the last task that looked at them; a host popped from
    it that cannot take the task moves to the *blocked* set, where it waits,
    unchanged, until a task small enough comes (a heap keyed by used memory
    answers "which blocked hosts fit a task of memory ``m``" in ``O(log H)`` per
    host released). With tasks in non-increasing memory (SG) a host is blocked
    at most once per task it receives, so the whole phase takes
    ``O((T + H) log H)`` instead of the ``O(T H)`` of setting the non-fitting
    hosts aside for each task (``tests/vc/plain_oracle.plain_greedy_placement``,
    which gives the same placement and the same count).

    From :data:`COMPILED_FROM` tasks on, the same walk runs compiled
    (:func:`vcsched.problems.vc_greedy_compiled.least_loaded_compiled`; its attempt
    count is computed after the walk, in ``O((T + H) log(T + H))`` whatever the order).

    ``attempts`` counts, as the paper's bound on GB does, every host examined in
    ``(load, index)`` order before the chosen one (those that did not fit) plus
    the chosen one: the hosts popped from the open heap, and the blocked hosts
    whose key is below the chosen host's (an order-statistic query on the
    blocked keys, :class:`sortedcontainers.SortedList`).

    Returns
    -------
    task_host : array of int or None
        ``None`` when some task fits on no host.
    attempts : int
        Number of (task, host) pairs examined (the unit of GB's bound).
    """
    if order.size >= COMPILED_FROM:
        from vcsched.problems.vc_greedy_compiled import least_loaded_compiled

        host, attempts = least_loaded_compiled(instance.task_cpu[order], instance.task_mem[order], instance.hosts,
                                               1.0 + MEM_EPS)
        if host is None:
            return None, attempts
        task_host = np.zeros(instance.n_tasks, dtype=np.int64)
        task_host[order] = host
        return task_host, attempts
    from sortedcontainers import SortedList

    H = instance.hosts
    tc = instance.task_cpu.tolist()
    tm = instance.task_mem.tolist()
    open_ = [(0.0, j) for j in range(H)]
    load, mem = [0.0] * H, [0.0] * H
    blocked_by_mem: list[tuple[float, int]] = []
    blocked_keys = SortedList()
    host = [0] * len(tc)
    cap = 1.0 + MEM_EPS
    attempts = 0
    pop, push = heapq.heappop, heapq.heappush
    for k in order.tolist():
        m = tm[k]
        while blocked_by_mem and blocked_by_mem[0][0] + m <= cap:  # released: they fit this task
            _, j = pop(blocked_by_mem)
            blocked_keys.remove((load[j], j))
            push(open_, (load[j], j))
        while open_:
            key = pop(open_)
            j = key[1]
            if mem[j] + m <= cap:
                break
            push(blocked_by_mem, (mem[j], j))
            blocked_keys.add(key)
        else:
            return None, attempts + len(blocked_keys)  # every host was examined
        attempts += 1 + blocked_keys.bisect_left(key)  # the chosen host and the blocked ones before it
        mem[j] += m
        load[j] += tc[k]
        host[k] = j
        push(open_, (load[j], j))
    return np.asarray(host, dtype=np.int64), attempts
