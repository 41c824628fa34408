"""``vcsched diet bound`` and ``vcsched diet simulate --bound``: flags and JSON fields."""

import json

import pytest

from vcsched.cli import main


def run(capsys, *argv):
    code = main(["diet", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bound_json_gives_value_method_seconds_per_metric(capsys):
    code, out, _ = run(capsys, "bound", "--experiment", "add-seds", "--method", "quick", "--json")
    obj = json.loads(out)
    assert code == 0 and set(obj["metrics"]) == {"makespan", "mean_turnaround", "throughput"}
    for m in obj["metrics"].values():
        assert {"value", "method", "seconds"} <= set(m) and m["method"] == "quick" and m["value"] > 0
    assert obj["metrics"]["throughput"]["kind"] == "upper"


def test_bound_exact_bursty_is_optimal_with_a_placement(capsys):
    code, out, _ = run(capsys, "bound", "--experiment", "bursty", "--method", "exact", "--time-limit", "10",
                       "--seed", "2", "--json")
    ms = json.loads(out)["metrics"]["makespan"]
    assert code == 0 and ms["status"] == "optimal" and ms["gap"] == pytest.approx(0, abs=1e-9)
    assert ms["optimum"] == ms["value"] == ms["bound"]
    assert sorted(p["task"] for p in ms["placement"]) == list(range(8))
    assert {"sed", "cpu", "start", "end", "done"} <= set(ms["placement"][0])


def test_bound_exact_on_users_says_so_and_falls_back(capsys):
    code, out, _ = run(capsys, "bound", "--experiment", "steady", "--duration", "900", "--method", "exact")
    assert code == 0 and "not available for sequential users" in out


def test_simulate_bound_adds_bound_and_ratio(capsys):
    code, out, _ = run(capsys, "simulate", "--experiment", "bursty", "--approach", "all", "--bound", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 3
    for r in rows:
        for m in ("makespan", "mean_turnaround"):
            assert r[f"{m}_ratio_to_bound"] == pytest.approx(r[m] / r[f"{m}_bound"]) and r[f"{m}_ratio_to_bound"] >= 1
        assert 0 < r["throughput_ratio_to_bound"] <= 1
    code, out, _ = run(capsys, "simulate", "--experiment", "bursty", "--approach", "standard", "--bound")
    assert code == 0 and "makespan_ratio_to_bound" in out.splitlines()[0]


@pytest.mark.parametrize("argv", [
    ["bound", "--experiment", "bursty", "--method", "simplex"],
    ["bound", "--experiment", "bursty", "--time-limit", "-3"],
    ["bound", "--experiment", "steady", "--interarrival", "2"],
    ["bound", "--experiment", "nowhere"],
])
def test_bad_input_one_line_exit_2(capsys, argv):
    try:
        code = main(["diet", *argv])
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
