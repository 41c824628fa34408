"""An option that cannot apply is refused with one line naming what it needs, never ignored
(issue 39, cause 3; :func:`vcsched.cli.common.check_options_apply`,
:func:`vcsched.cli.common.check_single_file_options`)."""

from __future__ import annotations

import pytest

from tests.conftest import cli_error
from vcsched.cli import main


@pytest.fixture
def sets(tmp_path):
    vc = tmp_path / "vc"
    vc.mkdir()
    assert main(["vc", "generate", "--hosts", "2", "--jobs", "3", "--slack", "0.5", "-o", str(vc / "a.json")]) == 0
    mold = tmp_path / "mold"
    mold.mkdir()
    assert main(["moldable", "generate", "--m", "3", "--n", "3", "-o", str(mold / "a.json")]) == 0
    return vc, mold


def test_figures_with_an_instance_set_are_refused(sets, tmp_path, capsys):
    vc, mold = sets
    assert "--plot draws one instance's solution" in cli_error(
        capsys, ["vc", "solve", str(vc), "--method", "mcb8", "--plot", str(tmp_path / "p.png")])
    assert "--gantt draws one instance's solution" in cli_error(
        capsys, ["moldable", "solve", str(mold / "*.json"), "--gantt", str(tmp_path / "g.png")])
    assert not (tmp_path / "p.png").exists() and not (tmp_path / "g.png").exists()


def test_workers_with_one_file_is_refused(sets, capsys):
    vc, mold = sets
    assert "--workers applies to an instance set" in cli_error(
        capsys, ["vc", "solve", str(vc / "a.json"), "--method", "mcb8", "--workers", "2"])
    assert "--scheduler applies to an instance set" in cli_error(
        capsys, ["moldable", "solve", str(mold / "a.json"), "--scheduler", "tcp://localhost:1"])


@pytest.mark.parametrize("argv,flag", [
    (["--method", "bicriteria", "--grain", "0.5"], "--grain applies to --method exact"),
    (["--method", "gang", "--time-limit", "5"], "--time-limit applies to --method exact"),
    (["--method", "sequential,gang", "--shuffles", "3"], "--shuffles applies to --method bicriteria"),
    (["--method", "gang", "--formulation", "flow"], "--formulation applies to --method exact"),
])
def test_moldable_method_options_no_chosen_method_takes(sets, capsys, argv, flag):
    _, mold = sets
    assert flag in cli_error(capsys, ["moldable", "solve", str(mold / "a.json")] + argv)
    assert flag in cli_error(capsys, ["moldable", "solve", str(mold), "-o", str(mold / "t.csv")] + argv)


@pytest.mark.parametrize("argv,flag", [
    (["--method", "mcb8", "--time-limit", "5"], "--time-limit applies to --method milp"),
    (["--method", "lp", "--seed", "3"], "--seed applies to --method certify"),
    (["--method", "lp-closed", "--budget-mode", "count"], "--budget-mode applies to --method milp"),
    (["--method", "gr", "--gap", "0.1"], "--gap applies to --method milp"),
    (["--method", "mcb8", "--seed", "0", "--time-limit=60"], "--time-limit applies to --method milp"),  # defaults too
])
def test_vc_method_options_no_chosen_method_takes(sets, capsys, argv, flag):
    vc, _ = sets
    assert flag in cli_error(capsys, ["vc", "solve", str(vc / "a.json")] + argv)


def test_an_option_some_chosen_method_takes_is_accepted(sets, capsys):
    vc, mold = sets
    assert main(["vc", "solve", str(vc / "a.json"), "--method", "mcb8,milp", "--time-limit", "5"]) == 0
    assert main(["moldable", "solve", str(mold / "a.json"), "--method", "gang,exact", "--grain", "auto"]) == 0


def test_bound_options_without_bound_are_refused(capsys):
    assert "--bound-method applies with --bound" in cli_error(
        capsys, ["grid", "simulate", "--scenario", "jan", "--bound-method", "quick"])
    assert "--bound-time-limit applies with --bound" in cli_error(
        capsys, ["grid", "simulate", "--scenario", "jan", "--bound-time-limit", "5"])
    assert "--time-limit applies with --bound" in cli_error(
        capsys, ["timeshare", "simulate", "--scenario", "a", "--heuristic", "mct", "--time-limit", "5"])


def test_bound_options_written_with_their_default_value_are_refused(capsys):
    """Written on the command line counts as given, even with the default value (60 s)."""
    assert "--bound-time-limit applies with --bound" in cli_error(
        capsys, ["grid", "simulate", "--scenario", "jan", "--bound-time-limit", "60"])
    assert "--time-limit applies with --bound" in cli_error(
        capsys, ["timeshare", "simulate", "--scenario", "a", "--heuristic", "mct", "--time-limit=60"])


@pytest.mark.parametrize("argv,flag", [
    (["--method", "mcb8", "--time", "60"], "--time-limit applies to --method milp"),  # default value, abbreviated
    (["--method", "mcb8", "--time-l=60"], "--time-limit applies to --method milp"),
    (["--method", "lp", "--see", "0"], "--seed applies to --method certify"),
])
def test_abbreviated_options_count_as_given(sets, capsys, argv, flag):
    """argparse resolves a unique abbreviation to its option: it is given like the full flag."""
    vc, _ = sets
    assert flag in cli_error(capsys, ["vc", "solve", str(vc / "a.json")] + argv)


def test_an_exact_option_is_not_read_as_an_abbreviation_of_a_longer_one(sets, capsys):
    """``--seed`` is an option of its own, not an abbreviation of ``--seeds``: ``--seed 0`` with a
    method that takes a seed is accepted."""
    vc, _ = sets
    assert main(["vc", "solve", str(vc / "a.json"), "--method", "certify", "--seed", "0"]) == 0
