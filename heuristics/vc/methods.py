"""VCSched's methods by name: what each may do, and one :func:`solve` for Python and the command line.

Every way of solving a VCSched instance is a :class:`Method` in :data:`METHODS`: the
exact models (``milp``, ``milp-literal``; seed 001 eq. 3-31), the bounds (``lp``,
``lp-literal``, ``lp-closed``; §3.1), ``certify`` (a bound closed on a heuristic's
allocation), the heuristics (``mcb1`` .. ``mcb8``, ``gr``, ``sg``, ``gb``, ``sgb``,
``rrnd``, ``rrnz``; §3.2-3.4) and the adaptation policies run once (``adapt-none``,
``adapt-mcb8``, ``adapt-mcb8-sticky``, ``adapt-local-search``; §6.1). A method says which
keyword options it takes, whether it rounds the LP relaxation, whether it places from
scratch, and its size limits. :func:`solve` applies these rules, so ``vcsched vc solve``
and a Python caller get the same result:

* an option the method does not take is a ``TypeError`` (never silently ignored);
* an instance beyond the method's size limit is refused (:func:`refusal`,
  :class:`~vcsched.errors.InvalidInputError`);
* a timed exact method without ``time_limit`` gets :data:`DEFAULT_TIME_LIMIT`, recorded in
  ``extra["time_limit"]`` and, when reached, in the message;
* a heuristic places from scratch (§3): on an instance with current hosts its placement is
  relabelled to keep the most in place and a placement that still breaks the migration
  budget is ``failed`` (:func:`heuristics.vc.adapt.keep_in_budget`). :data:`REGISTRY`
  holds the heuristics with that rule applied; the functions of :mod:`heuristics.vc.mcb`,
  :mod:`heuristics.vc.greedy` and :mod:`heuristics.vc.rounding` ignore current hosts.

The table sits next to the algorithms and wires the compositions the architecture allows
a registry to wire: the LP relaxation and the §3.1 bound of :mod:`lowerbounds.vc`, and
:func:`lowerbounds.vc.certification.certify` fed with heuristics' placements. Heavy modules are
imported when a method runs.

Examples
--------
>>> from vcsched.problems.vc import VCInstance
>>> inst = VCInstance.from_arrays(2, [0.6, 0.6, 0.6], [0.5, 0.5, 0.1], current_host=[0, 0, 1],
...                               migration_budget=0.0)
>>> solve(inst, "mcb8").status.value  # MCB8 moves a job; the budget allows none
'failed'
>>> round(solve(inst, "adapt-none").objective, 4)  # nothing moves: host 0 holds 1.2
0.8333
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from vcsched.errors import InvalidInputError
from vcsched.names.vc import ADAPT_METHODS, CERTIFY_HEURISTICS, HEURISTICS
from vcsched.problems.vc_limits import MAX_RELABEL_HOSTS
from vcsched.registry import Registry, check_options

if TYPE_CHECKING:
    from vcsched.problems.vc import VCInstance
    from vcsched.result import Result

__all__ = ["Method", "METHODS", "REGISTRY", "solve", "solve_many", "refusal", "methods_for_all",
           "DEFAULT_TIME_LIMIT", "CERTIFY_DEFAULT_TIME_LIMIT", "MAX_MODEL_VARIABLES", "MAX_RELABEL_HOSTS",
           "CERTIFY_HEURISTICS", "result_row"]

DEFAULT_TIME_LIMIT = 60.0
"""Seconds given to each timed exact method (``milp``, ``milp-literal``, ``lp``, ``lp-literal``)
when no ``time_limit`` is given, so that solving ends in predictable time at any size.
Reaching it is reported: status ``feasible`` (with the gap) or ``time_limit``, and the
message says it was the default."""

CERTIFY_DEFAULT_TIME_LIMIT = 60.0
"""Seconds given to ``certify`` when no ``time_limit`` is given (certify always stops)."""

MAX_MODEL_VARIABLES = 100_000
"""Largest model built: ``hosts x jobs`` (compact ``milp``/``lp``, and the LP that ``rrnd``/``rrnz``
round) or ``hosts x tasks`` (``milp-literal``/``lp-literal``) assignment variables. Building
a model with PuLP takes 50-100 microseconds per variable (5-10 s at the limit, measured on
a shared 2-core machine), outside the solver's time limit; a larger one is refused at once."""


