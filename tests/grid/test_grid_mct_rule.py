"""The MCT arrival rule (and Algorithm 1's destination, :func:`heuristics.grid.first_min`) read one cluster at a
time equals ``numpy.argmin`` of the job's ECT row (ties to the first
cluster, infinite ECTs where a job does not fit, a NaN first as numpy has it)."""

from __future__ import annotations

import types

import numpy as np

from heuristics.grid import first_min, mct_cluster


def test_mct_cluster_is_the_argmin_of_the_ect_row():
    rng = np.random.default_rng(5)
    values = [0.0, 1.0, 1.0, 2.5, 1e9, np.inf, np.nan]
    for _ in range(2000):
        row = rng.choice(values, size=int(rng.integers(1, 6)), p=[0.15, 0.25, 0.2, 0.15, 0.1, 0.1, 0.05]).tolist()
        grid = types.SimpleNamespace(clusters=row, ect=lambda job, k, row=row: row[k])
        assert mct_cluster(grid, 0) == first_min(row) == int(np.argmin(np.array(row)))
