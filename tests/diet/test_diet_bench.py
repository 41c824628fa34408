"""The ``diet`` benchmark module: cells, rows, report (small versions only)."""

import json

import pandas as pd

from benchmarks.experiments import diet as bench


def test_cells_are_unique_json_scalars():
    for quick in (True, False):
        cells = bench.cells(quick)
        assert len({json.dumps(c, sort_keys=True) for c in cells}) == len(cells)
        assert all(isinstance(v, (int, float, str)) for c in cells for v in c.values())
        assert {c["experiment"] for c in cells} == {"bursty", "add-seds", "mixed", "steady"}
    assert sorted(c["interarrival"] for c in bench.cells(False) if c["experiment"] == "bursty") == [0, .25, .5, .75, 1]


def frame(cells, seed=11):
    rows = []
    for k, params in enumerate(cells):
        for r in bench.run_cell(dict(params), seed + k):
            rows.append({**params, "cell": k, "cell_status": "ok", **r})
    return pd.DataFrame(rows)


def test_run_cell_and_report(tmp_path):
    cells = [{"experiment": "bursty", "interarrival": 0.0, "reps": 2},
             {"experiment": "add-seds", "rep": 0},
             {"experiment": "mixed", "rep": 0},
             {"experiment": "steady", "steady_approach": "sed-queue", "duration": 600.0, "rep": 0},
             {"experiment": "steady", "steady_approach": "standard", "duration": 600.0, "rep": 0}]
    df = frame(cells)
    bursty = df[df["experiment"] == "bursty"]
    assert len(bursty) == 2 * 6 and set(bursty["completed"]) == {8}
    ts = df[(df["experiment"] == "add-seds") & (df["approach"] == "task-scheduler")].iloc[0]
    assert ts["tasks_on_new_seds"] > 0 and ts["completed"] == 54
    assert frame(cells[:2]).equals(frame(cells[:2]))            # same seed, same rows
    text = bench.report(df, tmp_path)
    assert "Table 1" in text and "460.1" in text and "-2.8" in text
    assert len(df[df["experiment"] == "mixed"]) == 6
    for name in ("mixed.csv", "bursty.csv", "add_seds.md", "steady.csv", "bursty_makespan.png", "steady_decomposition.png"):
        assert (tmp_path / name).exists(), name
