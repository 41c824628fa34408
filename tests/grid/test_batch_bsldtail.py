"""The tail of a bounded-slowdown schedule (lowerbounds.batch.bsldtail): the jobs that start after the last submission
re-sequenced by Smith's ratio, then by the window kernel's descent."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowerbounds.batch._searchstep import Best, Limit
from lowerbounds.batch.bsldtail import smith_tail, tail_descent, tail_key
from lowerbounds.batch.clairvoyant import _Evaluator, run_key
from lowerbounds.batch.instance import BSLD_TAU, BatchInstance, check_batch_schedule, schedule_metrics
from tests.grid.batch_oracle import brute_force

M = "mean_bounded_slowdown"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 100), st.integers(0, 300), st.integers(1, 8), st.floats(1, 5_000)), min_size=1,
                max_size=25))
def test_the_tail_comes_last_by_smiths_ratio_the_others_by_start(jobs):
    r = np.array([j[0] for j in jobs], float)
    start = r + np.array([j[1] for j in jobs], float)
    q = np.array([j[2] for j in jobs], np.int64)
    p = np.array([j[3] for j in jobs])
    order = list(np.argsort(tail_key(r, start, q, p), kind="stable"))
    tail = [j for j in range(len(jobs)) if start[j] >= r.max()]
    head = [j for j in range(len(jobs)) if start[j] < r.max()]
    assert sorted(order[:len(head)], key=lambda j: (start[j], j)) == order[:len(head)]
    assert sorted(order[len(head):]) == sorted(tail)
    ratio = [q[j] * p[j] * max(p[j], BSLD_TAU) for j in order[len(head):]]
    assert ratio == sorted(ratio)


def _batch(rng, n, m=4):
    """Every job submitted at 0 and as wide as the cluster: one at a time, the single-machine problem."""
    return BatchInstance.from_arrays(np.zeros(n), np.full(n, m), rng.uniform(10, 1000, n)[:, None], np.array([m]))


@pytest.mark.parametrize("seed", range(4))
def test_smiths_order_is_the_optimum_of_a_batch_on_one_machine(seed):
    inst = _batch(np.random.default_rng(seed), 6)
    ev = _Evaluator(inst)
    values, cluster, start = run_key(inst, -inst.duration[:, 0], "serial")  # longest first: the worst order
    best = smith_tail(ev, Best(values[M], "portfolio", "lpt", cluster, start, "serial"))
    check_batch_schedule(inst, best.cluster, best.start)
    assert best.value == pytest.approx(brute_force(inst)[M])
    assert best.value < values[M]


def _random(rng, n=14, m=6):
    r = np.sort(rng.integers(0, 400, n)).astype(float)
    return BatchInstance.from_arrays(r, rng.integers(1, m + 1, n), rng.uniform(1, 600, n)[:, None], np.array([m]))


@pytest.mark.parametrize("seed", range(8))
def test_the_tail_steps_keep_the_head_never_worsen_and_pass_the_checker(seed):
    rng = np.random.default_rng(seed)
    inst = _random(rng)
    ev = _Evaluator(inst)
    values, cluster, start = run_key(inst, rng.permutation(len(inst)).astype(float), "serial")  # a random list
    first = Best(values[M], "portfolio", "random", cluster, start, "serial")
    head = start < inst.release.max()
    for best in (smith_tail(ev, first), tail_descent(ev, first, Limit(ev, ev.work + 1e9, np.inf))):
        check_batch_schedule(inst, best.cluster, best.start)
        assert best.value == pytest.approx(schedule_metrics(inst, best.cluster, best.start)[M])
        assert best.value <= first.value
        if best is not first and best.detail.endswith("re-sequenced"):  # the descent moves the tail jobs only
            assert np.array_equal(best.start[head], start[head])
    assert tail_descent(ev, first, Limit(ev, ev.work, np.inf)) is first  # no work left: nothing tried
