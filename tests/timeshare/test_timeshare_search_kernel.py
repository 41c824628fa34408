"""The compiled mapping search (lowerbounds.timeshare._search_kernel): incremental evaluation against a whole
re-simulation, the search against brute force and the simulator, and runs sized by work (reproducible).

The kernel's tests compile it (about 13 s of CPU in a fresh clone), so they are ``slow``; the work-sizing tests of
the references run the plain search (fewer than 64 tasks) and stay in the default suite, and two of the kernel's
checks run there as plain Python (numba's JIT disabled in a child process).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lowerbounds.timeshare import METRICS, TaskCosts
from lowerbounds.timeshare.search import search_mapping
from tests.timeshare.test_timeshare_bounds import brute_force, random_platform, simulated
from vcsched.jitclock import clock
from vcsched.problems.timeshare import TimeshareWorkload as Workload


def _state(K, st, p, out, arrival, den, metric, mapping):
    n, S = mapping.size, st.shape[0]
    state = K.new_state(n, S)
    state["mapping"][:] = mapping
    K.rebuild(state["mapping"], st, p, out, arrival, den, metric, state["lst"], state["cnt"], state["pm"],
              state["end"], state["cost"], state["agg"])
    return state


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_a_moves_busy_periods_give_the_whole_servers_value(seed):
    """Every relocation and swap, evaluated on the changed busy periods, equals rebuilding both servers (integer
    dates with many ties and idle gaps, drops at either end of a list, every metric)."""
    from lowerbounds.timeshare import _search_kernel as K

    rng = np.random.default_rng(seed)
    for trial in range(60):
        n, S = int(rng.integers(1, 25)), int(rng.integers(2, 4))
        arrival = np.sort(rng.integers(0, 25, n)).astype(float) if trial % 2 else np.sort(rng.random(n) * 25)
        st = arrival[None, :] + rng.integers(0, 3, (S, n))
        p, out = rng.integers(1, 8, (S, n)).astype(float), rng.integers(0, 2, (S, n)).astype(float)
        den = st - arrival[None, :] + p + out
        scratch = (np.empty(n + 2, dtype=np.int64), np.empty(n + 2, dtype=np.int64), np.empty(n), np.empty(n),
                   np.empty(n, dtype=np.int64))
        for metric in range(4):
            mapping = rng.integers(0, S, n)
            state = _state(K, st, p, out, arrival, den, metric, mapping)
            keep = (state["lst"], state["cnt"], state["pm"], st, p, out, arrival, den, metric, state["cost"],
                    state["agg"])
            for _ in range(8):
                j = int(rng.integers(n))
                a = int(mapping[j])
                b = (a + 1 + int(rng.integers(S - 1))) % S
                others = np.flatnonzero(mapping == b)
                k = int(rng.choice(others)) if others.size and rng.random() < 0.5 else -1
                va = K._resimulate(a, j, k, *keep, *scratch)
                vb = K._resimulate(b, k, j, *keep, *scratch)
                moved = mapping.copy()
                moved[j] = b
                if k >= 0:
                    moved[k] = a
                whole = _state(K, st, p, out, arrival, den, metric, moved)["agg"]
                assert va == pytest.approx(whole[a], rel=1e-9, abs=1e-9)
                assert vb == pytest.approx(whole[b], rel=1e-9, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_the_compiled_search_never_goes_below_the_brute_force_optimum_and_is_the_simulators_value(seed):
    rng = np.random.default_rng(seed)
    platform = random_platform(rng, servers=3)
    workload = Workload.independent(np.sort(rng.uniform(0, 20, size=6)), rng.integers(0, 2, size=6))
    truth = brute_force(platform, workload)
    costs = TaskCosts.of(platform, workload)
    for m in METRICS:
        found = search_mapping(costs, m, iterations=3000, seed=seed, compiled=True)
        assert found.value >= truth[m] * (1 - 1e-9)
        assert found.value == pytest.approx(truth[m], rel=1e-9)  # 3,000 moves on 729 mappings find the optimum
        assert simulated(platform, workload, found.mapping)[0][m] == pytest.approx(found.value, rel=1e-12)


@pytest.mark.slow
def test_the_compiled_search_depends_on_its_work_not_on_its_chunks(monkeypatch):
    import lowerbounds.timeshare.search as search

    rng = np.random.default_rng(5)
    platform = random_platform(rng, servers=3)
    workload = Workload.independent(np.sort(rng.uniform(0, 200, size=90)), rng.integers(0, 2, size=90))
    costs = TaskCosts.of(platform, workload)
    one = search_mapping(costs, "sumflow", iterations=30_000, seed=2, time_limit=600)
    monkeypatch.setattr(search, "CHUNK", 997)
    two = search_mapping(costs, "sumflow", iterations=30_000, seed=2, time_limit=600)
    assert one.stopped == two.stopped == "iterations" and one.evaluations == two.evaluations == 30_000
    assert one.mapping == two.mapping and one.value == two.value
    start = search_mapping(costs, "sumflow", iterations=0, seed=2)
    assert one.value < start.value  # the search did move


def test_the_references_share_a_work_budget_not_the_clock(monkeypatch):
    """Without ``iterations``, each metric's search gets its weight's share of ``SEARCH_RATE`` moves per second of
    the search's half of the time limit, and what one metric leaves goes to the next (the same moves on any load)."""
    import lowerbounds.timeshare.references as refs

    seen = []
    real = refs.search_mapping

    def recorded(costs, metric, **kw):
        seen.append((metric, kw["iterations"]))
        return real(costs, metric, **{**kw, "iterations": 0})

    monkeypatch.setattr(refs, "search_mapping", recorded)
    monkeypatch.setattr(refs, "SEARCH_RATE", 1000)
    quick = refs.timeshare_bounds
    monkeypatch.setattr(refs, "timeshare_bounds", lambda *a, **kw: quick(*a, **{**kw, "method": "quick"}))
    rng = np.random.default_rng(0)
    platform = random_platform(rng, servers=2)
    workload = Workload.independent(np.sort(rng.uniform(0, 40, size=30)), rng.integers(0, 2, size=30))
    refs.timeshare_references(platform, workload, method="lp", time_limit=2.0)
    total = 1000 * (1 - refs.LOWER_SHARE) * 2.0
    weights = [refs.SEARCH_WEIGHT[m] for m, _ in seen]
    assert [m for m, _ in seen] == [m for m in METRICS if m in dict(seen)]
    assert seen[0][1] == int(total * weights[0] / sum(weights))
    assert seen[1][1] == int(total * weights[1] / sum(weights[1:]))  # the first search used no move: all passes on


