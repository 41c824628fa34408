"""The sumflow backlog bound (:func:`lowerbounds.timeshare.pairs.sumflow_backlog_bound`) against brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowerbounds.timeshare import TaskCosts
from lowerbounds.timeshare._backlog_dp import _dominated, backlog_bound_compiled, far
from lowerbounds.timeshare.bounds import merge_slow_servers, pairs_bounds, slow_servers
from lowerbounds.timeshare.mapping import evaluate_mapping
from lowerbounds.timeshare.pairs import (
    backlog_edges,
    bucket_edges,
    spread_edges,
    sumflow_backlog_bound,
    sumflow_pair_bound,
    tracked_servers,
)
from vcsched.jitclock import clock
from vcsched.problems.timeshare import Platform
from vcsched.problems.timeshare import TimeshareWorkload as Workload


def best_sumflow(costs):
    """The least sumflow over every mapping, each evaluated with the simulator's sharing routine."""
    best = np.inf
    for mapping in itertools.product(range(costs.p.shape[1]), repeat=costs.n):
        best = min(best, float((evaluate_mapping(costs, mapping) - costs.arrival).sum()))
    return best


def busy_instance(seed, n=6, servers=3):
    """Arrivals much closer than the computations: the servers build a backlog."""
    rng = np.random.default_rng(seed)
    compute = rng.uniform(3.0, 12.0, size=(servers, 2)) * np.linspace(1.0, 6.0, servers)[:, None]
    platform = Platform(name="busy", servers=tuple(f"s{i}" for i in range(servers)),
                        input=rng.uniform(0.0, 1.0, size=(servers, 2)), compute=compute,
                        output=rng.uniform(0.0, 0.5, size=(servers, 2)), memory=np.full(servers, np.inf),
                        task_memory=np.zeros(2))
    workload = Workload.independent(np.sort(rng.uniform(0, 12, size=n)), rng.integers(0, 2, size=n))
    return TaskCosts.of(platform, workload)


@pytest.mark.parametrize("seed", range(4))
def test_the_backlog_bound_stays_below_the_brute_force_optimum_and_above_the_pair_bound(seed):
    costs = busy_instance(seed)
    truth = best_sumflow(costs)
    args = (costs.arrival, costs.inp, costs.p, costs.out)
    for window in (1, 3):
        pair = sumflow_pair_bound(*args, window=window)
        for step in (4.0, 0.5):
            for tracked in (None, (0,), (0, 1, 2)[:2]):
                value = sumflow_backlog_bound(*args, window=window, step=step, tracked=tracked)
                assert pair * (1 - 1e-12) <= value <= truth * (1 + 1e-9)
    merged = merge_slow_servers(*args)
    if merged is not None:
        assert sumflow_backlog_bound(*merged, window=2, step=0.1) <= truth * (1 + 1e-9)
    assert pairs_bounds(costs, deadline=clock() + 2)["sumflow"] <= truth * (1 + 1e-9)


def test_on_one_busy_server_the_backlog_bound_sees_what_the_window_misses():
    # six tasks of 10 s every 2 s on one server: with a window of 1 the pair terms see one neighbour only
    p = np.full((6, 1), 10.0)
    a = np.arange(6) * 2.0
    zero = np.zeros_like(p)
    costs_truth = float(evaluate_mapping(_costs_of(a, p), (0,) * 6).sum() - a.sum())
    pair = sumflow_pair_bound(a, zero, p, zero, window=1)
    backlog = sumflow_backlog_bound(a, zero, p, zero, window=1, step=0.01)
    assert pair < backlog <= costs_truth * (1 + 1e-9)
    assert backlog > 1.2 * pair


def _costs_of(a, p):
    platform = Platform(name="one", servers=("s",), input=np.zeros((1, 1)), compute=p[:1].T.copy(),
                        output=np.zeros((1, 1)), memory=np.full(1, np.inf), task_memory=np.zeros(1))
    return TaskCosts.of(platform, Workload.independent(a, np.zeros(a.size, dtype=int)))


@pytest.mark.parametrize("seed", range(3))
def test_far_is_the_least_shared_service_over_works_left(seed):
    rng = np.random.default_rng(seed)
    P, q = 5.0, float(rng.uniform(0.5, 7.0))
    for _ in range(200):
        works = rng.uniform(0.0, P, size=int(rng.integers(1, 6)))
        works[rng.random(works.size) < 0.3] = P
        assert far(works.sum(), P, q) <= np.minimum(works, q).sum() + 1e-12
    R = 13.0
    assert far(R, P, q) == pytest.approx(2 * min(P, q) + min(3.0, q))  # two full tasks and the rest: attained


