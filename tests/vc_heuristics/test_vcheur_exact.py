"""Heuristics against the exact MILP optimum and the LP bound on a fixed list of tiny instances.

The MILP (HiGHS) is solved once per instance for the module; every heuristic
must stay at or below it, and the LP relaxation (the bound RRND/RRNZ round)
at or above it. Infeasible instances must make every heuristic fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.vc import REGISTRY
from lowerbounds.vc import lp_relaxation
from vcsched.formulations.vc_milp import solve_vc_milp
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems.vc import check_allocation
from vcsched.result import Status


def _instances():
    out = []
    rng = np.random.default_rng(123)
    for k in range(40):
        hosts = int(rng.integers(2, 4))
        jobs = int(rng.integers(2, 7))
        slack = float(rng.choice([0.05, 0.1, 0.3, 0.6]))
        tasks = "lublin" if k % 5 == 4 else None
        inst = generate_vc_instance(hosts, jobs, slack, 0.75, 0.75, rng=int(rng.integers(2**31)), tasks=tasks)
        if inst.n_tasks <= 10:
            out.append(inst)
    return out


@pytest.fixture(scope="module")
def solved():
    out = []
    for inst in _instances():
        milp = solve_vc_milp(inst, time_limit=20)
        assert milp.status in (Status.OPTIMAL, Status.INFEASIBLE)
        out.append((inst, milp, lp_relaxation(inst)))
    return out


def test_vcheur_fixed_list_has_feasible_and_infeasible_instances(solved):
    statuses = {milp.status for _, milp, _ in solved}
    assert statuses == {Status.OPTIMAL, Status.INFEASIBLE}


@pytest.mark.parametrize("name", sorted(REGISTRY.names()))
def test_vcheur_min_yield_below_milp_below_lp(name, solved):
    fn = REGISTRY.get(name)
    successes = 0
    for inst, milp, lp in solved:
        kwargs = {"lp": lp} if name in ("rrnd", "rrnz") else {}
        res = fn(inst, rng=0, **kwargs)
        if milp.status is Status.INFEASIBLE:
            assert res.status is Status.FAILED
            continue
        assert milp.objective <= lp.objective + 1e-7
        if res.status is Status.FAILED:
            continue
        successes += 1
        assert check_allocation(inst, res.solution).valid
        assert res.objective <= milp.objective + 1e-7
    assert successes > 0


def test_vcheur_mcb8_close_to_milp_on_tiny_instances(solved):
    """MCB8 is the paper's best heuristic: on these tiny instances within 10% of the optimum on average."""
    ratios = []
    for inst, milp, _ in solved:
        if milp.status is Status.OPTIMAL:
            res = REGISTRY.get("mcb8")(inst)
            ratios.append(res.objective / milp.objective if res.success else 0.0)
    assert np.mean(ratios) >= 0.9
