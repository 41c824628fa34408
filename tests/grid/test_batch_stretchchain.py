"""The wide jobs kept off their gates on one machine (:mod:`lowerbounds.batch.stretchchain`): the domains are those
of the definition, the propagation never refutes a one-machine problem that has a schedule (every order of tiny
ones, each job at its earliest start in its domain), a smaller work cap never proves more, and a forced case where
it gives the optimum and the other quick bounds do not. No bound above the brute-force optimum:
``tests/grid/test_batch_stretch_brute.py``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowerbounds.batch.blackout import stretch_blackout
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.quick import stretch_quick
from lowerbounds.batch.stretchchain import disjunctive_infeasible, domains, stretch_chain
from tests.grid.batch_oracle import brute_force, tiny_stretch_instance


def plain_allowed(r, q, p, m, S, b, s) -> bool:
    """The definition: ``s`` in ``b``'s window and in no gate of a job that cannot run beside ``b``."""
    if not r[b] <= s <= r[b] + (S - 1) * p[b]:
        return False
    return not any(q[c] > m - q[b] and p[c] > 0 and r[c] + (S - 1) * p[c] - p[b] < s < r[c] + p[c]
                   for c in range(r.size) if c != b)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8), S=st.floats(1.0, 5.0))
def test_the_domains_are_those_of_the_definition(seed, n, S):
    inst = tiny_stretch_instance(seed, n, True, 2.0)
    o = np.argsort(inst.release, kind="stable")
    r, q, p, m = inst.release[o], inst.width[o].astype(np.int64), inst.duration[o, 0], int(inst.procs[0])
    rows, doms = domains(r, q, p, m, S)
    assert list(rows) == [j for j in range(n) if 2 * q[j] > m and p[j] > 0]
    for b, dom in zip(rows, doms):
        ends = sorted({r[b], r[b] + (S - 1) * p[b]} | {x for c in range(n) for x in
                                                         (r[c] + (S - 1) * p[c] - p[b], r[c] + p[c])})
        probes = [0.5 * (x + y) for x, y in zip(ends, ends[1:])] + ends
        for s in probes:  # away from the ends the shrink by 1e-9 does not matter; at the ends both may differ
            inside = any(a <= s <= z for a, z in dom)
            if all(abs(s - e) > 1e-6 for e in ends):
                assert inside == plain_allowed(r, q, p, m, S, b, s)


def has_schedule(doms, p) -> bool:
    """Some order of the jobs, each at its earliest start in its domain after the one before, is a schedule."""
    for order in itertools.permutations(range(len(doms))):
        t, ok = -np.inf, True
        for j in order:
            s = next((max(a, t) for a, z in doms[j] if max(a, t) <= z), None)
            if s is None:
                ok = False
                break
            t = s + p[j]
        if ok:
            return True
    return False


@settings(max_examples=200, deadline=None)
@given(data=st.data(), k=st.integers(1, 4))
def test_the_propagation_never_refutes_a_problem_with_a_schedule(data, k):
    doms, p = [], []
    for _ in range(k):
        cuts = sorted(data.draw(st.lists(st.integers(0, 20), min_size=2, max_size=6)))
        doms.append([(float(a), float(b)) for a, b in zip(cuts[::2], cuts[1::2])])
        p.append(float(data.draw(st.integers(1, 6))))
    if disjunctive_infeasible(doms, np.array(p)):
        assert not has_schedule(doms, p)


def test_a_smaller_work_cap_never_proves_more():
    inst = tiny_stretch_instance(66, 3, True, 1.0)
    values = [stretch_chain(inst, 1.0, max_work=w) for w in (0, 3, 10, 100, np.inf)]
    assert values == sorted(values) and values[0] < values[-1]


def test_two_wide_jobs_and_a_short_one_that_fits_beside_neither():
    """Six processors: a job of 5 for 5 s at 2, one of 6 for 4 s at 3, one of 2 for 1 s at 4 (it fits beside
    neither wide job). The two wide jobs run one after the other and the short one may not wait for both: optimum
    2.4, which the propagation proves while the fluid bound and the blackout bound stay below 2.1."""
    inst = BatchInstance.from_arrays([3.0, 4.0, 2.0], [6, 2, 5], [[4.0], [1.0], [5.0]], [6])
    best = brute_force(inst)["max_stretch"]
    assert best == pytest.approx(2.4)
    low = max(stretch_quick(inst), stretch_blackout(inst, 1.0, min_share=0.0))
    assert low < 2.1
    assert stretch_chain(inst, low, rel_tol=1e-5) == pytest.approx(2.4, rel=1e-4)
    assert stretch_chain(inst, low, rel_tol=1e-5) <= best


def test_several_clusters_keep_the_bound_given():
    inst = BatchInstance.from_arrays([3.0, 4.0, 2.0], [6, 2, 5], [[4.0, 4.0], [1.0, 1.0], [5.0, 5.0]], [6, 6])
    assert stretch_chain(inst, 1.5) == 1.5
