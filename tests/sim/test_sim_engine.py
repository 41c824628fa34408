"""Hand-made scenarios: the rules of an instant, tie-breaking, cancellation, ECT queries, speeds.

Every simulated schedule is checked with :func:`vcsched.sim.invariants.check_schedule`.
"""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.grid import MCT
from tests.sim.plain_profile import PlainProfile
from vcsched.errors import InvalidInputError
from vcsched.problems.workload import from_arrays
from vcsched.sim import Grid, JobTable, Kernel, make_cluster, simulate_grid
from vcsched.sim.invariants import check_schedule
from vcsched.sim.profile import Profile


def jobs_of(*workloads_rows):
    """Each argument: list of (submit, run, requested, procs) of one site; ids 1.. per site."""
    ws = [from_arrays([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows])
          for rows in workloads_rows]
    labels = None if len(ws) == 1 else [f"s{k}" for k in range(len(ws))]
    return JobTable.from_workloads(ws, labels=labels)


def run(clusters, jobs, **kw):
    res = simulate_grid(clusters, jobs, record=True, **kw)
    check_schedule(res)
    return res


def events(res, kinds=("start", "end")):
    return [(t, k, j) for t, k, j, _ in res.log if k in kinds]


# ---------------------------------------------------------------- kernel
def test_kernel_orders_by_time_priority_sequence():
    k = Kernel()
    log = []
    k.schedule(1.0, 30, log.append, "pass")
    k.schedule(1.0, 0, log.append, "end-1")
    k.schedule(0.5, 99, log.append, "early")
    k.schedule(1.0, 0, log.append, "end-2")
    k.schedule(1.0, 20, log.append, "arrival")
    k.run()
    assert log == ["early", "end-1", "end-2", "arrival", "pass"]
    assert k.now == 1.0 and k.processed == 5
    with pytest.raises(ValueError, match="before the current time"):
        k.schedule(0.0, 0, log.append, "past")


def test_kernel_run_until_stops_before_later_events():
    k = Kernel()
    log = []
    for t in (1.0, 2.0, 3.0):
        k.schedule(t, 0, log.append, t)
    k.run(until=2.0)
    assert log == [1.0, 2.0] and len(k) == 1 and k.peek() == 3.0


# ---------------------------------------------------------------- rules of an instant
@pytest.mark.parametrize("policy", ["fcfs", "cbf", "easy"])
def test_zero_length_job_ends_at_its_start_and_triggers_another_round(policy):
    jobs = jobs_of([(0, 0, 0, 10), (0, 5, 5, 10)])
    res = run([make_cluster("c", 10, policy=policy)], jobs)
    assert events(res) == [(0.0, "start", 1), (0.0, "end", 1), (0.0, "start", 2), (5.0, "end", 2)]


@pytest.mark.parametrize("policy", ["fcfs", "cbf", "easy"])
def test_ends_leave_before_arrivals_of_the_same_instant(policy):
    jobs = jobs_of([(0, 5, 5, 10), (5, 1, 1, 10)])
    res = run([make_cluster("c", 10, policy=policy)], jobs)
    assert [e for e in res.log] == [(0.0, "submit", 1, "c"), (0.0, "start", 1, "c"), (5.0, "end", 1, "c"),
                                    (5.0, "submit", 2, "c"), (5.0, "start", 2, "c"), (6.0, "end", 2, "c")]


def test_cbf_replans_once_before_arrivals_when_a_job_ends_early():
    # A ends at 2 (requested 10): B (reserved at 10) is re-planned to 2 before C arrives at 2, so C goes after B.
    jobs = jobs_of([(0, 2, 10, 10), (1, 3, 3, 10), (2, 1, 1, 10)])
    c = make_cluster("c", 10, policy="cbf")
    res = run([c], jobs)
    assert c.first_reservation == {0: 0.0, 1: 10.0, 2: 5.0}
    assert events(res) == [(0.0, "start", 1), (2.0, "end", 1), (2.0, "start", 2), (5.0, "end", 2),
                           (5.0, "start", 3), (6.0, "end", 3)]
    assert c.replans == 1


def test_cbf_requested_zero_is_planned_as_one_second():
    # B (requested 0) is planned on [0, 1): C (whole machine) is reserved at 1, then re-planned to 0 when B ends.
    jobs = jobs_of([(0, 0, 0, 5), (0, 3, 3, 10)])
    c = make_cluster("c", 10, policy="cbf")
    res = run([c], jobs)
    assert c.first_reservation == {0: 0.0, 1: 1.0}
    assert res.start.tolist() == [0.0, 0.0]


