"""The compiled event of Algorithm 2 (:mod:`heuristics.grid.fastevent`) against the oracle.

The oracle is :class:`tests.grid.realloc_oracle.OracleReallocation` (one grid query and
submission at a time). Both must give the same run: the same starts,
finishes, clusters, resubmissions, submission order and move counters, and the same
``jobs.csv`` byte for byte, on random small workloads (FCFS, EASY, CBF; homogeneous and
heterogeneous; every heuristic; every reading of Algorithm 2) and on short windows of
the paper's scenarios.
"""

from __future__ import annotations

import numpy as np
import pytest

from heuristics.grid.realloc import Reallocation
from tests.grid.realloc_oracle import OracleReallocation
from tests.grid.test_grid_realloc import ALL_HEURISTICS, check_run
from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, make_cluster, simulate_grid
from vcsched.sim.output import write_jobs


def _workload(seed: int, n: int = 160, sites: int = 3, procs=(16, 24, 40)) -> JobTable:
    """Random load over two days on ``sites`` sites, busy enough that queues build up; ties in submit times."""
    rng = np.random.default_rng(seed)
    ws = []
    for s in range(sites):
        sub = np.sort(np.floor(rng.uniform(0, 2 * 86400, n) / 600) * 600)  # many jobs share an instant
        run = np.ceil(rng.lognormal(7.0, 1.3, n))
        req = np.ceil(run * rng.uniform(1, 4, n))
        req[rng.random(n) < 0.05] = 0  # requested time 0: planned as 1 s
        run[req == 0] = 0
        p = rng.integers(1, procs[s] + 1, n)
        ws.append(from_arrays(sub, run, req, p))
    return JobTable.from_workloads(ws, labels=[f"s{k}" for k in range(sites)])


def _clusters(batch: str, heterogeneous: bool, procs=(16, 24, 40)):
    speeds = (1.0, 1.3, 0.8) if heterogeneous else (1.0, 1.0, 1.0)
    return [make_cluster(f"c{k}", p, s, batch) for k, (p, s) in enumerate(zip(procs, speeds))]


def _run(batch, heterogeneous, jobs, compiled, **kw):
    """One Algorithm-2 run with the compiled event or the oracle, checked by ``check_run``."""
    pol = (Reallocation if compiled else OracleReallocation)("cancel", **kw)
    res = simulate_grid(_clusters(batch, heterogeneous), jobs, meta=pol, record=True)
    check_run(res, pol)
    return res, pol


def _same(a, b):
    """Two runs (result, policy) are the same run."""
    (ra, pa), (rb, pb) = a, b
    np.testing.assert_array_equal(ra.start, rb.start)
    np.testing.assert_array_equal(ra.finish, rb.finish)
    np.testing.assert_array_equal(ra.cluster, rb.cluster)
    np.testing.assert_array_equal(ra.resubmissions, rb.resubmissions)
    np.testing.assert_array_equal(ra.submission_seq, rb.submission_seq)
    assert ra.log == rb.log
    assert pa.reallocations == pb.reallocations
    np.testing.assert_array_equal(pa.job_moves, pb.job_moves)
    np.testing.assert_array_equal(pa.moves_in, pb.moves_in)


@pytest.mark.parametrize("batch", ["fcfs", "cbf", "easy"])
@pytest.mark.parametrize("heterogeneous", [False, True])
def test_grid_compiled_event_equals_reference_every_heuristic(batch, heterogeneous):
    moves = 0
    for seed, h in enumerate(ALL_HEURISTICS):
        jobs = _workload(seed, n=120)
        fast = _run(batch, heterogeneous, jobs, True, heuristic=h)
        _same(fast, _run(batch, heterogeneous, jobs, False, heuristic=h))
        moves += fast[1].reallocations
    assert moves > 50  # the workloads do move jobs


@pytest.mark.parametrize("batch", ["fcfs", "cbf"])
@pytest.mark.parametrize("reading", [{"cancel_threshold": True}, {"current_ect": "planned"},
                                     {"queue_order": "submission"}, {"threshold": 0.0, "cancel_threshold": True}])
