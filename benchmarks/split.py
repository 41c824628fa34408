"""Cells split into tasks: one long cell is no longer one task of the sweep.

An experiment may give its :class:`~benchmarks.harness.Experiment` a :class:`Split`: a cell
is then a list of *parts* (e.g. one per policy), each run by :meth:`Split.run_part` on any
worker, and a *join* that turns the parts' results, in the parts' order, into the cell's
rows. :func:`run_split_cell` runs them one after the other in one process (the cell's
``run_cell``); the local process pool runs the parts of every cell to run as separate tasks
(:func:`split_outcomes`), so that the sweep's critical path is its longest part, not its
longest cell.

Order of the tasks (list scheduling, longest processing time first): a worker that frees
takes a ready join first (the cell's rows are then saved at once), else the part with the
largest :meth:`Split.cost` estimate not yet started (ties: cell order, then part order).
The estimates only set the order: the rows are those of :func:`run_split_cell` whatever the
order, the number of workers or the estimates. A cell's ``seconds`` and ``cpu_seconds`` are
the sums over its parts and join; a part that raises fails its cell (the other parts of the
cell still run, and the error names the part).
"""

from __future__ import annotations

import dataclasses
import heapq
import time
from collections.abc import Callable, Iterator
from typing import Any

from benchmarks.cells import execute_cell, machine_name

__all__ = ["Split", "run_split_cell", "split_outcomes", "task_order", "replay_makespan"]


@dataclasses.dataclass(frozen=True)
class Split:
    """How one cell splits into parts and a join.

    Attributes
    ----------
    parts : callable
        ``parts(params) -> list[str]``: the names of the cell's parts (unique in the cell).
    run_part : callable
        ``run_part(params, seed, part) -> result``: one part (a module-level function: it is
        pickled to the workers; the result too).
    join : callable
        ``join(params, seed, results) -> list[dict]``: the cell's rows from the parts'
        results in the order of ``parts(params)``.
    cost : callable
        ``cost(params, part) -> float``: an estimate of the part's run time (any unit), used
        only to order the tasks.
    """

    parts: Callable[[dict], list[str]]
    run_part: Callable[[dict, int, str], Any]
    join: Callable[[dict, int, list], list[dict]]
    cost: Callable[[dict, str], float]


def run_split_cell(split: Split, params: dict, seed: int) -> list[dict]:
    """The rows of one cell, its parts and join run one after the other in this process."""
    return split.join(params, seed, [split.run_part(params, seed, p) for p in split.parts(params)])


def task_order(split: Split, todo: list[tuple[int, dict, int]]) -> list[tuple[int, int, str]]:
    """``(cell index, part index, part)`` of every part of ``todo``, longest estimate first (ties: cell, then part
    order)."""
    tasks = [(-float(split.cost(params, part)), index, k, part)
             for index, params, _ in todo for k, part in enumerate(split.parts(params))]
    tasks.sort(key=lambda t: t[:3])
    return [(index, k, part) for _, index, k, part in tasks]


def _part_task(run_part: Callable, params: dict, seed: int, part: str) -> dict:
    """One part on a worker; never raises (the error text names the part)."""
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        result, error = run_part(dict(params), int(seed), part), ""
    except Exception as exc:  # noqa: BLE001 - a failing part fails its cell, the sweep goes on
        result, error = None, f"part {part}: {type(exc).__name__}: {exc}".replace("\n", " ")
    return {"result": result, "error": error, "seconds": time.perf_counter() - t0,
            "cpu_seconds": time.process_time() - c0}


def _join_cell(join: Callable, params: dict, seed: int, results: list) -> list[dict]:
    return join(params, seed, results)


@dataclasses.dataclass
class _Cell:
    params: dict
    seed: int
    left: int
    results: list
    errors: list
    seconds: float = 0.0
    cpu_seconds: float = 0.0


class _Plan:
    """The tasks still to run and the cells' partial results (coordinator side)."""

    def __init__(self, split: Split, todo: list[tuple[int, dict, int]]):
        self.split = split
        self.order = task_order(split, todo)
        self.next = 0
        self.joins: list[int] = []  # a heap of cell indices whose parts have all finished
        self.cells = {i: _Cell(p, s, len(split.parts(p)), [None] * len(split.parts(p)), []) for i, p, s in todo}

    def take(self) -> tuple[Any, Callable, tuple] | None:
        """The next task ``(key, func, args)``, or None when no task is ready."""
        if self.joins:
            index = heapq.heappop(self.joins)
            cell = self.cells[index]
            return ("join", index), execute_cell, (self._join_func(index), cell.params, cell.seed)
        if self.next < len(self.order):
            index, k, part = self.order[self.next]
            self.next += 1
            cell = self.cells[index]
            return ("part", index, k), _part_task, (self.split.run_part, cell.params, cell.seed, part)
        return None

    def _join_func(self, index: int) -> Callable:
        import functools

        return functools.partial(_join_cell, self.split.join, results=self.cells[index].results)

    def finish(self, key: tuple, outcome: dict) -> tuple[int, dict] | None:
        """Record a finished task; the cell's outcome when it was the cell's last task."""
        index = key[1]
        cell = self.cells[index]
        cell.seconds += float(outcome["seconds"])
        cell.cpu_seconds += float(outcome.get("cpu_seconds", 0.0))
        if key[0] == "join":
            return index, {**outcome, "seconds": cell.seconds, "cpu_seconds": cell.cpu_seconds}
        cell.results[key[2]] = outcome["result"]
        if outcome["error"]:
            cell.errors.append(outcome["error"])
        cell.left -= 1
        if cell.left:
            return None
        if cell.errors:
            return index, {"rows": [], "error": "; ".join(cell.errors), "seconds": cell.seconds,
                           "cpu_seconds": cell.cpu_seconds, "machine": machine_name()}
        heapq.heappush(self.joins, index)
        return None


def split_outcomes(split: Split, todo: list[tuple[int, dict, int]], workers: int) -> Iterator[tuple[int, dict]]:
    """Yield ``(cell index, outcome)`` (the outcome of :func:`benchmarks.cells.execute_cell`) as the cells of
    ``todo`` finish, their parts and joins run as tasks of a local process pool of ``workers`` processes in the
    order of the module docstring."""
    from benchmarks.executors import pool_stream

    plan = _Plan(split, todo)
    yield from pool_stream(plan.take, plan.finish, workers)


def replay_makespan(split: Split, todo: list[tuple[int, dict, int]], durations: dict, workers: int) -> float:
    """The end of the schedule :func:`split_outcomes` follows (same order, joins first when ready) on ``workers``
    workers when task ``key`` takes ``durations[key]`` (keys ``("part", cell index, part index)`` and ``("join",
    cell index)``), e.g. the CPU seconds each task was measured to take: the sweep's wall time on an idle machine
    with that many cores, the coordinator's own work aside."""
    plan = _Plan(split, todo)
    running: list = []  # (end, sequence, key)
    now, seq = 0.0, 0
    idle = {"error": "", "seconds": 0.0, "cpu_seconds": 0.0, "result": None, "rows": [], "machine": ""}
    while True:
        while len(running) < workers:
            task = plan.take()
            if task is None:
                break
            heapq.heappush(running, (now + float(durations[task[0]]), seq, task[0]))
            seq += 1
        if not running:
            return now
        now, _, key = heapq.heappop(running)
        plan.finish(key, idle)
