"""Forward-backward improvement for the makespan (the upper side's makespan step, :mod:`lowerbounds.batch.clairvoyant`).

Justification (Li and Willis, *An iterative scheduling technique for resource-constrained project scheduling*,
EJOR 56, 1992; Valls, Ballestín and Quintanilla, *Justification and RCPSP: a technique that pays*, EJOR 165, 2005)
applied to the clairvoyant relaxation (:mod:`lowerbounds.batch.instance`), with release dates:

* **backward pass**: with ``C`` the schedule's last completion, the jobs by non-increasing completion, each placed,
  on the cluster where it ran, at its *latest* start ending by ``C`` where its processors are free given the jobs
  placed before it (the serial construction of :mod:`lowerbounds.batch._listsched` run on the time-reversed
  profile, every job "released" at ``-C``). Each job starts and ends no earlier than before: when job ``j`` is
  placed, every job ``i`` placed before it ended no earlier than ``j`` and has only moved later on its cluster, so
  at each instant of ``j``'s old run the jobs placed so far use no processor that they did not use there before,
  and ``j``'s old run is still free. So every job still starts at or after its submission, and the
  right-justified schedule ends by ``C``.
* **forward pass**: the serial construction over the right-justified start order, each job at its earliest start
  ``>= r_j`` on the cluster where it completes first. On one cluster the same argument, mirrored, says that each
  job starts no later than in the right-justified schedule, so the makespan does not grow; it often shrinks, the
  room the backward pass gathered at the front being used. On several clusters a job may change cluster, and the
  pass may lengthen the schedule: a pass is kept only when the makespan falls.

Only the forward pass's schedule is kept (the backward one only gives an order): it is built by the project's
construction and checked by :func:`~lowerbounds.batch.instance.check_batch_schedule` (``ev.run``) before its value
counts. :func:`forward_backward` repeats the two passes while the makespan falls. :func:`fbi_search` starts from the
lowest, after the passes, of the best schedule so far and the EASY schedules of :data:`START_KEYS`
(:func:`best_start`), then perturbs the start order (a job drawn by its wait moves earlier, as the list moves of the
clairvoyant search do) and runs the passes again on each perturbed schedule, keeping a move when the makespan does
not grow (a plateau move is kept too: the makespan's plateaus are wide). Every step is counted in the search's work
units (the passes' constructions and checks), so that a run is reproducible.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._searchstep import Best, Limit
from lowerbounds.batch.justification import backward_starts
from lowerbounds.batch.makespankeys import packing_keys

__all__ = ["backward_key", "forward_backward", "best_start", "fbi_search", "START_KEYS", "FBI_PATIENCE"]

START_KEYS = ("largest area first", "widest first")
"""Keys of :func:`lowerbounds.batch.makespankeys.packing_keys` whose EASY schedules are, with the best schedule so far, the
candidate starts of the moves (after forward-backward passes, the lowest is kept): on the busiest week of SDSC-SP2
the passes bring EASY largest area first to 883,598 and the portfolio's best (EASY ``r + p``) to 890,464."""

FBI_PATIENCE = 10
"""The moves' patience, as a multiple of the list moves' (:func:`lowerbounds.batch.clairvoyant._patience`): a move
keeps plateau schedules, so a run of moves without a lower makespan is longer than the list moves'. With the list
moves' own patience (80 moves with ``--method best``) the busiest weeks' searches stopped at a third to a half of the
makespan's work share, and seed 1 gave CTC-SP2's week 1.0121 times the bound; at 10 times it every seed of 0-3 gives
at most 1.009 there and on SDSC-SP2's week (5e8 units, the default minute's share)."""


def backward_key(ev, cluster: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The right-justified starts (submission order of ``ev``) of the schedule ``(cluster, start)`` (rows of the
    instance), all ending by its last completion: the backward pass of the module docstring
    (:func:`lowerbounds.batch.justification.backward_starts`), counted in ``ev``'s work."""
    rows = ev.order
    clus, st = cluster[rows], start[rows]
    last = float((st + ev.duration[np.arange(rows.size), clus]).max())
    return backward_starts(ev.width, ev.duration, ev.procs, clus, st, np.full(rows.size, last), ev._work)


def _makespan_pass(ev, best: Best) -> Best | None:
    """One backward and one forward pass from ``best``: the new (checked) schedule when its makespan is lower."""
    key = backward_key(ev, best.cluster, best.start)
    values, cluster, start = ev.run(key, "serial")
    if values["makespan"] < best.value:
        return Best(values["makespan"], "local search", best.detail, cluster, start, "serial", best.a)
    return None


def forward_backward(ev, best: Best, limit: Limit) -> Best:
    """Backward and forward passes from ``best`` while the makespan falls (and ``limit`` allows)."""
    label = best.detail.split(";")[0] + "; forward-backward passes"
    while not limit.stop():
        better = _makespan_pass(ev, best)
        if better is None:
            break
        best = Best(better.value, better.method, label, better.cluster, better.start, "serial", best.a)
    return best


def best_start(ev, best: Best, limit: Limit) -> Best:
    """The lowest of ``best`` and the EASY schedules of :data:`START_KEYS`, each after forward-backward passes (ties:
    the first)."""
    keys = packing_keys(ev.inst)
    starts = [best]
    for name in START_KEYS:
        values, cluster, start = ev.run(keys[name][ev.order], "easy")
        starts.append(Best(values["makespan"], "local search", f"easy, key {name}", cluster, start, "easy"))
    return min((forward_backward(ev, b, limit) for b in starts), key=lambda b: b.value)


def fbi_search(ev, best: Best, rng, limit: Limit, patience: int | None) -> tuple[Best, str]:
    """Forward-backward passes from the best start (:func:`best_start`), then moves (module docstring) within
    ``limit``: (best, stopped)."""
    best = best_start(ev, best, limit)
    label = best.detail.split(";")[0] + "; forward-backward passes and list moves"
    current = best
    idle = 0
    while True:
        stop = limit.stop(idle, patience)
        if stop:
            return best, stop
        rows = ev.order
        wait = np.maximum(current.start[rows] - ev.release, 0.0)
        total = wait.sum()
        if not total > 0:
            return best, "done"
        j = min(int(np.searchsorted(np.cumsum(wait), rng.random() * total, side="right")), wait.size - 1)
        key = current.start[rows].astype(float)
        key[j] -= rng.random() * wait[j]
        values, cluster, start = ev.run(key, "serial")
        trial = Best(values["makespan"], "local search", label, cluster, start, "serial", best.a)
        trial = forward_backward(ev, trial, limit)
        if trial.value <= current.value:
            current = Best(trial.value, "local search", label, trial.cluster, trial.start, "serial", best.a)
        if trial.value < best.value:
            best, idle = current, 0
        else:
            idle += 1
