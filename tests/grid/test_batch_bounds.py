"""Bounds and exact optima of the clairvoyant batch relaxation (lowerbounds.batch) against brute force and the simulator."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lowerbounds.batch import METHODS, batch_bounds, instance_bounds
from lowerbounds.batch.exact import MAX_EXACT_JOBS, exact_optimum, exact_schedule_metrics
from lowerbounds.batch.grid import time_grid
from lowerbounds.batch.instance import BatchInstance, batch_instance, check_batch_schedule
from lowerbounds.batch.lp import lp_flow, lp_makespan, lp_stretch
from lowerbounds.batch.quick import bsld_quick, flow_quick, makespan_quick, stretch_quick
from tests.grid.batch_oracle import brute_force
from vcsched.errors import InvalidInputError
from vcsched.result import Status
from vcsched.sim import JobTable, make_cluster, simulate_grid
from vcsched.sim.output import metrics

TOL = 1e-6


def _instance(rng, n, K, *, speeds=(1.0, 1.5, 2.0), integer=True):
    m = rng.integers(2, 7, size=K)
    s = rng.choice(speeds, size=K) if K > 1 else np.ones(1)
    q = rng.integers(1, m.max() + 1, size=n)
    r = rng.integers(0, 6, size=n).astype(float)
    base = rng.integers(0, 7, size=n).astype(float) if integer else rng.uniform(0, 6, size=n)
    return BatchInstance.from_arrays(r, q, base[:, None] * s[0] / s[None, :], m, s)


def _assert_below(bounds, optimum):
    for name, b in bounds.items():
        if optimum.get(name) is not None and b.value is not None:
            assert b.value <= optimum[name] * (1 + TOL) + TOL, (name, b, optimum[name])


@pytest.mark.parametrize("seed", range(6))
def test_brute_force_milp_and_every_bound_agree(seed):
    rng = np.random.default_rng(seed)
    inst = _instance(rng, 5, 1 + seed % 2)
    best = brute_force(inst)
    result = instance_bounds(inst, method="exact", time_limit=30)
    ex = result.exact
    assert ex.status is Status.OPTIMAL and ex.makespan_status is Status.OPTIMAL
    assert ex.mean_response == pytest.approx(best["mean_response"], rel=1e-6, abs=1e-9)
    assert ex.makespan == pytest.approx(best["makespan"], rel=1e-6, abs=1e-9)
    assert ex.bound == pytest.approx(ex.mean_response, rel=1e-4)
    _assert_below(result.bounds, best)
    # the optimal schedule is feasible and has the reported mean response time
    clus = np.array([e["cluster"] for e in ex.schedule])
    start = np.array([e["start"] for e in ex.schedule])
    check_batch_schedule(inst, clus, start)
    assert exact_schedule_metrics(inst, ex)["mean_response"] == pytest.approx(ex.mean_response)


def test_bounds_reach_the_optimum_on_a_forced_chain():
    # three jobs of the whole cluster released together: they run one after the other
    inst = BatchInstance.from_arrays([0, 0, 0], [4, 4, 4], [[1], [2], [3]], [4])
    assert makespan_quick(inst) == 6.0
    assert flow_quick(inst) <= 1 + 3 + 6 + TOL
    assert lp_flow(inst) == pytest.approx(10.0)  # SPT: 1 + 3 + 6
    assert lp_makespan(inst) == pytest.approx(6.0)
    # max stretch: SPT gives 1, 1.5, 2; any order has a job with stretch >= 2 (the last one)
    assert 1.0 <= stretch_quick(inst) <= lp_stretch(inst, stretch_quick(inst)) <= 2.0 + TOL


def test_wide_jobs_cannot_overlap():
    # two jobs wider than half of the cluster, released at 0: makespan 2 + 3 even though the area is smaller
    inst = BatchInstance.from_arrays([0, 0], [3, 3], [[2], [3]], [5])
    assert makespan_quick(inst) == 5.0


def _check_against_brute_force(seed, n, K, integer, load):
    rng = np.random.default_rng(seed)
    inst = _instance(rng, n, K, speeds=(1.0, 1.2, 1.4), integer=integer)
    inst = BatchInstance.from_arrays(inst.release / load, inst.width, np.where(inst.fits, inst.duration, 0.0),
                                     inst.procs, inst.speed)
    best = brute_force(inst)
    result = instance_bounds(inst, method="lp", time_limit=20)
    _assert_below(result.bounds, best)
    assert bsld_quick(inst) / n <= best["mean_bounded_slowdown"] + TOL


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 4), K=st.integers(1, 2), integer=st.booleans(),
       load=st.sampled_from([0.5, 1.0, 3.0]))
def test_no_bound_above_the_brute_force_optimum(seed, n, K, integer, load):
    _check_against_brute_force(seed, n, K, integer, load)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6), K=st.integers(1, 3), integer=st.booleans(),
       load=st.sampled_from([0.3, 0.5, 1.0, 2.0, 3.0]))
def test_no_bound_above_the_brute_force_optimum_campaign(seed, n, K, integer, load):
    if n ** 2 * K > 40:
        n = 3
    _check_against_brute_force(seed, n, K, integer, load)


def test_time_grid_is_exact_on_integer_and_thirds_and_rounds_down_otherwise():
    inst = BatchInstance.from_arrays([0, 2], [1, 1], [[3, 2], [6, 4]], [2, 2], [1.0, 1.5])
    assert time_grid(inst, 100).exact
    odd = BatchInstance.from_arrays([0, 0.3], [1, 1], [[np.pi], [np.e]], [1])
    g = time_grid(odd, 10)
    assert not g.exact and (g.rel * g.delta <= odd.release - g.t0 + 1e-12).all()
    assert (g.dur[:, 0] * g.delta <= odd.duration[:, 0] + 1e-12).all()


def test_exact_time_limit_is_reported_honestly():
    rng = np.random.default_rng(3)
    q = rng.integers(1, 9, 16)
    p = rng.integers(1, 21, 16).astype(float)
    inst = BatchInstance.from_arrays(np.sort(rng.integers(0, 30, 16)).astype(float), q, p[:, None], [8])
    short = exact_optimum(inst, time_limit=0.05)
    assert short.status in (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)
    if short.status is Status.OPTIMAL:
        assert short.gap <= 1e-4 and short.schedule is not None
    else:
        assert short.schedule is None
        if short.status is Status.FEASIBLE and short.bound is not None:  # no dual bound before the root LP ends
            assert short.bound <= short.mean_response * (1 + 1e-9)


def test_exact_refuses_large_or_off_grid_workloads():
    n = MAX_EXACT_JOBS + 1
    big = BatchInstance.from_arrays(np.zeros(n), np.ones(n), np.ones((n, 1)), [4])
    with pytest.raises(InvalidInputError, match=f"at most {MAX_EXACT_JOBS} jobs"):
        exact_optimum(big)
    with pytest.raises(InvalidInputError, match="at most"):
        instance_bounds(big, method="exact")
    odd = BatchInstance.from_arrays([0, 0.3], [1, 1], [[np.pi], [np.e]], [1])
    with pytest.raises(InvalidInputError, match="grid"):
        exact_optimum(odd)
    with pytest.raises(InvalidInputError, match="method"):
        instance_bounds(odd, method="magic")
    assert "best" in METHODS


def _sim_jobs(rng, n, origins, procs):
    submit = np.sort(rng.integers(0, 400, n)).astype(float)
    width = np.array([int(rng.integers(1, procs[o] + 1)) for o in origins])
    run = rng.integers(0, 120, n).astype(float)
    req = np.ceil(run * rng.uniform(0.5, 3.0, n))  # some jobs run longer than requested: killed at the walltime
    return JobTable(job_id=np.arange(n), submit=submit, run_time=np.minimum(run, req), requested_time=req,
                    procs=width, origin=np.asarray(origins, dtype=np.int64))


def _policies():
    from heuristics.grid import make_meta
    from heuristics.grid.realloc import Reallocation

    yield "mct", lambda: make_meta("mct")
    yield "no-cancel", lambda: Reallocation("no-cancel", "minmin", period=60.0)
    yield "cancel", lambda: Reallocation("cancel", "sufferage", period=60.0)


_PAIRS = (("makespan", "makespan"), ("mean_response", "mean_response"), ("mean_bounded_slowdown", "mean_bsld"),
          ("max_stretch", "max_stretch"))


def test_no_bound_above_a_single_cluster_policy():
    rng = np.random.default_rng(11)
    jobs = _sim_jobs(rng, 24, [0] * 24, [8])
    bounds = batch_bounds(jobs, [make_cluster("c", 8, 1.0, "fcfs")], method="lp", time_limit=2).bounds
    for policy in ("fcfs", "easy", "cbf"):
        clusters = [make_cluster("c", 8, 1.0, policy)]
        result = simulate_grid(clusters, jobs)
        # durations as the simulator runs them (run time capped at the requested time)
        assert np.allclose(result.finish - result.start, batch_instance(jobs, clusters).duration[:, 0])
        got = metrics(result)["overall"]
        for name, key in _PAIRS:
            assert bounds[name].value <= got[key] * (1 + TOL), (policy, name, bounds[name], got[key])


def test_no_bound_above_a_grid_policy_with_speeds():
    rng = np.random.default_rng(5)
    procs = [6, 4, 8]
    origins = rng.integers(0, 3, 24)
    jobs = _sim_jobs(rng, 24, origins, procs)

    def platform():
        return [make_cluster(f"c{k}", p, s, b) for k, (p, s, b) in enumerate(zip(procs, (1.0, 1.2, 1.4),
                                                                                  ("fcfs", "cbf", "easy")))]

    bounds = batch_bounds(jobs, platform(), method="lp", time_limit=2).bounds
    for name, make in _policies():
        clusters = platform()
        result = simulate_grid(clusters, jobs, meta=make())
        rows = np.arange(len(jobs))
        assert np.allclose(result.finish - result.start, batch_instance(jobs, clusters).duration[rows, result.cluster])
        got = metrics(result)["overall"]
        for bname, key in _PAIRS:
            assert bounds[bname].value <= got[key] * (1 + TOL), (name, bname, bounds[bname], got[key])


def test_simulator_reports_max_stretch():
    jobs = JobTable(job_id=np.arange(3), submit=np.array([0.0, 0.0, 1.0]), run_time=np.array([4.0, 2.0, 0.0]),
                    requested_time=np.array([4.0, 2.0, 1.0]), procs=np.array([2, 2, 1]), origin=np.zeros(3, dtype=np.int64))
    result = simulate_grid([make_cluster("c", 2, 1.0, "fcfs")], jobs)
    # FCFS: job 0 on [0, 4), job 1 on [4, 6) (stretch 6 / 2 = 3), job 2 of zero length has no stretch
    assert metrics(result)["overall"]["max_stretch"] == pytest.approx(3.0)


def test_wide_jobs_raise_the_stretch_bound():
    # three jobs of 3 of 4 processors at 0, 1 s each: one at a time, the last ends at 3 (stretch 3); the fluid
    # machine alone only says 9 / 4 = 2.25
    inst = BatchInstance.from_arrays([0, 0, 0], [3, 3, 3], [[1], [1], [1]], [4])
    assert stretch_quick(inst) == pytest.approx(3.0, rel=1e-5)
    assert stretch_quick(inst) <= brute_force(inst)["max_stretch"] + 1e-9


def test_hopeless_window_sums_stop_without_a_value(monkeypatch):
    # once the windows' sum cannot reach the target the loop stops: no sum, and no quick bound of the windows left
    import lowerbounds.batch.bounds as bounds_module

    monkeypatch.setattr(bounds_module, "_PATIENCE", 0.0)
    inst = _instance(np.random.default_rng(3), 6, 1)
    windows = bounds_module._windows(inst, 2)
    calls = []

    def quick(sub):
        calls.append(len(sub))
        return flow_quick(sub)

    deadline = time.perf_counter() + 60.0
    assert bounds_module._lp_sum(inst, windows, lp_flow, quick, deadline, target=1e12) == (None, 0)
    assert len(calls) == 1
    total, solved = bounds_module._lp_sum(inst, windows, lp_flow, quick, deadline, target=None)
    assert solved == len(windows) and total <= brute_force(inst)["mean_response"] * 6 * (1 + TOL) + TOL


def test_the_lagrangian_step_gives_the_same_bound_under_any_clock():
    # the Lagrangian searches of instance_bounds are sized by work units from the time limit: two clocks that
    # both leave it room give the same bounds (the start is the quick bound, whatever the window LPs gave)
    import lowerbounds.batch.bounds as bounds_module

    inst = _instance(np.random.default_rng(5), 6, 1)
    quick = {"mean_response": flow_quick(inst) / 6, "mean_bounded_slowdown": bsld_quick(inst) / 6}
    found = []
    for clock in (1e6, 60.0):
        bounds = {name: bounds_module.MetricBound(value, "quick", 0.0) for name, value in quick.items()}
        bounds_module._apply_lagrangian(inst, bounds, time.perf_counter() + clock, quick, 1e-3)
        found.append({name: (b.value, b.detail) for name, b in bounds.items()})
    assert found[0] == found[1]
    assert found[0]["mean_response"][0] <= brute_force(inst)["mean_response"] * (1 + TOL) + TOL


def test_the_lagrangian_searches_keep_the_default_minute_and_get_what_a_long_limit_leaves():
    # the default minute's LP time (24 s) keeps its 12 s of searches (7.2 s to the mean response, 4.8 s to the
    # slowdown); a long limit gives them what the stretch searches and the window loops leave (0.8 T - 7.2 s);
    # a short one half of the LP time; never less for a longer limit
    from lowerbounds.batch.bounds import lagrangian_work
    from lowerbounds.batch.lagrangian import WORK_PER_SECOND

    def seconds(lp_time):
        work = lagrangian_work(lp_time)
        return work["mean_response"] / WORK_PER_SECOND, work["mean_bounded_slowdown"] / WORK_PER_SECOND

    assert seconds(24) == pytest.approx((7.2, 4.8))
    assert sum(seconds(240)) == pytest.approx(0.8 * 240 - 7.2)
    assert sum(seconds(8)) == pytest.approx(4.0)
    totals = [sum(seconds(t)) for t in np.linspace(1, 600, 50)]
    assert all(b >= a for a, b in zip(totals, totals[1:]))
