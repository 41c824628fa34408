"""The two-shelf 3/2 + eps dual approximation of Mounié, Rapine and Trystram (seed 002 refs [7], [17]).

A *dual approximation* takes a guess ``lam`` of the optimal makespan and
either **rejects** it, with a proof that ``lam < C*_max``, or **accepts** it
with a schedule of makespan at most ``3 lam / 2``. A dichotomic search over
``lam`` then gives a schedule within ``(3/2)(1 + eps)`` of ``C*_max``
(:func:`two_shelf_search`). The ``C*_max`` estimate (the smallest accepted
guess), the allotment and the shelf order are what the bi-criteria
algorithm and the List-Graham baselines of seed 002 (§3.2, §4.1) start from.

The test for one guess (:func:`two_shelf_test`), following the description of
[7] (Dutot, Mounié, Trystram, *Handbook of Scheduling* ch. 28) and [17]
(Mounié, Rapine, Trystram, SPAA 1999; SIAM J. Comput. 37(2), 2007):

1. **Knapsack** (:func:`lowerbounds.moldable.dual_test`): every task goes to
   shelf ``S1`` (length ``lam``, allotment ``gamma(i, lam)``, the fewest
   processors with ``p_i(k) <= lam``) or shelf ``S2`` (length ``lam / 2``,
   allotment ``gamma(i, lam / 2)``); the processors of ``S1`` sum to at most
   ``m`` and the total work is the least possible. *Small* tasks
   (``p_i(1) <= lam / 2``) are sequential and kept apart. Rejection when some
   task has ``p_i(m) > lam`` or the least work exceeds ``m lam``: both are
   proofs that no schedule of length ``lam`` exists (the argument is in
   ``dual_test``'s docstring and holds for any input, monotonic or not).
2. **Transformations** (:func:`repair_shelves`): ``S2`` may need more than
   ``m`` processors. A third shelf ``S0`` of tasks running during the whole
   ``[0, 3 lam / 2]`` is built by three rules, applied while the processors of
   ``S0`` and ``S2`` exceed ``m``:

   * **(T3) move from S2**: when ``q = m - |S0| - |S1| > 0`` processors are
     free under ``S1`` and an ``S2`` task ``j`` has ``gamma(j, 3 lam / 2) <= q``,
     it moves there with that allotment (into ``S0`` if it then runs longer
     than ``lam``, else into ``S1``);
   * **(T2) stack**: two one-processor ``S1`` tasks of length ``<= 3 lam / 4``
     are stacked on one processor of ``S0``;
   * **(T1) shrink**: an ``S1`` task on ``k >= 2`` processors of length
     ``<= 3 lam / 4`` moves to ``S0`` on ``k - 1`` processors
     (``p(k - 1) <= p(k) k / (k - 1) <= 3 lam / 2`` under monotony; checked).

   Decisions (the sources do not fix them): T3 is tried first (it is the only
   rule that empties ``S2``), then T2, then T1; T3 picks the ``S2`` task with
   the largest ``S2`` allotment, T2 the two shortest eligible tasks, T1 the
   eligible task with the fewest processors (ties by task index everywhere).
3. **Layout**: ``S0`` on the first processors from time 0 (a stacked pair one
   after the other), ``S1`` on the next ones from time 0, ``S2`` on the same
   processors as ``S1`` (after ``S0``), each task *ending* at ``3 lam / 2``.
   So every processor has one idle gap; the small tasks are placed by
   decreasing ``p_i(1)`` (ties by index), each at the start of the first gap
   that holds it. Under monotony the transformations never increase the work
   (fewer processors, no more work), so if a small task fitted nowhere every
   processor would be busy more than ``lam`` and the work would exceed
   ``m lam``: the knapsack's acceptance excludes it.

**Monotony.** The guarantee of [17] needs monotonic tasks: ``p_i(k)``
non-increasing and the work ``k p_i(k)`` non-decreasing in ``k``
(:func:`vcsched.problems.moldable.is_monotonic`). The four generators of seed
002 §4.1 produce such tasks. On other input (or if the construction fails for
any reason) the test does not pretend: it list-schedules (Graham) the
allotment in shelf order and accepts if that schedule ends by ``3 lam / 2``
(``how = "list"``); otherwise the guess is **undecided** (neither a proof nor
a schedule). The search treats an undecided guess like a rejection for the
bisection but never reports it as a lower bound, and counts it
(``DualApproximation.undecided``). Every accepted schedule is a real schedule
of makespan ``<= 3 lam / 2``; the search's final schedule always passes the
checker (at worst the tasks one after the other, each on its fastest
allotment, of makespan ``sum_i min_k p_i(k)``, the initial upper guess).

``dual="simple"`` (:func:`simple_search`) is a simpler search, kept for
comparison: the same knapsack search, then Graham's list algorithm on the
knapsack's allotment, without the transformations and without the 3/2 claim.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from heuristics.moldable.listsched import list_schedule
from lowerbounds.moldable import dual_approximation_search, dual_test, smallest_allotment
from vcsched.errors import InvalidInputError
from vcsched.names.moldable import DUALS
from vcsched.problems.moldable import MoldableInstance, Schedule, completion_times
from vcsched.result import Result, Status

__all__ = [
    "S0", "S1", "S2", "SMALL", "SHELF_NAMES", "DUALS",
    "ShelfTest", "DualApproximation",
    "two_shelf_test", "repair_shelves", "two_shelf_search", "simple_search",
    "dual_approximation", "shelf_order", "two_shelf", "left_shift",
]

S0, S1, S2, SMALL = 0, 1, 2, 3
SHELF_NAMES = ("S0", "S1", "S2", "small")

_REL = 1e-12  # relative slack on time comparisons (floating point only)


@dataclasses.dataclass(frozen=True)
class ShelfTest:
    """Outcome of :func:`two_shelf_test` for one guess.

    Attributes
    ----------
    guess : float
    outcome : str
        ``"accepted"`` (``schedule`` has makespan ``<= 3 guess / 2``),
        ``"rejected"`` (proof that ``guess < C*_max``) or ``"undecided"``.
    how : str
        Accepted: ``"shelves"`` (the construction of [17]) or ``"list"`` (the
        list-scheduling fallback). Rejected: ``"too-long"`` (some
        ``p_i(m) > guess``) or ``"work"`` (knapsack work ``> m guess``).
        Undecided: why the construction failed.
    schedule : Schedule or None
    shelf : ndarray of int or None
        Final shelf of every task (:data:`S0`, :data:`S1`, :data:`S2`, :data:`SMALL`).
    transformations : tuple of int
        How many times T1, T2 and T3 were applied.
    """

    guess: float
    outcome: str
    how: str
    schedule: Schedule | None = None
    shelf: np.ndarray | None = None
    transformations: tuple = (0, 0, 0)

    @property
    def accepted(self) -> bool:
        return self.outcome == "accepted"

    @property
    def rejected(self) -> bool:
        return self.outcome == "rejected"


@dataclasses.dataclass(frozen=True)
class DualApproximation:
    """Outcome of :func:`two_shelf_search` (or :func:`simple_search`).

    Attributes
    ----------
    method : str
        ``"two-shelf"`` or ``"simple"``.
    lower : float
        Proven lower bound on ``C*_max`` (largest guess rejected by proof, or
        the area / longest-task bound).
    guess : float
        Smallest accepted guess: the "approximate ``C*_max``" of seed 002 §3.2.
    schedule : Schedule
        The schedule built for ``guess`` (checked-valid, explicit processors).
    shelf : ndarray of int
        Shelf of every task in that schedule (``S0``, ``S1``, ``S2``, ``SMALL``).
    makespan : float
    guaranteed : bool
        ``makespan <= 3 guess / 2`` (always true for ``two-shelf``).
    iterations : int
        Guesses tested.
    undecided : int
        Guesses neither accepted nor rejected by proof (0 on monotonic input).
    how : str
        How the final schedule was built (``"shelves"``, ``"list"``, ``"serial"``).
    """

    method: str
    lower: float
    guess: float
    schedule: Schedule
    shelf: np.ndarray
    makespan: float
    guaranteed: bool
    iterations: int
    undecided: int
    how: str

    @property
    def allotment(self) -> np.ndarray:
        """Number of processors of every task in :attr:`schedule`."""
        return self.schedule.procs

    @property
    def in_first_shelf(self) -> np.ndarray:
        """Tasks of ``S0`` or ``S1`` (those that start the schedule, shelf order first)."""
        return self.shelf <= S1


# --------------------------------------------------------------------------- one guess

def _initial_shelves(instance: MoldableInstance, lam: float, in1: np.ndarray):
    """Shelves and allotments of the knapsack solution: ``S1`` at ``gamma(lam)``,
    ``S2`` at ``gamma(lam / 2)``, small tasks (``p_i(1) <= lam / 2``, not in ``S1``) on one processor."""
    shelf = np.where(in1, S1, S2)
    small = ~in1 & (instance.times[:, 0] <= lam / 2)
    shelf[small] = SMALL
    allot = np.where(in1, smallest_allotment(instance, lam), smallest_allotment(instance, lam / 2))
    allot[small] = 1
    return shelf, allot


def repair_shelves(instance: MoldableInstance, lam: float, shelf: np.ndarray, allot: np.ndarray):
    """Transformations T1-T3 of [17] (module docstring) until ``|S0| + |S2| <= m``.

    Parameters
    ----------
    shelf, allot : ndarray
        Shelves and allotments of the knapsack solution (not modified).

    Returns
    -------
    shelf, allot, stacks, counts, ok
        New shelves and allotments; ``stacks`` lists the ``S0`` columns (one
        task, or two stacked one-processor tasks) in creation order;
        ``counts`` = applications of (T1, T2, T3); ``ok`` whether
        ``|S0| + |S2| <= m`` was reached (``|S0| + |S1| <= m`` always holds).
    """
    m = instance.m
    times = instance.times
    shelf, allot = shelf.copy(), allot.copy()
    dur = times[np.arange(instance.n), allot - 1]
    stacks: list[tuple[int, ...]] = []
    used0 = 0
    counts = [0, 0, 0]
    long_cap = 1.5 * lam * (1 + _REL)
    quarter = 0.75 * lam * (1 + _REL)
    gamma_long = smallest_allotment(instance, 1.5 * lam)
    while True:
        in1, in2 = shelf == S1, shelf == S2
        used1, used2 = int(allot[in1].sum()), int(allot[in2].sum())
        if used0 + used2 <= m:
            return shelf, allot, stacks, tuple(counts), True
        free = m - used0 - used1
        # T3: an S2 task onto the free processors under S1, at gamma(3 lam / 2)
        movable = np.flatnonzero(in2 & (gamma_long > 0) & (gamma_long <= free))
        if movable.size:
            j = int(movable[np.lexsort((movable, -allot[movable]))[0]])
            k = int(gamma_long[j])
            allot[j], dur[j] = k, times[j, k - 1]
            if dur[j] > lam * (1 + _REL):
                shelf[j] = S0
                stacks.append((j,))
                used0 += k
            else:
                shelf[j] = S1
            counts[2] += 1
            continue
        short = in1 & (dur <= quarter)
        # T2: two one-processor S1 tasks of length <= 3 lam / 4 stacked on one processor
        pair = np.flatnonzero(short & (allot == 1))
        if pair.size >= 2:
            a, b = (int(x) for x in pair[np.lexsort((pair, dur[pair]))[:2]])
            shelf[[a, b]] = S0
            stacks.append((a, b))
            used0 += 1
            counts[1] += 1
            continue
        # T1: an S1 task on k >= 2 processors, length <= 3 lam / 4, onto k - 1 processors
        shrink = np.flatnonzero(short & (allot >= 2))
        shrink = shrink[times[shrink, allot[shrink] - 2] <= long_cap]
        if shrink.size:
            j = int(shrink[np.lexsort((shrink, allot[shrink]))[0]])
            k = int(allot[j]) - 1
            allot[j], dur[j] = k, times[j, k - 1]
            shelf[j] = S0
            stacks.append((j,))
            used0 += k
            counts[0] += 1
            continue
        return shelf, allot, stacks, tuple(counts), False


def _layout(instance: MoldableInstance, lam: float, shelf: np.ndarray, allot: np.ndarray, stacks) -> Schedule | None:
    """Place ``S0``, ``S1``, ``S2`` (ending at ``3 lam / 2``) and the small tasks
    in the idle gaps (module docstring, step 3). ``None`` if a small task fits nowhere."""
    n, m = instance.n, instance.m
    dur = instance.times[np.arange(n), allot - 1]
    top = 1.5 * lam
    start = np.zeros(n)
    processors: list = [None] * n
    gap_lo = np.zeros(m)      # end of the work placed from time 0 on each processor
    gap_hi = np.full(m, top)  # start of the S2 task ending at 3 lam / 2
    p = 0
    for stack in stacks:
        k = int(allot[stack[0]])
        t = 0.0
        for i in stack:
            start[i], processors[i] = t, tuple(range(p, p + k))
            t += dur[i]
        gap_lo[p:p + k] = t
        p += k
    first = p
    for i in np.flatnonzero(shelf == S1):
        k = int(allot[i])
        processors[i] = tuple(range(p, p + k))
        gap_lo[p:p + k] = dur[i]
        p += k
    p = first
    for i in np.flatnonzero(shelf == S2):
        k = int(allot[i])
        start[i], processors[i] = top - dur[i], tuple(range(p, p + k))
        gap_hi[p:p + k] = top - dur[i]
        p += k
    small = np.flatnonzero(shelf == SMALL)
    slack = top * _REL
    for i in small[np.lexsort((small, -dur[small]))]:
        fits = gap_hi - gap_lo >= dur[i] - slack
        q = int(fits.argmax())
        if not fits[q]:
            return None
        start[i], processors[i] = gap_lo[q], (q,)
        gap_lo[q] += dur[i]
    return Schedule(start, allot.copy(), tuple(processors))


def shelf_order(instance: MoldableInstance, search) -> np.ndarray:
    """Order of [7] (§4.1 "the order of [7]"): ``S0``, ``S1``, then ``S2``, then
    the small tasks; inside a shelf by decreasing processing time (our choice;
    the paper does not say), ties by index. ``search`` has ``shelf`` and ``allotment``."""
    return _order_by_shelf(instance, search.shelf, np.asarray(search.allotment))


def _order_by_shelf(instance: MoldableInstance, shelf: np.ndarray, allot: np.ndarray) -> np.ndarray:
    n = instance.n
    dur = instance.times[np.arange(n), allot - 1]
    return np.lexsort((np.arange(n), -dur, shelf))


def _list_fallback(instance: MoldableInstance, shelf: np.ndarray, allot: np.ndarray) -> Schedule:
    """Graham's list algorithm on ``allot`` in shelf order."""
    return list_schedule(instance, _order_by_shelf(instance, shelf, allot), allot)


