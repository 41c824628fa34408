"""Scenarios of seed 000 §3.2-3.3 (platforms, synthetic Lublin sites, real windows) and the §3.4 metrics."""

from __future__ import annotations

import types

import numpy as np
import pytest

from tests.conftest import require_trace
from vcsched.errors import InvalidInputError
from vcsched.generators.lublin_workload import daily_cycle, lublin_arrivals, lublin_workload, offered_load
from vcsched.problems.workload import from_arrays
from vcsched.scenarios.grid import (
    MAX_LOAD,
    MONTH_DAYS,
    SCENARIOS,
    TABLE1_JOBS,
    build_scenario,
    compare_to_reference,
    platform_clusters,
    scenario_workloads,
)
from vcsched.sim import JobTable


# ----------------------------------------------------------------- Lublin workloads
def test_grid_lublin_workload_exact_count_window_and_walltimes():
    w = lublin_workload(2000, 640, 30 * 86400.0, np.random.default_rng(5), max_load=0.6)
    assert len(w) == 2000
    s = w.submit_time
    assert s.min() >= 0 and s.max() < 30 * 86400 and (np.diff(s) >= 0).all()
    assert w.processors.min() >= 1 and w.processors.max() <= 640
    assert (w.requested_time >= w.run_time).all() and (w.run_time >= 1).all()
    assert w.run_time.max() <= 172800 and w.max_procs == 640
    assert offered_load(w.processors, w.run_time, 640, 30 * 86400.0) <= 0.6 * 1.001  # up to the rounding to whole seconds
    assert (w.requested_time % 60 == 0).mean() > 0.9  # rounded up to minutes unless capped by the run time


def test_grid_lublin_same_seed_same_workload_other_seed_differs():
    a = lublin_workload(300, 128, 86400.0, np.random.default_rng(1))
    b = lublin_workload(300, 128, 86400.0, np.random.default_rng(1))
    c = lublin_workload(300, 128, 86400.0, np.random.default_rng(2))
    np.testing.assert_array_equal(a.fields, b.fields)
    assert not np.array_equal(a.fields, c.fields)


