"""The HTM vectorised over servers: the 2-D replay against the per-server computation."""

import math

import numpy as np
import pytest

import vcsched.sim.htm as htm_module
import vcsched.sim.processor_sharing as ps_module
from vcsched.problems.timeshare import Platform
from vcsched.sim.htm import HistoricalTraceManager
from vcsched.sim.processor_sharing import ps_advance, ps_completion_times


def random_platform(rng, ns, nt=3, input_prob=0.7):
    inp = rng.uniform(0, 3, (ns, nt)) * (rng.random((ns, nt)) < input_prob)  # some zero inputs: joins "now"
    return Platform(name="r", servers=tuple(f"s{k}" for k in range(ns)), input=inp,
                    compute=rng.uniform(5, 80, (ns, nt)), output=rng.uniform(0, 2, (ns, nt)),
                    memory=np.full(ns, np.inf), task_memory=np.zeros(nt))


def random_history(rng, plat, n_tasks, gap=2.0):
    """Commits on uneven servers (Dirichlet weights: some servers empty, some crowded)."""
    ns, nt = plat.n_servers, plat.n_types
    weights = rng.dirichlet(np.full(ns, 0.4))
    now, out = 0.0, []
    for task in range(n_tasks):
        now += float(rng.exponential(gap))
        out.append((int(rng.choice(ns, p=weights)), task, int(rng.integers(nt)), now))
    return out, now


def reference(plat, history, ttype, now):
    """Per server from scratch (closed form of :func:`ps_completion_times`), without the HTM's state."""
    T, P = [], []
    for s in range(plat.n_servers):
        mine = [(when, k) for srv, _, k, when in history if srv == s]
        starts = [when + plat.input[s, k] for when, k in mine]
        works = [plat.compute[s, k] for _, k in mine]
        start, work = now + plat.input[s, ttype], plat.compute[s, ttype]
        with_new = ps_completion_times(works + [work], starts + [start])
        without = ps_completion_times(works, starts) if works else np.empty(0)
        T.append(with_new[-1] + plat.output[s, ttype])
        P.append(float(np.sum(with_new[:-1] - without)))
    return np.array(T), np.array(P)


def predict_with(monkeypatch, htm, ttype, now, path):
    monkeypatch.setattr(htm_module, "_SMALL_HTM", 10**9 if path == "loop" else 0)
    return htm.predict(ttype, now)


@pytest.mark.parametrize("case", range(12))
def test_vectorised_equals_per_server_loop_and_closed_form(monkeypatch, case):
    rng = np.random.default_rng(100 + case)
    ns = int(rng.integers(2, 40))
    plat = random_platform(rng, ns)
    history, now = random_history(rng, plat, int(rng.integers(0, 12 * ns)))
    loop, rows = HistoricalTraceManager(plat), HistoricalTraceManager(plat)
    for s, task, k, when in history:
        if rng.random() < 0.3:  # predictions mid-way advance the state (tasks still in their input transfer)
            a = predict_with(monkeypatch, loop, k, when, "loop")
            b = predict_with(monkeypatch, rows, k, when, "rows")
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        loop.commit(s, task, k, when)
        rows.commit(s, task, k, when)
    now += float(rng.uniform(0.0, 1.5))  # some inputs still in progress
    ttype = int(rng.integers(plat.n_types))
    T1, P1 = predict_with(monkeypatch, loop, ttype, now, "loop")
    T2, P2 = predict_with(monkeypatch, rows, ttype, now, "rows")
    # the two paths make the same floating-point operations
    assert np.array_equal(T1, T2) and np.array_equal(P1, P2)
    n = len(history)
    assert np.array_equal(loop.predicted_completion()[:n], rows.predicted_completion()[:n])
    for s in range(ns):
        assert np.array_equal(np.sort(loop.tasks_on(s, now)), np.sort(rows.tasks_on(s, now)))
    # and agree with the closed form computed from scratch, per server
    T_ref, P_ref = reference(plat, history, ttype, now)
    assert np.allclose(T2, T_ref, rtol=1e-11, atol=1e-8)
    assert np.allclose(P2, P_ref, rtol=1e-9, atol=1e-6)


def test_detail_of_both_paths(monkeypatch):
    rng = np.random.default_rng(7)
    plat = random_platform(rng, 9)
    history, now = random_history(rng, plat, 120)
    htms = HistoricalTraceManager(plat), HistoricalTraceManager(plat)
    for s, task, k, when in history:
        for h in htms:
            h.commit(s, task, k, when)
    details = []
    for h, path in zip(htms, ("loop", "rows")):
        monkeypatch.setattr(htm_module, "_SMALL_HTM", 10**9 if path == "loop" else 0)
        details.append(h.predict_detail(1, now + 0.5))
    for a, b in zip(*details):
        assert np.array_equal(a["ids"], b["ids"]) and a["new"] == b["new"]
        assert np.array_equal(a["before"], b["before"]) and np.array_equal(a["after"], b["after"])
        assert -1 not in a["ids"].tolist()


