"""The ``dfrs`` experiment: its full grid covers the workloads it promises; a cell runs every policy
against the bound; the report writes the table and the degradation figures and counts rows below the bound."""

from __future__ import annotations

import pandas as pd

from benchmarks.experiments import dfrs


def test_full_grid_covers_loads_hosts_seeds_traces_and_penalties():
    full = dfrs.cells(False)
    lub = pd.DataFrame([c for c in full if c["source"] == "lublin"])
    assert sorted(lub["load"].unique()) == [0.1, 0.3, 0.5, 0.7, 0.9]
    assert sorted(lub["hosts"].unique()) == [64, 128]
    reps = lub.groupby(["hosts", "load", "penalty"])["rep"].nunique()
    assert reps.min() >= 3 and set(lub["penalty"]) == {0.0, 300.0}
    traces = {(c["source"].split("-")[0], c["memory"]) for c in full if c["source"] != "lublin"}
    assert traces == {("HPC2N", "trace"), ("LANL", "trace"), ("KTH", "model"), ("SDSC", "model")}
    assert len({tuple(sorted(c.items())) for c in full}) == len(full)
    # the 64-host cells and the windows keep their indices when the 128-host cells are added (resume)
    assert [c["hosts"] for c in full[:50]] == [64] * 50 and full[50]["source"].startswith("HPC2N")
    assert all(c["hosts"] == 128 for c in full[58:])


def test_cell_runs_every_policy_never_below_the_bound():
    params = {"source": "lublin", "load": 0.7, "hosts": 4, "jobs": 12, "days": 0.0, "memory": "model",
              "penalty": 300.0, "rep": 2}
    rows = pd.DataFrame(dfrs.run_cell(params, seed=0))
    assert list(rows["policy"]) == list(dfrs.POLICIES)
    assert (rows["bound"] >= 1.0).all() and rows["bound"].nunique() == 1
    assert not rows["below_bound"].any() and (rows["ratio"] >= 1.0 - 1e-9).all()
    batch = rows[rows["policy"].isin(["easy", "fcfs"])]
    assert (batch["migrations_per_job"] == 0).all()


def test_report_writes_table_and_one_figure_per_hosts_and_penalty(tmp_path, monkeypatch):
    drawn = {}
    monkeypatch.setattr(dfrs, "line_plot", lambda part, **kw: drawn.setdefault(kw["stem"], (part, kw)))
    rows = [{"source": "lublin", "hosts": h, "load": load, "penalty": pen, "policy": pol, "rep": rep,
             "ratio": ratio, "max_stretch": 3.0 * ratio, "mean_stretch": 2.0, "utilization": 0.5,
             "migrations_per_job": 0.0, "below_bound": ratio < 1.0}
            for h in (64, 128) for load in (0.1, 0.5) for pen in (0.0, 300.0) for rep in (1, 2)
            for pol, ratio in (("easy", 100.0 + rep), ("mcb8-per", 2.0 + load))]
    rows.append({**rows[0], "source": "KTH-SP2-1996-2.1-cln.swf.gz", "hosts": 0, "load": 0.0, "ratio": 0.5,
                 "below_bound": True})
    text = dfrs.report(pd.DataFrame(rows), tmp_path)
    assert text.startswith("rows below the bound: 1 (must be 0)")
    table = pd.read_csv(tmp_path / "dfrs.csv")
    easy = table[(table["policy"] == "easy") & (table["hosts"] == 64) & (table["load"] == 0.1)]
    assert (easy["ratio"] == 101.5).all() and (easy["ratio_n"] == 2).all()
    assert sorted(drawn) == ["dfrs_ratio_vs_load", "dfrs_ratio_vs_load_128h_pen0", "dfrs_ratio_vs_load_128h_pen300",
                             "dfrs_ratio_vs_load_64h_pen0"]
    part, kw = drawn["dfrs_ratio_vs_load"]
    assert set(part["hosts"]) == {64} and set(part["penalty"]) == {300.0} and set(part["source"]) == {"lublin"}
    assert kw["logy"] and kw["x"] == "load" and kw["y"] == "ratio" and kw["series"] == "policy"
