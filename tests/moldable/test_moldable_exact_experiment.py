"""The ``moldable-exact`` experiment and the refined-bound columns of ``moldable`` on tiny grids."""

import pandas as pd
import pytest

from benchmarks.experiments import moldable as grid
from benchmarks.experiments import moldable_exact as exp
from vcsched.problems.moldable import MoldableInstance


def test_moldable_exact_experiment_grid_has_200_instances_of_the_four_kinds():
    full = exp.cells(False)
    assert sum(c["runs"] for c in full) >= 200
    assert {c["kind"] for c in full} == {"weak", "high", "mixed", "cirne"}
    assert max(c["m"] for c in full) <= 16 and max(c["n"] for c in full) <= 12


def test_moldable_exact_experiment_rows_respect_bounds_and_optimum(tmp_path):
    params = {"kind": "high", "m": 3, "n": 4, "runs": 3}
    rows = exp.run_cell(params, 5)
    assert len(rows) == 3
    for r in rows:
        assert r["status"] == "optimal" and r["formulation"] == "time-indexed"
        assert r["lb_interval"] <= r["opt"] * (1 + 1e-7) and r["lb_refined"] <= r["opt"] * (1 + 1e-7)
        for key, value in r.items():
            if key.startswith("minsum_"):
                assert value >= r["opt"] * (1 - 1e-9)
    df = pd.DataFrame([{**params, **r} for r in rows])
    table = exp.summary_table(df)
    a = table[table["kind"] == "all"].iloc[0]
    assert a["proven"] == 3 and a["bound_above_opt"] == 0
    broken = df.assign(lb_refined=df["opt"] * 1.01)
    assert exp.summary_table(broken).iloc[-1]["bound_above_opt"] == 3
    assert a["refined_mean"] == pytest.approx((df["lb_refined"] / df["opt"]).mean())
    r = (df["lb_refined"] / df["opt"]).to_numpy()
    from scipy import stats

    assert a["refined_ci95"] == pytest.approx(stats.t.ppf(0.975, 2) * stats.sem(r), abs=1e-12)
    assert a["bicriteria_worst"] == pytest.approx((df["minsum_bicriteria"] / df["opt"]).max())
    text = exp.report(df, tmp_path)
    assert "3 of 3 instances proven optimal" in text
    assert (tmp_path / "moldable_exact_summary.md").exists() and (tmp_path / "moldable_exact_sizes.csv").exists()


def test_moldable_exact_experiment_rounds_times_up_to_the_grain():
    inst = MoldableInstance.from_arrays(2, [[1.2, 0.7], [2.0, 0.26]])
    assert exp.on_grid(inst).times.tolist() == [[1.5, 1.0], [2.0, 0.5]]


def test_moldable_grid_reports_both_bounds_and_headlines(tmp_path):
    params = {"kind": "weak", "n": 10, "m": 16, "chunk": 0, "runs": 2}
    rows = grid.run_cell(params, 9)
    for r in rows:
        assert r["minsum"] >= r["minsum_lb_refined"] * (1 - 1e-9)
    df = pd.DataFrame([{**params, **r} for r in rows])
    table = grid.ratio_table(df)
    b = table[table["method"] == "bicriteria"].iloc[0]
    sub = df[df["method"] == "bicriteria"]
    assert b["minsum_avg_refined"] == pytest.approx(sub["minsum"].sum() / sub["minsum_lb_refined"].sum())
    assert b["runs"] == 2 and b["minsum_ci95"] >= 0 and b["makespan_ci95"] >= 0  # interval of the ratio of sums
    text = grid.report(df, tmp_path)
    assert "never above 2.5" in text and (tmp_path / "headlines.md").exists()
    heads = pd.read_csv(tmp_path / "headlines.csv")
    assert list(heads["quantity"])[:3] == ["minsum ratio, worst run", "minsum ratio, average", "makespan ratio, average"]
    side = pd.read_csv(tmp_path / "moldable_side_by_side.csv")
    assert list(side["method"])[0] == "bicriteria"
    row = side.iloc[0]
    assert row["minsum_avg_paper_lb"] == pytest.approx(b["minsum_avg"])
    assert row["minsum_avg_refined_lb"] == pytest.approx(b["minsum_avg_refined"])
    assert heads.iloc[1]["ours_refined_bound"] == pytest.approx(b["minsum_avg_refined"])


def test_moldable_grid_cells_are_chunk_major():
    cells = grid.cells(False)
    first = cells[: len(grid.KINDS) * len(grid.NS)]
    assert {c["chunk"] for c in first} == {0}
    assert {(c["kind"], c["n"]) for c in first} == {(k, n) for k in grid.KINDS for n in grid.NS}