def test_grid_lublin_daily_cycle_shapes_arrivals():
    w = daily_cycle()
    assert w.shape == (48,) and abs(w.sum() - 1) < 1e-12 and w.argmax() in range(24, 36)  # afternoon peak
    t = lublin_arrivals(20000, 10 * 86400.0, np.random.default_rng(0))
    slot = ((t % 86400) // 1800).astype(int)
    counts = np.bincount(slot, minlength=48) / t.size
    assert counts[24:36].sum() > 2 * counts[0:12].sum()  # afternoon busier than the night


def test_grid_lublin_bad_arguments():
    with pytest.raises(InvalidInputError, match="need n >= 1"):
        lublin_workload(0, 10, 100.0, np.random.default_rng(0))


# ----------------------------------------------------------------- platforms and scenarios
def test_grid_platforms_of_the_paper():
    hom = platform_clusters("g5k")
    assert [(c.name, c.procs, c.speed, c.policy) for c in hom] == [
        ("bordeaux", 640, 1.0, "fcfs"), ("lyon", 270, 1.0, "fcfs"), ("toulouse", 434, 1.0, "fcfs")]
    het = platform_clusters("pwa-g5k", heterogeneous=True, batch="cbf")
    assert [(c.name, c.procs, c.speed, c.policy) for c in het] == [
        ("bordeaux", 640, 1.0, "cbf"), ("ctc", 430, 1.2, "cbf"), ("sdsc", 128, 1.4, "cbf")]
    with pytest.raises(InvalidInputError, match="unknown grid platform"):
        platform_clusters("nowhere")
    with pytest.raises(InvalidInputError, match="unknown grid scenario"):
        build_scenario("july")


@pytest.mark.parametrize("month", ["jan", "apr"])
def test_grid_month_scenarios_match_table1(month):
    ws = scenario_workloads(month)
    assert [len(w) for w in ws] == [TABLE1_JOBS[month][s] for s in ("bordeaux", "lyon", "toulouse")]
    for w, procs in zip(ws, (640, 270, 434)):
        assert w.submit_time.max() < MONTH_DAYS[month] * 86400 and w.processors.max() <= procs
        assert offered_load(w.processors, w.run_time, procs, MONTH_DAYS[month] * 86400) <= MAX_LOAD * 1.001
    # a short window is a prefix of the full scenario, and the seed changes the synthetic sites
    short = scenario_workloads(month, days=3)
    for w, s in zip(ws, short):
        np.testing.assert_array_equal(w.fields[: len(s)], s.fields)
    other = scenario_workloads(month, days=3, seed=1)
    assert not np.array_equal(short[0].fields, other[0].fields)


def test_grid_build_scenario_is_deterministic():
    a = build_scenario("feb", days=2, heterogeneous=True, batch="cbf")
    b = build_scenario("feb", days=2, heterogeneous=True, batch="cbf")
    for col in ("submit", "run_time", "requested_time", "procs", "origin"):
        np.testing.assert_array_equal(getattr(a[1], col), getattr(b[1], col))
    assert [c.speed for c in a[0]] == [1.0, 1.2, 1.4]


def test_grid_six_month_real_windows():
    require_trace("CTC-SP2-1996-3.1-cln.swf.gz")
    require_trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    bordeaux, ctc, sdsc = scenario_workloads("pwa-g5k")
    assert len(bordeaux) == 74647
    assert len(ctc) == 42837 and len(sdsc) == 16162  # paper: 42,873 and 15,615 (original, uncleaned traces)
    assert ctc.submit_time[0] == 0 and sdsc.submit_time[0] == 0
    assert SCENARIOS["pwa"].platform == "pwa"


# ----------------------------------------------------------------- §3.4 metrics
def _fake(finish, start=None):
    finish = np.asarray(finish, dtype=float)
    submit = np.zeros(finish.size)
    start = finish - 10 if start is None else np.asarray(start, dtype=float)
    w = from_arrays(submit, [10] * len(submit), [10] * len(submit), [1] * len(submit))
    return types.SimpleNamespace(jobs=JobTable.from_workloads([w]), start=start, finish=finish)


def test_grid_metrics_against_the_reference():
    ref = _fake([100, 200, 300, 400])
    res = _fake([100, 150, 250, 500])  # job 0 unchanged; 1 and 2 earlier; 3 later
    m = compare_to_reference(res, ref, reallocations=3)
    assert m["impacted"] == 3 and m["impacted_pct"] == 75.0
    assert m["early_pct"] == pytest.approx(200 / 3)
    assert m["relative_response"] == pytest.approx((150 + 250 + 500) / (200 + 300 + 400))
    assert m["reallocations"] == 3 and m["reallocations_pct"] == 75.0
    assert m["mean_wait"] == pytest.approx(np.mean([90, 140, 240, 490]))
    assert m["ref_mean_bsld"] == pytest.approx(np.mean([10, 20, 30, 40]))
    same = compare_to_reference(ref, ref)
    assert same["impacted"] == 0 and same["early_pct"] is None and same["relative_response"] is None
    with pytest.raises(InvalidInputError, match="same jobs"):
        compare_to_reference(_fake([1, 2, 3]), ref)


def test_grid_cli_realloc_json(tmp_path, capsys):
    """``vcsched grid simulate --scenario ... --realloc ... --json --compare``."""
    import json

    from vcsched.cli import main

    code = main(["grid", "simulate", "--scenario", "feb", "--days", "2", "--batch", "cbf", "--heterogeneous",
                 "--realloc", "cancel", "--heuristic", "minmin", "--json", "--compare", "--no-progress",
                 "-o", str(tmp_path / "jobs.csv")])
    out, err = capsys.readouterr()
    assert code == 0, err
    m = json.loads(out)
    assert m["overall"]["reallocations"] == sum(c["reallocations"] for c in m["clusters"].values())
    assert m["vs_reference"]["reallocations"] == m["overall"]["reallocations"]
    assert (tmp_path / "jobs.csv").exists()


def test_grid_run_rules_reallocation_maps_with_mct_and_the_reference_has_none():
    """``vcsched.scenarios.grid_run``: reallocation implies MCT arrivals on a multi-cluster platform naming no
    mapping; the reference run maps the same way without reallocation; metrics carry the policy's moves."""
    from heuristics.grid import make_meta
    from heuristics.grid.realloc import Reallocation
    from tests.grid.test_grid_realloc import FIGURE1, jobs_of
    from vcsched.scenarios.grid_run import arrival_mapping, simulate_with_reference
    from vcsched.sim import make_cluster

    assert arrival_mapping(None, "cancel", 2) == "mct" and arrival_mapping(None, "none", 2) is None
    assert arrival_mapping(None, "cancel", 1) is None and arrival_mapping("origin", "cancel", 2) == "origin"
    seen = []

    def build(first):
        return [make_cluster("A", 4), make_cluster("B", 4)], jobs_of(FIGURE1), None

    def policy(name):
        seen.append(name)
        return Reallocation("cancel", "minmin")

    result, m = simulate_with_reference(build, policy, lambda name: seen.append(("ref", name)) or make_meta(name),
                                        realloc="cancel", compare=True)
    assert seen == ["mct", ("ref", "mct")]
    assert m["overall"]["reallocations"] == 2 == m["vs_reference"]["reallocations"]
    assert m["clusters"]["B"]["reallocations"] == 2 and m["clusters"]["A"]["reallocations_out"] == 2
    assert m["vs_reference"]["impacted"] > 0
