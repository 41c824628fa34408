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

:func:`build_compact_model` and :func:`build_literal_model` return a
:class:`CompactModel` or a :class:`LiteralModel`, which answer the same
questions (:meth:`VCModel.min_yield`, :meth:`VCModel.job_host_values`,
:meth:`VCModel.placement`, :meth:`VCModel.start_values`), so callers never
look at a formulation's variables. :func:`solve_vc_milp` returns a
:class:`~vcsched.result.Result` whose ``objective`` is the minimum yield of
the allocation (checked), whose ``bound`` is the solver's proven upper bound
on the minimum yield and whose ``solution`` is an
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

import abc
import dataclasses
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pulp

from vcsched.errors import InvalidInputError
from vcsched.formulations.solve import new_var, solve_model
from vcsched.formulations.vc_starts import best_start, better_placement, load_balancing_incumbent
from vcsched.names.vc import BUDGET_MODES
from vcsched.problems.vc import (
    VCInstance,
    allocation_from_placement,
    check_allocation,
    host_loads,
)
from vcsched.problems.vc_metrics import current_counts, load_lower_bound, migration_cost
from vcsched.result import Result, Status, relative_gap

__all__ = [
    "solve_vc_milp",
    "build_compact_model",
    "build_literal_model",
    "VCModel",
    "CompactModel",
    "LiteralModel",
    "least_migration",
    "compact_migration_expression",
    "load_balancing_incumbent",
    "FORMULATIONS",
    "BUDGET_MODES",
]

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
"""Options when a good start (the incumbent placement) is handed to HiGHS on a small model: the
primal heuristics and the root restart then mostly repeat work, and the time goes to proving
the bound. Measured on the small set's instances that need branching (172 of them, 10-12
jobs): 0.033-0.040 s of CPU per solve instead of 0.053-0.057 s, with more nodes (8,734
instead of 5,920 in total). Large models keep HiGHS's defaults (see :data:`STARTED_MAX_VARS`)."""
STARTED_MAX_VARS = 2000
"""Largest number of integer variables (jobs x hosts) for which :data:`STARTED_OPTIONS` apply."""


def _expr(pairs: list[tuple[Any, float]], constant: float = 0.0) -> pulp.LpAffineExpression:
    return pulp.LpAffineExpression(pairs, constant=constant)


def _effective_budget(instance: VCInstance, budget: float | None) -> float | None:
    """The migration budget that applies: ``budget``, else the instance's; None when unbounded or irrelevant."""
    b = instance.migration_budget if budget is None else budget
    if b is None or instance.current_host is None or not np.isfinite(b):
        return None
    return float(b)


def _check_budget_mode(mode: str) -> None:
    if mode not in BUDGET_MODES:
        raise InvalidInputError(f"budget_mode must be one of {BUDGET_MODES}, got {mode!r}")


# --------------------------------------------------------------------------- models


@dataclasses.dataclass
class VCModel(abc.ABC):
    """A built VCSched model and the questions every formulation answers (an abstract base:
    :class:`CompactModel` and :class:`LiteralModel` implement them).

    Attributes
    ----------
    problem : pulp.LpProblem
    variables : list of pulp.LpVariable or None
        Every variable of the model in a fixed order (handed to the solver so
        PuLP does not collect them); ``None`` lets PuLP collect them.
    relaxed : bool
        Integrality dropped (the LP relaxation).
    """

    formulation: ClassVar[str] = ""
    problem: pulp.LpProblem
    variables: list | None
    relaxed: bool

    @abc.abstractmethod
    def min_yield(self, value: float) -> float:
        """The minimum yield that the solver's objective or bound ``value`` stands for."""

    @abc.abstractmethod
    def job_host_values(self, instance: VCInstance) -> np.ndarray:
        """``(J, H)`` array: tasks of job ``i`` on host ``j`` in the solution (fractional when relaxed)."""

    @abc.abstractmethod
    def placement(self, instance: VCInstance) -> np.ndarray:
        """Host of every task in the (integral) solution."""

    @abc.abstractmethod
    def start_values(self, instance: VCInstance, task_host: np.ndarray) -> dict:
        """Starting values of the variables for a placement (``{}`` when the model cannot express it)."""

    def highs_options(self, has_start: bool) -> dict | None:
        """Extra HiGHS options for this model."""
        return None


