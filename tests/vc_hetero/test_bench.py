"""``bench run vc-hetero``: one small cell's rows and the gap table."""

import pandas as pd

from benchmarks.experiments.vc_hetero import METHODS, cells, gap_table, run_cell


def test_cell_rows_never_beat_the_bound_and_the_table_counts_failures():
    assert {c["d"] for c in cells(False)} == {2, 3, 5} and {c["types"] for c in cells(False)} == {2, 4}
    rows = run_cell({"d": 3, "types": 2, "hosts": 6, "jobs": 16, "certify_limit": 2.0}, seed=5)
    assert [r["method"] for r in rows] == ["certify", *METHODS] and rows[0]["bound_method"] in ("lp", "certify")
    for r in rows:
        if r["min_yield"] is not None:
            assert r["min_yield"] <= r["bound"] + 1e-9 and r["gap"] >= -1e-9
    table = gap_table(pd.DataFrame(rows))
    assert len(table) == len(METHODS) + 1
    assert table["failed"].sum() == sum(r["status"] not in ("feasible", "optimal") for r in rows)
