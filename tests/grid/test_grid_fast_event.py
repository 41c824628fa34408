"""The compiled event of Algorithm 2 (:mod:`heuristics.grid.fastevent`) against the reference path.

The reference is :meth:`Reallocation._resubmit_reference` (one grid query and submission
at a time, ``compiled_event=False``). Both must give the same run: the same starts,
finishes, clusters, resubmissions, submission order and move counters, and the same
``jobs.csv`` byte for byte, on random small workloads (FCFS, EASY, CBF; homogeneous and
heterogeneous; every heuristic; every reading of Algorithm 2) and on short windows of
the paper's scenarios.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from heuristics.grid.realloc import Reallocation
from tests.grid.test_grid_realloc import ALL_HEURISTICS, check_run
from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, make_cluster, simulate
from vcsched.sim.output import write_jobs


def _workload(seed: int, n: int = 160, sites: int = 3, procs=(16, 24, 40)) -> JobTable:
    """Random load over two days on ``sites`` sites, busy enough that queues build up; ties in submit times."""
    rng = np.random.default_rng(seed)
    ws = []
    for s in range(sites):
        sub = np.sort(np.floor(rng.uniform(0, 2 * 86400, n) / 600) * 600)  # many jobs share an instant
        run = np.ceil(rng.lognormal(7.0, 1.3, n))
        req = np.ceil(run * rng.uniform(1, 4, n))
        req[rng.random(n) < 0.05] = 0  # requested time 0: planned as 1 s
        run[req == 0] = 0
        p = rng.integers(1, procs[s] + 1, n)
        ws.append(from_arrays(sub, run, req, p))
    return JobTable.from_workloads(ws, labels=[f"s{k}" for k in range(sites)])


def _clusters(batch: str, heterogeneous: bool, procs=(16, 24, 40)):
    speeds = (1.0, 1.3, 0.8) if heterogeneous else (1.0, 1.0, 1.0)
    return [make_cluster(f"c{k}", p, s, batch) for k, (p, s) in enumerate(zip(procs, speeds))]


def _run(batch, heterogeneous, jobs, compiled, **kw):
    """One Algorithm-2 run with the compiled event or the reference path, checked by ``check_run``."""
    pol = Reallocation("cancel", compiled_event=compiled, **kw)
    res = simulate(_clusters(batch, heterogeneous), jobs, meta=pol, record=True)
    check_run(res, pol)
    return res, pol


def _same(a, b):
    """Two runs (result, policy) are the same run."""
    (ra, pa), (rb, pb) = a, b
    np.testing.assert_array_equal(ra.start, rb.start)
    np.testing.assert_array_equal(ra.finish, rb.finish)
    np.testing.assert_array_equal(ra.cluster, rb.cluster)
    np.testing.assert_array_equal(ra.resubmissions, rb.resubmissions)
    np.testing.assert_array_equal(ra.submission_seq, rb.submission_seq)
    assert ra.log == rb.log
    assert pa.reallocations == pb.reallocations
    np.testing.assert_array_equal(pa.job_moves, pb.job_moves)
    np.testing.assert_array_equal(pa.moves_in, pb.moves_in)


@pytest.mark.parametrize("batch", ["fcfs", "cbf", "easy"])
@pytest.mark.parametrize("heterogeneous", [False, True])
def test_grid_compiled_event_equals_reference_every_heuristic(batch, heterogeneous):
    moves = 0
    for seed, h in enumerate(ALL_HEURISTICS):
        jobs = _workload(seed, n=120)
        fast = _run(batch, heterogeneous, jobs, True, heuristic=h)
        _same(fast, _run(batch, heterogeneous, jobs, False, heuristic=h))
        moves += fast[1].reallocations
    assert moves > 50  # the workloads do move jobs


@pytest.mark.parametrize("batch", ["fcfs", "cbf"])
@pytest.mark.parametrize("reading", [{"cancel_threshold": True}, {"current_ect": "planned"},
                                     {"queue_order": "submission"}, {"threshold": 0.0, "cancel_threshold": True}])
@pytest.mark.parametrize("heuristic", ["maxrelgain", "maxmin"])
def test_grid_compiled_event_equals_reference_every_reading(batch, reading, heuristic):
    jobs = _workload(7, n=90)
    fast = _run(batch, True, jobs, True, heuristic=heuristic, **reading)
    _same(fast, _run(batch, True, jobs, False, heuristic=heuristic, **reading))


@pytest.mark.parametrize("heuristic", ["minmin", "maxmin", "sufferage"])
def test_grid_compiled_event_shortcut_equals_plain_recompute(heuristic, monkeypatch):
    """The exact shortcut of :func:`fastevent._column` (``prune``) against recomputing every alive row."""
    for batch in ("fcfs", "cbf"):
        jobs = _workload(11)
        pruned = _run(batch, True, jobs, True, heuristic=heuristic)
        monkeypatch.setattr(Reallocation, "prune", False)
        _same(pruned, _run(batch, True, jobs, True, heuristic=heuristic))
        monkeypatch.setattr(Reallocation, "prune", True)


def test_grid_compiled_event_falls_back_for_other_clusters_and_user_heuristics():
    """A cluster without a resubmission plan (the literal CBF reference) runs the reference path, same result."""
    from tests.sim.literal_cbf import LiteralCBF

    jobs = _workload(3, n=60)
    runs = []
    for compiled in (True, False):
        pol = Reallocation("cancel", "minmin", compiled_event=compiled)
        clusters = [LiteralCBF("a", 16), LiteralCBF("b", 24), LiteralCBF("c", 40)]
        res = simulate(clusters, jobs, meta=pol, record=True)
        runs.append((res, pol))
    _same(*runs)
    assert runs[0][1].reallocations > 0


def _csv(res) -> bytes:
    """The run's ``jobs.csv`` as written by ``vcsched grid simulate -o``."""
    import pathlib
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "jobs.csv"
        write_jobs(res, path)
        return path.read_bytes()


@pytest.mark.parametrize("scenario,batch,heterogeneous,heuristic", [
    ("mar", "fcfs", False, "maxmin"), ("apr", "fcfs", True, "minmin"), ("apr", "cbf", True, "maxgain"),
    ("pwa-g5k", "fcfs", False, "sufferage"), ("jun", "cbf", False, "mct"),
])
def test_grid_compiled_event_same_jobs_csv_on_scenario_windows(scenario, batch, heterogeneous, heuristic):
    from vcsched.scenarios.grid import SCENARIOS, build_scenario, platform_clusters

    _, jobs = build_scenario(scenario, heterogeneous=heterogeneous, batch=batch, days=0.75, seed=0)
    out = []
    for compiled in (True, False):
        pol = Reallocation("cancel", heuristic, compiled_event=compiled)
        clusters = platform_clusters(SCENARIOS[scenario].platform, heterogeneous=heterogeneous, batch=batch)
        res = simulate(clusters, jobs, meta=pol)
        out.append((_csv(res), pol.reallocations))
    assert out[0] == out[1]
    assert out[0][1] > 0