def test_same_instant_arrivals_keep_submission_order():
    jobs = jobs_of([(0, 4, 4, 6), (0, 4, 4, 6), (0, 1, 1, 4), (0, 1, 1, 4)])
    res = run([make_cluster("c", 10, policy="fcfs")], jobs)
    assert res.start.tolist() == [0.0, 4.0, 4.0, 5.0]
    res = run([make_cluster("c", 10, policy="easy")], jobs)
    # job 3 backfills at 0 (ends by 1 <= shadow 4); job 4 then does not fit (0 free)
    assert res.start.tolist() == [0.0, 4.0, 0.0, 1.0]


def test_easy_backfill_uses_extra_processors_after_the_shadow_time():
    # head (8 procs) waits for A (req end 10); extra at 10 = 10 - 8 = 2: a 2-proc long job backfills, a 3-proc one not
    jobs = jobs_of([(0, 10, 10, 5), (1, 5, 5, 8), (2, 100, 100, 3), (3, 100, 100, 2)])
    c = make_cluster("c", 10, policy="easy")
    res = run([c], jobs)
    assert res.start.tolist() == [0.0, 10.0, 15.0, 3.0]
    assert c.head_reservations[1] == 10.0


# ---------------------------------------------------------------- cancellation
class CancelAt:
    """Test meta-scheduler: origin mapping; at ``when`` cancel ``job`` and resubmit it to ``to`` (or not)."""

    def __init__(self, when, job, to=None):
        self.when, self.job, self.to, self.cancelled = when, job, to, None

    def map(self, grid, job):
        return int(grid.jobs.origin[job])

    def start(self, grid):
        def act(g):
            if g.now == self.when:
                self.cancelled = g.cancel(self.job)
                if self.to is not None:
                    g.submit(self.job, self.to)

        grid.every(1000.0, act, first=self.when)


def test_cbf_cancel_replans_the_queue_and_resubmits_elsewhere():
    jobs = jobs_of([(0, 10, 10, 10), (0, 5, 5, 10), (0, 5, 5, 10)], [])
    a, b = make_cluster("a", 10, policy="cbf"), make_cluster("b", 10, policy="cbf")
    meta = CancelAt(1.0, 1, to=1)
    res = run([a, b], jobs, meta=meta)
    assert meta.cancelled is True
    assert a.first_reservation == {0: 0.0, 1: 10.0, 2: 15.0}
    assert res.start.tolist() == [0.0, 1.0, 10.0]  # B runs on b at 1, C moved from 15 to 10
    assert res.cluster.tolist() == [0, 1, 0] and res.resubmissions.tolist() == [0, 1, 0]
    assert (1.0, "cancel", "s0!2", "a") in res.log and (1.0, "submit", "s0!2", "b") in res.log


def test_fcfs_cancel_of_the_head_lets_the_next_job_start():
    jobs = jobs_of([(0, 10, 10, 6), (0, 5, 5, 10), (0, 5, 5, 4)])
    meta = CancelAt(1.0, 1, to=None)
    g = Grid([make_cluster("a", 10, policy="fcfs")], jobs, meta=meta, record=True)
    g.run()
    assert meta.cancelled is True
    assert g.start[2] == 1.0 and g.start[1] == float("inf")  # cancelled job never runs
    # the grid's columns are assembled from the cluster's own records
    assert g.clusters[0].started == {0: 0.0, 2: 1.0} and g.clusters[0].ended == {0: 10.0, 2: 6.0}
    assert g.where == [0, -1, 0] and g.finish[1] == float("inf") and g.done == 2


def test_cancel_returns_false_for_a_running_job():
    jobs = jobs_of([(0, 10, 10, 6)])
    meta = CancelAt(1.0, 0)
    res = run([make_cluster("a", 10, policy="cbf")], jobs, meta=meta)
    assert meta.cancelled is False and res.start.tolist() == [0.0]


# ---------------------------------------------------------------- ECT queries and MCT
def test_ect_of_queued_and_not_queued_jobs():
    jobs = jobs_of([(0, 10, 10, 8), (0, 5, 6, 8), (0, 1, 2, 2), (0, 3, 4, 4)])
    for policy, queued_ect in (("cbf", 16.0), ("fcfs", 16.0), ("easy", 16.0)):
        c = make_cluster("a", 10, policy=policy)
        g = Grid([c], jobs)
        g.kernel.schedule(0.0, 20, lambda _: [g.submit(j, 0) for j in range(3)])
        g.kernel.run(until=0.0)
        g.kernel.schedule(0.0, 30, lambda _: None)
        assert g.ect(1, 0) == queued_ect  # job 1 waits for job 0 (requested 10) then runs its requested 6
        # job 3 (4 procs, requested 4) is not queued: FCFS must wait for job 1's start (10)
        # CBF/EASY run job 2 at once, FCFS plans it after job 1: either way 4 procs are free only at 16
        expected = 20.0
        assert g.ect(3, 0) == expected
        np.testing.assert_array_equal(g.ect_matrix([1, 3]), [[queued_ect], [expected]])


