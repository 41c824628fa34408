"""``vcsched diet simulate``: flags and JSON fields as documented (docs/diet.md)."""

import json

import pytest

from vcsched.cli import main

FIELDS = {"approach", "makespan", "mean_turnaround", "throughput", "tasks_per_sed"}


def run(capsys, *argv):
    code = main(["diet", "simulate", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_one_approach_prints_one_object(capsys):
    code, out, _ = run(capsys, "--experiment", "bursty", "--interarrival", "0.5", "--seed", "3",
                       "--approach", "task-scheduler", "--json")
    assert code == 0
    obj = json.loads(out)
    assert FIELDS <= set(obj) and obj["approach"] == "task-scheduler"
    assert sum(obj["tasks_per_sed"].values()) == 8
    assert obj["throughput"] == pytest.approx(8 / obj["makespan"])


def test_all_prints_a_list_in_order(capsys):
    code, out, _ = run(capsys, "--experiment", "add-seds", "--approach", "all", "--json")
    rows = json.loads(out)
    assert code == 0 and [r["approach"] for r in rows] == ["standard", "sed-queue", "task-scheduler"]
    assert all(FIELDS <= set(r) and sum(r["tasks_per_sed"].values()) == 54 for r in rows)


def test_same_seed_same_output(capsys):
    a = run(capsys, "--experiment", "bursty", "--interarrival", "0", "--approach", "standard", "--seed", "5", "--json")
    b = run(capsys, "--experiment", "bursty", "--interarrival", "0", "--approach", "standard", "--seed", "5", "--json")
    assert a == b


def test_table_output(capsys):
    code, out, _ = run(capsys, "--experiment", "bursty", "--approach", "sed-queue")
    assert code == 0 and out.splitlines()[0].split()[:3] == ["approach", "makespan", "mean_turnaround"]


def test_interarrival_rejected_for_steady(capsys):
    code, _, err = run(capsys, "--experiment", "steady", "--interarrival", "1", "--approach", "standard")
    assert code == 2 and "vcsched: error: --interarrival applies to" in err


def test_unknown_approach_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["diet", "simulate", "--experiment", "bursty", "--approach", "fastest"])
    assert exc.value.code == 2


def test_platform_and_window_flags_change_the_run(capsys):
    base = json.loads(run(capsys, "--experiment", "add-seds", "--approach", "task-scheduler", "--json")[1])
    slow = json.loads(run(capsys, "--experiment", "add-seds", "--approach", "task-scheduler", "--json",
                          "--submit-overhead", "3")[1])
    wide = json.loads(run(capsys, "--experiment", "add-seds", "--approach", "task-scheduler", "--json",
                          "--win-adapt-factor", "1.0")[1])
    assert slow["mean_turnaround"] > base["mean_turnaround"]
    assert wide != base


def test_sorting_and_queue_sync_flags(capsys):
    base = ("--experiment", "add-seds", "--approach", "standard", "--seed", "1", "--json")
    metrics = json.loads(run(capsys, *base)[1])
    literal = json.loads(run(capsys, *base, "--sorting", "literal")[1])
    assert max(literal["tasks_per_sed"].values()) > max(metrics["tasks_per_sed"].values())
    sq = ("--experiment", "add-seds", "--approach", "sed-queue", "--json")
    slow = json.loads(run(capsys, *sq, "--queue-sync", "5")[1])
    fast = json.loads(run(capsys, *sq)[1])
    assert slow["makespan"] > fast["makespan"]                     # queued starts wait for the hand-off
    with pytest.raises(SystemExit) as exc:
        run(capsys, *sq, "--queue-sync", "-1")
    assert exc.value.code == 2 and "--queue-sync" in capsys.readouterr().err


def test_interference_flag(capsys):
    base = ("--experiment", "add-seds", "--approach", "standard", "--seed", "1", "--json")
    plain = run(capsys, *base)[1]
    assert run(capsys, *base, "--interference", "0")[1] == plain      # a = 0 is the default model, byte for byte
    slow = json.loads(run(capsys, *base, "--interference", "1")[1])
    assert slow["mean_compute"] > json.loads(plain)["mean_compute"]   # 54 jobs on 8 SeDs oversubscribe
    for bad in ("-0.1", "1.5", "nan"):
        with pytest.raises(SystemExit) as exc:
            run(capsys, *base, "--interference", bad)
        assert exc.value.code == 2 and "--interference" in capsys.readouterr().err
