"""``batch-bounds`` experiment and the bound columns of ``grid-realloc``: generators, row checks and tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.experiments import _grid_cell
from benchmarks.experiments import batch_bounds as bb
from benchmarks.experiments import grid_realloc as gr
from lowerbounds.batch import SIMULATOR_METRIC


def test_small_window_is_integer_and_fits():
    rng = np.random.default_rng(0)
    inst = bb.small_window(12, 8, 1.0, rng)
    assert len(inst) == 12 and inst.release[0] == 0
    assert np.all(inst.release == np.round(inst.release)) and np.all(np.diff(inst.release) >= 0)
    assert np.all((inst.width >= 1) & (inst.width <= 8))
    assert np.all((inst.duration >= 1) & (inst.duration <= 20))


def test_cells_cover_every_trace_and_the_window_grid():
    cells = bb.cells(False)
    assert {c["trace"] for c in cells if c["kind"] == "trace"} == set(bb.TRACES)
    windows = [c for c in cells if c["kind"] == "window"]
    assert {(c["load"], c["procs"]) for c in windows} == {(lo, m) for lo in bb.LOADS for m in bb.PROCS}


def test_quality_table_hand_computed():
    df = pd.DataFrame({f"resp_{n}": [0.8, 0.9] for n in bb.RESPONSE_BOUNDS}
                      | {f"resp_{n}_seconds": [1.0, 3.0] for n in bb.RESPONSE_BOUNDS}
                      | {f"mk_{n}": [1.0, None] for n in bb.MAKESPAN_BOUNDS}
                      | {f"mk_{n}_seconds": [0.0, 0.0] for n in bb.MAKESPAN_BOUNDS})
    q = bb.quality_table(df)
    resp = q[q["metric"] == "mean response"].iloc[0]
    assert resp["windows"] == 2 and resp["mean_ratio"] == pytest.approx(0.85) and resp["worst_ratio"] == 0.8
    assert resp["mean_seconds"] == 2.0
    assert q[q["metric"] == "makespan"]["windows"].tolist() == [1, 1]
    # 95 % t interval of the mean of [0.8, 0.9]: t_{0.975,1} * 0.0707 / sqrt(2) = 12.706 * 0.05
    assert resp["n"] == 2 and resp["ci95"] == pytest.approx(12.7062047 * 0.05, rel=1e-6)
    assert q[q["metric"] == "makespan"]["ci95"].isna().all()  # one window: no interval


@pytest.mark.slow
def test_window_cell_bounds_never_exceed_the_optimum():
    row = bb.run_cell({"kind": "window", "procs": 4, "load": 0.7, "rep": 0, "time_limit": 30.0}, 3)[0]
    if row["status"] == "optimal":
        for name in bb.RESPONSE_BOUNDS:
            assert row[f"resp_{name}"] <= 1 + 1e-6
        for name in bb.MAKESPAN_BOUNDS:
            assert row[f"mk_{name}"] <= 1 + 1e-6


def test_grid_realloc_ratio_to_bound_table():
    df = pd.DataFrame({"algorithm": ["cancel", "cancel", "none"], "label": ["MinMin-C", "MinMin-C", "reference"],
                       "relative_response": [0.5, 0.7, None], "mean_response": [300.0, 500.0, 800.0]})
    for k, v in enumerate(_grid_cell._bound_fields({"mean_response": 300.0}, 100.0).items()):
        assert v == (["mean_response", "response_bound", "response_ratio_to_bound"][k], [300.0, 100.0, 3.0][k])
    df["response_ratio_to_bound"] = df["mean_response"] / 100.0
    t = gr.ratio_to_bound_table(df)
    row = t[t["label"] == "MinMin-C"].iloc[0]
    assert row["relative_response"] == pytest.approx(0.6) and row["ratio_to_bound"] == pytest.approx(4.0)
    assert row["worst_ratio_to_bound"] == pytest.approx(5.0)


def test_trace_report_gives_the_interval_table_and_a_band_figure(tmp_path):
    rows = []
    for policy, scale in (("fcfs", 3.0), ("easy", 1.5)):
        for k, metric in enumerate(SIMULATOR_METRIC):
            bound, upper = 10.0 * (k + 1), 12.0 * (k + 1)
            value = scale * upper
            rows.append({"kind": "trace", "trace": "t.swf", "jobs": 5, "procs": 4, "policy": policy, "metric": metric,
                         "value": value, "bound": bound, "ratio": value / bound, "method": "quick",
                         "bound_seconds": 0.1, "sim_seconds": 0.1, "upper": upper, "upper_method": "portfolio",
                         "status": "bracketed", "opt_ratio_low": value / upper, "opt_ratio_high": value / bound})
    text = bb.report(pd.DataFrame(rows), tmp_path)
    assert "Width of the optimum's interval" in text and "1.2" in text
    assert list(tmp_path.glob("fig_interval_t*")) and list(tmp_path.glob("intervals*"))
