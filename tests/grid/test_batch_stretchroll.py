"""The max stretch's rolling pieces (lowerbounds.batch.stretchroll) and the repair's frozen jobs
(lowerbounds.batch.stretchrepair): frozen jobs keep their place, the committed schedule is valid and never below the
brute-force optimum, and the stall rule of the search hands the rest of the work to the pieces."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch import clairvoyant as C
from lowerbounds.batch import stretchsearch as S
from lowerbounds.batch._listsched import serial_schedule
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.stretchrepair import StretchRepair, max_stretch, search_stretch
from lowerbounds.batch.stretchroll import _piece, rolling_schedule
from tests.grid.batch_oracle import brute_force
from tests.grid.test_batch_stretchrepair import _arrays


def _start(r, q, p, m, rng):
    """A schedule of a random list (serial construction): (cluster, start)."""
    return serial_schedule(r, q, p, m, rng.permutation(r.size))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(4, 30), st.integers(1, 2))
def test_frozen_jobs_keep_their_place_and_their_stretch_is_not_searched(seed, n, K):
    # the jobs before a cut, as placed by a schedule, are frozen in a piece; every round's schedule puts them back
    # where they were, and the repair's value is the largest stretch of the free jobs only
    rng = np.random.default_rng(seed)
    r, q, p, m = _arrays(rng, n, K)
    cluster, start = _start(r, q, p, m, rng)
    cut = int(rng.integers(1, n))
    committed = np.zeros(n, dtype=bool)
    committed[:cut] = True
    committed &= start < r[cut]
    free = np.flatnonzero(~committed)
    sub = _piece(r, q, p, m, cluster, start, committed, free)
    rel, wid, dur, procs = sub["arrays"]
    frozen = sub["frozen"]
    key = np.where(frozen, sub["key"], start[sub["jobs"]])
    sr = StretchRepair(rel, wid, dur, procs, key, 1.0, np.zeros(1, dtype=np.int64), patience=3, frozen=frozen)
    while sr.rounds < 40 and sr.round():
        c, s = serial_schedule(rel, wid, dur, procs, np.argsort(sr.key, kind="stable"))
        assert np.array_equal(s[frozen], start[sub["jobs"][frozen]])
        assert np.array_equal(c[frozen], cluster[sub["jobs"][frozen]])
        assert np.all(sr.key[frozen] < sr.key[~frozen].min(initial=np.inf))
    c, s = serial_schedule(rel, wid, dur, procs, np.argsort(sr.best_key, kind="stable"))
    assert max_stretch(rel, dur, c, s, ~frozen)[0] == pytest.approx(sr.best_value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 5), st.integers(1, 2), st.integers(1, 3), st.integers(0, 2),
       st.integers(0, 2))
def test_the_rolling_schedule_is_valid_and_never_below_the_optimum(seed, n, K, piece, lookahead, offset):
    # pieces of 1-3 jobs with 0-2 jobs of lookahead, cuts shifted or not: every job is committed once, the
    # schedule passes the checker, and its max stretch is at least the brute-force optimum
    rng = np.random.default_rng(seed)
    r, q, p, m = _arrays(rng, n, K)
    inst = BatchInstance.from_arrays(r, q, p, m)
    cluster, start = _start(r, q, p, m, rng)
    value = schedule_metrics(inst, cluster, start)["max_stretch"]
    work = np.zeros(1, dtype=np.int64)
    out = rolling_schedule(r, q, p, m, start, value, 1.0, work, 1e9, lambda: None, patience=3, piece=piece,
                           lookahead=lookahead, offset=offset)
    c, s, rounds = out
    assert np.all(c >= 0) and np.all(np.isfinite(s)) and rounds >= 0 and work[0] > 0
    check_batch_schedule(inst, c, s)
    got = schedule_metrics(inst, c, s)["max_stretch"]
    assert got >= brute_force(inst)["max_stretch"] * (1 - 1e-9)


def test_pieces_fix_a_late_job_that_the_pieces_around_it_leave_alone():
    # two whole-machine bursts far apart, each with a job placed late in the given schedule: the rolling pieces
    # (pieces of 2 jobs) reach the optimum stretch 1 that the given schedule misses
    r = np.array([0.0, 0.0, 100.0, 100.0])
    q = np.array([2, 2, 2, 2], dtype=np.int64)
    p = np.array([[1.0], [4.0], [1.0], [4.0]])
    m = np.array([2], dtype=np.int64)
    inst = BatchInstance.from_arrays(r, q, p, m)
    start = np.array([4.0, 0.0, 104.0, 100.0])  # the short jobs wait for the long ones: stretch 5
    value = schedule_metrics(inst, np.zeros(4, dtype=np.int64), start)["max_stretch"]
    assert value == pytest.approx(5.0)
    c, s, _ = rolling_schedule(r, q, p, m, start, value, 1.0, np.zeros(1, dtype=np.int64), 1e9, lambda: None,
                               piece=2, lookahead=0)
    check_batch_schedule(inst, c, s)
    assert schedule_metrics(inst, c, s)["max_stretch"] == pytest.approx(brute_force(inst)["max_stretch"])


def _stalled_search(monkeypatch, sizes: tuple, n: int = 24):
    """The max-stretch search on a random workload of ``n`` jobs with pieces of ``sizes`` and a stall after 1 % of
    the restarts' work and 2 rounds; returns (given schedule, result, the pieces and offsets of the passes, whether
    each restart was gated, in order)."""
    rng = np.random.default_rng(3)
    r, q, p, m = _arrays(rng, n, 1)
    inst = BatchInstance.from_arrays(r, q, p, m)
    monkeypatch.setattr(S, "PIECE_SIZES", sizes)
    monkeypatch.setattr(S, "STALL_SHARE", 0.01)
    monkeypatch.setattr(S, "STALL_ROUNDS", 2)
    ev = C._Evaluator(inst)
    values, cluster, start = C.run_key(inst, r + 2.0 * p[:, 0], "serial")
    given_ = C.Best(values["max_stretch"], "portfolio", "EDF", cluster, start, "serial")
    calls, restarts = [], []
    real_roll, real_search = S.rolling_schedule, S.search_stretch

    def roll(*args, **kwargs):
        calls.append((kwargs["piece"], kwargs["lookahead"], kwargs["offset"]))
        return real_roll(*args, **kwargs)

    def search(sr, stop):
        restarts.append(sr.gates is not None)
        return real_search(sr, stop)

    monkeypatch.setattr(S, "rolling_schedule", roll)
    monkeypatch.setattr(S, "search_stretch", search)
    out, stopped = S.stretch_search(ev, C._features(ev), given_, 1.0, C.Limit(ev, 3e6, time.perf_counter() + 600))
    assert stopped in ("done", "budget")
    check_batch_schedule(inst, out.cluster, out.start)
    assert out.value == pytest.approx(schedule_metrics(inst, out.cluster, out.start)["max_stretch"])
    assert out.value <= given_.value + 1e-9
    return given_, out, calls, restarts


def test_a_stalled_search_hands_its_work_to_the_pieces(monkeypatch):
    # pieces of 3 jobs: the search stops its restarts, justifies, runs the rolling pieces, and its schedule is
    # checked and no worse than the one it was given
    _, _, calls, _ = _stalled_search(monkeypatch, (3,))
    assert calls and calls[0] == (3, 1, 0)


def test_the_passes_take_the_piece_sizes_in_turn(monkeypatch):
    # pieces of 6 then 3 jobs: the passes of 6 come first, each size's cuts shifted by 0, 1/2, 1/4 and 3/4 of a piece
    # while they improve nothing, and four passes in a row without improvement move them to the next size
    _, _, calls, _ = _stalled_search(monkeypatch, (6, 3))
    pieces = [c[0] for c in calls]
    assert pieces[0] == 6 and pieces == sorted(pieces, reverse=True)
    for piece, look, offset in calls:
        assert look == piece // 2 and offset in [int(f * piece) for f in S.ROLL_SHIFTS]
    if 3 in pieces:  # the passes of 6 ended: four in a row improved nothing
        tail = [c[2] for c in calls if c[0] == 6][-len(S.ROLL_SHIFTS):]
        assert tail == [int(f * 6) for f in S.ROLL_SHIFTS]


def test_a_size_too_large_for_the_workload_is_skipped_and_the_stall_waits_for_the_gated_restart(monkeypatch):
    # 24 jobs cannot make 4 pieces of 100: only the pieces of 3 run, and no stall stops the restarts before the gated
    # restart has ended
    _, _, calls, restarts = _stalled_search(monkeypatch, (100, 3))
    assert S.piece_sizes(24) == (3,)
    assert calls and {c[0] for c in calls} == {3}
    assert True in restarts and len(restarts) > restarts.index(True) + 1
    # with the first size usable the stall may stop the restarts before the gated one (the rule as it was)
    _, _, _, plain = _stalled_search(monkeypatch, (3,))
    assert True not in plain


def test_search_stretch_on_a_frozen_piece_never_moves_the_frozen_jobs():
    # a whole-machine job frozen at 0 for 10 s and a short one submitted at 1: the repair cannot move the frozen
    # job, so the short job waits for it (stretch 10) and the value is the free job's
    r = np.array([0.0, 1.0])
    q = np.array([2, 2], dtype=np.int64)
    p = np.array([[10.0], [1.0]])
    m = np.array([2], dtype=np.int64)
    frozen = np.array([True, False])
    sr = StretchRepair(r, q, p, m, np.array([-1e15, 2.0]), 2.0, np.zeros(1, dtype=np.int64), frozen=frozen)
    assert search_stretch(sr, lambda: None if sr.rounds < 50 else "rounds") in ("done", "rounds")
    assert sr.best_value == pytest.approx(10.0)
    c, s = serial_schedule(r, q, p, m, np.argsort(sr.best_key, kind="stable"))
    assert s[0] == 0.0 and s[1] == 10.0
