"""The one JSON loader and the numeric option parser: every bad input is one clear error."""

import argparse
import math

import pytest

from vcsched.cli.common import check_output_path, number_option
from vcsched.errors import InvalidInputError
from vcsched.problems.jsonfile import check_keys, int_field, load_json, number_field


def test_load_json_reads_a_document(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"hosts": 2, "jobs": [1.5]}', encoding="utf-8")
    assert load_json(p) == {"hosts": 2, "jobs": [1.5]}


@pytest.mark.parametrize("content, message", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not a UTF-8 text file"),
    ('{"hosts": 2}'.encode("utf-16"), "not a UTF-8 text file"),
    (b'{"hosts": 2,', "malformed JSON at line 1"),
    (b'{"hosts": NaN}', "NaN is not allowed"),
    (b'{"speed": Infinity}', "Infinity is not allowed"),
    (b'{"hosts": ' + b"9" * 5000 + b"}", "must be finite and of reasonable size"),
    (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
])
def test_load_json_refuses_bad_files(tmp_path, content, message):
    p = tmp_path / "bad.json"
    p.write_bytes(content)
    with pytest.raises(InvalidInputError, match=message) as info:
        load_json(p, what="VCSched instance")
    assert str(info.value).startswith(str(p))
    assert "\n" not in str(info.value)


def test_load_json_refuses_missing_files_and_directories(tmp_path):
    with pytest.raises(InvalidInputError, match="file not found"):
        load_json(tmp_path / "nope.json")
    with pytest.raises(InvalidInputError, match="is a directory"):
        load_json(tmp_path)


def test_check_keys_suggests_the_nearest_name():
    with pytest.raises(InvalidInputError, match=r"unknown field 'procz' \(did you mean 'procs'\?\)"):
        check_keys({"procz": 3}, ("name", "procs", "speed"), where="p.json: clusters[0]")
    check_keys({"procs": 3}, ("name", "procs", "speed"), where="p.json")  # known keys pass


@pytest.mark.parametrize("value", [math.inf, -1.0, 0.0, True, "abc", None, 10**400])
def test_number_field_refuses_out_of_range_and_non_numbers(value):
    with pytest.raises(InvalidInputError, match="field 'speed'"):
        number_field({"speed": value}, "speed", where="p.json", low=0, low_open=True, high=1e6)


def test_number_field_defaults_and_requirements():
    assert number_field({}, "speed", where="p", default=1.0) == 1.0
    with pytest.raises(InvalidInputError, match="is required"):
        number_field({}, "speed", where="p", required=True)


@pytest.mark.parametrize("value, ok", [(3, True), (3.0, True), (2.5, False), (1e300, False), (0, False), ("3", False)])
def test_int_field(value, ok):
    if ok:
        assert int_field({"procs": value}, "procs", where="p", low=1, high=10**7) == 3
    else:
        with pytest.raises(InvalidInputError, match="field 'procs'"):
            int_field({"procs": value}, "procs", where="p", low=1, high=10**7)


@pytest.mark.parametrize("text", ["nan", "inf", "-1", "1e308", "abc", "2.5"])
def test_number_option_refuses(text):
    parse = number_option(int, low=0, high=10**6)
    with pytest.raises(argparse.ArgumentTypeError, match="expected an integer >= 0 and <= 1000000"):
        parse(text)


def test_number_option_accepts_the_range():
    assert number_option(float, low=0, low_open=True, high=1)("1") == 1.0
    assert number_option(int, low=1)("4.0") == 4


def test_check_output_path(tmp_path):
    src = tmp_path / "trace.csv"
    src.write_text("x")
    check_output_path(str(tmp_path / "out.csv"), option="-o", inputs=[str(src)])
    with pytest.raises(InvalidInputError, match="is the input file"):
        check_output_path(str(src), option="-o", inputs=[str(src)])
    with pytest.raises(InvalidInputError, match="is a directory"):
        check_output_path(str(tmp_path), option="-o")
    with pytest.raises(InvalidInputError, match="does not exist"):
        check_output_path(str(tmp_path / "no" / "x.json"), option="-o")