def two_shelf_test(instance: MoldableInstance, guess: float) -> ShelfTest:
    """The two-shelf dual test of [7]/[17] for one guess ``lam`` (module docstring).

    Returns
    -------
    ShelfTest
        ``accepted`` with a schedule of makespan ``<= 3 guess / 2`` (up to a
        relative ``1e-12`` of floating point), ``rejected`` (a proof that
        ``guess < C*_max``), or ``undecided`` (only on non-monotonic input, or if
        the construction fails: then no claim is made).

    Examples
    --------
    >>> from vcsched.problems.moldable import MoldableInstance
    >>> inst = MoldableInstance.from_arrays(2, [[4.0, 2.0], [1.0, 1.0]])
    >>> two_shelf_test(inst, 2.4).outcome, two_shelf_test(inst, 2.5).outcome
    ('rejected', 'accepted')
    """
    if not (np.isfinite(guess) and guess > 0):
        raise InvalidInputError(f"guess must be a positive finite number, got {guess!r}")
    lam = float(guess)
    ok, in1 = dual_test(instance, lam, keep_choices=True)
    if not ok:
        how = "too-long" if in1 is None else "work"
        return ShelfTest(lam, "rejected", how)
    shelf, allot = _initial_shelves(instance, lam, in1)
    shelf, allot, stacks, counts, fitted = repair_shelves(instance, lam, shelf, allot)
    sched = _layout(instance, lam, shelf, allot, stacks) if fitted else None
    if sched is not None:
        return ShelfTest(lam, "accepted", "shelves", sched, shelf, counts)
    fallback = _list_fallback(instance, shelf, allot)
    if completion_times(instance, fallback).max() <= 1.5 * lam * (1 + _REL):
        return ShelfTest(lam, "accepted", "list", fallback, shelf, counts)
    why = "small tasks do not fit" if fitted else "transformations cannot fit S0 + S2 on m processors"
    return ShelfTest(lam, "undecided", why, None, shelf, counts)