@dataclasses.dataclass(frozen=True)
class Method:
    """One way of solving a VCSched instance and what it may do.

    Parameters
    ----------
    name : str
    run : callable
        ``run(instance, **options) -> Result``.
    options : tuple of str
        Keyword options ``run`` takes (:func:`solve` refuses any other).
    timed : bool
        Gets ``default_time_limit`` when ``time_limit`` is absent; the limit used is recorded in
        ``extra["time_limit"]`` and a default that was reached is said in the message.
    default_time_limit : float, optional
        :data:`CERTIFY_DEFAULT_TIME_LIMIT` for ``certify``; None: :data:`DEFAULT_TIME_LIMIT` (the exact models).
    rounds_lp, provides_lp : bool
        Takes ``lp=`` (an LP relaxation result, ``rrnd``/``rrnz``); is that relaxation (``lp``).
    variables : callable, optional
        Assignment variables of the model it builds; refused above :data:`MAX_MODEL_VARIABLES`.
    max_hosts : int, optional
        Most hosts it accepts.
    in_all : {"always", "current", "never"}
        Whether ``all`` (:func:`methods_for_all`) includes it: always, only on instances with
        current hosts, never.
    """

    name: str
    run: Callable[..., Result]
    options: tuple[str, ...] = ()
    timed: bool = False
    default_time_limit: float | None = None
    rounds_lp: bool = False
    provides_lp: bool = False
    variables: Callable[[VCInstance], int] | None = None
    max_hosts: int | None = None
    in_all: str = "always"


def _job_variables(instance: VCInstance) -> int:
    return instance.hosts * instance.n_jobs


def _task_variables(instance: VCInstance) -> int:
    return instance.hosts * instance.n_tasks


def _milp(formulation: str) -> Callable[..., Result]:
    def run(instance, *, time_limit=None, gap=None, budget_mode="memory", starts=()):
        from vcsched.formulations.vc_milp import solve_vc_milp

        return solve_vc_milp(instance, formulation=formulation, time_limit=time_limit, gap_rel=gap,
                             budget_mode=budget_mode, starts=starts)
    return run


def _lp(formulation: str) -> Callable[..., Result]:
    def run(instance, *, time_limit=None):
        from lowerbounds.vc import lp_relaxation

        return lp_relaxation(instance, formulation=formulation, time_limit=time_limit)
    return run


def _closed_form(instance):
    from lowerbounds.vc import closed_form_bound

    return closed_form_bound(instance)


def _certify(instance, *, time_limit=CERTIFY_DEFAULT_TIME_LIMIT, gap=None, rng=0):
    """:func:`lowerbounds.vc.certification.certify` from the placements of :data:`CERTIFY_HEURISTICS`
    (placed from scratch) and :func:`heuristics.vc.improve.improve_placement`; ``gap`` is the
    certified relative gap at which to stop (default: the optimality tolerance)."""
    from heuristics.vc.improve import improve_placement
    from lowerbounds.vc.certification import DEFAULT_GAP_TOL, certify

    return certify(instance, heuristics=[heuristic_function(n) for n in CERTIFY_HEURISTICS], improve=improve_placement,
                   time_limit=time_limit,
                   gap_tol=DEFAULT_GAP_TOL, stop_gap=gap, rng=rng)


def heuristic_function(name: str) -> Callable[..., Result]:
    """The from-scratch function of heuristic ``name`` (ignores current hosts and budgets)."""
    return getattr(importlib.import_module(HEURISTICS[name]), name)


def _in_budget(name: str, function: Callable[..., Result]) -> Callable[..., Result]:
    """``function`` with the migration-budget rule of :func:`heuristics.vc.adapt.keep_in_budget`."""
    def heuristic(instance, *, budget_mode: str = "memory", **options) -> Result:
        result = function(instance, **options)
        if instance.current_host is None:
            return result
        from heuristics.vc.adapt import keep_in_budget

        return keep_in_budget(instance, result, budget_mode)

    heuristic.__name__ = heuristic.__qualname__ = name
    heuristic.__doc__ = (function.__doc__ or "") + (
        "\n\n    On an instance with current hosts: relabelled to keep the most in place, ``failed`` when the"
        "\n    placement moves more than the migration budget (``budget_mode``: memory or tasks).")
    return heuristic


