"""The best clairvoyant placement of DIET requests (seed 004 §5-6): which SeD runs each request, and when.

The model
---------
An omniscient agent knows every submission and every request's actual work (:class:`lowerbounds.diet.DietInstance`:
the ``k``-th submitted request does ``cost x`` the run's ``k``-th noise factor, which is what the simulator gives
it when the SeDs accept the requests in submission order, as they do in the paper's experiments). For each
request it chooses a SeD CPU and a start time; the request's solve reaches that SeD no earlier than
:meth:`~lowerbounds.diet.DietInstance.earliest_start` (the hierarchy's latency and agent time, the client's
submit overhead and data transfer), computes ``work / speed`` on the CPU without sharing it, and its result is
back ``d_out`` later; a SeD never runs more jobs than CPUs (with at most ``cpus`` jobs, each runs at full speed
and interference does not apply), and a job on a SeD that leaves must end before it leaves. Every such schedule
can be played by the simulator: the agent holds each request (as the Task Scheduler's MA does) so that its solve
arrives when its CPU frees. A SeD Queue or Task Scheduler run (at most ``cpus`` solves per SeD) is one of these
schedules, so the best placement is a lower bound on them; Standard shares a SeD's CPUs among more jobs
(processor sharing), which a placement does not do and which can occasionally end a set of jobs earlier -- the
preemptive bounds of :mod:`lowerbounds.diet` hold for Standard too.

The search (:func:`best_placement`)
-----------------------------------
Depth-first branch and bound over semi-active schedules (each job starts at the later of its earliest start and
its CPU's previous end), built in non-decreasing start order so each schedule is generated once up to ties;
CPUs in the same state (speed, join, leave, free time) are tried once. Incumbent: list scheduling (requests in
submission order, each on the CPU where it ends first), improved by a local search (:func:`improve`: move a
request, or swap two, while the objective improves; a quarter of the time limit). Root bound: the larger of the preemptive bounds and the
slot-assignment bound :func:`slot_bound`; node bound: the partial objective plus every unplaced request's earliest
completion (and, for the makespan, the remaining work over the CPUs' free capacity). At the time limit the
status is ``feasible`` with the incumbent, the bound and the relative gap; ``optimal`` when the search ends.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np

from lowerbounds.diet.instance import DietInstance, timing
from lowerbounds.diet.quick import quick_bounds
from vcsched.errors import InvalidInputError
from vcsched.result import Status, relative_gap

__all__ = ["SLOT_MAX_TASKS", "MILP_MAX_TASKS", "PlacementResult", "improve", "best_placement", "greedy_placement", "slot_bound", "evaluate", "OBJECTIVES"]


OBJECTIVES = ("makespan", "mean_turnaround")
SLOT_MAX_TASKS = 100
MILP_MAX_TASKS = 100
"""Largest number of requests for the makespan MILP of :mod:`lowerbounds.diet.milp`."""
MILP_MIN_SECONDS = 0.5
"""The MILP is not started with less time than this left."""
"""Largest number of requests for :func:`slot_bound` (its assignment has ``n x CPUs x n`` costs)."""


@dataclasses.dataclass
class PlacementResult:
    """Outcome of :func:`best_placement` for one objective."""

    objective: str
    status: Status
    value: float | None
    bound: float
    gap: float | None
    seconds: float
    nodes: int
    placement: list[dict[str, Any]]
    message: str = ""



def evaluate(inst: DietInstance, ends: np.ndarray, objective: str) -> float:
    """Objective of computations ending at ``ends`` (results back ``d_out`` later)."""
    done = ends + inst.d_out
    if objective == "makespan":
        return float(np.max(done) - np.min(inst.submit))
    return float(np.mean(done - inst.submit))


def _rows(inst: DietInstance, starts: np.ndarray, cpus: list[int]) -> list[dict[str, Any]]:
    _, p, machines = timing(inst)
    out = []
    for j in range(inst.n):
        m = machines[cpus[j]]
        end = float(starts[j] + p[j, cpus[j]])
        out.append({"task": j, "sed": m.sed, "cpu": m.cpu, "arrive": float(starts[j]), "start": float(starts[j]),
                    "end": end, "done": end + float(inst.d_out[j])})
    return out


def greedy_placement(inst: DietInstance) -> tuple[np.ndarray, list[int]] | None:
    """List scheduling: requests in submission order, each on the CPU where it ends first (``None`` if some
    request fits on no CPU before it leaves)."""
    e, p, machines = timing(inst)
    free = np.full(len(machines), -math.inf)
    leave = np.array([m.leave for m in machines])
    starts, cpus = np.zeros(inst.n), []
    for j in range(inst.n):
        st = np.maximum(e[j], free)
        end = st + p[j]
        end[end > leave + 1e-9] = math.inf
        m = int(np.argmin(end))
        if not math.isfinite(end[m]):
            return None
        starts[j], free[m] = st[m], end[m]
        cpus.append(m)
    return starts, cpus


def _slot_costs(inst: DietInstance, by: str) -> np.ndarray:
    """Completion lower bound of ``j`` as the ``i``-th job (from 1) on CPU ``m`` (rows ``j``, columns ``(m, i)``).

    The CPUs of one class (same speed, join and leave: interchangeable) are numbered in the order of their
    first starts (``by="start"``) or of their first ends (``by="end"``). Their first jobs are distinct
    requests, so the ``k``-th CPU's first start is at least the ``k``-th smallest ``e[., m]`` (``A``), and its
    first end at least the ``k``-th smallest ``e[., m] + p[., m]`` (``F``). Then, ``P(q)`` being the sum of the
    ``q`` smallest ``p[., m]``: ``by="start"``: ``max(e[j, m], A + P(i - 1)) + p[j, m]``; ``by="end"``:
    ``max(e[j, m] + p[j, m], F)`` at position 1 and ``max(e[j, m], F + P(i - 2)) + p[j, m]`` after it."""
    e, p, machines = timing(inst)
    n = inst.n
    cols = []
    rank: dict[tuple, int] = {}
    for m, mach in enumerate(machines):
        key = (mach.speed, mach.join, mach.leave)
        k = min(rank.get(key, 0), n - 1)
        rank[key] = rank.get(key, 0) + 1
        prefix = np.concatenate([[0.0], np.cumsum(np.sort(p[:, m]))])
        first = float(np.sort(e[:, m] + p[:, m])[k]) if by == "end" else float(np.sort(e[:, m])[k])
        for i in range(1, n + 1):
            if by == "end":
                c = np.maximum(e[:, m] + p[:, m], first) if i == 1 else \
                    np.maximum(e[:, m], first + prefix[i - 2]) + p[:, m]
            else:
                c = np.maximum(e[:, m], first + prefix[i - 1]) + p[:, m]
            c[c > mach.leave + 1e-9] = math.inf
            cols.append(c)
    return np.array(cols).T


def slot_bound(inst: DietInstance, objective: str) -> float:
    """Lower bound on the best placement by assigning requests to (CPU, position) slots.

    Validity: in a placement, the ``i``-th job on CPU ``m`` ends no earlier than the slot cost of
    :func:`_slot_costs` (no request reaches ``m`` before ``e[., m]``, a CPU runs its jobs one after the other,
    each at least the smallest computing times there, and the numbering of interchangeable CPUs only
    relabels them). Every placement maps its requests one-to-one to slots, so the least total (a min-cost
    assignment) bounds the sum of ends, and the least largest cost (bisection over the cost values with a
    bipartite matching) bounds the last end. Both numberings give a bound; the larger is kept.
    """
    if inst.n == 0:
        return 0.0
    return max(_slot_value(inst, _slot_costs(inst, by), objective) for by in ("start", "end"))


def _slot_value(inst: DietInstance, cost: np.ndarray, objective: str) -> float:
    """Least assignment value of requests to slots of completion lower bounds ``cost``."""
    from scipy.optimize import linear_sum_assignment
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    if objective == "mean_turnaround":
        finite = np.where(np.isfinite(cost), cost, 1e18)
        rows, cols = linear_sum_assignment(finite)
        ends = finite[rows, cols]
        return float(np.mean(ends + inst.d_out[rows] - inst.submit[rows]))
    done = cost + inst.d_out[:, None]
    values = np.unique(done[np.isfinite(done)])
    lo, hi = 0, len(values) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        graph = csr_matrix((done <= values[mid]).astype(np.int8))
        matched = maximum_bipartite_matching(graph, perm_type="column")
        lo, hi = (lo, mid) if np.all(matched >= 0) else (mid + 1, hi)
    return float(values[lo] - np.min(inst.submit))


class _Search:
    """Depth-first branch and bound over semi-active placements built in start order (module docstring)."""

    def __init__(self, inst: DietInstance, objective: str, deadline: float, node_limit: int | None) -> None:
        self.inst, self.objective, self.deadline = inst, objective, deadline
        self.node_limit = math.inf if node_limit is None else node_limit
        self.e, self.p, machines = timing(inst)
        self.speed = np.array([m.speed for m in machines])
        self.key = [(m.speed, m.join, m.leave) for m in machines]
        self.leave = np.array([m.leave for m in machines])
        self.s0 = float(np.min(inst.submit))
        self.nodes = 0
        self.stopped = False
        self.best = math.inf
        self.best_plan: tuple[np.ndarray, list[int]] | None = None

    def _final(self, partial: float) -> float:
        """Objective of a complete placement from its running max of results back (makespan) or sum of
        turnarounds."""
        return partial - self.s0 if self.objective == "makespan" else partial / self.inst.n

    def _lower(self, free: np.ndarray, t_last: float, left: list[int], partial: float) -> float:
        if not left:
            return self._final(partial)
        st = np.maximum(np.maximum(self.e[left], free[None, :]), t_last)
        ends = st + self.p[left]
        ends[ends > self.leave[None, :] + 1e-9] = math.inf
        first = ends.min(axis=1) + self.inst.d_out[left]
        if self.objective == "makespan":
            return max(partial, float(first.max()), self._energy(free, t_last, left)) - self.s0
        return (partial + float(np.sum(first - self.inst.submit[left]))) / self.inst.n

    def _energy(self, free: np.ndarray, t_last: float, left: list[int]) -> float:
        """Earliest time the CPUs, from their free times, can have done the remaining work (at their speeds)."""
        work = float(np.sum(self.inst.work[left]))
        avail = np.maximum(np.maximum(free, t_last), self.e[left].min(axis=0))
        order = np.argsort(avail)
        a, v = avail[order], self.speed[order]
        done, rate = 0.0, 0.0
        for k in range(len(a)):
            nxt = a[k + 1] if k + 1 < len(a) else math.inf
            rate += v[k]
            if done + rate * (nxt - a[k]) >= work:
                return a[k] + (work - done) / rate + float(np.min(self.inst.d_out[left]))
            done += rate * (nxt - a[k])
        return math.inf

    def run(self, free, t_last, left, partial, starts, cpus) -> None:
        self.nodes += 1
        if not left:
            value = self._final(partial)
            if value < self.best - 1e-9:
                self.best, self.best_plan = value, (starts.copy(), list(cpus))
            return
        if self.nodes >= self.node_limit or (self.nodes % 256 == 0 and time.perf_counter() > self.deadline):
            self.stopped = True
        if self.stopped or self._lower(free, t_last, left, partial) >= self.best - 1e-9:
            return
        for st, j, m in self._children(free, t_last, left):
            old = free[m]
            free[m], starts[j], cpus[j] = st + self.p[j, m], st, m
            done = free[m] + self.inst.d_out[j]
            nxt = max(partial, done) if self.objective == "makespan" else partial + done - self.inst.submit[j]
            self.run(free, st, [k for k in left if k != j], nxt, starts, cpus)
            free[m] = old
            if self.stopped:
                return

    def _children(self, free, t_last, left):
        out = []
        for j in left:
            seen = set()
            for m in range(len(free)):
                sig = (self.key[m], free[m])
                if sig in seen:
                    continue
                seen.add(sig)
                st = max(self.e[j, m], free[m])
                if st >= t_last - 1e-12 and st + self.p[j, m] <= self.leave[m] + 1e-9:
                    out.append((st + self.p[j, m], st, j, m))
        out.sort()
        return [(st, j, m) for _, st, j, m in out]


def _lists(cpus: list[int], order: np.ndarray) -> dict[int, list[int]]:
    lists: dict[int, list[int]] = {}
    for j in np.argsort(order, kind="stable"):
        lists.setdefault(cpus[j], []).append(int(j))
    return lists


def _chain_ends(e: np.ndarray, p: np.ndarray, m: int, jobs: list[int], leave: float) -> list[float] | None:
    """Ends of ``jobs`` run in that order on CPU ``m`` as early as possible (``None`` past ``leave``)."""
    t, ends = -math.inf, []
    for j in jobs:
        t = max(e[j, m], t) + p[j, m]
        ends.append(t)
    return None if ends and ends[-1] > leave + 1e-9 else ends


def _summary(inst: DietInstance, jobs: list[int], ends: list[float]) -> tuple[float, float]:
    """(last result back, sum of turnarounds) of one CPU's jobs."""
    if not jobs:
        return -math.inf, 0.0
    done = [t + inst.d_out[j] for j, t in zip(jobs, ends)]
    return max(done), sum(d - inst.submit[j] for j, d in zip(jobs, done))


