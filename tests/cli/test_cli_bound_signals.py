"""Interrupts during ``grid bound``, on either side: the command prints what was proven before the interrupt
(marked ``"interrupted": true`` in the JSON, one line on standard error), exits 130 and writes no schedule file.

A bound printed after an interrupt is still a proven one: each is checked against the brute-force optimum of the
workload below.
"""

from __future__ import annotations

import _thread
import json
import signal
import subprocess
import sys
import threading
import time

import pytest

import lowerbounds.batch.bounds as bounds_module
import lowerbounds.batch.clairvoyant as cv
from tests.cli.test_cli_signals import ROOT
from tests.grid.test_batch_bound_cli import METRIC_NAMES, _optimum, trace
from vcsched.cli import main


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def _run_json(capsys, argv):
    code = main(argv + ["--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def _assert_proven(out):
    best = _optimum()
    for name in METRIC_NAMES:
        low = out["bounds"][name]["lower"]["value"]
        assert low is None or low <= best[name] + 1e-6


@pytest.mark.parametrize("where", ["_apply_exhaustive", "_apply_lp", "_apply_lagrangian"])
def test_interrupt_in_the_lower_side_prints_the_bounds_proven_so_far(tmp_path, capsys, monkeypatch, where):
    if where != "_apply_exhaustive":  # the relaxations: the enumeration would prove the 5 jobs' optima first
        monkeypatch.setattr(bounds_module, "EXHAUST_CAP", 0)
    monkeypatch.setattr(bounds_module, where, _interrupt)
    folder = tmp_path / "s"
    code, out, err = _run_json(capsys, ["grid", "bound", "--trace", str(trace(tmp_path)), "--method", "lp",
                                        "--time-limit", "5", "--schedule", str(folder)])
    assert code == 130 and out["interrupted"] is True
    assert err.count("\n") == 1 and "interrupted" in err and "no schedule file written" in err
    proven = {"_apply_exhaustive": {"quick"}, "_apply_lp": {"quick", "branching", "energetic"},
              "_apply_lagrangian": {"quick", "branching", "energetic", "lp"}}[where]
    for name in METRIC_NAMES:  # the bounds proven before the interrupt stand; no search ran
        entry = out["bounds"][name]
        assert entry["lower"]["method"] in proven and entry["lower"]["value"] is not None
        assert entry["upper"] is None and entry["status"] == "bound"
    _assert_proven(out)
    assert list(folder.iterdir()) == []


def test_interrupt_among_the_quick_bounds_marks_the_ones_not_reached(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bounds_module, "stretch_quick", _interrupt)
    code = main(["grid", "bound", "--trace", str(trace(tmp_path)), "--method", "quick"])
    captured = capsys.readouterr()
    assert code == 130 and captured.err.count("\n") == 1
    rows = {line.split()[0]: line.split() for line in captured.out.splitlines()[1:] if line.split()}
    assert rows["max_stretch"][1] == "-" and "interrupted" in rows["max_stretch"]
    assert "quick" in rows["makespan"] and rows["makespan"][1] != "-"
    code, out, _err = _run_json(capsys, ["grid", "bound", "--trace", str(trace(tmp_path)), "--method", "quick"])
    assert code == 130 and out["interrupted"] is True
    assert out["bounds"]["max_stretch"]["lower"] == {"value": None, "method": "interrupted",
                                                     "seconds": 0.0}
    assert [out["bounds"][m]["lower"]["method"] for m in METRIC_NAMES[:3]] == ["quick"] * 3
    _assert_proven(out)


def test_interrupt_in_the_portfolio_keeps_every_bound(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cv, "_portfolio", _interrupt)
    folder = tmp_path / "s"
    code, out, err = _run_json(capsys, ["grid", "bound", "--trace", str(trace(tmp_path)), "--method", "quick",
                                        "--schedule", str(folder)])
    assert code == 130 and out["interrupted"] is True and err.count("\n") == 1
    assert all(out["bounds"][m]["upper"] is None and out["bounds"][m]["lower"]["method"] == "quick"
               for m in METRIC_NAMES)
    _assert_proven(out)
    assert list(folder.iterdir()) == []


def test_an_uninterrupted_run_has_no_interrupted_field(tmp_path, capsys):
    code, out, err = _run_json(capsys, ["grid", "bound", "--trace", str(trace(tmp_path)), "--method", "quick"])
    assert code == 0 and "interrupted" not in out and err == ""


def test_interrupt_in_the_bounds_of_simulate_is_exit_130(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bounds_module, "_apply_exhaustive", _interrupt)  # the 5 jobs' lower side: the enumeration
    assert main(["grid", "simulate", "--trace", str(trace(tmp_path)), "--bound", "--bound-method", "lp",
                 "--json"]) == 130
    captured = capsys.readouterr()
    assert captured.out == "" and "interrupted" in captured.err


def _busy_trace(tmp_path, n=2000):
    """``n`` jobs on 64 processors, offered load about 1.5: the lower side's LP windows run for the whole limit."""
    lines = ["; MaxProcs: 64"]
    for i in range(n):
        width, run = 1 + (7 * i) % 40, 50 + (37 * i) % 900
        lines.append(f"{i + 1} {i * 10} 0 {run} {width} -1 -1 {width} {run} -1 1 1 1 1 1 1 -1 -1")
    path = tmp_path / "busy.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
def test_a_real_interrupt_of_the_lower_side_returns_the_bounds(tmp_path, capsys):
    # Ctrl-C 1 s into a run of 60 s: the lower side is in its LP windows or its Lagrangian bound then
    folder = tmp_path / "s"
    path = _busy_trace(tmp_path)
    timer = threading.Timer(1.0, _thread.interrupt_main)
    t0 = time.monotonic()
    timer.start()
    try:
        code = main(["grid", "bound", "--trace", str(path), "--method", "lp", "--time-limit", "60", "--json",
                     "--schedule", str(folder)])
    finally:
        timer.cancel()
    captured = capsys.readouterr()
    assert code == 130 and time.monotonic() - t0 < 10, time.monotonic() - t0
    out = json.loads(captured.out)
    assert out["interrupted"] is True and captured.err.count("\n") == 1
    assert all(out["bounds"][m]["lower"]["value"] is not None for m in METRIC_NAMES)  # the quick ones at least
    assert list(folder.iterdir()) == []


@pytest.mark.slow
def test_sigint_to_grid_bound_prints_the_bounds_and_exits_130(tmp_path):
    import os

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    folder = tmp_path / "s"
    proc = subprocess.Popen([sys.executable, "-m", "vcsched.cli", "grid", "bound", "--trace",
                             str(_busy_trace(tmp_path)), "--method", "lp", "--time-limit", "120", "--json",
                             "--schedule", str(folder)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(8.0)
    assert proc.poll() is None, "the run ended before the signal"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode()
    assert json.loads(out)["interrupted"] is True
    assert err.decode().count("\n") == 1 and list(folder.iterdir()) == []
