"""Checks that every simulated schedule must pass (used by the tests on every run).

* never more processors in use than the cluster has;
* no job starts before its (last) submission, and every job runs exactly its run time
  on the cluster where it ran;
* FCFS clusters start jobs in their submission order on that cluster (the order of the
  jobs' last submissions, ``submission_seq``, also between jobs (re)submitted at the same
  instant);
* CBF jobs never start later than the reservation given at their (last) submission (the
  default re-plan rule; Simbatch's ``full`` re-plan may delay a reservation, so the check
  does not apply to clusters set to it);
* an EASY head job never starts later than the shadow time computed when it became head
  (after a cancellation and resubmission, the new head time counts).
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_schedule"]


def _max_usage(start: np.ndarray, finish: np.ndarray, procs: np.ndarray) -> int:
    if start.size == 0:
        return 0
    times = np.concatenate((finish, start))
    delta = np.concatenate((-procs, procs))
    kind = np.concatenate((np.zeros(start.size), np.ones(start.size)))
    order = np.lexsort((kind, times))  # ends before starts at equal times
    return int(np.cumsum(delta[order]).max())


def check_schedule(result) -> None:
    """Raise ``AssertionError`` with a precise message when an invariant is broken."""
    jobs = result.jobs
    n = len(jobs)
    assert not np.isnan(result.finish).any(), "some jobs never finished"
    assert (result.start >= result.submitted_to - 1e-9).all(), "a job started before its submission"
    assert (result.submitted_to >= jobs.submit - 1e-9).all(), "a job was submitted before its submit time"
    speeds = np.array([c.speed for c in result.clusters])
    run = jobs.run_time * speeds[jobs.origin] / speeds[result.cluster]
    assert np.allclose(result.finish - result.start, run, rtol=1e-12, atol=1e-6), "a job did not run its run time"
    for k, c in enumerate(result.clusters):
        rows = np.flatnonzero(result.cluster == k)
        use = _max_usage(result.start[rows], result.finish[rows], jobs.procs[rows])
        assert use <= c.procs, f"cluster {c.name} uses {use} > {c.procs} processors"
        if c.policy == "fcfs":
            starts = result.start[rows][np.argsort(result.submission_seq[rows])]
            assert (np.diff(starts) >= 0).all(), f"FCFS order broken on {c.name}"
        elif c.policy == "cbf" and getattr(c, "replan_rule", "earliest") == "earliest":
            for j, s in c.first_reservation.items():
                if result.cluster[j] == k:
                    assert result.start[j] <= s + 1e-9, f"CBF job {jobs.job_id[j]} started after its reservation"
        elif c.policy == "easy":
            for j, s in c.head_reservations.items():
                if result.cluster[j] == k:
                    assert result.start[j] <= s + 1e-9, f"EASY head {jobs.job_id[j]} started after its reservation"
    assert n == 0 or (result.cluster >= 0).all()
