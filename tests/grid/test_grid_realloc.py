"""Reallocation Algorithms 1 and 2 with the six heuristics (seed 000 §2.2) on hand-made scenarios.

Every run is checked by :func:`check_run`: every job starts once and ends once (nothing
lost or duplicated by cancellations), the engine's submission order agrees with the event
log, the engine's invariants hold (:func:`vcsched.sim.invariants.check_schedule`, which
also checks that FCFS clusters start jobs in the order they were (re)submitted there,
same-instant resubmissions included), and the policy's move counters agree with the
engine's resubmissions.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from heuristics.grid.realloc import HEURISTICS, Reallocation, select_job
from vcsched.errors import InvalidInputError, UnknownNameError
from vcsched.problems.workload import from_arrays
from vcsched.sim import JobTable, make_cluster, simulate_grid
from vcsched.sim.invariants import check_schedule

ALL_HEURISTICS = ["mct", "minmin", "maxmin", "maxgain", "maxrelgain", "sufferage"]
ALGOS = ["no-cancel", "cancel"]


def jobs_of(rows):
    """rows: (submit, run, requested, procs); one trace, job ids 1..n."""
    w = from_arrays(*[[r[k] for r in rows] for k in range(4)])
    return JobTable.from_workloads([w])


def check_run(res, policy=None):
    """Nothing lost or duplicated; submission order as logged; the engine's invariants; counters."""
    n = len(res.jobs)
    assert not np.isnan(res.finish).any(), "a job never finished"
    starts = Counter(j for _, k, j, _ in res.log if k == "start")
    ends = Counter(j for _, k, j, _ in res.log if k == "end")
    ids = list(res.jobs.job_id)
    assert all(starts[i] == 1 for i in ids) and all(ends[i] == 1 for i in ids) and len(starts) == n
    submits = Counter(j for _, k, j, _ in res.log if k == "submit")
    cancels = Counter(j for _, k, j, _ in res.log if k == "cancel")
    for r, i in enumerate(ids):
        assert submits[i] == 1 + res.resubmissions[r] and cancels[i] == res.resubmissions[r]
    last_submit = {j: pos for pos, (_, kind, j, _) in enumerate(res.log) if kind == "submit"}
    logged = sorted(range(n), key=lambda r: last_submit[ids[r]])
    assert logged == np.argsort(res.submission_seq).tolist(), "submission_seq disagrees with the log"
    check_schedule(res)
    if policy is not None:
        assert policy.reallocations == int(policy.job_moves.sum()) == int(policy.moves_in.sum())
        assert int(policy.moves_out.sum()) == policy.reallocations
        if policy.algorithm == "no-cancel":
            assert policy.reallocations == int(res.resubmissions.sum())
        else:
            assert policy.reallocations <= int(res.resubmissions.sum())
            assert (policy.job_moves <= res.resubmissions).all()


def run(clusters, jobs, policy):
    res = simulate_grid(clusters, jobs, meta=policy, record=True)
    check_run(res, policy)
    return res


# ----------------------------------------------------------------- Figure 1 of the seed
FIGURE1 = [  # (submit, run, requested, procs)
    (0, 10000, 10000, 4),  # e: occupies cluster A
    (0, 1000, 20000, 4),   # g: goes to B, ends long before its walltime (task f of Figure 1)
    (10, 3000, 3000, 4),   # h: mapped to A (ECT 13000 < 23000)
    (20, 3000, 3000, 4),   # i: mapped to A (ECT 16000 < 23000)
]


@pytest.mark.parametrize("batch", ["fcfs", "cbf"])
@pytest.mark.parametrize("algorithm", ALGOS)
@pytest.mark.parametrize("heuristic", ALL_HEURISTICS)
def test_grid_figure1_h_and_i_move_to_the_second_cluster(batch, algorithm, heuristic):
    """Seed Figure 1: g ends early on B; at t1 = 3600 the waiting h and i move to B."""
    pol = Reallocation(algorithm, heuristic)
    res = run([make_cluster("A", 4, policy=batch), make_cluster("B", 4, policy=batch)], jobs_of(FIGURE1), pol)
    assert res.cluster.tolist() == [0, 1, 1, 1]
    assert pol.reallocations == 2 and pol.moves_out.tolist() == [2, 0] and pol.moves_in.tolist() == [0, 2]
    assert pol.job_moves.tolist() == [0, 0, 1, 1]
    assert sorted(res.start[2:].tolist()) == [3600.0, 6600.0]
    assert pol.events == 1  # only one event had waiting jobs (at 7200 the queue is empty)