# --------------------------------------------------------------------------- search

def _serial_fastest(instance: MoldableInstance) -> Schedule:
    """Tasks one after the other, each on its fastest allotment (makespan ``sum_i min_k p_i(k)``)."""
    allot = instance.times.argmin(axis=1) + 1
    end = np.cumsum(instance.min_time)
    start = end - instance.min_time
    return Schedule(start, allot.astype(np.int64), tuple(tuple(range(k)) for k in allot.tolist()))


def _initial_bounds(instance: MoldableInstance) -> tuple[float, float]:
    lo = max(float(instance.min_work.sum() / instance.m), float(instance.min_time.max()))
    return lo, float(instance.min_time.sum())


def _check_eps(eps: float) -> None:
    if not (np.isfinite(eps) and eps > 0):
        raise InvalidInputError(f"eps must be a positive finite number, got {eps!r}")


def two_shelf_search(instance: MoldableInstance, *, eps: float = 0.01) -> DualApproximation:
    """Dichotomic search of the two-shelf dual approximation: a ``(3/2)(1 + eps)`` schedule.

    Parameters
    ----------
    instance : MoldableInstance
    eps : float
        Relative precision: the search stops when ``hi <= (1 + eps) lo``.

    Returns
    -------
    DualApproximation

    Notes
    -----
    ``lo`` starts at ``max(sum_i min_k k p_i(k) / m, max_i min_k p_i(k))`` (a
    proven bound) and ``hi`` at ``sum_i min_k p_i(k)`` (the tasks one after the
    other, each at its fastest: a schedule of makespan ``hi``). Each tested
    guess is accepted (``hi`` moves down, its schedule is kept), rejected by
    proof (``lo`` and the proven ``lower`` move up) or undecided (``lo`` moves
    up, ``lower`` does not). On monotonic input no guess is undecided, so
    ``guess <= (1 + eps) lower <= (1 + eps) C*_max`` and the makespan is at most
    ``(3/2)(1 + eps) C*_max``. Complexity ``O(n m log((hi / lo) / eps))`` for
    the knapsacks, plus ``O(n (n + m))`` per accepted guess for the
    transformations and the layout.

    Examples
    --------
    >>> from vcsched.generators.moldable import generate_moldable_instance
    >>> d = two_shelf_search(generate_moldable_instance(16, 12, "high", rng=0))
    >>> bool(d.makespan <= 1.5 * d.guess <= 1.5 * 1.01 * d.lower)
    True
    """
    _check_eps(eps)
    lo, hi = _initial_bounds(instance)
    lower = lo
    best = None
    iterations, undecided = 1, 0
    first = two_shelf_test(instance, lo)
    if first.accepted:
        hi, best = lo, first
    while hi > lo * (1 + eps):
        mid = 0.5 * (lo + hi)
        test = two_shelf_test(instance, mid)
        iterations += 1
        if test.accepted:
            hi, best = mid, test
        elif test.rejected:
            lo = lower = mid
        else:
            lo = mid
            undecided += 1
    if best is None:  # every tested guess was below hi: test hi itself
        best = two_shelf_test(instance, hi)
        iterations += 1
    if best.accepted:
        sched, shelf, how = best.schedule, best.shelf, best.how
    else:  # the tasks one after the other, each at its fastest: makespan exactly hi
        sched, shelf, how = _serial_fastest(instance), np.full(instance.n, S0), "serial"
    makespan = float(completion_times(instance, sched).max())
    return DualApproximation("two-shelf", lower, hi, sched, shelf, makespan,
                             makespan <= 1.5 * hi * (1 + _REL), iterations, undecided, how)


