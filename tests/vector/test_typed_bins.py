"""The fewest bins of several types with counts (``vc pack`` on a JSON file with host types) against brute force."""

from __future__ import annotations

import json

import numpy as np
import pytest

from heuristics.vector.typed import pack_typed
from lowerbounds.vector.typed_bins import certify_typed, lagrangian_bound, placement_problem, typed_volume_bound
from lowerbounds.vector.typed_lp import TypedPacking, price_type
from tests.vector.typed_brute import brute_fewest_bins
from vcsched.cli import main
from vcsched.problems.vbp_typed import TypedBinPacking, typed_bins_problem


def _tiny(seed: int) -> TypedBinPacking:
    rng = np.random.default_rng(seed)
    n, d, k = int(rng.integers(3, 8)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    return TypedBinPacking(np.round(rng.uniform(0.05, 0.5, (n, d)), 2), np.ones(n, dtype=np.int64),
                           np.round(rng.uniform(0.6, 1.2, (k, d)), 2), rng.integers(1, 4, k))


def _lp(inst: TypedBinPacking) -> TypedPacking:
    return TypedPacking(inst.demand, inst.count, inst.bin_caps, inst.bin_count)


CASES = [_tiny(s) for s in range(24)]
OPT = [brute_fewest_bins(c.demand, c.bin_caps, c.bin_count) for c in CASES]


def test_the_cases_mix_feasible_and_infeasible_and_several_types():
    assert sum(o is None for o in OPT) >= 3 and sum(o is not None for o in OPT) >= 15
    assert sum(c.n_bin_types >= 2 for c, o in zip(CASES, OPT) if o is not None) >= 8


@pytest.mark.parametrize("case", range(len(CASES)))
def test_certify_equals_brute_force_and_heuristics_never_beat_it(case):
    inst, opt = CASES[case], OPT[case]
    r = pack_typed(inst, "certify", time_limit=10)
    if opt is None:
        assert r["status"] == "infeasible" and r["bins"] == []
    else:
        assert r["status"] == "optimal" and r["lower"] == r["upper"] == opt
        assert typed_bins_problem(inst, r["bins"], r["bin_types"]) is None and len(r["bins"]) == opt
    for name in ("meta", "ff-sum", "bf-max", "choose-w2"):
        h = pack_typed(inst, name)
        if h["bins"]:
            assert typed_bins_problem(inst, h["bins"], h["bin_types"]) is None
            assert opt is not None and h["upper"] == len(h["bins"]) >= opt
        if opt is not None and h["lower"] is not None:
            assert h["lower"] <= opt
        if opt is None:
            assert h["status"] in ("infeasible", "failed")


@pytest.mark.parametrize("case", [c for c in range(len(CASES)) if OPT[c] is not None][:6])
def test_the_engine_alone_without_heuristic_start_is_exact(case):
    inst, opt = CASES[case], OPT[case]
    cert = certify_typed(_lp(inst), time_limit=10)
    assert cert.status == "optimal" and cert.lower == cert.upper == opt
    assert placement_problem(_lp(inst), cert.placement) is None


def test_the_lagrangian_bound_holds_for_any_prices():
    rng = np.random.default_rng(7)
    checked = 0
    for inst, opt in zip(CASES, OPT):
        if opt is None:
            continue
        lp = _lp(inst)
        for _ in range(5):
            pi = rng.uniform(0, 1.2, inst.count.size)
            mu = rng.uniform(0, 0.5, inst.n_bin_types)
            v = np.array([price_type(lp, k, pi, 0.0, False)[0] for k in range(inst.n_bin_types)])
            assert lagrangian_bound(lp, pi, mu, v) <= opt + 1e-9
            checked += 1
    assert checked >= 50


def test_the_volume_bound_is_valid_and_proves_the_overfull_case():
    for inst, opt in zip(CASES, OPT):
        vol = typed_volume_bound(_lp(inst))
        assert vol is None and opt is None or opt is None or vol <= opt
    full = TypedBinPacking(np.full((5, 1), 0.5), np.ones(5, dtype=np.int64), np.array([[1.0], [0.45]]),
                           np.array([2, 1]))
    assert typed_volume_bound(_lp(full)) is None  # 2.5 of volume, 2.45 of room
    assert pack_typed(full, "certify")["status"] == "infeasible"
    roomy = TypedBinPacking(np.full((5, 1), 0.5), np.ones(5, dtype=np.int64), np.array([[1.0], [0.45]]),
                            np.array([2, 4]))
    assert typed_volume_bound(_lp(roomy)) == 4  # 2 + 0.45 + 0.45 < 2.5 <= 2 + 3 x 0.45
    r = pack_typed(roomy, "certify")  # room enough, but 0.5 > 0.45: only 4 items fit in 2 bins
    assert r["status"] == "infeasible" and r["bins"] == []


def test_counts_bind_one_type_and_the_identical_bin_shortcut_respects_them():
    demand = np.full((6, 2), 0.4)
    one = TypedBinPacking(demand, np.ones(6, dtype=np.int64), np.ones((1, 2)), np.array([3]))
    r = pack_typed(one, "certify")
    assert r["status"] == "optimal" and r["upper"] == 3
    short = TypedBinPacking(demand, np.ones(6, dtype=np.int64), np.ones((1, 2)), np.array([2]))
    r = pack_typed(short, "certify")
    assert r["status"] == "infeasible" and "3 hosts are needed" in r["message"]


def test_the_checker_catches_counts_capacity_and_repeats():
    inst = TypedBinPacking(np.array([[0.6], [0.6]]), np.ones(2, dtype=np.int64), np.array([[1.0], [2.0]]),
                           np.array([2, 1]))
    assert typed_bins_problem(inst, [[0], [1]], [0, 0]) is None
    assert "exceeds" in typed_bins_problem(inst, [[0, 1]], [0])
    assert typed_bins_problem(inst, [[0, 1]], [1]) is None
    assert "more than its count" in typed_bins_problem(inst, [[0], [1]], [1, 1])
    assert "packed 2 times" in typed_bins_problem(inst, [[0, 1], [1]], [1, 0])


def _json(tmp_path, jobs, hosts, resources=("mem",)):
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"resources": list(resources), "hosts": hosts, "jobs": jobs}))
    return str(path)


