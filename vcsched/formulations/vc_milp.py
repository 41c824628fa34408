"""Exact VCSched formulations as PuLP models solved by HiGHS (seed 001 §2.5, §5.1, §6.1).

Two formulations give the same optimum (tested):

``"literal"``
    The paper's MILP word for word: binaries ``e_ij`` (``e_ikj`` per task for
    parallel jobs), continuous CPU fractions ``alpha_ij`` and ``Y``,
    maximise ``Y`` (eq. 3-11; eq. 12-21 for parallel jobs; eq. 22-31 with a
    migration budget).

``"compact"`` (default)
    For a fixed placement the best minimum yield is ``min(1, 1/max_j L_j)``
    with ``L_j`` the CPU need placed on host ``j`` (give every task
    ``alpha_i Y``). So max-min yield is *minimise the largest host load*
    ``L``: no CPU variables, no ``Y``. Tasks of one job are identical, so a
    parallel job is an integer count ``n_ij`` of its tasks per host instead of
    ``T_i`` binaries per host. ``L`` gets the lower bound
    ``max(1, sum_i T_i alpha_i / H, max_i alpha_i)`` (the closed form of §3.1:
    when the optimum reaches it HiGHS stops at once), and identical hosts are
    made non-interchangeable: with one-task jobs sorted by decreasing size,
    job ``r`` may only use hosts ``0..r`` (any solution can be relabelled so);
    with parallel jobs, host loads are non-increasing. Symmetry breaking is
    off when a current placement matters (migration budget).

Both return a :class:`~vcsched.result.Result` whose ``objective`` is the
minimum yield of the allocation (checked), whose ``bound`` is the solver's
proven upper bound on the minimum yield and whose ``solution`` is an
:class:`~vcsched.problems.vc.Allocation` after the average-yield phase (§3.5).

Migration budget (§6.1, eq. 31): ``budget_mode="memory"`` bounds the memory
moved, ``sum_i m_i * (tasks of i that leave their host)``; ``"count"`` bounds
the number of moved tasks. Tasks of one job are interchangeable: in the
compact model the tasks that move are ``sum_j max(0, n_ij - cur_ij)``
(the best matching of old and new task positions); the literal model keeps
task identities (task ``k`` moves when its own host changes), which can
only count more.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pulp

from vcsched.formulations.solve import new_var, solve_model
from vcsched.problems.vc import (
    Allocation,
    VCInstance,
    allocation_from_placement,
    check_allocation,
    host_loads,
)
from vcsched.result import Result, Status, relative_gap

__all__ = ["solve_vc_milp", "build_compact_model", "build_literal_model", "average_yield_lp", "FORMULATIONS"]

FORMULATIONS = ("compact", "literal")
HIGHS_OPTIONS = {"mip_detect_symmetry": False}
"""The compact model breaks host symmetry itself; HiGHS's own detection then only costs time."""
STARTED_OPTIONS = {
    **HIGHS_OPTIONS,
    "mip_heuristic_run_feasibility_jump": False,
    "mip_heuristic_run_rins": False,
    "mip_heuristic_run_rens": False,
    "mip_heuristic_run_root_reduced_cost": False,
    "mip_allow_restart": False,
}
"""Options when a good start (the greedy placement) is handed to HiGHS on a small model: the
primal heuristics and the root restart then mostly repeat work, and the time goes to proving
the bound. Measured on the small set's instances that need branching (172 of them, 10-12
jobs): 0.033-0.040 s of CPU per solve instead of 0.053-0.057 s, with more nodes (8,734
instead of 5,920 in total). Large models keep HiGHS's defaults (see :data:`STARTED_MAX_VARS`)."""
STARTED_MAX_VARS = 2000
"""Largest number of integer variables (jobs x hosts) for which :data:`STARTED_OPTIONS` apply."""


def _highs_options(n_int_vars: int, has_start: bool) -> dict:
    """HiGHS options for the compact model (see :data:`STARTED_OPTIONS`)."""
    return STARTED_OPTIONS if has_start and n_int_vars <= STARTED_MAX_VARS else HIGHS_OPTIONS
BUDGET_MODES = ("memory", "count")


