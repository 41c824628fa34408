"""The ``timeshare`` experiment module: grid, rows and report on a tiny run."""

import pandas as pd
import pytest

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


def _summary_row(heuristic, sumflow, **config):
    row = {"kind": "summary", "scenario": "b", "platform": "2", "interarrival": "poisson", "load_sensor": "count",
           "mu": 15.0, "heuristic": heuristic, "workload_seed": 1, "completed": 500, "makespan": 7650.0,
           "sumflow": sumflow, "maxflow": 1.0, "maxstretch": 1.0, "sooner_than_mct": 0.0, "later_than_mct": 0.0}
    row.update(config)
    return row


def test_deviation_table_picks_the_variant_closest_to_the_paper():
    from benchmarks.experiments.timeshare import deviation_table

    rows = [_summary_row("mct", 100.0), _summary_row("hmct", 120.0),                    # default: +20 %
            _summary_row("mct", 100.0, load_sensor="loadavg"), _summary_row("hmct", 110.0, load_sensor="loadavg"),
            _summary_row("mct", 100.0, mu=16.5), _summary_row("hmct", 75.0, mu=16.5)]   # -25 %: closest to -30.9
    dev = deviation_table(pd.DataFrame(rows)).set_index("quantity")
    first = dev.loc["(b) mu=15 HMCT vs MCT sumflow (%)"]
    assert first["ours (defaults)"] == pytest.approx(20.0) and first["closest variant"] == "mu 16.5"
    assert first["ours (closest variant)"] == pytest.approx(-25.0) and "loadavg sensor 10.0" in first["variants tried"]
    assert dev.loc["(b) mu=15 MCT makespan - last arrival (s)", "ours (defaults)"] == 150.0   # no column: 500 mu


def test_memory_variant_cells_are_kept_out_of_the_paper_tables(tmp_path):
    base = {"part": "scenario", "scenario": "a", "platform": "dgemm", "mu": 15.0, "workload_seed": 1,
            "interarrival": "poisson", "load_sensor": "count", "concurrent": 0}
    ram = run_cell(base, seed=0)
    half = run_cell({**base, "memory": "ram+swap/2"}, seed=0)
    lost = lambda rows: {r["heuristic"]: r["lost"] for r in rows if r["kind"] == "summary"}  # noqa: E731
    assert lost(ram)["msf"] > 0 and lost(half)["msf"] == 0      # more room: MSF loses nothing
    assert all(lost(half)[h] <= lost(ram)[h] for h in ("mct", "hmct", "mp", "msf"))
    df = pd.DataFrame([{**base, **r} for r in ram] + [{**base, "memory": "ram+swap/2", **r} for r in half])
    df["cell_status"] = "ok"
    t = tables_16_18(df[df["memory"].isna()])
    text = EXPERIMENT.report(df, tmp_path)
    assert "deviation table" in text and "RAM + half swap" in text
    completed = t[(t["heuristic"] == "msf") & (t["metric"] == "completed")].iloc[0]["avg"]
    assert completed == 500 - lost(ram)["msf"]


def test_implied_speed_table_paper_and_ours():
    from benchmarks.experiments.timeshare import implied_speed_table

    base = {"part": "scenario", "scenario": "b", "platform": "2", "mu": 15.0, "workload_seed": 1,
            "interarrival": "poisson", "load_sensor": "count", "concurrent": 0}
    df = pd.DataFrame([{**base, **r} for r in run_cell(base, seed=0)])
    t = implied_speed_table(df).set_index(["mu", "heuristic", "server"])
    # Table 14 MEAN, MCT on spinnaker: 500 x (18.2 % x 16 + 17.3 % x 30.6 + 18.3 % x 45.6) = 8275.3 s of
    # Table 5 work; Table 18 makespan 7650 - 15 = 7635 s -> 1.084
    line = t.loc[(15.0, "mct", "spinnaker")]
    assert line["paper tabulated work (s)"] == pytest.approx(8275.3)
    assert line["paper implied speed"] == pytest.approx(8275.3 / 7635.0)
    ours = t.xs(15.0, level="mu")["ours"]
    assert ours.notna().all() and (ours <= 1.0 + 1e-9).all()     # a work-conserving server at Table 5 speed
    assert (t.xs(20.0, level="mu")["paper implied speed"] < 1.0).all()


