"""The limits of ``vc generate`` are the generator's own (vcsched.problems.vc_limits): the Python call refuses
the same sizes and coefficients of variation, naming the argument."""

from __future__ import annotations

import pytest

from vcsched.errors import InvalidInputError
from vcsched.generators.vc import generate_vc_instance
from vcsched.problems.vc_limits import MAX_CV, MAX_GENERATE


@pytest.mark.parametrize(("hosts", "jobs", "cv", "name"), [(MAX_GENERATE + 1, 4, 0.2, "hosts"),
                                                          (4, MAX_GENERATE + 1, 0.2, "jobs"),
                                                          (4, 4, MAX_CV * 1.5, "cv_mem")])
def test_beyond_the_limits_is_refused(hosts, jobs, cv, name):
    with pytest.raises(InvalidInputError, match=f"{name} must be"):
        generate_vc_instance(hosts, jobs, 0.5, cv, 0.2, rng=0)


def test_at_the_limit_of_the_coefficient_of_variation_it_generates():
    inst = generate_vc_instance(4, 6, 0.5, MAX_CV, MAX_CV, rng=0)
    assert inst.n_jobs == 6 and inst.hosts == 4
