"""``certify``: the best VCSched allocation found and a proven bound, closing the gap when it can.

A composition (docs/architecture.md): the bounds are this package's
(:mod:`lowerbounds.vc.packing`); the allocations come from heuristics the
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
   core greedy (:func:`~vcsched.formulations.vc_starts.load_balancing_incumbent`,
   ``O((T + H) log H)``); when none fits, the configuration LP on memory alone
   with half the time left (a proof that memory cannot be packed, or columns:
   the restricted integer master over them looks for a memory packing), then
   the compact MILP with half the time left, which may also prove
   infeasibility), then ``improve`` with
   ``target_load = L_lo (1 + stop_gap)``;
4. the configuration LP (column generation, safe rounding) first just
   below the incumbent's load ``L_inc / (1 + stop_gap)`` (a "no" there
   proves the gap ``<= stop_gap``), then a bisection between ``L_lo`` and
   the smallest load it failed to exclude;
5. price-and-dive, the primal side of step 4: at the least load ``L`` a
   configuration-LP test could not exclude (it ran to the end without a
   proof), a dive in the configuration LP
   (:mod:`lowerbounds.vc.dive`, warm-started with the columns the LP tests
   generated and the placements' hosts) looks for a packing at ``L``; when
   a dive fails, the next aims halfway (geometrically) between the least
   failed load and the incumbent's. A packing is re-checked (memory by the
   checker's rule, the largest load recomputed) and becomes the incumbent
   if it lowers the load; the bisection then resumes just below it. After a
   dive that ran out of its time, there is no other (the next would get
   less: the rest goes to the improvement and the LP tests).
   Optionally (``integer_master_share > 0``; off by default: it kept no
   packing in 30 runs on the open 64 x 250 instances of the large set,
   where the dive found them), whenever an LP test ends with the master's
   value ``<= H``, the restricted integer master
   (:mod:`lowerbounds.vc.integer_master`) over the same columns looks for
   a packing at that load (price-and-branch).

The bound reported is ``min(1, 1 / L_proven)`` with ``L_proven`` the
largest load proven infeasible (a load proven infeasible means ``L* > L``)
or ``L_lo``; it is never below the yield of any feasible allocation.
Status: ``optimal`` when the relative gap is ``<= gap_tol`` (default 1e-4,
HiGHS's own MIP tolerance), ``feasible`` with the gap otherwise,
``infeasible`` with a proof, ``time_limit`` when time ran out with no
placement and no proof, ``failed`` when no placement was found and the
memory could not be proven unpackable.

Choices: the incumbent is improved *before* the expensive bound (on
instances with several jobs per host the primal side decides); the
improvement gets at most ``improve_share`` of the time left before the
first configuration-LP test and again after it. While the gap is open and
time is left, the method then alternates: a dive while one has a target
(with at most ``dive_share`` of the time left), the improvement with the
time left (half of it while a dive or an LP test is pending; restarted
with the same random stream, so a longer limit can only find more), and,
when a configuration-LP test stopped at its cap, the bisection again with
the cap doubled. It stops early only when the gap is closed, when neither
side has anything left to try (no LP test was cut short, no dive target
is left and the improvement tried nothing), or, without a time limit,
after one last improvement. No step is given time beyond the
limit; the steps that cannot be interrupted (a heuristic, a configuration
LP's pricing round, the final checks) may overrun it by their own length.

Memory: every structure is linear in the tasks, the hosts and the job
types (the placements' hosts enter the configuration LP as sparse
columns), plus the configuration LPs' columns (sparse, kept for the dive
and the integer master) and the dive's master (the same columns and those
it generates).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lowerbounds.vc.certification_run import TIMINGS, Clock, Run, fits, host_columns
from lowerbounds.vc.integer_master import placement_from_configurations, solve_integer_master
from lowerbounds.vc.options import DEFAULT_GAP_TOL, CertifyOptions
from lowerbounds.vc.packing import configuration_lp, cpu_load_bound, memory_bins, packing_items
from vcsched.errors import InvalidInputError
from vcsched.formulations.vc_starts import load_balancing_incumbent
from vcsched.problems.vc import VCInstance, allocation_from_placement, check_allocation
from vcsched.problems.vc_metrics import closed_form_yield, load_lower_bound
from vcsched.result import Result, Status, relative_gap

__all__ = ["certify", "CertifyOptions", "DEFAULT_GAP_TOL"]



def _validate(instance: Any, time_limit: float | None, gap_tol: float, stop_gap: float | None,
              options: CertifyOptions) -> float:
    """Check the arguments; return the stop gap (``>= gap_tol``)."""
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
    if not (0 <= options.improve_share <= 1):
        raise InvalidInputError(f"certify: `improve_share` must be in [0, 1], got {options.improve_share}")
    for name in ("integer_master_share", "dive_share", "closing_dive_share"):
        if not (0 <= getattr(options, name) <= 1):
            raise InvalidInputError(f"certify: `{name}` must be in [0, 1], got {getattr(options, name)}")
    stop = gap_tol if stop_gap is None else float(stop_gap)
    if not (0 <= stop <= 1):  # the range of `vcsched vc solve --gap`
        raise InvalidInputError(f"certify: stop_gap (--gap) must be in [0, 1], got {stop}")
    return max(stop, gap_tol)


def _placement(start: Any) -> Any:
    """A placement from a Result (its Allocation's ``task_host``) or an array."""
    if isinstance(start, Result):
        sol = start.solution
        return getattr(sol, "task_host", None) if start.status.has_solution else None
    return start


def _dive_target(run: Run, hi_done: float) -> float | None:
    """Where to dive next: the least load the configuration LP could not exclude (``hi_done``),
    or, once a dive failed at or below it, halfway (geometrically) between the least failed load
    and the incumbent's; None when that would lower the incumbent's load by less than a quarter
    of the stop gap, or once a dive ran out of its time (a later one would get less)."""
    if run.dive_stopped:
        return None
    target = hi_done if hi_done < run.dive_failed else math.sqrt(run.dive_failed * run.best_peak)
    return target if math.isfinite(target) and target * (1 + 0.25 * run.stop_gap) < run.best_peak else None


def certify(
    instance: VCInstance,
    *,
    heuristics: Sequence[Callable[..., Result]] = (),
    starts: Sequence[Any] = (),
    improve: Callable[..., tuple[np.ndarray, dict]] | None = None,
    time_limit: float | None = 60.0,
    gap_tol: float = DEFAULT_GAP_TOL,
    stop_gap: float | None = None,
    rng=None,
    options: CertifyOptions | None = None,
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
    rng : int or Generator, optional
        Passed to the heuristics and to ``improve``.
    options : CertifyOptions, optional
        How the time is shared, the average-yield phase, the clock.

    Returns
    -------
    Result
        ``method="certify"``; ``objective`` the checked minimum yield,
        ``bound`` the proven upper bound, ``gap``; ``extra``: ``closed_by``
        (``"load-bound"``, ``"cpu-l2"``, ``"l2"``, ``"configuration-lp"``,
        ``"memory-l2"``, ``"memory-configuration-lp"``, ``"milp"`` or ``"none"``), ``bound_lp`` (the §3.1
        closed form), ``bound_cheap`` (after steps 1-2), ``start_method``,
        ``start_yield``, ``improved_yield``, ``lp_tests``,
        ``lp_iterations``, ``lp_incomplete``, ``improve`` (counters),
        ``incumbent_method`` (the step that found the final allocation: a
        start's or heuristic's name, ``"greedy"``, ``"milp"``, ``"improve"``,
        ``"dive"`` or ``"integer-master"``), ``dive`` (counters, when one
        ran: ``tries``, ``found``, ``not_better``, ``failed``,
        ``time_limit``), ``integer_master`` (counters, when it
        ran: ``tests``, ``found``, ``not_better``, ``infeasible``,
        ``time_limit``, ``not-run``), the
        yield of every heuristic (``yield_<name>``) and timings
        ``seconds_cheap_bounds``, ``seconds_heuristics``,
        ``seconds_improve``, ``seconds_configuration_lp``,
        ``seconds_integer_master``, ``seconds_dive``.
    """
    options = options or CertifyOptions()
    stop = _validate(instance, time_limit, gap_tol, stop_gap, options)
    run = Run(instance, packing_items(instance), Clock(time_limit, options.now), options, stop, improve,
               np.random.default_rng(rng),  # one stream for every heuristic and improvement call
               {"lp_tests": 0, "lp_iterations": 0, "lp_incomplete": 0})
    early = _cheap_bounds(run) or _primal(run, heuristics, starts)
    if early is not None:
        return early
    run.improve_for(options.improve_share)
    run.log["improved_yield"] = min(1.0, 1.0 / run.best_peak)
    if not run.met() and run.clock.left() > 0:
        _close(run)
        run.log["improved_yield"] = min(1.0, 1.0 / run.best_peak)
    return _finish(run, gap_tol)


def _cheap_bounds(run: Run) -> Result | None:
    """Steps 1-2: memory L2 (an infeasibility proof, returned) and the load lower bound."""
    instance, clock, H = run.instance, run.clock, run.instance.hosts
    run.log["bound_lp"] = closed_form_yield(instance)
    t = clock.now()
    mem_bins = memory_bins(run.items)
    clock.add("seconds_cheap_bounds", t)
    if mem_bins > H:
        return _infeasible(run, f"memory needs >= {mem_bins} hosts (Martello-Toth L2) > {H}", "memory-l2")
    t = clock.now()
    load_lo = load_lower_bound(instance)
    l2_load = cpu_load_bound(run.items, load_lo, max(load_lo, float(instance.task_cpu.sum())))
    run.closed_by = "cpu-l2" if l2_load > load_lo else "load-bound"
    run.load_lo = max(load_lo, l2_load)
    clock.add("seconds_cheap_bounds", t)
    run.log["bound_cheap"] = min(1.0, 1.0 / run.load_lo)
    return None


def _primal(run: Run, heuristics: Sequence[Callable[..., Result]], starts: Sequence[Any]) -> Result | None:
    """Step 3: the best of the starts, the heuristics and the core greedy (the compact MILP when
    none fits); a Result when no placement was found, else None."""
    instance, clock, log = run.instance, run.clock, run.log
    t = clock.now()
    candidates: list[tuple[str, Any]] = [(f"start{k}", _placement(s)) for k, s in enumerate(starts)]
    for fn in heuristics:
        if clock.left() <= 0:
            break
        res = fn(instance, rng=run.rng)
        name = getattr(fn, "__name__", "heuristic")
        log[f"yield_{name}"] = res.objective if res.status.has_solution else None
        candidates.append((name, _placement(res)))
    candidates.append(("greedy", load_balancing_incumbent(instance)))
    for name, th in candidates:
        fit = fits(instance, th)
        if fit is not None and run.options.integer_master_share > 0:
            run.pool.extend(host_columns(instance, fit))
        if run.offer(th, name):
            log["start_method"] = name
    clock.add("seconds_heuristics", t)
    if run.best is None:
        outcome = _memory_packing(run)
        if outcome is not None:
            return outcome
    if run.best is None:
        th, outcome = _exact_fallback(run)
        if outcome is not None:
            return outcome
        if not run.offer(th, "milp"):
            return _no_placement(run)
        log["start_method"] = "milp"
    log["start_yield"] = min(1.0, 1.0 / run.best_peak)
    return None


def _close(run: Run) -> None:
    """Step 4: the configuration LP just below the incumbent, the bisection, then the time left
    shared between the improvement and, when a test was cut short, the bisection again with the
    cap doubled."""
    options, stop = run.options, run.stop_gap
    probe = run.best_peak / (1 + stop)
    how, complete = run.prove(probe, options.lp_test_limit)
    if how is not None:
        run.load_lo, run.closed_by = probe, how
        return
    run.improve_for(options.improve_share)  # the LP could not exclude the probe: maybe the primal can reach it
    hi = min(probe, run.best_peak / (1 + stop))  # below the probe when the primal side lowered the peak
    hi_done, cut = math.inf, False
    if options.closing_test_first and complete and options.dive_share > 0:
        hi_done, cut = _bisect(run, run.load_lo * (1 + stop), options.lp_test_limit, probe_first=True)
    if math.isinf(hi_done):  # the closing load was excluded, or not tested: bisect down from the probe
        hi, more_cut = min(hi, run.best_peak / (1 + stop)), cut
        hi_done, cut = _bisect(run, hi, options.lp_test_limit, probe_first=hi < probe)
        cut = cut or more_cut
    hi_done, cut = (min(hi_done, probe) if complete else hi_done), (cut or not complete)
    cap = options.lp_test_limit
    while not run.met() and run.clock.left() > 0:
        target = _dive_target(run, hi_done) if options.dive_share > 0 else None
        if target is not None and run.dive(target):
            if not run.met():  # a new incumbent: test just below it
                done, more_cut = _bisect(run, run.best_peak / (1 + stop), cap, probe_first=True)
                hi_done, cut = min(hi_done, done), cut or more_cut
            continue
        more_dives = options.dive_share > 0 and _dive_target(run, hi_done) is not None
        stats = run.improve_for(0.5 if cut or more_dives else 1.0)
        if run.met() or run.clock.left() <= 0 or run.clock.deadline is None:
            break  # without a limit: one last improvement only
        if cut:
            cap *= 2
            done, cut = _bisect(run, min(hi_done, run.best_peak / (1 + stop)), cap, probe_first=True)
            hi_done = min(hi_done, done)
        elif not more_dives and (not stats or not any(stats.get(k) for k in ("steps", "kicks", "lns_tried", "window_tried"))):
            break  # no test was cut short, no dive is left and the improvement found nothing to try
    if not run.met():
        run.closed_by = "none"


def _bisect(run: Run, hi: float, cap: float, *, probe_first: bool) -> tuple[float, bool]:
    """Configuration-LP tests between the proven load and ``hi`` (``hi`` itself first when
    ``probe_first``), each with at most ``cap`` seconds; raises ``run.load_lo`` on every proof.
    When a test's integer master lowers the incumbent below the tested load, the next test is
    the new probe ``best_peak / (1 + stop_gap)`` (a proof there closes the gap). Returns the
    least load at which a test ran to the end without a proof (nothing at or above it can be
    proven; ``inf`` if none) and whether a test was cut short."""
    hi_done, cut = math.inf, False
    loads = [hi] if probe_first else []
    for _ in range(run.options.bisection_steps + 1):
        if run.met() or run.clock.left() <= 0:
            break
        if not loads:
            if hi - run.load_lo <= run.stop_gap * run.load_lo:
                break
            loads = [0.5 * (run.load_lo + hi)]
        load = loads.pop()
        how, complete = run.prove(load, cap)
        if how is not None:
            run.load_lo, run.closed_by = load, how
            continue
        if complete:
            hi_done = min(hi_done, load)
        else:
            cut = True
        target = run.best_peak / (1 + run.stop_gap)
        if target < load:  # the integer master found a packing at ``load``: probe below it next
            loads = [target]
        hi = min(load, target)
    return hi_done, cut


def _result(run: Run, status: Status, message: str, *, objective=None, bound=None, solution=None) -> Result:
    extra = dict(run.log)
    for part in TIMINGS:
        extra[part] = run.clock.parts.get(part, 0.0)
    return Result("certify", status, objective, bound, relative_gap(objective, bound), solution,
                  run.clock.now() - run.clock.t0, message, extra)


def _infeasible(run: Run, message: str, closed_by: str) -> Result:
    run.log["closed_by"] = closed_by
    return _result(run, Status.INFEASIBLE, message)


def _exact_fallback(run: Run) -> tuple[np.ndarray | None, Result | None]:
    """No heuristic placed the tasks: the compact MILP (half the time left) as a primal,
    or its proof of infeasibility."""
    from vcsched.formulations.vc_milp import solve_vc_milp

    clock = run.clock
    if clock.left() <= 0.05:
        return None, None
    t = clock.now()
    res = solve_vc_milp(run.instance, time_limit=None if clock.deadline is None else max(0.05, 0.5 * clock.left()),
                        second_phase=False)
    clock.add("seconds_heuristics", t)
    if res.status is Status.INFEASIBLE:
        return None, _infeasible(run, "the compact MILP proves that no placement fits memory", "milp")
    if res.status.has_solution:
        return res.solution.task_host, None
    return None, None


def _memory_packing(run: Run) -> Result | None:
    """No heuristic placed the tasks: the configuration LP on memory alone (a proof that the
    memory cannot be packed, returned), then the restricted integer master over its columns as a
    primal (a packing of the memory, whatever the loads; offered as the incumbent). Each gets
    half the time left."""
    clock, log, items = run.clock, run.log, run.items
    t = clock.now()
    left = clock.left()
    proof = configuration_lp(items, None, deadline=None if math.isinf(left) else time.perf_counter() + 0.5 * left,
                             keep_columns=True)
    clock.add("seconds_configuration_lp", t)
    log["lp_tests"] += 1
    log["lp_iterations"] += proof.iterations
    if proof.infeasible:
        return _infeasible(run, f"memory needs > {items.hosts} hosts (configuration LP bound "
                                f"{proof.bins_lower:.6g})", "memory-configuration-lp")
    if proof.generated and clock.left() > 0.05:
        t = clock.now()
        unbounded = float(items.cpu @ items.demand) + 1.0  # no CPU limit: every memory configuration fits
        im = solve_integer_master(items, unbounded, list(proof.generated),
                                  time_limit=0.5 * clock.left() if math.isfinite(clock.left()) else 60.0)
        if im.counts is not None and run.offer(placement_from_configurations(run.instance, im.columns, im.counts),
                                               "integer-master"):
            log["start_method"] = "integer-master"
        clock.add("seconds_integer_master", t)
    return None


def _no_placement(run: Run) -> Result:
    """No placement was found by any step: ``time_limit`` or ``failed`` (the memory LP of
    :func:`_memory_packing` proved nothing)."""
    run.log["closed_by"] = "none"
    if run.clock.left() <= 0:
        return _result(run, Status.TIME_LIMIT, "time limit: no placement found and no proof of infeasibility")
    return _result(run, Status.FAILED, "no heuristic placed the tasks and the memory packing could not be "
                                       "proven infeasible")


def _finish(run: Run, gap_tol: float) -> Result:
    """Check the final allocation and report it with the proven bound."""
    log = run.log
    alloc = allocation_from_placement(run.instance, run.best, second_phase=run.options.second_phase)
    report = check_allocation(run.instance, alloc)
    if not report.valid:
        log["closed_by"] = "none"
        return _result(run, Status.ERROR, "allocation rejected by the checker: " + "; ".join(report.violations[:3]))
    objective = float(report.min_yield)
    bound = min(1.0, 1.0 / run.load_lo)
    if objective > bound:  # only rounding may put the checked yield above the proven bound
        if objective - bound > 1e-9:
            log["closed_by"] = "none"
            return _result(run, Status.ERROR, f"internal error: yield {objective!r} above proven bound {bound!r}")
        bound = objective
    gap = relative_gap(objective, bound)
    log["closed_by"] = run.closed_by if gap is not None and gap <= run.stop_gap + 1e-12 else "none"
    log["avg_yield"] = report.avg_yield
    if gap is not None and gap <= gap_tol:
        status, message = Status.OPTIMAL, f"proven within relative gap {gap:.2g} by {run.closed_by}"
    else:
        status, message = Status.FEASIBLE, f"certified gap {gap:.3g} (bound {bound:.6g})"
    return _result(run, status, message, objective=objective, bound=bound, solution=alloc)