def simple_search(instance: MoldableInstance, *, eps: float = 0.01) -> DualApproximation:
    """The simpler dual approximation (``dual="simple"``).

    :func:`lowerbounds.moldable.dual_approximation_search` (knapsack test in a
    binary search, same ``lower`` and, on monotonic input, the same ``guess`` as
    :func:`two_shelf_search`), then Graham's list algorithm on the knapsack
    allotment (``gamma(lam)`` in ``S1``, ``gamma(lam / 2)`` otherwise) in shelf
    order; no transformations, so ``guaranteed`` says whether the schedule
    happens to end by ``3 guess / 2``.
    """
    _check_eps(eps)
    search = dual_approximation_search(instance, eps=eps)
    shelf, allot = _initial_shelves(instance, search.guess, search.in_first_shelf)
    sched = _list_fallback(instance, shelf, allot)
    makespan = float(completion_times(instance, sched).max())
    return DualApproximation("simple", search.lower, search.guess, sched, shelf, makespan,
                             makespan <= 1.5 * search.guess * (1 + _REL), search.iterations, 0, "list")


_SEARCHES = {"two-shelf": two_shelf_search, "simple": simple_search}


def dual_approximation(instance: MoldableInstance, *, eps: float = 0.01, dual: str = "two-shelf") -> DualApproximation:
    """The dual approximation of [7] used by the moldable heuristics.

    ``dual="two-shelf"`` (default): :func:`two_shelf_search`, the 3/2 + eps
    algorithm with the shelf transformations. ``dual="simple"``:
    :func:`simple_search`, knapsack then list scheduling (kept for
    comparison).
    """
    try:
        search = _SEARCHES[dual]
    except (KeyError, TypeError):
        raise InvalidInputError(f"dual must be one of {', '.join(DUALS)}; got {dual!r}") from None
    return search(instance, eps=eps)


