"""Max-stretch lower bound by branching on the start of one long job (one cluster).

The fluid EDF test of :func:`lowerbounds.batch.quick.stretch_quick` lets every job be preempted. A long, wide job
``B`` cannot be: once started it holds ``q_B`` processors for ``p_B`` seconds, and the jobs released meanwhile
that do not fit beside it wait. Branching on its start brings that in.

Validity. Let a schedule have max stretch ``<= S``. Then ``B`` starts at some ``s_B`` in
``[r_B, r_B + (S - 1) p_B]``; cut this range into ``P`` equal pieces, and let ``[s_a, s_b]`` be the piece that holds
``s_B``. If the pieces are shorter than ``p_B``, ``B`` runs during the whole *blackout* ``[a, b] = [s_b, s_a + p_B]``.
So, every other job ``j`` finishing by ``r_j + S p_j``:

0. the other jobs use at most ``m - q_B`` processors during ``[a, b]`` and ``m`` elsewhere: their fluid image is a
   preemptive schedule of the works ``q_j p_j`` on a machine of that varying rate;
1. the jobs with ``q_j > m - q_B`` do not run at all during ``[a, b]``;
2. the jobs with ``q_j > m / 2`` and ``q_j > m - q_B`` never overlap each other or ``B``: they form one machine
   (work ``p_j`` each) stopped during ``[a, b]``.

Each is a preemptive problem that preemptive EDF solves exactly on the clock of the machine's cumulated capacity
(:mod:`lowerbounds.batch._branching`). If, for **every** piece, one of the three is infeasible, no schedule has max
stretch ``<= S``. Only the jobs released within a horizon of ``B``'s window count (leaving jobs out only
relaxes each test), and a test stopped by the clock counts as feasible.

Search. Each candidate ``B`` (the jobs at least ``min_width`` of the cluster wide, longest first) is tested
once just above the best bound so far; one that proves it infeasible is then raised by steps of 25 % and bisection
to ``rel_tol``. The bound is the largest ``S`` proved infeasible (each ``B`` alone gives a valid bound; their
maximum is one). :data:`PASSES` run in turn while time is left: a cheap one (64 pieces, a day around each
window, candidates a fifth of the cluster wide) and a thorough one (256 pieces, ten days, every job 1 % of the
cluster wide).
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._branching import branch_infeasible
from lowerbounds.batch.energetic import bisect_infeasible
from lowerbounds.batch.instance import BatchInstance
from vcsched.jitclock import clock

__all__ = ["stretch_branching", "branching_pass", "PASSES", "QUICK_BRANCH_WORK"]

PASSES = ((64, 86400.0, 0.2), (256, 864000.0, 0.01))
"""``(pieces, horizon, min_width)`` of each pass: pieces of a candidate's start range (more: longer blackouts,
slower tests), seconds before ``r_B`` and after ``r_B + S p_B`` whose releases count in ``B``'s tests, and the
least width of a candidate as a share of the cluster."""
QUICK_BRANCH_WORK = 2e7
"""Work cap of the first pass in the quick bound: jobs counted in the candidates' tests (each test counts the jobs
of its range once). The whole KTH, CTC, SDSC-SP2, HPC2N and lublin_256 traces count 0.66-2.0 million (0.05-0.15 s
of CPU), a tenth of it at most."""


def _candidates(q: np.ndarray, p: np.ndarray, procs: int, min_width: float) -> np.ndarray:
    """Jobs of width ``>= min_width procs``, the longest first (ties: wider, then earlier)."""
    rows = np.flatnonzero(q >= min_width * procs)
    return rows[np.lexsort((rows, -q[rows], -p[rows]))]


def stretch_branching(inst: BatchInstance, low: float, *, time_limit: float | None = None,
                      passes=PASSES, rel_tol: float = 1e-3) -> tuple[float, int]:
    """Raise the max-stretch lower bound ``low`` (a valid one) by :func:`branching_pass` for each of ``passes`` in
    turn, while ``time_limit`` seconds last. Returns ``(bound, candidates tested)``."""
    deadline = np.inf if time_limit is None else clock() + time_limit
    tried = 0
    for pieces, horizon, min_width in passes:
        left = deadline - clock()
        if left <= 0:
            break
        low, count = branching_pass(inst, low, time_limit=None if np.isinf(left) else left, pieces=pieces,
                                    horizon=horizon, min_width=min_width, rel_tol=rel_tol)
        tried += count
    return low, tried


def branching_pass(inst: BatchInstance, low: float, *, time_limit: float | None = None, pieces: int = 64,
                   horizon: float = 86400.0, min_width: float = 0.2, rel_tol: float = 1e-3,
                   max_work: float | None = None) -> tuple[float, int]:
    """Raise the max-stretch lower bound ``low`` (a valid one) by branching on each candidate's start.

    One cluster only (on several, ``low`` is returned). A test begun before ``time_limit`` seconds, or before the
    jobs counted in the tests so far (each test counts the jobs of its range) exceed ``max_work``, runs to its end;
    none begins after (``max_work`` is a count, so a run stopped by it is reproducible). Returns
    ``(bound, candidates tested)``; the bound is ``low`` or a stretch proved infeasible.
    """
    if inst.clusters != 1 or len(inst) == 0 or not (inst.pmax > 0).any():
        return low, 0
    deadline = np.inf if time_limit is None else clock() + time_limit
    rows = np.flatnonzero(inst.pmax > 0)
    order = rows[np.argsort(inst.release[rows], kind="stable")]
    r = np.ascontiguousarray(inst.release[order], dtype=float)
    p = np.ascontiguousarray(inst.duration[order, 0], dtype=float)
    q = np.ascontiguousarray(inst.width[order], dtype=float)
    cap = float(inst.procs[0])

    work = [0.0, np.inf if max_work is None else float(max_work)]

    def infeasible(b: int, s: float) -> bool | None:
        if clock() > deadline or work[0] > work[1]:
            return None
        first = int(np.searchsorted(r, r[b] - horizon, side="left"))
        last = int(np.searchsorted(r, r[b] + s * p[b] + horizon, side="right"))
        work[0] += last - first
        return bool(branch_infeasible(b, r, p, q, cap, float(s), first, last, pieces))

    best, tried = low, 0
    for b in _candidates(q, p, int(cap), min_width):
        verdict = infeasible(int(b), best * (1.0 + rel_tol))
        if verdict is None:
            break
        tried += 1
        if verdict:
            best = _raise(lambda s, b=int(b): infeasible(b, s), best * (1.0 + rel_tol), rel_tol)
    return best, tried


def _raise(infeasible, low: float, rel_tol: float) -> float:
    """The largest ``S`` found infeasible above ``low`` (itself infeasible): steps of 25 %, then bisection."""
    hi = 1.25 * low
    while True:
        verdict = infeasible(hi)
        if verdict is None:
            return low
        if not verdict:
            break
        low, hi = hi, 1.25 * hi
    return bisect_infeasible(infeasible, low, hi, rel_tol)
