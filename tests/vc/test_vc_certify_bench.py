"""The ``vc-certify`` experiment: cells, rows and report (a few fast instances)."""

from __future__ import annotations

import math

import pandas as pd

from benchmarks.experiments import (
    vc_certify,
    vc_certify_parallel,
    vc_certify_strict,
    vc_certify_strict_wide,
    vc_certify_tenth,
)
from benchmarks.harness import get_experiment


def test_full_run_is_the_large_set_and_starts_with_the_tenth():
    full = vc_certify.cells(False)
    assert len(full) == 10_800 and len({tuple(sorted(c.items())) for c in full}) == 10_800
    assert full[:1080] == vc_certify_tenth.EXPERIMENT.cells(False)
    assert {c["rep"] for c in full} == set(range(100))
    assert get_experiment("vc-certify-tenth").name == "vc-certify-tenth"


def test_cells_are_the_stratified_tenth_replicate_first():
    cells = vc_certify_tenth.EXPERIMENT.cells(False)
    assert len(cells) == 1080
    assert {(c["jobs"], c["slack"], c["cv_mem"], c["cv_cpu"]) for c in cells[:108]} == {
        (c["jobs"], c["slack"], c["cv_mem"], c["cv_cpu"]) for c in cells}
    assert all(c["rep"] == 0 for c in cells[:108]) and cells[-1]["rep"] == 9
    assert all(c["time_limit"] == 60.0 for c in cells)
    assert {c["set"] for c in vc_certify_parallel.EXPERIMENT.cells(False)} == {"parallel"}
    assert get_experiment("vc-certify").name == "vc-certify"
    strict = vc_certify_strict.EXPERIMENT.cells(False)
    assert len(strict) == 108 and {c["stop_gap"] for c in strict} == {1e-4}
    assert [c for c in cells[:108]] == [{**c, "stop_gap": 1e-3} for c in strict]  # the same instances
    wide = vc_certify_strict_wide.EXPERIMENT.cells(False)
    assert len(wide) == 648 and wide[:108] == strict and {c["rep"] for c in wide} == set(range(6))
    assert [{**c, "stop_gap": 1e-3} for c in wide] == vc_certify.cells(False)[:648]


def test_rows_and_report(tmp_path):
    base = {"set": "large", "root_seed": 0, "stop_gap": 1e-3, "time_limit": 5.0, "cv_mem": 0.25, "cv_cpu": 0.25,
            "rep": 0}
    rows = []
    for jobs, slack in ((100, 0.5), (500, 0.3), (100, 0.1)):
        params = {**base, "jobs": jobs, "slack": slack}
        for r in vc_certify.run_cell(params, seed=1):
            rows.append({**params, "cell_status": "ok", **r})
    df = pd.DataFrame(rows)
    cert = df[df["method"] == "certify"].set_index(["jobs", "slack"])
    mcb8 = df[df["method"] == "mcb8"].set_index(["jobs", "slack"])
    for key in cert.index:
        if cert.loc[key, "status"] != "infeasible" and not math.isnan(mcb8.loc[key, "min_yield"]):
            assert cert.loc[key, "bound"] >= cert.loc[key, "min_yield"] >= mcb8.loc[key, "min_yield"] - 1e-12
    assert cert.loc[(100, 0.1), "status"] == "infeasible"  # memory cannot be packed: a proof, not a bound of 1
    text = vc_certify.report(df, tmp_path)
    assert "gap_le_0.1pct" in text
    closure = pd.read_csv(tmp_path / "closure_overall.csv")
    assert closure.loc[0, "instances"] == 3
    assert closure.loc[0, "gap_le_0.1pct"] >= closure.loc[0, "optimal"] + closure.loc[0, "infeasible"] - 1e-12
    yields = pd.read_csv(tmp_path / "yields_by_slack_jobs.csv")
    assert (yields["certified_bound"].dropna() <= yields["lp"].dropna() + 1e-12).all()
    assert (tmp_path / "mcb8_gap_vs_slack.png").exists()


def test_instance_count_tells_replicates_apart():
    rows = pd.DataFrame({"jobs": [100, 100, 100], "slack": [0.2] * 3, "cv_mem": [0.25] * 3, "cv_cpu": [0.25] * 3,
                         "rep": [0, 1, 1], "method": ["certify", "certify", "mcb8"]})
    assert vc_certify._instance_count(rows) == 2
