"""The improvement step's host order against the numpy answers over the load array."""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.vc.host_order import HostOrder


def _plain_order(load: np.ndarray, exclude: int) -> np.ndarray:
    """Hosts other than ``exclude`` by increasing ``(load, index)``."""
    hosts = np.delete(np.arange(load.size), exclude)
    return hosts[np.lexsort((hosts, load[hosts]))]


@pytest.mark.parametrize("seed", range(5))
def test_host_order_follows_the_loads_through_changes(seed):
    """Peak, positions, loads at a position and the hosts under a bound, with many ties (loads
    on a grid of 8 values), after every batch of changes announced as the improvement step does."""
    rng = np.random.default_rng(seed)
    load = rng.integers(0, 8, 40).astype(float)
    order = HostOrder(load)
    for _ in range(200):
        hosts = {int(g) for g in rng.choice(load.size, int(rng.integers(1, 4)), replace=False)}
        order.changing(hosts)
        for g in hosts:
            load[g] = float(rng.integers(0, 8))
        order.changed(hosts)
        assert order.peak() == int(np.argmax(load))
        exclude = int(rng.integers(load.size))
        plain = _plain_order(load, exclude)
        start, stop = sorted(int(x) for x in rng.integers(0, load.size + 3, 2))
        bound = float(rng.integers(-1, 9))
        expected = [g for g in plain[start:stop] if load[g] <= bound]
        assert order.between(start, stop, exclude, bound).tolist() == expected
        assert order.between(start, None, exclude).tolist() == plain[start:].tolist()
        assert order.load_at(start, exclude) == (load[plain[start]] if start < plain.size else np.inf)


def test_host_order_rebuild_after_a_new_array():
    load = np.array([3.0, 1.0, 2.0])
    order = HostOrder(load)
    new = np.array([0.5, 4.0, 4.0])
    order.rebuild(new)
    assert order.peak() == 1
    assert order.between(0, None, exclude=1).tolist() == [0, 2]
