"""Documented statuses (issue 39, cause 9) and a bad file among many (cause 10)."""

from __future__ import annotations

import os
import pathlib
import re

import pytest

from vcsched.cli import main

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def test_timeshare_exact_status_of_a_dag_workload_is_the_documented_one(capsys):
    import json

    assert main(["timeshare", "bound", "--scenario", "c", "--method", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    statuses = {m["search_status"] for m in out.values() if isinstance(m, dict) and "search_status" in m}
    assert {m["status"] for m in out.values()} <= {"optimal", "bracketed", "bound"}  # the bracket's
    documented = set(re.findall(r"`(optimal|time_limit|too_large|not_searched)`", (DOCS / "bounds.md").read_text()))
    assert statuses and statuses <= documented, (statuses, documented)
    assert "not_searched" in statuses  # scenario c has DAG applications


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_in_an_instance_folder_is_an_error_row(tmp_path, capsys):
    assert main(["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "-o", str(tmp_path / "a.json")]) == 0
    os.mkfifo(tmp_path / "b.json")
    out = tmp_path / "out" / "r.csv"
    out.parent.mkdir()
    assert main(["vc", "solve", str(tmp_path), "--method", "mcb8", "-o", str(out), "--workers", "1"]) == 0
    import pandas

    table = pandas.read_csv(out)
    assert list(table.file.map(os.path.basename)) == ["a.json", "b.json"]
    row = table[table.file.str.endswith("b.json")].iloc[0]
    assert row.status == "error" and "not a regular file" in row.message
    assert "2 files x 1 methods = 2 rows, 1 errors" in capsys.readouterr().err
