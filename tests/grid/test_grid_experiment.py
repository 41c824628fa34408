"""The ``grid-realloc`` experiment: one small cell end to end, the report's tables, and (slow) performance."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from benchmarks.experiments import grid_realloc as gr


def test_grid_experiment_grid_is_the_papers_364_runs():
    quick = gr.cells(True)
    assert len(quick) == 28 and len({(c["scenario"], c["heterogeneous"], c["batch"]) for c in quick}) == 28
    assert {c["days"] for c in quick} == {gr.QUICK_DAYS}
    full = gr.cells(False)
    assert len(full) == 32 and {c["scenario"] for c in full} == set(gr.PAPER_COLUMNS) | {"pwa"}


def test_grid_experiment_cell_and_report(tmp_path):
    params = {"scenario": "feb", "heterogeneous": True, "batch": "cbf", "days": 1.0, "workload_seed": 0}
    rows = gr.run_cell(params, seed=123)
    assert [r["label"] for r in rows] == ["reference", "Mct", "MinMin", "MaxMin", "MaxGain", "MaxRelGain",
                                         "Sufferage", "Mct-C", "MinMin-C", "MaxMin-C", "MaxGain-C", "MaxRelGain-C",
                                         "Sufferage-C"]
    assert rows[0]["impacted_pct"] == 0 and rows[0]["reallocations"] == 0
    assert all(r["jobs"] == rows[0]["jobs"] > 0 for r in rows)
    assert rows == [dict(r, sim_seconds=s["sim_seconds"], realloc_seconds=s["realloc_seconds"])
                    for r, s in zip(gr.run_cell(params, seed=7), rows)]  # the harness seed does not matter
    df = pd.DataFrame([{**params, **r, "cell": 0, "cell_status": "ok"} for r in rows])
    text = gr.report(df, tmp_path)
    assert "2.3 / 13.5" in text and "Table 16" in text
    for n in range(2, 18):
        assert list(tmp_path.glob(f"table{n:02d}_*.md")), n
    t16 = pd.read_csv(next(tmp_path.glob("table17_*.csv")))
    assert list(t16.columns) == ["batch", "heuristic", "feb", "AVG", "paper_AVG"] and len(t16) == 6
    assert (tmp_path / "fig_relative_response.png").exists()


@pytest.mark.slow
def test_grid_six_month_platform2_cbf_minmin_c_under_two_minutes():
    """Issue 6 performance target: six months of platform 2, CBF, hourly MinMin-C, <= 120 s wall time."""
    from heuristics.grid.realloc import Reallocation
    from tests.conftest import require_trace
    from vcsched.scenarios.grid import build_scenario
    from vcsched.sim import simulate

    require_trace("CTC-SP2-1996-3.1-cln.swf.gz")
    require_trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    t0 = time.perf_counter()
    clusters, jobs = build_scenario("pwa-g5k", batch="cbf")
    pol = Reallocation("cancel", "minmin")
    res = simulate(clusters, jobs, meta=pol)
    assert not pd.isna(res.finish).any() and pol.reallocations > 0
    assert time.perf_counter() - t0 <= 120.0
