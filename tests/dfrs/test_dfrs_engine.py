"""DFRS engine and policies: every run of the test workloads passes the independent checker;
non-clairvoyance; the engine refuses a bad decision; CPU sharing rules."""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.dfrs import POLICIES, make_policy, share_cpu, simulate_policy
from tests.dfrs.checker import check_run
from vcsched.problems.dfrs import DfrsJobs, DfrsPlatform, dfrs_jobs
from vcsched.problems.vc import VCInstance, maximize_average_yield
from vcsched.sim.dfrs import Decision, PolicyError, simulate_dfrs

FRACTIONAL = [n for n in POLICIES.names() if POLICIES.get(n).batch is None]


def random_jobs(seed: int, n: int = 30, hosts: int = 4, cores: int = 2) -> tuple[DfrsJobs, DfrsPlatform]:
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 4000, n)).astype(float)
    run = rng.choice([0.0, 5.0, 60.0, 600.0, 3000.0], n, p=[0.05, 0.2, 0.3, 0.3, 0.15]) * rng.uniform(0.5, 1.5, n)
    tasks = rng.integers(1, hosts * cores + 1, n)
    mem = rng.choice([0.05, 0.2, 0.45, 0.7], n) / cores * rng.uniform(0.5, 1.0, n)
    return DfrsJobs.from_arrays(submit, run, tasks, mem, requested=run * 2), DfrsPlatform(hosts, cores)


def kth_jobs(trace, n: int = 60):
    from vcsched.problems.workload import read_workload

    w = read_workload(trace("KTH-SP2-1996-2.1-cln.swf.gz"))
    w = w.select(np.arange(len(w)) < n)
    plat = DfrsPlatform(100, 1)
    return dfrs_jobs(w, plat, "model", seed=3), plat


@pytest.mark.parametrize("policy", FRACTIONAL)
@pytest.mark.parametrize("seed,penalty,target", [(0, 300.0, "avgyield"), (1, 0.0, "maxmin"), (2, 300.0, "maxmin")])
def test_checker_on_random_workloads(policy, seed, penalty, target):
    jobs, plat = random_jobs(seed)
    pol = make_policy(policy, period=500.0, cpu_target=target)
    res = simulate_dfrs(jobs, plat, pol, penalty=penalty, record=True)
    check_run(res, penalty)


@pytest.mark.parametrize("policy", FRACTIONAL)
def test_checker_on_kth(policy, trace):
    jobs, plat = kth_jobs(trace)
    res = simulate_dfrs(jobs, plat, make_policy(policy), penalty=300.0, record=True)
    check_run(res, 300.0)


def test_realloc_on_arrival_checked():
    jobs, plat = random_jobs(5)
    pol = make_policy("mcb8-per", period=500.0, on_arrival=True)
    res = simulate_dfrs(jobs, plat, pol, penalty=100.0, record=True)
    check_run(res, 100.0)
    base = simulate_dfrs(jobs, plat, make_policy("mcb8-per", period=500.0), penalty=100.0, record=True)
    assert res.log != base.log


def test_budget_respected():
    jobs, plat = random_jobs(4)
    pol = make_policy("mcb8-per", period=300.0, budget=0.3)
    res = simulate_dfrs(jobs, plat, pol, penalty=60.0, budget=0.3, record=True)
    check_run(res, 60.0)
    free = simulate_dfrs(jobs, plat, make_policy("mcb8-per", period=300.0), penalty=60.0)
    assert free.memory_moved > res.memory_moved


@pytest.mark.parametrize("policy", FRACTIONAL)
def test_non_clairvoyant(policy):
    """Run times of the jobs not ended by T are lengthened: every decision before T is the same."""
    jobs, plat = random_jobs(7)
    res = simulate_dfrs(jobs, plat, make_policy(policy, period=500.0), penalty=100.0, record=True)
    T = float(np.median(res.end))
    late = res.end > T
    assert late.any()
    changed = DfrsJobs.from_arrays(jobs.submit, np.where(late, jobs.run * 1.7 + 50, jobs.run), jobs.tasks, jobs.mem)
    res2 = simulate_dfrs(changed, plat, make_policy(policy, period=500.0), penalty=100.0, record=True)
    before = [entry for entry in res.log if entry[0] < T]
    assert [entry for entry in res2.log if entry[0] < T] == before
    assert res2.log != res.log  # the change matters after T


def test_view_has_no_run_time():
    from vcsched.sim.dfrs import View

    assert not any("run" in f for f in View.__dataclass_fields__)


class _Overflow:
    name, period = "overflow", None

    def decide(self, view):
        return Decision({j: (0,) * view.tasks[k] for k, j in enumerate(view.jobs)}, dict.fromkeys(view.jobs, 1.0))


def test_engine_refuses_overflow():
    jobs = DfrsJobs.from_arrays([0.0, 0.0], [10.0, 10.0], [1, 1], [0.6, 0.6])
    with pytest.raises(PolicyError, match="overflowed"):
        simulate_dfrs(jobs, DfrsPlatform(2, 1), _Overflow())