@dataclasses.dataclass
class CompactModel(VCModel):
    """The min-max-load model (module docstring): ``x[i, j]`` tasks of job ``i`` on host ``j``, load ``L``.

    ``x`` holds ``None`` where symmetry breaking fixes a count to 0; ``rank``
    is each one-task job's rank in the size order used for symmetry breaking
    (``None`` without it); ``symmetry`` says whether host symmetry is broken.
    """

    formulation: ClassVar[str] = "compact"
    x: np.ndarray = None
    L: pulp.LpVariable = None
    rank: np.ndarray | None = None
    symmetry: bool = False

    def min_yield(self, value: float) -> float:
        return min(1.0, 1.0 / value)

    def job_host_values(self, instance: VCInstance) -> np.ndarray:
        J, H = self.x.shape
        return np.array([[0.0 if self.x[i, j] is None else (self.x[i, j].varValue or 0.0) for j in range(H)]
                         for i in range(J)])

    def placement(self, instance: VCInstance) -> np.ndarray:
        """Flat task -> host array from the counts, keeping tasks on their current host when possible."""
        counts = np.rint(self.job_host_values(instance)).astype(np.int64)
        task_host = np.empty(instance.n_tasks, dtype=np.int64)
        cur_th = instance.current_task_host()
        offsets = instance.offsets
        H = counts.shape[1]
        for i in range(counts.shape[0]):
            left = counts[i].copy()
            pending = []
            for k in range(offsets[i], offsets[i + 1]):  # tasks that can stay
                h = cur_th[k]
                if h >= 0 and left[h] > 0:
                    task_host[k] = h
                    left[h] -= 1
                else:
                    pending.append(k)
            task_host[pending] = np.repeat(np.arange(H), left)[: len(pending)]
        return task_host

    def start_values(self, instance: VCInstance, task_host: np.ndarray) -> dict:
        """Counts of the placement, with hosts relabelled to satisfy the symmetry-breaking constraints."""
        H = instance.hosts
        counts = np.zeros((instance.n_jobs, H), dtype=np.int64)
        np.add.at(counts, (instance.task_job, task_host), 1)
        loads = counts.T @ instance.cpu
        if self.symmetry and self.rank is not None:
            relabel = -np.ones(H, dtype=np.int64)
            nxt = 0
            for i in np.argsort(self.rank):
                j = int(np.flatnonzero(counts[i])[0])
                if relabel[j] < 0:
                    relabel[j], nxt = nxt, nxt + 1
            relabel[relabel < 0] = np.arange(nxt, H)
        elif self.symmetry:
            relabel = np.empty(H, dtype=np.int64)
            relabel[np.argsort(-loads, kind="stable")] = np.arange(H)
        else:
            relabel = np.arange(H)
        new_counts = np.zeros_like(counts)
        new_counts[:, relabel] = counts
        start = {self.L: float(loads.max())}
        for i, j in zip(*np.nonzero(new_counts)):
            if self.x[i, j] is None:
                return {}
            start[self.x[i, j]] = float(new_counts[i, j])
        return start

    def highs_options(self, has_start: bool) -> dict:
        """:data:`STARTED_OPTIONS` with a start on a small model, else :data:`HIGHS_OPTIONS`."""
        return STARTED_OPTIONS if has_start and self.x.size <= STARTED_MAX_VARS else HIGHS_OPTIONS


@dataclasses.dataclass
class LiteralModel(VCModel):
    """The paper's model: ``e[k, j]`` task ``k`` on host ``j``, ``a[k, j]`` its CPU there, ``Y`` the min yield."""

    formulation: ClassVar[str] = "literal"
    e: np.ndarray = None
    a: np.ndarray = None
    Y: pulp.LpVariable = None

    def min_yield(self, value: float) -> float:
        return min(1.0, value)

    def job_host_values(self, instance: VCInstance) -> np.ndarray:
        ev = np.array([[v.varValue or 0.0 for v in row] for row in self.e])
        out = np.zeros((instance.n_jobs, instance.hosts))
        np.add.at(out, instance.task_job, ev)
        return out

    def placement(self, instance: VCInstance) -> np.ndarray:
        return np.array([int(np.argmax([v.varValue or 0.0 for v in row])) for row in self.e], dtype=np.int64)

    def start_values(self, instance: VCInstance, task_host: np.ndarray) -> dict:
        """``e`` of the placement, every task at ``alpha_k Y`` with ``Y`` the placement's best minimum yield."""
        y = min(1.0, 1.0 / float(host_loads(instance, task_host).max()))
        start = {self.Y: y}
        for k, j in enumerate(np.asarray(task_host, dtype=np.int64)):
            for h in range(instance.hosts):
                start[self.e[k, h]] = float(h == j)
                start[self.a[k, h]] = float(instance.task_cpu[k]) * y if h == j else 0.0
        return start


