"""The ``timeshare`` experiment module: grid, rows and report on a tiny run."""

import pandas as pd

from benchmarks.experiments.timeshare import EXPERIMENT, cells, run_cell, tables_16_18


def test_cells_are_json_scalars_and_quick_is_small():
    for quick in (True, False):
        for c in cells(quick):
            assert all(isinstance(v, (str, int, float)) for v in c.values())
    assert len(cells(True)) < len(cells(False))
    assert EXPERIMENT.name == "timeshare"


def test_run_cell_and_report(tmp_path):
    params = {"part": "scenario", "scenario": "j", "platform": "2", "mu": 25.0, "workload_seed": 1,
              "interarrival": "poisson", "concurrent": 0}
    rows = run_cell(params, seed=123)
    kinds = {r["kind"] for r in rows}
    assert kinds == {"summary", "server", "client"}
    strip = lambda rs: [{k: v for k, v in r.items() if "seconds" not in k} for r in rs]  # noqa: E731
    assert strip(rows) == strip(run_cell(params, seed=456))  # the cell seed is not used
    cost = run_cell({"part": "htm_cost", "scenario": "-", "platform": "2", "mu": 0.0, "workload_seed": 0,
                     "interarrival": "-", "concurrent": 50}, seed=0)
    df = pd.DataFrame([{**params, **r} for r in rows] + [{**params, "part": "htm_cost", "concurrent": 50, **r}
                                                          for r in cost])
    df["cell_status"] = "ok"
    text = EXPERIMENT.report(df, tmp_path)
    assert "HTM cost per decision" in text and "best heuristic per scenario" in text
    assert (tmp_path / "scenarios.md").exists() and (tmp_path / "htm_cost.png").exists()


def test_tables_16_18_has_paper_column():
    rows = []
    for h, sf in (("mct", 100.0), ("msf", 80.0)):
        rows.append({"kind": "summary", "scenario": "b", "platform": "2", "interarrival": "poisson", "mu": 17.0,
                     "heuristic": h, "workload_seed": 1, "completed": 500, "makespan": 1.0, "sumflow": sf,
                     "maxflow": 1.0, "maxstretch": 1.0, "sooner_than_mct": 0.0, "later_than_mct": 0.0})
    t = tables_16_18(pd.DataFrame(rows))
    line = t[(t["heuristic"] == "msf") & (t["metric"] == "sumflow")].iloc[0]
    assert line["seed1"] == 80.0 and line["paper_avg"] == 25672
