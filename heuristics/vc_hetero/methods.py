"""The method table of heterogeneous VCSched: one function behind the Python API and ``vc solve``.

Names (:mod:`vcsched.names.vc_hetero`): ``mcb1``..``mcb8`` (MCB in ``d + 1`` dimensions with the
yield search of :mod:`heuristics.vc_hetero.search`), ``gr``, ``sg``, ``vp-<heuristic>`` (the
vector-packing family of :mod:`heuristics.vector.methods` at a probed yield, same search),
``vp-meta`` (all of them, best minimum yield kept; ties to the first in table order), ``milp``
(:func:`vcsched.formulations.vc_hetero_milp.solve_hetero_milp`), ``lp`` (its relaxation, an upper
bound) and ``certify`` (the certified bracket of :func:`lowerbounds.vector.certify_hosts`, see
:func:`certify_hook`).

Every heuristic's allocation passed the checker (:func:`vcsched.problems.vc_hetero.check_hetero`)
or the result says ``failed`` / ``error`` with the reason.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from heuristics.vc_hetero.search import finish, greedy, mcb_packer, vector_packer, yield_search
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.names import vc_hetero as names
from vcsched.problems.vc_hetero import HeteroInstance
from vcsched.result import Result, Status

__all__ = ["METHODS", "HEURISTICS", "TIMED", "solve", "certify_hook", "meta", "result_row"]

METHODS = names.METHODS
HEURISTICS = names.HEURISTICS
TIMED = names.EXACT + names.CERTIFY
"""The methods that take ``time_limit``."""


def meta(inst: HeteroInstance) -> Result:
    """Every ``vp-`` heuristic; the best minimum yield (the first on ties), named in ``extra``."""
    t0 = time.perf_counter()
    best: Result | None = None
    for name in names.VECTOR[:-1]:
        r = yield_search(inst, vector_packer(name[3:]), "vp-meta")
        if r.success and (best is None or r.objective > best.objective):
            best = Result("vp-meta", r.status, r.objective, None, None, r.solution, 0.0, r.message, {"best": name})
    if best is None:
        return Result("vp-meta", Status.FAILED, None, None, None, None, time.perf_counter() - t0,
                      "no vector-packing heuristic packs at any yield")
    return Result("vp-meta", best.status, best.objective, None, None, best.solution, time.perf_counter() - t0,
                  best.message, best.extra)


_CERTIFY_STATUS = {"optimal": Status.OPTIMAL, "feasible": Status.FEASIBLE, "infeasible": Status.INFEASIBLE}


def certify_hook(inst: HeteroInstance, *, time_limit: float | None = None, seed: int = 0) -> Result:
    """The certified bracket of the general case: :func:`lowerbounds.vector.certify_hosts` on the
    instance's arrays (default 60 s). ``objective``: the minimum yield of its placement after the
    average-yield phase and the checker; ``bound``: its proven upper bound; ``optimal`` only when
    certify_hosts proved it (any other status of it is reported as ``failed`` with its message)."""
    from lowerbounds.vector import certify_hosts

    t0 = time.perf_counter()
    cert = certify_hosts(inst.job_cpu, inst.job_rigid, inst.host_cpu, inst.host_cap, inst.host_count,
                         time_limit=60.0 if time_limit is None else time_limit, seed=seed)
    status = _CERTIFY_STATUS.get(cert.status, Status.FAILED)
    extra = {"lower_method": cert.methods.get("lower"), "upper_method": cert.methods.get("upper")}
    if cert.placement is None or status is Status.INFEASIBLE:
        status = Status.INFEASIBLE if status is Status.INFEASIBLE else Status.FAILED
        return Result("certify", status, None, cert.upper, None, None, time.perf_counter() - t0,
                      cert.message or f"certify_hosts: {cert.status}", extra)
    starts = np.concatenate(([0], np.cumsum(inst.host_count)))
    job_host = starts[cert.placement[:, 0]] + cert.placement[:, 1]
    r = finish(inst, "certify", job_host, t0, cert.message, extra)
    if not r.success:
        return r
    gap = None if cert.upper is None else max(0.0, cert.upper - r.objective) / max(cert.upper, 1e-12)
    return Result("certify", status, r.objective, cert.upper, gap, r.solution, time.perf_counter() - t0,
                  r.message, extra)


def _runner(name: str) -> Callable[..., Result]:
    if name in names.MCB:
        return lambda inst: yield_search(inst, mcb_packer(int(name[3:])), name)
    if name in names.GREEDY:
        return lambda inst: greedy(inst, name, sort=name == "sg")
    if name == "vp-meta":
        return meta
    if name in names.VECTOR:
        return lambda inst: yield_search(inst, vector_packer(name[3:]), name)
    if name == "milp":
        from vcsched.formulations.vc_hetero_milp import solve_hetero_milp
        return lambda inst, time_limit=None: solve_hetero_milp(inst, time_limit=time_limit)
    if name == "lp":
        from vcsched.formulations.vc_hetero_milp import hetero_lp_bound
        return lambda inst, time_limit=None: hetero_lp_bound(inst, time_limit=time_limit)
    return certify_hook


def solve(inst: HeteroInstance, method: str, **options: Any) -> Result:
    """Run ``method`` on ``inst``; ``time_limit`` is taken by ``milp``, ``lp`` and ``certify`` only."""
    if method not in METHODS:
        raise UnknownNameError(f"unknown method {method!r} for an instance with host types; "
                               f"choose one of {', '.join(METHODS)}")
    if not isinstance(inst, HeteroInstance):
        raise TypeError(f"`inst` must be a HeteroInstance, got {type(inst).__name__}")
    if options and method in HEURISTICS:
        raise InvalidInputError(f"method {method!r} takes no options, got {', '.join(options)}")
    return _runner(method)(inst, **options)


def result_row(result: Result, inst: HeteroInstance) -> dict:
    """The row of ``vc solve --json`` for one method (also one row of an instance set): ``method``,
    ``status``, ``min_yield``, ``avg_yield`` (after the checker), ``bound``, ``gap``, ``seconds``,
    ``message``; a value that is not finite is None."""
    from vcsched.problems.vc_hetero import HeteroAllocation, check_hetero

    avg = None
    if isinstance(result.solution, HeteroAllocation):
        avg = check_hetero(inst, result.solution).avg_yield
    fin = (lambda x: None if x is None or not math.isfinite(x) else x)
    return {"method": result.method, "status": str(result.status), "min_yield": fin(result.objective),
            "avg_yield": avg, "bound": fin(result.bound), "gap": fin(result.gap), "seconds": result.seconds,
            "message": result.message}
