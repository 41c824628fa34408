"""Adaptation policies for VCSched under a dynamic workload (seed 001 §6.1 and beyond).

At every arrival or departure the engine (:func:`vcsched.sim.vcdynamic.simulate_dynamic`)
asks a policy for a new placement of the jobs in the system that moves at most
a budget ``B`` of memory (eq. 31, ``budget_mode="memory"``) or of tasks
(``"count"``). Seed 001 writes the exact MILP and leaves heuristics for it,
and the study of ``B``, to future work; these are ours:

``exact``
    The migration-budget MILP (eq. 22-31, compact form) with a time limit,
    then a second MILP that keeps the optimal largest load and minimises the
    memory (or tasks) moved (the first objective is indifferent to it). With
    ``B = inf`` the first stage is the static optimum (symmetry breaking on,
    hosts relabelled to keep as much memory in place as possible). An arriving job
    that no placement within the budget can hold is rejected; when HiGHS
    finds nothing in time, the policy falls back to ``none``.
``none``
    No migration (``B = 0``): jobs stay, a new job's tasks go one by one to
    the host where they raise the largest load the least (memory permitting);
    CPU is re-tuned.
``mcb8``
    Full re-optimisation with MCB8 (§3.4) on all jobs, hosts relabelled
    (Hungarian assignment) to keep as much memory in place as possible. Meant
    for ``B = inf``; under a finite budget its placement is used only when it
    fits the budget, else the policy acts as ``none``.
``mcb8-sticky``
    Start from ``none``'s placement; take MCB8's (relabelled) placement as a
    target; repeatedly move the task, among those whose target host differs,
    that best relieves a host at the current peak load (it must take load off
    a peak host without bringing its destination to that peak), cheapest
    first among equal gains, while the budget lasts. The minimum yield rises
    once every peak host is relieved; moves that relieve nothing are never made.
``local-search``
    Start from ``none``'s placement; while the budget lasts, take the most
    and the least loaded hosts and apply the best move of one task, or swap
    of two tasks, between them that lowers the larger of the two loads below
    the current peak; stop when no such move fits the budget.

A task of the arriving job has no current host: placing or moving it is free.
Migration costs are counted as the engine does: tasks of one job are
interchangeable, a job's moved tasks are ``sum_j max(0, n_ij - cur_ij)``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.names import vc as names
from vcsched.problems.vc import (
    Allocation,
    VCInstance,
    allocation_from_placement,
    check_allocation,
    host_loads,
    host_memory,
    per_host_sum,
)
from vcsched.problems.vc_limits import MAX_RELABEL_HOSTS
from vcsched.problems.vc_metrics import migration_cost
from vcsched.registry import Registry
from vcsched.result import Result, Status

__all__ = ["ADAPT_POLICIES", "make_policy", "stay_and_place_new", "relabel_to_keep", "Policy",
           "keep_in_budget", "adapt_once"]

ADAPT_POLICIES: Registry = Registry("adaptation policy", names.ADAPT_POLICIES)
EPS = 1e-12
"""Smallest decrease of the peak load that counts as an improvement."""

MEM_SLACK = 1e-9
"""Slack on a host's memory in the policies' moves: their per-host sums are updated move by
move, which drifts from a fresh sum by more than :data:`vcsched.problems.vc.MEM_EPS`."""

BUDGET_SLACK = 1e-9
"""Rounding slack when the memory (or tasks) moved is compared with the budget."""


class Policy:
    """A named adaptation policy: ``adapt(instance, budget) -> task_host | None``."""

    def __init__(self, name: str, fn: Callable, budget_mode: str = "memory", **options) -> None:
        if budget_mode not in ("memory", "count"):
            raise InvalidInputError(f"budget_mode must be 'memory' or 'count', got {budget_mode!r}")
        self.name = name
        self.budget_mode = budget_mode
        self._fn = fn
        self._options = options

    def adapt(self, instance: VCInstance, budget: float):
        return self._fn(instance, budget, self.budget_mode, **self._options)

    def __repr__(self) -> str:
        return f"Policy({self.name!r}, budget_mode={self.budget_mode!r})"


def make_policy(name: str, *, budget_mode: str = "memory", time_limit: float = 10.0) -> Policy:
    """The policy registered as ``name`` (``exact`` takes a MILP ``time_limit`` per event)."""
    fn = ADAPT_POLICIES.get(name)
    options = {"time_limit": time_limit} if name == "exact" else {}
    return Policy(name.lower(), fn, budget_mode, **options)


# --------------------------------------------------------------------------- helpers


class _Moves:
    """Current and new task counts per (job, host), with the exact migration cost."""

    def __init__(self, instance: VCInstance, task_host: np.ndarray, budget_mode: str) -> None:
        self.inst = instance
        J, H = instance.n_jobs, instance.hosts
        self.cur = np.zeros((J, H), dtype=np.int64)
        cur_th = instance.current_task_host()
        mask = cur_th >= 0
        np.add.at(self.cur, (instance.task_job[mask], cur_th[mask]), 1)
        self.has_cur = np.zeros(J, dtype=bool)
        self.has_cur[instance.task_job[mask]] = True
        self.weight = (instance.mem if budget_mode == "memory" else np.ones(J)) * self.has_cur
        self.new = np.zeros((J, H), dtype=np.int64)
        np.add.at(self.new, (instance.task_job, task_host), 1)
        self.task_host = task_host.copy()
        self.load = host_loads(instance, task_host)
        self.mem = host_memory(instance, task_host)

    def cost(self) -> float:
        return float(np.dot(np.maximum(self.new - self.cur, 0).sum(axis=1), self.weight))

    def delta_move(self, job: int, src: int, dst: int) -> float:
        """Change of the migration cost when one task of ``job`` goes from ``src`` to ``dst``."""
        n, c = self.new[job], self.cur[job]
        before = max(0, n[src] - c[src]) + max(0, n[dst] - c[dst])
        after = max(0, n[src] - 1 - c[src]) + max(0, n[dst] + 1 - c[dst])
        return float((after - before) * self.weight[job])

    def move(self, task: int, dst: int) -> None:
        inst = self.inst
        src = int(self.task_host[task])
        job = int(inst.task_job[task])
        self.new[job, src] -= 1
        self.new[job, dst] += 1
        c, m = inst.cpu[job], inst.mem[job]
        self.load[src] -= c
        self.load[dst] += c
        self.mem[src] -= m
        self.mem[dst] += m
        self.task_host[task] = dst


def stay_and_place_new(instance: VCInstance) -> np.ndarray | None:
    """Keep every placed task; put each task of a new job on the host that minimises
    its resulting load among those where its memory fits (lowest index on ties)."""
    th = instance.current_task_host()
    free = th < 0
    placed = ~free
    load = per_host_sum(th[placed], instance.task_cpu[placed], instance.hosts)
    mem = per_host_sum(th[placed], instance.task_mem[placed], instance.hosts)
    for k in np.flatnonzero(free):
        c, m = instance.task_cpu[k], instance.task_mem[k]
        fits = mem + m <= 1 + MEM_SLACK
        if not fits.any():
            return None
        j = int(np.argmin(np.where(fits, load, np.inf)))
        th[k] = j
        load[j] += c
        mem[j] += m
    return th


def relabel_to_keep(instance: VCInstance, task_host: np.ndarray, budget_mode: str) -> np.ndarray:
    """Rename the hosts of a placement (identical hosts) to keep the most memory (or tasks) in place."""
    from scipy.optimize import linear_sum_assignment  # imported here: scipy.optimize costs 0.2-0.4 s of start-up

    cur = instance.current_task_host()
    mask = cur >= 0
    if not mask.any():
        return task_host
    w = instance.task_mem if budget_mode == "memory" else np.ones(instance.n_tasks)
    keep = np.zeros((instance.hosts, instance.hosts))
    np.add.at(keep, (task_host[mask], cur[mask]), w[mask] + 1e-9)
    rows, cols = linear_sum_assignment(keep, maximize=True)
    mapping = np.empty(instance.hosts, dtype=np.int64)
    mapping[rows] = cols
    return mapping[task_host]


def _fits_budget(instance: VCInstance, task_host: np.ndarray, budget: float, budget_mode: str) -> bool:
    return _Moves(instance, task_host, budget_mode).cost() <= budget + BUDGET_SLACK


def _mcb8_target(instance: VCInstance, budget_mode: str) -> np.ndarray | None:
    from heuristics.vc.mcb import mcb

    res = mcb(instance.replace(current_host=None), 8)
    if not res.success:
        return None
    return relabel_to_keep(instance, res.solution.task_host, budget_mode)


# --------------------------------------------------------------------------- policies


@ADAPT_POLICIES.register("none")
def adapt_none(instance: VCInstance, budget: float, budget_mode: str = "memory") -> np.ndarray | None:
    """No migration: keep placed tasks, place the new job's tasks greedily (reject if they do not fit)."""
    return stay_and_place_new(instance)