def _score(summ: np.ndarray, objective: str) -> tuple[float, float]:
    """Objective from per-CPU summaries; for the makespan, ties broken by the sum of squared CPU ends."""
    if objective == "makespan":
        last = summ[:, 0][np.isfinite(summ[:, 0])]
        return float(last.max()), float(np.sum(last ** 2))
    return float(summ[:, 1].sum()), 0.0


def improve(inst: DietInstance, cpus: list[int], starts: np.ndarray, objective: str, *,
            deadline: float = math.inf, max_rounds: int = 200) -> tuple[np.ndarray, list[int]]:
    """Local search from a placement: move one request to another CPU position, or swap two requests, while
    the objective improves (first improvement; at most ``max_rounds`` improvements, until ``deadline``).
    Returns starts and CPUs of a placement no worse than the one given."""
    e, p, machines = timing(inst)
    leave = [m.leave for m in machines]
    lists = _lists(cpus, starts)
    for m in range(len(machines)):
        lists.setdefault(m, [])
    ends = {m: _chain_ends(e, p, m, js, leave[m]) for m, js in lists.items()}
    summ = np.array([_summary(inst, lists[m], ends[m]) for m in range(len(machines))])
    best = _score(summ, objective)
    for _ in range(max_rounds):
        better = False
        for count, (a, b, new_a, new_b) in enumerate(_neighbours(lists)):
            if count % 512 == 0 and time.perf_counter() > deadline:
                break
            ea = _chain_ends(e, p, a, new_a, leave[a])
            eb = ea if a == b else _chain_ends(e, p, b, new_b, leave[b])
            if ea is None or eb is None:
                continue
            old_a, old_b = summ[a].copy(), summ[b].copy()
            summ[a], summ[b] = _summary(inst, new_a, ea), _summary(inst, new_b, eb)
            score = _score(summ, objective)
            if score[0] < best[0] - 1e-9 or (score[0] <= best[0] + 1e-12 and score[1] < best[1] - 1e-9):
                best, better = score, True
                lists[a], ends[a], lists[b], ends[b] = new_a, ea, new_b, eb
                break
            summ[a], summ[b] = old_a, old_b
        if not better:
            break
    out_cpus, out_starts = [0] * inst.n, np.zeros(inst.n)
    for m, js in lists.items():
        for j, t in zip(js, ends[m]):
            out_cpus[j], out_starts[j] = m, t - p[j, m]
    return out_starts, out_cpus