def test_progress_and_penalty_by_hand():
    """Two one-task jobs on one host: both at yield 1/2 until the first ends; the second gets 1 then."""
    jobs = DfrsJobs.from_arrays([0.0, 0.0], [10.0, 30.0], [1, 1], [0.1, 0.1])
    res = simulate_dfrs(jobs, DfrsPlatform(1, 1), make_policy("greedy"), penalty=300.0)
    assert res.end.tolist() == pytest.approx([20.0, 40.0])
    assert res.metrics()["max_stretch"] == pytest.approx(2.0)


def test_average_yield_matches_lp_for_one_task_jobs():
    rng = np.random.default_rng(5)
    for _ in range(20):
        hosts, n = 3, 7
        placed = rng.integers(0, hosts, n)
        placement = {j: (int(placed[j]),) for j in range(n)}
        y = share_cpu(placement, hosts, 1, "avgyield")
        inst = VCInstance(hosts=hosts, cpu=np.ones(n), mem=np.zeros(n), tasks=np.ones(n, dtype=np.int64))
        lp = maximize_average_yield(inst, placed, min(1.0, 1.0 / np.bincount(placed).max()))
        assert sum(y.values()) == pytest.approx(float(lp.task_cpu.sum()))


def test_max_min_is_max_min_fair():
    placement = {0: (0, 1), 1: (0,), 2: (1,), 3: (1,), 4: (2,)}
    y = share_cpu(placement, 3, 1, "maxmin")
    assert y[0] == pytest.approx(1 / 3) and y[2] == pytest.approx(1 / 3) and y[1] == pytest.approx(2 / 3)
    assert y[4] == 1.0


def test_batch_baselines_fill_whole_cores():
    jobs, plat = random_jobs(2)
    easy = simulate_policy(jobs, plat, "easy")
    assert np.all(easy.end - easy.start == pytest.approx(jobs.run))
    assert easy.metrics["migrations"] == 0


@pytest.mark.parametrize("policy", ["mcb8-per", "mcb8-per-stretch"])
@pytest.mark.parametrize("seed", [0, 3])
def test_hysteresis_checked_and_priority_rule(policy, seed):
    """With hysteresis every run passes the checker; the re-allocation order boosts running jobs by 1 + h."""
    jobs, plat = random_jobs(seed)
    res = simulate_dfrs(jobs, plat, make_policy(policy, period=300.0, hysteresis=1.0), penalty=100.0, record=True)
    check_run(res, 100.0)
    pol = make_policy(policy, hysteresis=1.0)
    from vcsched.sim.dfrs import View

    view = View(0.0, 2, 1, ("period",), [0, 1], [0.0, 0.0], [1, 1], [0.1, 0.1], [100.0, 100.0], [0.0, 0.0],
                ["running", "paused"], [(0,), None], [None, (1,)])
    assert pol.realloc_order(view, [1.0, 1.9]) == [0, 1]  # 1.9 < 2 x 1.0: the running job stays first
    assert pol.realloc_order(view, [1.0, 2.1]) == [1, 0]
    with pytest.raises(ValueError, match="hysteresis"):
        make_policy(policy, hysteresis=-1.0)


@pytest.mark.parametrize("small_job", [1, 2, 8])
def test_relabel_matches_plain_numpy(monkeypatch, small_job):
    """:func:`heuristics.dfrs.repack.relabel` (Python lists up to ``SMALL_JOB`` tasks, numpy chunks above)
    against the plain per-job numpy construction."""
    from scipy.optimize import linear_sum_assignment

    from heuristics.dfrs import repack
    from heuristics.dfrs.repack import relabel

    monkeypatch.setattr(repack, "SMALL_JOB", small_job)
    from vcsched.sim.dfrs import View

    rng = np.random.default_rng(1)
    hosts, n = 6, 9
    tasks = rng.integers(1, 4, n)
    old = [tuple(rng.integers(0, hosts, q).tolist()) if k % 3 else None for k, q in enumerate(tasks)]
    mem = rng.uniform(0.05, 0.3, n).tolist()
    view = View(0.0, hosts, 1, ("period",), list(range(n)), [0.0] * n, tasks.tolist(), mem, [1.0] * n, [0.0] * n,
                ["running"] * n, old, [None] * n)
    task_host = rng.integers(0, hosts, int(tasks.sum()))
    off = np.concatenate([[0], np.cumsum(tasks)])
    w = np.zeros((hosts, hosts))
    for k in range(n):
        if old[k] is None:
            continue
        new, q = task_host[off[k]:off[k + 1]], int(tasks[k])
        np.add.at(w, (np.repeat(new, q), np.tile(np.asarray(old[k]), q)), mem[k] / q + 1e-9 / q)
    r, c = linear_sum_assignment(w, maximize=True)
    perm = np.empty(hosts, dtype=np.int64)
    perm[r] = c
    assert np.array_equal(relabel(view, list(range(n)), task_host, tasks), perm[task_host])
