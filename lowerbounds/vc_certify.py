"""``certify``: the best VCSched allocation found and a proven bound, closing the gap when it can.

A composition (``docs/architecture.md``): the bounds are this package's
(:mod:`lowerbounds.vc_packing`); the allocations come from heuristics the
caller passes in (``heuristics``, ``starts``, ``improve``), so
``lowerbounds`` does not import ``heuristics``. The command line wires
MCB8, SG, GR and :func:`heuristics.vc.improve.improve_placement` in
(``vcsched vc solve inst.json --method certify``).

Seed 001 §2.5/§3.1: with ``L = 1 / Y``, yield ``Y`` is achievable iff the
tasks pack into ``H`` bins of capacity ``(L, 1)``; the optimum is the
smallest largest load ``L*`` and ``Y* = min(1, 1 / L*)``. Steps, cheapest
first; each stops the method as soon as the primal meets the bound:

1. memory alone: L2 (Martello-Toth) > H proves the instance infeasible;
2. load lower bound ``L_lo``: average load, largest task, pigeonhole
   (:func:`vcsched.problems.vc_metrics.load_lower_bound`) and the
   L2 makespan bound of Dell'Amico-Martello on the CPU sizes;
3. primal: the best placement of the ``heuristics``/``starts`` and the
   core greedy (when none fits, the compact MILP with half the time left,
   which may also prove infeasibility), then ``improve`` with
   ``target_load = L_lo (1 + stop_gap)``;
4. the configuration LP (column generation, safe rounding) first just
   below the incumbent's load ``L_inc / (1 + stop_gap)`` (a "no" there
   proves the gap ``<= stop_gap``), then a bisection between ``L_lo`` and
   the smallest load it failed to exclude. When no placement was found,
   the configuration LP on memory alone tries to prove infeasibility.

The bound reported is ``min(1, 1 / L_proven)`` with ``L_proven`` the
largest load proven infeasible (a load proven infeasible means ``L* > L``)
or ``L_lo``; it is never below the yield of any feasible allocation.
Status: ``optimal`` when the relative gap is ``<= gap_tol`` (default 1e-4,
HiGHS's own MIP tolerance), ``feasible`` with the gap otherwise,
``infeasible`` with a proof, ``time_limit`` when time ran out with no
placement and no proof, ``failed`` when no placement was found and the
memory could not be proven unpackable.

Choices where the issue leaves room: the incumbent is improved *before* the
expensive bound (the issue: "the primal side decides" on instances with
several jobs per host); the improvement gets at most ``improve_share`` of
the time left before the first configuration-LP test and again after it,
and whatever time the bisection leaves.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lowerbounds.vc_packing import (
    PackingItems,
    cheap_bins,
    configuration_lp,
    cpu_load_bound,
    memory_bins,
    packing_items,
)
from vcsched.errors import InvalidInputError
from vcsched.formulations.vc_milp import load_balancing_incumbent
from vcsched.problems.vc import (
    VCInstance,
    allocation_from_placement,
    check_allocation,
    host_loads,
    host_memory,
)
from vcsched.problems.vc_metrics import load_lower_bound
from vcsched.result import Result, Status, relative_gap

__all__ = ["certify", "DEFAULT_GAP_TOL"]

DEFAULT_GAP_TOL = 1e-4
"""Relative gap at which ``certify`` reports ``optimal`` (HiGHS's default MIP gap)."""

_MEM_FIT = 1 + 1e-12


def _validate(instance: Any, time_limit: float | None, gap_tol: float, improve_share: float) -> VCInstance:
    if not isinstance(instance, VCInstance):
        raise InvalidInputError(f"certify: `instance` must be a VCInstance, got {type(instance).__name__}")
    if instance.current_host is not None and instance.migration_budget is not None:
        raise InvalidInputError("certify: the instance has current hosts and a migration budget (§6.1); certify solves the "
                                "allocation without a budget; use --method milp for the budgeted problem, or drop "
                                "'migration_budget' from the file")
    if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
        raise InvalidInputError(f"certify: `time_limit` must be a positive number of seconds, got {time_limit}")
    if not (0 <= gap_tol < 1):
        raise InvalidInputError(f"certify: `gap_tol` must be in [0, 1), got {gap_tol}")
    if not (0 <= improve_share <= 1):
        raise InvalidInputError(f"certify: `improve_share` must be in [0, 1], got {improve_share}")
    return instance


def _fits(instance: VCInstance, task_host: Any) -> np.ndarray | None:
    """The placement as an int array when it is one of ``instance`` and fits memory, else None."""
    if task_host is None:
        return None
    th = np.asarray(task_host)
    if th.shape != (instance.n_tasks,) or not np.issubdtype(th.dtype, np.integer):
        return None
    if th.size and (th.min() < 0 or th.max() >= instance.hosts):
        return None
    if np.any(host_memory(instance, th) > _MEM_FIT):
        return None
    return th.astype(np.int64)


def _placement(start: Any) -> Any:
    """A placement from a Result (its Allocation's ``task_host``) or an array."""
    if isinstance(start, Result):
        sol = start.solution
        return getattr(sol, "task_host", None) if start.status.has_solution else None
    return start


def _host_columns(items: PackingItems, instance: VCInstance, task_host: np.ndarray) -> list[np.ndarray]:
    """Each host of a placement as a configuration (tasks per job type)."""
    counts = np.zeros((instance.hosts, instance.n_jobs))
    np.add.at(counts, (task_host, instance.task_job), 1.0)
    return [row for row in counts if row.any()]


class _Clock:
    def __init__(self, time_limit: float | None) -> None:
        self.t0 = time.perf_counter()
        self.deadline = None if time_limit is None else self.t0 + time_limit
        self.parts: dict[str, float] = {}

    def left(self) -> float:
        return math.inf if self.deadline is None else self.deadline - time.perf_counter()

    def add(self, part: str, since: float) -> None:
        self.parts[part] = self.parts.get(part, 0.0) + time.perf_counter() - since


def _proof_at(items: PackingItems, load: float, clock: _Clock, columns: list[np.ndarray], log: dict,
              share: float, cap: float) -> str | None:
    """Name of the bound that proves ``load`` infeasible (cheap L2 first, then the configuration LP), or None."""
    t = time.perf_counter()
    if cheap_bins(items, load) > items.hosts:
        clock.add("seconds_cheap_bounds", t)
        return "l2"
    clock.add("seconds_cheap_bounds", t)
    t = time.perf_counter()
    deadline = time.perf_counter() + min(cap, share * clock.left())
    proof = configuration_lp(items, load, deadline=deadline, start_columns=columns)
    clock.add("seconds_configuration_lp", t)
    log["lp_tests"] += 1
    log["lp_iterations"] += proof.iterations
    if not proof.complete:
        log["lp_incomplete"] += 1
    return "configuration-lp" if proof.infeasible else None


def certify(
    instance: VCInstance,
    *,
    heuristics: Sequence[Callable[..., Result]] = (),
    starts: Sequence[Any] = (),
    improve: Callable[..., tuple[np.ndarray, dict]] | None = None,
    time_limit: float | None = 60.0,
    gap_tol: float = DEFAULT_GAP_TOL,
    stop_gap: float | None = None,
    improve_share: float = 0.4,
    bisection_steps: int = 12,
    lp_share: float = 0.5,
    lp_test_limit: float = 10.0,
    rng=None,
    second_phase: bool = True,
) -> Result:
    """Best allocation and a proven upper bound on the minimum yield (seed 001 §2.5, §3.1, §5.1).

    Parameters
    ----------
    instance : VCInstance
        One-task or parallel jobs; current hosts are ignored, a migration
        budget is refused.
    heuristics : sequence of callables
        ``f(instance, rng=...) -> Result`` (e.g. ``REGISTRY.get("mcb8")``);
        run in order, their placements are candidate starts.
    starts : sequence of Result or placement arrays
        Already computed allocations (e.g. a heuristic's Result) to start
        from; ones that do not fit the instance are ignored.
    improve : callable, optional
        ``improve(instance, task_host, target_load=, time_limit=, rng=)``
        -> ``(task_host, stats)``, e.g.
        :func:`heuristics.vc.improve.improve_placement`.
    time_limit : float or None
        Seconds for the whole method (None: no limit).
    gap_tol : float
        Relative gap reported as ``optimal``.
    stop_gap : float, optional
        Stop as soon as the certified relative gap is ``<= stop_gap``
        (default ``gap_tol``); a gap above ``gap_tol`` is still reported
        ``feasible``. The command line's ``--gap``.
    improve_share : float
        Largest fraction of the time limit given to ``improve``.
    bisection_steps : int
        Configuration-LP tests at most in the bisection after the first.
    lp_share : float
        Largest fraction of the remaining time one configuration-LP test
        may take (a test stopped early proves nothing).
    lp_test_limit : float
        Seconds at most for one configuration-LP test.
    rng : int or Generator, optional
        Passed to the heuristics and to ``improve``.
    second_phase : bool
        Run the average-yield phase (§3.5) on the final placement.

    Returns
    -------
    Result
        ``method="certify"``; ``objective`` the checked minimum yield,
        ``bound`` the proven upper bound, ``gap``; ``extra``: ``closed_by``
        (``"load-bound"``, ``"cpu-l2"``, ``"l2"``, ``"configuration-lp"``,
        ``"memory-l2"``, ``"memory-configuration-lp"``, ``"milp"`` or ``"none"``), ``bound_lp`` (the §3.1
        closed form), ``bound_cheap`` (after steps 1-2), ``start_method``,
        ``start_yield``, ``improved_yield``, ``lp_tests``,
        ``lp_iterations``, ``lp_incomplete``, ``improve`` (counters), the
        yield of every heuristic (``yield_<name>``) and timings
        ``seconds_cheap_bounds``, ``seconds_heuristics``,
        ``seconds_improve``, ``seconds_configuration_lp``.
    """
    _validate(instance, time_limit, gap_tol, improve_share)
    stop_gap = gap_tol if stop_gap is None else float(stop_gap)
    if not (0 <= stop_gap <= 1):  # the range of `vcsched vc solve --gap`
        raise InvalidInputError(f"certify: stop_gap (--gap) must be in [0, 1], got {stop_gap}")
    stop_gap = max(stop_gap, gap_tol)
    clock = _Clock(time_limit)
    rng = np.random.default_rng(rng)  # one stream for every heuristic and improvement call
    items = packing_items(instance)
    H = instance.hosts
    log: dict[str, Any] = {"lp_tests": 0, "lp_iterations": 0, "lp_incomplete": 0}
    total_mem = float(np.dot(instance.tasks, instance.mem))
    total_cpu = float(np.dot(instance.tasks, instance.cpu))
    log["bound_lp"] = None if total_mem > H + 1e-12 else min(1.0, H / total_cpu)

    # 1. memory alone
    t = time.perf_counter()
    mem_bins = memory_bins(items)
    clock.add("seconds_cheap_bounds", t)
    if mem_bins > H:
        return _infeasible(clock, log, f"memory needs >= {mem_bins} hosts (Martello-Toth L2) > {H}", "memory-l2")

    # 2. cheap load bound
    t = time.perf_counter()
    load_lo = load_lower_bound(instance)
    l2_load = cpu_load_bound(items, load_lo, max(load_lo, float(instance.task_cpu.sum())))
    closed_by = "cpu-l2" if l2_load > load_lo else "load-bound"
    load_lo = max(load_lo, l2_load)
    clock.add("seconds_cheap_bounds", t)
    log["bound_cheap"] = min(1.0, 1.0 / load_lo)

    # 3. primal: heuristics, starts, core greedy
    t = time.perf_counter()
    candidates: list[tuple[str, Any]] = [(f"start{k}", _placement(s)) for k, s in enumerate(starts)]
    for fn in heuristics:
        if clock.left() <= 0:
            break
        res = fn(instance, rng=rng)
        name = getattr(fn, "__name__", "heuristic")
        log[f"yield_{name}"] = res.objective if res.status.has_solution else None
        candidates.append((name, _placement(res)))
    candidates.append(("greedy", load_balancing_incumbent(instance)))
    best_name, best, best_peak = None, None, math.inf
    for name, th in candidates:
        th = _fits(instance, th)
        if th is None:
            continue
        peak = float(host_loads(instance, th).max())
        if peak < best_peak - 1e-15:
            best_name, best, best_peak = name, th, peak
    clock.add("seconds_heuristics", t)
    if best is None:
        best, outcome = _exact_fallback(instance, clock, log)
        if best is None:
            return outcome if outcome is not None else _no_placement(items, clock, log)
        best_name, best_peak = "milp", float(host_loads(instance, best).max())
    log["start_method"] = best_name
    log["start_yield"] = min(1.0, 1.0 / best_peak)

    def met() -> bool:
        return best_peak <= load_lo * (1 + stop_gap) + 1e-15

    def run_improve(share: float) -> None:
        nonlocal best, best_peak
        if improve is None or met() or clock.left() <= 0:
            return
        t = time.perf_counter()
        budget = None if clock.deadline is None else max(clock.left() * share, 0.01)
        th, stats = improve(instance, best, target_load=load_lo * (1 + stop_gap), time_limit=budget, rng=rng)
        th = _fits(instance, th)
        if th is not None and float(host_loads(instance, th).max()) < best_peak:
            best, best_peak = th, float(host_loads(instance, th).max())
        for k, v in dict(stats).items():
            if k != "seconds" and isinstance(v, (int, float)):
                log.setdefault("improve", {})
                log["improve"][k] = log["improve"].get(k, 0) + v
        clock.add("seconds_improve", t)

    run_improve(improve_share)
    log["improved_yield"] = min(1.0, 1.0 / best_peak)

    # 4. configuration LP: just below the incumbent, then bisection
    if not met() and clock.left() > 0:
        columns = _host_columns(items, instance, best)
        probe = best_peak / (1 + stop_gap)
        how = _proof_at(items, probe, clock, columns, log, lp_share, lp_test_limit)
        if how is not None:
            load_lo, closed_by = probe, how
        else:
            run_improve(improve_share)  # the LP could not exclude the probe: maybe the primal can reach it
            hi = min(probe, best_peak / (1 + stop_gap))
            for _ in range(bisection_steps):
                if met() or clock.left() <= 0 or hi - load_lo <= stop_gap * load_lo:
                    break
                mid = 0.5 * (load_lo + hi)
                how = _proof_at(items, mid, clock, columns, log, lp_share, lp_test_limit)
                if how is not None:
                    load_lo, closed_by = mid, how
                else:
                    hi = mid
            run_improve(1.0)  # whatever time is left goes to the primal side
            if not met():
                closed_by = "none"
        log["improved_yield"] = min(1.0, 1.0 / best_peak)
    return _finish(instance, best, best_peak, load_lo, closed_by, gap_tol, stop_gap, clock, log, second_phase)


def _result(status: Status, clock: _Clock, log: dict, message: str, *, objective=None, bound=None, solution=None) -> Result:
    extra = dict(log)
    for part in ("seconds_cheap_bounds", "seconds_heuristics", "seconds_improve", "seconds_configuration_lp"):
        extra[part] = clock.parts.get(part, 0.0)
    return Result("certify", status, objective, bound, relative_gap(objective, bound), solution,
                  time.perf_counter() - clock.t0, message, extra)


def _infeasible(clock: _Clock, log: dict, message: str, closed_by: str) -> Result:
    log["closed_by"] = closed_by
    return _result(Status.INFEASIBLE, clock, log, message)


def _exact_fallback(instance: VCInstance, clock: _Clock, log: dict) -> tuple[np.ndarray | None, Result | None]:
    """No heuristic placed the tasks: the compact MILP (half the time left) as a primal,
    or its proof of infeasibility."""
    from vcsched.formulations.vc_milp import solve_vc_milp

    if clock.left() <= 0.05:
        return None, None
    t = time.perf_counter()
    res = solve_vc_milp(instance, time_limit=None if clock.deadline is None else max(0.05, 0.5 * clock.left()),
                        second_phase=False)
    clock.add("seconds_heuristics", t)
    if res.status is Status.INFEASIBLE:
        return None, _infeasible(clock, log, "the compact MILP proves that no placement fits memory", "milp")
    if res.status.has_solution:
        return _fits(instance, res.solution.task_host), None
    return None, None


def _no_placement(items: PackingItems, clock: _Clock, log: dict) -> Result:
    """No heuristic placed the tasks: try to prove that the memory cannot be packed."""
    t = time.perf_counter()
    proof = configuration_lp(items, None, deadline=clock.deadline)
    clock.add("seconds_configuration_lp", t)
    log["lp_tests"] += 1
    log["lp_iterations"] += proof.iterations
    if proof.infeasible:
        return _infeasible(clock, log, f"memory needs > {items.hosts} hosts (configuration LP bound "
                                       f"{proof.bins_lower:.6g})", "memory-configuration-lp")
    log["closed_by"] = "none"
    if clock.left() <= 0:
        return _result(Status.TIME_LIMIT, clock, log, "time limit: no placement found and no proof of infeasibility")
    return _result(Status.FAILED, clock, log, "no heuristic placed the tasks and the memory packing could not be "
                                              "proven infeasible")


def _finish(instance: VCInstance, task_host: np.ndarray, peak: float, load_lo: float, closed_by: str, gap_tol: float,
            stop_gap: float, clock: _Clock, log: dict, second_phase: bool) -> Result:
    alloc = allocation_from_placement(instance, task_host, second_phase=second_phase)
    report = check_allocation(instance, alloc)
    if not report.valid:
        log["closed_by"] = "none"
        return _result(Status.ERROR, clock, log, "allocation rejected by the checker: " + "; ".join(report.violations[:3]))
    objective = float(report.min_yield)
    bound = min(1.0, 1.0 / load_lo)
    if objective > bound:  # only rounding may put the checked yield above the proven bound
        if objective - bound > 1e-9:
            log["closed_by"] = "none"
            return _result(Status.ERROR, clock, log, f"internal error: yield {objective!r} above proven bound {bound!r}")
        bound = objective
    gap = relative_gap(objective, bound)
    log["closed_by"] = closed_by if gap is not None and gap <= stop_gap + 1e-12 else "none"
    log["avg_yield"] = report.avg_yield
    if gap is not None and gap <= gap_tol:
        status, message = Status.OPTIMAL, f"proven within relative gap {gap:.2g} by {closed_by}"
    else:
        status, message = Status.FEASIBLE, f"certified gap {gap:.3g} (bound {bound:.6g})"
    return _result(status, clock, log, message, objective=objective, bound=bound, solution=alloc)
