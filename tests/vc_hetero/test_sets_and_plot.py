"""``vc solve DIR`` with files with host types (alone and mixed with the 2-D form), and ``--plot`` on them."""

from __future__ import annotations

import json

import numpy as np
import pandas
import pytest

from heuristics.vc_hetero.methods import result_row, solve
from vcsched.cli import main
from vcsched.generators.vc_hetero import generate_hetero
from vcsched.problems.vc_hetero import allocation_from_placement, hetero_to_dict, load_hetero
from vcsched.problems.vc_hetero_plot import panel_loads


@pytest.fixture()
def mixed_set(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    for seed in range(2):
        inst = generate_hetero(3, 6, resources=2, host_types=2, slack=0.4, rng=seed)
        (folder / f"h{seed}.json").write_text(json.dumps(hetero_to_dict(inst)))
    assert main(["vc", "generate", "--hosts", "3", "--jobs", "6", "--slack", "0.3", "--seed", "0",
                 "-o", str(folder / "old.json")]) == 0
    return folder


def test_a_set_with_host_types_gives_the_rows_of_the_python_api(mixed_set, tmp_path, capsys):
    out = tmp_path / "t.parquet"
    assert main(["vc", "solve", str(mixed_set / "h*.json"), "--method", "mcb8,vp-meta,milp", "-o", str(out),
                 "--workers", "1"]) == 0
    table = pandas.read_parquet(out)
    assert len(table) == 2 * 3 and (table["status"] != "error").all()
    for _, row in table.iterrows():
        inst = load_hetero(row["file"])
        api = result_row(solve(inst, row["method"]), inst)
        assert row["status"] == api["status"]
        if api["min_yield"] is None:  # a heuristic that failed says so; the table holds a null
            assert pandas.isna(row["min_yield"])
        else:
            assert row["min_yield"] == pytest.approx(api["min_yield"], abs=1e-12)
    opt = table[table["method"] == "milp"].set_index("file")["min_yield"]
    for name in ("mcb8", "vp-meta"):  # no heuristic above the proven optimum
        heur = table[table["method"] == name].set_index("file")["min_yield"]
        assert (heur.fillna(-1) <= opt[heur.index] + 1e-9).all()


def test_a_mixed_set_takes_each_form_and_names_a_method_of_the_other_form(mixed_set, tmp_path, capsys):
    out = tmp_path / "m.csv"
    assert main(["vc", "solve", str(mixed_set), "--method", "mcb8,vp-ff-sum,lp-closed", "-o", str(out),
                 "--workers", "1"]) == 0
    table = pandas.read_csv(out).set_index(["file", "method"])
    old = str(mixed_set / "old.json")
    new = str(mixed_set / "h0.json")
    assert table.loc[(old, "mcb8"), "status"] != "error" and table.loc[(new, "mcb8"), "status"] != "error"
    assert table.loc[(old, "vp-ff-sum"), "status"] == "error"
    assert "host types" in table.loc[(old, "vp-ff-sum"), "message"]
    assert table.loc[(new, "lp-closed"), "status"] == "error"
    assert "not for an instance with host types" in table.loc[(new, "lp-closed"), "message"]


def test_an_unknown_method_over_a_set_is_one_line(mixed_set, capsys):
    assert main(["vc", "solve", str(mixed_set), "--method", "nope", "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown method 'nope'" in err[0]


def test_plot_values_are_shares_of_each_host_and_never_over_one():
    inst = generate_hetero(4, 10, resources=3, host_types=2, slack=0.5, rng=4)
    r = solve(inst, "vp-meta")
    values = panel_loads(inst, r.solution)
    assert values.shape == (inst.n_jobs, 1 + inst.d)
    per_host = np.zeros((inst.n_hosts, 1 + inst.d))
    np.add.at(per_host, r.solution.job_host, values)
    assert (per_host <= 1 + 1e-9).all()
    h = int(r.solution.job_host[0])  # a host's CPU panel is what its jobs receive over its own CPU
    on = r.solution.job_host == h
    assert per_host[h, 0] == pytest.approx(r.solution.job_alloc[on].sum() / inst.hosts_cpu[h])


def test_plot_writes_a_figure_of_the_best_method(mixed_set, tmp_path, capsys):
    png = tmp_path / "a.png"
    assert main(["vc", "solve", str(mixed_set / "h0.json"), "--method", "gr,vp-meta", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_refuses_an_invalid_allocation_in_one_line(tmp_path):
    from vcsched.errors import InvalidInputError
    from vcsched.problems.vc_hetero_plot import plot_hetero

    inst = generate_hetero(2, 6, resources=2, host_types=2, slack=0.1, rng=1)
    alloc = allocation_from_placement(inst, np.zeros(inst.n_jobs, dtype=np.int64))  # all on host 0: over
    with pytest.raises(InvalidInputError, match="invalid allocation"):
        plot_hetero(inst, alloc, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("extra, words", [(["--gap", "0.1"], "--gap applies to no method"),
                                          (["--seed", "3"], "--seed applies to no method"),
                                          (["--time-limit", "5"], "--time-limit applies to --method milp")])
def test_an_option_no_method_takes_is_refused_in_one_line(mixed_set, capsys, extra, words):
    assert main(["vc", "solve", str(mixed_set / "h0.json"), "--method", "mcb8", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
    assert main(["vc", "solve", str(mixed_set / "h0.json"), "--method", "mcb8,lp", "--time-limit", "5"]) == 0
