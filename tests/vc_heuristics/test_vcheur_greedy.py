"""GR, SG, GB, SGB (seed 001 §3.3) on hand-made instances with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.vc import REGISTRY
from heuristics.vc.greedy import DEFAULT_MAX_ATTEMPTS, backtracking_placement
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems.vc import VCInstance, check_allocation
from vcsched.problems.vc_greedy import least_loaded_placement
from vcsched.result import Status

# GR fails here, a placement exists: h0 = {0, 3}, h1 = {1, 2, 4} (all alpha 0.5)
TRAP = VCInstance.from_arrays(2, [0.5] * 5, [0.5, 0.3, 0.2, 0.5, 0.5])


def test_vcheur_gr_takes_least_loaded_host_whose_memory_fits():
    inst = VCInstance.from_arrays(3, [0.8, 0.3, 0.4, 0.2], [0.6, 0.5, 0.3, 0.5])
    res = REGISTRY.get("gr")(inst)
    # j0 -> h0 (all empty, lowest index); j1 -> h1; j2 -> h2; j3: loads .8,.3,.4 -> h1 (mem .5+.5 = 1 fits)
    assert res.solution.task_host.tolist() == [0, 1, 2, 1]
    assert res.objective == pytest.approx(1.0)


def test_vcheur_gr_skips_hosts_without_memory():
    inst = VCInstance.from_arrays(2, [0.1, 0.9, 0.1], [0.7, 0.1, 0.5])
    # j0 -> h0, j1 -> h1 (load .9), j2: h0 lighter (.1) but memory .7+.5 > 1 -> h1
    assert REGISTRY.get("gr")(inst).solution.task_host.tolist() == [0, 1, 1]


def test_vcheur_sg_sorts_jobs_by_decreasing_memory_stably():
    inst = VCInstance.from_arrays(2, [0.5, 0.5, 0.5, 0.5], [0.2, 0.6, 0.2, 0.6])
    # order: 1, 3, 0, 2 -> 1:h0, 3:h1, 0:h0 (loads tie, index), 2:h1
    assert REGISTRY.get("sg")(inst).solution.task_host.tolist() == [0, 0, 1, 1]


def test_vcheur_gr_fails_on_trap_but_backtracking_succeeds():
    assert REGISTRY.get("gr")(TRAP).status is Status.FAILED
    res = REGISTRY.get("gb")(TRAP)
    assert res.status is Status.FEASIBLE
    assert check_allocation(TRAP, res.solution).valid
    assert res.extra["attempts"] > 0


def test_vcheur_gb_returns_gr_placement_when_gr_succeeds():
    for seed in range(30):
        inst = generate_vc_instance(4, 10, 0.3, 0.75, 0.75, rng=seed)
        for plain, bt in (("gr", "gb"), ("sg", "sgb")):
            a, b = REGISTRY.get(plain)(inst), REGISTRY.get(bt)(inst)
            assert a.status is b.status or a.status is Status.FAILED
            if a.success:
                assert a.solution.task_host.tolist() == b.solution.task_host.tolist()
                # and the search's first leaf is GR's: the DFS alone finds the same placement
                order = np.arange(inst.n_tasks) if plain == "gr" else np.argsort(-inst.mem, kind="stable")
                dfs, _, _ = backtracking_placement(inst, order, 10**6)
                assert dfs.tolist() == a.solution.task_host.tolist()


def test_vcheur_gb_attempt_bound_gives_failed():
    res = REGISTRY.get("gb")(TRAP, max_attempts=3)
    assert res.status is Status.FAILED
    assert "bound (3)" in res.message
    assert res.extra["attempts"] <= 3


def test_vcheur_gb_exhausted_search_means_no_placement():
    inst = VCInstance.from_arrays(2, [0.5] * 3, [0.6, 0.6, 0.6])
    res = REGISTRY.get("sgb")(inst)
    assert res.status is Status.FAILED and "exhausted" in res.message


def test_vcheur_backtracking_counts_every_examined_pair():
    # one host, the only task fits: exactly one attempt
    inst = VCInstance.from_arrays(3, [0.5], [0.5])
    _, attempts = least_loaded_placement(inst, np.arange(1))
    assert attempts == 1
    # j0 examines h0 (1); j1 examines the empty h1 first (1); j2 examines h0 (lighter,
    # memory full) then h1 (2); the DFS counts the same pairs on its first path
    inst = VCInstance.from_arrays(2, [0.1, 0.9, 0.1], [0.7, 0.1, 0.5])
    _, attempts = least_loaded_placement(inst, np.arange(3))
    placement, dfs_attempts, _ = backtracking_placement(inst, np.arange(3), 100)
    assert attempts == dfs_attempts == 1 + 1 + 2


def test_vcheur_backtracking_default_bound_is_papers():
    assert DEFAULT_MAX_ATTEMPTS == 500_000


def test_vcheur_gb_rejects_bad_bound():
    with pytest.raises(ValueError, match="`max_attempts`"):
        REGISTRY.get("gb")(TRAP, max_attempts=0)


def test_vcheur_greedy_parallel_job_tasks_placed_individually():
    # one job of 3 tasks (mem .4 each) on 2 hosts: two share a host, CPU equal across tasks
    inst = VCInstance.from_arrays(2, [0.6], [0.4], [3])
    res = REGISTRY.get("gr")(inst)
    assert sorted(res.solution.task_host.tolist()) == [0, 0, 1]
    assert np.ptp(res.solution.task_cpu) == 0
    assert res.objective == pytest.approx(1 / 1.2)
