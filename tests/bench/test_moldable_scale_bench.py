"""The ``moldable-scale`` experiment: cells, one step per process, growth exponent, report."""

from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.experiments import _moldable_scale_child, moldable_scale
from benchmarks.harness import get_experiment


def test_cells_cover_the_sizes_and_steps():
    full = moldable_scale.cells(False)
    assert {(c["n"], c["m"]) for c in full} == set(moldable_scale.SIZES)
    assert max(c["n"] for c in full) == 10_000 and {c["method"] for c in full} == set(moldable_scale.METHODS)
    assert len(moldable_scale.cells(True)) == 2 * len(moldable_scale.METHODS)
    assert get_experiment("moldable-scale").name == "moldable-scale"


def test_steps_report_bounds_below_the_schedule(tmp_path):
    rows = []
    for n, m in ((20, 8), (40, 16)):
        for method in moldable_scale.METHODS:
            params = {"n": n, "m": m, "kind": "high", "instance_seed": 1, "method": method, "time_limit": 30.0,
                      "mem_cap_gb": 0}
            if (n, method) == (20, "refined"):  # one step through its own process
                (row,) = moldable_scale.run_cell({**params, "mem_cap_gb": 4.0}, seed=0)
            else:
                row = _moldable_scale_child.measure(params)
            assert row["status"] == "optimal" or (method == "bicriteria" and row["status"] == "feasible"), row
            rows.append({**params, **row})
    df = pd.DataFrame(rows)
    for n in (20, 40):
        at = df[df["n"] == n].set_index("method")
        assert at.loc["interval", "value"] <= at.loc["bicriteria", "value"] + 1e-9
        assert at.loc["refined", "value"] <= at.loc["bicriteria", "value"] + 1e-9
        assert at.loc["load", "file_mb"] > 0 and at.loc["load-npz", "file_mb"] > 0
    text = moldable_scale.report(df, tmp_path)
    assert "exponent" in text and (tmp_path / "cpu_vs_tasks.png").exists()
    growth = pd.read_csv(tmp_path / "growth_exponents.csv")
    assert set(growth["method"]) == set(moldable_scale.METHODS)
    assert growth["exponent"].notna().all()


def test_growth_exponent_recovers_a_power_law():
    df = pd.DataFrame([{"method": "x", "n": n, "cpu_s": 2e-4 * n ** 1.9} for n in (400, 1000, 2000)])
    assert moldable_scale.growth(df).loc[0, "exponent"] == pytest.approx(1.9, abs=1e-9)