@pytest.mark.parametrize("path", ["loop", "rows"])
def test_commit_reuses_the_prediction_exactly(monkeypatch, path):
    # a commit right after a prediction reuses its replay: the same dates as a fresh replay
    rng = np.random.default_rng(3)
    plat = random_platform(rng, 6)
    history, _ = random_history(rng, plat, 200, gap=1.0)
    reuse, fresh = HistoricalTraceManager(plat), HistoricalTraceManager(plat)
    monkeypatch.setattr(htm_module, "_SMALL_HTM", 10**9 if path == "loop" else 0)
    for s, task, k, when in history:
        for h in (reuse, fresh):
            h.predict(k, when)
        fresh._last = None  # forces commit to replay the server itself
        reuse.commit(s, task, k, when)
        fresh.commit(s, task, k, when)
    assert np.array_equal(reuse.predicted_completion()[:200], fresh.predicted_completion()[:200])


def test_commit_after_prediction_at_another_date_or_type(monkeypatch):
    plat = Platform(name="two", servers=("a", "b"), input=[[1.0, 0.0], [0.5, 2.0]], compute=[[10.0, 20.0], [15.0, 5.0]],
                    output=[[0.0, 0.0], [0.0, 0.0]], memory=[np.inf, np.inf], task_memory=[0.0, 0.0])
    for path in ("loop", "rows"):
        monkeypatch.setattr(htm_module, "_SMALL_HTM", 10**9 if path == "loop" else 0)
        htm = HistoricalTraceManager(plat)
        htm.commit(0, 0, 0, 0.0)
        htm.predict(1, 2.0)
        htm.commit(0, 1, 0, 2.0)  # another type than predicted: no reuse
        htm.predict(0, 3.0)
        htm.commit(0, 2, 0, 4.0)  # another date
        # task 0 alone from 1 to 3 (8 left), task 1 joins at 3 (10 left): at 1/2 until task 2 joins at 5,
        # then 7, 9 and 10 left at 1/3: task 0 ends at 5 + 21 = 26, task 1 at 26 + 2 * 2 = 30, task 2 at 30 + 1
        assert htm.predicted_completion([0, 1, 2]).tolist() == pytest.approx([26.0, 30.0, 31.0])


@pytest.mark.parametrize("prefix", [1, 32])
def test_rows_advance_equals_ps_advance(monkeypatch, prefix):
    monkeypatch.setattr(ps_module, "_PREFIX", prefix)  # 1: the prefix of dates is extended many times
    rng = np.random.default_rng(prefix)
    for trial in range(30):
        S = int(rng.integers(1, 9))
        counts = rng.integers(0, 30, S)
        counts[rng.random(S) < 0.2] = 0
        W = int(counts.max()) + int(rng.integers(0, 3))
        tags = np.full((S, W), np.inf)
        ids = np.full((S, W), -2, dtype=np.int64)
        t = rng.uniform(0, 5, S)
        v = rng.uniform(0, 5, S)
        joins = []
        for r in range(S):
            tags[r, : counts[r]] = np.sort(v[r] + rng.uniform(0, 60, counts[r]))
            ids[r, : counts[r]] = np.arange(counts[r]) + 1000 * r
            nj = int(rng.integers(0, 4))
            joins.append(sorted((float(t[r] + rng.uniform(0, 40)), float(rng.uniform(0, 30)), 900 + 1000 * r + j)
                                for j in range(nj)))
        J = max(1, max(len(j) for j in joins))
        jd, jw = np.zeros((S, J)), np.zeros((S, J))
        ji = np.full((S, J), -2, dtype=np.int64)
        for r, js in enumerate(joins):
            for c, (d, w, i) in enumerate(js):
                jd[r, c], jw[r, c], ji[r, c] = d, w, i
        jn = np.array([len(j) for j in joins])
        live = rng.random(S) < 0.85
        until = math.inf if trial % 2 else float(rng.uniform(0, 50))
        t2, v2, tg, ii, ends, lo, hi, k = ps_module._ps_advance_rows(t, v, tags, ids, counts, jd, jw, ji, jn, until, live)
        for r in range(S):
            if not live[r]:
                assert (t2[r], v2[r], lo[r], hi[r], k[r]) == (t[r], v[r], 0, counts[r], 0)
                continue
            tt, vv, rtags, rids, rjoins, e_ids, e_times = ps_advance(t[r], v[r], tags[r, : counts[r]],
                                                                     ids[r, : counts[r]], joins[r], until)
            assert (t2[r], v2[r]) == (tt, vv)
            assert np.array_equal(ii[r, : lo[r]], e_ids) and np.array_equal(ends[r, : lo[r]], e_times)
            assert np.array_equal(tg[r, lo[r]: hi[r]], rtags) and np.array_equal(ii[r, lo[r]: hi[r]], rids)
            assert k[r] == len(joins[r]) - len(rjoins)
