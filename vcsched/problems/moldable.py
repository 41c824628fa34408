"""Moldable tasks with weights on identical processors (seed 002, §2 and §3.2).

``m`` identical processors; ``n`` moldable tasks, all released at time 0.
Task ``i`` has a weight ``w_i > 0`` and a processing time ``p_i(k)`` for every
number of processors ``k = 1..m``. A schedule gives every task a start time
and a number of processors (and, for the compacted list schedules, *which*
processors); the task then runs without preemption during
``[start_i, start_i + p_i(procs_i))``.

Criteria (§2.2): the makespan ``C_max = max_i C_i`` and the weighted minsum
``sum_i w_i C_i``.

The checker (:func:`check_schedule`) does not assume monotony
(``p_i(k)`` non-increasing and work ``k p_i(k)`` non-decreasing);
:func:`is_monotonic` tells whether an instance has it.

JSON format (README)::

    {"m": 200, "tasks": [{"weight": 3, "times": [p1, p2, ..., pm]}, ...]}

``times`` must list exactly ``m`` positive finite numbers: a missing tail is
an error, never padded. A file whose name ends in ``.npz`` holds the same
instance as three NumPy arrays ``m``, ``weights``, ``times``
(:mod:`vcsched.problems.moldable_npz`, same rules, same messages).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.findings import Findings
from vcsched.problems.jsonfile import check_keys, instance_head, load_json, number_field
from vcsched.problems.moldable_limits import MAX_PROCESSORS, MAX_TIME_ENTRIES, MAX_VALUE, MIN_VALUE, check_size
from vcsched.problems.moldable_npz import is_npz_path, read_npz_arrays, save_npz_instance

__all__ = [
    "MoldableInstance",
    "Schedule",
    "CheckReport",
    "check_schedule",
    "serial_schedule",
    "assign_processors",
    "left_shift",
    "completion_times",
    "is_monotonic",
    "parse_instance",
    "load_instance",
    "instance_to_dict",
    "save_instance",
    "schedule_to_json",
    "TOL",
    "MAX_PROCESSORS",
    "MAX_TIME_ENTRIES",
    "MIN_VALUE",
    "MAX_VALUE",
    "check_size",
]

TOL = 1e-9
"""Relative tolerance of the checker on times (scaled by the largest time)."""


@dataclasses.dataclass(frozen=True, eq=False)
class MoldableInstance:
    """A moldable-task instance.

    Parameters
    ----------
    m : int
        Number of identical processors, ``m >= 1``.
    times : ndarray of float, shape (n, m)
        ``times[i, k - 1] = p_i(k)``, positive and finite.
    weights : ndarray of float, shape (n,)
        Positive finite weights ``w_i``.
    """

    m: int
    times: np.ndarray
    weights: np.ndarray

    @classmethod
    def from_arrays(cls, m: int, times: Sequence[Sequence[float]], weights: Sequence[float] | None = None,
                    source: str = "<instance>") -> MoldableInstance:
        """Build and validate an instance (weights default to 1)."""
        times = [[float(v) for v in row] for row in times]
        if weights is None:
            weights = [1.0] * len(times)
        if len(weights) != len(times):
            raise InvalidInputError(f"{source}: {len(weights)} weights for {len(times)} tasks; give one weight per task")
        data = {"m": int(m), "tasks": [{"weight": float(w), "times": t} for w, t in zip(weights, times)]}
        return parse_instance(data, source)

    @property
    def n(self) -> int:
        return int(self.times.shape[0])

    def time(self, i: int, k: int) -> float:
        """``p_i(k)`` (``k`` processors, 1-based)."""
        return float(self.times[i, k - 1])

    @functools.cached_property
    def work(self) -> np.ndarray:
        """``k p_i(k)`` for every task and ``k`` (shape (n, m); cached, do not modify)."""
        return self.times * np.arange(1, self.m + 1)[None, :]

    @functools.cached_property
    def min_time(self) -> np.ndarray:
        """``min_k p_i(k)`` per task."""
        return self.times.min(axis=1)

    @functools.cached_property
    def min_work(self) -> np.ndarray:
        """``min_k k p_i(k)`` per task."""
        return self.work.min(axis=1)

    @functools.cached_property
    def monotonic(self) -> bool:
        """Whether :func:`is_monotonic` holds (cached)."""
        return is_monotonic(self)


@dataclasses.dataclass(frozen=True, eq=False)
class Schedule:
    """Start time and allotment of every task.

    Parameters
    ----------
    start : ndarray of float, shape (n,)
    procs : ndarray of int, shape (n,)
        Number of processors of each task (1..m).
    processors : tuple of tuple of int, optional
        Explicit processor indices (0..m-1) of each task, when the algorithm
        assigns them (list schedules); ``None`` otherwise.
    """

    start: np.ndarray
    procs: np.ndarray
    processors: tuple | None = None


@dataclasses.dataclass(frozen=True)
class CheckReport(Findings):
    """Outcome of :func:`check_schedule`: ``valid``, the violations, and the two criteria."""

    makespan: float
    minsum: float

    noun = "schedule"
    error = InvalidInputError


def completion_times(instance: MoldableInstance, schedule: Schedule) -> np.ndarray:
    """``C_i = start_i + p_i(procs_i)``."""
    procs = np.asarray(schedule.procs, dtype=np.int64)
    return np.asarray(schedule.start, dtype=float) + instance.times[np.arange(instance.n), procs - 1]


def assign_processors(instance: MoldableInstance, schedule: Schedule) -> list[list[int]]:
    """Explicit processors for a feasible schedule (interval colouring by start time).

    Uses ``schedule.processors`` when given. Otherwise tasks are taken by start
    time and take the lowest-numbered processors free at their start (ends at
    the same instant free first); raises ``InvalidInputError`` if the schedule
    needs more than ``m`` processors somewhere.
    """
    if schedule.processors is not None and all(p is not None for p in schedule.processors):
        return [list(map(int, p)) for p in schedule.processors]
    end = completion_times(instance, schedule)
    free_at = np.zeros(instance.m)
    out: list[list[int]] = [[] for _ in range(instance.n)]
    eps = 1e-9 * max(1.0, float(end.max()))
    for i in np.lexsort((np.arange(instance.n), schedule.start)):
        free = np.flatnonzero(free_at <= schedule.start[i] + eps)
        k = int(schedule.procs[i])
        if len(free) < k:
            raise InvalidInputError(f"start schedule: task {int(i)} finds {len(free)} free processors, needs {k}")
        out[i] = [int(p) for p in free[:k]]
        free_at[free[:k]] = end[i]
    return out


def serial_schedule(instance: MoldableInstance, order, allot) -> Schedule:
    """Serial schedule-generation scheme: each task in ``order``, with ``allot[i]``
    processors, at the earliest time where that many are free throughout its run.

    Over all orders (and allotments) these schedules include an optimal one for
    any regular criterion (``C_max``, ``sum w_i C_i``): they are the active
    schedules of a cumulative resource. Explicit processors can always be
    assigned afterwards (interval colouring by start time), so they are omitted.
    """
    n = instance.n
    start = np.zeros(n)
    placed: list[tuple[float, float, int]] = []
    for i in order:
        k = int(allot[i])
        p = instance.times[i, k - 1]
        candidates = sorted({0.0} | {e for _, e, _ in placed})
        for s in candidates:
            e = s + p
            points = [s] + [ps for ps, _, _ in placed if s < ps < e]
            if all(sum(q for ps, pe, q in placed if ps <= x < pe) + k <= instance.m for x in points):
                break
        start[i] = s
        placed.append((s, e, k))
    return Schedule(start, np.asarray(allot, dtype=np.int64).copy())


def left_shift(instance: MoldableInstance, schedule: Schedule) -> Schedule:
    """The serial scheme in the order of ``schedule``'s starts, with its allotments.

    No task starts later than in ``schedule`` when ``schedule`` is feasible: placing the
    tasks by increasing start, each one's old start is still free, since every task placed
    before it runs, at any instant of that task's run, only if it ran then before.
    """
    order = np.lexsort((np.arange(instance.n), np.asarray(schedule.start)))
    return serial_schedule(instance, order, schedule.procs)


def check_schedule(instance: MoldableInstance, schedule: Schedule, *, tol: float = TOL) -> CheckReport:
    """Check a schedule and compute ``C_max`` and ``sum w_i C_i``.

    Checks: one start and one allotment per task (so every task runs exactly
    once, without preemption), ``start >= 0``, ``1 <= procs <= m``, at every
    instant at most ``m`` processors busy, and, when explicit processors are
    given, ``procs_i`` distinct indices in ``0..m-1`` per task and no processor
    used by two tasks at the same time. Monotony is not required.

    Two tasks touching at an instant (one ends at ``t``, the other starts at
    ``t``) do not overlap; times are compared with an absolute tolerance of
    ``tol * max(1, largest completion time)``.
    """
    n, m = instance.n, instance.m
    start = np.asarray(schedule.start, dtype=float)
    procs = np.asarray(schedule.procs)
    violations: list[str] = []
    if start.shape != (n,) or procs.shape != (n,):
        violations.append(f"schedule has {start.shape[0] if start.ndim else 0} starts and "
                          f"{procs.shape[0] if procs.ndim else 0} allotments for {n} tasks")
        return CheckReport(False, tuple(violations), math.nan, math.nan)
    if not np.all(np.isfinite(start)):
        violations.append(f"task {int(np.flatnonzero(~np.isfinite(start))[0])}: start is not finite")
        return CheckReport(False, tuple(violations), math.nan, math.nan)
    if not np.all(np.equal(np.mod(procs, 1), 0)) or np.any(procs < 1) or np.any(procs > m):
        bad = int(np.flatnonzero((procs < 1) | (procs > m) | (np.mod(procs, 1) != 0))[0])
        violations.append(f"task {bad}: {procs[bad]} processors, must be an integer in 1..{m}")
        return CheckReport(False, tuple(violations), math.nan, math.nan)
    procs = procs.astype(np.int64)
    end = completion_times(instance, Schedule(start, procs))
    eps = tol * max(1.0, float(end.max()) if n else 1.0)
    for i in np.flatnonzero(start < -eps):
        violations.append(f"task {int(i)}: start {start[i]:.6g} < 0")
    # processor count over time: sweep, ends before starts at equal (rounded) times
    times = np.concatenate([end, start])
    deltas = np.concatenate([-procs, procs])
    kind = np.concatenate([np.zeros(n), np.ones(n)])  # 0 = end first
    order = np.lexsort((kind, times))
    # merge times closer than eps by treating an end within eps of a start as before it
    t_sorted, d_sorted = times[order], deltas[order]
    busy, worst, worst_t = 0, 0, 0.0
    k = 0
    while k < len(t_sorted):
        # apply every end within eps of the current time before starts
        t = t_sorted[k]
        j = k
        while j < len(t_sorted) and t_sorted[j] <= t + eps:
            j += 1
        group = d_sorted[k:j]
        busy += int(group[group < 0].sum())
        busy += int(group[group > 0].sum())
        if busy > worst:
            worst, worst_t = busy, t
        k = j
    if worst > m:
        violations.append(f"{worst} processors busy at time {worst_t:.6g}, more than m = {m}")
    if schedule.processors is not None:
        violations.extend(_check_processors(schedule.processors, start, end, procs, m, eps))
    makespan = float(end.max()) if n else 0.0
    minsum = float(np.dot(instance.weights, end))
    return CheckReport(not violations, tuple(violations), makespan, minsum)


def _task_processor_error(i: int, ps: list, k: int, m: int) -> str | None:
    """The first problem of task ``i``'s processor list (``k`` processors on ``m``), or None."""
    if len(ps) != k:
        return f"task {i}: {len(ps)} processor indices for {k} processors"
    try:
        repeated = len(set(ps)) != len(ps)
    except TypeError:  # unhashable entries: reported as bad indices below
        repeated = False
    if repeated:
        return f"task {i}: repeated processor index"
    for p in ps:
        if not (isinstance(p, (int, np.integer)) and not isinstance(p, bool) and 0 <= p < m):
            return f"task {i}: processor index {p} outside 0..{m - 1}"
    return None