def test_grid_figure1_order_follows_the_heuristic():
    """MCT and MinMin move h first; MaxGain moves i first (gain 9400 > 6400) in Algorithm 1."""
    starts = {}
    for h in ("mct", "minmin", "maxgain"):
        res = run([make_cluster("A", 4), make_cluster("B", 4)], jobs_of(FIGURE1), Reallocation("no-cancel", h))
        starts[h] = res.start[2:].tolist()
    assert starts == {"mct": [3600.0, 6600.0], "minmin": [3600.0, 6600.0], "maxgain": [6600.0, 3600.0]}


def test_grid_without_reallocation_nothing_moves():
    pol = Reallocation("none")
    res = run([make_cluster("A", 4), make_cluster("B", 4)], jobs_of(FIGURE1), pol)
    assert res.cluster.tolist() == [0, 1, 0, 0] and pol.reallocations == 0 and res.resubmissions.sum() == 0


# ----------------------------------------------------------------- the 60 s threshold
def _threshold_case(gain):
    """h waits on A with ECT 3600 + gain + 600; B frees at 500, so at 3600 B gives 3600 + 600."""
    return jobs_of([(0, 3600 + gain, 3600 + gain, 4), (0, 500, 20000, 4), (10, 600, 600, 4)])


@pytest.mark.parametrize("batch", ["fcfs", "cbf", "easy"])
@pytest.mark.parametrize("heuristic", ALL_HEURISTICS)
def test_grid_algorithm1_does_not_move_for_59_or_60_seconds(batch, heuristic):
    for gain, moved in ((59, False), (60, False), (61, True)):
        pol = Reallocation("no-cancel", heuristic)
        res = run([make_cluster("A", 4, policy=batch), make_cluster("B", 4, policy=batch)], _threshold_case(gain), pol)
        assert pol.reallocations == int(moved), gain
        assert res.cluster[2] == (1 if moved else 0)
        assert res.start[2] == (3600.0 if moved else 3600.0 + gain)


def test_grid_threshold_is_an_argument_and_algorithm2_has_none():
    clusters = lambda: [make_cluster("A", 4), make_cluster("B", 4)]  # noqa: E731
    pol = Reallocation("no-cancel", "mct", threshold=30)
    run(clusters(), _threshold_case(59), pol)
    assert pol.reallocations == 1
    pol = Reallocation("cancel", "mct")
    run(clusters(), _threshold_case(59), pol)
    assert pol.reallocations == 1
    pol = Reallocation("cancel", "mct")  # equal ECT: stays on its own cluster, not a move
    res = run(clusters(), _threshold_case(0), pol)
    assert pol.reallocations == 0 and res.cluster[2] == 0 and res.resubmissions[2] == 1


# ----------------------------------------------------------------- period and first event
def test_grid_first_event_one_period_after_the_first_submission():
    rows = [(s + 1000, r, q, p) for s, r, q, p in FIGURE1]
    pol = Reallocation("no-cancel", "mct", period=1800)
    res = run([make_cluster("A", 4), make_cluster("B", 4)], jobs_of(rows), pol)
    assert min(res.start[2:]) == 1000 + 1800  # first event at first submission + period
    pol = Reallocation("no-cancel", "mct", first=5000)
    res = run([make_cluster("A", 4), make_cluster("B", 4)], jobs_of(rows), pol)
    assert min(res.start[2:]) == 5000


# ----------------------------------------------------------------- heterogeneity
def test_grid_heterogeneous_ect_uses_the_speed():
    """A job that starts later on a faster cluster but finishes earlier moves (seed §2.2.1, heterogeneous remark)."""
    rows = [(0, 140, 19600, 4),    # j0: A 19600 vs B 14000 -> B; runs 100 s there (ends long before its walltime)
            (0, 5000, 5000, 4),    # j1: A 5000 vs B 17571 -> A, busy until 5000
            (60, 7000, 7000, 4),   # h: A 12000 vs B 19000 -> A, waits behind j1
            (200, 8120, 8120, 4)]  # j3: A 20120 vs B 200 + 5800 -> B, busy until 6000
    pol = Reallocation("no-cancel", "minmin")
    res = run([make_cluster("A", 4, 1.0), make_cluster("B", 4, 1.4)], jobs_of(rows), pol)
    # at 3600: h finishes at 12000 on A, at 6000 + 7000 / 1.4 = 11000 on B -> moves, starts later (6000 > 5000)
    assert pol.reallocations == 1 and res.cluster.tolist() == [1, 0, 1, 1]
    assert res.start[2] == pytest.approx(6000.0) and res.finish[2] == pytest.approx(11000.0)