def _neighbours(lists: dict[int, list[int]]):
    """Moves (a request to another CPU and position) and swaps (two requests), as new lists of two CPUs."""
    cpus = sorted(lists)
    for a in cpus:
        for i, j in enumerate(lists[a]):
            rest = lists[a][:i] + lists[a][i + 1:]
            for b in cpus:
                target = rest if b == a else lists[b]
                for k in range(len(target) + 1):
                    new_b = target[:k] + [j] + target[k:]
                    if b == a:
                        if new_b != lists[a]:
                            yield a, a, new_b, new_b
                    else:
                        yield a, b, rest, new_b
    for a in cpus:
        for b in cpus:
            if b < a:
                continue
            for i, j in enumerate(lists[a]):
                for k, jj in enumerate(lists[b]):
                    if a == b and k <= i:
                        continue
                    new_a, new_b = list(lists[a]), list(lists[b])
                    if a == b:
                        new_a[i], new_a[k] = jj, j
                        yield a, a, new_a, new_a
                    else:
                        new_a[i], new_b[k] = jj, j
                        yield a, b, new_a, new_b


def best_placement(inst: DietInstance, objective: str, *, time_limit: float = 60.0,
                   root_bound: float | None = None, node_limit: int | None = None,
                   milp_node_limit: int | None = None, polish_rounds: int = 200) -> PlacementResult:
    """The best clairvoyant placement for ``objective`` (``makespan`` or ``mean_turnaround``), or the best
    found within ``time_limit`` seconds with a proven bound and gap (module docstring).

    For the makespan of up to ``MILP_MAX_TASKS`` requests, when the search has not finished in half the time,
    the position-indexed MILP (:mod:`lowerbounds.diet.milp`) gets the other half, started from the incumbent;
    the better placement and the larger bound are kept. ``node_limit`` and ``milp_node_limit``: stop the
    search and HiGHS's branch and bound after that many nodes as well, limits that do not depend on the
    machine, so a run is reproducible (``milp_node_limit=0``: no MILP); the local search then stops after
    ``polish_rounds`` improvements instead of a quarter of the time limit. ``root_bound``: a lower bound already known (e.g. the LP of :mod:`lowerbounds.diet.lp`); the
    root bound is the largest of it, the closed forms and :func:`slot_bound` (up to ``SLOT_MAX_TASKS`` requests).
    """
    if objective not in OBJECTIVES:
        raise InvalidInputError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    t0 = time.perf_counter()
    root = max(quick_bounds(inst)[objective], -math.inf if root_bound is None else root_bound)
    if inst.n <= SLOT_MAX_TASKS:
        root = max(root, slot_bound(inst, objective))
    greedy = greedy_placement(inst)
    if greedy is None:
        return PlacementResult(objective, Status.INFEASIBLE, None, root, None, time.perf_counter() - t0, 0, [],
                               "some request fits on no SeD before it leaves")
    milp = objective == "makespan" and inst.n <= MILP_MAX_TASKS and milp_node_limit != 0
    search = _Search(inst, objective, t0 + (time_limit / 2 if milp else time_limit), node_limit)
    # with a node limit (reproducible runs) the local search is bounded by its passes, not by the clock
    polish = t0 + time_limit if node_limit is not None else t0 + time_limit / 4  # the whole limit: a safety stop
    search.best_plan = greedy
    search.best = evaluate(inst, greedy[0] + search.p[np.arange(inst.n), greedy[1]], objective)
    if search.best > _closed(root):
        search.best_plan = improve(inst, greedy[1], greedy[0], objective, deadline=polish, max_rounds=polish_rounds)
        search.best = evaluate(inst, search.best_plan[0] + search.p[np.arange(inst.n), search.best_plan[1]],
                               objective)
    if time_limit > 0 and search.best > _closed(root):
        search.run(np.full(len(inst.machines), -math.inf), -math.inf, list(range(inst.n)), -math.inf
                   if objective == "makespan" else 0.0, np.zeros(inst.n), [0] * inst.n)
    (starts, cpus), value = search.best_plan, search.best
    proven = not search.stopped and (time_limit > 0 or value <= _closed(root))
    nodes, msg = search.nodes, ""
    remaining = t0 + time_limit - time.perf_counter()
    if not proven and milp and remaining > MILP_MIN_SECONDS:
        proven, value, root, starts, cpus, msg = _with_milp(inst, value, root, starts, cpus, remaining,
                                                                 milp_node_limit)
    bound = value if proven else min(root, value)
    status = Status.OPTIMAL if proven else Status.FEASIBLE
    if not proven:
        msg = (f"time or node limit reached (search: {nodes} nodes{msg}); best found, bound and gap reported")
    return PlacementResult(objective, status, value, bound, relative_gap(value, bound), time.perf_counter() - t0,
                           nodes, _rows(inst, starts, cpus), "" if proven else msg)


