"""Verification campaign, references in simulation: the batch/grid bounds and exact MILP (``lowerbounds.batch``)
against brute force over every schedule; the time-shared servers' bounds and best mapping
(``lowerbounds.timeshare``) and DIET's bounds and best placement (``lowerbounds.diet``) against brute force
over every mapping / placement, evaluated by the simulator's own model, and against every simulated approach.

The checks are the property tests of ``tests/grid/test_batch_bounds.py``, ``tests/timeshare/test_timeshare_bounds.py``
and ``tests/diet/test_diet_bounds.py`` (their oracles live there), run here on more instances: ``EXAMPLES`` in the
default suite (derandomized; ``BATCH_EXAMPLES`` for the batch check, whose MILP and window LPs cost about a second
each), ``SLOW_EXAMPLES`` behind ``-m slow``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.diet.test_diet_bounds import test_hypothesis_bounds_below_placement_and_every_approach as _diet
from tests.grid.test_batch_bounds import _check_against_brute_force as _batch
from tests.timeshare.test_timeshare_bounds import test_bounds_never_exceed_the_best_mapping as _timeshare

EXAMPLES = 50
BATCH_EXAMPLES = 5
SLOW_EXAMPLES = int(os.environ.get("VCSCHED_CAMPAIGN_EXAMPLES", 5_000))
"""Instances per check behind ``-m slow`` (``VCSCHED_CAMPAIGN_EXAMPLES`` overrides)."""
SLOW_BATCH_EXAMPLES = min(SLOW_EXAMPLES, 1_000)
BATCH = dict(seed=st.integers(0, 10**6), n=st.integers(1, 4), K=st.integers(1, 3), integer=st.booleans(),
             load=st.sampled_from([0.3, 0.5, 1.0, 2.0, 3.0]))

TIMESHARE = dict(arrivals=st.lists(st.floats(0, 60, allow_nan=False), min_size=1, max_size=5),
                 seed=st.integers(0, 2**32 - 1))
DIET = dict(gaps=st.lists(st.floats(0, 6), min_size=2, max_size=4),
            speeds=st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=1, max_size=2), cost=st.floats(2, 20),
            cv=st.sampled_from([0.0, 0.1]), seed=st.integers(0, 50))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(**TIMESHARE)
def test_timeshare_bounds_and_best_mapping(arrivals, seed):
    _timeshare.hypothesis.inner_test(arrivals=arrivals, seed=seed)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(**DIET)
def test_diet_bounds_and_best_placement(gaps, speeds, cost, cv, seed):
    _diet.hypothesis.inner_test(gaps=gaps, speeds=speeds, cost=cost, cv=cv, seed=seed)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(**TIMESHARE)
def test_timeshare_bounds_and_best_mapping_campaign(arrivals, seed):
    _timeshare.hypothesis.inner_test(arrivals=arrivals, seed=seed)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(**DIET)
def test_diet_bounds_and_best_placement_campaign(gaps, speeds, cost, cv, seed):
    _diet.hypothesis.inner_test(gaps=gaps, speeds=speeds, cost=cost, cv=cv, seed=seed)


@settings(max_examples=BATCH_EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(**BATCH)
def test_batch_bounds_and_exact_schedule(seed, n, K, integer, load):
    _batch(seed, n, K if n * n * K <= 40 else 1, integer, load)


@pytest.mark.slow
@settings(max_examples=SLOW_BATCH_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(**BATCH)
def test_batch_bounds_and_exact_schedule_campaign(seed, n, K, integer, load):
    _batch(seed, n, K if n * n * K <= 40 else 1, integer, load)
