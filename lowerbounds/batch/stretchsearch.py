"""The max stretch's improvement step in the clairvoyant search (docs/bounds.md, upper side step 2).

:func:`stretch_search` runs the deadline repair of :mod:`lowerbounds.batch.stretchrepair` from the best schedule's
start order, then from the deadline keys of :data:`STRETCH_STARTS` in turn, rebuilds the best list's schedule in
full, and justifies it (:mod:`lowerbounds.batch.stretchjustify`) with the work left. On a whole trace, restarts that
stall hand the rest of their work to the rolling pieces (:mod:`lowerbounds.batch.stretchroll`) between two
justifications. ``ev`` is the search's
evaluator (:class:`lowerbounds.batch.clairvoyant._Evaluator`: the instance, its arrays, the work counter, ``run``),
``limit`` its :class:`~lowerbounds.batch._searchstep.Limit`.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._searchstep import CHECK_WORK, Best, Limit
from lowerbounds.batch.instance import schedule_metrics
from lowerbounds.batch.stretchgate import Gates
from lowerbounds.batch.stretchjustify import JUSTIFY_SHARE, justify_search
from lowerbounds.batch.stretchrepair import StretchRepair, search_stretch
from lowerbounds.batch.stretchroll import PIECE_JOBS, rolling_schedule

__all__ = ["stretch_search", "STRETCH_STARTS", "STALL_SHARE", "PIECE_SIZES", "ROLL_SHIFTS"]

STALL_SHARE = 0.25
"""Share of the restarts' work after which restarts that have not improved their best value give the rest to the
rolling pieces (:mod:`lowerbounds.batch.stretchroll`), on workloads of at least :data:`MIN_PIECES` pieces of one of
the :data:`PIECE_SIZES`."""
STALL_ROUNDS = 20
"""Rounds (whole schedules built) without a better value that a stall also needs: on HPC2N (202,871 jobs) a round
costs about 5e7 units, the default minute's share is about 25 of them, and the first gain of the restarts comes
after about 8."""
MIN_PIECES = 4
"""Pieces a workload must have of a size of :data:`PIECE_SIZES` for the rolling passes to use that size; with none,
the stall rule is off and the restarts keep the whole budget (the busiest weeks)."""
PIECE_SIZES = (PIECE_JOBS, PIECE_JOBS // 8)
"""Jobs of a piece in the rolling passes (the lookahead is half a piece), in turn: four passes in a row without
improvement at one size (:data:`ROLL_SHIFTS`) move the passes to the next (docs/bounds.md, "Rolling pieces"). On
SDSC-SP2 with 2e10 units the passes of 4,000 jobs end at 63.27 with 1.45e9 units left, which pieces of 500 turn into
50.62 (lublin_256, too small for pieces of 4,000: 87.63 -> 85.87); from the justified 62.09 and the same work,
pieces of 2,000, 1,000, 500 and 250 jobs gave 62.09, 52.27, 41.84 and 62.09."""
ROLL_SHIFTS = (0.0, 0.5, 0.25, 0.75)
"""The first piece's share of a whole piece in the rolling passes after 0, 1, ... passes in a row without
improvement (0: a whole piece): a pass that improves nothing is followed by one with the cuts shifted by half, a
quarter, then three quarters of a piece (on CTC-SP2 with 2e10 units, the fourth cut gave 32.1 -> 30.7, and the
passes after it 22.7)."""

_STARTS = ((1.5, 12), (1.2, 12), (2.0, 40), (1.35, 12), (1.1, 40), (1.75, 12), (2.5, 12), (1.05, 12), (3.0, 40),
           (1.3, 12), (1.6, 40), (1.15, 12), (4.0, 12))
STRETCH_STARTS = ((None, 12, False, False), (*_STARTS[0], False, False), (*_STARTS[0], False, True)) + tuple(
    (f, patience, False, False) for f, patience in _STARTS[1:]) + tuple((f, patience, True, False) for f, patience in _STARTS)
"""Restarts of the max-stretch repair (docs/bounds.md, upper side step 2): the first target as a multiple of the
stretch lower bound (None: the best schedule so far, its start order as the list and its value as the target),
the repair's patience, whether the keys follow the target (:class:`~lowerbounds.batch.stretchrepair.StretchRepair`)
and whether wide jobs are kept off their gates (:mod:`lowerbounds.batch.stretchgate`; one cluster only). Each
restart runs its descent to the end; the descent is chaotic, and the restarts vary the first target and the
patience. The start from the best schedule comes first (at the same work it gave 43.4 instead of 64.1 on
CTC-SP2 and 86 instead of 205 on SDSC-SP2, and ends at once elsewhere), the one gated start second (far better on
lublin_256), keys that follow the target last (better on the busiest weeks, far worse on whole traces)."""

def stretch_search(ev, feats, best: Best, low: float, limit: Limit) -> tuple[Best, str]:
    """Max stretch: the repair descent of :mod:`lowerbounds.batch.stretchrepair` from ``best``'s start order, then
    from the deadline keys ``r + S0 p``, ``S0`` each of :data:`STRETCH_STARTS` times the lower bound ``low`` in turn
    (restarts, while the ``limit`` allows, less :data:`~lowerbounds.batch.stretchjustify.JUSTIFY_SHARE`); the best
    list's schedule is rebuilt in full and checked (``ev.run``, :class:`lowerbounds.batch.clairvoyant._Evaluator`),
    kept when better than ``best``, and justified (:mod:`lowerbounds.batch.stretchjustify`) with the work left.
    On a workload of at least :data:`MIN_PIECES` pieces of a size of :data:`PIECE_SIZES`, restarts that find nothing
    better during :data:`STALL_SHARE` of their work and :data:`STALL_ROUNDS` rounds stop (counted from the end of
    the gated restart on a workload too small for the first size); the best schedule is justified, improved by the
    rolling pieces (:func:`_rolled`) and justified again. Returns (best, stopped)."""
    low = max(low, 1.0)
    restarts = limit.part(1.0 - JUSTIFY_SHARE)
    sizes = piece_sizes(ev.release.size)
    stall = STALL_SHARE * max(restarts.work_end - ev.work, 0) if sizes else np.inf
    best, stopped = _restarts(ev, feats, best, low, restarts, stall, gated_first=sizes[:1] != PIECE_SIZES[:1])
    if stopped != "stall":
        return _justified(ev, best, limit, stopped)
    best, stopped = _justified(ev, best, limit, "done")
    if stopped != "done":
        return best, stopped
    best, stopped = _rolled(ev, best, low, limit.part(1.0 - JUSTIFY_SHARE), sizes)
    return _justified(ev, best, limit, stopped)


def piece_sizes(n: int) -> tuple:
    """The sizes of :data:`PIECE_SIZES` that cut ``n`` jobs into at least :data:`MIN_PIECES` pieces, in turn."""
    return tuple(size for size in PIECE_SIZES if n >= MIN_PIECES * size)


def _restarts(ev, feats, best: Best, low: float, limit: Limit, stall: float, gated_first: bool = False
              ) -> tuple[Best, str]:
    """The restarts of :data:`STRETCH_STARTS` within ``limit`` (``stall``: the work after which restarts that have
    not improved their best, for :data:`STALL_ROUNDS` rounds too, stop, ``stopped`` then ``stall``; with
    ``gated_first``, counted from the end of the gated restart only, and never where it does not run); the best
    list's schedule rebuilt, checked and kept when better than ``best``. Returns (best, stopped)."""
    base = first = ev.count  # the rounds of this search (ev.count counts the other metrics' schedules too)
    found, found_key, stopped = np.inf, None, "done"
    found_gates = None
    since = [np.inf, ev.work, ev.count]  # the restarts' best value so far, the work and rounds when it was found
    armed = [not gated_first]
    for f, patience, follow, gated in STRETCH_STARTS:
        if gated and ev.procs.size != 1:
            continue
        if f is None and best.start is None:
            continue
        gates = Gates(ev.release, ev.width, ev.duration[:, 0], ev.procs[0], ev._work) if gated else None
        key, target = ((best.start[ev.order], best.value) if f is None
                       else (ev.release + f * low * feats["p"], f * low))
        sr = StretchRepair(ev.release, ev.width, ev.duration, ev.procs, key, target, ev._work, patience,
                           feats["p"] if follow else None, gates)

        def stop(sr=sr, base=base) -> str | None:
            ev.count = base + sr.rounds  # each round builds a whole schedule
            if sr.best_value < since[0]:
                since[:] = [sr.best_value, ev.work, ev.count]
            stalled = armed[0] and ev.work - since[1] >= stall and ev.count - since[2] >= STALL_ROUNDS
            return "stall" if stalled else limit.stop()

        stopped = search_stretch(sr, stop)
        base = ev.count
        if sr.best_value < found:
            found, found_key, found_gates = sr.best_value, sr.best_key, sr.best_gates
        if stopped != "done":
            break
        if gated and not armed[0]:
            armed[0] = True
            since[1:] = [ev.work, ev.count]
    if found_key is not None:
        values, cluster, start = ev.run(found_key, "serial", found_gates)
        assert abs(values["max_stretch"] - found) <= 1e-9 * max(found, 1.0), "repair and full schedules differ"
        if values["max_stretch"] < best.value:
            gated = "" if found_gates is None else " with gates"
            best = Best(values["max_stretch"], "repair", f"serial, deadline repair{gated} ({ev.count - first} rounds)",
                        cluster, start, "serial")
    return best, stopped


