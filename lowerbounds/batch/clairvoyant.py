"""The upper side of the batch references: the best clairvoyant schedule found, per metric.

Every value reported here is the metric (:func:`lowerbounds.batch.instance.schedule_metrics`) of a
schedule of the clairvoyant relaxation (:mod:`lowerbounds.batch.instance`) that
:func:`~lowerbounds.batch.instance.check_batch_schedule` accepted: the optimum of that metric is at
most this value. Schedules come from two constructions of :mod:`lowerbounds.batch._listsched`, each
driven by a static key per job (smaller first); the search is over keys:

* ``easy`` (:func:`~lowerbounds.batch._listsched.list_schedule`): list scheduling in time with exact
  durations and EASY backfilling; the queue at each instant holds the jobs submitted so far;
* ``serial`` (:func:`~lowerbounds.batch._listsched.serial_schedule`): serial generation, each job in
  key order at its earliest feasible start given the jobs placed before it, submitted earlier or later
  (clairvoyant: room is kept for a short job that will arrive).

0. **Tiny workloads** (:mod:`lowerbounds.batch.exhaust`): when every list and cluster assignment can be
   enumerated, the serial construction over all of them gives each metric's optimum (method ``exhaustive``),
   and no search runs.
1. **Portfolio** (:data:`~lowerbounds.batch.portfolio.PORTFOLIO`): keys built from the submission ``r_j`` and the
   shortest duration ``p_j = min_k p_jk``: ``r + a p`` for several ``a`` (``a = 0`` is FCFS; ``r + S p`` is the
   deadline of stretch ``S``, so the key is EDF for that target), shortest first (``p``, ``easy``
   only), longest first (``-p``, for the makespan), with each construction, and tiers (``serial``: submission
   order, the jobs of ``p >= X`` after the others, and tiers of duration and area, for the bounded slowdown). Each
   is run once, until the work budget is spent (never stopped by the clock), and every metric is read off its
   schedule.
2. **Improvement**, one metric at a time, within ``iterations`` schedules (and the time limit):

   * max stretch: descent on the target ``S`` (deadlines ``r + S p``), each target met by repairing the serial
     construction's list: each late job moves up the list just far enough to meet its deadline
     (:mod:`lowerbounds.batch.stretchrepair`), with restarts from several first targets
     (:data:`~lowerbounds.batch.stretchsearch.STRETCH_STARTS`, multiples of the stretch lower bound); the best list's
     schedule is built in full and checked (:mod:`lowerbounds.batch.stretchsearch`);
   * the mean response time and mean bounded slowdown, when the best ``easy`` entry of the portfolio is within
     :data:`KEY_START` of the best entry: local search on that entry's key, one key per job, each move
     evaluated by incremental re-simulation (:mod:`lowerbounds.batch.keysearch`, :data:`KEY_SHARE` of the
     metric's budget); the final keys' schedule is built in full and checked;
   * the makespan (when the portfolio's value is not already within 1e-4 of the lower bound passed in ``lower``):
     forward-backward improvement and list moves (:mod:`lowerbounds.batch.makespanfbi`);
   * otherwise: local search on the key. The trace is cut, in submission order, into
     :data:`BLOCKS` blocks; the key is ``r + a_b p_j``, with one coefficient ``a_b`` per block, starting
     from the best portfolio entry (its construction, and its ``a``; 64 for a pure key); for the bounded slowdown
     or from a tier, each block also has a tier threshold ``X_b`` (:func:`lowerbounds.batch.blocksearch.block_key`).
     Then the serial construction runs once over the best schedule's start order (it often moves
     jobs earlier into room the first construction left), kept when better; then local search on that
     list (a squeaky-wheel move): a job drawn with probability proportional to what it adds to the
     metric above its own best (its wait for the response time, its bounded slowdown above the one it
     would have without waiting) gets its key (its start) lowered by a uniform share of its wait, the
     serial construction runs again, and the move is kept when the metric improves; it stops after
     ``list_moves`` schedules or ``2 patience`` moves without improvement. The block search has the
     first half of the metric's time share, the list moves the rest. A move multiplies
     one block's coefficient by a factor drawn from ``{1/4, 1/2, 2, 4}`` (or sets it to 0), and is
     kept when the metric improves (first improvement). The search stops after ``patience`` moves
     without improvement (the bounded slowdown's, from :data:`WINDOW_JOBS` jobs on, :data:`BSLD_BLOCK_PATIENCE` times as
     many).
   * last (mean response, mean bounded slowdown), large-neighbourhood search: windows re-sequenced against the others
     (:mod:`lowerbounds.batch.windowsearch`) from :data:`WINDOW_JOBS` jobs on, window MILPs (:func:`_lns`) below
     (the mean response time: from :data:`RESPONSE_WINDOW_JOBS`, with its own patience below :data:`WINDOW_JOBS`);
     from then on, the mean response time's list moves and windows share what the key search
     leaves by a race on their measured rates (:mod:`lowerbounds.batch.steprace`) instead of a fixed split, each
     window slice followed by the serial construction over its start order (:func:`_windows`); from
     :data:`~lowerbounds.batch.responseroll.ROLL_JOBS` jobs on, list moves rolled over pieces of the trace race
     with them (:mod:`lowerbounds.batch.responseroll`).
   * for the mean bounded slowdown, its list moves place again only the part of the list a move changes, from a kept
     state of the construction (:mod:`lowerbounds.batch.bsldlist`: the same schedules, fewer work units a move).
   * for the mean bounded slowdown from :data:`WINDOW_JOBS` jobs on, queue windows between its list moves and its
     windows (:mod:`lowerbounds.batch.bsldqueue`, half of what the list moves leave), and its own patience rule:
     while the windows stop by their patience with work left, the list moves and the windows run again, until a
     round improves nothing (:func:`_bsld_rounds`).
   * for the mean bounded slowdown, last, its tail (the jobs that start after the last submission) re-sequenced by
     Smith's ratio (one schedule), then by the window kernel's descent within the work left
     (:mod:`lowerbounds.batch.bsldtail`).

Without a patience, each step stops after :data:`SATURATION` times its neighbourhood's size of moves without
improvement (:func:`_patience`), so that a small workload ends at once.

Reproducibility: the moves of metric ``m`` are drawn from its own stream, ``numpy.random.default_rng((seed, i))``
with ``i`` the index of ``m`` in :data:`~lowerbounds.batch.instance.METRICS`, and the result is a function of
``(seed, budget, iterations, patience)`` alone whenever the time limit does not stop the search first; each result
says how many schedules were evaluated and why the search stopped. The time limit is a safety stop on
:func:`vcsched.jitclock.clock`, which leaves out numba's compile time (the first run after an installation compiles
the kernels inside the search). A metric it stops is deemed to have used its whole work share
(:class:`~lowerbounds.batch._searchstep.Shares`), so that, with its own random stream, the metrics after it get
the budgets and the moves of a run that the clock did not stop.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from lowerbounds.batch._listsched import gated_serial_counted, list_schedule_counted, serial_schedule_counted
from lowerbounds.batch._searchstep import CHECK_WORK, Best, Limit, Shares
from lowerbounds.batch.blocksearch import BLOCKS, FACTORS, block_search
from lowerbounds.batch.bsldlist import bsld_list_search
from lowerbounds.batch.bsldqueue import QUEUE_SHARE, queue_search
from lowerbounds.batch.bsldtail import smith_tail, tail_descent
from lowerbounds.batch.exhaust import enumeration_size, exhaustive_schedules
from lowerbounds.batch.instance import (
    METRICS,
    BatchInstance,
    bounded_slowdown,
    check_batch_schedule,
    schedule_metrics,
)
from lowerbounds.batch.keysearch import KEY_PATIENCE, KeySearch, search_keys
from lowerbounds.batch.lns import LNS_METRICS, solve_window, window_around
from lowerbounds.batch.makespanfbi import FBI_PATIENCE, fbi_search
from lowerbounds.batch.portfolio import PORTFOLIO, QUICK_PORTFOLIO, key_name, portfolio_key
from lowerbounds.batch.responseroll import ROLL_JOBS, RollSearch, squeaky_key
from lowerbounds.batch.steprace import race
from lowerbounds.batch.stretchsearch import stretch_search
from lowerbounds.batch.windowsearch import WindowSearch, search_windows
from vcsched.errors import InvalidInputError
from vcsched.jitclock import clock

__all__ = ["ClairvoyantSchedule", "clairvoyant_schedules", "run_key", "PORTFOLIO", "QUICK_PORTFOLIO", "BLOCKS"]

WORK_PER_SECOND = 200e6
"""Work units (:attr:`_Evaluator.work`) the search is given per second of its time limit: measured on a 2-core
machine under a load of about 2, the constructions ran 180-290 million units per second, so a search sized
by it ends before the clock at such loads."""
EASY_WORK = 4
"""Work units per elementary step of the list construction (a step there costs about four of the serial one's)."""
SATURATION = 4
"""Without a patience, a step stops after this many times its neighbourhood's size of moves without improvement
(:func:`_patience`)."""
BSLD_BLOCK_SHARE = 0.7
"""Share of the bounded slowdown's budget for the block search (0.5 for the other metrics): with the area rows it
gains more per unit than the list moves after it (CTC-SP2 1.753 -> 1.689 at 2.5e9 units; the same elsewhere)."""
BSLD_BLOCK_PATIENCE = 3
"""From :data:`WINDOW_JOBS` jobs on, the bounded slowdown's block search stops after this many times the block moves
without improvement the others stop after (about a third of its neighbourhood of 4 rows, 16 blocks and 5 factors with
the patience of ``best``): with 40 it stopped while improving moves were left (CTC-SP2 at the ``--time-limit 600``
share, seed 0: 1.687 at 4.7e9 units, with 120 1.597 at 1.4e10), and the seed moved its end (and the search's) the
most. Below, the patience given (SDSC-SP2's busiest week, 749 jobs, went 1.567 -> 1.583 with it)."""
BSLD_ROUNDS = 8
"""Rounds of list moves and windows the bounded slowdown runs again while its last step stops by patience with
work left and the round before improved (:func:`_bsld_rounds`)."""
LNS_SHARE = 0.2
"""Share of a metric's budget (mean response, mean bounded slowdown) for the window MILPs (the last step)."""
LNS_WINDOW = 24
"""Jobs around the drawn one in a window (the window keeps those that end by its third quartile of completions)."""
LNS_WORK = 250_000
"""Work units charged per column of a window MILP (about 1-3 s for 1,500 columns, the time of as many units)."""
KEY_SHARE = 0.85
"""Share of a metric's budget (mean response, mean bounded slowdown) for the key search of the list construction."""
WINDOW_JOBS, WINDOW_SHARES, WINDOW_PATIENCE = 1000, (0.7, 0.5), 10
"""From ``WINDOW_JOBS`` jobs on the window search replaces the window MILPs; ``WINDOW_SHARES``: the key search's share
of the budget, the list moves' share of the rest (the windows have the rest); their patience is 10 times the others'."""
RESPONSE_WINDOW_JOBS, RESPONSE_PATIENCE = 100, 10
"""The mean response time's own: its window search and race from ``RESPONSE_WINDOW_JOBS`` jobs on (not
:data:`WINDOW_JOBS`), and below ``WINDOW_JOBS`` its patience there ``RESPONSE_PATIENCE`` times the one given (its key
search stopped early on SDSC-SP2's busiest week: 7,182 key moves, then 2,000 without a gain). Smaller workloads keep
the window MILPs, whole traces (``WINDOW_JOBS`` jobs and more) the patience given."""
KEY_START = 1.5
"""The key search runs when the list construction's best portfolio value is within this factor of the best one
(for the bounded slowdown the serial construction is usually far better, and the key search is skipped)."""
_WEIGHT = {"makespan": 0.25}
"""Relative time share of a metric's search (1 unless listed): the makespan is rarely far from its bound."""


@dataclasses.dataclass(frozen=True)
class ClairvoyantSchedule:
    """The best schedule found for one metric: its ``value`` (an upper bound on the optimum), the ``method``
    (``portfolio``, ``local search``, ``repair``, ``exhaustive`` (the optimum of a tiny workload) or ``exact``), ``detail`` (the key), ``seconds`` spent on the metric,
    ``evaluations`` (schedules built for it), ``stopped`` (``iterations``, ``patience``, ``time_limit`` or
    ``done``) and the schedule itself: ``cluster[j]``, ``start[j]`` (rows of the instance)."""

    metric: str
    value: float | None
    method: str
    detail: str
    seconds: float
    evaluations: int
    stopped: str
    cluster: np.ndarray
    start: np.ndarray

    def to_dict(self) -> dict:
        return {"value": self.value, "method": self.method, "seconds": self.seconds, "detail": self.detail,
                "evaluations": self.evaluations, "stopped": self.stopped}


class _Evaluator:
    """Runs keys on the instance (sorted by submission once) and checks every schedule it returns."""

    def __init__(self, inst: BatchInstance) -> None:
        self.inst = inst
        self.order = np.argsort(inst.release, kind="stable")
        o = self.order
        self.release = np.ascontiguousarray(inst.release[o])
        self.width = np.ascontiguousarray(inst.width[o].astype(np.int64))
        self.duration = np.ascontiguousarray(inst.duration[o])
        self.procs = np.ascontiguousarray(inst.procs.astype(np.int64))
        self.count = 0
        self._work = np.zeros(1, dtype=np.int64)

    @property
    def work(self) -> int:
        """Work units spent so far: the constructions' elementary steps (:func:`list_schedule_counted`) plus
        :data:`~lowerbounds.batch._searchstep.CHECK_WORK` per job for each schedule's check and metrics. Machine-independent: the search's budget
        is counted in these units, so that a run is reproducible."""
        return int(self._work[0])

    def charge(self, units: float) -> None:
        """Add ``units`` of work done outside the constructions (a window MILP)."""
        self._work[0] += int(units)

    def run(self, key_sorted: np.ndarray, kernel: str = "easy", gates=None):
        """Schedule with ``key_sorted`` (one key per job in submission order) by the construction ``kernel``
        (``easy`` or ``serial``, with ``gates``, if given, :func:`~lowerbounds.batch.stretchgate.stretch_gates`'
        tuple); ``(metrics, cluster, start)``."""
        key = np.ascontiguousarray(key_sorted, dtype=float)
        if kernel == "serial" and gates is not None:
            clus_s, start_s = gated_serial_counted(self.release, self.width, self.duration, self.procs,
                                                   np.argsort(key, kind="stable"), *gates, self._work)
        elif kernel == "serial":
            clus_s, start_s = serial_schedule_counted(self.release, self.width, self.duration, self.procs,
                                                      np.argsort(key, kind="stable"), self._work)
        else:
            w0 = self._work[0]
            clus_s, start_s = list_schedule_counted(self.release, self.width, self.duration, self.procs, key,
                                                    self._work)
            self._work[0] += (EASY_WORK - 1) * (self._work[0] - w0)
        self.count += 1
        self._work[0] += CHECK_WORK * key.size
        cluster = np.empty_like(clus_s)
        start = np.empty_like(start_s)
        cluster[self.order], start[self.order] = clus_s, start_s
        check_batch_schedule(self.inst, cluster, start)
        return schedule_metrics(self.inst, cluster, start), cluster, start


def run_key(inst: BatchInstance, key: np.ndarray, kernel: str = "easy"):
    """The checked schedule of ``key`` (one per job, smaller first) by ``kernel``: ``(metrics, cluster, start)``."""
    ev = _Evaluator(inst)
    return ev.run(np.asarray(key, dtype=float)[ev.order], kernel)


def _features(ev: _Evaluator) -> dict:
    """``p``: each job's shortest duration; ``span``: more than the spread of the submissions (a tier's offset);
    ``area``: ``q p`` in hours of the largest cluster (the ``tiers`` keys of :mod:`~lowerbounds.batch.portfolio`)."""
    p = ev.duration.min(axis=1)
    return {"p": p, "span": float(ev.release[-1] - ev.release[0]) + 1.0, "area": ev.width * p / (3600.0 * ev.procs.max())}


def _portfolio(ev: _Evaluator, feats: dict, metrics: tuple, work_end: float, pairs: tuple = PORTFOLIO):
    """Run every pair, in order, until the work counter reaches ``work_end`` (never the clock: the portfolio's
    schedules are a function of the instance and the budget); ``(best, best_easy)``: per metric the best entry, and
    the best entry of the list construction (the start of the key search)."""
    best: dict = {}
    best_easy: dict = {}
    for kernel, a in pairs:
        if best and ev.work >= work_end:
            break
        values, cluster, start = ev.run(portfolio_key(a, ev.release, feats), kernel)
        for m in metrics:
            v = values[m]
            entry = Best(v, "portfolio", key_name(kernel, a), cluster, start, kernel, a)
            if v is not None and (m not in best or v < best[m].value):
                best[m] = entry
            if v is not None and kernel == "easy" and (m not in best_easy or v < best_easy[m].value):
                best_easy[m] = entry
    return best, best_easy


def clairvoyant_schedules(inst: BatchInstance, *, metrics: tuple = METRICS, time_limit: float = 30.0,
                          seed: int = 0, iterations: int | None = None, patience: int | None = None,
                          quick: bool = False, stretch_low: float | None = None, list_moves: int | None = None,
                          lower: dict | None = None, budget: float | None = None) -> dict:
    """The best clairvoyant schedule found for each metric (see the module docstring).

    Parameters
    ----------
    inst : BatchInstance
    metrics : tuple of str
        Among ``makespan, mean_response, mean_bounded_slowdown, max_stretch``.
    time_limit : float
        Wall-clock seconds: a safety stop only (the search is sized by ``budget``); a search it stops says
        ``stopped: time_limit`` and is not reproducible.
    seed : int
        Seed of the local search's moves.
    budget : float, optional
        Work units for the whole search, portfolio included (:attr:`_Evaluator.work`, machine-independent);
        default :data:`WORK_PER_SECOND` ``* time_limit * 0.8``. The improvement steps share what the portfolio
        leaves, in the order of ``metrics``.
    iterations, patience : int, optional
        Caps on the schedules per metric in the improvement step (the block search, the stretch repair's rounds), and
        moves without improvement before the block search stops (twice as many for the list moves); None: no cap on
        the schedules, and each step stops after :data:`SATURATION` times its neighbourhood's size of moves without
        improvement (:func:`_patience`: a small workload ends at once, a whole trace on its budget).
    lower : dict, optional
        Lower bounds per metric: a metric whose portfolio value meets its bound within 1e-4 is not searched
        (the makespan, usually).
    list_moves : int, optional
        Cap on the schedules per metric in the list moves (default ``5 * iterations``, none without iterations).
    quick : bool
        The portfolio only (:data:`QUICK_PORTFOLIO`).
    stretch_low : float, optional
        A lower bound on the max stretch, the unit of the repair's first targets (default 1).

    Returns
    -------
    dict
        ``{metric: ClairvoyantSchedule}``; the schedules are rows of ``inst``. An interrupt (Ctrl-C) during the
        improvement keeps the best schedule found before the metric's search began, marked ``stopped``
        ``interrupted``.
    """
    bad = [m for m in metrics if m not in METRICS]
    if bad:
        raise InvalidInputError(f"metric {bad[0]!r} is unknown; choose among: {', '.join(METRICS)}")
    if len(inst) == 0:
        raise InvalidInputError("the workload has no job")
    t0, c0 = time.perf_counter(), clock()
    ev = _Evaluator(inst)
    feats = _features(ev)
    total = WORK_PER_SECOND * 0.8 * time_limit if budget is None else budget
    best, best_easy = _portfolio(ev, feats, metrics, total, QUICK_PORTFOLIO if quick else PORTFOLIO)
    solved = set() if quick else _exhaust(ev, metrics, best)
    spent = {m: (time.perf_counter() - t0) / len(metrics) for m in metrics}
    count = {m: ev.count for m in metrics}
    stopped = {m: "done" for m in metrics}
    if list_moves is None and iterations is not None:
        list_moves = 5 * iterations
    lower = lower or {}
    todo = [] if quick else [m for m in metrics if m in best and m not in solved and not _closed(best[m].value,
                                                                                                lower.get(m))]
    shares = Shares(Limit(ev, total, c0 + time_limit))
    finished: set = set()
    try:
        for i, m in enumerate(todo):
            t1, c1 = time.perf_counter(), ev.count
            weight = _WEIGHT.get(m, 1.0) / sum(_WEIGHT.get(x, 1.0) for x in todo[i:])
            rng = np.random.default_rng((seed, METRICS.index(m)))  # a stream per metric
            best[m], stopped[m] = _improve(ev, feats, m, best[m], rng, shares.part(weight), stretch_low, iterations,
                                           patience, list_moves, best_easy.get(m))
            shares.settle(stopped[m])  # a metric cut short by the clock leaves the others' budgets as they were
            count[m] += ev.count - c1
            spent[m] += time.perf_counter() - t1
            finished.add(m)
    except KeyboardInterrupt:  # keep every schedule found so far (each is complete and checked)
        for m in todo:
            if m not in finished:
                stopped[m] = "interrupted"
    return {m: _result(m, best.get(m), spent[m], count[m], stopped[m], len(inst)) for m in metrics}


def _exhaust(ev: _Evaluator, metrics: tuple, best: dict) -> set:
    """On a tiny workload (:data:`~lowerbounds.batch.exhaust.EXHAUST_CAP`), the optimal schedule of each metric
    replaces the portfolio's (method ``exhaustive``); returns the metrics so solved (none on a larger workload)."""
    found = exhaustive_schedules(ev.inst, metrics, ev._work)
    if found is None:
        return set()
    ev.count += enumeration_size(ev.inst)
    for m, (value, cluster, start) in found.items():
        best[m] = Best(value, "exhaustive", "serial generation over every list and cluster assignment (the optimum)",
                        cluster, start, "serial")
    return set(found)


def _closed(value: float, low: float | None) -> bool:
    """True when ``value`` meets the lower bound ``low`` within 1e-4 relative: nothing left to search."""
    return low is not None and value <= low * (1 + 1e-4)


def _patience(patience: int | None, n: int) -> dict:
    """Moves without improvement before each step stops: from ``patience`` (key moves :data:`KEY_PATIENCE` times,
    list moves twice as many, the bounded slowdown's block moves :data:`BSLD_BLOCK_PATIENCE` times from
    :data:`WINDOW_JOBS` jobs on), or without it,
    :data:`SATURATION` times the size of each step's neighbourhood: about ``2 n^2`` key moves (each job before or
    after each other), ``2 n^2`` list moves, ``n`` windows, and for the block search its factors on every block and
    row. A whole trace never meets these; a small workload stops at once."""
    if patience is not None:
        bsld_block = BSLD_BLOCK_PATIENCE * patience if n >= WINDOW_JOBS else patience
        return {"key": KEY_PATIENCE * patience, "block": patience, "bsld_block": bsld_block, "list": 2 * patience,
                "lns": patience}
    square, block = SATURATION * 2 * n * n, SATURATION * 2 * BLOCKS * len(FACTORS)
    return {"key": square, "block": block, "bsld_block": block, "list": square, "lns": SATURATION * n}


def _improve(ev, feats, m, best, rng, limit: Limit, *args, **kwargs):
    """The improvement steps of one metric within ``limit`` (:func:`_steps`); for the mean bounded slowdown, then its
    tail step (:mod:`lowerbounds.batch.bsldtail`: one schedule, then a descent within the work left). Returns
    (best, stopped)."""
    best, stopped = _steps(ev, feats, m, best, rng, limit, *args, **kwargs)
    if m != "mean_bounded_slowdown" or stopped in ("time_limit", "iterations"):
        return best, stopped
    return tail_descent(ev, smith_tail(ev, best), limit), stopped


def _steps(ev, feats, m, best, rng, limit: Limit, stretch_low, iterations, patience, list_moves, easy=None):
    """The improvement steps of one metric within ``limit``: (best, stopped)."""
    if m == "max_stretch":
        return stretch_search(ev, feats, best, stretch_low or 1.0, limit.part(1.0, iterations))
    idle = _patience(patience, ev.release.size)
    if m == "makespan":  # forward-backward improvement and list moves (:mod:`lowerbounds.batch.makespanfbi`)
        return fbi_search(ev, best, rng, limit.part(1.0, list_moves), int(FBI_PATIENCE * idle["list"]))
    large = m in LNS_METRICS and ev.release.size >= WINDOW_JOBS
    if m == "mean_response":
        large = ev.release.size >= RESPONSE_WINDOW_JOBS
        if large and patience is not None and ev.release.size < WINDOW_JOBS:
            idle = _patience(RESPONSE_PATIENCE * patience, ev.release.size)
    key_share, list_share = WINDOW_SHARES if large else (KEY_SHARE, 1 - LNS_SHARE)
    if m in LNS_METRICS and easy is not None and easy.value <= KEY_START * best.value:
        best, first = _key_search(ev, m, best, easy, rng, limit.part(key_share), idle["key"])
    else:
        share, block_idle = (0.5, idle["block"]) if m != "mean_bounded_slowdown" else \
            (BSLD_BLOCK_SHARE, idle["bsld_block"])
        best, first = block_search(ev, feats, m, best, rng, limit.part(share, iterations), block_idle)
    best = _justify(ev, m, best)
    if large and m == "mean_response" and list_moves is None:  # the last steps raced by rate (module docstring)
        steps = (lambda b, lim: _list_search(ev, m, b, rng, lim, idle["list"]), lambda b, lim: _windows(
            ev, m, b, rng, lim, WINDOW_PATIENCE * idle["lns"], True))
        if ev.release.size >= ROLL_JOBS:  # and the rolling pieces (responseroll)
            steps += (RollSearch(ev, rng, idle["list"]),)
        best, stopped, runs = race(steps, best, limit.part(1.0))
        names = ("list moves", "windows", "rolling pieces")[:len(runs)]
        return dataclasses.replace(best, detail=best.detail.split(";")[0] + f"; {_and(names)} raced "
                                   f"({_and(map(str, runs))} slices)"), _clocked(first, stopped)
    best, stopped = _list_search(ev, m, best, rng, limit.part(list_share, list_moves), idle["list"])
    stopped = _clocked(first, stopped)
    if m not in LNS_METRICS or stopped == "time_limit":
        return best, stopped
    if large:
        if m == "mean_bounded_slowdown" and iterations is None:  # its queue windows first (bsldqueue)
            best = queue_search(ev, best, limit.part(QUEUE_SHARE))
        best, lns_stopped = _windows(ev, m, best, rng, limit.part(1.0, iterations), WINDOW_PATIENCE * idle["lns"])
    else:
        best, lns_stopped = _lns(ev, m, best, rng, limit.part(1.0, iterations), idle["lns"])
    if m == "mean_bounded_slowdown" and large and iterations is None and list_moves is None:
        best, lns_stopped = _bsld_rounds(ev, m, best, rng, limit, idle, lns_stopped)
    return best, lns_stopped if stopped in ("budget", "done", "patience") else stopped


def _bsld_rounds(ev, m: str, best: Best, rng, limit: Limit, idle: dict, stopped: str):
    """The bounded slowdown's own patience rule: while its last step stops by patience with work left, the list
    moves (half of the work left) and the windows (the rest) run again from the best schedule, each with its
    patience, :data:`BSLD_ROUNDS` rounds at most, until a round improves nothing. The caller runs no round when the
    schedules are capped (``iterations``, ``list_moves``). Returns (best, stopped)."""
    for _ in range(BSLD_ROUNDS):
        if stopped != "patience":
            break
        before = best.value
        best, stopped = _list_search(ev, m, best, rng, limit.part(0.5), idle["list"])
        if stopped in ("patience", "done"):
            best, stopped = _windows(ev, m, best, rng, limit.part(1.0), WINDOW_PATIENCE * idle["lns"])
        if not best.value < before:
            break
    return best, stopped


def _windows(ev, metric: str, best: Best, rng, limit: Limit, patience: int, justify: bool = False):
    """The window search (:mod:`lowerbounds.batch.windowsearch`) from ``best``'s schedule, then (with ``justify``, when
    a window was kept) the serial construction over the new start order (:func:`_justify`: it shifts jobs left into
    the room the windows freed): (best, stopped)."""
    ws = WindowSearch(ev.inst, metric, best.cluster, best.start, ev._work)
    stopped = search_windows(ws, rng, limit.stop, patience, ev)
    if ws.accepted and ws.checked_value() < best.value:
        best = Best(ws.value, "local search", best.detail.split(";")[0] + f"; list moves, {ws.accepted} windows "
                     "re-sequenced", ws.cluster, ws.start, "serial", best.a)
        if justify:
            best = _justify(ev, metric, best)
    return best, stopped


def _and(words) -> str:
    """``a, b and c``."""
    words = list(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _clocked(first: str, stopped: str) -> str:
    """A metric's reason to stop: ``time_limit`` when its first step (key or block search) was stopped by the clock,
    even if the steps after it ended by their budgets (the run is then not reproducible, and says so)."""
    return "time_limit" if first == "time_limit" else stopped


def _key_search(ev, metric: str, best: Best, easy: Best, rng, limit: Limit, patience: int | None):
    """Local search on the list construction's per-job keys (:mod:`lowerbounds.batch.keysearch`) from the key of
    ``easy`` (the best portfolio entry of that construction); the final keys' schedule is rebuilt in full and
    checked (:meth:`_Evaluator.run`), and kept when better than ``best``: (best, the search's reason to stop)."""
    key = portfolio_key(easy.a, ev.release, _features(ev))
    ks = KeySearch(ev.release, ev.width, ev.duration, ev.procs, key, metric, ev._work, EASY_WORK)
    base = ev.count

    def stop(idle: int) -> str | None:
        ev.count = base + ks.moves  # each move builds (part of) a schedule
        return limit.stop(idle)

    stopped = search_keys(ks, rng, stop, patience)
    values, cluster, start = ev.run(ks.key, "easy")
    assert abs(values[metric] - ks.value) <= 1e-6 * max(abs(ks.value), 1.0), "incremental and full schedules differ"
    if values[metric] < best.value:
        return Best(values[metric], "local search", f"{easy.detail}, then {ks.moves} key moves", cluster, start,
                     "easy", easy.a), stopped
    return best, stopped


def _justify(ev, metric: str, best: Best) -> Best:
    """The serial construction over the best schedule's start order (ties: submission order), kept when better."""
    values, cluster, start = ev.run(best.start[ev.order], "serial")
    if values[metric] is not None and values[metric] < best.value:
        return Best(values[metric], best.method, best.detail + ", then serial over its start order", cluster, start,
                     "serial", best.a)
    return best


def _excess(ev, metric: str, cluster: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per job (submission order) its wait and what it adds to ``metric`` above its own best (the move weights)."""
    rows = ev.order
    p = ev.duration[np.arange(rows.size), cluster[rows]]
    wait = np.maximum(start[rows] - ev.release, 0.0)
    if metric == "mean_bounded_slowdown":
        return wait, bounded_slowdown(wait + p, p) - bounded_slowdown(p, p)
    return wait, wait


def _list_search(ev, metric: str, best: Best, rng, limit: Limit, patience: int | None):
    """Local search on the serial construction's list (see the module docstring); returns (best, stopped). The
    bounded slowdown's places again only the part of the list a move changes (:mod:`lowerbounds.batch.bsldlist`)."""
    if metric == "mean_bounded_slowdown":
        return bsld_list_search(ev, best, rng, limit, patience)
    key = best.start[ev.order].astype(float)
    cluster, start = best.cluster, best.start
    idle = 0
    while True:
        stop = limit.stop(idle, patience)
        if stop:
            return best, stop
        wait, weight = _excess(ev, metric, cluster, start)
        trial = squeaky_key(key, weight, wait, rng)
        if trial is None:
            return best, "done"
        values, c2, s2 = ev.run(trial, "serial")
        if values[metric] < best.value:
            best = Best(values[metric], "local search", best.detail.split(";")[0] + "; list moves", c2, s2, "serial",
                         best.a)
            key, cluster, start, idle = s2[ev.order].astype(float), c2, s2, 0
        else:
            idle += 1


def _lns(ev, metric: str, best: Best, rng, limit: Limit, patience: int | None):
    """Large-neighbourhood search (:mod:`lowerbounds.batch.lns`): a window of :data:`LNS_WINDOW` jobs around a job
    drawn by its excess (as the list moves draw) is re-solved by the window MILP, then the serial construction
    runs over the new start order; kept when the metric improves. Each window costs :data:`LNS_WORK` work units
    per MILP column. Returns (best, stopped)."""
    idle = 0
    tried: set = set()  # the windows re-solved without improvement since the last one that improved
    while True:
        stop = limit.stop(idle, patience)
        if stop:
            return best, stop
        _wait, weight = _excess(ev, metric, best.cluster, best.start)
        total = weight.sum()
        if not total > 0:
            return best, "done"
        j = min(int(np.searchsorted(np.cumsum(weight), rng.random() * total, side="right")), weight.size - 1)
        rows = window_around(ev.inst, best.cluster, best.start, int(ev.order[j]), LNS_WINDOW)
        if rows.tobytes() in tried:  # the same MILP again: the same answer
            idle += 1
            continue
        tried.add(rows.tobytes())
        value, cluster, start, columns = solve_window(ev.inst, best.cluster, best.start, rows, metric)
        ev.charge(LNS_WORK * max(columns, 1))
        if value is None:
            idle += 1
            continue
        values, c2, s2 = ev.run(start[ev.order], "serial")
        if values[metric] < value:
            value, cluster, start = values[metric], c2, s2
        best = Best(value, "local search", best.detail.split(";")[0] + "; list moves, window MILPs", cluster,
                     start, "serial", best.a)
        idle, tried = 0, set()


def _result(metric, b: Best | None, seconds, evaluations, stopped, n) -> ClairvoyantSchedule:
    if b is None:  # max stretch without a job of positive duration
        return ClairvoyantSchedule(metric, None, "portfolio", "no job of positive duration", seconds, evaluations,
                                   stopped, np.zeros(n, dtype=np.int64), np.zeros(n))
    return ClairvoyantSchedule(metric, float(b.value), b.method, b.detail, seconds, evaluations, stopped,
                               b.cluster, b.start)