def _adapt(policy: str) -> Callable[..., Result]:
    def run(instance, *, budget_mode="memory"):
        from heuristics.vc.adapt import adapt_once

        return adapt_once(instance, policy, budget_mode)
    return run


def _heuristic_method(name: str) -> Method:
    function = heuristic_function(name)
    keywords = [p.name for p in inspect.signature(function).parameters.values() if p.kind is p.KEYWORD_ONLY]
    rounds_lp = "lp" in keywords
    return Method(name, _in_budget(name, function), tuple(keywords) + ("budget_mode",), rounds_lp=rounds_lp,
                  variables=_job_variables if rounds_lp else None)


def _build() -> tuple[Registry, Registry]:
    methods: Registry = Registry("VCSched method")
    table = [
        Method("milp", _milp("compact"), ("time_limit", "gap", "budget_mode", "starts"), timed=True,
               variables=_job_variables),
        Method("milp-literal", _milp("literal"), ("time_limit", "gap", "budget_mode", "starts"), timed=True,
               variables=_task_variables, in_all="never"),
        Method("lp", _lp("compact"), ("time_limit",), timed=True, provides_lp=True, variables=_job_variables),
        Method("lp-literal", _lp("literal"), ("time_limit",), timed=True, variables=_task_variables, in_all="never"),
        Method("lp-closed", _closed_form, in_all="never"),
        Method("certify", _certify, ("time_limit", "gap", "rng"), timed=True,
               default_time_limit=CERTIFY_DEFAULT_TIME_LIMIT, in_all="never"),
        *(_heuristic_method(name) for name in HEURISTICS),
        *(Method(f"adapt-{p}", _adapt(p), ("budget_mode",), max_hosts=MAX_RELABEL_HOSTS, in_all="current")
          for p in ADAPT_METHODS),
    ]
    for method in table:
        methods.register(method.name)(method)
    heuristics: Registry = Registry("VCSched heuristic")
    for name in HEURISTICS:
        heuristics.register(name)(methods.get(name).run)
    return methods, heuristics


METHODS, REGISTRY = _build()
"""``METHODS``: every :class:`Method` by name. ``REGISTRY``: the heuristics by name, each
``f(instance, *, rng=None, budget_mode="memory", **options) -> Result`` with the budget rule."""


def _method(name: str) -> Method:
    return METHODS.get(name)


def refusal(method: str, instance: VCInstance) -> str | None:
    """Why ``method`` cannot run on ``instance`` within its size limits, or ``None``."""
    m = _method(method)
    n = m.variables(instance) if m.variables is not None else None
    if n is not None and n > MAX_MODEL_VARIABLES:
        per = "tasks" if m.variables is _task_variables else "jobs"
        return (f"{m.name}: the model would have {instance.hosts:,} hosts x {n // instance.hosts:,} {per} = {n:,} "
                f"assignment variables, more than the limit of {MAX_MODEL_VARIABLES:,}; use lp-closed or a "
                "heuristic (e.g. mcb8)")
    if m.max_hosts is not None and instance.hosts > m.max_hosts:
        return (f"{m.name}: {instance.hosts:,} hosts is more than the limit of {m.max_hosts:,} of the adaptation "
                "policies; use a heuristic or milp")
    return None


def methods_for_all(instance: VCInstance | None = None) -> list[str]:
    """The methods ``all`` stands for: ``milp``, ``lp``, every heuristic and, when ``instance`` has
    current hosts, the ``adapt-*`` methods."""
    current = instance is not None and instance.current_host is not None
    return [n for n in METHODS if METHODS.get(n).in_all == "always" or (current and METHODS.get(n).in_all == "current")]