def _rolled(ev, best: Best, low: float, limit: Limit, sizes: tuple) -> tuple[Best, str]:
    """``best`` after passes of the rolling repair (:func:`~lowerbounds.batch.stretchroll.rolling_schedule`), each
    from the best schedule so far, while the ``limit`` allows, with pieces of each of ``sizes`` jobs in turn until
    :data:`ROLL_SHIFTS` passes in a row improve nothing; each pass's schedule is rebuilt in full from its start
    order (``ev.run``), checked, and kept when better. Returns (best, stopped)."""
    stopped = "done"
    for size in sizes:
        best, stopped = _rolled_size(ev, best, low, limit, size)
        if stopped != "done":
            break
    return best, stopped


def _rolled_size(ev, best: Best, low: float, limit: Limit, size: int) -> tuple[Best, str]:
    """The rolling passes of :func:`_rolled` with pieces of ``size`` jobs (a lookahead of half a piece)."""
    stopped, idle = "done", 0
    while best.start is not None and idle < len(ROLL_SHIFTS):
        out = rolling_schedule(ev.release, ev.width, ev.duration, ev.procs, best.start[ev.order], best.value, low,
                               ev._work, limit.work_end, limit.stop, piece=size, lookahead=size // 2,
                               offset=int(ROLL_SHIFTS[idle] * size))
        if out is None:
            return best, "time_limit"
        ev.count += out[2]  # the pieces' rounds; ev.run counts the rebuild
        values, cluster, start = ev.run(out[1], "serial")
        if values["max_stretch"] < best.value:
            idle = 0
            best = Best(values["max_stretch"], "repair", f"{best.detail}, rolling pieces of {size}", cluster, start,
                        "serial")
        else:
            idle += 1
        stopped = limit.stop()
        if stopped:
            break
    return best, stopped or "done"


def _justified(ev, best: Best, limit: Limit, stopped: str) -> tuple[Best, str]:
    """``best`` after the justification passes of :func:`~lowerbounds.batch.stretchjustify.justify_search` within
    ``limit`` (the restarts' clock stop is their part's: the passes get the time left); (best, stopped)."""
    if best.start is None or best.value is None:
        return best, stopped
    tried = [0]

    def stop() -> str | None:
        reason = limit.stop()
        tried[0] += reason is None  # each pass asks once before it builds its two schedules
        return reason

    start, passes = justify_search(ev.inst, best.cluster, best.start, best.value, ev._work, stop, CHECK_WORK)
    ev.count += tried[0]
    if passes:
        value = schedule_metrics(ev.inst, best.cluster, start)["max_stretch"]
        best = Best(value, best.method, f"{best.detail}, {passes} justification passes", best.cluster, start, best.kernel)
    return best, stopped if stopped == "time_limit" else (limit.stop() or stopped)  # a clock stop is reported
