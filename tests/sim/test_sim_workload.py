"""SWF reading/writing, the job model, time windows and shifts."""

from __future__ import annotations

import gzip
import logging

import numpy as np
import pytest

from vcsched.errors import InvalidInputError
from vcsched.problems.workload import from_arrays, read_swf, shift_to_origin, time_window, write_swf

HEADER = """; Version: 2.2
; Computer: test
; MaxNodes: 64 (batch partition; 128 total)
; MaxProcs: 64
;
"""
#        id submit wait run alloc cpu mem reqp reqt reqm st u g e q p prec think
LINES = """1 0 5 100 8 -1 -1 16 200 -1 1 1 1 1 1 1 -1 -1
2 10 -1 300 4 -1 -1 -1 100 -1 1 1 1 1 1 1 -1 -1
3 20 -1 50 2 -1 -1 2 -1 -1 1 1 1 1 1 1 -1 -1
4 30 -1 50 0 -1 -1 -1 60 -1 0 1 1 1 1 1 -1 -1
5 40 -1 -1 4 -1 -1 4 60 -1 0 1 1 1 1 1 -1 -1
6 5 -1 7 1 -1 -1 1 0 -1 1 1 1 1 1 1 -1 -1
"""


@pytest.fixture
def swf(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(HEADER + LINES)
    return path


def test_job_model_and_skipped_jobs(swf, caplog):
    with caplog.at_level(logging.INFO, logger="vcsched.workload"):
        w = read_swf(swf)
    assert "skipped 2 job(s)" in caplog.text
    assert w.skipped == 2 and len(w) == 4
    assert w.job_id.tolist() == [1, 6, 2, 3]  # sorted by submit time
    assert w.processors.tolist() == [16, 1, 4, 2]  # field 8 when positive, else field 5
    assert w.requested_time.tolist() == [200, 0, 100, 50]  # -1 -> run time
    assert w.effective_run_time.tolist() == [100, 0, 100, 50]  # killed at the walltime
    assert w.max_procs == 64 and w.max_nodes == 64 and w.machine_size == 64


def test_gzip_and_roundtrip(swf, tmp_path):
    w = read_swf(swf)
    out = tmp_path / "copy.swf.gz"
    write_swf(w, out)
    with gzip.open(out, "rt") as fh:
        text = fh.read()
    assert "; MaxProcs: 64" in text
    again = read_swf(out)
    np.testing.assert_array_equal(again.fields, w.fields)
    assert again.max_procs == 64 and again.header == w.header


def test_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.swf"
    path.write_text(HEADER + LINES.replace("3 20 -1 50 2", "3 20 -1 x 2"))
    with pytest.raises(InvalidInputError, match=r"bad\.swf:8: malformed SWF line.*skip_bad_lines"):
        read_swf(path)
    path.write_text(HEADER + "1 2 3\n" + LINES)
    with pytest.raises(InvalidInputError, match=r"bad\.swf:6: malformed SWF line \(expected 18 numeric fields, got 3"):
        read_swf(path)


def test_skip_bad_lines_counts_them(tmp_path, caplog):
    path = tmp_path / "bad.swf"
    path.write_text(HEADER + "1 2 3\n" + LINES)
    with caplog.at_level(logging.WARNING, logger="vcsched.workload"):
        w = read_swf(path, skip_bad_lines=True)
    assert len(w) == 4 and w.skipped == 3 and "skipped 1 malformed line" in caplog.text


def test_missing_file_is_invalid_input(tmp_path):
    with pytest.raises(InvalidInputError, match="file not found"):
        read_swf(tmp_path / "nope.swf")


def test_time_window_and_shift():
    w = from_arrays(np.arange(0, 10 * 86400, 86400.0), np.ones(10), np.ones(10), np.ones(10))
    assert len(time_window(w, days=3)) == 3
    win = time_window(w, start=2 * 86400, end=5 * 86400)
    assert win.submit_time.tolist() == [2 * 86400, 3 * 86400, 4 * 86400]
    shifted = shift_to_origin(win, 100.0)
    assert shifted.submit_time.tolist() == [100.0, 86500.0, 172900.0]
    assert win.submit_time[0] == 2 * 86400  # not mutated
    with pytest.raises(InvalidInputError, match="either end or days"):
        time_window(w, end=5.0, days=1)


@pytest.mark.parametrize("perm", [[0, 1, 2, 3], [1, 0, 3, 2], [3, 2, 1, 0]])
@pytest.mark.parametrize("submit", [[0, 5, 5, 9], [3, 3, 3, 3]])
def test_job_table_in_submission_order_stable(submit, perm):
    """One workload, its lines sorted or not: the job table is in submission order, ties in file order."""
    import dataclasses

    from vcsched.sim import JobTable

    w = from_arrays(submit, [1, 2, 3, 4], [10, 10, 10, 10], [1, 2, 3, 4])
    w = dataclasses.replace(w, fields=w.fields[perm])  # lines in another order
    t = JobTable.from_workloads([w])
    order = np.argsort(w.fields[:, 1], kind="stable")
    assert t.submit.tolist() == w.fields[order, 1].tolist()
    assert t.job_id.tolist() == w.job_id[order].tolist() and t.procs.tolist() == w.processors[order].tolist()