@pytest.mark.parametrize("heuristic", ["maxrelgain", "maxmin"])
def test_grid_compiled_event_equals_reference_every_reading(batch, reading, heuristic):
    jobs = _workload(7, n=90)
    fast = _run(batch, True, jobs, True, heuristic=heuristic, **reading)
    _same(fast, _run(batch, True, jobs, False, heuristic=heuristic, **reading))


@pytest.mark.parametrize("heuristic", ["minmin", "maxmin", "sufferage"])
def test_grid_compiled_event_shortcut_equals_plain_recompute(heuristic):
    """The exact shortcut of :func:`vcsched.sim.planning.refresh_column` (``prune``) against recomputing every
    alive row."""
    for batch in ("fcfs", "cbf"):
        jobs = _workload(11)
        pruned = _run(batch, True, jobs, True, heuristic=heuristic)
        _same(pruned, _run(batch, True, jobs, True, heuristic=heuristic, prune=False))


@pytest.mark.parametrize("heterogeneous", [False, True])
def test_grid_grouped_minmin_maxmin_on_fcfs_equal_the_row_by_row_event(heterogeneous, monkeypatch):
    """MinMin and MaxMin on FCFS clusters choose among groups of comparable jobs (``plan_event_grouped``;
    clusters of one speed: among blocks of widths, ``fastwidths.plan_event_widths``); the same runs as the
    row-by-row compiled event and as the reference, and the grouped path is taken."""
    from heuristics.grid import fastevent, fastwidths

    calls = []
    module, name = (fastevent, "plan_event_grouped") if heterogeneous else (fastwidths, "plan_event_widths")
    grouped = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a: calls.append(1) or grouped(*a))
    for seed, h in enumerate(("minmin", "maxmin", "maxmin")):
        jobs = _workload(20 + seed, n=80)
        fast = _run("fcfs", heterogeneous, jobs, True, heuristic=h)
        _same(fast, _run("fcfs", heterogeneous, jobs, True, heuristic=h, grouped=False))
        _same(fast, _run("fcfs", heterogeneous, jobs, False, heuristic=h))
    assert len(calls) > 20, len(calls)


def test_grid_grouped_event_breaks_rounding_ties_by_row():
    """Two groups whose best keys are equal: the first row wins, as in ``select_builtin``; a group whose
    rows are not ordered on every column is refused (the row-by-row event is used)."""
    from heuristics.grid.realloc import _comparable_groups

    T = np.zeros((2, 10))  # room for two breakpoints per reservation
    F = np.zeros((2, 10), dtype=np.int64)
    T[:, :2] = [[0.0, 100.0], [0.0, 50.0]]
    F[:, :2] = [[0, 4], [0, 4]]
    rows = np.array([2, 2])
    total = np.array([4, 4])
    lower = np.array([0.0, 0.0])
    widths = np.array([2, 1, 1])
    D = np.array([[50.0, 100.0], [50.0, 100.0], [10.0, 20.0]])  # row 0 (width 2) and row 1 (width 1) tie at 150
    groups = _comparable_groups(widths, np.zeros(3, dtype=np.int64), np.zeros(3, dtype=bool), D, True)
    order, dest = _grouped(T, F, rows, total, lower, widths, D, groups)
    ref_order, ref_dest = _row_by_row(T, F, rows, total, lower, widths, D)
    assert order.tolist() == ref_order.tolist() and dest.tolist() == ref_dest.tolist()
    assert order[0] == 0  # 150 on either cluster for rows 0 and 1: the first row
    # one group (width 1): row 1 has the larger durations, so it heads the group, but row 0's key is equal
    # (both clusters free from 100: min(150, 190) = min(150, 200) = 150), so row 0 wins
    T[1, :2] = [0.0, 100.0]
    D1 = np.array([[50.0, 90.0], [50.0, 100.0]])
    w1 = np.array([1, 1])
    groups = _comparable_groups(w1, np.zeros(2, dtype=np.int64), np.zeros(2, dtype=bool), D1, True)
    uw, rw, gorder, gstart, gend, blockend = groups
    assert gorder.tolist() == [1, 0] and gstart.tolist() == [0]
    order, dest = _grouped(T, F, rows, total, lower, w1, D1, groups)
    assert order.tolist() == [0, 1]
    crossed = np.array([[50.0, 100.0], [60.0, 90.0], [10.0, 20.0]])  # rows 0 and 1 not ordered on both columns
    assert _comparable_groups(np.array([1, 1, 2]), np.zeros(3, dtype=np.int64), np.zeros(3, dtype=bool), crossed,
                              True) is None


