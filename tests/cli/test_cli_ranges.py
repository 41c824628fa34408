"""Every numeric option has a documented range checked at parse time, the same as the Python
function's (issue 39, cause 2)."""

from __future__ import annotations

import pytest

from tests.conftest import cli_error
from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.problems.moldable import MoldableInstance

SEED_MAX = 2**63 - 1


@pytest.fixture
def moldable_file(tmp_path):
    from vcsched.problems.moldable import save_instance

    path = tmp_path / "m.json"
    save_instance(MoldableInstance.from_arrays(2, [[7, 6], [2, 1], [4, 4]], [5, 1, 4]), path)
    return path


@pytest.mark.parametrize("grain", ["1e300", "1e-300", "5e-324", "1e13", "-1", "nan"])
def test_grain_outside_the_range_of_times_is_refused_at_parse_time(moldable_file, capsys, grain):
    err = cli_error(capsys, ["moldable", "solve", str(moldable_file), "--method", "exact", "--grain", grain])
    assert "argument --grain: expected a number in [1e-09, 1e+12] or 'auto'" in err


@pytest.mark.parametrize("grain", [1e300, 1e-300, 5e-324, "fine", True])
def test_the_python_method_refuses_the_same_grains(grain):
    from heuristics.moldable.methods import solve

    inst = MoldableInstance.from_arrays(2, [[7, 6], [2, 1], [4, 4]], [5, 1, 4])
    with pytest.raises(InvalidInputError, match="grain must be a number in"):
        solve(inst, "exact", grain=grain)


def test_a_grain_longer_than_a_time_is_not_an_exact_grain_and_the_bracket_is_valid(moldable_file, capsys):
    from vcsched.formulations.moldable_milp import time_grain_ok

    inst = MoldableInstance.from_arrays(2, [[7, 6], [2, 1], [4, 4]], [5, 1, 4])
    assert not time_grain_ok(inst, 1e12) and time_grain_ok(inst, 1.0)
    assert main(["moldable", "solve", str(moldable_file), "--method", "exact", "--grain", "1e12", "--json"]) == 0
    assert '"status": "optimal"' in capsys.readouterr().out


def test_range_constants_agree_with_the_python_functions():
    from vcsched.arguments import SEED_MAX as ARG_SEED_MAX
    from vcsched.cli.moldable import GRAIN_RANGE
    from vcsched.problems.moldable import MAX_VALUE, MIN_VALUE

    assert GRAIN_RANGE == (MIN_VALUE, MAX_VALUE) and ARG_SEED_MAX == SEED_MAX


@pytest.mark.parametrize("argv", [
    ["--seeds", f"{SEED_MAX}-{SEED_MAX + 1}"], ["--seeds", str(SEED_MAX + 1)], ["--seed", str(SEED_MAX), "--repeat", "2"],
])
def test_seeds_above_the_seed_range_are_refused(capsys, argv):
    err = cli_error(capsys, ["vc", "adapt", "--hosts", "2", "--arrival-rate", "1", "--mean-lifetime", "1",
                             "--duration", "2", "--policy", "none", "--budget", "0"] + argv)
    assert "largest seed" in err


def test_parse_seeds_refuses_a_seed_above_the_range():
    from vcsched.stats import parse_seeds

    assert parse_seeds(f"{SEED_MAX - 1}-{SEED_MAX}") == [SEED_MAX - 1, SEED_MAX]
    with pytest.raises(InvalidInputError, match="largest seed"):
        parse_seeds(str(SEED_MAX + 1))


@pytest.mark.parametrize("argv", [["grid", "simulate", "--scenario", "jan", "--seed", str(SEED_MAX + 1)],
                                  ["bench", "run", "vc-small", "--seed", str(SEED_MAX + 1)]])
def test_every_seed_option_has_the_seed_range(capsys, argv):
    assert "argument --seed" in cli_error(capsys, argv)


def test_diet_bound_time_limit_zero_is_refused_by_cli_and_function(capsys):
    from lowerbounds.diet import diet_bounds

    assert "argument --time-limit: expected a number > 0 and <= 86400" in cli_error(
        capsys, ["diet", "bound", "--experiment", "add-seds", "--time-limit", "0"])
    with pytest.raises(InvalidInputError, match="time_limit must be a number > 0"):
        diet_bounds(None, time_limit=0)