def build_compact_model(
    instance: VCInstance,
    *,
    relax: bool = False,
    budget: float | None = None,
    budget_mode: str = "memory",
    symmetry_breaking: bool = True,
) -> CompactModel:
    """Build the compact min-max-load model (see the module docstring).

    Examples
    --------
    >>> from vcsched.problems.vc import VCInstance
    >>> model = build_compact_model(VCInstance.from_arrays(2, [0.5, 0.5, 0.5], [0.2, 0.2, 0.2]))
    >>> model.formulation, model.x.shape, model.min_yield(1.25)
    ('compact', (3, 2), 0.8)
    """
    J, H = instance.n_jobs, instance.hosts
    cat = pulp.LpContinuous if relax else pulp.LpInteger
    prob = pulp.LpProblem("vcsched_compact", pulp.LpMinimize)
    L = new_var("L", 1.0 if relax else load_lower_bound(instance))
    b = _effective_budget(instance, budget)
    use_symmetry = symmetry_breaking and not relax and b is None and instance.current_host is None
    sequential = not instance.is_parallel
    # host range allowed for each job: sorted by decreasing size, job of rank r uses hosts 0..r
    allowed = np.full(J, H, dtype=np.int64)
    rank = None
    if use_symmetry and sequential:
        order = np.lexsort((np.arange(J), -instance.mem, -instance.cpu))
        allowed[order] = np.minimum(np.arange(J) + 1, H)
        rank = np.empty(J, dtype=np.int64)
        rank[order] = np.arange(J)
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
    model = CompactModel(prob, [L] + [v for v in x.ravel() if v is not None], relax, x=x, L=L, rank=rank,
                         symmetry=use_symmetry)
    if b is not None:
        prob += compact_migration_expression(model, instance, budget_mode) <= b, "budget"
        model.variables = None  # the budget adds auxiliary variables: let PuLP collect them
    return model


def compact_migration_expression(model: CompactModel, instance: VCInstance, mode: str) -> pulp.LpAffineExpression:
    """Memory (``mode="memory"``, eq. 31) or number of tasks (``"count"``) that leave their host.

    Adds the auxiliary variables and constraints it needs (parallel jobs) to
    ``model.problem``.
    """
    _check_budget_mode(mode)
    prob, x = model.problem, model.x
    cur = current_counts(instance)
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
    model = build_compact_model(instance, symmetry_breaking=False)
    model.L.upBound = max(peak, model.L.lowBound) + 1e-9
    cost = compact_migration_expression(model, instance, budget_mode)
    if budget is not None and np.isfinite(budget):
        model.problem += cost <= budget, "budget"
    model.problem.setObjective(cost)
    start = model.start_values(instance, task_host)
    out = solve_model(model.problem, time_limit=time_limit, start=start, options=model.highs_options(bool(start)))
    if not out.status.has_solution:
        return task_host
    candidate = model.placement(instance)
    before = migration_cost(instance, task_host)
    after = migration_cost(instance, candidate)
    key = "migrated_memory" if budget_mode == "memory" else "migrations"
    if after[key] <= before[key] and host_loads(instance, candidate).max() <= peak + 1e-7:
        return candidate
    return task_host


# --------------------------------------------------------------------------- literal


def build_literal_model(
    instance: VCInstance, *, relax: bool = False, budget: float | None = None, budget_mode: str = "memory"
) -> LiteralModel:
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
    alpha_t, mem_t = instance.task_cpu, instance.task_mem
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
    b = _effective_budget(instance, budget)
    if b is not None:
        _check_budget_mode(budget_mode)
        cur = instance.current_task_host()
        terms = []
        for k in range(K):
            if cur[k] < 0:
                continue  # new job: e-bar = 1 everywhere, no cost
            w = float(mem_t[k]) if budget_mode == "memory" else 1.0
            terms += [(e[k, j], w) for j in range(H) if j != cur[k]]  # eq. 31
        prob += _expr(terms) <= b, "budget"
    return LiteralModel(prob, [Y] + list(e.ravel()) + list(a.ravel()), relax, e=e, a=a, Y=Y)


# --------------------------------------------------------------------------- solve


def _build(instance: VCInstance, formulation: str, budget, budget_mode: str, symmetry_breaking: bool) -> VCModel:
    if formulation == "compact":
        return build_compact_model(instance, budget=budget, budget_mode=budget_mode, symmetry_breaking=symmetry_breaking)
    return build_literal_model(instance, budget=budget, budget_mode=budget_mode)


