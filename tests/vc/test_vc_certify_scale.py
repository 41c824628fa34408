"""certify at scale: sparse structures against dense oracles, the pruned improvement search
against the full one, and how certify shares its time limit (on a fake clock)."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from scipy.optimize import linprog

from heuristics.vc import REGISTRY
from heuristics.vc import improve as improve_mod
from heuristics.vc.improve import improve_placement
from heuristics.vc.improve_state import Placement
from lowerbounds.vc.certification import CertifyOptions, certify
from lowerbounds.vc.certification_run import host_columns
from lowerbounds.vc.packing import MasterLP, PackingItems, configuration_lp, singleton_counts
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems.vc import VCInstance, host_loads
from vcsched.result import Status

# --------------------------------------------------------------------------- sparse LP columns vs dense oracles


def _dense_singleton_lp(items: PackingItems, load: float) -> float:
    """The master restricted to the singleton columns, built densely (np.diag), by linprog."""
    k = singleton_counts(items.cpu, items.mem, items.demand, load)
    res = linprog(np.ones(k.size), A_ub=-np.diag(k), b_ub=-items.demand.astype(float), method="highs")
    assert res.status == 0
    return float(res.fun)


def _all_configurations(items: PackingItems, load: float) -> np.ndarray:
    """Every maximal-or-not configuration of a tiny instance (rows), by enumeration."""
    ranges = [range(int(d) + 1) for d in items.demand]
    cols = [a for a in itertools.product(*ranges) if any(a)
            and np.dot(a, items.cpu) <= load * (1 + 1e-9) and np.dot(a, items.mem) <= 1 + 1e-9]
    return np.array(cols, dtype=float)


@pytest.mark.parametrize("seed", range(8))
def test_sparse_singleton_master_equals_the_dense_form(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    items = PackingItems(rng.uniform(0.05, 0.9, n), rng.uniform(0.0, 0.6, n), rng.integers(1, 6, n), 4)
    load = float(rng.uniform(1.0, 2.0))
    master = MasterLP(items.demand)
    master.add_singletons(singleton_counts(items.cpu, items.mem, items.demand, load))
    value, pi = master.solve()
    assert master.n_cols == n
    assert value == pytest.approx(_dense_singleton_lp(items, load), rel=1e-9)
    assert np.all(pi >= 0)


@pytest.mark.parametrize("seed", range(10))
def test_configuration_lp_bound_never_exceeds_the_full_configuration_lp(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 5))
    items = PackingItems(rng.uniform(0.1, 0.8, n), rng.uniform(0.05, 0.6, n), rng.integers(1, 4, n), 1)
    load = 1.0
    configs = _all_configurations(items, load)
    full = linprog(np.ones(len(configs)), A_ub=-configs.T, b_ub=-items.demand.astype(float), method="highs")
    proof = configuration_lp(items, load)
    assert proof.complete
    # the Farley bound is a lower bound on the LP optimum, and at the end equals it (within tolerance)
    assert proof.bins_lower <= full.fun * (1 + 1e-6) + 1e-9
    assert proof.lp_value is None or proof.lp_value >= full.fun - 1e-7
    if np.ceil(full.fun - 1e-9) > items.hosts:
        assert proof.infeasible


def test_host_columns_are_the_dense_counts_made_sparse():
    inst = generate_vc_instance(6, 20, 0.5, 0.75, 0.75, rng=3, tasks="lublin")  # parallel jobs: counts > 1
    th = np.random.default_rng(0).integers(0, 6, inst.n_tasks)
    th[:2] = 5  # host 5 used; some host may be empty
    dense = np.zeros((inst.hosts, inst.n_jobs))
    np.add.at(dense, (th, inst.task_job), 1.0)
    expected = [row for row in dense if row.any()]
    got = host_columns(inst, th)
    assert len(got) == len(expected)
    for (idx, val), row in zip(got, expected):
        back = np.zeros(inst.n_jobs)
        back[idx] = val
        assert np.array_equal(back, row)


# --------------------------------------------------------------------------- pruned partner search == full search


def _full_search(find, s, h: int, peak: float):
    """``find``'s answer when the first block holds every host (the search over every host)."""
    saved = improve_mod._FIRST_BLOCK
    improve_mod._FIRST_BLOCK = 10**9
    try:
        return find(s, h, peak)
    finally:
        improve_mod._FIRST_BLOCK = saved


