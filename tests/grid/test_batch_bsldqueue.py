"""Queue windows of the bounded slowdown (lowerbounds.batch.bsldqueue): the long jobs waiting at an instant
re-sequenced against all the others."""

from __future__ import annotations

import numpy as np
import pytest

from lowerbounds.batch._searchstep import Best, Limit
from lowerbounds.batch.bsldqueue import QUEUE_DAYS, queue_pass, queue_rows, queue_search, queue_window
from lowerbounds.batch.clairvoyant import _Evaluator, run_key
from lowerbounds.batch.instance import BatchInstance, check_batch_schedule, schedule_metrics
from lowerbounds.batch.windowsearch import WindowSearch
from tests.grid.batch_oracle import brute_force

M = "mean_bounded_slowdown"
H = QUEUE_DAYS * 86400.0


def _queue(order):
    """Three jobs of the whole cluster submitted before a busy hour-long job holds it, in the list ``order``."""
    r = np.array([0.0, 10, 20, 30])
    p = np.array([3600.0, 20_000, 4000, 9000])
    return BatchInstance.from_arrays(r, np.array([4, 4, 4, 4]), p[:, None], np.array([4])), np.asarray(order, float)


def test_a_queue_window_reaches_the_optimum_of_the_waiting_jobs():
    inst, key = _queue([0, 1, 2, 3])  # FCFS: the longest waiting job first
    values, cluster, start = run_key(inst, key, "serial")
    ws = WindowSearch(inst, M, cluster, start, np.zeros(1, dtype=np.int64))
    t = 3000.0
    rows = queue_rows(ws, t)
    assert list(rows) == [1, 2, 3]  # submitted before t, starting after it, long, wide
    assert queue_window(ws, rows, t)
    check_batch_schedule(inst, ws.cluster, ws.start)
    assert ws.checked_value() == pytest.approx(brute_force(inst)[M])
    assert ws.checked_value() < values[M]
    assert ws.start[0] == start[0]  # the job outside the window keeps its place


def _random(rng, n=60, m=8):
    """Jobs over two windows' spans: long ones (hours) and short ones, widths up to the cluster (a random list leaves a
    queue window that the pass improves for seeds 1 and 3)."""
    r = np.sort(rng.uniform(0, 2 * H, n))
    p = np.where(rng.random(n) < 0.6, rng.uniform(3600, 40_000, n), rng.uniform(1, 600, n))
    return BatchInstance.from_arrays(r, rng.integers(1, m + 1, n), p[:, None], np.array([m]))


@pytest.mark.parametrize("seed", range(6))
def test_queue_passes_never_worsen_and_keep_a_valid_schedule(seed):
    rng = np.random.default_rng(seed)
    inst = _random(rng)
    ev = _Evaluator(inst)
    values, cluster, start = run_key(inst, rng.permutation(len(inst)).astype(float), "serial")
    ws = WindowSearch(inst, M, cluster, start, np.zeros(1, dtype=np.int64))
    before = ws.value
    queue_pass(ws, lambda: False)
    check_batch_schedule(inst, ws.cluster, ws.start)
    assert ws.checked_value() <= before + 1e-12
    moved = (ws.start != start) | (ws.cluster != cluster)
    assert np.all(inst.duration[moved, 0] >= 3600)  # only long jobs move
    best = queue_search(ev, Best(values[M], "portfolio", "random", cluster, start, "serial"),
                        Limit(ev, ev.work + 1e9, np.inf))
    check_batch_schedule(inst, best.cluster, best.start)
    assert best.value == pytest.approx(schedule_metrics(inst, best.cluster, best.start)[M])
    assert best.value <= values[M]
