"""Max stretch: descent on the target stretch, each target met by repairing a serial list against its deadlines.

A schedule has max stretch ``<= S`` when every job ``j`` completes by its deadline ``r_j + S p_jk`` on the
cluster ``k`` where it runs. The serial construction (:func:`lowerbounds.batch._listsched.serial_schedule`,
each job of a list at its earliest feasible start given the jobs before it in the list) reaches every active
schedule; the search is over its list, held as one key per job (smaller first, ties by submission):

* **Repair** (one round): build the list's schedule; every job that misses its deadline moves up the list just
  far enough to meet it, were the jobs still before it placed as they are
  (:func:`lowerbounds.batch._stretchrepair.promotions`: a job moved up the list is placed against an unchanged
  prefix, so the jump is exact for that job alone; the jobs it passes are placed after it, and may then be late
  in turn). The late jobs of a round move together.
* **Descent**: from the deadline key ``r + S0 p`` (``S0`` the best value so far), each target met (no late job;
  the schedule's max stretch ``v``) is followed by the target ``v (1 - step)``, the list kept; a target not met
  within :data:`ROUNDS` rounds without fewer late jobs sends the search back to the best list found, with the
  step halved (from :data:`STEP`, down to :data:`MIN_STEP`, where it stops).
* **Escalation**: a job promoted again before the target changes is keyed at least as early as its deadline at
  a lower target, ``r_j + AGE^(k-1) S p_j`` at its ``k``-th promotion (:data:`AGE`; ``p_j`` its shortest
  duration). A long job placed at the end of its window is made late by the short jobs promoted past it, and its
  own smallest jump put it back just in front of them, so the two moved in turn (a wide job of 18 hours and three
  small jobs on CTC-SP2); keyed earlier, it starts earlier in its window and leaves them room.
* **Keys that follow the target** (``follow``, the job sizes ``p`` of the deadline keys): each key is held as the
  deadline ``r_j + S p_j`` at the current target ``S`` minus an advance ``a_j`` (0 at the start; a promotion sets
  it so that the job lands just before the job it passes). When the target changes, every key moves with it: the
  list is the deadline order of the new target, shifted by the advances learned, instead of the list kept as it
  was (a long job keyed for a low first target then stays ahead of the short jobs submitted after it even once the
  target is raised).

Every round's schedule is a schedule of the relaxation (the construction's); the best one is tracked by its max
stretch, met target or not. The search is deterministic: a function of the instance, the start and the stop (work
units, rounds), never of the clock but as a safety stop. The caller rebuilds the best list's schedule in full
and checks it (:class:`lowerbounds.batch.clairvoyant._Evaluator`).
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._listsched import gated_serial_counted, serial_schedule_counted
from lowerbounds.batch._stretchrepair import promotions

__all__ = ["StretchRepair", "ROUNDS", "STEP", "MIN_STEP", "ROUND_WORK", "AGE"]

ROUNDS = 12
"""Rounds of repair without fewer late jobs before a target is given up (the default ``patience``)."""
STEP = 0.1
"""First relative step of the target below the best max stretch found."""
MIN_STEP = 0.002
"""The descent stops when its step falls below this."""
LATE_CAP = 256
"""Late jobs moved in one round at most (the most stretched): moves of one round interfere, and each costs a scan
of its window."""
RAISE = 4
"""A target that leaves more than ``RAISE * LATE_CAP`` jobs late is raised to the stretch that leaves that many."""
ROUND_WORK = 20
"""Work units charged per job and round besides the construction's and the promotions' own steps (NumPy)."""
AGE = 0.7
"""Escalation of a job promoted again at the same target (module docstring): its ``k``-th promotion keys it at
least as early as its deadline at ``AGE ** (k - 1)`` times the target; 0 turns it off."""


def max_stretch(release, duration, cluster, start, among=None) -> tuple[float, np.ndarray]:
    """The max stretch of a schedule (jobs of positive duration, ``among`` a mask of them if given) and each job's
    duration where it runs."""
    p = duration[np.arange(release.size), cluster]
    pos = p > 0 if among is None else (p > 0) & among
    if not pos.any():
        return 0.0, p
    return float(((start[pos] + p[pos] - release[pos]) / p[pos]).max()), p


class StretchRepair:
    """The descent of the module docstring on the jobs ``release`` (sorted), ``width``, ``duration`` (n, K) and
    ``procs``, from the list ``key`` (one per job) and the target ``target``; ``work``: the one-element counter of
    work units (the construction's and the promotions' steps, plus :data:`ROUND_WORK` per job and round);
    ``follow``: the job sizes ``p`` of keys that follow the target (module docstring), None to keep the list;
    ``gates``: None, or a function of the target and the best max stretch so far that returns the gates of the
    construction (:func:`lowerbounds.batch.stretchgate.stretch_gates`' tuple, or None for none); ``frozen``: a mask of
    jobs that keep their place (keyed before every other job: they are never promoted nor passed, and their stretch
    is not the search's); ``floor``: the descent ends once the max stretch is at most this."""

    def __init__(self, release, width, duration, procs, key, target: float, work: np.ndarray,
                 patience: int = ROUNDS, follow: np.ndarray | None = None, gates=None,
                 frozen: np.ndarray | None = None, floor: float = 1.0) -> None:
        self.release, self.width, self.duration, self.procs = release, width, duration, procs
        self.work = work
        self.key = np.array(key, dtype=float)
        self.target = float(target)
        self.follow = follow
        self.advance = None if follow is None else self.release + self.target * follow - self.key
        self.best_advance = None if follow is None else self.advance.copy()
        self.step = STEP
        self.patience = patience
        self.rounds = 0
        self.best_value, self.best_key = np.inf, self.key.copy()
        self._stalled, self._fewest, self._at = 0, None, 0
        self.gates = gates
        self.used_gates = self.best_gates = None
        self.moves = np.zeros(self.release.size, dtype=np.int64)
        self.pmin = duration.min(axis=1)
        self.free = np.ones(self.release.size, dtype=bool) if frozen is None else ~frozen
        self.fixed = 0 if frozen is None else int(frozen.sum())
        self.floor = max(float(floor), 1.0)

    def _build(self):
        order = np.argsort(self.key, kind="stable")
        self.used_gates = None if self.gates is None else self.gates(self.target, self.best_value)
        if self.used_gates is None:
            cluster, start = serial_schedule_counted(self.release, self.width, self.duration, self.procs, order,
                                                     self.work)
        else:
            cluster, start = gated_serial_counted(self.release, self.width, self.duration, self.procs, order,
                                                  *self.used_gates, self.work)
        self.work[0] += ROUND_WORK * self.release.size
        return order, cluster, start

    def round(self) -> bool:
        """One round (module docstring); False when the descent has ended."""
        self.rounds += 1
        order, cluster, start = self._build()
        value, p = max_stretch(self.release, self.duration, cluster, start, self.free)
        if value < self.best_value:
            self.best_value, self.best_key, self.best_gates = value, self.key.copy(), self.used_gates
            if self.follow is not None:
                self.best_advance = self.advance.copy()
        late = np.flatnonzero(self.free & (p > 0) & (start + p > self.release + self.target * p * (1 + 1e-12)))
        if late.size > RAISE * LATE_CAP:  # out of reach: the target that leaves that many late jobs
            st = (start[late] + p[late] - self.release[late]) / p[late]
            self.target = float(np.partition(st, st.size - RAISE * LATE_CAP)[st.size - RAISE * LATE_CAP])
            self._stalled, self._fewest, self._at = 0, None, 0
            late = late[st > self.target * (1 + 1e-12)]
            if self.follow is not None:  # the keys move with the target: the next round builds them
                self._rekey()
                return True
        if late.size == 0:
            if value <= self.floor:  # no job waits (or the floor is reached): nothing left to gain
                return False
            self._next_target(min(value, self.target))
            return True
        self._at += 1
        if self._fewest is None or late.size < self._fewest:
            self._fewest, self._stalled = late.size, 0
        else:
            self._stalled += 1
        if self._stalled >= self.patience or self._at >= 3 * self.patience:
            self.step /= 2
            if self.step < MIN_STEP:
                return False
            self.key = self.best_key.copy()
            if self.follow is not None:
                self.advance = self.best_advance.copy()
            self._next_target(self.best_value)
            return True
        if late.size > LATE_CAP:  # the most stretched first
            st = (start[late] + p[late] - self.release[late]) / p[late]
            late = np.sort(late[np.argsort(-st, kind="stable")[:LATE_CAP]])
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size)
        to = promotions(late, self.release, self.width, self.duration, self.procs, cluster, start, rank,
                        self.target, self.work)
        to = np.maximum(to, self.fixed)  # the frozen jobs hold the first places
        move = to < rank[late]
        self.key[late[move]] = np.nextafter(self.key[order[to[move]]], -np.inf)
        self._escalate(late[move])
        if self.follow is not None:  # the advance that puts the job just before the one it passes
            mv = late[move]
            self.advance[mv] = self.release[mv] + self.target * self.follow[mv] - self.key[mv]
        return True

    def _escalate(self, moved: np.ndarray) -> None:
        """Count the promotions of ``moved`` since the target last changed; a job promoted for the ``k``-th time,
        ``k >= 2``, is keyed at least as early as its deadline ``r_j + AGE^(k-1) S p_j`` (module docstring)."""
        if AGE <= 0.0 or moved.size == 0:
            return
        self.moves[moved] += 1
        again = moved[self.moves[moved] >= 2]
        early = self.release[again] + self.target * self.pmin[again] * AGE ** (self.moves[again] - 1)
        self.key[again] = np.minimum(self.key[again], early)

    def _next_target(self, below: float) -> None:
        self.target = below * (1 - self.step)
        self._stalled, self._fewest, self._at = 0, None, 0
        self.moves[:] = 0
        self._rekey()

    def _rekey(self) -> None:
        """With keys that follow the target: each key is the deadline at the current target minus its advance."""
        if self.follow is not None:
            self.key = self.release + self.target * self.follow - self.advance


def search_stretch(sr: StretchRepair, stop) -> str:
    """Rounds on ``sr`` until ``stop()`` names a reason or the descent ends (``done``); returns the reason."""
    while True:
        reason = stop()
        if reason:
            return reason
        if not sr.round():
            return "done"
