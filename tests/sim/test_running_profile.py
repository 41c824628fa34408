"""``QueuedCluster._running_profile`` (plain Python) equals its numpy oracle on random running sets: equal ends
merged, jobs past their requested end counted until now, a first step at now or not."""

from __future__ import annotations

import types

import numpy as np

from tests.sim.running_profile_oracle import running_profile
from vcsched.sim.queued import QueuedCluster


def test_running_profile_equals_the_numpy_form():
    for seed in range(300):
        _check(np.random.default_rng(seed))


def _check(rng):
    procs, now = int(rng.integers(8, 200)), float(rng.choice([0.0, 100.0, 1e9 + 0.5]))
    n = int(rng.integers(0, 12))
    widths = rng.integers(1, 9, size=40).tolist()
    jobs = rng.choice(40, size=n, replace=False).tolist()
    ends = now + rng.choice([-50.0, -1.0, 0.0, 1.0, 7.5, 3600.0, 1e-7], size=n)  # ties, past ends, at now
    running = dict(zip(jobs, ends.tolist()))
    fake = types.SimpleNamespace(kernel=types.SimpleNamespace(now=now), running_jobs=running, P=widths, procs=procs)
    got, want = QueuedCluster._running_profile(fake), running_profile(procs, now, running, widths)
    assert got.t.tolist() == want.t.tolist() and got.f.tolist() == want.f.tolist()
    assert got.t.dtype == want.t.dtype and got.f.dtype == want.f.dtype