def test_tracked_servers_are_the_fastest_that_compute():
    p = np.array([[5.0, 1.0, 0.0, 2.0], [6.0, 1.5, 0.0, 2.5]])
    assert tracked_servers(p) == (1, 3)
    assert tracked_servers(p[:, 2:3]) == ()
    value = sumflow_backlog_bound(np.arange(2.0), np.zeros_like(p), p, np.zeros_like(p), window=1, step=0.5)
    assert value == pytest.approx(sumflow_pair_bound(np.arange(2.0), np.zeros_like(p), p, np.zeros_like(p), window=1))


def slow_instance(seed, n=5):
    """Two fast servers and two slow ones (six times slower), busy: the slow servers' backlog matters."""
    rng = np.random.default_rng(seed)
    compute = rng.uniform(3.0, 12.0, size=(4, 2)) * np.array([1.0, 1.1, 6.0, 6.2])[:, None]
    platform = Platform(name="slow", servers=("f0", "f1", "s0", "s1"), input=rng.uniform(0.0, 1.0, size=(4, 2)),
                        compute=compute, output=rng.uniform(0.0, 0.5, size=(4, 2)), memory=np.full(4, np.inf),
                        task_memory=np.zeros(2))
    workload = Workload.independent(np.sort(rng.uniform(0, 8, size=n)), rng.integers(0, 2, size=n))
    return TaskCosts.of(platform, workload)


def _slow_case(seed, divisions):
    """A :func:`slow_instance`, its brute-force optimum, the bound's inputs and random bucket edges per server."""
    costs = slow_instance(seed)
    tops = 2.0 * costs.p.max(axis=0)
    edges = [bucket_edges(top / d, top, 3) for top, d in zip(tops, divisions)]
    return costs, best_sumflow(costs), (costs.arrival, costs.inp, costs.p, costs.out), edges


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), window=st.integers(0, 2),
       divisions=st.lists(st.integers(1, 6), min_size=4, max_size=4))
def test_every_server_tracked_with_its_own_buckets_stays_below_the_brute_force_optimum(seed, window, divisions):
    costs, truth, args, edges = _slow_case(seed, divisions)
    assert sumflow_backlog_bound(*args, window=window, tracked=(0, 1, 2, 3), edges=edges) <= truth * (1 + 1e-9)
    spread = spread_edges(costs.p, slow_servers(costs.p), 2.0)
    assert sumflow_backlog_bound(*args, window=0, tracked=(0, 1, 2, 3), edges=spread) <= truth * (1 + 1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_one_array_per_server_gives_the_shared_buckets_value(seed):
    costs = busy_instance(seed)
    args = (costs.arrival, costs.inp, costs.p, costs.out)
    tracked = tracked_servers(costs.p)
    edges = backlog_edges(costs.p, tracked, 0.5)
    shared = sumflow_backlog_bound(*args, window=2, step=0.5, tracked=tracked)
    assert sumflow_backlog_bound(*args, window=2, tracked=tracked, edges=[edges] * len(tracked)) == shared


def test_the_slow_servers_backlog_is_charged_where_the_merged_label_shares_nothing():
    # five tasks of 30 s at once on one fast server, or of 120 s on either of two slow servers: the merged label
    # takes three tasks at 120 s each (2 fast, 3 slow: 30 * 2^2 + 360 = 480), but two of them must share a slow
    # server; the best mapping is 3 fast (30 * 3^2 = 270) and one on each slow server (240): 510
    p = np.array([[30.0, 120.0, 120.0]] * 5)
    a = np.zeros(5)
    zero = np.zeros_like(p)
    assert best_sumflow(_costs_on(a, p)) == pytest.approx(510.0)
    merged = merge_slow_servers(a, zero, p, zero)
    assert sumflow_backlog_bound(*merged, window=1, step=1.0) == pytest.approx(480.0)
    spread = spread_edges(p, slow_servers(p), 8.0)
    assert sumflow_backlog_bound(a, zero, p, zero, window=0, tracked=(0, 1, 2), edges=spread) == pytest.approx(510.0)


def _costs_on(a, p):
    servers = tuple(f"s{i}" for i in range(p.shape[1]))
    platform = Platform(name="flat", servers=servers, input=np.zeros((p.shape[1], 1)), compute=p[:1].T.copy(),
                        output=np.zeros((p.shape[1], 1)), memory=np.full(p.shape[1], np.inf), task_memory=np.zeros(1))
    return TaskCosts.of(platform, Workload.independent(a, np.zeros(a.size, dtype=int)))


def test_the_budget_runs_the_spread_programme_between_the_coarse_and_the_fine_merged_runs(monkeypatch):
    import lowerbounds.timeshare.bounds as ts_bounds

    costs = slow_instance(1)
    calls = []
    real = ts_bounds.sumflow_backlog_bound

    def recorded(*args, **kwargs):
        calls.append(kwargs.get("edges") is not None)
        return real(*args, **kwargs)

    monkeypatch.setattr(ts_bounds, "sumflow_backlog_bound", recorded)
    truth = best_sumflow(costs)
    assert pairs_bounds(costs, work=1e9)["sumflow"] <= truth * (1 + 1e-9)
    assert calls.count(True) == 1  # one run with every server tracked, the finest that fits
    assert calls.index(True) == ts_bounds.SPREAD_AFTER  # after the coarse merged runs
    assert len(calls) > ts_bounds.SPREAD_AFTER + 1  # and the finer merged runs after it
    calls.clear()
    pairs_bounds(costs, work=1.0)
    assert calls == [False]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), window=st.integers(0, 2),
       divisions=st.lists(st.integers(1, 6), min_size=4, max_size=4))