@ADAPT_POLICIES.register("exact")
def adapt_exact(instance: VCInstance, budget: float, budget_mode: str = "memory", time_limit: float = 10.0):
    """The migration-budget MILP (eq. 22-31) with a time limit per event, then a second
    MILP stage that keeps the optimal largest load and moves as little as possible."""
    from vcsched.formulations.vc_milp import least_migration, solve_vc_milp  # PuLP only for this policy

    if math.isinf(budget):
        res = solve_vc_milp(instance.replace(current_host=None), time_limit=time_limit)
        if res.success:
            placement = relabel_to_keep(instance, res.solution.task_host, budget_mode)
            return least_migration(instance, placement, budget_mode=budget_mode, time_limit=time_limit)
    else:
        res = solve_vc_milp(instance, budget=budget, budget_mode=budget_mode, time_limit=time_limit)
        if res.success and budget <= 0:
            return res.solution.task_host  # nothing may move: no second stage
        if res.success:
            return least_migration(instance, res.solution.task_host, budget=budget, budget_mode=budget_mode,
                                   time_limit=time_limit)
    if res.status.value == "infeasible":
        return None
    return stay_and_place_new(instance)  # time limit without a solution: no migration


@ADAPT_POLICIES.register("mcb8")
def adapt_mcb8(instance: VCInstance, budget: float, budget_mode: str = "memory") -> np.ndarray | None:
    """Full re-optimisation with MCB8 when it fits the budget, else no migration."""
    target = _mcb8_target(instance, budget_mode)
    if target is not None and _fits_budget(instance, target, budget, budget_mode):
        return target
    return stay_and_place_new(instance)


