"""The time-shared servers' brackets (lowerbounds.timeshare.references): the bound below the brute-force optimum,
the best mapping found above it and equal to the simulator's value of that mapping, closed by the exact search."""

from __future__ import annotations

import pytest

from lowerbounds.timeshare import METRICS
from lowerbounds.timeshare.references import timeshare_references
from tests.timeshare.test_timeshare_bounds import brute_force, random_independent, simulated


def _tiny(seed: int, n: int = 5):
    return random_independent(seed, n, 30.0)


@pytest.mark.parametrize("method", ["quick", "lp"])
@pytest.mark.parametrize("seed", range(3))
def test_the_bracket_holds_the_brute_force_optimum_and_its_mapping_is_the_simulators(method, seed):
    platform, workload = _tiny(seed)
    truth = brute_force(platform, workload)
    refs = timeshare_references(platform, workload, method=method, time_limit=20, iterations=200, seed=seed)
    assert list(refs) == list(METRICS)
    for m, ref in refs.items():
        b = ref.bracket
        assert b.lower.value <= truth[m] * (1 + 1e-7) <= b.upper.value * (1 + 1e-7)
        values, _ = simulated(platform, workload, ref.mapping)  # the upper end is a mapping the simulator runs
        assert values["completed"] == workload.n_tasks and values[m] == pytest.approx(b.upper.value, rel=1e-9)
        assert b.ratio(truth[m])[0] <= 1 + 1e-7 <= b.ratio(truth[m])[1] + 2e-7


def test_the_exact_search_closes_the_bracket_at_the_optimum():
    platform, workload = _tiny(5)
    truth = brute_force(platform, workload)
    refs = timeshare_references(platform, workload, method="exact", time_limit=30)
    for m, ref in refs.items():
        assert ref.bracket.status == "optimal" and ref.bracket.upper.method == "exact"
        assert ref.bracket.lower.value == pytest.approx(truth[m], rel=1e-7)
        d = ref.to_dict()
        assert d["status"] == "optimal" and d["search_status"] == "optimal"
        assert d["lower"]["value"] == d["value"] and d["upper"]["value"] == pytest.approx(truth[m], rel=1e-7)


def test_the_search_is_reproducible_for_a_seed_and_iterations():
    platform, workload = _tiny(9, n=9)
    one = timeshare_references(platform, workload, method="quick", time_limit=60, seed=4, iterations=150)
    two = timeshare_references(platform, workload, method="quick", time_limit=60, seed=4, iterations=150)
    for m in METRICS:
        assert one[m].mapping == two[m].mapping and one[m].stopped in ("iterations", "done")
        assert one[m].bracket.upper.value == two[m].bracket.upper.value


def test_the_search_starts_from_the_best_given_mapping():
    from lowerbounds.timeshare import TaskCosts
    from lowerbounds.timeshare.search import search_mapping

    platform, workload = _tiny(5, n=30)
    good = search_mapping(TaskCosts.of(platform, workload), "sumflow", iterations=5000, seed=2)
    worst = tuple(0 for _ in range(30))
    refs = timeshare_references(platform, workload, method="quick", iterations=0, metrics=("sumflow",),
                                starts={"worst": worst, "good": good.mapping, "lost": (-1,) * 30})
    ref = refs["sumflow"]
    assert ref.start in ("good", "greedy") and ref.bracket.upper.value <= good.value * (1 + 1e-12)
    assert simulated(platform, workload, ref.mapping)[0]["sumflow"] == pytest.approx(ref.bracket.upper.value)
    assert ref.to_dict()["upper"]["start"] == ref.start


def test_an_interrupt_keeps_the_best_mapping_found_and_stops_the_later_searches(monkeypatch, capsys):
    import lowerbounds.timeshare.search as search
    from vcsched.cli import main

    real, calls = search._State.trial, {"n": 0}

    def trial(self, change):
        calls["n"] += 1
        if calls["n"] == 40:
            raise KeyboardInterrupt
        return real(self, change)

    monkeypatch.setattr(search._State, "trial", trial)
    code = main(["timeshare", "bound", "--scenario", "b", "--tasks", "30", "--seed", "1", "--method", "quick",
                 "--json"])
    out = capsys.readouterr()
    import json

    refs = json.loads(out.out)
    stopped = [r["upper"]["stopped"] for r in refs.values() if r["upper"] is not None]
    assert code == 130 and "interrupted" in out.err and "interrupted" in stopped
    first = next(m for m, r in refs.items() if r["upper"] is not None and r["upper"]["stopped"] == "interrupted")
    later = list(refs)[list(refs).index(first) + 1:]
    assert all(refs[m]["upper"] is None for m in later)
    assert refs[first]["upper"]["value"] >= refs[first]["lower"]["value"]