@pytest.mark.slow
def test_the_same_bound_command_twice_gives_the_same_brackets(capsys, monkeypatch):
    """Both sides sized by work: two runs of one command agree (a small pair-programme budget and few moves, so that
    the clock, a safety at 10 s, is far)."""
    import json

    import lowerbounds.timeshare.bounds as ts_bounds
    from vcsched.cli import main

    monkeypatch.setattr(ts_bounds, "WORK_PER_SECOND", 300_000)
    args = ["timeshare", "bound", "--scenario", "b", "--mu", "15", "--seed", "2", "--tasks", "24", "--time-limit", "10",
            "--iterations", "60", "--json"]
    runs = []
    for _ in range(2):
        assert main(args) == 0
        out = json.loads(capsys.readouterr().out)
        runs.append({m: (r["lower"]["value"], r["upper"]["value"], r["upper"]["stopped"]) for m, r in out.items()})
    assert runs[0] == runs[1]
    assert {stopped for _, _, stopped in runs[0].values()} <= {"iterations", "bound reached"}


def test_the_pair_and_backlog_runs_are_chosen_by_work_not_by_the_clock(monkeypatch):
    """The same ``work`` gives the same runs (and bound) with a far or a near safety deadline that does not bite, and
    the runs go finer while their cost (states x tasks) fits."""

    import lowerbounds.timeshare.bounds as ts_bounds
    from tests.timeshare.test_timeshare_bounds import b_prefix

    platform, workload = b_prefix(12, 15, 1)
    costs = TaskCosts.of(platform, workload)
    runs = []
    real = ts_bounds.sumflow_backlog_bound

    def recorded(*args, **kwargs):
        runs.append((kwargs["window"], kwargs["step"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(ts_bounds, "sumflow_backlog_bound", recorded)
    small = ts_bounds.pairs_bounds(costs, work=1.0, deadline=clock() + 1000)
    first = list(runs)
    runs.clear()
    large = ts_bounds.pairs_bounds(costs, work=3e6, deadline=clock() + 1000)
    chosen = list(runs)
    runs.clear()
    again = ts_bounds.pairs_bounds(costs, work=3e6, deadline=clock() + 500)
    assert len(first) == 1 and len(chosen) > 1 and runs == chosen and first == chosen[:1]
    assert again == large and large["sumflow"] >= small["sumflow"] - 1e-9


def test_the_kernels_moves_and_search_run_as_plain_python_in_the_default_suite():
    """The two checks above that could fail on the kernel's logic (busy-period moves equal to whole rebuilds, the
    search never below brute force), run once in the default suite without compiling: in a child process with
    ``NUMBA_DISABLE_JIT=1`` the same code runs as Python (about 2 s instead of the 13 s compile)."""
    root = Path(__file__).resolve().parents[2]
    here = Path(__file__).resolve().relative_to(root)
    tests = [f"{here}::test_a_moves_busy_periods_give_the_whole_servers_value[0]",
             f"{here}::test_the_compiled_search_never_goes_below_the_brute_force_optimum_and_is_the_simulators_value[1]"]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(root)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-m", "slow", *tests], cwd=root, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "2 passed" in run.stdout