def _maxmin_state(T, F, rows, total, lower, widths, D):
    """A planning state on copies of the profiles and MaxMin's choice rule (previous cluster 0, no threshold)."""
    from heuristics.grid import fastevent
    from heuristics.grid.selection import HEURISTICS
    from vcsched.sim.planning import make_state

    n, K = D.shape
    st = make_state(T.copy(), F.copy(), rows.copy(), total, lower.copy(), np.ones(K, dtype=bool), widths, D, 0.0)
    choice = fastevent.Choice(HEURISTICS.get("maxmin").code, True, np.zeros(n, dtype=np.int64), np.zeros(n), False,
                              0.0, True)
    return st, choice


def _grouped(T, F, rows, total, lower, widths, D, groups):
    """Order and clusters of :func:`fastevent.plan_event_grouped` (MaxMin) on copies of the profiles."""
    from heuristics.grid import fastevent

    st, choice = _maxmin_state(T, F, rows, total, lower, widths, D)
    fastevent.plan_event_grouped(st, choice, fastevent.Groups(*groups))
    return st.log_row[:st.count[0]].copy(), st.log_cluster[:st.count[0]].copy()


def _row_by_row(T, F, rows, total, lower, widths, D):
    """Order and clusters of :func:`fastevent.plan_event` (MaxMin) on copies of the profiles."""
    from heuristics.grid import fastevent

    st, choice = _maxmin_state(T, F, rows, total, lower, widths, D)
    fastevent.plan_event(st, choice)
    return st.log_row[:st.count[0]].copy(), st.log_cluster[:st.count[0]].copy()


def test_grid_compiled_event_on_the_literal_cbf_reference():
    """On the literal CBF reference clusters (their own profile code), the compiled event and the oracle give the
    same run."""
    from tests.sim.literal_cbf import LiteralCBF

    jobs = _workload(3, n=60)
    runs = []
    for compiled in (True, False):
        pol = (Reallocation if compiled else OracleReallocation)("cancel", "minmin")
        clusters = [LiteralCBF("a", 16), LiteralCBF("b", 24), LiteralCBF("c", 40)]
        res = simulate_grid(clusters, jobs, meta=pol, record=True)
        runs.append((res, pol))
    _same(*runs)
    assert runs[0][1].reallocations > 0


def _csv(res) -> bytes:
    """The run's ``jobs.csv`` as written by ``vcsched grid simulate -o``."""
    import pathlib
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "jobs.csv"
        write_jobs(res, path)
        return path.read_bytes()


@pytest.mark.parametrize("scenario,batch,heterogeneous,heuristic", [
    ("mar", "fcfs", False, "maxmin"), ("apr", "fcfs", True, "minmin"), ("apr", "cbf", True, "maxgain"),
    ("pwa-g5k", "fcfs", False, "sufferage"), ("jun", "cbf", False, "mct"),
])
def test_grid_compiled_event_same_jobs_csv_on_scenario_windows(scenario, batch, heterogeneous, heuristic):
    from vcsched.scenarios.grid import SCENARIOS, build_scenario, platform_clusters

    _, jobs = build_scenario(scenario, heterogeneous=heterogeneous, batch=batch, days=0.75, seed=0)
    out = []
    for compiled in (True, False):
        pol = (Reallocation if compiled else OracleReallocation)("cancel", heuristic)
        clusters = platform_clusters(SCENARIOS[scenario].platform, heterogeneous=heterogeneous, batch=batch)
        res = simulate_grid(clusters, jobs, meta=pol)
        out.append((_csv(res), pol.reallocations))
    assert out[0] == out[1]
    assert out[0][1] > 0


