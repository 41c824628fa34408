"""Test oracle: VCSched's placement rules and MCB written literally on Python lists.

The production forms are vectorised (:mod:`vcsched.problems.vc`: host loads, the best
minimum yield of a placement, the average-yield phase for one-task jobs, the checker;
:mod:`heuristics.vc.mcb_pack`: the sort and split of MCB's two lists). The forms here do
the same floating-point operations in the same order, one item at a time, so the
production forms must give the same numbers to the last bit (``tests/vc/test_vc_oracle.py``).
:func:`mcb_plain` runs MCB's yield search (shared with production) on these forms.

Examples
--------
>>> from vcsched.problems.vc import parse_instance
>>> inst = parse_instance({"hosts": 2, "jobs": [{"cpu": 0.8, "mem": 0.5}, {"cpu": 0.8, "mem": 0.5},
...                                             {"cpu": 0.4, "mem": 0.4}]})
>>> cpu = plain_allocation_from_placement(inst, [0, 1, 1])  # host 1 load 1.2: Y = 1 / 1.2
>>> [round(c, 4) for c in cpu]  # the job alone on host 0 gets its full need
[0.8, 0.6667, 0.3333]
>>> report = plain_check_allocation(inst, [0, 1, 1], cpu)
>>> report.valid, round(report.min_yield, 4), round(report.avg_yield, 4)
(True, 0.8333, 0.8889)
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Sequence

import numpy as np

from heuristics.vc.mcb import NO_PACKING, _check_options, _search, _YieldSearch
from heuristics.vc.mcb_pack import MCB_VARIANTS, _fill, _ScanList
from vcsched.problems.vc import MEM_EPS, TOL, Allocation, CheckReport, VCInstance
from vcsched.result import Result, Status


def plain_host_loads(hosts: int, task_host: Sequence[int], task_cpu: Sequence[float]) -> list[float]:
    """Total CPU need ``L_j`` of the tasks on each host, summed in task order."""
    loads = [0.0] * hosts
    for h, c in zip(task_host, task_cpu):
        loads[h] += c
    return loads


def plain_placement_min_yield(hosts: int, task_host: Sequence[int], task_cpu: Sequence[float]) -> float:
    """Best minimum yield of a placement: ``min(1, 1 / max_j L_j)``."""
    peak = max(plain_host_loads(hosts, task_host, task_cpu), default=0.0)
    return 1.0 if peak <= 1.0 else 1.0 / peak


def plain_allocation_from_placement(instance: VCInstance, task_host: Sequence[int],
                                    min_yield: float | None = None) -> list[float]:
    """CPU of every task of a placement of one-task jobs: ``alpha_i * Y``, then the greedy
    average-yield phase (§3.5) job by job in (host, ``alpha_i``, index) order."""
    assert not instance.is_parallel, "the plain phase handles one-task jobs only"
    alpha = instance.cpu.tolist()
    task_host = [int(h) for h in task_host]
    best = plain_placement_min_yield(instance.hosts, task_host, alpha)
    y = best if min_yield is None else float(min(max(min_yield, 0.0), 1.0))
    y = min(y, best)
    base = [a * y for a in alpha]
    spare = [max(1.0 - u, 0.0) for u in plain_host_loads(instance.hosts, task_host, base)]
    order = sorted(range(len(alpha)), key=lambda i: (task_host[i], alpha[i], i))
    cpu = list(base)
    csum = 0.0
    csum_before_host = 0.0  # running sum at the end of the previous host's jobs
    previous = None
    for i in order:
        h = task_host[i]
        if h != previous:
            csum_before_host, previous = csum, h
        headroom = alpha[i] - base[i]
        csum += headroom
        before = csum - headroom - csum_before_host
        extra = min(max(spare[h] - before, 0.0), headroom)
        cpu[i] = min(base[i] + extra, alpha[i])
    return cpu


def plain_check_allocation(instance: VCInstance, host: list, cpu: list, *, tol: float = TOL) -> CheckReport:
    """Every constraint of VCSched (eq. 5-10, 14-20) checked task by task: the violation
    messages of :func:`vcsched.problems.vc.check_allocation` in the same order, the same
    yields (``job_yield`` a list)."""
    K = instance.n_tasks
    if len(host) != K or len(cpu) != K:
        return CheckReport(False, (f"expected {K} tasks, got host {(len(host),)} and cpu {(len(cpu),)}",),
                           None, None, None)
    if not all(isinstance(h, int) and not isinstance(h, bool) for h in host):
        return CheckReport(False, ("task_host must be integers",), None, None, None)
    for k, h in enumerate(host):
        if not 0 <= h < instance.hosts:
            return CheckReport(False, (f"task {k} on host {h} outside 0..{instance.hosts - 1}",), None, None, None)
    cpu = [float(c) for c in cpu]
    if not all(math.isfinite(c) for c in cpu):
        return CheckReport(False, ("non-finite CPU fraction",), None, None, None)
    violations: list[str] = []
    used_cpu = plain_host_loads(instance.hosts, host, cpu)
    violations += [f"host {j} CPU {u:.9g} > 1" for j, u in enumerate(used_cpu) if u > 1 + tol]
    used_mem = plain_host_loads(instance.hosts, host, instance.task_mem.tolist())
    violations += [f"host {j} memory {u:.9g} > 1" for j, u in enumerate(used_mem) if u > 1 + tol]
    need = instance.task_cpu.tolist()
    violations += [f"task {k} CPU {c:.9g} outside [0, {a:.9g}]" for k, (c, a) in enumerate(zip(cpu, need))
                   if c < -tol or c > a + tol]
    cmin, cmax = [math.inf] * instance.n_jobs, [-math.inf] * instance.n_jobs
    k = 0
    for i, t in enumerate(instance.tasks.tolist()):
        for c in cpu[k : k + t]:
            cmin[i], cmax[i] = min(cmin[i], c), max(cmax[i], c)
        k += t
    violations += [f"job {i} tasks have unequal CPU ({lo:.9g} .. {hi:.9g})"
                   for i, (lo, hi) in enumerate(zip(cmin, cmax)) if hi - lo > tol]
    job_yield = [min(lo / a, 1.0) for lo, a in zip(cmin, instance.cpu.tolist())]
    return CheckReport(not violations, tuple(violations), min(job_yield), math.fsum(job_yield) / len(job_yield),
                       job_yield)


def plain_key(c: list[float], m: list[float], key: str) -> list[float]:
    """MCB's sort key of every item (the operations of ``mcb_pack._sort_key``, on lists)."""
    if key == "sum":
        return [a + b for a, b in zip(c, m)]
    if key == "diff":
        return [a - b if a > b else b - a for a, b in zip(c, m)]
    if key == "ratio":
        return [(a / b if b > 0 else math.inf) if a > b else (b / a if a > 0 else math.inf) for a, b in zip(c, m)]
    return [a if a > b else b for a, b in zip(c, m)]


