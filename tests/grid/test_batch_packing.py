"""The makespan's packings (lowerbounds.batch.packing): valid, never below the brute-force optimum, and the
makespan bracket's upper end when better than the portfolio's."""

from __future__ import annotations

import numpy as np
import pytest

from lowerbounds.batch.instance import BatchInstance, schedule_metrics
from lowerbounds.batch.packing import PACKING_KEYS, greedy_pack, makespan_packings
from lowerbounds.batch.quick import makespan_quick
from tests.grid.batch_oracle import brute_force, plain_check


def _random(seed: int, n: int, K: int) -> BatchInstance:
    rng = np.random.default_rng(seed)
    procs = rng.integers(2, 6, K)
    width = rng.integers(1, procs.max() + 1, n)
    base = rng.integers(1, 7, n).astype(float)
    speed = rng.choice([1.0, 1.5, 2.0], K)
    return BatchInstance.from_arrays(rng.integers(0, 5, n).astype(float), width, base[:, None] / speed[None, :],
                                     procs, speed)


@pytest.mark.parametrize("seed", range(12))
def test_every_packing_is_a_schedule_and_never_beats_the_brute_force_optimum(seed):
    inst = _random(seed, n=5, K=1 + seed % 2)
    optimum = brute_force(inst)["makespan"]
    low = makespan_quick(inst)
    for key in (-inst.width * 100.0 - inst.pmin, -inst.pmin, inst.release):
        cluster, start = greedy_pack(inst, key)
        plain_check(inst, cluster, start)
        value = schedule_metrics(inst, cluster, start)["makespan"]
        assert value >= optimum * (1 - 1e-9) and optimum >= low * (1 - 1e-9)


def test_no_processor_idles_while_a_queued_job_fits():
    """The defining rule: at every start or submission, no waiting job fits in the processors left free."""
    inst = _random(3, n=30, K=2)
    cluster, start = greedy_pack(inst, -inst.pmin)
    finish = start + inst.duration[np.arange(len(inst)), cluster]
    for t in np.unique(np.concatenate([start, inst.release])):
        waiting = (inst.release <= t) & (start > t)
        for k in range(inst.clusters):
            used = inst.width[(cluster == k) & (start <= t) & (finish > t)].sum()
            fits = waiting & np.isfinite(inst.duration[:, k]) & (inst.width <= inst.procs[k] - used)
            assert not fits.any()


def test_the_packing_reaches_the_optimum_where_the_wide_job_must_go_first():
    """Two processors: a narrow long job, a wide short one and two narrow ones; the optimum (5, the area bound) runs
    the wide job alone once, the narrow ones side by side; widest first finds it."""
    inst = BatchInstance.from_arrays([0, 0, 0, 0], [1, 2, 1, 1], [[4.0], [1.0], [2.0], [2.0]], [2])
    value, key, cluster, start = makespan_packings(inst)
    assert value == pytest.approx(brute_force(inst)["makespan"]) == pytest.approx(5.0)
    assert any(name in key for name in PACKING_KEYS)


def test_the_bracket_takes_a_better_packing_only_while_the_makespan_is_open(monkeypatch):
    import dataclasses

    import lowerbounds.batch.bracket as bracket
    from lowerbounds.batch.bounds import instance_bounds
    from lowerbounds.batch.clairvoyant import ClairvoyantSchedule

    inst = _random(7, n=12, K=1)
    bounds = instance_bounds(inst, method="quick")
    rows = np.arange(len(inst))
    serial = np.zeros(len(inst))  # one job after the other, in submission order: valid, far from optimal
    t = 0.0
    for j in np.argsort(inst.release, kind="stable"):
        serial[j] = t = max(t, inst.release[j])
        t += inst.duration[j, 0]
    cluster = np.zeros(len(inst), dtype=np.int64)
    value = schedule_metrics(inst, cluster, serial)["makespan"]
    old = ClairvoyantSchedule("makespan", value, "portfolio", "serial", 0.0, 1, "done", cluster, serial)
    schedules = {"makespan": old}
    bracket._packing_upper(inst, bounds, schedules)
    new = schedules["makespan"]
    assert new.method == "packing" and new.value < value
    plain_check(inst, new.cluster, new.start)
    assert new.value == pytest.approx(schedule_metrics(inst, new.cluster, new.start)["makespan"])
    assert new.value >= bounds.bounds["makespan"].value - 1e-9
    monkeypatch.setattr(bracket, "makespan_packings", lambda inst: pytest.fail("the bracket was closed"))
    closed = {"makespan": dataclasses.replace(old, value=bounds.bounds["makespan"].value)}
    bracket._packing_upper(inst, bounds, closed)
    assert closed["makespan"].method == "portfolio" and rows.size == len(inst)
