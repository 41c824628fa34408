"""``vc solve`` / ``moldable solve`` over an instance set: one table, resumable, errors as rows."""

from __future__ import annotations

import json

import pandas
import pytest

from vcsched.cli import main

VC_METHODS = "mcb8,milp,lp"


@pytest.fixture()
def vc_set(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    for seed in range(6):
        assert main(["vc", "generate", "--hosts", "3", "--jobs", "6", "--slack", "0.3", "--seed", str(seed),
                     "-o", str(folder / f"i{seed}.json")]) == 0
    (folder / "broken.json").write_text('{"hosts": 2, "jobs": [')
    return folder


def test_vc_set_gives_the_rows_of_the_one_file_command_and_an_error_row(vc_set, tmp_path, capsys):
    out = tmp_path / "results.parquet"
    assert main(["vc", "solve", str(vc_set), "--method", VC_METHODS, "-o", str(out), "--workers", "1"]) == 0
    table = pandas.read_parquet(out)
    assert len(table) == 7 * 3
    assert list(table.columns[:3]) == ["file", "method", "status"]
    broken = table[table["file"].str.endswith("broken.json")]
    assert set(broken["status"]) == {"error"} and broken["message"].str.contains("broken.json").all()
    capsys.readouterr()
    for _, row in table[table["file"].str.endswith("i2.json")].iterrows():  # same as the one-file command
        assert main(["vc", "solve", row["file"], "--method", row["method"], "--json"]) == 0
        single = json.loads(capsys.readouterr().out)
        assert single["status"] == row["status"]
        assert single["min_yield"] == pytest.approx(row["min_yield"], abs=1e-12)
        if single["assignment"] is not None:  # the LP has none
            assert json.dumps(single["assignment"]) == row["assignment"]
    milp = table[(table["method"] == "milp") & (table["status"] == "optimal")]
    heur = table[table["method"] == "mcb8"].set_index("file")["min_yield"]
    assert (milp.set_index("file")["min_yield"] >= heur[milp["file"]].values - 1e-9).all()


def test_vc_set_resumes_only_the_missing_cells(vc_set, tmp_path):
    out = tmp_path / "r.csv"
    args = ["vc", "solve", str(vc_set / "i*.json"), "--method", VC_METHODS, "-o", str(out), "--workers", "1"]
    assert main(args) == 0
    first = pandas.read_csv(out)
    parts = sorted((tmp_path / "r.run" / "parts").glob("*.parquet"))
    assert len(parts) == 18
    kept = {p: p.stat().st_mtime_ns for p in parts[2:]}
    for p in parts[:2]:  # as if the run had been interrupted before these two cells
        p.unlink()
    out.unlink()
    assert main(args + ["--resume"]) == 0
    again = pandas.read_csv(out)
    assert all(p.stat().st_mtime_ns == t for p, t in kept.items())  # finished cells were not run again
    stable = [c for c in first.columns if "seconds" not in c and c != "code_version"]
    pandas.testing.assert_frame_equal(first[stable], again[stable])


def test_moldable_set_and_bad_set_options(tmp_path, capsys):
    folder = tmp_path / "m"
    folder.mkdir()
    for seed in range(3):
        assert main(["moldable", "generate", "--m", "3", "--n", "4", "--kind", "mixed", "--seed", str(seed),
                     "-o", str(folder / f"m{seed}.json")]) == 0
    out = tmp_path / "m.parquet"
    assert main(["moldable", "solve", str(folder), "--method", "bicriteria,exact", "-o", str(out),
                 "--workers", "1", "--time-limit", "20"]) == 0
    table = pandas.read_parquet(out)
    assert len(table) == 6 and set(table["status"]) <= {"optimal", "feasible"}
    exact = table[table["method"] == "exact"].set_index("file")["minsum"]
    heur = table[table["method"] == "bicriteria"].set_index("file")["minsum"]
    assert (exact <= heur + 1e-9).all()
    capsys.readouterr()
    assert main(["moldable", "solve", str(folder), "-o", str(tmp_path / "m.txt")]) == 2
    assert "suffix" in capsys.readouterr().err
    assert main(["vc", "solve", str(tmp_path / "nothing-*.json"), "-o", str(out)]) == 2
    assert "matches no file" in capsys.readouterr().err
    assert main(["vc", "solve", str(folder), "--resume"]) == 2
    assert "--resume needs -o" in capsys.readouterr().err
