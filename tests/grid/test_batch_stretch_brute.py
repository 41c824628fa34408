"""No schedule has a max stretch below the one-cluster stretch bounds (branching on a long job's start,
:mod:`lowerbounds.batch.branching`; energetic reasoning, :mod:`lowerbounds.batch.energetic`; the jobs that cannot
run beside a wide job, :mod:`lowerbounds.batch.blackout`; the wide jobs kept off their gates on one machine,
:mod:`lowerbounds.batch.stretchchain`): each bound, raised from
1 and from the quick bound, against an exhaustive search over every active schedule of random tiny instances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch.blackout import stretch_blackout
from lowerbounds.batch.branching import stretch_branching
from lowerbounds.batch.energetic import stretch_energetic
from lowerbounds.batch.quick import stretch_quick
from lowerbounds.batch.stretchchain import stretch_chain
from tests.grid.batch_oracle import brute_force, tiny_stretch_instance

EVERY_JOB = ((4, np.inf, 0.0), (16, np.inf, 0.0))
"""Branching passes with every job a candidate (pieces, horizon, least width)."""

BOUNDS = {
    "branching": lambda inst, low: stretch_branching(inst, low, passes=EVERY_JOB, rel_tol=1e-4)[0],
    "energetic": lambda inst, low: stretch_energetic(inst, low, rel_tol=1e-4),
    "blackout": lambda inst, low: stretch_blackout(inst, low, min_share=0.0),
    "chain": lambda inst, low: stretch_chain(inst, low, rel_tol=1e-4),
}


def check_against_brute_force(bound: str, seed: int, n: int, integer: bool, load: float) -> None:
    inst = tiny_stretch_instance(seed, n, integer, load)
    best = brute_force(inst)["max_stretch"]
    for low in (1.0, stretch_quick(inst)):
        assert BOUNDS[bound](inst, low) <= best * (1 + 1e-9), (bound, low)


@pytest.mark.parametrize("bound", list(BOUNDS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 5), integer=st.booleans(), load=st.sampled_from([0.3, 1.0, 3.0]))
def test_no_schedule_has_a_max_stretch_below_the_bound(bound, seed, n, integer, load):
    check_against_brute_force(bound, seed, n, integer, load)


@pytest.mark.slow
@pytest.mark.parametrize("bound", list(BOUNDS))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6), integer=st.booleans(),
       load=st.sampled_from([0.3, 1.0, 2.0, 3.0]))
def test_no_schedule_has_a_max_stretch_below_the_bound_campaign(bound, seed, n, integer, load):
    check_against_brute_force(bound, seed, n, integer, load)
