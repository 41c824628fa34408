"""A trace given as a path that does not exist is reported as that path, not as missing from the traces folder."""

import pytest

from vcsched.data import trace_path
from vcsched.errors import InvalidInputError


def test_missing_path_names_the_path_and_a_bare_name_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("VCSCHED_TRACES", str(tmp_path))
    with pytest.raises(InvalidInputError, match=r"no such file .*nowhere.*give an existing path, or the bare file name"):
        trace_path("../nowhere/x.swf")
    with pytest.raises(InvalidInputError, match=f"'x.swf' not found in {tmp_path}"):
        trace_path("x.swf")
    (tmp_path / "x.swf").write_text("1 0 0 1 1 -1 -1 1 1 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    assert trace_path("x.swf") == tmp_path / "x.swf"


def test_a_short_name_stands_for_the_one_archive_file_it_begins(tmp_path, monkeypatch):
    monkeypatch.setenv("VCSCHED_TRACES", str(tmp_path))
    for name in ("CTC-SP2-1996-3.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz",
                 "lublin_256.swf.gz", "lublin_256_new2.swf.gz", "CTC-SP2-notes.txt"):
        (tmp_path / name).write_bytes(b"")
    assert trace_path("CTC-SP2") == tmp_path / "CTC-SP2-1996-3.1-cln.swf.gz"
    assert trace_path("lublin_256") == tmp_path / "lublin_256.swf.gz"
    assert trace_path("lublin_256_new2") == tmp_path / "lublin_256_new2.swf.gz"
    assert trace_path("SDSC-SP2") == tmp_path / "SDSC-SP2-1998-4.2-cln.swf.gz"
    with pytest.raises(InvalidInputError, match=r"'SDSC' is ambiguous .*SDSC-BLUE-2000-4.2-cln.swf.gz, "
                                                r"SDSC-SP2-1998-4.2-cln.swf.gz; give the file name"):
        trace_path("SDSC")
    assert trace_path("CTC") == tmp_path / "CTC-SP2-1996-3.1-cln.swf.gz"  # the one file of that machine
    with pytest.raises(InvalidInputError, match="'CTC-S' not found"):  # a prefix of a name's part is not a name
        trace_path("CTC-S")
