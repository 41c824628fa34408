"""Double justification for the max stretch (:mod:`lowerbounds.batch.stretchjustify`): the schedule it returns is
accepted by the checker, keeps every job on its cluster and never has a larger max stretch (hypothesis over widths,
durations, loads and clusters with speeds, from schedules of random lists); a forced case closes a hole."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowerbounds.batch._listsched import serial_schedule
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.stretchjustify import justify, justify_search
from tests.grid.batch_oracle import plain_check


def random_schedule(seed: int, n: int):
    """A random instance on 1-3 clusters with speeds, and the serial schedule of a random list of it (jobs kept
    off their best cluster now and then: the cluster of each job is drawn among those where it fits)."""
    rng = np.random.default_rng(seed)
    K = int(rng.integers(1, 4))
    m = rng.integers(1, 7, K)
    s = rng.choice([1.0, 1.2, 1.4], K)
    q = rng.integers(1, m.max() + 1, n)
    p = rng.integers(0, 7, n).astype(float) * rng.choice([1.0, 0.37], n)
    r = np.sort(rng.uniform(0, 8, n) / rng.choice([0.3, 1.0, 3.0]))
    inst = BatchInstance.from_arrays(r, q, p[:, None] * s[0] / s[None, :], m, s)
    dur = inst.duration.copy()
    for j in range(n):  # one cluster per job, drawn among those where it fits
        fits = np.flatnonzero(np.isfinite(dur[j]))
        keep = rng.choice(fits)
        dur[j, np.arange(K) != keep] = np.inf
    cluster, start = serial_schedule(inst.release, inst.width.astype(np.int64), dur, inst.procs.astype(np.int64),
                                     rng.permutation(n))
    return inst, cluster, start


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 12))
def test_the_justified_schedule_is_valid_on_the_same_clusters_and_never_worse(seed, n):
    inst, cluster, start = random_schedule(seed, n)
    before = schedule_metrics(inst, cluster, start)["max_stretch"]
    new = justify(inst, cluster, start, np.zeros(1, dtype=np.int64))
    plain_check(inst, cluster, new)
    check_batch_schedule(inst, cluster, new)
    after = schedule_metrics(inst, cluster, new)["max_stretch"]
    if before is not None:
        assert after <= before * (1 + 1e-9)
    got, passes = justify_search(inst, cluster, start, before if before is not None else 0.0,
                                 np.zeros(1, dtype=np.int64), lambda: None)
    check_batch_schedule(inst, cluster, got)
    if before is not None:
        assert schedule_metrics(inst, cluster, got)["max_stretch"] <= after * (1 + 1e-9)


def test_a_hole_is_closed():
    """One processor, two 1-s jobs at 0; the schedule runs the second at 0 and the first at 5 (max stretch 6).
    Justified: the first follows the second at once (max stretch 2, the optimum)."""
    inst = BatchInstance.from_arrays([0.0, 0.0], [1, 1], [[1.0], [1.0]], [1])
    cluster, start = np.zeros(2, dtype=np.int64), np.array([5.0, 0.0])
    new = justify(inst, cluster, start, np.zeros(1, dtype=np.int64))
    assert schedule_metrics(inst, cluster, new)["max_stretch"] == pytest.approx(2.0)
    got, passes = justify_search(inst, cluster, start, 6.0, np.zeros(1, dtype=np.int64), lambda: None)
    assert passes == 1 and sorted(got) == [0.0, 1.0]


def test_the_search_stops_when_told():
    inst = BatchInstance.from_arrays([0.0, 0.0], [1, 1], [[1.0], [1.0]], [1])
    cluster, start = np.zeros(2, dtype=np.int64), np.array([5.0, 0.0])
    got, passes = justify_search(inst, cluster, start, 6.0, np.zeros(1, dtype=np.int64), lambda: "budget")
    assert passes == 0 and list(got) == [5.0, 0.0]