def _peak_relief(moves: _Moves, task: int, dst: int, peak: float) -> float | None:
    """Load taken off a peak host by moving ``task`` to ``dst`` (None if the move relieves nothing)."""
    inst = moves.inst
    src = int(moves.task_host[task])
    if src == dst or moves.load[src] < peak - EPS:
        return None
    c, m = inst.task_cpu[task], inst.task_mem[task]
    if moves.mem[dst] + m > 1 + MEM_SLACK or moves.load[dst] + c >= peak - EPS:
        return None
    return float(c)


@ADAPT_POLICIES.register("mcb8-sticky")
def adapt_mcb8_sticky(instance: VCInstance, budget: float, budget_mode: str = "memory") -> np.ndarray | None:
    """MCB8 seeded with the current placement: move toward MCB8's placement only where it relieves the peak."""
    base = stay_and_place_new(instance)
    target = _mcb8_target(instance, budget_mode)
    if base is None:
        if target is not None and _fits_budget(instance, target, budget, budget_mode):
            return target
        return None
    if target is None:
        return base
    moves = _Moves(instance, base, budget_mode)
    spent = moves.cost()
    while True:
        peak = float(moves.load.max())
        if peak <= 1.0 + EPS:
            break
        best = None
        for task in np.flatnonzero(moves.task_host != target):
            dst = int(target[task])
            relief = _peak_relief(moves, int(task), dst, peak)
            if relief is None:
                continue
            job = int(instance.task_job[task])
            delta = moves.delta_move(job, int(moves.task_host[task]), dst)
            if spent + delta > budget + BUDGET_SLACK:
                continue
            key = (-relief, delta, int(task))
            if best is None or key < best[0]:
                best = (key, int(task), dst, delta)
        if best is None:
            break
        _, task, dst, delta = best
        moves.move(task, dst)
        spent += delta
    return moves.task_host


@ADAPT_POLICIES.register("local-search")
def adapt_local_search(instance: VCInstance, budget: float, budget_mode: str = "memory",
                       max_steps: int = 10_000) -> np.ndarray | None:
    """Budgeted local search: best move or swap between the most and the least loaded hosts."""
    base = stay_and_place_new(instance)
    if base is None:
        return None
    moves = _Moves(instance, base, budget_mode)
    spent = moves.cost()
    tc, tm, tj = instance.task_cpu, instance.task_mem, instance.task_job
    for _ in range(max_steps):
        hi, lo = int(np.argmax(moves.load)), int(np.argmin(moves.load))
        peak = float(moves.load[hi])
        if hi == lo or peak <= 1.0 + EPS:
            break
        on_hi = np.flatnonzero(moves.task_host == hi)
        on_lo = np.flatnonzero(moves.task_host == lo)
        best = None
        for t in on_hi:
            # move t: hi -> lo
            if moves.mem[lo] + tm[t] <= 1 + MEM_SLACK:
                new_peak = max(moves.load[hi] - tc[t], moves.load[lo] + tc[t])
                delta = moves.delta_move(int(tj[t]), hi, lo)
                if new_peak < peak - EPS and spent + delta <= budget + BUDGET_SLACK:
                    key = (new_peak, delta)
                    if best is None or key < best[0]:
                        best = (key, [(int(t), lo)], delta)
            for u in on_lo:  # swap t <-> u
                if tj[t] == tj[u]:
                    continue
                if moves.mem[lo] - tm[u] + tm[t] > 1 + MEM_SLACK or moves.mem[hi] - tm[t] + tm[u] > 1 + MEM_SLACK:
                    continue
                new_peak = max(moves.load[hi] - tc[t] + tc[u], moves.load[lo] + tc[t] - tc[u])
                if new_peak >= peak - EPS:
                    continue
                d1 = moves.delta_move(int(tj[t]), hi, lo)
                moves.move(int(t), lo)
                d2 = moves.delta_move(int(tj[u]), lo, hi)
                moves.move(int(t), hi)
                if spent + d1 + d2 <= budget + BUDGET_SLACK:
                    key = (new_peak, d1 + d2)
                    if best is None or key < best[0]:
                        best = (key, [(int(t), lo), (int(u), hi)], d1 + d2)
        if best is None:
            break
        for task, dst in best[1]:
            moves.move(task, dst)
        spent += best[2]
    return moves.task_host


