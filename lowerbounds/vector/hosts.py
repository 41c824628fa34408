"""``certify_hosts``: the max-min yield of jobs on typed hosts, with a proven upper bound.

Model and cheap bounds: :mod:`lowerbounds.vector.host_bounds`. The yield
``Y`` is achievable iff the jobs, of sizes ``(Y cpu_j, m_j)``, pack into the
hosts, ``N_k`` bins of capacities ``(C_k, M_k)`` per type: a bounded
multi-type vector bin packing in ``d + 1`` dimensions, tested by
:func:`lowerbounds.vector.typed_lp.packing_test` (configuration LP with one
count row per host type, a d-dimensional knapsack per type as pricing).
Packing is monotone in ``Y`` (smaller CPU sizes only help), so:

1. checks: a job that fits no host type, or the fluid LP infeasible, proves
   that no yield is possible (status ``infeasible``);
2. upper bound ``U``: the least of 1, the per-job bound and the fluid LP;
3. placements (lower side ``lo``, the yield of a checked placement): the
   caller's ``starts``, the max-min greedy, first-fit decreasing at ``U`` (at
   yield 0 when neither fits), the best improved by moves and swaps off the
   most loaded host (:func:`~lowerbounds.vector.host_bounds.improve_placement`);
4. small instances (at most ``milp_size`` job-host pairs): the compact MILP
   with ``milp_share`` of the time (its proven bound lowers ``U``);
5. bisection on ``Y`` between ``a = max(lo, least relaxation-feasible Y)``
   and ``U``: a test proven infeasible lowers ``U`` to ``Y`` (``Y* < Y``);
   a feasible relaxation raises ``a`` to ``Y`` and the upper side looks
   for a packing at ``Y`` (first fit, restricted integer master, dive);
   a test cut short by its time cap (``lp_test_limit``, doubled after each
   such test) is retried with the doubled cap;
6. once ``a`` meets ``U`` but ``lo < a``: packings are sought at yields
   between ``lo`` and ``a`` (the least failed yield halved toward ``lo``).

Status (as in :func:`lowerbounds.vc.certification.certify`): ``optimal``
when ``(U - lo) / U <= gap_tol`` (default ``1e-4``, HiGHS's MIP
tolerance), ``feasible`` otherwise, ``infeasible`` with a proof, ``unknown``
when no placement was found and nothing proven. ``upper`` is never below
the optimum (each lowering is a proof), ``lower`` is the checked yield of
``placement``.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from lowerbounds.vector import host_bounds as hb
from lowerbounds.vector.typed_lp import TypedPacking, dive_packing, integer_packing, packing_test
from vcsched.errors import InvalidInputError

__all__ = ["HostsCertificate", "certify_hosts", "DEFAULT_GAP_TOL"]

DEFAULT_GAP_TOL = 1e-4


@dataclasses.dataclass(frozen=True)
class HostsCertificate:
    """``lower`` (yield of ``placement``), ``upper`` (proven), ``status``, ``placement`` (n x 2: host type
    and index within it; None without one), ``seconds``, ``methods`` (``lower``/``upper``: the step
    that gave each side; ``tests``: the packing tests as ``(yield, outcome)``), ``message``."""

    lower: float | None
    upper: float | None
    status: str
    placement: np.ndarray | None
    seconds: float
    methods: dict
    message: str = ""


def _arrays(job_cpu, job_rigid, host_cpu, host_cap, host_count):
    """Validated float/int arrays; one-line :class:`InvalidInputError` naming the field otherwise."""
    job_cpu = np.asarray(job_cpu, dtype=float).ravel()
    job_rigid = np.asarray(job_rigid, dtype=float)
    host_cpu = np.asarray(host_cpu, dtype=float).ravel()
    host_cap = np.asarray(host_cap, dtype=float)
    count = np.asarray(host_count)
    n, K = job_cpu.size, host_cpu.size
    if job_rigid.ndim == 1:
        job_rigid = job_rigid.reshape(n, -1) if n else job_rigid.reshape(0, host_cap.shape[-1] if host_cap.ndim else 0)
    if host_cap.ndim == 1:
        host_cap = host_cap.reshape(K, -1)
    checks = [(job_rigid.shape[0] == n, f"job_rigid has {job_rigid.shape[0]} rows for {n} jobs"),
              (host_cap.shape[0] == K and count.size == K, f"host_cap/host_count must have {K} rows (host types)"),
              (job_rigid.shape[1] == host_cap.shape[1], f"jobs have {job_rigid.shape[1]} rigid needs, hosts "
                                                        f"{host_cap.shape[1]} capacities"),
              (np.all(np.isfinite(job_cpu)) and np.all(job_cpu >= 0), "job_cpu must be finite and >= 0"),
              (np.all(np.isfinite(job_rigid)) and np.all(job_rigid >= 0), "job_rigid must be finite and >= 0"),
              (np.all(np.isfinite(host_cpu)) and np.all(host_cpu >= 0), "host_cpu must be finite and >= 0"),
              (np.all(np.isfinite(host_cap)) and np.all(host_cap >= 0), "host_cap must be finite and >= 0"),
              (K > 0 and np.all(count == np.round(count)) and np.all(count >= 0),
               "host_count must be integers >= 0, at least one host type")]
    for ok, what in checks:
        if not ok:
            raise InvalidInputError(f"certify_hosts: {what}")
    return job_cpu, job_rigid, host_cpu, host_cap, count.astype(np.int64)


class _State:
    """The instance, the best checked placement and the proven upper bound."""

    def __init__(self, arrays, gap_tol: float) -> None:
        self.arrays = arrays
        self.gap_tol = gap_tol
        self.lower, self.placement, self.lower_method = -1.0, None, None
        self.upper, self.upper_method = 1.0, "yield-cap"
        self.tests: list[tuple[float, str]] = []

    def offer(self, placement, method: str) -> None:
        if placement is None:
            return
        y = hb.placement_yield(*self.arrays, placement)
        if y is not None and y > self.lower:
            self.lower, self.placement, self.lower_method = y, np.asarray(placement), method

    def prove(self, upper: float | None, method: str) -> None:
        if upper is not None and upper < self.upper:
            self.upper, self.upper_method = upper, method

    @property
    def closed(self) -> bool:
        return self.lower >= 0 and (self.upper - self.lower) <= self.gap_tol * max(self.upper, 1e-12)


def _items_at(y: float, arrays) -> tuple[TypedPacking, np.ndarray]:
    """The packing at yield ``y`` (identical jobs merged into item types) and the job of each item
    (items numbered type by type)."""
    job_cpu, job_rigid, host_cpu, host_cap, count = arrays
    rows = np.column_stack([job_cpu, job_rigid])
    uniq, inverse, cnt = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    sizes = uniq.copy()
    sizes[:, 0] *= y
    inst = TypedPacking(sizes, cnt.astype(np.int64), np.column_stack([host_cpu, host_cap]), count)
    return inst, np.argsort(inverse.ravel(), kind="stable")


def _job_placement(where: np.ndarray | None, job_of_item: np.ndarray) -> np.ndarray | None:
    if where is None:
        return None
    out = np.empty_like(where)
    out[job_of_item] = where
    return out


def _try_yield(st: _State, y: float, cap: float, deadline: float) -> str:
    """One packing test at ``y`` (at most ``cap`` seconds) and, when its relaxation is feasible, the
    upper side: first fit, the restricted integer master, a dive. Returns the test's outcome."""
    arrays = st.arrays
    st.offer(hb.first_fit_at(y, *arrays), "first-fit")
    if st.lower >= y:
        st.tests.append((y, "packed"))
        return "packed"
    inst, job_of_item = _items_at(y, arrays)
    t0 = time.perf_counter()
    test = packing_test(inst, deadline=min(deadline, t0 + cap))
    st.tests.append((y, test.status))
    if test.status == "infeasible":
        st.prove(y, "configuration-lp")
    elif test.status == "relaxed":
        left = max(min(deadline, time.perf_counter() + cap) - time.perf_counter(), 0.0)
        st.offer(_job_placement(integer_packing(inst, test.master, time_limit=0.5 * left), job_of_item),
                 "integer-master")
        if st.lower < y:
            st.offer(_job_placement(dive_packing(inst, test.master, deadline=min(deadline, time.perf_counter() + left)),
                                    job_of_item), "dive")
    return test.status


