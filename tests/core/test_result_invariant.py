"""A result reported ``optimal`` has its objective within OPTIMAL_GAP of its bound, by construction."""

import pytest

from vcsched.errors import InternalError, VcschedError
from vcsched.result import OPTIMAL_GAP, Result, Status


def test_optimal_far_from_its_bound_is_an_internal_error():
    with pytest.raises(InternalError, match="reported status optimal with objective 59.0 and bound 54.7"):
        Result("exact", Status.OPTIMAL, objective=59.0, bound=54.775)
    with pytest.raises(InternalError):  # maximisation: a bound far above the objective
        Result("milp", "optimal", objective=0.5, bound=0.6)
    ok = Result("exact", Status.OPTIMAL, objective=100.0, bound=100.0 * (1 - 0.5 * OPTIMAL_GAP))
    with pytest.raises(InternalError):  # replace() goes through the same check
        ok.replace(bound=90.0)
    assert issubclass(InternalError, VcschedError)


def test_other_statuses_and_missing_values_are_not_checked():
    assert Result("exact", Status.FEASIBLE, objective=59.0, bound=54.0).gap is None
    assert Result("lp", Status.OPTIMAL, objective=None, bound=0.4).bound == 0.4
    assert Result("exact", Status.OPTIMAL, objective=3.0).objective == 3.0