@pytest.mark.parametrize("seed", range(6))
def test_least_loaded_first_finds_the_full_search_answer(seed):
    rng = np.random.default_rng(seed)
    inst = generate_vc_instance(120, 600, 0.5, 0.75, 0.75, rng=seed)
    start = REGISTRY.get("sg")(inst).solution.task_host
    s = Placement.start(inst, start.astype(np.int64).copy(), None)
    for _ in range(20):
        h = int(np.argmax(s.load))
        peak = float(s.load[h])
        for find in (improve_mod._move, improve_mod._swap, improve_mod._swap21):
            fast = find(s, h, peak)
            full = _full_search(find, s, h, peak)
            assert fast == full
        # random relocations keep the states varied (memory may overflow: only the search is tested)
        s.relocate(int(rng.integers(inst.n_tasks)), int(rng.integers(inst.hosts)))


@pytest.mark.parametrize("seed", range(3))
def test_least_loaded_first_at_scale_finds_an_improvement_when_one_exists(seed):
    """Beyond ``_EXACT_HOSTS`` partners the blocks of least loaded hosts grow until one holds a
    candidate that lowers the peak (memory-full hosts are passed over): along a descent on 400
    hosts with memory nearly full, a neighbourhood finds a step exactly when the search over
    every host finds one, and its step lowers the peak as much as the best one or less (never
    above the peak)."""
    inst = generate_vc_instance(400, 4000, 0.2, 0.75, 0.5, rng=seed)
    s = Placement.start(inst, REGISTRY.get("sg")(inst).solution.task_host.astype(np.int64).copy(), None)
    blocked = 0
    for _ in range(150):
        h = int(np.argmax(s.load))
        peak = float(s.load[h])
        step = None
        for find in (improve_mod._move, improve_mod._swap):
            fast = find(s, h, peak)
            full = _full_search(find, s, h, peak)
            assert (fast is None) == (full is None)
            if fast is not None:
                step = fast
                break
        if step is None:
            break
        before = s.load.copy()
        s.apply(step)
        assert s.load.max() <= peak and s.load[h] < peak
        blocked += int(np.argmin(before) not in {g for _, g in step} and len(step) == 1)
    assert blocked  # some moves went past the least loaded host (its memory was full)


@pytest.mark.parametrize("seed", range(2))
def test_cpu_windows_give_the_answer_of_every_task(seed, monkeypatch):
    """Beyond ``_WINDOW_HOSTS`` partners an exchange looks only at the tasks in the CPU windows
    (:meth:`Placement.smaller_within`); along a descent of 300 hosts from MCB8 (windows from 16
    partners on, so that they are used), every move, swap and 2-1 swap is the one found among
    every task of those hosts."""
    monkeypatch.setattr(improve_mod, "_WINDOW_HOSTS", 16)
    inst = generate_vc_instance(300, 3000, 0.3, 0.5, 0.5, rng=seed)
    s = Placement.start(inst, REGISTRY.get("mcb8")(inst).solution.task_host.astype(np.int64).copy(), None)
    windows = []
    plain = Placement.smaller_within
    monkeypatch.setattr(Placement, "smaller_within",
                        lambda self, sizes, room: windows.append(1) or plain(self, sizes, room))
    for _ in range(400):
        h = int(np.argmax(s.load))
        peak = float(s.load[h])
        step = None
        for find in (improve_mod._move, improve_mod._swap, improve_mod._swap21):
            fast = find(s, h, peak)
            with monkeypatch.context() as m:
                m.setattr(improve_mod, "_WINDOW_HOSTS", 10**9)
                assert fast == find(s, h, peak)
            if fast is not None:
                step = fast
                break
        if step is None:
            break
        s.apply(step)
    assert windows  # the windows were used


