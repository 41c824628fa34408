"""Adaptation policies never overflow a host's memory: new tasks' loads and memory
accumulate while they are placed, even when nothing is placed yet (an empty system)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from heuristics.vc.adapt import ADAPT_POLICIES, make_policy, stay_and_place_new
from vcsched.cli import main
from vcsched.problems.vc import VCInstance, host_loads, host_memory, per_host_sum
from vcsched.sim.vcdynamic import DynamicWorkload, simulate_dynamic

HEURISTICS = ["none", "mcb8", "mcb8-sticky", "local-search"]


def test_per_host_sum_is_float_even_when_nothing_is_placed():
    out = per_host_sum(np.zeros(0, dtype=np.int64), np.zeros(0), 3)
    assert out.dtype == np.float64 and out.tolist() == [0.0, 0.0, 0.0]
    out[1] += 0.5
    assert out[1] == 0.5


def test_four_new_one_task_jobs_spread_over_four_hosts():
    # the rule: a new task goes where it raises the largest load the least -> one job per host, yield 1
    inst = VCInstance.from_arrays(4, [0.5] * 4, [0.1] * 4, current_host=[None] * 4)
    th = stay_and_place_new(inst)
    assert sorted(th.tolist()) == [0, 1, 2, 3]
    assert host_loads(inst, th).max() == pytest.approx(0.5)


@pytest.mark.parametrize("name", HEURISTICS)
def test_a_parallel_job_into_an_empty_system_fits_memory(name):
    inst = VCInstance(hosts=4, cpu=np.array([0.5]), mem=np.array([0.6]), tasks=np.array([4]),
                      current_host=(None,))
    th = ADAPT_POLICIES.get(name)(inst, np.inf, "memory")
    assert th is not None and host_memory(inst, th).max() <= 1 + 1e-9


@pytest.mark.parametrize("name", HEURISTICS)
def test_parallel_arrivals_into_an_empty_system_never_overflow(name):
    # a 2-task then a 4-task job (mem 0.45 per task) on 4 hosts: both fit (2 tasks per host at most)
    w = DynamicWorkload(arrival=np.array([0.0, 1.0]), lifetime=np.array([50.0, 50.0]), cpu=np.array([0.3, 0.4]),
                        mem=np.array([0.45, 0.45]), tasks=np.array([2, 4]))
    res = simulate_dynamic(4, w, make_policy(name), budget=0.5, duration=10.0)
    assert res.rejected == 0 and res.events == 2


@pytest.mark.parametrize("name", HEURISTICS)
def test_an_arrival_that_cannot_fit_is_rejected_and_counted(name):
    # the second job needs 4 x 0.6 memory on hosts already holding 0.6 each: no host can take a task
    w = DynamicWorkload(arrival=np.array([0.0, 1.0]), lifetime=np.array([50.0, 50.0]), cpu=np.array([0.3, 0.4]),
                        mem=np.array([0.6, 0.6]), tasks=np.array([4, 4]))
    res = simulate_dynamic(4, w, make_policy(name), budget=0.0, duration=10.0)
    assert res.rejected == 1 and res.events == 1


def _solve(tmp_path, capsys, doc, methods):
    path = tmp_path / "f.json"
    path.write_text(json.dumps(doc))
    code = main(["vc", "solve", str(path), "--method", methods, "--json"])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def _rows(doc):
    return doc if isinstance(doc, list) else [doc]


def test_vc_solve_adapt_none_spreads_new_jobs(tmp_path, capsys):
    doc = {"hosts": 4, "jobs": [{"cpu": 0.5, "mem": 0.1}] * 4}
    (row,) = _rows(_solve(tmp_path, capsys, doc, "adapt-none"))
    assert row["status"] == "feasible" and row["min_yield"] == pytest.approx(1.0)
    assert sorted(row["assignment"]) == [0, 1, 2, 3]


def test_vc_solve_adapt_methods_place_a_parallel_job_within_memory(tmp_path, capsys):
    doc = {"hosts": 4, "jobs": [{"cpu": 0.5, "mem": 0.6, "tasks": 4}]}
    rows = _rows(_solve(tmp_path, capsys, doc, "adapt-none,adapt-mcb8-sticky,adapt-local-search"))
    assert len(rows) == 3
    for row in rows:
        assert row["status"] == "feasible", row
        assert row["min_yield"] == pytest.approx(1.0)


@pytest.mark.slow  # ~20 s: a month of KTH, 4,000 events
def test_a_month_of_kth_with_policy_none_never_overflows(capsys):
    from tests.conftest import require_trace

    require_trace("KTH-SP2-1996-2.1-cln.swf.gz")
    code = main(["vc", "adapt", "--hosts", "16", "--swf", "KTH-SP2-1996-2.1-cln.swf.gz", "--policy", "none",
                 "--budget", "0", "--duration", "2592000", "--no-progress", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    res = json.loads(out)
    assert res["events"] > 1000 and res["rejected"] > 0  # arrivals that cannot fit are refused and counted