# --------------------------------------------------------------------------- one-shot use on an instance

def _spent(cost: dict[str, float], budget_mode: str) -> float:
    return float(cost["migrated_memory"] if budget_mode == "memory" else cost["migrations"])


def keep_in_budget(instance: VCInstance, result: Result, budget_mode: str = "memory") -> Result:
    """A from-scratch heuristic's result on an instance with current hosts (seed 001 §6.1).

    Its hosts are relabelled (identical hosts, :func:`relabel_to_keep`, when ``hosts <=
    MAX_RELABEL_HOSTS``) to keep the most memory (or tasks) in place; ``migrations`` and
    ``migrated_memory`` are added to ``extra``; when the placement still moves more than
    ``instance.migration_budget`` (eq. 31, in memory or in tasks by ``budget_mode``) the result
    is ``failed`` without a solution: never a success that breaks the budget. Relabelling only
    renames hosts, so the yields are unchanged. Results without current hosts or without a
    solution pass through.
    """
    if instance.current_host is None or not result.status.has_solution:
        return result
    placement = np.asarray(result.solution.task_host)
    if instance.hosts <= MAX_RELABEL_HOSTS:
        placement = relabel_to_keep(instance, placement, budget_mode)
    cost = migration_cost(instance, placement)
    extra = dict(result.extra, **cost)
    budget = instance.migration_budget
    spent = _spent(cost, budget_mode)
    if budget is not None and spent > budget + BUDGET_SLACK:
        unit = "memory" if budget_mode == "memory" else "tasks"
        return result.replace(status=Status.FAILED, objective=None, solution=None, gap=None, extra=extra,
                              message=f"its placement (min yield {result.objective:.4g}) moves {spent:.4g} {unit} from "
                                      f"the current hosts, more than the migration budget {budget:.4g}; this heuristic "
                                      "places from scratch: use milp or an adapt-* method to respect the budget")
    solution = Allocation(placement, np.asarray(result.solution.task_cpu))
    return result.replace(solution=solution, extra=extra)


def adapt_once(instance: VCInstance, policy: str, budget_mode: str = "memory") -> Result:
    """One adaptation by ``policy`` (a name of :data:`ADAPT_POLICIES`) as a solve method: from the
    current placement, within ``instance.migration_budget`` (unbounded when absent), then the
    average-yield phase; ``failed`` when the policy finds no placement. The method is named
    ``adapt-<policy>``; ``extra`` holds ``avg_yield``, ``migrations`` and ``migrated_memory``."""
    t0 = time.perf_counter()
    budget = math.inf if instance.migration_budget is None else instance.migration_budget
    task_host = ADAPT_POLICIES.get(policy)(instance, budget, budget_mode)
    name = f"adapt-{policy}"
    if task_host is None:
        return Result(name, Status.FAILED, seconds=time.perf_counter() - t0,
                      message="no placement within the migration budget holds every job")
    alloc = allocation_from_placement(instance, task_host)
    report = check_allocation(instance, alloc)
    cost = migration_cost(instance, alloc.task_host)
    if not report.valid or (cost and _spent(cost, budget_mode) > budget + BUDGET_SLACK):  # pragma: no cover - a bug
        return Result(name, Status.FAILED, seconds=time.perf_counter() - t0,
                      message="the policy's placement breaks a constraint: " + "; ".join(report.violations[:2]))
    return Result(name, Status.FEASIBLE, objective=report.min_yield, solution=alloc, seconds=time.perf_counter() - t0,
                  extra={"avg_yield": report.avg_yield, **cost})
