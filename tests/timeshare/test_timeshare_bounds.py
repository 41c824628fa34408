"""Lower bounds and the best clairvoyant mapping for time-shared servers (lowerbounds.timeshare*)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heuristics.timeshare import REGISTRY, run_heuristic
from lowerbounds.timeshare import (
    METRICS,
    TaskCosts,
    area_bound,
    critical_path,
    lp_bounds,
    maxstretch_lp_bound,
    quick_bounds,
    timeshare_bounds,
)
from lowerbounds.timeshare.lp import deadline_feasible, sumflow_interval_lp
from lowerbounds.timeshare.mapping import best_mapping, evaluate_mapping
from vcsched.generators.timeshare import generate_scenario
from vcsched.jitclock import clock
from vcsched.problems.timeshare import Platform, TimeshareInstance, first_tasks, metrics, platform_for
from vcsched.problems.timeshare import TimeshareWorkload as Workload
from vcsched.sim.timeshare import TimesharePolicy, simulate_timeshare

RTOL = 1e-7


class Fixed(TimesharePolicy):
    """The oracle's agent: a given server per task."""

    def __init__(self, mapping):
        self.mapping = mapping

    def choose(self, task, ttype, now):
        return [int(self.mapping[task])]


def simulated(platform, workload, mapping):
    run = simulate_timeshare(platform, workload, Fixed(mapping))
    return metrics(run.arrival, run.completion, run.duration), run


def brute_force(platform, workload):
    """Best value of each metric over every mapping, by the simulator itself (mappings that lose a task excluded)."""
    best = {m: math.inf for m in METRICS}
    for mapping in itertools.product(range(platform.n_servers), repeat=workload.n_tasks):
        values, run = simulated(platform, workload, mapping)
        if values["completed"] < workload.n_tasks:
            continue
        for m in METRICS:
            best[m] = min(best[m], values[m])
    return best


def random_platform(rng, servers=3, types=2, memory=None):
    compute = rng.uniform(2.0, 40.0, size=(servers, types))
    return Platform(name="rand", servers=tuple(f"s{i}" for i in range(servers)),
                    input=rng.uniform(0.0, 2.0, size=(servers, types)), compute=compute,
                    output=rng.uniform(0.0, 1.0, size=(servers, types)),
                    memory=np.full(servers, np.inf) if memory is None else memory,
                    task_memory=np.zeros(types) if memory is None else rng.uniform(1, 3, size=types))


def random_independent(seed: int, n: int, span: float, memory=None):
    """A random 3-server platform and ``n`` independent tasks of two types arriving over ``[0, span]``."""
    rng = np.random.default_rng(seed)
    platform = random_platform(rng, servers=3, memory=memory)
    workload = Workload.independent(np.sort(rng.uniform(0, span, size=n)), rng.integers(0, 2, size=n))
    return platform, workload


def b_prefix(n, mu, seed):
    inst = generate_scenario("b", mu=mu, rng=seed)
    return inst.platform, first_tasks(inst.workload, n)[0]


@pytest.mark.parametrize("seed", range(4))
def test_best_mapping_equals_brute_force_and_bounds_stay_below(seed):
    rng = np.random.default_rng(seed)
    platform = random_platform(rng, servers=3)
    workload = Workload.independent(np.sort(rng.uniform(0, 30, size=5)), rng.integers(0, 2, size=5))
    truth = brute_force(platform, workload)
    costs = TaskCosts.of(platform, workload)
    lp = lp_bounds(costs, time_limit=30)
    quick = quick_bounds(costs)
    for m in METRICS:
        res = best_mapping(costs, m, time_limit=30)
        assert res.status == "optimal"
        assert res.objective == pytest.approx(truth[m], rel=1e-9)
        values, _ = simulated(platform, workload, res.mapping)  # the mapping found has the value claimed
        assert values[m] == pytest.approx(res.objective, rel=1e-9)
        assert quick[m] <= truth[m] * (1 + RTOL)
        assert lp[m].value <= truth[m] * (1 + RTOL)