def _expr(pairs: list[tuple[Any, float]], constant: float = 0.0) -> pulp.LpAffineExpression:
    return pulp.LpAffineExpression(pairs, constant=constant)


def _budget(instance: VCInstance, budget: float | None) -> float | None:
    b = instance.migration_budget if budget is None else budget
    if b is None or instance.current_host is None or not np.isfinite(b):
        return None
    return float(b)


def _current_counts(instance: VCInstance) -> np.ndarray:
    """cur[i, j] = number of tasks of job i currently on host j (zeros for new jobs)."""
    cur = np.zeros((instance.n_jobs, instance.hosts), dtype=np.int64)
    th = instance.current_task_host()
    mask = th >= 0
    np.add.at(cur, (instance.task_job[mask], th[mask]), 1)
    return cur


def closed_form_load_bound(instance: VCInstance) -> float:
    """Lower bound on the largest host load ``L``.

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
    while k * H + 1 <= top.size:  # some host holds k + 1 of the k H + 1 largest tasks
        bound = max(bound, float(top[k * H - k : k * H + 1].sum()))
        k += 1
    return bound


def greedy_placement(instance: VCInstance) -> np.ndarray | None:
    """A quick incumbent for the MILP: tasks by decreasing CPU need (then by
    decreasing memory), each on the least loaded host where its memory fits;
    the better of the two orders. None when neither fits."""
    best, best_peak = None, np.inf
    cpu, mem = instance.task_cpu, instance.task_mem
    for order in (np.lexsort((-mem, -cpu)), np.lexsort((-cpu, -mem))):
        load = np.zeros(instance.hosts)
        used = np.zeros(instance.hosts)
        task_host = np.empty(instance.n_tasks, dtype=np.int64)
        for k in order:
            fits = used + mem[k] <= 1.0 + 1e-12
            if not fits.any():
                break
            j = int(np.argmin(np.where(fits, load, np.inf)))
            task_host[k] = j
            load[j] += cpu[k]
            used[j] += mem[k]
        else:
            if load.max() < best_peak:
                best, best_peak = task_host, load.max()
    return best


# --------------------------------------------------------------------------- compact


def build_compact_model(
    instance: VCInstance,
    *,
    relax: bool = False,
    budget: float | None = None,
    budget_mode: str = "memory",
    symmetry_breaking: bool = True,
) -> tuple[pulp.LpProblem, dict]:
    """Build the compact min-max-load model (see the module docstring).

    Returns the problem and a dict of variables: ``x`` (J x H array of
    variables or None where fixed to 0) and ``L``.
    """
    J, H = instance.n_jobs, instance.hosts
    cat = pulp.LpContinuous if relax else pulp.LpInteger
    prob = pulp.LpProblem("vcsched_compact", pulp.LpMinimize)
    lb = 1.0 if relax else closed_form_load_bound(instance)
    L = new_var("L", lb)
    b = _budget(instance, budget)
    use_symmetry = symmetry_breaking and not relax and b is None and instance.current_host is None
    sequential = not instance.is_parallel
    # host range allowed for each job: sorted by decreasing size, job of rank r uses hosts 0..r
    allowed = np.full(J, H, dtype=np.int64)
    if use_symmetry and sequential:
        order = np.lexsort((np.arange(J), -instance.mem, -instance.cpu))
        allowed[order] = np.minimum(np.arange(J) + 1, H)
    x = np.empty((J, H), dtype=object)
    for i in range(J):
        ub = int(instance.tasks[i])
        for j in range(H):
            x[i, j] = new_var(f"x_{i}_{j}", 0, ub, cat) if j < allowed[i] else None
    prob += _expr([(L, 1.0)])
    alpha, mem = instance.cpu, instance.mem
    for i in range(J):
        prob += _expr([(x[i, j], 1.0) for j in range(allowed[i])]) == int(instance.tasks[i]), f"assign_{i}"
    for j in range(H):
        rows = [i for i in range(J) if x[i, j] is not None]
        prob += _expr([(x[i, j], float(mem[i])) for i in rows if mem[i] > 0]) <= 1, f"mem_{j}"
        prob += _expr([(x[i, j], float(alpha[i])) for i in rows] + [(L, -1.0)]) <= 0, f"load_{j}"
    if use_symmetry and not sequential:
        for j in range(H - 1):
            prob += _expr([(x[i, j], float(alpha[i])) for i in range(J)] + [(x[i, j + 1], -float(alpha[i])) for i in range(J)]) >= 0, f"sym_{j}"
    if b is not None:
        _add_compact_budget(prob, instance, x, b, budget_mode, relax)
    variables = [L] + [v for v in x.ravel() if v is not None]
    if use_symmetry and sequential:
        rank = np.empty(J, dtype=np.int64)
        rank[order] = np.arange(J)
    else:
        rank = None
    if b is not None:
        variables = None  # the budget adds auxiliary variables: let PuLP collect them
    return prob, {"x": x, "L": L, "variables": variables, "rank": rank, "symmetry": use_symmetry}


def _add_compact_budget(prob, instance: VCInstance, x: np.ndarray, budget: float, mode: str, relax: bool) -> None:
    prob += migration_expression(prob, instance, x, mode) <= budget, "budget"


def migration_expression(prob, instance: VCInstance, x: np.ndarray, mode: str) -> pulp.LpAffineExpression:
    """Memory (``mode="memory"``, eq. 31) or number of tasks (``"count"``) that leave their host."""
    if mode not in BUDGET_MODES:
        raise ValueError(f"budget_mode must be one of {BUDGET_MODES}, got {mode!r}")
    cur = _current_counts(instance)
    weight = instance.mem if mode == "memory" else np.ones(instance.n_jobs)
    terms: list[tuple[Any, float]] = []
    constant = 0.0
    for i in range(instance.n_jobs):
        if instance.current_host is None or instance.current_host[i] is None or weight[i] == 0:
            continue
        if instance.tasks[i] == 1:
            # moved = 1 - x[i, cur]  (eq. 31 with e-bar the current host)
            j0 = int(np.flatnonzero(cur[i])[0])
            constant += weight[i]
            terms.append((x[i, j0], -float(weight[i])))
        else:
            for j in range(instance.hosts):
                mv = new_var(f"mv_{i}_{j}", 0)
                prob += _expr([(mv, 1.0), (x[i, j], -1.0)]) >= -int(cur[i, j]), f"move_{i}_{j}"
                terms.append((mv, float(weight[i])))
    return _expr(terms, constant)


def least_migration(
    instance: VCInstance,
    task_host: np.ndarray,
    *,
    budget: float | None = None,
    budget_mode: str = "memory",
    time_limit: float | None = None,
) -> np.ndarray:
    """Among placements whose largest load is at most that of ``task_host`` (and within
    the budget), one that moves the least memory (or tasks) from the current placement.

    A second stage for the adaptation MILP: the min-max-load objective is
    indifferent to migrations, so an optimum may move more than it needs. The
    given placement is the starting solution; it is returned unchanged when
    HiGHS finds nothing better within ``time_limit``.
    """
    if instance.current_host is None:
        return task_host
    peak = float(host_loads(instance, task_host).max())
    prob, var = build_compact_model(instance, symmetry_breaking=False)
    L = var["L"]
    L.upBound = max(peak, L.lowBound) + 1e-9
    cost = migration_expression(prob, instance, var["x"], budget_mode)
    if budget is not None and np.isfinite(budget):
        prob += cost <= budget, "budget"
    prob.setObjective(cost)
    start = compact_start(instance, var, task_host)
    out = solve_model(prob, time_limit=time_limit, start=start,
                      options=_highs_options(instance.n_jobs * instance.hosts, bool(start)))
    if not out.status.has_solution:
        return task_host
    candidate = _compact_placement(instance, var["x"])
    before = migration_cost(instance, task_host)
    after = migration_cost(instance, candidate)
    key = "migrated_memory" if budget_mode == "memory" else "migrations"
    if after[key] <= before[key] and host_loads(instance, candidate).max() <= peak + 1e-7:
        return candidate
    return task_host


def compact_start(instance: VCInstance, var: dict, task_host: np.ndarray) -> dict:
    """Starting values of the compact model's variables for a placement, with hosts
    relabelled to satisfy the symmetry-breaking constraints."""
    H = instance.hosts
    counts = np.zeros((instance.n_jobs, H), dtype=np.int64)
    np.add.at(counts, (instance.task_job, task_host), 1)
    loads = counts.T @ instance.cpu
    if var["symmetry"] and var["rank"] is not None:
        relabel = -np.ones(H, dtype=np.int64)
        nxt = 0
        for i in np.argsort(var["rank"]):
            j = int(np.flatnonzero(counts[i])[0])
            if relabel[j] < 0:
                relabel[j], nxt = nxt, nxt + 1
        relabel[relabel < 0] = np.arange(nxt, H)
    elif var["symmetry"]:
        relabel = np.empty(H, dtype=np.int64)
        relabel[np.argsort(-loads, kind="stable")] = np.arange(H)
    else:
        relabel = np.arange(H)
    new_counts = np.zeros_like(counts)
    new_counts[:, relabel] = counts
    x = var["x"]
    start = {var["L"]: float(loads.max())}
    for i, j in zip(*np.nonzero(new_counts)):
        if x[i, j] is None:
            return {}
        start[x[i, j]] = float(new_counts[i, j])
    return start


def _compact_placement(instance: VCInstance, x: np.ndarray) -> np.ndarray:
    """Flat task -> host array from the counts, keeping tasks on their current host when possible."""
    J, H = x.shape
    counts = np.zeros((J, H), dtype=np.int64)
    for i in range(J):
        for j in range(H):
            if x[i, j] is not None:
                counts[i, j] = int(round(x[i, j].varValue or 0.0))
    task_host = np.empty(instance.n_tasks, dtype=np.int64)
    cur_th = instance.current_task_host()
    offsets = instance.offsets
    for i in range(J):
        left = counts[i].copy()
        idx = range(offsets[i], offsets[i + 1])
        pending = []
        for k in idx:  # tasks that can stay
            h = cur_th[k]
            if h >= 0 and left[h] > 0:
                task_host[k] = h
                left[h] -= 1
            else:
                pending.append(k)
        hosts = np.repeat(np.arange(H), left)
        task_host[pending] = hosts[: len(pending)]
    return task_host


# --------------------------------------------------------------------------- literal


def build_literal_model(
    instance: VCInstance, *, relax: bool = False, budget: float | None = None, budget_mode: str = "memory"
) -> tuple[pulp.LpProblem, dict]:
    """The paper's MILP: eq. 3-11 (eq. 12-21 per task for parallel jobs, + eq. 31)."""
    H = instance.hosts
    K = instance.n_tasks
    cat = pulp.LpContinuous if relax else pulp.LpBinary
    prob = pulp.LpProblem("vcsched_literal", pulp.LpMaximize)
    Y = new_var("Y", 0)
    e = np.empty((K, H), dtype=object)
    a = np.empty((K, H), dtype=object)
    for k in range(K):
        for j in range(H):
            e[k, j] = new_var(f"e_{k}_{j}", 0, 1, cat)
            a[k, j] = new_var(f"a_{k}_{j}", 0, 1)
    prob += _expr([(Y, 1.0)])
    alpha_t, mem_t, job = instance.task_cpu, instance.task_mem, instance.task_job
    for k in range(K):
        for j in range(H):
            prob += _expr([(a[k, j], 1.0), (e[k, j], -1.0)]) <= 0, f"a_le_e_{k}_{j}"  # eq. 6
        prob += _expr([(e[k, j], 1.0) for j in range(H)]) == 1, f"assign_{k}"  # eq. 7
        prob += _expr([(a[k, j], 1.0) for j in range(H)]) <= float(alpha_t[k]), f"need_{k}"  # eq. 10
        prob += _expr([(a[k, j], 1.0 / float(alpha_t[k])) for j in range(H)] + [(Y, -1.0)]) >= 0, f"yield_{k}"  # eq. 11
    for j in range(H):
        prob += _expr([(a[k, j], 1.0) for k in range(K)]) <= 1, f"cpu_{j}"  # eq. 8
        prob += _expr([(e[k, j], float(mem_t[k])) for k in range(K) if mem_t[k] > 0]) <= 1, f"mem_{j}"  # eq. 9
    offsets = instance.offsets
    for i in range(instance.n_jobs):  # eq. 20: equal CPU for the tasks of one job
        first = offsets[i]
        for k in range(first + 1, offsets[i + 1]):
            prob += _expr([(a[k, j], 1.0) for j in range(H)] + [(a[first, j], -1.0) for j in range(H)]) == 0, f"equal_{k}"
    b = _budget(instance, budget)
    if b is not None:
        if budget_mode not in BUDGET_MODES:
            raise ValueError(f"budget_mode must be one of {BUDGET_MODES}, got {budget_mode!r}")
        cur = instance.current_task_host()
        terms = []
        for k in range(K):
            if cur[k] < 0:
                continue  # new job: e-bar = 1 everywhere, no cost
            w = float(mem_t[k]) if budget_mode == "memory" else 1.0
            terms += [(e[k, j], w) for j in range(H) if j != cur[k]]  # eq. 31
        prob += _expr(terms) <= b, "budget"
    del job
    return prob, {"e": e, "a": a, "Y": Y, "variables": [Y] + list(e.ravel()) + list(a.ravel())}