def test_fcfs_ect_respects_the_queue_order_but_cbf_backfills():
    # running: 6 procs until 10; waiting head needs 10 procs. A new 4-proc 2 s job: FCFS after the head, CBF now.
    jobs = jobs_of([(0, 10, 10, 6), (0, 5, 5, 10), (0, 2, 2, 4)])
    out = {}
    for policy in ("fcfs", "cbf", "easy"):
        g = Grid([make_cluster("a", 10, policy=policy)], jobs)
        g.kernel.schedule(0.0, 20, lambda _: [g.submit(j, 0) for j in range(2)])
        g.kernel.run(until=0.0)
        assert g.waiting() == [1]
        out[policy] = g.ect(2, 0)
    assert out == {"fcfs": 17.0, "cbf": 2.0, "easy": 2.0}


def test_mct_tie_breaks_by_cluster_order_then_balances():
    jobs = jobs_of([(0, 10, 10, 10), (0, 10, 10, 10), (0, 10, 10, 10)], [], [])
    clusters = [make_cluster(n, 10, policy="fcfs") for n in ("a", "b", "c")]
    res = run(clusters, jobs, meta=MCT())
    assert res.cluster.tolist() == [0, 1, 2]
    assert res.start.tolist() == [0.0, 0.0, 0.0]


def test_mct_uses_speed_and_walltime_is_scaled():
    # a job from the slow site (speed 1) runs twice as fast on the fast one (speed 2)
    jobs = jobs_of([(0, 10, 20, 4)], [])
    slow, fast = make_cluster("slow", 10, 1.0, "cbf"), make_cluster("fast", 10, 2.0, "cbf")
    res = run([slow, fast], jobs, meta=MCT())
    assert res.cluster.tolist() == [1] and res.finish.tolist() == [5.0]
    df = res.jobs_frame()
    assert df["requested_time"].tolist() == [10.0] and df["origin_cluster"].tolist() == ["slow"]


def test_mct_never_picks_a_cluster_that_is_too_small():
    jobs = jobs_of([(0, 10, 10, 20)], [])
    res = run([make_cluster("small", 10), make_cluster("big", 40)], jobs, meta=MCT())
    assert res.cluster.tolist() == [1]


def test_job_wider_than_every_cluster_is_rejected():
    jobs = jobs_of([(0, 10, 10, 200)])
    with pytest.raises(InvalidInputError, match="needs 200 processors but the largest cluster has 100"):
        simulate_grid([make_cluster("c", 100)], jobs)


def test_job_wider_than_its_origin_without_meta_is_rejected():
    jobs = jobs_of([(0, 10, 10, 20)], [])
    with pytest.raises(InvalidInputError, match="its cluster 'small' has 10"):
        simulate_grid([make_cluster("small", 10), make_cluster("big", 40)], jobs)


def test_unknown_policy_is_a_clear_error():
    with pytest.raises(InvalidInputError, match="unknown batch policy 'sjf'; choose one of: fcfs, cbf, easy"):
        make_cluster("c", 10, policy="sjf")


# ---------------------------------------------------------------- profile
def test_profile_earliest_and_vectorised_versions_agree():
    rng = np.random.default_rng(3)
    prof = Profile(16, 0.0)
    for _ in range(30):
        p, d = int(rng.integers(1, 17)), float(rng.integers(1, 20))
        s = prof.earliest(p, d, float(rng.integers(0, 10)))
        prof.reserve(s, d, p)
    assert prof.f.min() >= 0
    P = rng.integers(1, 17, size=40)
    D = rng.integers(1, 30, size=40).astype(float)
    many = prof.earliest_many(P, D, 3.0)
    one = [prof.earliest(int(p), float(d), 3.0) for p, d in zip(P, D)]
    np.testing.assert_array_equal(many, one)
    plain = PlainProfile(16, 0.0)  # the numpy oracle on the same steps
    plain.t, plain.f = prof.t.copy(), prof.f.copy()
    np.testing.assert_array_equal(many, [plain.earliest(int(p), float(d), 3.0) for p, d in zip(P, D)])
    assert np.isinf(prof.earliest_many([17], [1.0], 0.0)[0])




def test_simulator_names_are_distinct_and_the_grid_one_has_one_name():
    import vcsched.sim as sim
    import vcsched.sim.timeshare as ts
    from vcsched.sim.htm import HistoricalTraceManager
    from vcsched.sim.processor_sharing import ps_advance

    assert not hasattr(sim, "simulate")  # the batch/grid simulator is simulate_grid only
    assert ts.simulate is ts.simulate_timeshare and ts.simulate_timeshare is not sim.simulate_grid
    assert ts.HistoricalTraceManager is HistoricalTraceManager and ts.ps_advance is ps_advance