def _plan_state(grid) -> list:
    """Every cluster's queue and FCFS estimate plan (profile, planned starts, lower bound, earliest planned start)."""
    out = []
    for c in grid.clusters:
        plan = getattr(c, "_plan", None)  # FCFS and EASY (vcsched.sim.queued); CBF has none
        queue = list(c.waiting_jobs.items())
        run = getattr(c, "_run", None)  # FCFS: a bulk adoption's jobs and tickets as arrays, ahead of waiting_jobs
        if run is not None:
            live = run.values == run.values
            queue = list(zip(run.jobs[live].tolist(), run.values[live].astype(np.int64).tolist())) + queue
        state = (queue, getattr(c, "_tickets", None), c._pass_pending)
        if plan is not None:
            planned = plan.planned()
            state += (plan.prof.t.tolist(), plan.prof.f.tolist(), sorted(planned.items()), plan.lower,
                      min(((s, j) for j, s in planned.items()), default=None))
        out.append(state)
    return out


@pytest.mark.parametrize("batch", ["fcfs", "cbf", "easy"])
@pytest.mark.parametrize("heuristic", ["mct", "maxmin", "minmin", "sufferage"])
def test_grid_bulk_submission_equals_one_by_one(batch, heuristic):
    """Without an event log, the compiled event submits with one ``Grid.submit_many`` (FCFS clusters install the
    computed plan): the same run as one ``Grid.submit`` per job, with after every event the same queues and
    estimate plans, and the same run as the reference path (whose queries rebuild plans at other times)."""
    jobs = _workload(31, n=140)
    runs = []
    for bulk, compiled in ((True, True), (False, True), (False, False)):
        pol = (Reallocation(bulk_submit=bulk, algorithm="cancel", heuristic=heuristic) if compiled
               else OracleReallocation("cancel", heuristic))
        states = []
        event = pol.reallocate

        def spy(grid, event=event, states=states):
            event(grid)
            states.append(_plan_state(grid))

        pol.reallocate = spy
        res = simulate_grid(_clusters(batch, True), jobs, meta=pol)
        assert np.isfinite(res.finish).all() and (res.start >= jobs.submit).all()
        runs.append((res, pol, states))
    for res, pol, _states in runs[1:]:
        np.testing.assert_array_equal(runs[0][0].start, res.start)
        np.testing.assert_array_equal(runs[0][0].submission_seq, res.submission_seq)
        np.testing.assert_array_equal(runs[0][0].resubmissions, res.resubmissions)
        np.testing.assert_array_equal(runs[0][1].job_moves, pol.job_moves)
        np.testing.assert_array_equal(runs[0][1].moves_out, pol.moves_out)
    assert runs[0][2] == runs[1][2]
    assert runs[0][1].reallocations > 20 and len(runs[0][2]) > 10


def test_grid_submit_many_and_cancel_many_equal_one_by_one():
    """``Grid.submit_many``/``cancel_many`` against ``submit``/``cancel`` per job, on every batch policy, with a
    double submission refused the same way."""
    from vcsched.errors import InvalidInputError
    from vcsched.sim import Grid

    jobs = _workload(5, n=30)
    for batch in ("fcfs", "easy", "cbf"):
        grids = [Grid(_clusters(batch, True), jobs) for _ in range(2)]
        rng = np.random.default_rng(1)
        first = rng.permutation(len(jobs))[:50].tolist()
        widest = np.array([16, 24, 40])
        where = [int(rng.choice(np.flatnonzero(widest >= jobs.procs[j]))) for j in first]
        again = first[::3]
        for g, bulk in zip(grids, (True, False)):
            if bulk:
                g.submit_many(first, where)
                g.cancel_many(again + [first[1]])
                g.submit_many(again, [2] * len(again))
            else:
                for j, k in zip(first, where):
                    g.submit(j, k)
                for j in again + [first[1]]:
                    g.cancel(j)
                for j in again:
                    g.submit(j, 2)
            with pytest.raises(InvalidInputError, match="already waiting"):
                g.submit_many([again[0]], [0])
        _assert_same_grids(*grids)
        for g, bulk in zip(grids, (True, False)):  # every waiting job at once (Algorithm 2), then back in
            everyone = sorted(g.waiting()) + [first[1]]
            if bulk:
                g.cancel_many(everyone)
                g.submit_many(again, [2] * len(again))
            else:
                for j in everyone:
                    g.cancel(j)
                for j in again:
                    g.submit(j, 2)
            assert len(g.waiting()) == len(again)
        _assert_same_grids(*grids)
        with pytest.raises(InvalidInputError, match="appears twice"):
            grids[0].submit_many([first[1], first[1]], [2, 2])