# --------------------------------------------------------------------------- solve


def solve_vc_milp(
    instance: VCInstance,
    *,
    formulation: str = "compact",
    time_limit: float | None = None,
    gap_rel: float | None = None,
    budget: float | None = None,
    budget_mode: str = "memory",
    second_phase: bool = True,
    symmetry_breaking: bool = True,
    threads: int | None = 1,
) -> Result:
    """Maximise the minimum yield exactly (seed 001 eq. 3-11, 12-21, 22-31).

    Parameters
    ----------
    instance : VCInstance
    formulation : {"compact", "literal"}
    time_limit : float, optional
        Seconds given to HiGHS; at the limit the status is ``feasible`` (with
        a solution and a gap) or ``time_limit`` (without).
    gap_rel : float, optional
        Relative MIP gap at which to stop.
    budget : float, optional
        Migration budget ``B`` (defaults to ``instance.migration_budget``);
        used only when the instance has current hosts.
    budget_mode : {"memory", "count"}
    second_phase : bool
        Apply the average-yield phase (§3.5) to the optimal placement.

    Returns
    -------
    Result
        ``objective`` = min yield, ``bound`` = proven upper bound on it,
        ``solution`` = :class:`Allocation`, ``extra`` with ``avg_yield``,
        ``migrated_memory`` and ``migrations`` when a current placement exists.
    """
    if formulation not in FORMULATIONS:
        raise ValueError(f"formulation must be one of {FORMULATIONS}, got {formulation!r}")
    if time_limit is not None and not (time_limit > 0 and np.isfinite(time_limit)):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit}")
    t0 = time.perf_counter()
    method = "milp" if formulation == "compact" else "milp-literal"
    start: dict = {}
    if formulation == "compact":
        prob, var = build_compact_model(instance, budget=budget, budget_mode=budget_mode, symmetry_breaking=symmetry_breaking)
        incumbent = greedy_placement(instance) if _budget(instance, budget) is None else None
        if incumbent is not None:
            peak = float(host_loads(instance, incumbent).max())
            if peak <= closed_form_load_bound(instance) + 1e-12:
                return _certified(instance, incumbent, t0, second_phase)
            start = compact_start(instance, var, incumbent)
    else:
        prob, var = build_literal_model(instance, budget=budget, budget_mode=budget_mode)
    build_seconds = time.perf_counter() - t0
    out = solve_model(prob, time_limit=time_limit, gap_rel=gap_rel, threads=threads, variables=var["variables"], start=start,
                      options=_highs_options(instance.n_jobs * instance.hosts, bool(start)) if formulation == "compact" else None)
    bound = None
    if out.bound is not None:
        bound = min(1.0, 1.0 / out.bound) if formulation == "compact" else min(1.0, out.bound)
    extra: dict[str, Any] = {"build_seconds": build_seconds, "solve_seconds": out.seconds, "formulation": formulation,
                             "nodes": out.nodes}
    if not out.status.has_solution:
        return Result(method, out.status, None, bound, None, None, time.perf_counter() - t0, out.message, extra)
    if formulation == "compact":
        task_host = _compact_placement(instance, var["x"])
    else:
        e = var["e"]
        task_host = np.array([int(np.argmax([v.varValue or 0.0 for v in row])) for row in e], dtype=np.int64)
    alloc = allocation_from_placement(instance, task_host, second_phase=second_phase)
    report = check_allocation(instance, alloc)
    if not report.valid:
        return Result(method, Status.ERROR, None, bound, None, None, time.perf_counter() - t0,
                      "solver solution rejected by the checker: " + "; ".join(report.violations[:3]), extra)
    extra["avg_yield"] = report.avg_yield
    extra.update(migration_cost(instance, task_host))
    objective = report.min_yield
    if bound is not None and out.status.value == "optimal":
        bound = max(bound, objective)
    return Result(method, out.status, objective, bound, relative_gap(objective, bound), alloc,
                  time.perf_counter() - t0, out.message, extra)


