"""The max-stretch bound from the jobs that cannot run beside one job (:mod:`lowerbounds.batch.blackout`): the scan
over starts equals a plain evaluation at every start of a fine grid, and a forced case where it beats the fluid
bound. Its validity against brute force is in ``test_batch_stretch_brute.py``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lowerbounds.batch.blackout import job_blackout, stretch_blackout
from lowerbounds.batch.instance import BatchInstance
from lowerbounds.batch.quick import stretch_quick
from tests.grid.batch_oracle import brute_force


def plain_blackout(rb, pb, rc, pc):
    """The least ``f_B(s)`` over every start ``s >= rb`` of a grid holding each submission, each submission minus
    ``pb``, each end ``r_j + p_j``, and the midpoints between consecutive grid points (jobs with
    ``s - p_j < r_j < s + p_B`` counted)."""
    pts = np.unique(np.concatenate(([rb], rc, rc - pb, rc + pc, [(rc + pc).max(initial=rb) + pb + 1.0])))
    pts = np.unique(np.concatenate((pts, 0.5 * (pts[1:] + pts[:-1]))))
    best = np.inf
    for s in pts[pts >= rb]:
        forced = (rc > s - pc) & (rc < s + pb)
        value = (s - rb + pb) / pb
        if forced.any():
            value = max(value, float(((s + pb + pc[forced] - rc[forced]) / pc[forced]).max()))
        best = min(best, value)
    return best


@settings(max_examples=80, deadline=None)
@given(rb=st.integers(0, 20), pb=st.integers(1, 12),
       jobs=st.lists(st.tuples(st.integers(0, 40), st.integers(1, 8)), max_size=8))
def test_the_scan_equals_a_plain_grid_of_starts(rb, pb, jobs):
    rc = np.array(sorted(r for r, _ in jobs), dtype=float)
    pc = np.array([p for _, p in sorted(jobs)], dtype=float)
    exact = plain_blackout(float(rb), float(pb), rc, pc)
    assert abs(job_blackout(float(rb), float(pb), rc, pc) - exact) <= 1e-12 * exact
    if rc.size:  # a job left out (B itself among its conflicts) = the same scan without it
        k = len(jobs) // 2
        rest = plain_blackout(float(rb), float(pb), np.delete(rc, k), np.delete(pc, k))
        assert abs(job_blackout(float(rb), float(pb), rc, pc, skip=k) - rest) <= 1e-12 * rest
    for above in (1.0, 0.5 * (1 + exact), exact):  # an early return says only "at most above"
        got = job_blackout(float(rb), float(pb), rc, pc, above)
        assert got >= exact - 1e-12 and (got <= above or abs(got - exact) <= 1e-12 * exact)


def test_a_job_of_the_whole_cluster_must_wait_for_the_short_jobs_submitted_over_its_run():
    # B (2 of 2 processors, 10 s, at 0) and 9 jobs of 1 processor and 1 s at 1, ..., 9: B cannot start before
    # the last one's end without one of them waiting for its end (stretch 10 or more), so >= 20/10 = the optimum
    # (each short job at its submission, B at 10); the fluid bound sees nothing.
    r = np.concatenate(([0.0], np.arange(1.0, 10.0)))
    q = np.concatenate(([2], np.ones(9, dtype=int)))
    p = np.concatenate(([10.0], np.ones(9)))
    inst = BatchInstance.from_arrays(r, q, p[:, None], [2])
    assert stretch_quick(inst) < 1.5
    assert abs(stretch_blackout(inst) - 2.0) < 1e-12
    small = BatchInstance.from_arrays(r[:3], q[:3], p[:3, None], [2])  # B and the 2 first: optimum 1.3
    assert abs(stretch_blackout(small) - 1.3) < 1e-12
    assert abs(brute_force(small)["max_stretch"] - 1.3) < 1e-12


def test_several_clusters_keep_the_bound_given():
    inst = BatchInstance.from_arrays([0.0, 1.0], [2, 2], [[10.0, 10.0], [1.0, 1.0]], [2, 2])
    assert stretch_blackout(inst, 1.25) == 1.25