def sorted_positions(c: list[float], m: list[float], variant: int) -> tuple[list[int], list[int]]:
    """Task indices of the CPU-heavy (``c >= m``) and memory-heavy lists, each sorted by the
    variant's key (stable; descending sorts the negated key, as the production sort)."""
    key, descending = MCB_VARIANTS[variant]
    k = plain_key(c, m, key)
    if descending:
        k = [-x for x in k]
    order = sorted(range(len(k)), key=k.__getitem__)
    return [i for i in order if c[i] >= m[i]], [i for i in order if c[i] < m[i]]


def pack_plain(c: list[float], m: list[float], hosts: int, variant: int) -> list[int] | None:
    """``mcb_pack`` with the lists sorted by :func:`sorted_positions` and scanned forward: the
    host of every item, or ``None``."""
    lists = []
    for order in sorted_positions(c, m, variant):
        lists.append(_ScanList(order, [c[i] for i in order], [m[i] for i in order]))
    if not _fill(lists[0], lists[1], hosts, math.fsum(c), math.fsum(m)):
        return None
    out = [0] * len(c)
    for lst in lists:
        for i, h in zip(lst.order, lst.host):
            out[i] = h
    return out


def mcb_plain(instance: VCInstance, variant: int = 8, *, tol: float = 1e-4, grid: int = 32,
              grid_mode: str = "failure") -> Result:
    """MCB (seed 001 §3.4) on one-task jobs with the plain forms above and the production yield search."""
    t0 = time.perf_counter()
    assert not instance.is_parallel, "mcb_plain handles one-task jobs only"
    _check_options(variant, tol, grid, grid_mode)
    method = f"mcb{variant}"
    alpha, mem, hosts = instance.task_cpu.tolist(), instance.task_mem.tolist(), instance.hosts
    search = _YieldSearch(lambda y: pack_plain([a * y for a in alpha], mem, hosts, variant),
                          lambda placement: plain_placement_min_yield(hosts, placement, alpha))
    best, extra = _search(search, min(1.0, hosts / math.fsum(alpha)), tol, grid, grid_mode)
    t1 = time.perf_counter()
    if best is None:
        extra = dict(extra, seconds_first_phase=t1 - t0, avg_yield=None)
        return Result(method, Status.FAILED, None, None, None, None, t1 - t0, NO_PACKING, extra)
    cpu = plain_allocation_from_placement(instance, best)
    report = plain_check_allocation(instance, best, cpu)
    assert report.valid, report.violations
    extra = dict(extra, seconds_first_phase=t1 - t0, seconds_second_phase=time.perf_counter() - t1,
                 avg_yield=report.avg_yield)
    return Result(method, Status.FEASIBLE, report.min_yield, None, None,
                  Allocation(np.asarray(best, dtype=np.int64), np.asarray(cpu)), time.perf_counter() - t0, "", extra)


def plain_greedy_placement(instance: VCInstance, order: np.ndarray) -> tuple[np.ndarray | None, int]:
    """GR's first phase on tasks taken in ``order``, written plainly (the oracle of
    :func:`vcsched.problems.vc_greedy.least_loaded_placement`).

    Hosts are kept in a heap keyed by ``(load, host index)``; hosts whose
    memory cannot take the task are set aside and pushed back afterwards.

    Returns
    -------
    task_host : array of int or None
        ``None`` when some task fits on no host.
    attempts : int
        Number of (task, host) pairs examined (the unit of GB's bound).
    """
    H = instance.hosts
    tc = instance.task_cpu.tolist()
    tm = instance.task_mem.tolist()
    heap = [(0.0, j) for j in range(H)]
    mem = [0.0] * H
    host = [0] * len(tc)
    cap = 1.0 + MEM_EPS
    attempts = 0
    pop, push = heapq.heappop, heapq.heappush
    for k in order.tolist():
        m = tm[k]
        skipped = []
        while heap:
            load, j = pop(heap)
            attempts += 1
            if mem[j] + m <= cap:
                break
            skipped.append((load, j))
        else:
            return None, attempts
        mem[j] += m
        host[k] = j
        push(heap, (load + tc[k], j))
        for item in skipped:
            push(heap, item)
    return np.asarray(host, dtype=np.int64), attempts
