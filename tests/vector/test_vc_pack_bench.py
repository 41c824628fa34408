"""``bench run vc-pack``: its cells, rows and report tables on a small folder."""

from __future__ import annotations

import pandas

from benchmarks.experiments import vc_pack
from vcsched.generators.vbp import generate_vbp
from vcsched.problems.vbp import write_vbp


def test_the_report_counts_proven_optima_and_heuristic_excess(tmp_path, monkeypatch):
    for kind in ("triplets", "uniform"):
        write_vbp(generate_vbp(kind, 30, 3, 4), tmp_path / f"{kind}_d3_n30.vbp")
    write_vbp(generate_vbp("uniform", 60, 3, 4), tmp_path / "uniform_d3_n60.vbp")
    monkeypatch.setenv(vc_pack.FOLDER_ENV, str(tmp_path))
    cells = vc_pack.cells(quick=True)
    assert [c["file"].rsplit("/", 1)[-1] for c in cells] == ["triplets_d3_n30.vbp", "uniform_d3_n30.vbp"]
    # certify stops as soon as it proves the optimum (about 2 s here on an idle core): a generous limit keeps
    # the assertion about what it proves, not about the machine's load
    df = pandas.DataFrame([r for c in cells for r in vc_pack.run_cell({**c, "time_limit": 120.0}, 0)])
    classes = vc_pack.class_table(df).set_index("class")
    assert classes.loc["triplets", "optimal"] == 1 and classes.loc["all", "instances"] == 2
    heur = vc_pack.heuristic_table(df).set_index("method")
    assert (heur["all"] >= 0).all() and heur.loc["heuristics", "all"] <= heur.drop(index="heuristics")["all"].min()
    assert heur.loc["heuristics", "triplets"] > 0  # META misses the planted optimum
    assert "certify per class" in vc_pack.report(df.assign(cell_status="ok"), tmp_path)