def _closed(root: float) -> float:
    return root * (1 + 1e-9) + 1e-9


def _semi_active(inst: DietInstance, cpus: list[int], order: np.ndarray) -> np.ndarray:
    """Starts of the placement ``cpus`` when each CPU runs its jobs in ``order`` as early as possible."""
    e, p, _ = timing(inst)
    free: dict[int, float] = {}
    starts = np.zeros(inst.n)
    for j in np.argsort(order, kind="stable"):
        m = cpus[j]
        starts[j] = max(e[j, m], free.get(m, -math.inf))
        free[m] = starts[j] + p[j, m]
    return starts


def _with_milp(inst, value, root, starts, cpus, seconds, node_limit):
    """Run the makespan MILP from the incumbent; the better placement and the larger bound."""
    from lowerbounds.diet.milp import makespan_milp

    position: dict[int, list[int]] = {}
    for j in np.argsort(starts, kind="stable"):
        position.setdefault(cpus[j], []).append(int(j))
    start = [(j, m, k) for m, js in position.items() for k, j in enumerate(js)]
    out, found = makespan_milp(inst, value, time_limit=seconds, start=start, node_limit=node_limit)
    s0 = float(np.min(inst.submit))
    if out.bound is not None and math.isfinite(out.bound):
        root = max(root, out.bound - s0)
    if found is not None:
        new_cpus = [0] * inst.n
        order = np.zeros(inst.n)
        for j, m, st in found:
            new_cpus[j], order[j] = m, st
        new_starts = _semi_active(inst, new_cpus, order)
        e, p, _ = timing(inst)
        new_value = evaluate(inst, new_starts + p[np.arange(inst.n), new_cpus], "makespan")
        if new_value < value - 1e-9:
            value, starts, cpus = new_value, new_starts, new_cpus
    proven = value <= _closed(root) or (out.status == Status.OPTIMAL and value <= (out.objective - s0) + 1e-6)
    return proven, value, root, starts, cpus, f"; MILP: {out.status}, {out.nodes} nodes"
