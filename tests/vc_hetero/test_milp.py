"""The heterogeneous MILP and LP: equal to brute force on tiny instances, to today's models on 2-D ones."""

import numpy as np
import pytest

from lowerbounds.vc.relaxation import lp_relaxation
from tests.vc_hetero.brute import brute_force, tiny_instance
from vcsched.formulations.vc_hetero_milp import hetero_lp_bound, solve_hetero_milp
from vcsched.formulations.vc_milp import solve_vc_milp
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems.vc_hetero import check_hetero, from_vc
from vcsched.result import Status


@pytest.mark.parametrize("seed", range(12))
def test_milp_equals_brute_force_and_lp_bounds_it(seed):
    rng = np.random.default_rng(seed)
    inst = tiny_instance(rng, d=2 + seed % 2, n=5 + seed % 4)
    best, _ = brute_force(inst)
    res = solve_hetero_milp(inst)
    lp = hetero_lp_bound(inst)
    if best is None:
        assert res.status is Status.INFEASIBLE
        return
    assert res.status is Status.OPTIMAL and res.objective == pytest.approx(best, abs=1e-6)
    assert check_hetero(inst, res.solution).valid
    assert lp.bound >= best - 1e-7


@pytest.mark.parametrize("seed", range(4))
def test_homogeneous_2d_gives_todays_optimum(seed):
    inst = generate_vc_instance(3 + seed % 2, 7, 0.3, 0.5, 0.5, rng=seed)
    today = solve_vc_milp(inst)
    mine = solve_hetero_milp(from_vc(inst))
    assert today.status is mine.status
    if today.status is Status.OPTIMAL:
        assert mine.objective == pytest.approx(today.objective, abs=1e-6)
        assert hetero_lp_bound(from_vc(inst)).bound == pytest.approx(lp_relaxation(inst).bound, abs=1e-7)
