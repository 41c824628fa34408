"""Trace and platform files of `vcsched grid`: SWF field validation, Batsim JSON workloads, platform JSON.
Every bad input is one line naming the file (line, cluster) and the field, exit status 2."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.problems.workload import from_arrays, read_batsim_json, read_swf, read_workload, write_swf
from vcsched.scenarios.platform import load_platform

GOOD = "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1"


def swf(tmp_path, *lines, name="t.swf"):
    path = tmp_path / name
    path.write_text("; MaxProcs: 8\n" + "\n".join((GOOD,) + lines) + "\n")
    return path


def one_error_line(capsys, argv) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    return captured.err


# ----------------------------------------------------------------------------------------- SWF fields
@pytest.mark.parametrize("line, field, rule", [
    ("2 nan 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1", "field 2 (submit_time)", "must be a finite number, got nan"),
    ("2 inf 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1", "field 2 (submit_time)", "must be a finite number, got inf"),
    ("2 -5 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1", "field 2 (submit_time)", "must be in [0, 1e+12] seconds, got -5"),
    ("2 5 0 nan 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1", "field 4 (run_time)", "must be a finite number, got nan"),
    ("2 5 0 inf 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1", "field 4 (run_time)", "must be a finite number, got inf"),
    ("2 5 0 10 2 -1 -1 1e300 20 -1 1 1 1 1 1 1 -1 -1", "field 8 (requested_processors)",
     "must be an integer <= 1e+09, got 1e+300"),
    ("2 5 0 10 2 -1 -1 2.5 20 -1 1 1 1 1 1 1 -1 -1", "field 8 (requested_processors)",
     "must be an integer <= 1e+09, got 2.5"),
    ("2 5 0 10 2.5 -1 -1 -1 20 -1 1 1 1 1 1 1 -1 -1", "field 5 (allocated_processors)",
     "must be an integer <= 1e+09, got 2.5"),
    ("2 5 0 10 2 -1 -1 2 -7 -1 1 1 1 1 1 1 -1 -1", "field 9 (requested_time)",
     "must be -1 (unknown) or in [0, 1e+12] seconds, got -7"),
    ("2.5 5 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1", "field 1 (job_id)", "must be an integer"),
    ("2 5 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 nan -1 -1", "field 16 (partition)", "must be a finite number, got nan"),
])
def test_bad_swf_field_names_file_line_and_field(tmp_path, capsys, line, field, rule):
    path = swf(tmp_path, line)
    with pytest.raises(InvalidInputError) as exc:
        read_swf(path)
    assert str(exc.value).startswith(f"{path}:3: {field} {rule}")
    assert "--skip-bad-lines" in str(exc.value)
    err = one_error_line(capsys, ["grid", "simulate", "--trace", str(path), "--procs", "8"])
    assert f"{path}:3: {field} {rule}" in err
    # with --skip-bad-lines the line is dropped and counted, the good job is simulated
    w = read_swf(path, skip_bad_lines=True)
    assert len(w) == 1 and w.skipped == 1 and w.job_id.tolist() == [1]
    assert main(["grid", "simulate", "--trace", str(path), "--procs", "8", "--skip-bad-lines", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["overall"]["jobs"] == 1 and "skipped 1 job(s)" in out.err


def test_bad_values_and_malformed_lines_together_on_the_slow_path(tmp_path):
    path = swf(tmp_path, "garbage", "3 nan 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1")
    with pytest.raises(InvalidInputError, match=r"t.swf:3: malformed SWF line"):
        read_swf(path)
    w = read_swf(path, skip_bad_lines=True)  # both dropped and counted, the good job kept
    assert w.skipped == 2 and w.job_id.tolist() == [1]


def test_from_arrays_refuses_non_finite_and_fractional_values():
    with pytest.raises(InvalidInputError, match=r"arrays: job 1: field 2 \(submit_time\) must be a finite number"):
        from_arrays([0, np.nan], [1, 1], [1, 1], [1, 1])
    with pytest.raises(InvalidInputError, match=r"job 0: field 5 \(allocated_processors\) must be an integer"):
        from_arrays([0], [1], [1], [2.5])


def test_corrupted_and_truncated_gz_are_one_line_errors(tmp_path, capsys):
    data = gzip.compress(("; MaxProcs: 8\n" + (GOOD + "\n") * 2000).encode())
    corrupted = tmp_path / "bad.swf.gz"
    corrupted.write_bytes(data[:40] + bytes(b ^ 0x5A for b in data[40:80]) + data[80:])
    truncated = tmp_path / "short.swf.gz"
    truncated.write_bytes(data[: len(data) // 2])
    for path in (corrupted, truncated):
        with pytest.raises(InvalidInputError, match=f"{path}: cannot be read"):
            read_swf(path)
        assert "cannot be read" in one_error_line(capsys, ["grid", "simulate", "--trace", str(path), "--procs", "8"])


def test_written_swf_reads_back_with_the_same_fields(tmp_path):
    w = from_arrays([0, 5, 9], [10, 3, 0], [20, -1, 5], [2, 4, 1])
    write_swf(w, tmp_path / "w.swf")
    again = read_swf(tmp_path / "w.swf")
    np.testing.assert_array_equal(again.fields, w.fields)


# ----------------------------------------------------------------------------------------- Batsim JSON
def batsim(tmp_path, jobs=None, profiles=None, name="w.json", **top):
    spec = {"nb_res": 4,
            "jobs": jobs if jobs is not None else [
                {"id": 1, "subtime": 0, "res": 2, "walltime": 100, "profile": "p10"},
                {"id": 2, "subtime": 0, "res": 4, "walltime": 5, "profile": "p10"},
                {"id": "3", "subtime": 1, "res": 1, "profile": "p3"}],
            "profiles": profiles if profiles is not None else {"p10": {"type": "delay", "delay": 10},
                                                               "p3": {"type": "delay", "delay": 3}},
            **top}
    path = tmp_path / name
    path.write_text(json.dumps(spec))
    return path


def test_batsim_json_workload_reads_as_swf_columns(tmp_path):
    w = read_batsim_json(batsim(tmp_path, description="three jobs", command="", date="today"))
    assert w.job_id.tolist() == [1, 2, 3] and w.submit_time.tolist() == [0, 0, 1]
    assert w.processors.tolist() == [2, 4, 1] and w.run_time.tolist() == [10, 10, 3]
    assert w.requested_time.tolist() == [100, 5, 3]  # no walltime: the run time, as SWF's -1
    assert w.effective_run_time.tolist() == [10, 5, 3]  # killed at its walltime
    assert w.machine_size == 4
    assert read_workload(batsim(tmp_path)).fields.tolist() == w.fields.tolist()


def test_batsim_json_round_trips_through_grid_simulate(tmp_path, capsys):
    """Batsim JSON in, Batsim jobs.csv out: ids, submit times, widths and run times come back, and the
    schedule is the one of the same jobs given as SWF."""
    import pandas as pd

    path = batsim(tmp_path)
    assert main(["grid", "simulate", "--trace", str(path), "--policy", "fcfs", "-o", str(tmp_path / "j.csv")]) == 0
    df = pd.read_csv(tmp_path / "j.csv", dtype={"job_id": str})
    assert df["job_id"].tolist() == ["1", "2", "3"] and set(df["workload_name"]) == {"w"}
    assert df["submission_time"].tolist() == [0, 0, 1]
    assert df["requested_number_of_resources"].tolist() == [2, 4, 1]
    assert df["execution_time"].tolist() == [10, 5, 3]
    # FCFS on 4 processors: 1 at 0-10, 2 (4 wide) waits for it 10-15, 3 waits behind 2: 15-18
    assert df["starting_time"].tolist() == [0, 10, 15] and df["allocated_resources"].tolist() == ["0-1", "0-3", "0"]
    write_swf(read_batsim_json(path), tmp_path / "w.swf")
    assert main(["grid", "simulate", "--trace", str(tmp_path / "w.swf"), "-o", str(tmp_path / "s.csv")]) == 0
    swf_df = pd.read_csv(tmp_path / "s.csv", dtype={"job_id": str})
    cols = ["job_id", "starting_time", "finish_time", "allocated_resources"]
    pd.testing.assert_frame_equal(df[cols], swf_df[cols])


@pytest.mark.parametrize("change, message", [
    (dict(profiles={"p10": {"type": "parallel", "cpu": [1], "com": [0]}, "p3": {"type": "delay", "delay": 3}}),
     "w.json: profiles['p10']: profile type 'parallel' is not simulated by vcsched; only delay profiles ('delay' or 'DelayProfile'"),
    (dict(profiles={"p10": {"type": "delay", "dealy": 10}, "p3": {"type": "delay", "delay": 3}}),
     "w.json: profiles['p10']: unknown field 'dealy' (did you mean 'delay'?)"),
    (dict(jobs=[{"id": 1, "subtiem": 0, "res": 1, "profile": "p3"}]),
     "w.json: jobs[0]: unknown field 'subtiem' (did you mean 'subtime'?)"),
    (dict(jobs=[{"id": 1, "subtime": 0, "res": 1, "profile": "nope"}]),
     "w.json: jobs[0]: profile 'nope' is not defined in 'profiles'"),
    (dict(jobs=[{"id": 1, "subtime": 0, "res": 2.5, "profile": "p3"}]),
     "w.json: jobs[0]: field 'res' must be an integer, got 2.5"),
    (dict(jobs=[{"id": 1, "subtime": -1, "res": 1, "profile": "p3"}]),
     "w.json: jobs[0]: field 'subtime' must be >= 0"),
    (dict(jobs=[{"id": 1, "subtime": 0, "res": 1, "walltime": -5, "profile": "p3"}]),
     "w.json: jobs[0]: field 'walltime' must be -1 (none) or >= 0"),
    (dict(jobs=[{"id": "a7", "subtime": 0, "res": 1, "profile": "p3"}]),
     "w.json: jobs[0]: field 'id' must be an integer (or a string of one)"),
    (dict(nb_res=0), "w.json: field 'nb_res' must be >= 1"),
    (dict(nb_ress=4), "w.json: unknown field 'nb_ress' (did you mean 'nb_res'?)"),
])
def test_bad_batsim_workloads_are_one_line_errors(tmp_path, capsys, change, message):
    path = batsim(tmp_path, **change)
    with pytest.raises(InvalidInputError) as exc:
        read_batsim_json(path)
    assert message in str(exc.value)
    assert message in one_error_line(capsys, ["grid", "simulate", "--trace", str(path)])


def test_batsim_json_with_infinity_or_utf16_is_refused(tmp_path):
    path = tmp_path / "inf.json"
    path.write_text('{"nb_res": 4, "jobs": [], "profiles": {"p": {"type": "delay", "delay": Infinity}}}')
    with pytest.raises(InvalidInputError, match="inf.json: Infinity is not allowed"):
        read_batsim_json(path)
    utf16 = tmp_path / "u.json"
    utf16.write_text(json.dumps({"nb_res": 4, "jobs": [], "profiles": {}}), encoding="utf-16")
    with pytest.raises(InvalidInputError, match="u.json: not a UTF-8 text file"):
        read_batsim_json(utf16)


# ----------------------------------------------------------------------------------------- platform JSON
def platform(tmp_path, clusters, **top):
    trace = swf(tmp_path, "2 5 0 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1")
    for c in clusters:
        c.setdefault("trace", str(trace)) if c.pop("_trace", True) else None
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"clusters": clusters, **top}).replace('"INF"', "Infinity"))
    return path


@pytest.mark.parametrize("cluster, top, message", [
    ({"name": "a", "procs": 8, "speed": "INF"}, {}, "p.json: Infinity is not allowed"),
    ({"name": "a", "procs": "INF"}, {}, "p.json: Infinity is not allowed"),
    ({"name": "a", "procs": 8, "speed": 1e308}, {}, "p.json: clusters[0] (a): field 'speed' must be > 0 and <= 1e+06"),
    ({"name": "a", "procs": 8, "speed": 0}, {}, "p.json: clusters[0] (a): field 'speed' must be > 0"),
    ({"name": "a", "procs": 1e300}, {}, "p.json: clusters[0] (a): field 'procs' must be >= 1 and <= 1e+07"),
    ({"name": "a", "procs": 2.5}, {}, "p.json: clusters[0] (a): field 'procs' must be an integer, got 2.5"),
    ({"name": "a", "procs": 8, "days": "abc"}, {}, "p.json: clusters[0] (a): field 'days' must be a number, got 'abc'"),
    ({"name": "a", "procz": 8}, {}, "p.json: clusters[0] (a): unknown field 'procz' (did you mean 'procs'?)"),
    ({"name": "a", "procs": 8, "sped": 2}, {}, "p.json: clusters[0] (a): unknown field 'sped' (did you mean 'speed'?)"),
    ({"name": "a", "procs": 8}, {"metaa": "mct"}, "p.json: unknown field 'metaa' (did you mean 'meta'?)"),
    ({"name": "a", "procs": 8, "policy": "lifo"}, {}, "p.json: cluster 'a': unknown batch policy 'lifo'"),
    ({"name": "a", "procs": 8, "days": 1, "end": 5}, {}, "p.json: clusters[0] (a): give either 'end' or 'days'"),
    ({"name": "a", "procs": 8, "trace": "no-such.swf"}, {}, "p.json: clusters[0] (a): trace 'no-such.swf' not found"),
    ({"name": "a", "procs": 8, "_trace": False}, {}, "p.json: no cluster has a \"trace\""),
])
def test_bad_platform_files_name_file_cluster_and_field(tmp_path, capsys, cluster, top, message):
    path = platform(tmp_path, [cluster], **top)
    with pytest.raises(InvalidInputError) as exc:
        load_platform(path)
    assert message in str(exc.value) and str(exc.value).startswith(str(path))
    assert message in one_error_line(capsys, ["grid", "simulate", "--platform", str(path)])


def test_duplicate_cluster_names_are_refused(tmp_path):
    path = platform(tmp_path, [{"name": "a", "procs": 8}, {"name": "a", "procs": 4}])
    with pytest.raises(InvalidInputError, match=r"clusters\[1\] \(a\): the name 'a' is used by another cluster"):
        load_platform(path)


@pytest.mark.parametrize("kind, message", [
    ("dir", "is a directory"), ("binary", "not a UTF-8 text file"), ("utf16", "not a UTF-8 text file"),
    ("missing", "file not found"), ("malformed", "malformed JSON at line 1"),
])
def test_unreadable_platform_files(tmp_path, capsys, kind, message):
    path = tmp_path / "plat.json"
    if kind == "dir":
        path.mkdir()
    elif kind == "binary":
        path.write_bytes(bytes(range(256)))
    elif kind == "utf16":
        path.write_text(json.dumps({"clusters": [{"procs": 8}]}), encoding="utf-16")
    elif kind == "malformed":
        path.write_text('{"clusters": [')
    err = one_error_line(capsys, ["grid", "simulate", "--platform", str(path)])
    assert f"vcsched: error: {path}: {message}" in err


def test_good_platform_reads_clusters_windows_and_meta(tmp_path):
    path = platform(tmp_path, [{"name": "a", "procs": 8, "speed": 1.5, "policy": "easy", "start": 5},
                               {"name": "b", "procs": 4, "_trace": False}], meta="none")
    clusters, workloads, origins, labels, meta = load_platform(path)
    assert [c.name for c in clusters] == ["a", "b"] and clusters[0].speed == 1.5 and clusters[1].procs == 4
    assert origins == [0] and labels == ["a"] and meta == "none"
    assert workloads[0].job_id.tolist() == [2]  # the window starts at 5


def test_platform_cluster_may_take_a_batsim_workload(tmp_path, capsys):
    w = batsim(tmp_path)
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"clusters": [{"name": "bat", "procs": 4, "trace": str(w)},
                                             {"name": "other", "procs": 4, "trace": str(swf(tmp_path))}]}))
    clusters, workloads, origins, labels, meta = load_platform(path)
    assert labels == ["bat", "other"] and workloads[0].run_time.tolist() == [10, 10, 3]
    assert main(["grid", "simulate", "--platform", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["jobs"] == 4