def test_parse_scale_and_variant_cells_stay_out_of_the_paper_tables():
    from benchmarks.experiments.timeshare import _is_variant, parse_scale

    assert parse_scale("spinnaker=0.916, artimon=0.989") == {"spinnaker": 0.916, "artimon": 0.989}
    assert parse_scale("") == {}
    with pytest.raises(ValueError, match="SERVER=FACTOR"):
        parse_scale("spinnaker")
    base = {"part": "scenario", "scenario": "j", "platform": "2", "mu": 25.0, "workload_seed": 1,
            "interarrival": "poisson", "load_sensor": "count", "concurrent": 0}
    fast = {**base, "compute_scale": "spinnaker=0.5,artimon=0.5", "mct_completion": "report"}
    runs = {**base, "noise": 0.04, "runs": 2}
    sumflow = lambda rows, h: next(r["sumflow"] for r in rows  # noqa: E731
                                   if r["kind"] == "summary" and r["heuristic"] == h)
    plain_rows, fast_rows = run_cell(base, seed=0), run_cell(fast, seed=0)
    assert sumflow(fast_rows, "hmct") < sumflow(plain_rows, "hmct")   # twice as fast servers: shorter flows
    df = pd.DataFrame([{**c, **r} for c in (base, fast, runs) for r in run_cell(c, seed=0)])
    mask = _is_variant(df)
    assert not mask[df["compute_scale"].isna() & df["runs"].isna()].any()
    assert mask[df["compute_scale"].notna() | df["runs"].notna()].all()


def test_bound_and_small_cells_and_report(tmp_path, monkeypatch):
    from benchmarks.experiments import _timeshare_bounds
    from benchmarks.experiments._timeshare_bounds import bound_cells, small_cells

    monkeypatch.setattr(_timeshare_bounds, "REFERENCE_SECONDS", 3.0)  # 40 tasks: a short search suffices

    assert {c["part"] for c in cells(True)} >= {"bound", "small"}
    assert all(c["mu"] in (20.0, 17.0, 15.0) for c in bound_cells(True))
    small = {**small_cells(True)[0], "tasks": 6}
    bound = {**bound_cells(True)[0], "tasks": 40}  # the first 40 tasks of (b): quicker
    small_rows = run_cell(small, seed=0)
    exact = [r for r in small_rows if r["kind"] == "small_exact"]
    assert {r["metric"] for r in exact} == {"sumflow", "makespan", "maxflow", "maxstretch"}
    for r in exact:  # the LP bound never exceeds the best mapping, which no heuristic beats
        assert r["status"] == "optimal" and r["lp_bound"] <= r["best"] * (1 + 1e-7)
    for r in (r for r in small_rows if r["kind"] == "small_heuristic"):
        assert all(r[f"{m}_to_best"] >= 1 - 1e-9 for m in ("sumflow", "makespan", "maxflow", "maxstretch"))
    bound_rows = run_cell(bound, seed=0)
    assert {r["heuristic"] for r in bound_rows} == {"mct", "hmct", "mp", "msf"}
    assert all(r["sumflow_ratio_to_bound"] >= 1 - 1e-9 for r in bound_rows)
    for r in bound_rows:  # the search starts from the heuristics' mappings: no heuristic beats the upper end
        for m in ("sumflow", "makespan", "maxflow", "maxstretch"):
            assert 1 - 1e-9 <= r[f"{m}_opt_ratio_low"] <= r[f"{m}_opt_ratio_high"] + 1e-12
            assert r[f"{m}_opt_ratio_high"] == pytest.approx(r[m] / r[f"{m}_bound"])
    df = pd.DataFrame([{**small, **r} for r in small_rows] + [{**bound, **r} for r in bound_rows])
    df["cell_status"] = "ok"
    text = EXPERIMENT.report(df, tmp_path)
    assert "bound / best mapping" in text
    assert (tmp_path / "bound_gaps.md").exists() and (tmp_path / "small_exact.md").exists()
    assert (tmp_path / "opt_intervals.md").exists() and "value / optimum in [low, high]" in text