# ----------------------------------------------------------------- heuristics on a known matrix
def test_grid_select_job_each_heuristic():
    E = np.array([[100.0, 400.0, 300.0],   # job 0: best 100 (current 300 -> gain 200), sufferage 200
                  [50.0, 60.0, 900.0],     # job 1: best 50 (current 900 -> gain 850), sufferage 10
                  [700.0, 2000.0, 800.0],  # job 2: best 700 (current 800 -> gain 100), sufferage 100
                  [600.0, np.inf, 650.0]])  # job 3: best 600, current 650, sufferage 50
    current = np.array([300.0, 900.0, 800.0, 650.0])
    procs = np.array([1, 10, 1, 1])
    expect = {"mct": 0, "minmin": 1, "maxmin": 2, "maxgain": 1, "maxrelgain": 0, "sufferage": 0}
    got = {h: select_job(h, E, current, procs) for h in ALL_HEURISTICS}
    assert got == expect
    alive = np.array([False, True, True, True])
    assert select_job("mct", E, current, procs, alive) == 1
    assert select_job("maxrelgain", E, current, procs, alive) == 2
    # a job that fits a single cluster has an infinite sufferage
    E2 = np.array([[100.0, np.inf], [100.0, 5000.0]])
    assert select_job("sufferage", E2, E2[:, 0], np.array([1, 1])) == 0
    assert HEURISTICS.names() == ALL_HEURISTICS


def test_grid_bad_arguments():
    with pytest.raises(InvalidInputError, match="unknown reallocation algorithm"):
        Reallocation("sometimes")
    with pytest.raises(UnknownNameError, match="did you mean 'minmin'"):
        Reallocation("cancel", "minimin")
    with pytest.raises(InvalidInputError, match="period must be at least 1 s"):
        Reallocation("cancel", "mct", period=0.5)
    assert Reallocation("cancel", "minmin").label == "MinMin-C"
    assert Reallocation("no-cancel", "maxrelgain").label == "MaxRelGain"


# ----------------------------------------------------------------- random workloads
def _random_jobs(seed, n=200, sites=2, procs=(32, 48)):
    rng = np.random.default_rng(seed)
    ws = []
    for s in range(sites):
        sub = np.sort(rng.uniform(0, 3 * 86400, n))
        run_ = np.ceil(rng.lognormal(6.5, 1.2, n))
        req = np.ceil(run_ * rng.uniform(1, 5, n))
        p = rng.integers(1, procs[s] + 1, n)
        ws.append(from_arrays(sub, run_, req, p))
    return JobTable.from_workloads(ws, labels=[f"s{k}" for k in range(sites)])


@pytest.mark.parametrize("batch", ["fcfs", "cbf", "easy"])
@pytest.mark.parametrize("algorithm", ALGOS)
def test_grid_no_job_lost_or_duplicated_and_matrix_stays_exact(batch, algorithm):
    """Random two-site load, every heuristic; ``verify`` checks every incremental ECT matrix."""
    moved = 0
    for h in ALL_HEURISTICS:
        jobs = _random_jobs(1)
        pol = Reallocation(algorithm, h, verify=True)
        run([make_cluster("a", 32, 1.0, batch), make_cluster("b", 48, 1.2, batch)], jobs, pol)
        moved += pol.reallocations
    assert moved > 0


@pytest.mark.parametrize("batch", ["fcfs", "cbf"])
@pytest.mark.parametrize("algorithm", ALGOS)
@pytest.mark.parametrize("heuristic", ALL_HEURISTICS)
def test_grid_one_cluster_reallocation_changes_nothing(batch, algorithm, heuristic):
    w = _random_jobs(2, n=200, sites=1, procs=(32,))
    ref = simulate_grid([make_cluster("only", 32, policy=batch)], w, meta=Reallocation("none"))
    pol = Reallocation(algorithm, heuristic)
    res = run([make_cluster("only", 32, policy=batch)], w, pol)
    assert pol.reallocations == 0 and res.resubmissions.sum() == 0
    np.testing.assert_array_equal(res.start, ref.start)
    np.testing.assert_array_equal(res.finish, ref.finish)