def test_vc_pack_on_host_types_gives_typed_bins_and_the_brute_force_optimum(tmp_path, capsys):
    jobs = [{"cpu": 0.5, "mem": 0.3}, {"cpu": 0.5, "mem": 0.3}, {"cpu": 0.9, "mem": 0.5}, {"cpu": 1.2, "mem": 0.2},
            {"cpu": 0.3, "mem": 0.6}]
    hosts = [{"cpu": 1.0, "mem": 1.0, "count": 4}, {"cpu": 2.0, "mem": 1.0, "count": 1}]
    path = _json(tmp_path, jobs, hosts)
    assert main(["vc", "pack", path, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    demand = np.array([[j["cpu"], j["mem"]] for j in jobs])
    opt = brute_fewest_bins(demand, np.array([[1.0, 1.0], [2.0, 1.0]]), np.array([4, 1]))
    assert row["status"] == "optimal" and row["upper"] == opt == len(row["bins"]) == len(row["bin_types"])
    assert row["bin_types"].count(1) <= 1
    png = tmp_path / "b.png"
    assert main(["vc", "pack", path, "--plot", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_a_job_larger_than_every_host_type_is_infeasible_not_an_error(tmp_path, capsys):
    path = _json(tmp_path, [{"cpu": 0.5, "mem": 0.3, "disk": 0.9}],
                 [{"cpu": 1.0, "mem": 1.0, "disk": 0.5, "count": 2}], resources=("mem", "disk"))
    assert main(["vc", "pack", path, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["status"] == "infeasible" and "job 0" in row["message"] and "disk" in row["message"]


def test_vc_pack_over_a_folder_of_vbp_and_both_json_forms_gives_the_one_file_rows(tmp_path, capsys):
    import pandas

    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "a.vbp").write_text("2\n10 10\n2\n6 3 2\n4 7 2\n")
    (folder / "old.json").write_text(json.dumps({"hosts": 2, "jobs": [{"cpu": 0.6, "mem": 0.5}] * 3}))
    (folder / "new.json").write_text(json.dumps({"resources": ["mem"], "hosts": [
        {"cpu": 1.0, "mem": 1.0, "count": 1}, {"cpu": 1.5, "mem": 2.0, "count": 1}],
        "jobs": [{"cpu": 0.6, "mem": 0.5}] * 3}))
    out = tmp_path / "p.csv"
    assert main(["vc", "pack", str(folder), "-o", str(out), "--workers", "1"]) == 0
    table = pandas.read_csv(out).set_index("file")
    assert len(table) == 3 and (table["status"] == "optimal").all()
    assert table.loc[str(folder / "a.vbp"), "upper"] == 2  # (6,3)+(4,7) twice
    assert table.loc[str(folder / "old.json"), "upper"] == 3  # unit hosts, as many as needed
    assert table.loc[str(folder / "new.json"), "upper"] == 2  # one job on the small host, two on the large
    assert json.loads(table.loc[str(folder / "new.json"), "bin_types"]) in ([0, 1], [1, 0])
    capsys.readouterr()
    for f in ("a.vbp", "new.json"):
        assert main(["vc", "pack", str(folder / f), "--json"]) == 0
        one = json.loads(capsys.readouterr().out)
        assert one["upper"] == table.loc[str(folder / f), "upper"] and one["status"] == "optimal"
