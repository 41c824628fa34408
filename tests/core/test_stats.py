"""Runs over seeds: means, 95 % intervals and paired differences (vcsched.stats, --seeds)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats as sps

from vcsched.cli import main
from vcsched.errors import InvalidInputError
from vcsched.stats import paired_difference, parse_seeds, summarize


def test_summary_matches_scipy_t_interval():
    rng = np.random.default_rng(0)
    x = rng.normal(5, 2, 12)
    s = summarize(x.tolist())
    lo, hi = sps.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
    assert s["n"] == 12 and s["mean"] == pytest.approx(x.mean()) and s["std"] == pytest.approx(x.std(ddof=1))
    assert s["ci95"] == pytest.approx([lo, hi])
    assert summarize([3.0]) == {"mean": 3.0, "std": None, "ci95": None, "n": 1}
    assert summarize([None, None])["n"] == 0  # None: a run without the value


def test_paired_difference_is_scipys_paired_t_interval():
    rng = np.random.default_rng(1)
    a = rng.normal(10, 3, 10)
    b = a + 0.5 + rng.normal(0, 0.1, 10)  # a small, consistent improvement hidden in large noise
    d = paired_difference(a.tolist(), b.tolist())
    ci = sps.ttest_rel(b, a).confidence_interval(0.95)
    assert d["ci95"] == pytest.approx([ci.low, ci.high])
    assert d["ci95"][0] > 0  # paired: the difference is detected
    unpaired = summarize(b.tolist())["ci95"]
    assert unpaired[0] < summarize(a.tolist())["ci95"][1]  # the two intervals alone overlap


def test_parse_seeds():
    assert parse_seeds("0-3") == [0, 1, 2, 3] and parse_seeds("5, 2,5") == [5, 2]
    for bad in ("3-1", "a-b", "-1", "", "0-20000"):
        with pytest.raises(InvalidInputError, match="--seeds"):
            parse_seeds(bad)


def test_timeshare_seeds_json_fields_and_pairing(capsys):
    args = ["timeshare", "simulate", "--scenario", "b", "--mu", "20", "--heuristic", "all", "--tasks", "40"]
    assert main(args + ["--seeds", "0-3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["seeds"] == [0, 1, 2, 3]
    mct = next(r for r in doc["results"] if r["heuristic"] == "mct")
    assert set(mct["sumflow"]) == {"mean", "std", "ci95", "n"} and mct["sumflow"]["n"] == 4
    singles = []
    for seed in range(4):
        assert main(args + ["--seed", str(seed), "--json"]) == 0
        singles.append({r["heuristic"]: r for r in json.loads(capsys.readouterr().out)})
    assert mct["sumflow"]["mean"] == pytest.approx(np.mean([s["mct"]["sumflow"] for s in singles]))
    hmct = next(p for p in doc["paired"] if p["heuristic"] == "hmct")
    diffs = [s["hmct"]["sumflow"] - s["mct"]["sumflow"] for s in singles]
    assert hmct["versus"] == "mct" and hmct["sumflow"]["mean"] == pytest.approx(np.mean(diffs))
    assert main(args + ["--repeat", "2", "--seed", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seeds"] == [2, 3]


def test_vc_adapt_compares_policies_on_the_same_seeds(capsys):
    base = ["vc", "adapt", "--hosts", "6", "--arrival-rate", "0.5", "--mean-lifetime", "10", "--duration", "40",
            "--budget", "inf"]
    assert main(base + ["--policy", "none,mcb8", "--seeds", "0-2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in doc["results"]] == ["none", "mcb8"]
    assert doc["paired"][0]["migrations"]["n"] == 3
    assert main(base + ["--policy", "none,mcb8"]) == 2  # several policies need seeds


def test_diet_bursty_difference_documented_in_diet_md_is_what_the_seeds_show(capsys):
    args = ["diet", "simulate", "--experiment", "bursty", "--interarrival", "0", "--approach", "all",
            "--seeds", "0-9", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    paired = {p["approach"]: p for p in doc["paired"]}
    lo, hi = paired["sed-queue"]["makespan"]["ci95"]
    assert lo > 0  # SeD Queue is slower than Standard at 0 s between requests (docs/diet.md, Fig 2)
    ts = next(r for r in doc["results"] if r["approach"] == "task-scheduler")
    assert ts["makespan"]["ci95"][1] < 190
