"""The vc-small / vc-large / vc-parallel experiment modules: grids, rows, reports (tiny runs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.experiments import _vc_common, vc_large, vc_parallel, vc_small
from benchmarks.harness import Experiment, discover


def test_vcheur_experiments_are_discovered():
    found, broken = discover()
    for name in ("vc-small", "vc-large", "vc-parallel"):
        assert isinstance(found[name], Experiment)
    assert not {"vc_small", "vc_large", "vc_parallel"} & set(broken)


@pytest.mark.parametrize("module, instances", [(vc_small, 1440), (vc_large, 10800), (vc_parallel, 10800)])
def test_vcheur_full_grids_cover_the_instance_sets(module, instances):
    cells = module.cells(False)
    assert sum(c["reps"] for c in cells) == instances
    keys = {(c["jobs"], c["slack"], c["cv_mem"], c["cv_cpu"], c["rep_start"]) for c in cells}
    assert len(keys) == len(cells)
    assert all(isinstance(v, (int, float, str)) for c in cells for v in c.values())
    assert 0 < len(module.cells(True)) <= 40


def _frame(rows_by_cell):
    frames = []
    for k, (params, rows) in enumerate(rows_by_cell):
        for r in rows:
            frames.append({**params, "cell": k, "cell_status": "ok", "cell_seconds": 1.0, **r})
    return pd.DataFrame(frames)


@pytest.fixture(scope="module")
def small_rows():
    cells = [c for c in vc_small.cells(True) if c["jobs"] == 6 and c["slack"] in (0.1, 0.5, 0.9)]
    return _frame([(c, vc_small.run_cell(c, 0)) for c in cells])


def test_vcheur_small_cell_rows_one_per_instance_and_method(small_rows):
    from heuristics.vc import REGISTRY

    per_inst = small_rows.groupby(["cell", "instance_rep"])["method"].apply(list)
    for methods in per_inst:
        assert methods == ["milp", "lp", *REGISTRY.names()]
    ok = small_rows[small_rows["success"] == 1]
    assert ok["min_yield"].between(0, 1).all()
    # heuristics never beat the MILP on the same instance
    wide = small_rows.set_index(["cell", "instance_rep", "method"])["min_yield"].unstack()
    for m in REGISTRY.names():
        assert (wide[m].dropna() <= wide.loc[wide[m].notna(), "milp"] + 1e-7).all()


def test_vcheur_small_cell_is_reproducible(small_rows):
    cell = [c for c in vc_small.cells(True) if c["jobs"] == 6 and c["slack"] == 0.5][0]
    again = pd.DataFrame(vc_small.run_cell(cell, 0))
    same = (small_rows["slack"] == 0.5) & (small_rows["cv_mem"] == cell["cv_mem"])
    first = small_rows[same].reset_index(drop=True)
    assert again["status"].tolist() == first["status"].tolist()
    assert np.allclose(again["min_yield"].to_numpy(float), first["min_yield"].to_numpy(float), equal_nan=True)


def mcb8_degradation_by_hand(rows: pd.DataFrame) -> tuple[float, float]:
    """Mean and max % degradation of MCB8 from the best MCB, instance by instance, in plain Python."""
    degs = []
    for _, inst in rows[rows["method"].str.startswith("mcb")].groupby(["cell", "instance_rep"]):
        yields = {m: y for m, y in zip(inst["method"], inst["min_yield"]) if y == y}
        if "mcb8" in yields and max(yields.values()) > 0:
            best = max(yields.values())
            degs.append(100 * (best - yields["mcb8"]) / best)
    return sum(degs) / len(degs), max(degs)


def headline(out_dir, name: str) -> float:
    table = pd.read_csv(out_dir / "headlines.csv").set_index("headline")
    return float(table.loc[name, "ours"])


def test_vcheur_small_report_writes_tables_and_figures(small_rows, tmp_path):
    text = vc_small.report(small_rows, tmp_path)
    assert "MCB8 avg % degradation" in text
    avg, worst = mcb8_degradation_by_hand(small_rows)
    assert headline(tmp_path, "MCB8 avg % degradation from best MCB") == pytest.approx(avg, rel=1e-9, abs=1e-12)
    assert headline(tmp_path, "MCB8 max % degradation") == pytest.approx(worst, rel=1e-9, abs=1e-12)
    assert headline(tmp_path, "instances") == small_rows.groupby(["cell", "instance_rep"]).ngroups
    for stem in ("table1_mcb_degradation", "headlines", "by_slack", "runtime_by_jobs"):
        assert (tmp_path / f"{stem}.csv").exists() and (tmp_path / f"{stem}.md").exists()
    for n in (2, 3, 4, 5, 11, 12, 13, 14):
        assert list(tmp_path.glob(f"fig{n:02d}_*.png")), n


def test_vcheur_degradation_definition():
    df = pd.DataFrame({
        "jobs": [6] * 6, "slack": [0.5] * 6, "cv_mem": [0.25] * 6, "cv_cpu": [0.25] * 6,
        "instance_rep": [0, 0, 0, 1, 1, 1], "method": ["mcb1", "mcb5", "mcb8"] * 2,
        "min_yield": [0.5, 0.8, 1.0, np.nan, 0.9, 0.6],
    })
    deg = _vc_common.degradation_table(df, ("mcb1", "mcb5", "mcb8")).set_index("algorithm")
    assert deg.loc["mcb1", "avg_deg_pct"] == pytest.approx(50.0) and deg.loc["mcb1", "solved"] == 1
    assert deg.loc["mcb5", "avg_deg_pct"] == pytest.approx(10.0)
    assert deg.loc["mcb8", "max_deg_pct"] == pytest.approx(100 * 0.3 / 0.9)


def test_vcheur_large_and_parallel_cells_run_and_report(tmp_path):
    lc = [c for c in vc_large.cells(True) if c["jobs"] == 100 and c["slack"] in (0.5, 0.9) and c["cv_mem"] == 0.25]
    large = _frame([(c, vc_large.run_cell(c, 1)) for c in lc])
    assert set(large["method"]) >= {"lp", "mcb8", "rrnd", "rrnz"}
    assert (large[large["method"] == "rrnd"]["lp_seconds"] > 0).all()
    vc_large.report(large, tmp_path / "large")
    assert (tmp_path / "large" / "fig7_mcb_degradation.md").exists()
    avg, worst = mcb8_degradation_by_hand(large)
    assert headline(tmp_path / "large", "MCB8 avg % degradation from best MCB") == pytest.approx(avg, abs=1e-12)
    assert headline(tmp_path / "large", "MCB8 max % degradation") == pytest.approx(worst, abs=1e-12)
    assert headline(tmp_path / "large", "instances") == len(lc)
    pc = [c for c in vc_parallel.cells(True) if c["slack"] == 0.9][:1]
    par = _frame([(c, vc_parallel.run_cell(c, 1)) for c in pc])
    assert sorted(set(par["method"])) == ["lp", "mcb8", "sg"]
    assert (par["tasks"] > par["jobs"]).all()
    assert "vc-parallel" in vc_parallel.report(par, tmp_path / "par")
    assert list((tmp_path / "par").glob("fig19_*.png"))
