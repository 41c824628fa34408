"""The max-stretch bound on several clusters from the jobs that fit on a part of the platform only
(:mod:`lowerbounds.batch.stretchfit`): its instances are those of the definition, no schedule beats it (brute force
over every active schedule of tiny instances on 2-3 clusters with speeds), and a forced case where it is the optimum
while the fluid bound of the whole platform is not."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch.bounds import _stretch_quick
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.quick import stretch_quick
from lowerbounds.batch.stretchfit import fit_instances, stretch_fit
from tests.grid.batch_oracle import brute_force


def tiny_grid(seed: int, n: int, integer: bool, load: float) -> BatchInstance:
    """``n`` random jobs on 2-3 clusters of 1-6 processors and speeds 1-1.4 (integer or real times)."""
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 4))
    m = rng.integers(1, 7, K)
    s = rng.choice([1.0, 1.2, 1.4], K)
    q = rng.integers(1, m.max() + 1, n)
    p = rng.integers(1, 7, n).astype(float) if integer else rng.uniform(0.2, 6, n)
    r = (rng.integers(0, 6, n).astype(float) if integer else rng.uniform(0, 6, n)) / load
    return BatchInstance.from_arrays(r, q, p[:, None] * s[0] / s[None, :], m, s)


def plain_fit_instances(inst: BatchInstance) -> dict:
    """The definition: for each set of clusters ``F`` that some job's fit set equals and that leaves out a cluster,
    the jobs that fit nowhere outside ``F``."""
    out = {}
    K = inst.clusters
    for j in range(len(inst)):
        F = tuple(k for k in range(K) if np.isfinite(inst.duration[j, k]))
        if len(F) < K:
            out[F] = [i for i in range(len(inst)) if all(k in F or not np.isfinite(inst.duration[i, k])
                                                         for k in range(K))]
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8))
def test_the_instances_are_those_of_the_definition(seed, n):
    inst = tiny_grid(seed, n, True, 1.0)
    got = fit_instances(inst)
    want = plain_fit_instances(inst)
    assert sorted(tuple(F) for F, _ in got) == sorted(want)
    for F, sub in got:
        rows = want[tuple(F)]
        np.testing.assert_array_equal(sub.release, inst.release[rows])
        np.testing.assert_array_equal(sub.duration, inst.duration[np.ix_(rows, F)])
        np.testing.assert_array_equal(sub.procs, inst.procs[F])
        assert np.isfinite(sub.duration).any(axis=1).all()  # every job fits somewhere in F


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 4), integer=st.booleans(), load=st.sampled_from([0.3, 1.0, 3.0]))
def test_no_schedule_has_a_max_stretch_below_the_bound(seed, n, integer, load):
    inst = tiny_grid(seed, n, integer, load)
    best = brute_force(inst)["max_stretch"]
    assert _stretch_quick(inst) <= best * (1 + 1e-9)
    assert (stretch_fit(inst, _stretch_quick) or 1.0) <= best * (1 + 1e-9)


def test_two_wide_jobs_of_the_large_cluster_cannot_overlap():
    """Clusters of 4 and 2 processors; two jobs of 3 fit on the first only: one of 10 s at 0, one of 1 s at 1.
    The best schedule delays the long job to 2 (max stretch 1.2); the fluid bound of the whole platform, which
    lets them share the six processors, proves less."""
    inst = BatchInstance.from_arrays([0.0, 1.0], [3, 3], [[10.0, 10.0], [1.0, 1.0]], [4, 2])
    assert brute_force(inst)["max_stretch"] == pytest.approx(1.2)
    assert stretch_quick(inst) < 1.15
    assert _stretch_quick(inst) == pytest.approx(1.2, rel=1e-6)


def test_one_cluster_has_no_part():
    inst = BatchInstance.from_arrays([0.0, 1.0], [3, 3], [[10.0], [1.0]], [4])
    assert fit_instances(inst) == [] and stretch_fit(inst, _stretch_quick) is None
