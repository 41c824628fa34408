"""``vcsched dfrs simulate`` / ``vcsched dfrs bound``: the JSON shape, the per-job table, seeds, one-line errors
with exit status 2, and no partial file after an interrupt."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from vcsched.cli import main

SWF_HEADER = "; MaxProcs: 8\n"


def _swf(tmp_path, lines):
    path = tmp_path / "t.swf"
    path.write_text(SWF_HEADER + "".join(f"{k + 1} {r} 0 {p} {q} -1 -1 {q} {p * 2} -1 1 1 1 1 1 -1 -1 -1\n"
                                         for k, (r, p, q) in enumerate(lines)))
    return str(path)


LINES = [(0, 100, 4), (10, 50, 8), (20, 300, 2), (30, 10, 1), (35, 600, 3), (40, 5, 8), (100, 1000, 6)]
POLICIES = "easy,fcfs,greedy,greedy-pmtn,greedy-pmtn-migr,mcb8-per,mcb8-per-stretch"
METRICS = {"max_stretch", "mean_stretch", "mean_bounded_stretch", "utilization", "makespan", "migrations", "pauses",
           "memory_moved"}


def test_json_shape_and_bound(tmp_path, capsys):
    trace = _swf(tmp_path, LINES)
    out = tmp_path / "jobs.csv"
    code = main(["dfrs", "simulate", "--trace", trace, "--policy", POLICIES, "--memory", "fixed:0.3", "--bound",
                 "--json", "--period", "60", "--hysteresis", "1", "-o", str(out)])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["jobs"] == len(LINES) and doc["hosts"] == 8 and doc["skipped"] == 0
    assert list(doc["policies"]) == POLICIES.split(",")
    bound = doc["bound"]["max_stretch"]
    assert set(bound) == {"value", "method", "seconds", "lower", "upper", "status"}
    assert bound["lower"]["value"] == bound["value"] and bound["lower"]["method"] == bound["method"]
    best = min(doc["policies"], key=lambda n: doc["policies"][n]["max_stretch"])
    assert bound["upper"]["value"] == doc["policies"][best]["max_stretch"]
    assert bound["upper"]["method"] == f"policy:{best}"
    assert bound["status"] in ("bracketed", "optimal")
    for m in doc["policies"].values():
        assert set(m) == METRICS | {"max_stretch_ratio_to_opt"}
        assert m["max_stretch"] >= bound["value"] - 1e-9
        lo, hi = m["max_stretch_ratio_to_opt"]
        assert lo >= 1.0 - 1e-12 and hi >= lo
    frame = pd.read_csv(out)
    assert list(frame.columns) == ["policy", "job_id", "submission_time", "starting_time", "finish_time",
                                   "execution_time", "stretch", "migrations", "pauses"]
    assert len(frame) == len(LINES) * 7
    assert (frame["finish_time"] >= frame["submission_time"] + frame["execution_time"] - 1e-6).all()
    for policy, rows in frame.groupby("policy"):  # the rows' stretch is the one the metrics take
        want = (rows["finish_time"] - rows["submission_time"]) / rows["execution_time"]
        assert rows["stretch"].to_numpy() == pytest.approx(want.to_numpy(), rel=1e-12)
        assert rows["stretch"].max() == pytest.approx(doc["policies"][policy]["max_stretch"], rel=1e-12)


def test_seeds_give_summaries(capsys):
    code = main(["dfrs", "simulate", "--workload", "lublin", "--jobs", "30", "--load", "0.5", "--hosts", "8",
                 "--policy", "easy,greedy", "--seeds", "1-3", "--json", "--bound"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    s = doc["policies"]["greedy"]["max_stretch"]
    assert set(s) == {"mean", "std", "ci95", "n"} and s["n"] == 3
    assert doc["bound"]["max_stretch"]["value"]["n"] == 3


def test_bound_command(tmp_path, capsys):
    trace = _swf(tmp_path, LINES)
    assert main(["dfrs", "bound", "--trace", trace, "--memory", "model", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["bound"]["max_stretch"]["value"] >= 1.0


@pytest.mark.parametrize("argv,needle", [
    (["--policy", "mcb8per"], "did you mean 'mcb8-per'"),
    (["--period", "0"], "argument --period"),
    (["--penalty", "-1"], "argument --penalty"),
    (["--hosts", "2"], "more than the platform's 2"),
    (["--memory", "fixed:2"], "--memory fixed:2"),
    (["--memory", "fixed:0.6", "--cores", "2", "--hosts", "4"], "do not fit in the memory"),
])
def test_bad_input_one_line(tmp_path, capsys, argv, needle):
    trace = _swf(tmp_path, LINES)
    with pytest.raises(SystemExit) as exc:
        code = main(["dfrs", "simulate", "--trace", trace, *argv])
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1


def test_skip_bad_lines_drops_wide_jobs(tmp_path, capsys):
    trace = _swf(tmp_path, LINES)
    assert main(["dfrs", "simulate", "--trace", trace, "--hosts", "4", "--skip-bad-lines", "--policy", "greedy",
                 "--json", "--memory", "fixed:0.1"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["jobs"] == len(LINES) - 3 and doc["skipped"] == 3
    assert captured.err == f"vcsched: note: {trace}: skipped 3 job(s) (wider than the platform's 4 processors, or " \
                           "malformed lines)\n"


def test_memory_trace_needs_host_memory(tmp_path, capsys):
    path = tmp_path / "m.swf"
    path.write_text(SWF_HEADER + "1 0 0 10 1 -1 5000 1 20 -1 1 1 1 1 1 -1 -1 -1\n")
    assert main(["dfrs", "bound", "--trace", str(path)]) == 2
    assert "--host-memory" in capsys.readouterr().err
    assert main(["dfrs", "bound", "--trace", str(path), "--host-memory", "10000", "--json"]) == 0


@pytest.mark.parametrize("argv,needle", [
    (["--host-memory", "1000"], "job 1 needs 5 of a host's memory per task (> 1)"),
    (["--host-memory", "1000", "--cores", "2", "--hosts", "4"], "job 1 needs 5 of a host's memory per task"),
    (["--host-memory", "0"], "argument --host-memory"),
])
def test_memory_field_larger_than_a_host_is_one_line(tmp_path, capsys, argv, needle):
    path = tmp_path / "m.swf"
    path.write_text(SWF_HEADER + "1 0 0 10 1 -1 5000 1 20 -1 1 1 1 1 1 -1 -1 -1\n")
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(main(["dfrs", "simulate", "--trace", str(path), "--policy", "greedy", *argv]))
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("calls_before", [0, 1])
def test_interrupt_writes_no_partial_file(tmp_path, capsys, monkeypatch, calls_before):
    """A SIGINT (``KeyboardInterrupt``) during any policy's run: exit 130, one line, no ``-o`` file."""
    import heuristics.dfrs as dfrs

    real, seen = dfrs.simulate_policy, []

    def interrupted(*args, **kwargs):
        seen.append(1)
        if len(seen) > calls_before:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(dfrs, "simulate_policy", interrupted)
    trace = _swf(tmp_path, LINES)
    out = tmp_path / "jobs.csv"
    assert main(["dfrs", "simulate", "--trace", trace, "--policy", "greedy,mcb8-per", "--memory", "fixed:0.3",
                 "-o", str(out)]) == 130
    assert capsys.readouterr().err == "vcsched: interrupted\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.swf"]


def test_end_cuts_the_trace_and_lublin_refuses_a_window(tmp_path, capsys):
    trace = _swf(tmp_path, LINES)
    assert main(["dfrs", "bound", "--trace", trace, "--end", "36", "--memory", "fixed:0.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["jobs"] == 5
    assert main(["dfrs", "bound", "--trace", trace, "--start", "1000", "--memory", "fixed:0.1"]) == 2
    assert "widen --start/--end/--days" in capsys.readouterr().err
    assert main(["dfrs", "bound", "--workload", "lublin", "--jobs", "10", "--load", "0.5", "--days", "2"]) == 2
    err = capsys.readouterr().err
    assert "--start, --end and --days cut a --trace" in err and len(err.splitlines()) == 1