def _check_processors(processors, start, end, procs, m, eps) -> list[str]:
    """Explicit processors: valid distinct indices per task, and no processor used by two tasks
    at once (per processor, the first overlap in start order). Vectorised over all
    (task, processor) pairs: a gang schedule of ``n x m`` pairs is checked in numpy."""
    out: list[str] = []
    n = len(start)
    if len(processors) != n:
        return [f"processor lists given for {len(processors)} tasks, expected {n}"]
    owners, used = [], []
    for i, ps in enumerate(processors):
        if ps is None:
            continue
        arr = np.asarray(ps)
        fast = arr.ndim == 1 and arr.size == procs[i] and np.issubdtype(arr.dtype, np.integer) and arr.dtype != bool
        if fast and arr.size and (arr.min() < 0 or arr.max() >= m or np.unique(arr).size != arr.size):
            fast = False
        if not fast:
            error = _task_processor_error(i, list(ps), int(procs[i]), m)
            if error is not None:
                out.append(error)
                continue
            arr = np.asarray(list(ps), dtype=np.int64)
        used.append(arr.astype(np.int64, copy=False))
        owners.append(np.full(arr.size, i, dtype=np.int64))
    if not used:
        return out
    P, T = np.concatenate(used), np.concatenate(owners)
    order = np.lexsort((T, end[T], start[T], P))  # per processor, by (start, end, task)
    P, T = P[order], T[order]
    clash = (P[1:] == P[:-1]) & (start[T[1:]] < end[T[:-1]] - eps)
    first_per_proc = {}
    for k in np.flatnonzero(clash):
        first_per_proc.setdefault(int(P[k]), int(k))
    for p, k in first_per_proc.items():
        i1, i2 = int(T[k]), int(T[k + 1])
        out.append(f"processor {p}: tasks {i1} and {i2} overlap in time ({start[i2]:.6g} < {end[i1]:.6g})")
    return out