def _bisect(st: _State, deadline: float, lp_test_limit: float, max_steps: int) -> float:
    """Step 5 of the module docstring; returns the least yield whose relaxation was feasible (or
    ``lo``)."""
    relaxed_at, cap, steps = max(st.lower, 0.0), lp_test_limit, 0
    while not st.closed and steps < max_steps and time.perf_counter() < deadline:
        a = max(st.lower, relaxed_at)
        if st.upper - a <= st.gap_tol * st.upper:
            break
        y = 0.5 * (a + st.upper)
        steps += 1
        outcome = _try_yield(st, y, min(cap, deadline - time.perf_counter()), deadline)
        if outcome == "relaxed":
            relaxed_at = max(relaxed_at, y)
        elif outcome == "unknown":
            cap *= 2
    return max(relaxed_at, st.lower)


def _close_below(st: _State, relaxed_at: float, deadline: float, cap: float) -> None:
    """Step 6: packings sought between ``lo`` and the least relaxation-feasible yield."""
    failed = relaxed_at
    while not st.closed and time.perf_counter() < deadline and st.lower < failed * (1 - st.gap_tol):
        y = 0.5 * (max(st.lower, 0.0) + failed)
        if _try_yield(st, y, min(cap, deadline - time.perf_counter()), deadline) != "packed" and st.lower < y:
            failed = y