def _certified(instance: VCInstance, task_host: np.ndarray, t0: float, second_phase: bool) -> Result:
    """The greedy incumbent reaches the lower bound on the largest load: it is optimal."""
    alloc = allocation_from_placement(instance, task_host, second_phase=second_phase)
    report = check_allocation(instance, alloc)
    report.raise_if_invalid()
    bound = min(1.0, 1.0 / closed_form_load_bound(instance))
    return Result("milp", Status.OPTIMAL, report.min_yield, bound, relative_gap(report.min_yield, bound), alloc,
                  time.perf_counter() - t0, "greedy placement reaches the load lower bound (no branching needed)",
                  {"avg_yield": report.avg_yield, "formulation": "compact", "certified_by_bound": True})


def migration_cost(instance: VCInstance, task_host: np.ndarray) -> dict[str, float]:
    """Memory moved and number of moved tasks from the current placement (matching tasks of a job)."""
    if instance.current_host is None:
        return {}
    new = np.zeros((instance.n_jobs, instance.hosts), dtype=np.int64)
    np.add.at(new, (instance.task_job, task_host), 1)
    cur = _current_counts(instance)
    has_cur = np.array([ch is not None for ch in instance.current_host])
    moved = np.maximum(new - cur, 0).sum(axis=1) * has_cur
    return {"migrations": int(moved.sum()), "migrated_memory": float(np.dot(moved, instance.mem))}


