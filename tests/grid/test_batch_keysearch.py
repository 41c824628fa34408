"""Incremental re-simulation of the list construction (lowerbounds.batch._resim) and the key search on it."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch._listsched import list_schedule
from lowerbounds.batch._resim import resimulate, restart_point
from lowerbounds.batch.clairvoyant import clairvoyant_schedules
from lowerbounds.batch.instance import BSLD_TAU, BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.keysearch import KeySearch
from tests.grid.batch_oracle import plain_check, plain_list_schedule


def _instance(rng, n, K, integer):
    m = rng.integers(2, 7, size=K)
    s = rng.choice((1.0, 1.5, 2.0), size=K) if K > 1 else np.ones(1)
    q = rng.integers(1, m.max() + 1, size=n)
    r = np.sort(rng.integers(0, 3 * n, size=n)).astype(float) if integer else np.sort(rng.uniform(0, 3 * n, size=n))
    base = rng.integers(0, 9, size=n).astype(float) if integer else rng.uniform(0.1, 9, size=n)
    return BatchInstance.from_arrays(r, q, base[:, None] * s[0] / s[None, :], m, s)


def _sums(inst, cluster, start):
    p = inst.duration[np.arange(len(inst)), cluster]
    resp = start + p - inst.release
    return resp.sum(), np.maximum(1.0, resp / np.maximum(p, BSLD_TAU)).sum()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 60), st.integers(1, 3), st.booleans())
def test_the_compiled_construction_is_the_plain_one(seed, n, K, integer):
    """The compiled list construction (its shadow times cached between passes) builds the schedule of the plain one
    (every shadow time recomputed), keys with ties or not."""
    rng = np.random.default_rng(seed)
    m = rng.integers(2, 9, size=K)
    s = rng.choice((1.0, 1.5, 2.0), size=K) if K > 1 else np.ones(1)
    r = np.sort(rng.integers(0, n // 2 + 1, size=n)).astype(float) if integer else np.sort(rng.uniform(0, n / 2, n))
    base = rng.integers(0, 20, size=n).astype(float) if integer else rng.uniform(0.1, 20, size=n)
    inst = BatchInstance.from_arrays(r, rng.integers(1, m.max() + 1, size=n), base[:, None] * s[0] / s[None, :], m, s)
    key = rng.choice((0.0, 1.0, 2.0), size=n) if rng.random() < 0.3 else rng.uniform(0, 10, size=n)
    args = (inst.release, inst.width.astype(np.int64), inst.duration, inst.procs.astype(np.int64), key)
    cluster, start = list_schedule(*args)
    plain_c, plain_s = plain_list_schedule(*args)
    assert np.array_equal(cluster, plain_c) and np.array_equal(start, plain_s)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(2, 40), st.integers(1, 2), st.booleans())
def test_resimulation_gives_the_full_construction(seed, n, K, integer):
    """A chain of key changes, each re-simulated from its restart: every schedule is the one the full construction
    builds from scratch, and the returned differences are those of the recomputed sums."""
    rng = np.random.default_rng(seed)
    inst = _instance(rng, n, K, integer)
    r, q, d, m = inst.release, inst.width, inst.duration, inst.procs
    key = rng.choice((0.0, 1.0, 2.0, 5.0), size=n) if rng.random() < 0.5 else rng.uniform(0, 10, size=n)
    cluster, start = list_schedule(r, q, d, m, key)
    for _ in range(6):
        j = int(rng.integers(n))
        key = key.copy()
        key[j] = float(rng.choice(key)) if rng.random() < 0.5 else rng.uniform(-1, 11)
        reach = float(d[np.isfinite(d)].max() + (start - r).max())
        c2, s2 = cluster.copy(), start.copy()
        _stop, d_resp, d_bsld = resimulate(r, q, d, m, key, cluster, start, restart_point(r, j), j, reach, c2, s2,
                                           np.zeros(1, dtype=np.int64))
        full_c, full_s = list_schedule(r, q, d, m, key)
        assert np.array_equal(full_c, c2) and np.array_equal(full_s, s2)
        (a0, b0), (a1, b1) = _sums(inst, cluster, start), _sums(inst, c2, s2)
        assert abs(a1 - a0 - d_resp) <= 1e-9 * max(a0, 1.0) and abs(b1 - b0 - d_bsld) <= 1e-9 * max(b0, 1.0)
        cluster, start = c2, s2
    plain_check(inst, cluster, start)


def test_key_search_tracks_the_metric_of_its_keys():
    """After many moves, the tracked value is the metric of the current keys' full schedule, and it never rose."""
    rng = np.random.default_rng(3)
    inst = _instance(rng, 120, 1, True)
    work = np.zeros(1, dtype=np.int64)
    for metric in ("mean_response", "mean_bounded_slowdown"):
        ks = KeySearch(inst.release, inst.width, inst.duration, inst.procs, inst.pmin.copy(), metric, work)
        first = ks.value
        for _ in range(400):
            before = ks.value
            ks.move(rng)
            assert ks.value <= before
        c, s = list_schedule(inst.release, inst.width, inst.duration, inst.procs, ks.key)
        check_batch_schedule(inst, c, s)
        assert abs(schedule_metrics(inst, c, s)[metric] - ks.value) <= 1e-9 * ks.value
        assert ks.value < first  # a 120-job busy instance always has a better order than SPT for some job


def test_search_with_key_moves_is_reproducible():
    """Two searches with the same seed and budget give the same schedules (the key moves draw from the seed)."""
    rng = np.random.default_rng(5)
    inst = _instance(rng, 150, 2, False)
    runs = [clairvoyant_schedules(inst, metrics=("mean_response",), time_limit=60, seed=4, budget=4e7)
            for _ in range(2)]
    a, b = (x["mean_response"] for x in runs)
    assert a.value == b.value and np.array_equal(a.start, b.start) and a.stopped != "time_limit"
    assert "key moves" in a.detail
    check_batch_schedule(inst, a.cluster, a.start)
