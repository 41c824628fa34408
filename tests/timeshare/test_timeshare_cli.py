"""``vcsched timeshare simulate`` (seed 003)."""

import json

import pytest

from vcsched.cli import main

FIELDS = ["heuristic", "completed", "makespan", "sumflow", "maxflow", "maxstretch", "meanflow",
          "sooner_than_mct", "later_than_mct"]


def run(capsys, *argv):
    code = main(["timeshare", "simulate", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_single(capsys):
    code, out, _ = run(capsys, "--scenario", "j", "--seed", "2", "--heuristic", "msf", "--json")
    assert code == 0
    obj = json.loads(out)
    assert list(obj) == FIELDS and obj["heuristic"] == "msf" and obj["completed"] == 211


def test_json_all_is_a_list_with_mct_zero(capsys):
    code, out, _ = run(capsys, "--scenario", "b", "--platform", "1", "--mu", "20", "--seed", "1",
                       "--heuristic", "all", "--json")
    rows = json.loads(out)
    assert [r["heuristic"] for r in rows] == ["mct", "hmct", "mp", "msf"]
    assert rows[0]["sooner_than_mct"] == 0 and rows[0]["later_than_mct"] == 0
    assert all(list(r) == FIELDS for r in rows)


def test_json_matches_library(capsys):
    from heuristics.timeshare import evaluate
    from vcsched.generators.timeshare import generate_scenario

    _, out, _ = run(capsys, "--scenario", "i", "--seed", "3", "--heuristic", "hmct", "--json")
    row = evaluate(generate_scenario("i", rng=3), ["hmct"])[0]
    assert json.loads(out)["sumflow"] == pytest.approx(row["sumflow"])


def test_text_table(capsys):
    code, out, _ = run(capsys, "--scenario", "f", "--heuristic", "mp")
    assert code == 0 and "scenario f" in out and "sooner_than_mct" in out


def test_bad_inputs(capsys):
    code, _, err = run(capsys, "--scenario", "a", "--platform", "1", "--heuristic", "mct")
    assert code == 2 and err.startswith("vcsched: error: scenario a uses dgemm")
    with pytest.raises(SystemExit):
        main(["timeshare", "simulate", "--scenario", "k", "--heuristic", "mct"])
    with pytest.raises(SystemExit):
        main(["timeshare", "simulate", "--scenario", "b", "--heuristic", "mct", "--mu", "-3"])


def test_memory_flags_reach_the_simulation(capsys):
    args = ("--scenario", "a", "--mu", "15", "--seed", "1", "--heuristic", "msf", "--json")
    ram = json.loads(run(capsys, *args)[1])
    half = json.loads(run(capsys, *args, "--memory", "ram+swap", "--swap-share", "0.5")[1])
    closed = json.loads(run(capsys, *args, "--overflow", "close")[1])
    assert ram["completed"] < 500 and half["completed"] == 500     # physical memory only: MSF loses tasks
    assert closed["completed"] < ram["completed"]                    # a closed server loses every later task


def test_swap_share_needs_ram_plus_swap(capsys):
    code, _, err = run(capsys, "--scenario", "b", "--heuristic", "mct", "--swap-share", "0.5")
    assert code != 0 and "--memory ram+swap" in err