def left_shift(instance: MoldableInstance, schedule: Schedule) -> Schedule:
    """Start every task as early as its own processors allow, keeping processors and order.

    Tasks are taken by start time (ties by index); each starts when the last
    task before it on any of its processors ends. No task starts later than
    in ``schedule`` (induction on the order), so both criteria can only
    improve, and no two tasks of a processor overlap.
    """
    if schedule.processors is None:
        raise InvalidInputError("left_shift needs a schedule with explicit processors")
    n = instance.n
    dur = instance.times[np.arange(n), np.asarray(schedule.procs) - 1]
    free = np.zeros(instance.m)
    start = np.zeros(n)
    for i in np.lexsort((np.arange(n), schedule.start)):
        procs = list(schedule.processors[i])
        start[i] = free[procs].max()
        free[procs] = start[i] + dur[i]
    return Schedule(start, np.asarray(schedule.procs).copy(), schedule.processors)


def two_shelf(instance: MoldableInstance, *, eps: float = 0.01, dual: str = "two-shelf", compact: bool = True,
              rng=None) -> Result:
    """The dual approximation's own schedule as a :class:`Result` (not in the registry).

    ``compact=True`` applies :func:`left_shift` (the shelves end at exactly
    ``3 lam / 2``; shifting keeps the guarantee and removes idle time).
    ``objective`` is ``sum w_i C_i``; ``extra``: ``makespan``, ``minsum``,
    ``cmax_guess``, ``makespan_lb`` (proven), ``guaranteed``, ``undecided``,
    ``how``, ``iterations``. ``rng`` is accepted for a uniform signature and unused.
    """
    t0 = time.perf_counter()
    d = dual_approximation(instance, eps=eps, dual=dual)
    sched = left_shift(instance, d.schedule) if compact else d.schedule
    end = completion_times(instance, sched)
    minsum = float(np.dot(instance.weights, end))
    return Result(method=f"dual-{d.method}", status=Status.FEASIBLE, objective=minsum, solution=sched,
                  seconds=time.perf_counter() - t0,
                  extra={"makespan": float(end.max()), "minsum": minsum, "cmax_guess": d.guess, "makespan_lb": d.lower,
                         "guaranteed": d.guaranteed, "undecided": d.undecided, "how": d.how,
                         "iterations": d.iterations})
