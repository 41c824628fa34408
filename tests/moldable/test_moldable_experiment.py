"""The ``moldable`` experiment module (seed 002 §4, Figs 3-7) on a tiny grid."""

import pandas as pd
import pytest

from benchmarks.experiments import moldable as exp


def test_moldable_experiment_grid_matches_the_paper():
    full = [c for c in exp.cells(False) if c.get("series") != exp.SCALE_SERIES]
    assert {c["m"] for c in full} == {200}
    assert sorted({c["n"] for c in full}) == [25, 50, 100, 150, 200, 250, 300, 350, 400]
    assert {c["kind"] for c in full} == {"weak", "high", "mixed", "cirne"}
    runs = {}
    for c in full:
        runs[(c["kind"], c["n"])] = runs.get((c["kind"], c["n"]), 0) + c["runs"]
    assert set(runs.values()) == {40}
    assert len(exp.cells(True)) <= 8
    assert not any("series" in c for c in exp.cells(True))  # the quick grid stays the paper's, seconds


def test_moldable_experiment_full_grid_ends_with_the_size_series(tmp_path):
    from benchmarks.experiments import moldable_scale

    series = [c for c in exp.cells(False) if c.get("series") == exp.SCALE_SERIES]
    assert [{k: v for k, v in c.items() if k != "series"} for c in series] == moldable_scale.cells(False)
    assert max((c["n"], c["m"]) for c in series) == (10_000, 2_000)
    assert {c["method"] for c in series} == {"load", "load-npz", "bicriteria", "interval", "refined"}
    small = {"n": 20, "m": 8, "kind": "high", "instance_seed": 1, "time_limit": 30.0, "mem_cap_gb": 4.0,
             "series": exp.SCALE_SERIES}
    rows = []
    for method in ("load-npz", "refined"):  # each through its own process, as in the full run
        (row,) = exp.run_cell({**small, "method": method}, 0)
        assert row["status"] == "optimal" and row["peak_rss_mb"] > 0 and row["cpu_s"] >= 0
        rows.append({**small, "method": method, **row})
    paper = {"kind": "mixed", "n": 12, "m": 16, "chunk": 0, "runs": 1}
    rows += [{**paper, **r} for r in exp.run_cell(paper, 5)]
    text = exp.report(pd.DataFrame(rows), tmp_path)
    assert "Size series" in text and (tmp_path / "moldable_scale.csv").exists()
    assert (tmp_path / "moldable_ratios.csv").exists()
    ratios = pd.read_csv(tmp_path / "moldable_ratios.csv")
    assert set(ratios["method"]) == {"bicriteria", "gang", "sequential", "list-shelf", "list-lptf", "list-saf"}


def test_moldable_experiment_cell_rows_and_report(tmp_path):
    params = {"kind": "mixed", "n": 12, "m": 16, "chunk": 1, "runs": 2}
    rows = exp.run_cell(params, 123)
    def stable(rs):
        return [{k: v for k, v in r.items() if not k.endswith("seconds")} for r in rs]

    assert stable(rows) == stable(exp.run_cell(params, 123))  # seeded
    assert len(rows) == 2 * 6 and {r["run"] for r in rows} == {2, 3}
    for r in rows:
        assert r["minsum"] >= max(r["minsum_lb"], r["minsum_lb_fine"]) * (1 - 1e-9)
        assert r["makespan"] >= r["makespan_lb"] * (1 - 1e-9)
    df = pd.DataFrame([{**params, **r} for r in rows] + [{**params, "n": 24, **r} for r in rows])
    table = exp.ratio_table(df)
    b = table[(table["method"] == "bicriteria") & (table["n"] == 12)].iloc[0]
    sub = df[(df["method"] == "bicriteria") & (df["n"] == 12)]
    assert b["minsum_avg"] == pytest.approx(sub["minsum"].sum() / sub["minsum_lb"].sum())
    assert b["minsum_min"] <= b["minsum_avg"] <= b["minsum_max"]
    assert b["minsum_avg_fine"] == pytest.approx(sub["minsum"].sum() / sub["minsum_lb_fine"].sum())
    text = exp.report(df, tmp_path)
    assert "2.5" in text and "1.9" in text
    assert (tmp_path / "moldable_ratios.csv").exists() and (tmp_path / "fig5_mixed_minsum.png").exists()
    assert (tmp_path / "fig7_runtime.png").exists()
