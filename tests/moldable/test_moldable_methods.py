"""The moldable method table (``heuristics.moldable.methods``): the same results from Python and
from ``vcsched moldable solve``, options refused rather than ignored."""

from __future__ import annotations

import json

import pytest

from heuristics.moldable import REGISTRY
from heuristics.moldable.methods import METHODS, methods_for_all, solve, solve_many
from vcsched.cli import main
from vcsched.cli import moldable as cli_moldable
from vcsched.generators.moldable import generate_moldable_instance
from vcsched.problems.moldable import instance_to_dict


def test_the_table_holds_the_registry_and_exact_and_agrees_with_the_help_text():
    assert sorted(METHODS.names()) == sorted(REGISTRY.names() + ["exact"])
    assert tuple(methods_for_all()) == cli_moldable.METHODS
    assert "shuffles" in METHODS.get("bicriteria").options and "dual" in METHODS.get("list-saf").options
    assert METHODS.get("gang").options == ("rng",)


def test_options_a_method_does_not_take_are_refused():
    inst = generate_moldable_instance(8, 6, "high", rng=1)
    with pytest.raises(TypeError, match="gang: unknown option 'shuffles'"):
        solve(inst, "gang", shuffles=3)
    with pytest.raises(TypeError, match="unknown option 'shufles'"):
        solve_many(inst, ["gang"], shufles=3)


def test_python_and_command_line_give_the_same_schedules(tmp_path, capsys):
    inst = generate_moldable_instance(8, 6, "mixed", rng=2)
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(instance_to_dict(inst)))
    assert main(["moldable", "solve", str(path), "--method", "all", "--seed", "4", "--shuffles", "3", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    results = solve_many(inst, methods_for_all(), rng=4, shuffles=3, eps=0.01, dual="two-shelf")
    assert [r["method"] for r in rows] == [r.method for r in results]
    for row, res in zip(rows, results):
        assert (row["status"], row["makespan"], row["minsum"]) == \
               (res.status.value, res.extra["makespan"], res.extra["minsum"]), row["method"]
        assert row["minsum"] == pytest.approx(res.objective)