def _assert_same_grids(a, b) -> None:
    assert _plan_state(a) == _plan_state(b)
    for name in ("location", "resubmissions", "submission_seq", "submitted_at"):  # the per-job bookkeeping
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert [_live_fifo(c) for c in a.clusters] == [_live_fifo(c) for c in b.clusters]
    assert [c.waiting() for c in a.clusters] == [c.waiting() for c in b.clusters]


def _live_fifo(cluster) -> list:
    """The queue entries of the jobs still waiting (an FCFS cluster drops the stale ones of an emptied queue)."""
    return [(t, j) for t, j in getattr(cluster, "_fifo", ()) if cluster.waiting_jobs.get(j) == t]


def test_grid_algorithm2_refuses_clusters_without_a_resubmission_plan_and_keys_without_a_compiled_form(monkeypatch):
    """Algorithm 2 runs on the planning snapshot only: a cluster that offers no resubmission plan is refused before
    the run, and so is a registered heuristic without a compiled key (both one-line errors)."""
    from heuristics.grid.selection import HEURISTICS, HeuristicSpec
    from tests.sim.literal_cbf import LiteralCBF
    from vcsched.errors import InvalidInputError

    class Planless(LiteralCBF):
        def resubmission_plan(self):
            return None

    jobs = _workload(3, n=20)
    with pytest.raises(InvalidInputError, match="resubmission plan"):
        simulate_grid([Planless("a", 16), Planless("b", 24), Planless("c", 40)], jobs,
                      meta=Reallocation("cancel", "minmin"))
    # a user heuristic, registered for this test only
    monkeypatch.setitem(HEURISTICS._items, "lifo", HeuristicSpec("lifo", "Lifo", True,
                                                                 lambda best, second, current, procs: -best))
    with pytest.raises(InvalidInputError, match="no compiled key"):
        Reallocation("cancel", "lifo")
    assert Reallocation("no-cancel", "lifo").label == "Lifo"  # Algorithm 1 takes any key (numpy selection)


@pytest.mark.parametrize("top", [1, 3, 700, 10**7])
def test_small_unique_is_numpys_unique_with_inverse(top):
    """The counting form used for the groups' widths and codes gives numpy's sorted values and inverse (a large
    range falls back to numpy)."""
    from heuristics.grid.realloc import _small_unique

    rng = np.random.default_rng(top)
    for n in (1, 2, 50, 3000):
        values = rng.integers(0, top, n)
        uniq, inverse = _small_unique(values)
        want, want_inverse = np.unique(values, return_inverse=True)
        np.testing.assert_array_equal(uniq, want)
        np.testing.assert_array_equal(inverse, want_inverse.ravel())


def test_comparable_groups_of_clusters_of_one_speed_are_the_widths():
    """Equal duration columns (clusters of one speed): one group per width whatever the origin and the zero
    request, each ordered by duration (largest first for MaxMin) then by row; otherwise by width, origin and
    zero request."""
    from heuristics.grid.realloc import _comparable_groups

    rng = np.random.default_rng(4)
    n = 200
    widths, origin = rng.integers(1, 6, n), rng.integers(0, 3, n)
    zero = rng.random(n) < 0.2
    d = np.where(zero, 1.0, rng.integers(1, 30, n).astype(float))
    uw, rw, order, start, end, _ = _comparable_groups(widths, origin, zero, np.column_stack([d, d, d]), True)
    assert uw.tolist() == sorted(set(widths.tolist())) and start.size == uw.size
    for g in range(start.size):
        rows = order[start[g]:end[g]]
        assert (widths[rows] == uw[g]).all() and rows.tolist() == sorted(rows.tolist(), key=lambda r: (-d[r], r))
    other = _comparable_groups(widths, origin, zero, np.column_stack([d, 1.3 * d, d]), True)
    assert other is not None and other[3].size == len(set(zip(widths.tolist(), origin.tolist(), zero.tolist())))
