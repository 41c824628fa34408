"""Forward-backward improvement for the makespan (lowerbounds.batch.makespanfbi): the backward pass right-justifies
(every job ends no earlier, by the same last completion, after its submission), the passes never lengthen a schedule,
every schedule kept is checked and never below the brute-force optimum."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowerbounds.batch._searchstep import Best, Limit
from lowerbounds.batch.clairvoyant import _Evaluator, clairvoyant_schedules, run_key
from lowerbounds.batch.instance import BatchInstance, schedule_metrics
from lowerbounds.batch.makespanfbi import START_KEYS, backward_key, fbi_search, forward_backward
from lowerbounds.batch.makespankeys import packing_keys
from tests.grid.batch_oracle import brute_force, plain_check
from tests.grid.test_batch_packing import _random  # small instances, one or two clusters with speeds


def _start(ev, seed: int) -> Best:
    """A schedule of the serial construction over a random list (a start for the passes)."""
    key = np.random.default_rng(seed).random(ev.release.size)
    values, cluster, start = ev.run(key, "serial")
    return Best(values["makespan"], "portfolio", "random list", cluster, start, "serial")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 12), K=st.integers(1, 2))
def test_the_backward_pass_right_justifies(seed, n, K):
    inst = _random(seed, n, K)
    ev = _Evaluator(inst)
    best = _start(ev, seed)
    rows = ev.order
    p = ev.duration[np.arange(n), best.cluster[rows]]
    finish = best.start[rows] + p
    right = backward_key(ev, best.cluster, best.start)
    # the order's schedule (on the same clusters): each job starts and ends no earlier than before, by the same last
    # completion
    clus_b = best.cluster[rows]
    end_b = right + p
    assert (right >= best.start[rows] - 1e-9).all() and end_b.max() <= finish.max() + 1e-9
    cluster = np.empty(n, dtype=np.int64)
    start = np.empty(n)
    cluster[rows], start[rows] = clus_b, right
    plain_check(inst, cluster, start)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), K=st.integers(1, 2))
def test_the_passes_never_lengthen_and_never_beat_the_optimum(seed, K):
    inst = _random(seed, 5, K)
    ev = _Evaluator(inst)
    best = _start(ev, seed)
    out = forward_backward(ev, best, Limit(ev, 1e18, np.inf))
    plain_check(inst, out.cluster, out.start)
    value = schedule_metrics(inst, out.cluster, out.start)["makespan"]
    assert value == pytest.approx(out.value) and value <= best.value + 1e-9
    assert value >= brute_force(inst)["makespan"] * (1 - 1e-9)


def test_a_pass_closes_a_gap_the_list_left():
    """Two processors; the list (narrow short job, full-width job, narrow long job) leaves the long job alone after the
    wide one (makespan 5). The backward pass moves the wide job to the front of the order, and the forward pass
    runs the two narrow jobs side by side after it: 4, the optimum."""
    inst = BatchInstance.from_arrays([0, 0, 0], [1, 1, 2], [[1.0], [3.0], [1.0]], [2])
    ev = _Evaluator(inst)
    values, cluster, start = ev.run(np.array([0.0, 2.0, 1.0]), "serial")
    best = Best(values["makespan"], "portfolio", "list", cluster, start, "serial")
    assert best.value == 5.0
    assert forward_backward(ev, best, Limit(ev, 1e18, np.inf)).value == 4.0
    rng = np.random.default_rng(0)
    out, stopped = fbi_search(ev, best, rng, Limit(ev, 1e18, np.inf), 20)
    assert out.value == pytest.approx(brute_force(inst)["makespan"]) == pytest.approx(4.0)
    assert stopped in ("patience", "done")


def test_the_search_is_reproducible_checked_and_no_worse_than_its_starts():
    inst = _random(7, 40, 2)
    runs = [clairvoyant_schedules(inst, metrics=("makespan",), budget=2e6, seed=3)["makespan"] for _ in range(2)]
    assert runs[0].value == runs[1].value and np.array_equal(runs[0].start, runs[1].start)
    keys = packing_keys(inst)
    assert all(runs[0].value <= run_key(inst, keys[name])[0]["makespan"] for name in START_KEYS)
    plain_check(inst, runs[0].cluster, runs[0].start)
    assert schedule_metrics(inst, runs[0].cluster, runs[0].start)["makespan"] == pytest.approx(runs[0].value)
