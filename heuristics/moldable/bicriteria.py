"""The knapsack-batch bi-criteria algorithm of seed 002 §3.2 (Dutot, Eyraud, Mounié, Trystram).

Batches of doubling lengths ``t_j = C*_max / 2^(K-j)``; in each batch a
knapsack selects the tasks of greatest total weight that fit on ``m``
processors; the batches are then compacted by a list algorithm in batch order,
and the batch order is shuffled a few times, keeping the best compact
schedule.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np

from heuristics.moldable.dual_approx import dual_approximation
from heuristics.moldable.listsched import list_schedule, schedule_result
from heuristics.moldable.registry import REGISTRY
from lowerbounds.moldable import batch_times, smallest_allotment
from vcsched.errors import InvalidInputError
from vcsched.problems.moldable import MoldableInstance, Schedule, completion_times
from vcsched.result import Result

__all__ = ["bicriteria", "knapsack_max_weight", "merge_small_tasks", "batch_selection", "batch_schedule", "Batch"]


def knapsack_max_weight(sizes, weights, capacity: int) -> tuple[float, np.ndarray]:
    """0/1 knapsack maximising weight under ``capacity`` processors (§3.2).

    ``W(i, j) = max(W(i-1, j), W(i-1, j - allot_i) + w_i)``, ``O(n m)``,
    vectorised over ``j``. Ties keep the item out (so among equal weights the
    earlier items of the list win). Returns the best weight and the selected
    item indices (sorted).
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    weights = np.asarray(weights, dtype=float)
    n = len(sizes)
    W = np.zeros(capacity + 1)
    take = np.zeros((n, capacity + 1), dtype=bool)
    for i in range(n):
        a = int(sizes[i])
        if a > capacity or a < 0:
            continue
        cand = W[: capacity + 1 - a] + weights[i]
        tail = W[a:]
        np.greater(cand, tail, out=take[i, a:])
        np.maximum(tail, cand, out=tail)
    chosen = []
    c = capacity
    for i in range(n - 1, -1, -1):
        if take[i, c]:
            chosen.append(i)
            c -= int(sizes[i])
    return float(W[capacity]), np.asarray(sorted(chosen), dtype=np.int64)


def merge_small_tasks(tasks: np.ndarray, p1: np.ndarray, weights: np.ndarray, length: float) -> list[list[int]]:
    """Stack small sequential tasks into one-processor columns of height ``<= length`` (§3.2).

    ``tasks`` are the small tasks (``p_i(1) <= length / 2``). They are taken
    by decreasing weight (ties by index) and stacked next-fit: a column is
    closed when the next task would make it longer than ``length``. Each column
    becomes one knapsack item of size 1 whose weight is the sum of its tasks'.
    """
    order = tasks[np.lexsort((tasks, -weights[tasks]))]
    columns: list[list[int]] = []
    height = math.inf
    for i in order:
        if height + p1[i] > length:
            columns.append([])
            height = 0.0
        columns[-1].append(int(i))
        height += p1[i]
    return columns


class Batch(NamedTuple):
    """One batch: its ``length``, its ``tasks`` (sorted), their ``allot`` and the
    knapsack ``items`` (one task, or a column of merged small tasks)."""

    length: float
    tasks: np.ndarray
    allot: np.ndarray
    items: list


def batch_selection(instance: MoldableInstance, cmax: float, *, merge_small: bool = True) -> list[Batch]:
    """Batches of §3.2: a list of :class:`Batch` ``(length, tasks, allot, items)``.

    Batch ``j = 0..K`` has length ``t_j`` (it runs in ``[t_j, t_{j+1}]``); its
    candidates are the remaining tasks with some ``p_i(k) <= t_j``, at their
    smallest fitting allotment; small sequential ones (``p_i(1) <= t_j / 2``)
    are merged (:func:`merge_small_tasks`); the knapsack keeps the heaviest set
    fitting on ``m`` processors.

    Decision: tasks still unscheduled after batch ``K`` (the knapsack may leave
    some) go into further batches of length ``t_K = C*_max`` (each holds at
    least one task, since every task fits in ``C*_max``; lengths stop doubling
    so as not to shrink allotments further).
    """
    n, m = instance.n, instance.m
    ts = batch_times(cmax, float(instance.times.min()))
    K = len(ts) - 2
    remaining = np.ones(n, dtype=bool)
    batches = []
    j = 0
    p1 = instance.times[:, 0]
    while remaining.any():
        length = float(ts[min(j, K)])
        allot = smallest_allotment(instance, length)
        cand = np.flatnonzero(remaining & (allot > 0))
        j += 1
        if cand.size == 0:
            if j > K + 1 + n:  # pragma: no cover - cannot happen: every task fits in C*_max
                raise RuntimeError("bicriteria: a task fits in no batch")
            continue
        small = cand[p1[cand] <= length / 2] if merge_small else cand[:0]
        big = np.setdiff1d(cand, small)
        columns = merge_small_tasks(small, p1, instance.weights, length) if small.size else []
        sizes = np.concatenate([allot[big], np.ones(len(columns), dtype=np.int64)])
        wts = np.concatenate([instance.weights[big], [instance.weights[c].sum() for c in columns]])
        _, chosen = knapsack_max_weight(sizes, wts, m)
        selected: list[int] = []
        items: list[list[int]] = []
        for c in chosen:
            if c < len(big):
                selected.append(int(big[c]))
                items.append([int(big[c])])
            else:
                selected.extend(columns[c - len(big)])
                items.append(list(columns[c - len(big)]))
        selected_a = np.asarray(sorted(selected), dtype=np.int64)
        remaining[selected_a] = False
        batches.append(Batch(length, selected_a, allot[selected_a], items))
    return batches


