"""The max-stretch repair of the upper side (lowerbounds.batch.stretchrepair, _stretchrepair): the compiled jump
against a plain one, the jump's guarantee, the search against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch import clairvoyant_schedules
from lowerbounds.batch._listsched import serial_schedule
from lowerbounds.batch._stretchrepair import START_POINTS, promotions
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.stretchrepair import StretchRepair, search_stretch
from tests.grid.batch_oracle import brute_force


def _arrays(rng, n, K):
    m = rng.integers(2, 9, size=K)
    q = rng.integers(1, m.max() + 1, size=n)
    r = np.sort(rng.integers(0, 30, size=n)).astype(float)
    base = rng.integers(1, 12, size=n).astype(float)
    speed = rng.choice((1.0, 2.0), size=K)
    p = base[:, None] / speed[None, :]
    p[q[:, None] > m[None, :]] = np.inf
    return r, q.astype(np.int64), np.ascontiguousarray(p), m.astype(np.int64)


def _plain_jump(j, k, s, p, r, q, m, cluster, start, dur, rank, target):
    """The rank to pass and its harm, by brute force: pass the 0, 1, 2, ... jobs of highest rank among those of lower
    rank than ``j`` running during ``[s, s + p)`` on ``k``, until the use at every instant there leaves ``q_j``."""
    run = [i for i in range(r.size) if i != j and cluster[i] == k and rank[i] < rank[j] and dur[i, k] > 0
           and start[i] < s + p and start[i] + dur[i, k] > s]
    run.sort(key=lambda i: -rank[i])
    for passed in range(len(run) + 1):
        rest = run[passed:]
        points = [s] + [start[i] for i in rest if s < start[i] < s + p]
        if all(sum(q[i] for i in rest if start[i] <= x < start[i] + dur[i, k]) <= m[k] - q[j] for x in points):
            if passed == 0:
                return rank[j], 0
            harm = sum(r[i] + target * dur[i, k] - (start[i] + dur[i, k]) < p for i in run[:passed])
            return rank[run[passed - 1]], harm
    raise AssertionError("passing every job always leaves room")


def _plain_promotions(late, r, q, p, m, cluster, start, rank, target):
    out = []
    for j in late:
        best, best_harm = -1, r.size + 1
        for k in range(m.size):
            if not np.isfinite(p[j, k]) or p[j, k] <= 0:
                continue
            latest = r[j] + max(target - 1, 0) * p[j, k]
            for c in range(START_POINTS):
                s = r[j] + (latest - r[j]) * c / (START_POINTS - 1)
                to, harm = _plain_jump(j, k, s, p[j, k], r, q, m, cluster, start, p, rank, target)
                if harm < best_harm or (harm == best_harm and to > best):
                    best, best_harm = to, harm
        out.append(best)
    return np.array(out, dtype=np.int64)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 25), st.integers(1, 2), st.sampled_from([0.9, 1.0, 1.5, 3.0]))
def test_promotions_equal_the_plain_jump_and_meet_the_deadline(seed, n, K, target):
    rng = np.random.default_rng(seed)
    r, q, p, m = _arrays(rng, n, K)
    order = rng.permutation(n)
    cluster, start = serial_schedule(r, q, p, m, order)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    pj = p[np.arange(n), cluster]
    late = np.flatnonzero(start + pj > r + target * pj)
    got = promotions(late, r, q, p, m, cluster, start, rank, target, np.zeros(1, dtype=np.int64))
    assert np.array_equal(got, _plain_promotions(late, r, q, p, m, cluster, start, rank, target))
    for j, to in zip(late, got):
        if to >= rank[j]:
            continue
        # j alone moved just before the job of rank `to`: placed against an unchanged prefix, it completes by the
        # deadline r_j + target p_jk of the cluster k of the jump (on that cluster or on one where it ends sooner)
        new = np.concatenate([order[:to], [j], [i for i in order[to:] if i != j]])
        c2, s2 = serial_schedule(r, q, p, m, new)
        assert np.array_equal(s2[order[:to]], start[order[:to]])
        reach = max(target, 1.0)  # below 1 no start meets the deadline: the jump aims at the submission
        assert s2[j] + p[j, c2[j]] <= max(r[j] + reach * p[j, k] for k in range(K) if np.isfinite(p[j, k])) + 1e-9


@pytest.mark.parametrize("seed", range(12))
def test_repair_search_is_valid_and_never_below_the_optimum(seed):
    rng = np.random.default_rng(500 + seed)
    r, q, p, m = _arrays(rng, 5, 1 + seed % 2)
    inst = BatchInstance.from_arrays(r, q, p, m)
    opt = brute_force(inst)["max_stretch"]
    res = clairvoyant_schedules(inst, metrics=("max_stretch",), time_limit=600, budget=2e6)["max_stretch"]
    check_batch_schedule(inst, res.cluster, res.start)
    assert schedule_metrics(inst, res.cluster, res.start)["max_stretch"] == pytest.approx(res.value, rel=1e-12)
    assert res.value >= opt * (1 - 1e-9)


def _forced_case():
    """4 processors; whole-machine unit jobs at 0 and 10, a job of 8 on 2 processors at 0 and one of 5 on 3 at 1. EDF
    (and EASY) start the long job at 1 and the last unit job waits for it (max stretch 5); the optimum (2.375) runs
    the long job after the last unit job: 0-1, 1-6, 10-11, 11-19."""
    r = np.array([0.0, 0.0, 1.0, 10.0])
    q = np.array([4, 2, 3, 4], dtype=np.int64)
    p = np.array([[1.0], [8.0], [5.0], [1.0]])
    m = np.array([4], dtype=np.int64)
    return r, q, p, m, BatchInstance.from_arrays(r, q, p, m)


def test_descent_tracks_its_best_schedule_and_reaches_a_known_optimum():
    r, q, p, m, inst = _forced_case()
    opt = brute_force(inst)["max_stretch"]
    work = np.zeros(1, dtype=np.int64)
    sr = StretchRepair(r, q, p, m, r + 1.0 * p[:, 0], 1.0, work)
    assert search_stretch(sr, lambda: None if sr.rounds < 200 else "rounds") in ("done", "rounds")
    cluster, start = serial_schedule(r, q, p, m, np.argsort(sr.best_key, kind="stable"))
    assert schedule_metrics(inst, cluster, start)["max_stretch"] == pytest.approx(sr.best_value)
    assert sr.best_value == pytest.approx(opt)
    assert work[0] > 0


def test_keys_that_follow_the_target_are_its_deadlines_less_the_advances_and_reach_the_optimum():
    # the forced case above, with keys that follow the target: after every round (targets met, raised or given
    # up, promotions) each key is r + S p - a at the current target S, and the descent still finds the optimum
    r, q, p, m, inst = _forced_case()
    sr = StretchRepair(r, q, p, m, r + 3.0 * p[:, 0], 3.0, np.zeros(1, dtype=np.int64), follow=p[:, 0])
    targets = set()
    while sr.rounds < 200 and sr.round():
        targets.add(sr.target)
        assert np.allclose(sr.key, r + sr.target * p[:, 0] - sr.advance, rtol=1e-12, atol=1e-9)
    assert len(targets) > 1
    assert sr.best_value == pytest.approx(brute_force(inst)["max_stretch"])


def test_the_first_restart_descends_from_the_best_schedule_so_far(monkeypatch):
    # the forced case: from a best schedule of max stretch 5 (the serial EDF list at S = 1), the restart that starts
    # from its start order, at its value, alone reaches the brute-force optimum 2.375
    import time

    from lowerbounds.batch import clairvoyant as C
    from lowerbounds.batch import stretchsearch as S

    r, q, p, m, inst = _forced_case()
    values, cluster, start = C.run_key(inst, r + 1.0 * p[:, 0], "serial")
    assert values["max_stretch"] == pytest.approx(5.0)
    ev = C._Evaluator(inst)
    monkeypatch.setattr(S, "STRETCH_STARTS", ((None, 12, False, False),))
    given = C.Best(5.0, "portfolio", "EDF", cluster, start, "serial")
    out, stopped = S.stretch_search(ev, C._features(ev), given, 1.0, C.Limit(ev, 1e9, time.perf_counter() + 600))
    assert stopped == "done" and out.method == "repair"
    assert out.value == pytest.approx(brute_force(inst)["max_stretch"])
    check_batch_schedule(inst, out.cluster, out.start)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(3, 30), st.integers(1, 2), st.sampled_from([1.0, 1.5, 3.0]))
def test_a_job_promoted_again_is_keyed_by_its_deadline_at_a_lower_target(seed, n, K, factor):
    # escalation: after every round, a job promoted k >= 2 times since the target last changed has a key at or
    # before its deadline at AGE^(k-1) times the target (r_j + AGE^(k-1) S p_j, p_j its shortest duration), and
    # a new target starts the counts again (a campaign of 200 such draws escalated a job in 175)
    from lowerbounds.batch import stretchrepair as R

    rng = np.random.default_rng(seed)
    r, q, p, m = _arrays(rng, n, K)
    pmin = p.min(axis=1)
    sr = StretchRepair(r, q, p, m, r + factor * pmin, factor, np.zeros(1, dtype=np.int64), patience=4)
    while sr.rounds < 60:
        before, target = sr.moves.copy(), sr.target
        if not sr.round():
            break
        if sr.target != target and not (sr.moves > before).any():
            assert not sr.moves.any()  # a new target: counts start again
        again = sr.moves >= 2
        bound = r + sr.target * pmin * R.AGE ** (sr.moves - 1.0)
        assert np.all(sr.key[again] <= bound[again] * (1 + 1e-12) + 1e-9)