def _cheap(st: _State, fits: np.ndarray) -> str | None:
    """Steps 1-2; a message when no yield is possible."""
    job_cpu, job_rigid, host_cpu, host_cap, count = st.arrays
    alone = np.any(fits & (count[None, :] > 0), axis=1)
    if not alone.all():
        return f"job {int(np.flatnonzero(~alone)[0])} fits no host type (rigid needs over every capacity)"
    st.prove(hb.per_job_bound(job_cpu, fits, host_cpu), "per-job")
    fluid = hb.fluid_bound(job_cpu, job_rigid, fits, host_cpu, host_cap, count)
    if fluid is None:
        return "the rigid needs do not fit the hosts even fractionally (fluid LP infeasible)"
    st.prove(fluid, "fluid-lp")
    return None


def certify_hosts(job_cpu, job_rigid, host_cpu, host_cap, host_count, *, time_limit: float = 60.0,
                  seed: int | None = None, starts=(), gap_tol: float = DEFAULT_GAP_TOL,
                  milp_size: int = 4000, milp_share: float = 0.5, lp_test_limit: float = 10.0,
                  bisection_steps: int = 40) -> HostsCertificate:
    """Max-min yield of the jobs on typed hosts with a proven upper bound (module docstring).

    ``job_cpu`` (n), ``job_rigid`` (n x d), ``host_cpu`` (K), ``host_cap`` (K x d), ``host_count``
    (K); ``starts``: placements (n x 2) to start from (ones that do not fit are ignored). ``seed``
    is accepted for the callers' uniform interface; every step is deterministic."""
    t0 = time.perf_counter()
    del seed
    if not (time_limit > 0 and math.isfinite(time_limit)):
        raise InvalidInputError(f"certify_hosts: time_limit must be a positive number of seconds, got {time_limit}")
    arrays = _arrays(job_cpu, job_rigid, host_cpu, host_cap, host_count)
    deadline = t0 + time_limit
    st = _State(arrays, gap_tol)
    if arrays[0].size == 0:
        return HostsCertificate(1.0, 1.0, "optimal", np.zeros((0, 2), np.int64), time.perf_counter() - t0,
                                {"lower": "empty", "upper": "yield-cap", "tests": []})
    fits = hb.job_fits(arrays[1], arrays[3])
    why = _cheap(st, fits)
    if why is not None:
        return HostsCertificate(None, None, "infeasible", None, time.perf_counter() - t0,
                                {"lower": None, "upper": "per-job" if "fits no" in why else "fluid-lp", "tests": []},
                                why)
    for p in starts:
        st.offer(p, "start")
    st.offer(hb.greedy_placement(*arrays), "greedy")
    if not st.closed:
        st.offer(hb.first_fit_at(st.upper, *arrays), "first-fit")
    if st.placement is None:  # the rigid needs are tight: first fit on them alone
        st.offer(hb.first_fit_at(0.0, *arrays), "first-fit")
    if st.placement is not None and not st.closed:
        st.offer(hb.improve_placement(st.placement, *arrays), "local-search")
    if not st.closed and fits.shape[0] * int(arrays[4].sum()) <= milp_size:
        placement, bound = hb.compact_milp(*arrays, time_limit=milp_share * (deadline - time.perf_counter()))
        if placement is None and bound == 0.0:
            return HostsCertificate(None, None, "infeasible", None, time.perf_counter() - t0,
                                    {"lower": None, "upper": "milp", "tests": []}, "the MILP is infeasible")
        st.offer(placement, "milp")
        st.prove(bound, "milp")
    if st.placement is None and _try_yield(st, 0.0, deadline - time.perf_counter(), deadline) == "infeasible":
        return HostsCertificate(None, None, "infeasible", None, time.perf_counter() - t0,
                                {"lower": None, "upper": "configuration-lp", "tests": list(st.tests)},
                                "the rigid needs cannot be packed (configuration LP at yield 0)")
    if not st.closed:
        relaxed_at = _bisect(st, deadline, lp_test_limit, bisection_steps)
        _close_below(st, relaxed_at, deadline, lp_test_limit)
    return _result(st, t0)


def _result(st: _State, t0: float) -> HostsCertificate:
    methods = {"lower": st.lower_method, "upper": st.upper_method, "tests": list(st.tests)}
    if st.placement is None:
        return HostsCertificate(None, st.upper, "unknown", None, time.perf_counter() - t0, methods,
                                "no placement found and no proof that none exists")
    status = "optimal" if st.closed else "feasible"
    return HostsCertificate(st.lower, st.upper, status, st.placement, time.perf_counter() - t0, methods)
