"""grid simulate --seeds (synthetic sites per seed), the Gantt window above a size, durations with units."""

from __future__ import annotations

import json

import pandas
import pytest

from vcsched.cli import main
from vcsched.cli.common import duration_text
from vcsched.sim.output import gantt_window


def test_grid_seeds_summarize_the_runs_of_each_seed(capsys):
    base = ["grid", "simulate", "--scenario", "pwa-g5k", "--days", "2"]
    assert main(base + ["--seeds", "0-2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    singles = []
    for seed in range(3):
        assert main(base + ["--seed", str(seed), "--json"]) == 0
        singles.append(json.loads(capsys.readouterr().out)["overall"]["mean_response"])
    summary = doc["results"][0]["mean_response"]
    assert summary["n"] == 3 and summary["mean"] == pytest.approx(sum(singles) / 3)
    assert len(set(singles)) > 1  # the synthetic sites differ by seed
    assert main(["grid", "simulate", "--scenario", "jan", "--days", "1", "--seeds", "0-1", "-o", "x.csv"]) == 2


def test_gantt_window_keeps_the_jobs_started_before_the_next_start():
    frame = pandas.DataFrame({"starting_time": [5.0, 0.0, 3.0, 3.0, 9.0]})
    kept, end = gantt_window(frame, 3)
    assert end == 5.0 and sorted(kept["starting_time"]) == [0.0, 3.0, 3.0]
    assert gantt_window(frame, 10) == (frame, None)


def test_duration_text_units():
    assert duration_text(42.0) == "42 s" and duration_text(7465) == "7,465 s"
    assert duration_text(12 * 3600) == "12.0 h" and duration_text(2.876e7) == "332.9 d"
    assert duration_text(None) is None
