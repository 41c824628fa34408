"""Solve a PuLP model with HiGHS and report the outcome honestly.

PuLP builds the model; this module hands it to HiGHS (``highspy``) in one
call (the matrix in compressed form rather than one ``addCol`` per variable,
which is what PuLP's own HiGHS interface does and which dominates the time on
models with tens of thousands of variables), runs it, writes the values back
into the PuLP variables (``var.varValue``) and reads HiGHS's real status.

All translation from HiGHS status codes to the toolkit's
:class:`~vcsched.result.Status` lives in :func:`translate_status`. Note that
PuLP's own HiGHS interface reports a MILP stopped by its time limit as
``LpStatusOptimal`` (only ``sol_status`` says *integer feasible*); here a
time limit is never optimality.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence

import numpy as np
import pulp

from vcsched import progress
from vcsched.errors import InvalidInputError, SolverUnavailableError
from vcsched.result import Status, relative_gap

__all__ = ["SolveOutcome", "solve_model", "translate_status", "highs_status", "new_var", "new_highs",
           "quiet_stdout", "run_interruptibly", "solve_highs_lp", "wait_released"]


@dataclasses.dataclass(frozen=True)
class SolveOutcome:
    status: Status
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    message: str
    is_mip: bool
    nodes: int = 0
    """Branch-and-bound nodes HiGHS explored (0 for an LP): a machine-independent measure of effort."""


def new_var(name: str, low: float | None = None, up: float | None = None, cat: str = pulp.LpContinuous) -> pulp.LpVariable:
    """A PuLP variable, created the way PuLP 3.3+ recommends (no deprecation warning)."""
    try:
        return pulp.LpVariable(name, low, up, cat, _skip_v4_deprecation=True)
    except TypeError:  # PuLP < 3.3
        return pulp.LpVariable(name, low, up, cat)


_BANNER_SILENCED = False


@contextlib.contextmanager
def quiet_stdout():
    """HiGHS prints a banner on the process's standard output (file descriptor 1) when the first
    Highs object is made; hide it so that ``--json`` output stays clean. Descriptor 1 is
    silenced even when ``sys.stdout`` is not a file (a notebook kernel, a test's capture), since
    the C++ library writes to the descriptor, not to Python's stream."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        fd = 1
    try:
        sys.stdout.flush()
        saved = os.dup(fd)
    except (OSError, ValueError):
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


def new_highs():
    """``(highspy, Highs())`` with HiGHS's output off and its banner hidden; a clear error
    (:class:`~vcsched.errors.SolverUnavailableError`) when highspy is missing."""
    global _BANNER_SILENCED
    try:
        import highspy
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SolverUnavailableError("highspy is not installed: pip install highspy") from exc
    if not _BANNER_SILENCED:
        with quiet_stdout():
            h = highspy.Highs()
        _BANNER_SILENCED = True
    else:
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return highspy, h


_POLL_SECONDS = 0.05
_STOP_SECONDS = 5.0
"""How long an interrupted solve may take to stop before the exception propagates anyway."""


def _interrupt_callback(stop: threading.Event, seen: dict):
    """A HiGHS callback (``setCallback`` signature) that asks the solve to stop once ``stop`` is set,
    and keeps the MIP's latest primal and dual bounds in ``seen``."""

    def callback(callback_type, message, data_out, data_in, user_data) -> None:
        if data_out is not None and getattr(data_out, "mip_node_count", -1) >= 0:
            seen["incumbent"] = getattr(data_out, "mip_primal_bound", None)
            seen["bound"] = getattr(data_out, "mip_dual_bound", None)
        if data_in is not None and stop.is_set():
            data_in.user_interrupt = True

    return callback


def wait_released(lock: threading.Lock, poll: float, on_poll: Callable[[], None], *, every: int = 1) -> None:
    """Wait until another thread releases ``lock`` (held by it), calling ``on_poll`` every ``every`` slices of
    ``poll`` seconds. Signal handlers run between slices, and an exception they raise leaves the wait as
    itself: a lock acquire cut short by a signal holds nothing (unlike ``Event.wait``, whose condition
    lock a signal at the end of a slice can leave released: leaving the wait then raises
    ``RuntimeError: release unlocked lock`` instead)."""
    polls = 0
    while not lock.acquire(timeout=poll):
        polls += 1
        if polls % every == 0:
            on_poll()


def run_interruptibly(h, describe: Callable[[float], float] | None = None) -> None:
    """``h.run()`` in a worker thread, so that a signal (SIGINT, SIGTERM) is honoured at once.

    The C++ solve does not return to Python until it ends, so a signal handler
    called from the main thread would wait for the time limit. Here the main
    thread waits for the solve in short slices (signal handlers run between
    them); when one raises (``KeyboardInterrupt``, or
    :class:`~vcsched.errors.Terminated` for SIGTERM), HiGHS is asked to stop
    through its interrupt callbacks (simplex, interior point, MIP), the main
    thread waits for it to return (at most ``_STOP_SECONDS``; measured: 0.1 to
    0.4 s) and the exception propagates. A solve that is not interrupted gives
    the same result as ``h.run()``; the callback is a bare function (not
    highspy's event objects), about 4 % of CPU time on simplex-heavy solves.
    An exception in the worker is re-raised here. While an observer watches
    (:mod:`vcsched.progress`), the elapsed time and the MIP's incumbent and bound (through
    ``describe``, into the caller's terms) are reported about every half second.
    """
    import highspy

    stop = threading.Event()
    failure: list[BaseException] = []
    seen: dict = {}
    kinds = highspy.cb.HighsCallbackType
    highspy.Highs.__mro__[1].setCallback(h, _interrupt_callback(stop, seen), None)
    for kind in (kinds.kCallbackSimplexInterrupt, kinds.kCallbackIpmInterrupt, kinds.kCallbackMipInterrupt):
        h.startCallback(kind)

    def work() -> None:
        try:
            h.run()
        except BaseException as exc:  # pragma: no cover - HiGHS raising is a bug; re-raised below
            failure.append(exc)
        finally:
            # HiGHS's task scheduler belongs to the thread that ran the solve: shut it down
            # before saying the solve is over, so that no process exit races its teardown.
            type(h).resetGlobalScheduler(True)
            running.release()

    # Wait on a lock the worker releases at its end (wait_released), not on Thread.join: a join
    # cut short by a signal marks a running thread as stopped (Python 3.11), and the process
    # would exit under a running solve.
    running = threading.Lock()
    running.acquire()
    threading.Thread(target=work, name="highs", daemon=True).start()
    t0 = time.perf_counter()

    def report() -> None:
        if progress.observing():
            progress.report(elapsed=time.perf_counter() - t0, incumbent=_described(seen.get("incumbent"), describe),
                            bound=_described(seen.get("bound"), describe))

    try:
        wait_released(running, _POLL_SECONDS, report, every=10)
    except BaseException:
        stop.set()
        running.acquire(timeout=_STOP_SECONDS)
        raise
    if failure:  # pragma: no cover
        raise failure[0]


def _described(value, describe: Callable[[float], float] | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return describe(value) if describe is not None else float(value)


def translate_status(model_status, has_solution: bool) -> tuple[Status, str]:
    """Map a HiGHS model status (and whether a primal solution exists) to a :class:`Status`."""
    import highspy

    S = highspy.HighsModelStatus
    name = str(model_status).split(".")[-1]
    if model_status == S.kOptimal:
        return Status.OPTIMAL, f"HiGHS {name}"
    if model_status == S.kInfeasible:
        return Status.INFEASIBLE, f"HiGHS {name}"
    if model_status in (S.kUnboundedOrInfeasible, S.kUnbounded):
        return Status.ERROR, f"HiGHS {name}: the model is unbounded or infeasible (a modelling error)"
    limits = (S.kTimeLimit, S.kIterationLimit, S.kSolutionLimit, S.kInterrupt, S.kObjectiveBound,
              S.kObjectiveTarget, S.kMemoryLimit)
    if model_status in limits:
        if has_solution:
            return Status.FEASIBLE, f"HiGHS {name}: stopped at a limit with a solution"
        return Status.TIME_LIMIT, f"HiGHS {name}: stopped at a limit before finding a solution"
    return Status.ERROR, f"HiGHS {name}"


def highs_status(h) -> tuple[Status, str, bool]:
    """``(status, message, has_solution)`` of a ``highspy.Highs`` object after a run.

    ``has_solution``: HiGHS holds a feasible primal solution and does not call the model
    infeasible; ``status`` and ``message`` are :func:`translate_status`'s (``OPTIMAL`` exactly
    when HiGHS says optimal). For the toolkit's own runs and for the objects a caller keeps
    between re-solves (column generation masters).
    """
    import highspy

    model_status = h.getModelStatus()
    has_solution = (h.getInfo().primal_solution_status == 2
                    and model_status != highspy.HighsModelStatus.kInfeasible)
    status, message = translate_status(model_status, has_solution)
    return status, message, has_solution


def _to_highs_lp(prob: pulp.LpProblem, variables: Sequence[pulp.LpVariable], mip: bool):
    import highspy

    index = {id(v): k for k, v in enumerate(variables)}
    n = len(variables)
    cost = np.zeros(n)
    if prob.objective is not None:
        for v, c in prob.objective.items():
            cost[index[id(v)]] = c
    lower = np.array([-highspy.kHighsInf if v.lowBound is None else v.lowBound for v in variables], dtype=float)
    upper = np.array([highspy.kHighsInf if v.upBound is None else v.upBound for v in variables], dtype=float)
    rows, cols, vals, rlo, rhi = [], [], [], [], []
    for r, con in enumerate(prob.constraints.values()):
        items = [(index[id(v)], c) for v, c in con.items() if c != 0]
        rows.extend([r] * len(items))
        for col, c in items:
            cols.append(col)
            vals.append(c)
        rhs = -con.constant
        if con.sense == pulp.LpConstraintLE:
            rlo.append(-highspy.kHighsInf), rhi.append(rhs)
        elif con.sense == pulp.LpConstraintGE:
            rlo.append(rhs), rhi.append(highspy.kHighsInf)
        else:
            rlo.append(rhs), rhi.append(rhs)
    m = len(rlo)
    rows_a = np.asarray(rows, dtype=np.int64)
    cols_a = np.asarray(cols, dtype=np.int64)
    vals_a = np.asarray(vals, dtype=float)
    order = np.lexsort((rows_a, cols_a))
    start = np.searchsorted(cols_a[order], np.arange(n + 1))
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = m
    lp.col_cost_ = cost
    lp.col_lower_ = lower
    lp.col_upper_ = upper
    lp.row_lower_ = np.asarray(rlo, dtype=float)
    lp.row_upper_ = np.asarray(rhi, dtype=float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = n
    lp.a_matrix_.num_row_ = m
    lp.a_matrix_.start_ = start.astype(np.int32)
    lp.a_matrix_.index_ = rows_a[order].astype(np.int32)
    lp.a_matrix_.value_ = vals_a[order]
    lp.sense_ = highspy.ObjSense.kMaximize if prob.sense == pulp.LpMaximize else highspy.ObjSense.kMinimize
    lp.offset_ = float(prob.objective.constant) if prob.objective is not None else 0.0
    is_int = [mip and v.cat == pulp.LpInteger for v in variables]
    if any(is_int):
        lp.integrality_ = [highspy.HighsVarType.kInteger if f else highspy.HighsVarType.kContinuous for f in is_int]
    return lp, any(is_int)


def solve_model(
    prob: pulp.LpProblem,
    *,
    time_limit: float | None = None,
    gap_rel: float | None = None,
    threads: int | None = 1,
    mip: bool = True,
    variables: Sequence[pulp.LpVariable] | None = None,
    start: dict | None = None,
    options: dict | None = None,
    describe: Callable[[float], float] | None = None,
) -> SolveOutcome:
    """Solve ``prob`` with HiGHS and report status, objective, bound and gap.

    Parameters
    ----------
    time_limit : float, optional
        Seconds for HiGHS (``None``: no limit). At the limit the status is
        ``feasible`` with a solution, ``time_limit`` without one.
    gap_rel : float, optional
        Relative MIP gap at which HiGHS may stop; stopping at a gap larger
        than 1e-4 is reported ``feasible``, never ``optimal``.
    threads : int, optional
        HiGHS threads (1 by default, so that sweeps run one solve per core).
    mip : bool
        False solves the LP relaxation (integrality dropped).
    variables : sequence, optional
        The model's variables when the caller has them (saves PuLP's scan).
    start : dict, optional
        A feasible starting solution ``{variable: value}`` handed to HiGHS
        (variables left out start at 0).
    options : dict, optional
        Extra HiGHS options by name (``{"mip_heuristic_effort": 0.1}``).
    describe : callable, optional
        Maps the model's objective to the caller's terms (e.g. a load to a yield) in the
        progress reports (:mod:`vcsched.progress`).
    """
    variables = list(prob.variables()) if variables is None else list(variables)
    lp, is_mip = _to_highs_lp(prob, variables, mip)
    out, values = solve_highs_lp(lp, is_mip, time_limit=time_limit, gap_rel=gap_rel, threads=threads,
                                 start=_start_columns(variables, start), options=options, describe=describe)
    if values is not None:
        for v, x in zip(variables, values):
            v.varValue = x
    return out


def solve_highs_lp(lp, is_mip: bool, *, time_limit: float | None = None, gap_rel: float | None = None,
                   threads: int | None = 1, start: tuple | None = None, options: dict | None = None,
                   describe: Callable[[float], float] | None = None) -> tuple[SolveOutcome, np.ndarray | None]:
    """Solve a ``highspy.HighsLp`` built from arrays: ``(outcome, column values or None)``.

    The one HiGHS run of the toolkit (:func:`solve_model` builds the arrays from PuLP): the
    statuses of :func:`translate_status`, a signal honoured at once (:func:`run_interruptibly`),
    every solution's objective recomputed in the original model and, when HiGHS disagrees with
    it, solved again without the start, then without presolve; a stop above a 1e-4 relative gap
    is ``feasible``. ``start`` is ``(columns, values)``.
    """
    if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
        raise InvalidInputError(f"time_limit must be a positive number of seconds, got {time_limit}")
    if gap_rel is not None and not gap_rel >= 0:
        raise InvalidInputError(f"gap_rel must be >= 0, got {gap_rel}")
    t0 = time.perf_counter()
    settings = {"time_limit": None if time_limit is None else float(time_limit),
                "mip_rel_gap": None if gap_rel is None else float(gap_rel),
                "threads": None if threads is None else int(threads), **(options or {})}
    outcome = _run_checked(lp, is_mip, start, settings, describe)
    retries = ([(None, {})] if start is not None else []) + [(None, {"presolve": "off"})]
    for retry_start, changes in retries:  # a HiGHS MIP start can mislead presolve: retry without it, then without presolve
        if not outcome.inconsistent:
            break
        left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        if left is not None and left <= 0:
            break
        outcome = _run_checked(lp, is_mip, retry_start, {**settings, **changes, "time_limit": left}, describe)
    seconds = time.perf_counter() - t0
    if outcome.inconsistent:
        message = (f"HiGHS reported objective {outcome.reported:.9g} for a solution whose objective is "
                   f"{outcome.objective:.9g} (also after retrying without the start and without presolve, "
                   f"within the time limit); the result is not trusted")
        return SolveOutcome(Status.ERROR, None, None, None, seconds, message, is_mip, outcome.nodes), None
    status, message = outcome.status, outcome.message
    objective, bound = outcome.objective, outcome.bound
    if status is Status.OPTIMAL and is_mip and objective is not None and bound is not None:
        g = relative_gap(objective, bound)
        if g is not None and g > 1e-4:
            status, message = Status.FEASIBLE, f"stopped at relative gap {g:.3g} (gap_rel={gap_rel})"
    if status is Status.OPTIMAL and bound is None:
        bound = objective
    return (SolveOutcome(status, objective, bound, relative_gap(objective, bound), seconds, message, is_mip,
                         outcome.nodes), outcome.values)


def _start_columns(variables, start: dict | None):
    """``(columns, values)`` of a starting solution, or ``None``."""
    if not start:
        return None
    index = {id(v): k for k, v in enumerate(variables)}
    cols = np.array([index[id(v)] for v in start], dtype=np.int32)
    return cols, np.array(list(start.values()), dtype=float)


@dataclasses.dataclass(frozen=True)
class _Run:
    status: Status
    message: str
    objective: float | None
    """The objective recomputed from the solution's values in the original model."""
    reported: float | None
    """The objective HiGHS reported."""
    bound: float | None
    nodes: int
    values: np.ndarray | None = None

    @property
    def inconsistent(self) -> bool:
        """HiGHS's objective differs from the value of the solution it returned."""
        if self.objective is None or self.reported is None:
            return False
        return abs(self.objective - self.reported) > 1e-6 * max(1.0, abs(self.objective))


def _run_checked(lp, is_mip: bool, starts, settings: dict, describe=None) -> _Run:
    """One HiGHS run; the solution's objective is recomputed in the original space.

    HiGHS 1.16 can evaluate a MIP start in its presolved space without the
    objective of the columns presolve removed, accept it as an incumbent of a
    wrong value and stop "optimal" (seen on a 3-task moldable instance): the
    recomputed objective exposes that, and the caller retries.
    """
    _, h = new_highs()
    h.passModel(lp)
    if starts is not None:
        h.setSolution(len(starts[0]), starts[0], starts[1])
    for key, value in settings.items():
        if value is not None:
            h.setOptionValue(key, value)
    run_interruptibly(h, describe)
    status, message, has_solution = highs_status(h)
    info = h.getInfo()
    objective = reported = values = None
    if has_solution:
        values = np.asarray(h.getSolution().col_value, dtype=float)
        objective = float(np.dot(np.asarray(lp.col_cost_, dtype=float), values) + lp.offset_)
        reported = float(info.objective_function_value)
    bound = None
    if is_mip:
        db = float(info.mip_dual_bound)
        if math.isfinite(db):
            bound = db
    elif objective is not None and status is Status.OPTIMAL:
        bound = objective
    nodes = max(int(info.mip_node_count), 0) if is_mip else 0
    return _Run(status, message, objective, reported, bound, nodes, values)