def solve(instance: VCInstance, method: str, **options: Any) -> Result:
    """Solve ``instance`` by ``method`` (a name of :data:`METHODS`) with the rules of the module docstring.

    Refused before the method runs: an unknown ``method``
    (:class:`~vcsched.errors.UnknownNameError`), an ``instance`` that is not a
    :class:`~vcsched.problems.vc.VCInstance` or an option the method does not take
    (``TypeError``), an instance beyond the method's size limit (the reason of :func:`refusal`,
    as :class:`~vcsched.errors.InvalidInputError`).
    """
    from heuristics.vc._common import validate_instance

    m = _method(method)
    validate_instance(instance)
    check_options(options, m.options, owner=m.name)
    reason = refusal(m.name, instance)
    if reason is not None:
        raise InvalidInputError(reason)
    if not m.timed:
        return m.run(instance, **options)
    default = options.get("time_limit") is None
    limit = options["time_limit"] if not default else (
        DEFAULT_TIME_LIMIT if m.default_time_limit is None else m.default_time_limit)
    return _with_time_limit(m.run(instance, **dict(options, time_limit=limit)), limit, default=default)


def _with_time_limit(result: Result, limit: float, *, default: bool) -> Result:
    """Record the time limit used in ``extra["time_limit"]`` and, when it was the default and was
    reached, say so in the message."""
    from vcsched.result import Status

    message = result.message
    if default and result.status in (Status.FEASIBLE, Status.TIME_LIMIT):
        message = (f"{message}; " if message else "") + (
            f"stopped at the default time limit of {limit:g} s (give --time-limit to change it)")
    return result.replace(extra=dict(result.extra, time_limit=limit), message=message)


def solve_many(instance: VCInstance, methods: Iterable[str], **options: Any) -> list[Result]:
    """:func:`solve` for each method, results in the order asked, each method given the options
    it takes (an option that no method of :data:`METHODS` takes is a ``TypeError``).

    Two results feed later methods: the LP relaxation that ``lp`` solves to optimality is
    handed to the methods that round it (``lp=``), which would otherwise solve it again; and
    the methods that take ``starts`` (the MILPs) run after the others, starting from their
    allocations, so an exact method never reports less than a heuristic already found. Each
    method's start is reported to :mod:`vcsched.progress` (``method``, ``index``, ``total``).
    """
    from vcsched import progress

    names = list(methods)
    table = [_method(name) for name in names]
    check_options(options, sorted({o for name in METHODS for o in METHODS.get(name).options}), owner="VCSched methods")
    order = sorted(range(len(table)), key=lambda k: "starts" in table[k].options)  # stable: MILPs last
    results: dict[int, Result] = {}
    lp = None
    for step, k in enumerate(order):
        m = table[k]
        own = {key: v for key, v in options.items() if key in m.options}
        if m.rounds_lp and lp is not None and own.get("lp") is None:
            own["lp"] = lp
        if "starts" in m.options and "starts" not in options:
            own["starts"] = [r for r in results.values() if r.status.has_solution]
        progress.report(method=m.name, index=step + 1, total=len(table))
        results[k] = solve(instance, m.name, **own)
        if m.provides_lp and results[k].status.value == "optimal":
            lp = results[k]
    return [results[k] for k in range(len(table))]


def result_row(result: Result, instance: VCInstance) -> dict[str, Any]:
    """One result as a row: the JSON fields of ``vcsched vc solve --json`` (README: CLI), the instance-set
    tables and the benchmarks."""
    from vcsched.problems.vc import Allocation

    alloc = result.solution if isinstance(result.solution, Allocation) else None
    has = result.status.has_solution
    out = {
        "method": result.method,
        "status": result.status.value,
        "min_yield": result.objective if has else None,
        "avg_yield": result.extra.get("avg_yield") if has and alloc is not None else None,
        "assignment": alloc.assignment(instance) if alloc is not None else None,
        "cpu": alloc.cpu(instance) if alloc is not None else None,
        "bound": result.bound,
        "gap": result.gap,
        "seconds": result.seconds,
        "message": result.message,
    }
    for key in ("migrations", "migrated_memory", "seconds_first_phase", "time_limit"):
        if key in result.extra:
            out[key] = result.extra[key]
    if result.method == "certify":
        out["extra"] = {k: v for k, v in result.extra.items() if k != "avg_yield"}
    return out
