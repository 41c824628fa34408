"""Report helpers (tables, figures) and the vc-milp experiment on a few cells."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from benchmarks.experiments import vc_milp
from benchmarks.figures import line_plot, series_style
from benchmarks.harness import cell_seeds, execute_cell, get_experiment
from benchmarks.tables import format_value, markdown_table, save_table, text_table


def test_format_value():
    assert format_value(None) == "-"
    assert format_value(float("nan")) == "-"
    assert format_value(0.123456) == "0.1235"
    assert format_value(3) == "3"
    assert format_value("6") == "6"
    assert format_value(2.5e-7) == "2.50e-07"
    assert format_value(math.inf) == "inf"


def test_markdown_and_csv_tables(tmp_path):
    df = pd.DataFrame({"method": ["milp", "gr"], "yield": [0.9, None], "n": [3, 4]})
    md = markdown_table(df)
    lines = md.splitlines()
    assert lines[0].split("|")[1].strip() == "method"
    assert lines[1].startswith("|---") and lines[1].endswith(":|")  # numbers right-aligned
    assert "| gr     |      - |" in md
    csv, mdp = save_table(df, tmp_path, "t", title="Title")
    assert pd.read_csv(csv).shape == (2, 3)
    assert mdp.read_text().startswith("### Title\n\n| method")
    assert text_table(df).splitlines()[2].startswith("milp")


def test_line_plot_writes_a_png_with_labels_and_reference(tmp_path):
    df = pd.DataFrame({"x": [1, 2, 1, 2], "y": [0.5, 0.7, 0.6, 0.8], "s": ["a", "a", "b", "b"]})
    path = line_plot(df, x="x", y="y", series="s", out_dir=tmp_path, stem="fig", xlabel="jobs", ylabel="time (s)",
                     references=[(0.75, "paper value")], logy=True)
    assert path == tmp_path / "fig.png"
    assert path.read_bytes()[:4] == b"\x89PNG" and path.stat().st_size > 5000


def test_known_methods_keep_their_colour_whatever_the_other_series():
    alone = series_style("mcb8", 0, 1)
    among_many = series_style("mcb8", 7, 14)
    assert alone == among_many
    assert series_style("sg", 0, 2) != alone
    # unknown names are styled by position
    assert series_style("foo", 0, 2) == series_style("bar", 0, 2) != series_style("bar", 1, 2)


def test_vc_milp_grid_covers_the_small_set():
    full = vc_milp.cells(False)
    milp = [c for c in full if c["kind"] == "milp"]
    assert len(milp) == 144 and sum(c["reps"] for c in milp) == 1440
    assert sum(c["literal_reps"] for c in milp) == 144
    assert [c["lp_formulation"] for c in full if c["kind"] == "lp"] == ["compact"] * 3 + ["literal"] * 3
    quick = vc_milp.cells(True)
    assert len([c for c in quick if c["kind"] == "milp"]) == 144
    assert get_experiment("vc-milp") is vc_milp.EXPERIMENT


def test_vc_milp_cells_and_report(tmp_path):
    grid = [c for c in vc_milp.cells(True) if c["kind"] == "milp" and c["jobs"] == 6][:6]
    grid = [dict(c, literal_reps=int(k == 0)) for k, c in enumerate(grid)]
    seeds = cell_seeds(len(grid), 0)
    frames = []
    for k, (params, seed) in enumerate(zip(grid, seeds)):
        out = execute_cell(vc_milp.run_cell, params, seed)
        assert out["error"] == ""
        frames.append(pd.DataFrame([{**params, **r, "cell": k, "cell_status": "ok"} for r in out["rows"]]))
    df = pd.concat(frames, ignore_index=True)
    comp = df[df["formulation"] == "compact"]
    lit = df[df["formulation"] == "literal"]
    assert len(comp) == 12 and len(lit) == 1
    assert comp["status"].isin(["optimal", "infeasible"]).all()
    same = comp[(comp["cell"] == 0) & (comp["instance_rep"] == 0)].iloc[0]
    assert lit.iloc[0]["status"] == same["status"]
    if same["status"] == "optimal":
        assert lit.iloc[0]["min_yield"] == pytest.approx(same["min_yield"], abs=1e-6)
    text = vc_milp.report(df, tmp_path)
    assert "target: all proven optimal or infeasible: 12/12 (met)" in text
    assert "28.7" in text
    for name in ("milp_by_jobs.csv", "milp_by_jobs.md", "milp_by_spec.csv", "milp_time_vs_jobs.png"):
        assert (tmp_path / name).exists()
    by_jobs = pd.read_csv(tmp_path / "milp_by_jobs.csv")
    assert by_jobs["jobs"].astype(str).tolist() == ["6", "all"]
    assert by_jobs.iloc[-1]["literal_instances"] == 1
    assert by_jobs.iloc[-1]["paper_glpk_mean_s"] == 28.7


def test_vc_milp_unknown_cell_kind_is_an_error_row():
    out = execute_cell(vc_milp.run_cell, {"kind": "nope"}, 0)
    assert out["rows"] == [] and "unknown cell kind 'nope'" in out["error"]