def test_search_keeps_the_host_task_sets_in_step():
    inst = generate_vc_instance(10, 60, 0.5, 0.75, 0.75, rng=1)
    start = REGISTRY.get("sg")(inst).solution.task_host
    th, _ = improve_placement(inst, start, time_limit=None, max_kicks=10, lns_hosts=0, rng=1)
    s = Placement.start(inst, th.copy(), None)
    rng = np.random.default_rng(0)
    for _ in range(200):
        s.relocate(int(rng.integers(inst.n_tasks)), int(rng.integers(inst.hosts)))
    for h in range(inst.hosts):
        assert set(np.flatnonzero(s.th == h).tolist()) == s.members[h]
    assert np.allclose(s.load, host_loads(inst, s.th))


# --------------------------------------------------------------------------- the time limit, on a fake clock


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _open_instance():
    """An instance where a placement 10 % off the optimum cannot be improved by a no-op improve."""
    return generate_vc_instance(8, 30, 0.6, 0.75, 0.75, rng=11)


def _bad_start(inst: VCInstance) -> np.ndarray:
    rng = np.random.default_rng(0)
    best = None
    for _ in range(200):  # a random placement that fits memory, kept far from the optimum
        th = rng.integers(0, inst.hosts, inst.n_tasks)
        if np.all(np.bincount(th, weights=inst.task_mem, minlength=inst.hosts) <= 1):
            if best is None or host_loads(inst, th).max() > host_loads(inst, best).max():
                best = th
    assert best is not None
    return best


def _FAST_LP(clock) -> CertifyOptions:
    """The configuration LP (on the real clock) only far above the optimum, where it finishes at once:
    two bisection steps, a generous cap; everything else on the fake clock; no dive (it would
    close the gap: these tests are about the time the improvement and the LP tests share)."""
    return CertifyOptions(now=clock, bisection_steps=2, lp_test_limit=60.0, dive_share=0.0)


def test_certify_spends_the_time_limit_while_the_gap_is_open_and_never_beyond():
    inst = _open_instance()
    clock = FakeClock()
    calls = []

    def idle_improve(instance, task_host, *, target_load, time_limit, rng):
        calls.append((clock.t, time_limit))
        clock.t += min(time_limit, 2.0)  # gives up after 2 s (its kicks found nothing), before its budget
        return task_host, {"steps": 0, "kicks": 3, "lns_tried": 0}

    start = _bad_start(inst)
    res = certify(inst, starts=[start], improve=idle_improve, time_limit=30.0, stop_gap=1e-4,
                  options=_FAST_LP(clock))
    deadline = 1000.0 + 30.0
    assert res.status is Status.FEASIBLE and res.extra["closed_by"] == "none"
    assert res.extra["lp_incomplete"] == 0  # no test was cut short: only the primal side can use the time
    assert len(calls) >= 14  # called again and again while time was left
    assert all(t + budget <= deadline + 0.02 for t, budget in calls)  # never given time beyond the limit
    assert clock.t >= deadline - 0.5  # and the limit was used
    assert res.seconds >= 29.5


def test_certify_stops_early_when_nothing_is_left_to_try():
    inst = _open_instance()
    clock = FakeClock()
    calls = []

    def stuck_improve(instance, task_host, *, target_load, time_limit, rng):
        calls.append(time_limit)
        clock.t += 0.01
        return task_host, {"steps": 0, "kicks": 0, "lns_tried": 0}

    res = certify(inst, starts=[_bad_start(inst)], improve=stuck_improve, time_limit=1000.0,
                  options=_FAST_LP(clock))
    assert res.status is Status.FEASIBLE and res.extra["lp_incomplete"] == 0
    assert clock.t - 1000.0 < 1  # nothing to try: no reason to wait for the limit
    assert len(calls) == 3  # before the LP, after the probe, once in the loop


