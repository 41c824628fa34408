"""``vcsched moldable generate | solve | bound``: the documented interface."""

import json

import numpy as np
import pytest

from vcsched.cli import main
from vcsched.problems.moldable import Schedule, check_schedule, load_instance


@pytest.fixture
def inst_file(tmp_path):
    path = tmp_path / "inst.json"
    assert main(["moldable", "generate", "--m", "8", "--n", "6", "--kind", "mixed", "--seed", "4", "-o", str(path)]) == 0
    return path


def test_moldable_cli_generate_is_seeded(tmp_path, capsys):
    main(["moldable", "generate", "--m", "5", "--n", "3", "--kind", "cirne", "--seed", "2"])
    a = capsys.readouterr().out
    main(["moldable", "generate", "--m", "5", "--n", "3", "--kind", "cirne", "--seed", "2"])
    assert capsys.readouterr().out == a
    data = json.loads(a)
    assert data["m"] == 5 and len(data["tasks"]) == 3 and len(data["tasks"][0]["times"]) == 5


def test_moldable_cli_solve_json_fields_and_valid_schedule(inst_file, capsys):
    assert main(["moldable", "solve", str(inst_file), "--method", "bicriteria", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"method", "status", "makespan", "minsum", "seconds", "schedule"}
    assert out["method"] == "bicriteria" and out["status"] == "feasible"
    inst = load_instance(inst_file)
    sched = out["schedule"]
    assert [r["task"] for r in sched] == list(range(inst.n))
    s = Schedule(np.array([r["start"] for r in sched]), np.array([r["procs"] for r in sched]),
                 tuple(tuple(r["processors"]) for r in sched))
    rep = check_schedule(inst, s)
    assert rep.valid and rep.minsum == pytest.approx(out["minsum"]) and rep.makespan == pytest.approx(out["makespan"])


def test_moldable_cli_solve_all_is_a_list(inst_file, capsys):
    assert main(["moldable", "solve", str(inst_file), "--method", "all", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["method"] for r in out] == ["bicriteria", "gang", "sequential", "list-shelf", "list-lptf", "list-saf"]
    assert main(["moldable", "solve", str(inst_file), "--method", "all"]) == 0
    assert "list-saf" in capsys.readouterr().out


def test_moldable_cli_bound(inst_file, capsys):
    assert main(["moldable", "bound", str(inst_file), "--json"]) == 0
    lp = json.loads(capsys.readouterr().out)
    assert {"minsum_lb", "makespan_lb", "status", "seconds"} <= set(lp) and lp["status"] == "optimal"
    assert main(["moldable", "bound", str(inst_file), "--integer", "--json"]) == 0
    ilp = json.loads(capsys.readouterr().out)
    assert ilp["minsum_lb"] >= lp["minsum_lb"] - 1e-6
    main(["moldable", "solve", str(inst_file), "--method", "all", "--json"])
    assert all(r["minsum"] >= ilp["minsum_lb"] for r in json.loads(capsys.readouterr().out))


@pytest.mark.parametrize(
    "content, match",
    [
        ('{"m": 3, "tasks": [{"weight": 1, "times": [3, 2]}]}', "task 0, field 'times': has 2 values"),
        ("{oops", "malformed JSON"),
        ('{"m": 2, "tasks": [{"weight": 0, "times": [1, 1]}]}', "task 0: field 'weight'"),
    ],
)
def test_moldable_cli_bad_input_exit_2(tmp_path, capsys, content, match):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    for cmd in (["moldable", "solve", str(bad)], ["moldable", "bound", str(bad)]):
        assert main(cmd) == 2
        err = capsys.readouterr().err
        assert err.startswith("vcsched: error: ") and match in err and err.count("\n") == 1


def test_moldable_cli_unknown_method_and_missing_file(inst_file, tmp_path, capsys):
    assert main(["moldable", "solve", str(inst_file), "--method", "bicriteira"]) == 2
    assert "unknown method 'bicriteira'" in capsys.readouterr().err
    assert main(["moldable", "bound", str(tmp_path / "none.json")]) == 2
    assert "file not found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # a usage error: --ratio must be > 1
        main(["moldable", "bound", str(inst_file), "--ratio", "1"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["moldable", "generate", "--n", "0"])
    assert exc.value.code == 2



def test_moldable_cli_dual_choice_reaches_the_heuristics(tmp_path, capsys):
    # an instance where the two dual approximations give different allotments (T2 and T3 fire in
    # the two-shelf version): the CLI's allotment equals the library's for each --dual choice
    from heuristics.moldable import REGISTRY
    from vcsched.problems.moldable import MoldableInstance, save_instance

    inst = MoldableInstance.from_arrays(4, [[2.2] * 4] * 4 + [[2.1, 1.05, 1.05, 1.05]] * 3)
    path = tmp_path / "dual.json"
    save_instance(inst, path)
    allotments = {}
    for dual in ("two-shelf", "simple"):
        assert main(["moldable", "solve", str(path), "--method", "list-shelf", "--dual", dual, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        expected = REGISTRY.get("list-shelf")(inst, rng=0, eps=0.01, dual=dual)
        allotments[dual] = [r["procs"] for r in out["schedule"]]
        assert allotments[dual] == [int(k) for k in expected.solution.procs]
        assert out["minsum"] == pytest.approx(expected.objective)
    assert allotments["two-shelf"] != allotments["simple"]
    with pytest.raises(SystemExit):
        main(["moldable", "solve", str(path), "--dual", "three-shelf"])
