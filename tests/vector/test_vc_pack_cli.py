"""``vcsched vc pack``: the JSON contract, one-line errors, instance sets with resume, the plot."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas
import pytest

from vcsched.cli import main
from vcsched.generators.vbp import generate_vbp
from vcsched.problems.vbp import read_vbp, vbp_text

FIELDS = ["lower", "upper", "status", "bins", "seconds", "lower_method", "upper_method"]


@pytest.fixture()
def vbp_set(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    for k, kind in enumerate(["uniform", "triplets", "anticorrelated"]):
        (folder / f"{kind}.vbp").write_text(vbp_text(generate_vbp(kind, 15, 3, k)))
    (folder / "broken.vbp").write_text("2\n10 10\n2\n1 1 1\n")
    return folder


def test_json_has_the_contract_fields_and_a_checked_packing(vbp_set, capsys):
    from vcsched.problems.vbp import bins_problem

    path = vbp_set / "triplets.vbp"
    assert main(["vc", "pack", str(path), "--json", "--time-limit", "20"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert list(row)[:7] == FIELDS
    assert row["status"] == "optimal" and row["lower"] == row["upper"] == 5 == len(row["bins"])
    assert bins_problem(read_vbp(path), row["bins"]) is None
    assert main(["vc", "pack", str(path), "--method", "ff-lex", "--json"]) == 0
    ff = json.loads(capsys.readouterr().out)
    assert ff["upper_method"] == "ff-lex" and ff["upper"] >= 5 and ff["lower"] <= 5


def test_bad_input_is_one_line_and_exit_2(vbp_set, tmp_path):
    bad = subprocess.run([sys.executable, "-m", "vcsched.cli", "vc", "pack", str(vbp_set / "broken.vbp")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "broken.vbp: line 4" in bad.stderr and "too few numbers" in bad.stderr
    assert main(["vc", "pack", str(vbp_set / "uniform.vbp"), "--method", "nope"]) == 2


def test_an_item_too_large_is_status_infeasible(tmp_path, capsys):
    path = tmp_path / "big.vbp"
    path.write_text("2\n10 10\n2\n5 5 2\n3 12 1\n")
    assert main(["vc", "pack", str(path), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["status"] == "infeasible" and "item 2 (type 2)" in row["message"]


def test_a_folder_gives_one_row_per_file_and_resumes(vbp_set, tmp_path, capsys):
    out = tmp_path / "r.csv"
    args = ["vc", "pack", str(vbp_set), "--method", "heuristics", "-o", str(out), "--workers", "1"]
    assert main(args) == 0
    table = pandas.read_csv(out)
    assert len(table) == 4 and set(FIELDS) <= set(table.columns)
    assert table.set_index(table["file"].str.rsplit("/", n=1).str[-1]).loc["broken.vbp", "status"] == "error"
    capsys.readouterr()
    for _, row in table[table["status"] != "error"].iterrows():  # same as the one-file command
        assert main(["vc", "pack", row["file"], "--method", "heuristics", "--json"]) == 0
        single = json.loads(capsys.readouterr().out)
        assert (single["lower"], single["upper"], json.dumps(single["bins"])) == (row["lower"], row["upper"],
                                                                                   row["bins"])
    parts = sorted((tmp_path / "r.run" / "parts").glob("*.parquet"))
    kept = {p: p.stat().st_mtime_ns for p in parts[1:]}
    parts[0].unlink()
    assert main(args + ["--resume"]) == 0
    assert all(p.stat().st_mtime_ns == t for p, t in kept.items())
    assert pandas.read_csv(out).drop(columns="seconds").equals(table.drop(columns="seconds"))


def test_plot_draws_one_panel_per_dimension(vbp_set, tmp_path):
    png = tmp_path / "p.png"
    assert main(["vc", "pack", str(vbp_set / "uniform.vbp"), "--method", "bf-sum", "--plot", str(png)]) == 0
    assert png.stat().st_size > 1000


def test_a_vc_json_instance_packs_as_its_vbp_form(tmp_path, capsys):
    doc = '{"hosts": 2, "jobs": [{"cpu": 0.5, "mem": 0.25, "tasks": 3}, {"cpu": 0.25, "mem": 0.75}, {"cpu": 0.5, "mem": 0.5}]}'
    (tmp_path / "i.json").write_text(doc)
    (tmp_path / "i.vbp").write_text("2\n4 4\n3\n2 1 3\n1 3 1\n2 2 1\n")
    rows = []
    for name in ("i.json", "i.vbp"):
        assert main(["vc", "pack", str(tmp_path / name), "--json"]) == 0
        rows.append(json.loads(capsys.readouterr().out))
    assert rows[0]["status"] == rows[1]["status"] == "optimal"
    assert rows[0]["upper"] == rows[1]["upper"] == 3  # the volume bound: CPU 2.25 of unit hosts
