"""Seeded generators of seed 002 §4.1."""

import numpy as np
import pytest

from vcsched.generators.moldable import KINDS, downey_speedup, generate_moldable_instance
from vcsched.problems.moldable import is_monotonic


@pytest.mark.parametrize("kind", KINDS)
def test_moldable_generator_seeded_monotonic_and_weights(kind):
    a = generate_moldable_instance(50, 30, kind, rng=7)
    b = generate_moldable_instance(50, 30, kind, rng=7)
    c = generate_moldable_instance(50, 30, kind, rng=8)
    assert np.array_equal(a.times, b.times) and np.array_equal(a.weights, b.weights)
    assert not np.array_equal(a.times, c.times)
    assert a.times.shape == (30, 50) and np.all(a.times > 0)
    assert is_monotonic(a)
    assert set(np.unique(a.weights)) <= set(range(1, 11))


def test_moldable_generator_per_step_is_monotonic_too():
    assert is_monotonic(generate_moldable_instance(64, 20, "high", rng=1, x_per_step=True))


def test_moldable_generator_sequential_distributions():
    inst = generate_moldable_instance(2, 4000, "high", rng=3)
    p1 = inst.times[:, 0]
    assert p1.min() >= 1 and p1.max() <= 10 and abs(p1.mean() - 5.5) < 0.2
    assert abs(inst.weights.mean() - 5.5) < 0.2
    mixed = generate_moldable_instance(2, 4000, "mixed", rng=3).times[:, 0]
    assert np.all(mixed > 0)
    assert 0.6 < np.mean(mixed < 3) < 0.8  # about 70 % small tasks around 1


def test_moldable_generator_high_is_more_parallel_than_weak():
    """Decision on the direction of X (module docstring): 'high' has the larger speedup."""
    m = 200
    high = generate_moldable_instance(m, 200, "high", rng=0)
    weak = generate_moldable_instance(m, 200, "weak", rng=0)
    sp_high = np.median(high.times[:, 0] / high.times[:, -1])
    sp_weak = np.median(weak.times[:, 0] / weak.times[:, -1])
    assert sp_high > 20 and sp_weak < 3


def test_moldable_generator_mixed_small_weak_large_high():
    inst = generate_moldable_instance(200, 1000, "mixed", rng=2)
    speed = inst.times[:, 0] / inst.times[:, -1]
    small = inst.times[:, 0] < 1.0
    large = inst.times[:, 0] > 12.0
    assert np.median(speed[large]) > 10 * np.median(speed[small])


def test_moldable_downey_speedup_shape():
    k = np.arange(1, 101)
    for A, sigma in [(10, 0.0), (10, 0.5), (10, 2.0), (1, 1.0)]:
        s = downey_speedup(A, sigma, k)
        assert np.all(np.diff(s) >= -1e-12) and np.all(s <= k + 1e-12) and s[-1] == pytest.approx(A)
    assert np.allclose(downey_speedup(10, 0.0, np.arange(1, 11)), np.arange(1, 11))  # linear up to A


def test_moldable_generator_rejects_bad_kind():
    with pytest.raises(ValueError, match="kind"):
        generate_moldable_instance(4, 4, "linear", rng=0)


@pytest.mark.parametrize(("m", "n", "message"), [(10, 100_001, "n must be an integer >= 1 and <= 100000"),
                                                 (100_001, 5, "m must be an integer >= 1 and <= 100000"),
                                                 (2_000, 10_001, "more than the limit of 20,000,000")])
def test_the_generator_refuses_what_moldable_generate_refuses(m, n, message):
    """The size limits of ``moldable generate`` are the generator's own (vcsched.problems.moldable_limits)."""
    from vcsched.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match=message):
        generate_moldable_instance(m, n, rng=0)