def test_certify_without_a_time_limit_stops():
    inst = _open_instance()
    calls = []

    def busy_improve(instance, task_host, *, target_load, time_limit, rng):
        calls.append(time_limit)
        return task_host, {"steps": 0, "kicks": 200, "lns_tried": 0}  # always tries, never finds

    res = certify(inst, starts=[_bad_start(inst)], improve=busy_improve, time_limit=None,
                  options=CertifyOptions(bisection_steps=2, lp_test_limit=60.0, dive_share=0.0))
    assert res.status is Status.FEASIBLE and res.extra["closed_by"] == "none"
    assert all(t is None for t in calls) and len(calls) == 3
    assert res.extra["seconds_integer_master"] == 0.0  # its share is 0 by default, also without a limit
    calls.clear()  # with the dive (the default), the gap closes, without a limit too
    dived = certify(inst, starts=[_bad_start(inst)], improve=busy_improve, time_limit=None,
                    options=CertifyOptions(bisection_steps=2, lp_test_limit=60.0))
    assert dived.status is Status.OPTIMAL and dived.extra["dive"]["found"] >= 1


def _planted_average(seed: int, hosts: int = 12, per_host: int = 4) -> VCInstance:
    """Every host of a hidden placement has CPU exactly 1.6 (so the average load is reachable
    and the configuration LP cannot exclude any load above it); memory light; tasks shuffled."""
    rng = np.random.default_rng(seed)
    cpu = np.concatenate([np.diff(np.concatenate(([0.0], np.sort(rng.uniform(0.1, 0.9, per_host - 1)), [1.0]))) * 1.6
                          for _ in range(hosts)])
    order = rng.permutation(cpu.size)
    return VCInstance(hosts=hosts, cpu=cpu[order], mem=np.full(cpu.size, 0.05), tasks=np.ones(cpu.size, dtype=np.int64))


@pytest.mark.parametrize("closing_first", [True, False])
def test_certify_tests_the_closing_load_first_and_gives_its_dive_more_time(closing_first, monkeypatch):
    """After a probe test that the configuration LP cannot exclude, certify tests the load that
    closes the gap (proven load x (1 + stop gap)) next, and the dive aimed there gets
    ``closing_dive_share`` of the time left; without ``closing_test_first`` the bisection tests
    the midpoint next. Checked on a planted instance (an exact partition at the average load)
    without improvement step, so that the gap stays open after the heuristics."""
    import lowerbounds.vc.certification_run as run_mod
    import lowerbounds.vc.dive as dive_mod

    tested, dives = [], []
    prove = run_mod.Run.prove
    monkeypatch.setattr(run_mod.Run, "prove", lambda self, load, cap: tested.append((load, self.load_lo)) or prove(self, load, cap))
    dive = dive_mod.dive_packing

    def spy(items, load, *, deadline=None, columns=()):
        now = time.perf_counter()
        dives.append((load, (deadline - now) / (20.0 - (now - t0))))  # the share of the time left it gets
        return dive(items, load, deadline=deadline, columns=columns)

    monkeypatch.setattr(dive_mod, "dive_packing", spy)
    inst = _planted_average(1)
    options = CertifyOptions(closing_test_first=closing_first, improve_share=0.0)
    t0 = time.perf_counter()
    res = certify(inst, heuristics=[REGISTRY.get("gr")], time_limit=20.0, stop_gap=1e-4, options=options)
    assert len(tested) >= 2
    (probe, lo), (second, lo2) = tested[0], tested[1]
    assert lo2 == lo and probe > lo * (1 + 1e-4)
    if closing_first:
        assert second == lo * (1 + 1e-4)
        assert dives and dives[0][0] == second and 0.85 < dives[0][1] <= 0.9 + 1e-3
    else:
        assert second == 0.5 * (lo + probe)
    assert res.status.has_solution and res.bound >= res.objective - 1e-12
