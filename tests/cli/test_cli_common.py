"""The shared CLI helpers: exact integer options, output writing, messages of huge numbers."""

from __future__ import annotations

import argparse
import io
import os
import sys

import pytest

from vcsched.cli.common import SEED_MAX, number_option, seed_option, write_output, write_stdout
from vcsched.errors import InvalidInputError
from vcsched.problems.jsonfile import int_field


def test_integer_options_keep_every_digit():
    parse = seed_option()
    assert parse("12345678901234567") == 12345678901234567  # float() would round it
    assert parse(str(SEED_MAX)) == SEED_MAX
    assert parse("7.0") == 7
    for bad in (str(SEED_MAX + 1), "-1", "1.5", "1e30", "nan"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected an integer >= 0"):
            parse(bad)
    assert number_option(int, low=-5, high=5)("-3") == -3


def test_int_field_messages_for_huge_values():
    with pytest.raises(InvalidInputError, match=r"got 1e\+308"):
        int_field({"hosts": 1e308}, "hosts", where="f.json", low=1, high=10)
    with pytest.raises(InvalidInputError, match="got an integer of 400 digits"):
        int_field({"hosts": int("9" * 400)}, "hosts", where="f.json", low=1, high=10)


def test_write_output_replaces_atomically_and_keeps_permissions(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    write_output(str(target), "new\n", option="-o")
    assert target.read_text() == "new\n"
    umask = os.umask(0)
    os.umask(umask)
    assert (target.stat().st_mode & 0o777) == (0o666 & ~umask)
    assert os.listdir(tmp_path) == ["out.json"]


def test_write_output_failure_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("old")

    def full(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(InvalidInputError, match=r"-o .*out.json: cannot write \(No space left on device\)"):
        write_output(str(target), "new", option="-o")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["out.json"]


def test_write_stdout_writes_everything_in_pieces(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buf)
    text = "".join(f"{i}\n" for i in range(50000))
    write_stdout(text, chunk=1000)
    assert buf.getvalue() == text