def test_dropping_dominated_states_stays_below_the_brute_force_optimum(seed, window, divisions):
    costs, truth, args, edges = _slow_case(seed, divisions)
    for prune in (True, False):
        value = backlog_bound_compiled(*args, window, (0, 1, 2, 3), edges, prune=prune)
        assert value <= truth * (1 + 1e-9)
    busy = busy_instance(seed)
    args = (busy.arrival, busy.inp, busy.p, busy.out)
    tracked = tracked_servers(busy.p)
    for step in (0.25, 2.0):
        edges = backlog_edges(busy.p, tracked, step)
        assert backlog_bound_compiled(*args, window, tracked, edges, prune=True) <= best_sumflow(busy) * (1 + 1e-9)


def test_a_state_is_dominated_by_the_nearest_live_state_below_with_no_more_value_and_work_left():
    place, sizes = np.array([3, 1]), np.array([2, 3])  # two tracked servers, 2 and 3 buckets: state 3 d0 + d1
    vr = np.full((1, 6, 3), np.inf)
    vr[0, 4] = (10.0, 5.0, 3.0)  # digits (1, 1)
    assert not _dominated(vr, 0, 4, place, sizes)  # no live neighbour
    vr[0, 3] = (10.0, 5.0, 2.5)  # (1, 0): one bucket lower on the second server, no more value or work left
    assert _dominated(vr, 0, 4, place, sizes)
    vr[0, 3] = (10.5, 5.0, 2.5)  # more value
    assert not _dominated(vr, 0, 4, place, sizes)
    vr[0, 1] = (9.0, 4.0, 3.0)  # (0, 1): one bucket lower on the first server
    assert _dominated(vr, 0, 4, place, sizes)
    vr[0, 1] = (9.0, 5.5, 3.0)  # more work left on the first server
    assert not _dominated(vr, 0, 4, place, sizes)
    vr[0, 0] = (0.0, 0.0, 0.0)  # (0, 0) is lower on both servers: not on either line of (1, 1)
    assert not _dominated(vr, 0, 4, place, sizes)
    assert not _dominated(vr, 0, 0, place, sizes)  # the first bucket on every server has nothing below
    vr[0, 5] = (11.0, 5.0, 3.0)  # (1, 2): (1, 1) is live and dominates it
    assert _dominated(vr, 0, 5, place, sizes)
    vr[0, 4] = np.inf  # (1, 1) dead: the nearest live state below on the second server is (1, 0)
    vr[0, 3] = (10.5, 5.0, 2.5)
    assert _dominated(vr, 0, 5, place, sizes)
    vr[0, 3] = (11.5, 5.0, 2.5)
    assert not _dominated(vr, 0, 5, place, sizes)