@pytest.mark.parametrize("algorithm", ALGOS)
def test_grid_same_input_same_result(algorithm):
    outs = []
    for _ in range(2):
        pol = Reallocation(algorithm, "sufferage")
        res = simulate_grid([make_cluster("a", 32, 1.0, "cbf"), make_cluster("b", 48, 1.4, "cbf")], _random_jobs(3),
                       meta=pol, record=True)
        outs.append((res.start.tolist(), res.finish.tolist(), res.cluster.tolist(), pol.reallocations, res.log))
    assert outs[0] == outs[1]
    assert outs[0][3] > 0


def test_grid_policy_counters_reset_between_runs():
    pol = Reallocation("cancel", "minmin")
    clusters = lambda: [make_cluster("A", 4), make_cluster("B", 4)]  # noqa: E731
    simulate_grid(clusters(), jobs_of(FIGURE1), meta=pol)
    first = (pol.reallocations, pol.job_moves.tolist())
    simulate_grid(clusters(), jobs_of(FIGURE1), meta=pol)
    assert (pol.reallocations, pol.job_moves.tolist()) == first == (2, [0, 0, 1, 1])
    s = pol.stats(clusters())
    assert s["reallocations"] == 2 and s["clusters"]["B"]["reallocations"] == 2
    assert s["clusters"]["A"]["reallocations_out"] == 2


@pytest.mark.filterwarnings("ignore:invalid value encountered in subtract")  # inf - inf in numpy's MaxGain key
@pytest.mark.parametrize("seed", range(30))
def test_grid_compiled_selection_equals_numpy(seed):
    # the compiled selection of the built-in heuristics against the plain numpy keys
    # (tests/grid/plain_selection.py), with ties (few distinct values), infinite ECTs, one or
    # three clusters, dead rows, and all rows dead
    from heuristics.grid import fastselect
    from heuristics.grid.selection import select_job
    from tests.grid.plain_selection import PLAIN_KEYS, plain_spec

    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(1, 40)), int(rng.choice([1, 2, 3, 5]))
    E = rng.choice([5.0, 10.0, 10.0, 20.0, 35.0, np.inf], size=(n, K))
    E[:, 0] = np.minimum(E[:, 0], 50.0)  # every job fits somewhere (its current cluster)
    current = E[np.arange(n), rng.integers(0, K, size=n)]
    current = np.where(np.isinf(current), E[:, 0], current)
    procs = rng.choice([1.0, 2.0, 4.0], size=n)
    alive = rng.random(n) < (0.0 if seed == 7 else 0.6)
    assert set(PLAIN_KEYS) == set(HEURISTICS)
    for name in HEURISTICS:
        spec = HEURISTICS.get(name)
        want = _numpy_choice(plain_spec(name), E, current, procs, alive)
        if spec.code == fastselect.MCT:
            assert select_job(name, E, current, procs, alive) == int(np.argmax(alive))
            continue
        got = fastselect.select_builtin(spec.code, spec.maximise, E, current, procs, alive)
        assert got == want, (spec.name, E, current, alive)
    nan_current = current.copy()
    nan_current[-1] = np.inf  # MaxGain key inf - inf = NaN on the last row when its best ECT is inf too
    E2 = E.copy()
    E2[-1] = np.inf
    for name in ("maxgain", "minmin"):
        spec = HEURISTICS.get(name)
        assert (fastselect.select_builtin(spec.code, spec.maximise, E2, nan_current, procs, alive)
                == _numpy_choice(plain_spec(name), E2, nan_current, procs, alive))


def _numpy_choice(spec, E, current, procs, alive):
    from heuristics.grid.selection import _select_numpy

    return _select_numpy(spec, E, current, procs, alive)


def test_a_heuristic_spec_has_a_numpy_key_or_a_compiled_code():
    from heuristics.grid.selection import HeuristicSpec

    with pytest.raises(InvalidInputError, match="either a numpy key function or a compiled key code"):
        HeuristicSpec("x", "X", True, None, None)
    with pytest.raises(InvalidInputError, match="either a numpy key function or a compiled key code"):
        HeuristicSpec("x", "X", True, lambda b, s, c, p: b, 1)
