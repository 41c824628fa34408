"""The ``vc-scale`` experiment: cells, one method per process, growth exponent, report."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from benchmarks.experiments import _vc_scale_child, vc_scale
from benchmarks.harness import get_experiment


def test_cells_cover_the_sizes_slacks_and_methods():
    full = vc_scale.cells(False)
    assert {(c["hosts"], c["jobs"]) for c in full} == set(vc_scale.SIZES)
    assert {c["slack"] for c in full} == {0.3, 0.1} and {c["method"] for c in full} == set(vc_scale.METHODS)
    assert len(full) == len(vc_scale.SIZES) * 2 * len(vc_scale.SEEDS) * 3
    assert max(c["jobs"] for c in vc_scale.cells(True)) <= 10_000
    assert get_experiment("vc-scale").name == "vc-scale"


def test_growth_exponent_recovers_a_power_law():
    rows = [{"method": "m", "slack": 0.3, "jobs": j, "cpu_s": 1e-3 * j ** 1.5 * f}
            for j in (500, 2000, 10000) for f in (0.9, 1.0, 1.1)]
    got = vc_scale.growth_exponents(pd.DataFrame(rows))
    assert got.loc[0, "exponent"] == pytest.approx(1.5, abs=1e-9)  # medians are exactly on the power law
    assert got.loc[0, "exponent_largest_two"] == pytest.approx(1.5, abs=1e-9)
    rows = [{"method": "m", "slack": 0.3, "jobs": j, "cpu_s": j * np.log(j)} for j in (40_000, 100_000)]
    assert vc_scale.growth_exponents(pd.DataFrame(rows)).loc[0, "exponent_largest_two"] == pytest.approx(1.09, abs=0.01)


def test_run_cell_and_report_on_tiny_instances(tmp_path):
    rows = []
    for hosts, jobs in ((4, 20), (8, 40)):
        for method in vc_scale.METHODS:
            params = {"hosts": hosts, "jobs": jobs, "slack": 0.5, "cv_mem": 0.5, "cv_cpu": 0.5, "instance_seed": 1,
                      "method": method, "time_limit": 5.0, "stop_gap": 1e-3, "warmup_jobs": 10}
            if (hosts, method) == (4, "certify"):  # one cell through its own process, the rest in this one
                (row,) = vc_scale.run_cell(params, seed=0)
            else:
                row = _vc_scale_child.measure(params)
            assert row["status"] != "error", row
            assert row["peak_rss_mb"] >= row["instance_rss_mb"] > 10  # an interpreter with numpy
            assert row["cpu_s"] >= 0 and row["warmup_cpu_s"] > 0 and row["tasks"] == jobs
            rows.append({**params, **row})
    df = pd.DataFrame(rows)
    cert = df[df["method"] == "certify"]
    closed = df[df["method"] == "closed-form"].set_index("jobs")["min_yield"]
    for _, r in cert.iterrows():
        if r["status"] in ("optimal", "feasible"):
            assert r["bound"] >= r["min_yield"] - 1e-12
            assert r["bound"] <= closed.loc[r["jobs"]] + 1e-12 or math.isnan(closed.loc[r["jobs"]])
    text = vc_scale.report(df, tmp_path)
    assert "exponent" in text
    assert (tmp_path / "cpu_vs_jobs.png").exists()
    growth = pd.read_csv(tmp_path / "growth_exponents.csv")
    assert set(growth["method"]) == set(vc_scale.METHODS) and np.isfinite(growth["exponent"]).all()
