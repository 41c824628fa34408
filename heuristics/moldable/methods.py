"""The moldable-task methods by name (seed 002), and one :func:`solve` for Python and the command line.

Every method of ``vcsched moldable solve`` is a :class:`Method` in :data:`METHODS`: the
heuristics of :data:`heuristics.moldable.REGISTRY` (``bicriteria``, ``gang``,
``sequential``, ``list-shelf``, ``list-lptf``, ``list-saf``) and ``exact``, the MILP of
:func:`vcsched.formulations.moldable_milp.solve_exact` warm-started from the bi-criteria
schedule and given the refined interval bound of :mod:`lowerbounds.moldable` (a
composition the table wires, as a registry may). A method says which keyword options it
takes and whether ``all`` includes it. :func:`solve` refuses an option the method does not
take (``TypeError``) and checks every schedule it returns
(:func:`vcsched.problems.moldable.check_schedule`).

Examples
--------
>>> from vcsched.generators.moldable import generate_moldable_instance
>>> inst = generate_moldable_instance(8, 5, "high", rng=0)
>>> res = solve(inst, "gang", rng=0)
>>> res.status.value, res.objective == res.extra["minsum"]
('feasible', True)
>>> solve(inst, "gang", shuffles=3)
Traceback (most recent call last):
...
TypeError: gang: unknown option 'shuffles'; it takes: rng
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from heuristics.moldable.registry import REGISTRY
from vcsched.names.moldable import EXACT, HEURISTICS
from vcsched.registry import Registry, check_options

if TYPE_CHECKING:
    from vcsched.problems.moldable import MoldableInstance
    from vcsched.result import Result

__all__ = ["Method", "METHODS", "HEURISTICS", "solve", "solve_many", "methods_for_all", "EXACT_DEFAULT_TIME_LIMIT",
           "result_row"]


EXACT_DEFAULT_TIME_LIMIT = 60.0
"""Seconds given to HiGHS by ``exact`` when ``time_limit`` is not given."""


@dataclasses.dataclass(frozen=True)
class Method:
    """One way of scheduling a moldable instance: ``run(instance, **options) -> Result``, the
    keyword ``options`` it takes, and whether ``all`` (:func:`methods_for_all`) includes it."""

    name: str
    run: Callable[..., Result]
    options: tuple[str, ...] = ()
    in_all: bool = True


def exact(instance: MoldableInstance, *, time_limit: float | None = EXACT_DEFAULT_TIME_LIMIT,
          formulation: str = "auto", grain: float | str | None = None, rng=0, eps: float = 0.01) -> Result:
    """The exact optimum of ``sum w_i C_i`` (:func:`vcsched.formulations.moldable_milp.solve_exact`),
    warm-started from the bi-criteria schedule (``rng``, ``eps``) and given the refined interval
    bound (:func:`lowerbounds.moldable.refined_interval_bound`, with the same ``time_limit``).

    ``grain`` (a positive number or ``"auto"``) brackets the optimum instead, by the
    time-indexed model on times rounded up and down to it, closed by branch and bound on small
    instances (:func:`vcsched.formulations.moldable_rounded.solve_rounded`); ``formulation`` is
    then not used. A grain that divides every time gives the time-indexed model itself.
    """
    from lowerbounds.moldable import refined_interval_bound
    from vcsched.formulations.moldable_milp import solve_exact, time_grain_ok
    from vcsched.formulations.moldable_rounded import check_grain, solve_rounded

    if grain is not None:
        grain = check_grain(grain)
    warm = REGISTRY.get("bicriteria")(instance, rng=rng, eps=eps)
    lower = refined_interval_bound(instance, time_limit=time_limit)
    start = warm.solution if warm.status.has_solution else None
    lower_bound = lower.bound if lower.status.value == "optimal" else None
    if grain is not None and not (not isinstance(grain, str) and grain > 0 and time_grain_ok(instance, grain)):
        return solve_rounded(instance, grain, time_limit=time_limit, start=start, lower_bound=lower_bound)
    formulation = formulation_within_limit(instance, "time-indexed" if grain else formulation, grain)
    return solve_exact(instance, time_limit=time_limit, formulation=formulation, grain=grain, start=start,
                       lower_bound=lower_bound)


def formulation_within_limit(instance: MoldableInstance, formulation: str, grain: float | None = None) -> str:
    """The formulation ``exact`` builds, chosen on estimated model sizes before anything is built.

    Sizes are upper bounds (:mod:`vcsched.formulations.moldable_size`) against
    :data:`~vcsched.formulations.moldable_size.MAX_EXACT_NONZEROS`; branch and bound builds
    no model. ``auto`` keeps its own rule when the models it may take fit; when the
    time-indexed model does not, it takes branch and bound on at most
    :data:`~vcsched.formulations.moldable_milp.BB_AUTO_MAX_TASKS` tasks, else the flow model
    if it fits. A formulation asked by name, or ``auto`` when nothing fits, is refused
    (:class:`~vcsched.errors.InvalidInputError`) with the sizes and the limit.
    """
    from vcsched.errors import InvalidInputError
    from vcsched.formulations.moldable_milp import BB_AUTO_MAX_TASKS, time_grain
    from vcsched.formulations.moldable_size import MAX_EXACT_NONZEROS, flow_model_size, time_indexed_model_size

    if formulation == "branch-and-bound":
        return formulation
    small = instance.n <= BB_AUTO_MAX_TASKS
    grain = grain if grain is not None else time_grain(instance) if formulation in ("auto", "time-indexed") else None
    if formulation == "time-indexed" and grain is None:
        return formulation  # solve_exact refuses it (no grain) before building
    sizes = []
    if grain is not None:
        sizes.append(time_indexed_model_size(instance, grain))
    if formulation == "flow" or (formulation == "auto" and not small):
        sizes.append(flow_model_size(instance))
    fits = [s for s in sizes if s.nonzeros <= MAX_EXACT_NONZEROS]
    if len(fits) == len(sizes):
        return formulation
    if formulation == "auto" and small:
        return "branch-and-bound"
    if formulation == "auto" and fits:
        return fits[0].formulation
    shown = " and ".join(s.text() for s in sizes)
    raise InvalidInputError(f"--formulation {formulation}: the {shown}, more than the limit of "
                            f"{MAX_EXACT_NONZEROS:,} nonzeros (estimated before building); use a smaller instance"
                            + ("" if formulation == "flow" else " or --formulation flow" if grain else ""))


def _keywords(function: Callable) -> tuple[str, ...]:
    return tuple(p.name for p in inspect.signature(function).parameters.values() if p.kind is p.KEYWORD_ONLY)


def _build() -> Registry:
    methods: Registry = Registry("moldable method")
    for name in HEURISTICS:
        function = REGISTRY.get(name)
        methods.register(name)(Method(name, function, _keywords(function)))
    methods.register(EXACT)(Method(EXACT, exact, _keywords(exact), in_all=False))
    return methods


METHODS = _build()


def methods_for_all() -> list[str]:
    """The methods ``all`` stands for: every heuristic (not ``exact``)."""
    return [name for name in METHODS if METHODS.get(name).in_all]


def solve(instance: MoldableInstance, method: str, **options: Any) -> Result:
    """Schedule ``instance`` by ``method`` (a name of :data:`METHODS`; another name is an
    :class:`~vcsched.errors.UnknownNameError` that lists the names).

    ``options`` must be ones the method takes (``TypeError`` otherwise). Every schedule
    returned has passed :func:`~vcsched.problems.moldable.check_schedule`; one that fails
    it is a bug in the method and raises ``RuntimeError`` rather than being reported.
    """
    from vcsched.arguments import of_type
    from vcsched.problems.moldable import MoldableInstance, check_schedule

    m = METHODS.get(method)
    of_type(instance, "instance", MoldableInstance)
    check_options(options, m.options, owner=m.name)
    result = m.run(instance, **options)
    if result.status.has_solution:
        report = check_schedule(instance, result.solution)
        if not report.valid:  # pragma: no cover - would be a bug
            raise RuntimeError(f"{m.name} produced an invalid schedule: {report.violations[0]}")
    return result


def solve_many(instance: MoldableInstance, methods: Iterable[str], **options: Any) -> list[Result]:
    """:func:`solve` for each method in order, each given the options it takes (an option that no
    method of :data:`METHODS` takes is a ``TypeError``)."""
    table = [METHODS.get(name) for name in methods]
    check_options(options, sorted({o for name in METHODS for o in METHODS.get(name).options}), owner="moldable methods")
    return [solve(instance, m.name, **{k: v for k, v in options.items() if k in m.options}) for m in table]


def result_row(result: Result, instance: Any) -> dict[str, Any]:
    """One result as a row: the fields of ``vcsched moldable solve --json`` (README), the instance-set tables
    and the benchmarks."""
    from vcsched.problems.moldable import schedule_to_json

    has = result.status.has_solution
    out = {
        "method": result.method,
        "status": result.status.value,
        "makespan": result.extra.get("makespan") if has else None,
        "minsum": result.extra.get("minsum") if has else None,
        "seconds": result.seconds,
        "schedule": schedule_to_json(result.solution) if has else None,
    }
    if result.method == EXACT:
        out.update(bound=result.bound, gap=result.gap, formulation=result.extra.get("formulation"),
                   message=result.message)
    return out