def average_yield_lp(instance: VCInstance, task_host: np.ndarray, min_yield: float) -> np.ndarray:
    """Per-job CPU ``c_i`` maximising the average per-job yield for a fixed placement (§5.1).

    LP: max sum_i c_i / alpha_i  s.t.  sum_i n_ij c_i <= 1 (each host j),
    alpha_i Y <= c_i <= alpha_i.
    """
    J = instance.n_jobs
    alpha = instance.cpu
    n = np.zeros((J, instance.hosts), dtype=np.int64)
    np.add.at(n, (instance.task_job, task_host), 1)
    prob = pulp.LpProblem("average_yield", pulp.LpMaximize)
    c = [new_var(f"c_{i}", float(alpha[i] * min_yield), float(alpha[i])) for i in range(J)]
    prob += _expr([(c[i], 1.0 / float(alpha[i])) for i in range(J)])
    for j in range(instance.hosts):
        rows = np.flatnonzero(n[:, j])
        if rows.size:
            prob += _expr([(c[i], float(n[i, j])) for i in rows]) <= 1, f"cpu_{j}"
    out = solve_model(prob, mip=False, variables=c)
    if out.status.value != "optimal":
        return alpha * min_yield
    return np.array([min(max(v.varValue or 0.0, alpha[i] * min_yield), alpha[i]) for i, v in enumerate(c)])


def placement_of(result: Result) -> np.ndarray | None:
    sol = result.solution
    return None if not isinstance(sol, Allocation) else sol.task_host


__all__ += ["least_migration", "migration_expression", "migration_cost", "closed_form_load_bound", "placement_of", "host_loads"]
