"""`vcsched grid simulate` options and outputs under bad use: output paths checked before the run,
no overwritten input, bounded reallocation period, --gantt through evalys, --jobs-layout, no RuntimeWarning."""

from __future__ import annotations

import json
import os
import warnings

import pandas as pd
import pytest

from vcsched.cli import main
from vcsched.problems.grid_limits import MAX_REALLOC_EVENTS

LINE = "{id} {submit} 0 {run} {procs} -1 -1 {procs} {req} -1 1 1 1 1 1 1 -1 -1"


def trace(tmp_path, jobs=((1, 0, 10, 2, 20), (2, 0, 5, 4, 5), (3, 1, 3, 1, -1)), name="t.swf"):
    path = tmp_path / name
    path.write_text("; MaxProcs: 4\n" + "".join(LINE.format(id=i, submit=s, run=r, procs=p, req=q) + "\n"
                                                 for i, s, r, p, q in jobs))
    return path


def error_line(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("target, message", [
    ("/nonexistent/x.json", "-o /nonexistent/x.json: folder /nonexistent does not exist"),
    ("DIR", "is a directory; give a file name"),
    ("TRACE", "is the input file"),
])
def test_bad_output_paths_are_refused_before_the_run(tmp_path, capsys, target, message):
    t = trace(tmp_path)
    before = t.read_bytes()
    target = {"DIR": str(tmp_path), "TRACE": str(t)}.get(target, target)
    assert message in error_line(capsys, ["grid", "simulate", "--trace", str(t), "-o", target])
    assert t.read_bytes() == before  # the input trace is never overwritten
    assert message.replace("-o", "--gantt", 1) in error_line(
        capsys, ["grid", "simulate", "--trace", str(t), "--gantt", target])


def test_trace_csv_named_as_output_is_not_overwritten(tmp_path, capsys):
    t = trace(tmp_path, name="trace.csv")
    before = t.read_bytes()
    err = error_line(capsys, ["grid", "simulate", "--trace", str(t), "-o", str(t)])
    assert f"-o {t}: is the input file" in err and t.read_bytes() == before


def test_platform_file_named_as_output_is_not_overwritten(tmp_path, capsys):
    t = trace(tmp_path)
    plat = tmp_path / "p.json"
    plat.write_text(json.dumps({"clusters": [{"name": "a", "procs": 4, "trace": str(t)}]}))
    before = plat.read_bytes()
    assert "is the input file" in error_line(capsys, ["grid", "simulate", "--platform", str(plat), "-o", str(plat)])
    assert plat.read_bytes() == before


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_write_failure_at_write_time_is_a_one_line_error(tmp_path, capsys):
    err = error_line(capsys, ["grid", "simulate", "--trace", str(trace(tmp_path)), "-o", "/dev/full"])
    assert "-o /dev/full: cannot write (No space left on device)" in err


def test_output_is_written_through_a_temporary_file(tmp_path, capsys):
    t = trace(tmp_path)
    out = tmp_path / "jobs.csv"
    out.write_text("old content")
    assert main(["grid", "simulate", "--trace", str(t), "-o", str(out)]) == 0
    assert pd.read_csv(out)["job_id"].tolist() == [1, 2, 3]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.csv", "t.swf"]  # no temporary left


def test_unknown_output_suffix_is_refused_before_the_run(tmp_path, capsys):
    t = trace(tmp_path)
    assert "unknown output format '.xlsx'" in error_line(capsys, ["grid", "simulate", "--trace", str(t), "-o",
                                                                   str(tmp_path / "j.xlsx")])
    assert "unknown figure format '.gif'" in error_line(capsys, ["grid", "simulate", "--trace", str(t), "--gantt",
                                                                  str(tmp_path / "g.gif")])


@pytest.mark.parametrize("argv, message", [
    (["--realloc", "cancel", "--period", "1e-9"], "argument --period: expected a number >= 1"),
    (["--period", "inf"], "argument --period: expected a number >= 1"),
    (["--procs", "1e300"], "argument --procs: expected an integer >= 1 and <= 10000000"),
    (["--speed", "inf"], "argument --speed: expected a number > 0 and <= 1e+06"),
    (["--days", "nan"], "argument --days: expected a number > 0 and <= 36500"),
    (["--start", "-1"], "argument --start: expected a number >= 0"),
])
def test_bad_numbers_are_refused_by_the_parser(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(["grid", "simulate", "--trace", str(trace(tmp_path))] + argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_reallocation_events_are_bounded_before_the_run(tmp_path, capsys):
    t = trace(tmp_path, jobs=((1, 0, 10, 2, 20), (2, 2_000_000, 10, 2, 20)))
    err = error_line(capsys, ["grid", "simulate", "--trace", str(t), "--realloc", "cancel", "--period", "1"])
    assert f"--period 1: the jobs are submitted over 2e+06 s, which would take more than {MAX_REALLOC_EVENTS:,}" in err
    assert "give --period 2 or more" in err
    assert main(["grid", "simulate", "--trace", str(t), "--realloc", "cancel", "--period", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["jobs"] == 2


def test_the_python_api_refuses_too_many_reallocation_events_with_the_cli_message(tmp_path):
    """The limit lives in ``Reallocation`` (the function it protects), so a Python run refuses it too."""
    from heuristics.grid.realloc import Reallocation
    from vcsched.errors import InvalidInputError
    from vcsched.scenarios.grid_build import build

    run = build(trace=str(trace(tmp_path, jobs=((1, 0, 10, 2, 20), (2, 2_000_000, 10, 2, 20)))))
    from vcsched.sim import simulate_grid

    with pytest.raises(InvalidInputError, match=r"--period 1: the jobs are submitted over 2e\+06 s"):
        simulate_grid(run.clusters, run.jobs, meta=Reallocation("cancel", "mct", period=1.0))


def test_scenario_seed_and_fractional_days(capsys):
    with pytest.raises(SystemExit):
        main(["grid", "simulate", "--scenario", "jan", "--days", "0.5", "--seed", "-1"])
    assert "argument --seed: expected an integer >= 0 and <= 9223372036854775807, got '-1'" in capsys.readouterr().err
    assert main(["grid", "simulate", "--scenario", "jan", "--days", "0.5", "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["jobs"] > 0


def test_empty_trace_says_it_is_empty(tmp_path, capsys):
    empty = tmp_path / "empty.swf"
    empty.write_text("; MaxProcs: 4\n")
    err = error_line(capsys, ["grid", "simulate", "--trace", str(empty)])
    assert "holds no job to simulate" in err and "time window" not in err
    err = error_line(capsys, ["grid", "simulate", "--trace", str(trace(tmp_path)), "--start", "50"])
    assert "no job left in" in err and "after the time window" in err


def test_jobs_layout_flag_writes_the_old_columns(tmp_path, capsys):
    t = trace(tmp_path)
    assert main(["grid", "simulate", "--trace", str(t), "-o", str(tmp_path / "old.csv"), "--jobs-layout",
                 "legacy"]) == 0
    df = pd.read_csv(tmp_path / "old.csv")
    assert list(df.columns[:3]) == ["jobID", "submission_time", "requested_number_of_processors"]
    assert "allocated_processors" in df and "allocated_resources" not in df
    assert "applies to the table written with -o" in error_line(
        capsys, ["grid", "simulate", "--trace", str(t), "--jobs-layout", "legacy"])


def test_gantt_is_drawn_by_evalys(tmp_path, capsys, monkeypatch):
    pytest.importorskip("evalys")
    import evalys.visu.legacy as legacy

    calls = []
    real = legacy.plot_gantt
    monkeypatch.setattr(legacy, "plot_gantt", lambda js, **kw: calls.append(len(js.df)) or real(js, **kw))
    t = trace(tmp_path)
    assert main(["grid", "simulate", "--trace", str(t), "--gantt", str(tmp_path / "g.png")]) == 0
    assert calls == [3]  # evalys drew the three jobs
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    zero = trace(tmp_path, jobs=((1, 0, 0, 2, 0),), name="zero.swf")
    err = error_line(capsys, ["grid", "simulate", "--trace", str(zero), "--gantt", str(tmp_path / "z.png")])
    assert f"--gantt {tmp_path / 'z.png'}: no job ran for a positive time" in err


def test_no_runtime_warning_reaches_the_user(tmp_path, capsys):
    zero = trace(tmp_path, jobs=((1, 0, 0, 2, 0), (2, 0, 0, 1, -1)), name="zero.swf")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for argv in (["--trace", str(zero), "-o", str(tmp_path / "z.csv"), "--json"],
                     ["--trace", str(trace(tmp_path)), "--realloc", "cancel", "--compare", "--json"]):
            assert main(["grid", "simulate"] + argv) == 0
    assert capsys.readouterr().err == ""


def test_gantt_and_table_cannot_share_a_file(tmp_path, capsys):
    same = str(tmp_path / "out.csv")
    assert "is also the -o output" in error_line(capsys, ["grid", "simulate", "--trace", str(trace(tmp_path)), "-o",
                                                         same, "--gantt", same])


def test_skipped_jobs_are_noted_once_even_with_compare(tmp_path, capsys):
    t = trace(tmp_path, jobs=((1, 0, 10, 2, 20), (2, 1, -1, 2, 20)))
    assert main(["grid", "simulate", "--trace", str(t), "--realloc", "cancel", "--compare", "--json"]) == 0
    assert capsys.readouterr().err == "vcsched: note: t.swf: skipped 1 job(s) (processors <= 0, run time < 0 or " \
                                      "malformed line)\n"


def test_a_trace_named_in_the_platform_is_not_overwritten(tmp_path, capsys):
    t = trace(tmp_path)
    before = t.read_bytes()
    plat = tmp_path / "p.json"
    plat.write_text(json.dumps({"clusters": [{"name": "a", "procs": 4, "trace": str(t)}]}))
    assert f"-o {t}: is the input file" in error_line(capsys, ["grid", "simulate", "--platform", str(plat), "-o",
                                                              str(t)])
    assert t.read_bytes() == before


def test_absurd_header_size_is_refused(tmp_path, capsys):
    t = tmp_path / "big.swf"
    t.write_text("; MaxProcs: 99999999999\n" + LINE.format(id=1, submit=0, run=1, procs=1, req=1) + "\n")
    assert "the header gives 99999999999 processors, more than the 10,000,000" in error_line(
        capsys, ["grid", "simulate", "--trace", str(t)])
    assert main(["grid", "simulate", "--trace", str(t), "--procs", "4", "--json"]) == 0
