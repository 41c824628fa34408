"""A simulated policy's fields beside a metric's bracket (``lowerbounds.reference.beside``), the one rule the
batch, time-shared and DIET ``simulate --bound`` rows share; and a ``bound`` command's table row (``Bracket.row``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lowerbounds.reference import Bracket, Side, beside, beside_columns


def _bracket(lower, upper, maximise=False):
    lo = Side(lower, "lower method", 1.0)
    up = None if upper is None else Side(upper, "upper method", 2.0)
    return Bracket("m", lo, up, maximise=maximise)


def test_a_metric_to_minimise_is_divided_by_its_lower_end_and_found_at_its_upper_end():
    fields = beside(30.0, _bracket(10.0, 20.0))
    assert fields == {"bound": 10.0, "ratio_to_bound": 3.0, "upper": 20.0, "ratio_to_opt": [1.5, 3.0]}


def test_a_metric_to_maximise_takes_its_bound_at_the_upper_end_and_the_best_found_at_the_lower_end():
    fields = beside(6.0, _bracket(8.0, 12.0, maximise=True))
    assert fields["bound"] == 12.0 and fields["upper"] == 8.0
    assert fields["ratio_to_bound"] == pytest.approx(0.5)
    assert fields["ratio_to_opt"] == pytest.approx([0.5, 0.75])


def test_a_given_bound_replaces_the_proven_end_for_the_ratio_to_bound_only():
    fields = beside(30.0, _bracket(12.0, 20.0), bound=10.0)
    assert fields["bound"] == 10.0 and fields["ratio_to_bound"] == 3.0
    assert fields["ratio_to_opt"] == [1.5, 2.5]


@pytest.mark.parametrize("value, comparable", [(None, True), (30.0, False)])
def test_no_ratio_for_an_unknown_value_or_a_run_that_is_not_comparable(value, comparable):
    fields = beside(value, _bracket(10.0, 20.0), comparable=comparable)
    assert fields["ratio_to_bound"] is None and fields["ratio_to_opt"] is None
    assert fields["bound"] == 10.0 and fields["upper"] == 20.0


def test_a_bound_of_zero_gives_no_ratio_to_bound_and_no_upper_end_of_the_interval():
    fields = beside(5.0, _bracket(0.0, 20.0))
    assert fields["ratio_to_bound"] is None and fields["ratio_to_opt"] == [0.25, None]
    assert beside(5.0, _bracket(4.0, None))["ratio_to_opt"] == [None, 1.25]


def test_the_row_columns_are_the_fields_prefixed_with_the_interval_ends():
    row = beside_columns("sumflow", 30.0, _bracket(10.0, 20.0))
    assert row == {"sumflow_bound": 10.0, "sumflow_ratio_to_bound": 3.0, "sumflow_upper": 20.0,
                   "sumflow_ratio_to_opt": [1.5, 3.0], "sumflow_opt_ratio_low": 1.5, "sumflow_opt_ratio_high": 3.0}
    empty = beside_columns("sumflow", None, _bracket(10.0, 20.0))
    assert empty["sumflow_opt_ratio_low"] is None and empty["sumflow_opt_ratio_high"] is None


@given(lower=st.floats(0.01, 1e6), width=st.floats(1.0, 100.0), where=st.floats(0.0, 1.0),
       value=st.floats(0.01, 1e7), maximise=st.booleans())
def test_the_ratio_to_the_optimum_lies_in_the_interval(lower, width, where, value, maximise):
    upper = lower * width
    optimum = lower + where * (upper - lower)
    lo, hi = beside(value, _bracket(lower, upper, maximise))["ratio_to_opt"]
    assert lo * (1 - 1e-12) <= value / optimum <= hi * (1 + 1e-12)


def test_a_bound_commands_row_gives_both_ends_the_width_and_the_seconds_of_both_sides():
    from lowerbounds.reference import BRACKET_COLUMNS

    row = _bracket(10.0, 20.0).row()
    assert tuple(row) == BRACKET_COLUMNS
    assert row == {"metric": "m", "lower": 10.0, "upper": 20.0, "upper/lower": 2.0, "status": "bracketed",
                   "lower method": "lower method", "upper method": "upper method", "seconds": 3.0}
    alone = _bracket(10.0, None).row()
    assert alone["upper"] is None and alone["upper/lower"] is None and alone["upper method"] is None
    assert alone["status"] == "bound" and alone["seconds"] == 1.0
