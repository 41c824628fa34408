"""Fuzzing the command line's option parsing (issue 39): any text given to any option of any
command either parses or is refused with exit status 2 and one line on standard error (argparse's
usage error through ``OneLineParser``), never another exception; ``--seeds`` text too."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.test_fuzz_readers import DEADLINE, SLOW_EXAMPLES, bounded
from vcsched.cli import build_parser, groups_for
from vcsched.errors import InvalidInputError


def _typed_options() -> list[tuple[list[str], str]]:
    """``(command words, option)`` for every option of every command that takes a value."""
    out = []

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, words + [name])
            elif action.option_strings and action.nargs != 0 and action.option_strings[-1] != "--help":
                out.append((words, action.option_strings[-1]))

    walk(build_parser(), [])
    return out


OPTIONS = _typed_options()
OPTION_EXAMPLES = 400
SEED_EXAMPLES = 200
"""Examples in the default suite (each parse builds only the named group's parser, as ``main`` does: cheap)."""
texts = (st.text(max_size=30) | st.sampled_from(["1e300", "-1e300", "5e-324", "nan", "inf", "-0", "0x10", "1_000",
                                                  "9223372036854775808", "１２", "1e-300", "auto", " 3 ", "3.0"])
         | st.integers(-2**70, 2**70).map(str) | st.floats().map(repr))


def parse_one_line(argv: list[str]) -> None:
    err = io.StringIO()
    with bounded(), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser(groups_for(argv)).parse_args(argv)  # as main() parses: the named group's parser only
        except SystemExit as exc:
            assert exc.code == 2, (argv, exc.code)
            text = err.getvalue()
            assert text.count("\n") == 1 and text.endswith("\n") and "Traceback" not in text, (argv, text)


def fuzz_options(examples: int) -> None:
    @settings(max_examples=examples, deadline=DEADLINE, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(OPTIONS), texts)
    def check(option, text):
        words, flag = option
        if text.startswith("-"):  # argparse reads "-x" as an option: give it as --opt=-x
            parse_one_line(words + [f"{flag}={text}"])
        else:
            parse_one_line(words + [flag, text])

    check()


def fuzz_seeds(examples: int) -> None:
    from vcsched.stats import SEED_MAX, parse_seeds

    @settings(max_examples=examples, deadline=DEADLINE, database=None)
    @given(st.text(alphabet="0123456789-, x", max_size=40) | texts)
    def check(text):
        with bounded():
            try:
                seeds = parse_seeds(text)
            except InvalidInputError as exc:
                assert "\n" not in str(exc)
                return
        assert seeds and all(0 <= s <= SEED_MAX for s in seeds) and len(seeds) <= 10_000

    check()


def test_options_count():
    assert len(OPTIONS) > 100  # every command's options are reached


def test_fuzz_options():
    fuzz_options(OPTION_EXAMPLES)


def test_fuzz_seeds():
    fuzz_seeds(SEED_EXAMPLES)


@pytest.mark.slow
def test_fuzz_options_slow():
    fuzz_options(SLOW_EXAMPLES)


@pytest.mark.slow
def test_fuzz_seeds_slow():
    fuzz_seeds(SLOW_EXAMPLES)