def is_monotonic(instance: MoldableInstance, *, rtol: float = 1e-9) -> bool:
    """True when every ``p_i(k)`` is non-increasing and ``k p_i(k)`` non-decreasing in ``k``."""
    t, w = instance.times, instance.work
    if instance.m == 1:
        return True
    dec = np.all(t[:, 1:] <= t[:, :-1] * (1 + rtol))
    inc = np.all(w[:, 1:] >= w[:, :-1] * (1 - rtol))
    return bool(dec and inc)


# --------------------------------------------------------------------------- JSON

def _fail(source: str, where: str, what: str) -> InvalidInputError:
    return InvalidInputError(f"{source}: {where}: {what}")


def _show(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


TASK_FIELDS = ("weight", "times")
INSTANCE_FIELDS = ("m", "tasks")


def _times_row(values: Any, m: int, source: str, where: str) -> list[float] | np.ndarray:
    """The ``m`` processing times of one task, each a number in ``[MIN_VALUE, MAX_VALUE]``."""
    if not isinstance(values, list):
        raise _fail(source, f"{where}, field 'times'", f"expected a list of {m} numbers, got {_show(values)}")
    if len(values) != m:
        raise _fail(source, f"{where}, field 'times'",
                    f"has {len(values)} values, expected m = {m} (one per number of processors 1..m; "
                    "a missing tail is not padded)")
    if all(type(v) is float or type(v) is int for v in values):  # fast path: one array, one range check
        try:
            row = np.asarray(values, dtype=float)
        except OverflowError:
            row = None
        if row is not None and np.all((row >= MIN_VALUE) & (row <= MAX_VALUE)):
            return row
    row = []  # find the first bad entry, with its message
    for k, v in enumerate(values):
        row.append(number_field({"times": v}, "times", where=f"{source}: {where}, entry {k} (p_i({k + 1}))",
                                low=MIN_VALUE, high=MAX_VALUE))
    return row


def parse_instance(data: Any, source: str = "<instance>") -> MoldableInstance:
    """Validate a decoded JSON document and build a :class:`MoldableInstance`.

    Raises :class:`InvalidInputError` on one line naming ``source``, the task
    index and the field, e.g. ``inst.json: task 3, field 'times': has 150
    values, expected m = 200 (one per number of processors 1..m; a missing tail
    is not padded)``. Unknown fields are refused with the nearest known name;
    ``m`` and ``n x m`` are checked against :data:`MAX_PROCESSORS` and
    :data:`MAX_TIME_ENTRIES` before the table is allocated; times and weights
    must lie in ``[MIN_VALUE, MAX_VALUE]``.
    """
    m, tasks = instance_head(data, source=source, known=INSTANCE_FIELDS,
                             expected='a JSON object {"m": ..., "tasks": [...]}', count_key="m",
                             counts="number of identical processors", count_high=MAX_PROCESSORS,
                             list_key="tasks", item='{"weight": w, "times": [p1, ..., pm]}')
    check_size(m, len(tasks), where=source)
    times = np.empty((len(tasks), m))
    weights = np.empty(len(tasks))
    for i, task in enumerate(tasks):
        where = f"task {i}"
        if not isinstance(task, dict):
            raise _fail(source, where, 'expected an object {"weight": w, "times": [p1, ..., pm]}')
        check_keys(task, TASK_FIELDS, where=f"{source}: {where}")
        for field in ("weight", "times"):
            if field not in task:
                raise _fail(source, f"{where}, field {field!r}", "missing")
        weights[i] = number_field(task, "weight", where=f"{source}: {where}", low=MIN_VALUE, high=MAX_VALUE)
        times[i] = _times_row(task["times"], m, source, where)
    return MoldableInstance(m=m, times=times, weights=weights)


def load_instance(path: str | os.PathLike) -> MoldableInstance:
    """Read a moldable instance from a JSON file (format in the module docstring) through the
    toolkit's one JSON loader (:func:`vcsched.problems.jsonfile.load_json`), or from a ``.npz``
    file (:func:`vcsched.problems.moldable_npz.read_npz_arrays`) when the name ends in ``.npz``."""
    source = os.fspath(path)
    if is_npz_path(source):
        m, times, weights = read_npz_arrays(source)
        return MoldableInstance(m=m, times=times, weights=weights)
    return parse_instance(load_json(source, what="moldable instance"), source)


def _plain(x: float) -> float | int:
    return int(x) if float(x).is_integer() and abs(x) < 2**53 else float(x)


def instance_to_dict(instance: MoldableInstance) -> dict[str, Any]:
    """The JSON document of an instance (inverse of :func:`parse_instance`)."""
    return {
        "m": instance.m,
        "tasks": [{"weight": _plain(instance.weights[i]), "times": [float(v) for v in instance.times[i]]}
                  for i in range(instance.n)],
    }


def save_instance(instance: MoldableInstance, path: str | os.PathLike) -> None:
    """Write ``instance`` as JSON, or as ``.npz`` when the name ends in ``.npz``."""
    if is_npz_path(path):
        save_npz_instance(instance, path)
        return
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(instance_to_dict(instance), fh)
        fh.write("\n")


def schedule_to_json(schedule: Schedule) -> list[dict[str, Any]]:
    """One object per task: ``task``, ``start``, ``procs`` and, when assigned, ``processors``."""
    out = []
    for i in range(len(schedule.start)):
        row: dict[str, Any] = {"task": i, "start": float(schedule.start[i]), "procs": int(schedule.procs[i])}
        if schedule.processors is not None and schedule.processors[i] is not None:
            row["processors"] = [int(p) for p in schedule.processors[i]]
        out.append(row)
    return out
