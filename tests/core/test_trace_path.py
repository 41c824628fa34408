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