def batch_schedule(instance: MoldableInstance, batches: list[Batch]) -> Schedule:
    """The first, uncompacted schedule of §3.2: batch ``b`` starts at its own start
    (``t_j`` for ``j = 0..K``, then ``2 C*_max``, ``3 C*_max``... for the extra
    batches); every knapsack item gets a block of consecutive processors and the
    tasks of a merged column run one after the other on its processor.
    """
    n = instance.n
    start = np.zeros(n)
    procs = np.zeros(n, dtype=np.int64)
    processors: list = [None] * n
    t = batches[0].length if batches else 0.0
    for b in batches:
        t = max(t, b.length)  # batch j starts at t_j (= its length); extra batches follow each other
        first = 0
        allot = dict(zip(b.tasks.tolist(), b.allot.tolist()))
        for item in b.items:
            k = allot[item[0]] if len(item) == 1 else 1
            offset = 0.0
            for i in item:
                start[i] = t + offset
                procs[i] = k
                processors[i] = tuple(range(first, first + k))
                offset += instance.times[i, k - 1]
            first += k
        t += b.length
    return Schedule(start, procs, tuple(processors))


def _batch_list(instance: MoldableInstance, batches, batch_order) -> np.ndarray:
    """List of the compaction: batches in ``batch_order``; inside a batch, by
    decreasing ``w_i / p_i(allot_i)`` (Smith's ratio; our choice of local order), ties by index."""
    out = []
    for b in batch_order:
        _, tasks, allot, _ = batches[b]
        ratio = instance.weights[tasks] / instance.times[tasks, allot - 1]
        out.append(tasks[np.lexsort((tasks, -ratio))])
    return np.concatenate(out)


@REGISTRY.register("bicriteria")
def bicriteria(instance: MoldableInstance, *, shuffles: int = 10, rng=None, eps: float = 0.01,
               merge_small: bool = True, compact: bool = True, dual: str = "two-shelf") -> Result:
    """Bi-criteria knapsack-batch algorithm (seed 002 §3.2).

    Parameters
    ----------
    instance : MoldableInstance
    shuffles : int
        Number of seeded random permutations of the batch order tried after
        the natural order (the paper's "shuffled several times"); 0 disables.
    rng : Generator, int or None
        Seed of the shuffles (``np.random.default_rng``).
    eps : float
        Precision of the dual approximation's binary search (``C*_max``).
    merge_small : bool
        Merge small sequential tasks into columns before the knapsack.
    compact : bool
        ``False`` returns the first, uncompacted batch schedule
        (:func:`batch_schedule`; no shuffles).
    dual : {"two-shelf", "simple"}
        Dual approximation giving ``C*_max``
        (:func:`heuristics.moldable.dual_approx.dual_approximation`).

    Returns
    -------
    Result
        ``objective`` = ``sum w_i C_i``; ``extra``: ``makespan``, ``minsum``,
        ``cmax_guess`` (``C*_max``), ``makespan_lb``, ``batches``,
        ``best_shuffle`` (0 = natural order).

    Notes
    -----
    Steps: ``C*_max`` = the smallest accepted guess of the dual approximation
    (§3.2 "compute the approximate C*_max with the dual approximation
    algorithm"; :func:`heuristics.moldable.dual_approx.two_shelf_search` by
    default);
    ``t_min = min_{i,k} p_i(k)``, ``K = floor(log2(C*_max / t_min))``; batches by
    :func:`batch_selection`; compaction by Graham's list algorithm
    (:func:`heuristics.moldable.listsched.list_schedule`) in batch order with
    the allotments of the batches. Decision on "best" for the shuffles: the
    smallest ``sum w_i C_i``, ties by makespan, then the earlier candidate.
    Complexity ``O(m n K)`` for the knapsacks plus ``(shuffles + 1)`` list
    schedules.

    Examples
    --------
    >>> from vcsched.generators.moldable import generate_moldable_instance
    >>> r = bicriteria(generate_moldable_instance(16, 10, "high", rng=0), rng=0)
    >>> r.status.value
    'feasible'
    """
    if shuffles < 0:
        raise InvalidInputError(f"shuffles must be >= 0, got {shuffles}")
    t0 = time.perf_counter()
    rng = np.random.default_rng(rng)
    search = dual_approximation(instance, eps=eps, dual=dual)
    batches = batch_selection(instance, search.guess, merge_small=merge_small)
    allot = np.zeros(instance.n, dtype=np.int64)
    for b in batches:
        allot[b.tasks] = b.allot
    if not compact:
        return schedule_result("bicriteria", instance, batch_schedule(instance, batches), t0, cmax_guess=search.guess,
                               makespan_lb=search.lower, batches=len(batches), best_shuffle=0)
    natural = np.arange(len(batches))
    best_key, best_list, best_idx = None, None, 0
    for s in range(shuffles + 1):
        order = natural if s == 0 else rng.permutation(len(batches))
        tasks = _batch_list(instance, batches, order)
        end = completion_times(instance, list_schedule(instance, tasks, allot, with_processors=False))
        key = (float(np.dot(instance.weights, end)), float(end.max()))
        if best_key is None or key < best_key:
            best_key, best_list, best_idx = key, tasks, s
    best_sched = list_schedule(instance, best_list, allot)
    return schedule_result("bicriteria", instance, best_sched, t0, cmax_guess=search.guess,
                           makespan_lb=search.lower, batches=len(batches), best_shuffle=best_idx)
