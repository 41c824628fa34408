"""RRND and RRNZ (seed 001 §3.2): reproducibility, epsilon rule, retry distribution, LP sharing."""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.vc import REGISTRY
from heuristics.vc.rounding import RRNZ_EPSILON, round_lp
from lowerbounds.vc import LPRelaxation, lp_relaxation
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems.vc import VCInstance, check_allocation
from vcsched.result import Result, Status


def lp_of(e) -> Result:
    e = np.asarray(e, dtype=float)
    return Result("lp", Status.OPTIMAL, 1.0, 1.0, 0.0, LPRelaxation(e, 1.0))


@pytest.fixture(scope="module")
def instance_and_lp():
    inst = generate_vc_instance(6, 20, 0.5, 0.75, 0.75, rng=5)
    return inst, lp_relaxation(inst)


@pytest.mark.parametrize("name", ["rrnd", "rrnz"])
def test_vcheur_rounding_same_seed_same_result(name, instance_and_lp):
    inst, lp = instance_and_lp
    fn = REGISTRY.get(name)
    a, b = fn(inst, rng=42, lp=lp), fn(inst, rng=42, lp=lp)
    assert a.status is b.status
    if a.success:
        assert a.solution.task_host.tolist() == b.solution.task_host.tolist()
        assert a.solution.task_cpu.tolist() == b.solution.task_cpu.tolist()
    # a Generator seeded alike gives the same answer as the int seed
    c = fn(inst, rng=np.random.default_rng(42), lp=lp)
    assert c.status is a.status and (not a.success or c.solution.task_host.tolist() == a.solution.task_host.tolist())


def test_vcheur_rounding_seeds_matter():
    inst = VCInstance.from_arrays(4, [0.5] * 8, [0.1] * 8)
    lp = lp_of(np.full((8, 4), 0.25))
    placements = {tuple(REGISTRY.get("rrnd")(inst, rng=s, lp=lp).solution.task_host) for s in range(10)}
    assert len(placements) > 1


def test_vcheur_rounding_solves_lp_itself_when_not_given(instance_and_lp):
    inst, lp = instance_and_lp
    own = REGISTRY.get("rrnz")(inst, rng=1)
    shared = REGISTRY.get("rrnz")(inst, rng=1, lp=lp)
    assert own.extra["lp_shared"] is False and shared.extra["lp_shared"] is True
    assert own.status is shared.status
    if own.success:
        assert own.solution.task_host.tolist() == shared.solution.task_host.tolist()


def test_vcheur_rrnd_fails_where_rrnz_uses_epsilon():
    # job 1 has all its LP mass on host 0, whose memory job 0 has filled
    inst = VCInstance.from_arrays(2, [0.5, 0.5], [0.8, 0.5])
    lp = lp_of([[1.0, 0.0], [1.0, 0.0]])
    rrnd = REGISTRY.get("rrnd")(inst, rng=0, lp=lp)
    assert rrnd.status is Status.FAILED and rrnd.solution is None
    rrnz = REGISTRY.get("rrnz")(inst, rng=0, lp=lp)
    assert rrnz.status is Status.FEASIBLE
    assert rrnz.solution.task_host.tolist() == [0, 1]
    assert RRNZ_EPSILON == 0.01


def test_vcheur_rounding_follows_e_conditioned_on_fitting_hosts():
    """The retry loop of §3.2 = drawing from e restricted to hosts whose memory fits."""
    inst = VCInstance.from_arrays(3, [0.5, 0.5], [0.9, 0.5])
    e = np.array([[1.0, 0.0, 0.0], [0.5, 0.3, 0.2]])  # job 0 -> host 0; host 0 then full for job 1
    counts = np.zeros(3)
    rng = np.random.default_rng(7)
    for _ in range(4000):
        counts[round_lp(inst, e, rng)[1]] += 1
    assert counts[0] == 0
    assert counts[1] / counts.sum() == pytest.approx(0.6, abs=0.03)


def test_vcheur_rounding_fails_when_lp_has_no_solution():
    inst = VCInstance.from_arrays(1, [0.5, 0.5], [0.6, 0.6])  # total memory 1.2 > 1 host
    for name in ("rrnd", "rrnz"):
        res = REGISTRY.get(name)(inst, rng=0)
        assert res.status is Status.FAILED and "LP relaxation" in res.message


def test_vcheur_rounding_checks_shape_and_epsilon():
    inst = VCInstance.from_arrays(2, [0.5], [0.5])
    with pytest.raises(ValueError, match="`e`"):
        round_lp(inst, np.ones((2, 2)), np.random.default_rng(0))
    with pytest.raises(ValueError, match="`epsilon`"):
        REGISTRY.get("rrnz")(inst, epsilon=-1)


def test_vcheur_rounding_real_lp_allocations_are_valid(instance_and_lp):
    inst, lp = instance_and_lp
    for seed in range(20):
        for name in ("rrnd", "rrnz"):
            res = REGISTRY.get(name)(inst, rng=seed, lp=lp)
            if res.success:
                assert check_allocation(inst, res.solution).valid
                assert res.objective <= lp.objective + 1e-9