def _check_arguments(instance, formulation: str, time_limit: float | None, node_limit: int | None,
                     budget_mode: str, gap_rel: float | None, budget: float | None) -> None:
    """The arguments of :func:`solve_vc_milp`, checked whether or not the model uses them
    (``budget_mode='cpu'`` is refused also on an instance without current hosts)."""
    from vcsched import arguments

    arguments.of_type(instance, "instance", VCInstance)
    arguments.choice(budget_mode, "budget_mode", BUDGET_MODES)
    if gap_rel is not None:
        arguments.number(gap_rel, "gap_rel", low=0, high=1)
    if budget is not None and not (isinstance(budget, (int, float)) and budget == float("inf")):
        arguments.number(budget, "budget", low=0)
    if formulation not in FORMULATIONS:
        raise InvalidInputError(f"formulation must be one of {FORMULATIONS}, got {formulation!r}")
    if time_limit is not None and not (time_limit > 0 and np.isfinite(time_limit)):
        raise InvalidInputError(f"time_limit must be a positive number of seconds, got {time_limit}")
    if node_limit is not None and (isinstance(node_limit, bool) or not isinstance(node_limit, (int, np.integer))
                                   or node_limit < 1):
        raise InvalidInputError(f"node_limit must be a positive integer, got {node_limit!r}")


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
    starts: Sequence[Any] = (),
    node_limit: int | None = None,
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
    starts : sequence of placements or Results
        Allocations already found (e.g. the heuristics' Results): the best one that fits
        (memory, and the migration budget when there is one) starts HiGHS, and the result
        is never worse than it (at a time limit HiGHS may not have improved on it).
    node_limit : int, optional
        Branch-and-bound nodes at most (HiGHS ``mip_max_nodes``); reaching it is
        reported like a time limit. Unlike a time limit it does not depend on the
        machine's speed or load: with one thread, the same model gives the same result.

    Returns
    -------
    Result
        ``objective`` = min yield, ``bound`` = proven upper bound on it,
        ``solution`` = :class:`Allocation`, ``extra`` with ``avg_yield``,
        ``migrated_memory`` and ``migrations`` when a current placement exists.

    Notes
    -----
    Compact model without a migration budget: the
    :func:`load_balancing_incumbent` is computed first; when its largest load
    meets :func:`load_lower_bound` it is returned as proven optimal without
    calling HiGHS, otherwise it is handed to HiGHS as the starting solution.

    Examples
    --------
    >>> from vcsched.problems.vc import VCInstance
    >>> res = solve_vc_milp(VCInstance.from_arrays(2, [0.5, 0.5, 0.5], [0.2, 0.2, 0.2]))
    >>> res.status.value, res.objective
    ('optimal', 1.0)
    """
    _check_arguments(instance, formulation, time_limit, node_limit, budget_mode, gap_rel, budget)
    t0 = time.perf_counter()
    model = _build(instance, formulation, budget, budget_mode, symmetry_breaking)
    best = best_start(instance, starts, _effective_budget(instance, budget), budget_mode)
    if formulation == "compact" and _effective_budget(instance, budget) is None:
        incumbent = load_balancing_incumbent(instance)
        if incumbent is not None:
            if float(host_loads(instance, incumbent).max()) <= load_lower_bound(instance) + 1e-12:
                return _certified(instance, incumbent, t0, second_phase)
            best = better_placement(instance, best, incumbent)
    start = model.start_values(instance, best) if best is not None else {}
    build_seconds = time.perf_counter() - t0
    options = {**(model.highs_options(bool(start)) or {}), **({} if node_limit is None else {"mip_max_nodes": node_limit})}
    out = solve_model(model.problem, time_limit=time_limit, gap_rel=gap_rel, threads=threads, variables=model.variables,
                      start=start, options=options, describe=model.min_yield)
    extra: dict[str, Any] = {"build_seconds": build_seconds, "solve_seconds": out.seconds, "formulation": formulation,
                             "nodes": out.nodes}
    return _milp_result(instance, model, out, best, second_phase, extra, t0)


def _milp_result(instance: VCInstance, model: VCModel, out, best: np.ndarray | None, second_phase: bool,
                 extra: dict, t0: float) -> Result:
    """The Result of a solved model: its placement (or the start when better), checked, with its bound."""
    method = "milp" if extra["formulation"] == "compact" else "milp-literal"
    bound = None if out.bound is None else model.min_yield(out.bound)
    if not out.status.has_solution:
        return Result(method, out.status, None, bound, None, None, time.perf_counter() - t0, out.message, extra)
    task_host = better_placement(instance, model.placement(instance), best)
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
    """The incumbent reaches the lower bound on the largest load: it is optimal."""
    alloc = allocation_from_placement(instance, task_host, second_phase=second_phase)
    report = check_allocation(instance, alloc)
    report.raise_if_invalid()
    bound = min(1.0, 1.0 / load_lower_bound(instance))
    return Result("milp", Status.OPTIMAL, report.min_yield, bound, relative_gap(report.min_yield, bound), alloc,
                  time.perf_counter() - t0, "greedy placement reaches the load lower bound (no branching needed)",
                  {"avg_yield": report.avg_yield, "formulation": "compact", "certified_by_bound": True})