def test_brute_force_with_memory_refusals():
    # two dgemm-like tasks cannot share the small server: mappings that lose a task are not candidates
    rng = np.random.default_rng(7)
    platform = random_platform(rng, servers=2, types=1, memory=np.array([2.5, 100.0]))
    workload = Workload.independent([0.0, 1.0, 2.0, 3.0], [0, 0, 0, 0])
    truth = brute_force(platform, workload)
    costs = TaskCosts.of(platform, workload)
    for m in ("sumflow", "makespan"):
        res = best_mapping(costs, m, time_limit=30)
        assert res.status == "optimal"
        assert res.objective == pytest.approx(truth[m], rel=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_evaluate_mapping_is_the_simulator(seed):
    rng = np.random.default_rng(seed)
    platform, workload = b_prefix(12, 15.0, seed)
    mapping = rng.integers(0, platform.n_servers, size=workload.n_tasks)
    _, run = simulated(platform, workload, mapping)
    np.testing.assert_allclose(evaluate_mapping(TaskCosts.of(platform, workload), mapping), run.completion,
                               rtol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_evaluate_mapping_refuses_as_the_simulator(seed):
    # dgemm tasks on servers of 40-60 MB: some tasks are refused (lost) as in the simulator
    rng = np.random.default_rng(seed)
    inst = generate_scenario("a", mu=5.0, rng=seed)
    platform = Platform(name="small", servers=inst.platform.servers, input=inst.platform.input,
                        compute=inst.platform.compute, output=inst.platform.output,
                        memory=np.array([60.0, 40.0, 60.0, 40.0]), task_memory=inst.platform.task_memory)
    workload = first_tasks(inst.workload, 14)[0]
    mapping = rng.integers(0, 2, size=workload.n_tasks)  # crowd the first two servers
    _, run = simulated(platform, workload, mapping)
    ours = evaluate_mapping(TaskCosts.of(platform, workload), mapping)
    assert np.isnan(run.completion).any()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(run.completion))
    np.testing.assert_allclose(ours, run.completion, rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(arrivals=st.lists(st.floats(0, 60, allow_nan=False), min_size=1, max_size=5),
       seed=st.integers(0, 2**32 - 1))
def test_bounds_never_exceed_the_best_mapping(arrivals, seed):
    rng = np.random.default_rng(seed)
    platform = random_platform(rng, servers=int(rng.integers(2, 4)))
    workload = Workload.independent(np.array(arrivals), rng.integers(0, 2, size=len(arrivals)))
    costs = TaskCosts.of(platform, workload)
    lp = lp_bounds(costs, time_limit=30)
    for m in METRICS:
        res = best_mapping(costs, m, time_limit=30)
        assert res.status == "optimal"
        assert lp[m].value <= res.objective * (1 + RTOL)
        if m == "sumflow":  # short windows with coarser levels behind them: still below the optimum
            a = costs.arrival
            out, _ = sumflow_interval_lp(a, a[:, None] + costs.inp, costs.p, costs.out,
                                         window=0.5 * costs.dur.min(axis=1), delta=float(costs.p.min()) / 4,
                                         levels=3)
            assert out.objective <= res.objective * (1 + RTOL)


def test_ten_tasks_of_scenario_b_are_solved_exactly():
    platform, workload = b_prefix(10, 17.0, 1)
    costs = TaskCosts.of(platform, workload)
    res = best_mapping(costs, "sumflow", time_limit=60)
    assert res.status == "optimal" and res.gap == 0.0
    values, _ = simulated(platform, workload, res.mapping)
    assert values["sumflow"] == pytest.approx(res.objective, rel=1e-9)
    for name in REGISTRY.names():  # no heuristic beats the best mapping
        run = run_heuristic(name, TimeshareInstance("b", platform, workload))
        assert metrics(run.arrival, run.completion, run.duration)["sumflow"] >= res.objective * (1 - 1e-9)


def test_time_limit_is_reported_with_bound_and_gap():
    platform, workload = b_prefix(16, 15.0, 2)
    res = best_mapping(TaskCosts.of(platform, workload), "sumflow", time_limit=0.05)
    assert res.status in ("time_limit", "optimal")
    if res.status == "time_limit":
        assert res.bound <= res.objective and res.gap == pytest.approx((res.objective - res.bound) / res.bound)


def test_too_large_falls_back_to_bound_and_gap():
    platform, workload = b_prefix(20, 17.0, 0)
    refs = timeshare_bounds(platform, workload, method="exact", time_limit=4, metrics=("sumflow",))
    ref = refs["sumflow"]
    assert ref.status == "too_large" and ref.optimum is None
    costs = TaskCosts.of(platform, workload)
    lp = lp_bounds(costs, time_limit=4, metrics=("sumflow",))["sumflow"]
    # the LP bound it keeps had half the time (its pair windows widen while time allows): between the
    # quick bound and the LP bound of the whole limit
    assert quick_bounds(costs)["sumflow"] * (1 - 1e-9) <= ref.value <= lp.value * (1 + 1e-9)
    assert ref.gap > 0 and ref.mapping is not None


@pytest.mark.parametrize("mu", [15.0, 17.0, 20.0])
def test_no_bound_above_any_heuristic(mu):
    platform, workload = b_prefix(25, mu, 3)
    refs = timeshare_bounds(platform, workload, method="lp", time_limit=3)  # valid at any limit (the windows widen with it)
    for name in REGISTRY.names():
        run = run_heuristic(name, TimeshareInstance("b", platform, workload))
        values = metrics(run.arrival, run.completion, run.duration)
        assert values["completed"] == workload.n_tasks
        for m in METRICS:
            assert refs[m].value <= values[m] * (1 + RTOL), (name, m)


def _check_below_heuristics(scenario, n, method="best"):
    inst = generate_scenario(scenario, rng=1)
    workload = first_tasks(inst.workload, n)[0]
    costs = TaskCosts.of(inst.platform, workload)
    assert critical_path(costs) > 0 and area_bound(costs) > 0
    refs = timeshare_bounds(inst.platform, workload, method=method, time_limit=20)
    for name in REGISTRY.names():
        run = run_heuristic(name, TimeshareInstance(scenario, inst.platform, workload))
        values = metrics(run.arrival, run.completion, run.duration)
        if values["completed"] < workload.n_tasks:
            continue  # a run that lost tasks reports metrics over fewer tasks: not bounded
        for m in METRICS:
            assert refs[m].value <= values[m] * (1 + RTOL), (name, m)


@pytest.mark.parametrize("scenario, n", [("c", 60), ("f", 60)])
def test_dag_bounds_below_heuristics(scenario, n):
    _check_below_heuristics(scenario, n)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", list("abcdefghij"))
def test_no_bound_above_any_heuristic_in_every_scenario(scenario):
    _check_below_heuristics(scenario, 500 if scenario == "b" else 120, method="lp")


def test_critical_path_of_a_chain():
    platform = platform_for("2")
    workload = Workload(np.array([0, 1, 2]), np.array([5.0, np.nan, np.nan]), ((), (0,), (1,)), np.zeros(3, int))
    d = platform.duration.min(axis=0)
    assert critical_path(TaskCosts.of(platform, workload)) == pytest.approx(5.0 + d.sum())


def test_maxstretch_bisection_is_exact_to_1e6():
    platform = platform_for("2")
    workload = Workload.independent([0.0, 0.0, 0.0, 1.0, 2.0, 2.0], [2, 2, 1, 0, 0, 1])  # loaded: stretch > 1
    costs = TaskCosts.of(platform, workload)
    sigma = maxstretch_lp_bound(costs)
    assert sigma > 1.0
    a = costs.arrival[:, None]
    release = a + costs.inp
    assert deadline_feasible(release, a + sigma * (1 + 2e-6) * costs.den - costs.out, costs.p)[0] is True
    assert deadline_feasible(release, a + sigma * costs.den - costs.out, costs.p)[0] is False


def test_first_tasks_keeps_parents():
    inst = generate_scenario("f", rng=0)
    workload, keep = first_tasks(inst.workload, 25)
    assert workload.n_tasks == 25 and np.all(np.diff(keep) > 0)
    assert all(p < i for i, ps in enumerate(workload.parents) for p in ps)


def test_pair_bound_is_processor_sharing_when_tasks_arrive_together():
    from lowerbounds.timeshare.pairs import sumflow_pair_bound

    p = np.array([[10.0], [30.0], [20.0]])
    zero = np.zeros_like(p)
    # one server: Σ p + 2 Σ_{i<j} min(p_i, p_j) = 60 + 2 (10 + 10 + 20) = 140 = 30 + 60 + 50, the PS sumflow
    ps_sum = float(ps_sum_of([10.0, 30.0, 20.0]))
    assert sumflow_pair_bound(np.zeros(3), zero, p, zero) == pytest.approx(ps_sum) == pytest.approx(140.0)


def ps_sum_of(works):
    from vcsched.sim.processor_sharing import ps_completion_times

    return ps_completion_times(works).sum()


@pytest.mark.parametrize("seed", range(3))
def test_pair_dynamic_programme_is_the_minimum_over_mappings(seed):
    from lowerbounds.timeshare.pairs import pair_slowdowns, sumflow_pair_bound

    rng = np.random.default_rng(seed)
    n, S = 5, 3
    a = np.sort(rng.uniform(0, 20, n))
    inp, p, out = rng.uniform(0, 1, (n, S)), rng.uniform(2, 20, (n, S)), rng.uniform(0, 1, (n, S))
    join = a[:, None] + inp

    def objective(m):
        total = sum(inp[i, m[i]] + p[i, m[i]] + out[i, m[i]] for i in range(n))
        for j in range(n):
            u = pair_slowdowns(join, p, np.arange(j), j)
            total += sum(2 * u[i, m[i]] for i in range(j) if m[i] == m[j])
        return total

    best = min(objective(m) for m in itertools.product(range(S), repeat=n))
    assert sumflow_pair_bound(a, inp, p, out, window=n - 1, shared=False) == pytest.approx(best)
    assert sumflow_pair_bound(a, inp, p, out, window=1, shared=False) <= best + 1e-9
    # sharing among the window's tasks only raises it, and it stays below the best mapping's sumflow
    platform = Platform(name="r", servers=tuple("xyz"), input=inp[0][:, None],
                        compute=p[0][:, None], output=out[0][:, None], memory=np.full(S, np.inf),
                        task_memory=np.zeros(1))
    workload = Workload.independent(a, np.zeros(n, dtype=int))
    costs = TaskCosts.of(platform, workload)
    args = (costs.arrival, costs.inp, costs.p, costs.out)
    shared = sumflow_pair_bound(*args, window=n - 1)
    assert shared >= sumflow_pair_bound(*args, window=n - 1, shared=False) - 1e-9
    assert shared <= best_mapping(costs, "sumflow").objective * (1 + RTOL)


@pytest.mark.parametrize("seed", range(3))
def test_every_pair_window_and_the_widened_bound_stay_below_the_brute_force_optimum(seed):
    from lowerbounds.timeshare.bounds import pairs_bounds
    from lowerbounds.timeshare.pairs import sumflow_pair_bound

    rng = np.random.default_rng(seed)
    platform = random_platform(rng, servers=2)
    workload = Workload.independent(np.sort(rng.uniform(0, 15, size=7)), rng.integers(0, 2, size=7))
    truth = brute_force(platform, workload)["sumflow"]
    costs = TaskCosts.of(platform, workload)
    args = (costs.arrival, costs.inp, costs.p, costs.out)
    for window in range(1, 7):
        assert sumflow_pair_bound(*args, window=window) <= truth * (1 + 1e-9)
    plain = pairs_bounds(costs)["sumflow"]
    widened = pairs_bounds(costs, deadline=clock() + 30)["sumflow"]
    assert plain - 1e-9 <= widened <= truth * (1 + 1e-9)
    assert widened >= sumflow_pair_bound(*args, window=6) - 1e-9  # the window grew to n - 1


@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_pair_programme_is_the_plain_one(seed):
    from lowerbounds.timeshare.pairs import sumflow_pair_bound
    from tests.timeshare.plain_pairs import plain_pair_bound

    rng = np.random.default_rng(seed)
    n, S = int(rng.integers(2, 10)), int(rng.integers(1, 4))
    a = rng.integers(0, 20, n).astype(float)  # ties and an unsorted order
    inp, out = rng.integers(0, 3, (n, S)).astype(float), rng.integers(0, 3, (n, S)).astype(float)
    p = rng.integers(1, 12, (n, S)).astype(float)
    for window in (1, 2, 3, 5):
        for shared in (True, False):
            assert sumflow_pair_bound(a, inp, p, out, window=window, shared=shared) == pytest.approx(
                plain_pair_bound(a, inp, p, out, window=window, shared=shared), rel=1e-12)


def test_a_pair_programme_overtaken_by_its_deadline_gives_up():

    from lowerbounds.timeshare.pairs import sumflow_pair_bound

    p = np.full((5, 2), 3.0)
    assert sumflow_pair_bound(np.arange(5.0), 0 * p, p, 0 * p, window=2, deadline=clock() - 1) is None


@pytest.mark.parametrize("seed", range(3))
def test_the_pair_bound_with_slow_servers_merged_stays_below_the_brute_force_optimum(seed):
    from lowerbounds.timeshare.bounds import merge_slow_servers
    from lowerbounds.timeshare.pairs import sumflow_pair_bound

    rng = np.random.default_rng(10 + seed)
    n = 6
    compute = np.array([[4.0], [5.0], [30.0], [40.0]]) * rng.uniform(0.8, 1.2, (4, 1))
    platform = Platform(name="m", servers=("f1", "f2", "s1", "s2"), input=np.full((4, 1), 0.5),
                        compute=compute, output=np.full((4, 1), 0.2), memory=np.full(4, np.inf),
                        task_memory=np.zeros(1))
    workload = Workload.independent(np.sort(rng.uniform(0, 12, size=n)), np.zeros(n, dtype=int))
    truth = brute_force(platform, workload)["sumflow"]
    costs = TaskCosts.of(platform, workload)
    merged = merge_slow_servers(costs.arrival, costs.inp, costs.p, costs.out)
    assert merged is not None and merged[2].shape[1] == 3  # two fast servers and the merged label
    assert merge_slow_servers(costs.arrival, costs.inp[:, :3], costs.p[:, :3], costs.out[:, :3]) is None
    for window in range(1, n):
        assert sumflow_pair_bound(*merged, window=window) <= truth * (1 + 1e-9)
        # the merged label only drops terms: never above the plain programme at the same window
        assert sumflow_pair_bound(*merged, window=window) <= sumflow_pair_bound(
            costs.arrival, costs.inp, costs.p, costs.out, window=window) * (1 + 1e-12)


def test_the_bisections_do_not_depend_on_the_machines_speed(fake_clock, monkeypatch):
    """The maxflow bisection runs to its tolerance whatever each LP costs, the time limit only a safety: with each
    of its 22 LPs taking 2 s of a 60 s limit shared with maxstretch (its share, 30 s, cut it at 15 LPs before) it
    gives the value of LPs that take no time."""
    import lowerbounds.timeshare.bounds as bounds

    costs = TaskCosts.of(*random_independent(0, 12, 10))
    fast = lp_bounds(costs, time_limit=60, metrics=("maxflow", "maxstretch"))["maxflow"]
    feasible, solves = bounds.deadline_feasible, []

    def slow(*args, **kwargs):
        fake_clock.now += 2.0
        solves.append(1)
        return feasible(*args, **kwargs)

    monkeypatch.setattr(bounds, "deadline_feasible", slow)
    slowed = lp_bounds(costs, time_limit=60, metrics=("maxflow", "maxstretch"))["maxflow"]
    assert len(solves) >= 22
    assert slowed.value == fast.value and slowed.method == fast.method == "lp"
