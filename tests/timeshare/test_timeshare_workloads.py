"""Workloads of seed 003: Poisson arrivals, 1D-meshes, stencils, scenarios (a)-(j) of Table 2."""

import numpy as np
import pytest

from heuristics.timeshare import run_heuristic
from vcsched.errors import InvalidInputError
from vcsched.generators.timeshare import (
    arrival_dates,
    compose_workload,
    generate_scenario,
    interarrival_times,
    mesh_dag,
    stencil_dag,
)
from vcsched.problems.timeshare import TimeshareWorkload, platform_for


def test_stencil_shape_figure_6():
    g = stencil_dag(5, 4)
    assert g.number_of_nodes() == 20
    heads = [n for n in g if g.in_degree(n) == 0]
    tails = [n for n in g if g.out_degree(n) == 0]
    assert sorted(heads) == [(0, j) for j in range(5)] and sorted(tails) == [(3, j) for j in range(5)]
    inner = [n for n in g if n[0] > 0]
    assert {g.in_degree(n) for n in inner} == {2, 3}
    assert sorted(g.predecessors((2, 4))) == [(1, 3), (1, 4)]


def test_mesh_is_a_chain():
    g = mesh_dag(4)
    assert list(g.edges) == [(0, 1), (1, 2), (2, 3)]


def test_compose_numbers_tasks_topologically():
    wl = compose_workload(independent=(np.array([5.0, 1.0]), np.array([2, 1])),
                          applications=[(stencil_dag(3, 2), {n: 0 for n in stencil_dag(3, 2)}, 2.0)])
    assert wl.release[:2].tolist() == [1.0, 5.0] and wl.ttype[:2].tolist() == [1, 2]
    assert wl.client.tolist() == [-1, -1, 0, 0, 0, 0, 0, 0]
    assert wl.parents[5] == (2, 3) and wl.parents[6] == (2, 3, 4)
    assert np.isnan(wl.release[5]) and wl.release[2] == 2.0


def test_workload_validation():
    with pytest.raises(InvalidInputError, match="earlier tasks"):
        TimeshareWorkload(np.array([0, 0]), np.array([0.0, np.nan]), ((1,), ()), np.array([0, 0]))
    with pytest.raises(InvalidInputError, match="no parent and no release"):
        TimeshareWorkload(np.array([0]), np.array([np.nan]), ((),), np.array([0]))


def test_interarrivals():
    gaps = interarrival_times(20000, 17.0, 3)
    assert np.all(gaps == np.round(gaps)) and gaps.mean() == pytest.approx(17.0, rel=0.02)
    assert gaps.var() == pytest.approx(17.0, rel=0.05)  # Poisson: variance = mean
    exp = interarrival_times(20000, 17.0, 3, law="exponential")
    assert exp.std() == pytest.approx(17.0, rel=0.05)
    assert np.all(np.diff(arrival_dates(100, 15.0, 1)) >= 0)
    with pytest.raises(InvalidInputError, match="inter-arrival law"):
        interarrival_times(3, 1.0, 0, law="gamma")


@pytest.mark.parametrize("scenario, total", [("a", 500), ("b", 500), ("c", 500), ("e", 500), ("f", 500),
                                             ("g", 500), ("h", 424), ("i", 336), ("j", 211)])
def test_table_2_sizes(scenario, total):
    assert generate_scenario(scenario, rng=0).workload.n_tasks == total


def test_scenario_d_sizes_and_platforms():
    inst = generate_scenario("d", rng=3)
    sizes = np.bincount(inst.workload.client)
    assert sizes.size == 10 and sizes.min() >= 20 and sizes.max() <= 80
    assert inst.platform.servers == ("spinnaker", "artimon", "soyotte", "fonck")
    assert generate_scenario("b", platform="1", rng=0).platform.servers == ("valette", "spinnaker", "cabestan", "artimon")
    assert generate_scenario("a", rng=0).platform.servers == ("chamagne", "pulney", "cabestan", "artimon")
    assert platform_for("2").heterogeneity == pytest.approx(382.5 / 45.6)
    with pytest.raises(InvalidInputError, match="drop --platform"):
        generate_scenario("a", platform="2")


def test_same_seed_same_tasks_at_every_rate():
    a = generate_scenario("b", mu=20, rng=5).workload
    b = generate_scenario("b", mu=15, rng=5).workload
    assert np.array_equal(a.ttype, b.ttype) and not np.array_equal(a.release, b.release)
    assert np.array_equal(generate_scenario("h", rng=5).workload.release,
                          generate_scenario("h", rng=5).workload.release, equal_nan=True)


def test_scenario_e_heads_among_arrivals():
    wl = generate_scenario("e", rng=2).workload
    heads = [i for i in range(wl.n_tasks) if wl.client[i] >= 0 and not wl.parents[i]]
    assert len(heads) == 5 and (wl.client == -1).sum() == 250


@pytest.mark.parametrize("scenario", ["d", "h", "j"])
@pytest.mark.parametrize("heuristic", ["mct", "mp"])
def test_dag_release_respects_precedences(scenario, heuristic):
    inst = generate_scenario(scenario, rng=1)
    run = run_heuristic(heuristic, inst, trace=True)
    wl = inst.workload
    for i, ps in enumerate(wl.parents):
        if ps:  # submitted exactly when its last parent's result is back
            assert run.arrival[i] == max(run.completion[p] for p in ps)
        else:
            assert run.arrival[i] == wl.release[i]
    # ready tasks of one instant are submitted in lexical order (task index order)
    submits = [(t, i) for t, ev, i, _ in run.trace if ev == "submit"]
    for (t0, i0), (t1, i1) in zip(submits, submits[1:]):
        if t0 == t1 and wl.client[i0] == wl.client[i1] >= 0 and wl.parents[i0] and wl.parents[i1]:
            assert i0 < i1


def test_noise_changes_reality_not_the_tables():
    inst = generate_scenario("b", mu=17, rng=1, noise=0.1)
    assert inst.work_factor is not None and inst.work_factor.std() == pytest.approx(0.1, rel=0.2)
    assert np.array_equal(generate_scenario("b", mu=17, rng=1).workload.ttype, inst.workload.ttype)
