"""DIET's brackets (lowerbounds.diet.references): brute force inside every bracket, the contract's JSON fields."""

import json

import pytest

from lowerbounds.diet import diet_instance
from lowerbounds.diet.references import diet_references
from lowerbounds.reference import ratio_interval
from tests.diet.test_diet_bounds import brute_force, tiny
from vcsched.cli import main

CASES = [
    dict(arrivals=[0, 0, 1, 5], costs=[10, 12, 8, 9], speeds=[1.0, 2.0]),
    dict(arrivals=[0, 0.5, 0.5, 1], costs=[10, 10, 10, 10], speeds=[1.0, 1.0], cv=0.1),
    dict(arrivals=[0, 0, 0, 0], costs=[4, 7, 3, 9], speeds=[1.0], cpus=2),
]


@pytest.mark.parametrize("method", ["quick", "best", "exact"])
@pytest.mark.parametrize("case", CASES)
def test_brute_force_lies_inside_every_bracket(case, method):
    scenario = tiny(**case)
    inst = diet_instance(scenario, seed=3)
    refs = diet_references(scenario, seed=3, method=method, time_limit=4, node_limit=20_000)
    for m in ("makespan", "mean_turnaround"):
        opt = brute_force(inst, m)
        b = refs[m].bracket
        assert b.lower.value <= opt * (1 + 1e-9) and b.upper.value >= opt * (1 - 1e-9), (m, b)
    tp = refs["throughput"].bracket
    best = inst.n / brute_force(inst, "makespan")
    assert tp.maximise and tp.lower.value <= best * (1 + 1e-9) <= tp.upper.value * (1 + 2e-9)
    assert tp.ratio(best) == ratio_interval(best, tp.lower.value, tp.upper.value)


def test_bound_json_has_lower_upper_status_and_keeps_value(capsys):
    assert main(["diet", "bound", "--experiment", "bursty", "--method", "quick", "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    for entry in metrics.values():
        assert {"value", "method", "seconds", "lower", "upper", "status"} <= set(entry)
        assert entry["status"] in ("optimal", "bracketed")
        assert entry["lower"]["value"] <= entry["upper"]["value"] * (1 + 1e-9)
    tp = metrics["throughput"]  # value: the relaxation's throughput bound, at least the bracket's proven end
    assert tp["kind"] == "upper" and tp["upper"]["value"] <= tp["value"] * (1 + 1e-12)


def test_simulate_bound_adds_the_ratio_interval(capsys):
    assert main(["diet", "simulate", "--experiment", "bursty", "--approach", "sed-queue", "--bound", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    for m in ("makespan", "mean_turnaround"):
        lo, hi = row[f"{m}_ratio_to_opt"]
        assert 1 - 1e-9 <= lo <= hi <= row[m] / row[f"{m}_bound"] * (1 + 1e-9)
    lo, hi = row["throughput_ratio_to_opt"]
    assert lo <= hi <= 1 + 1e-9


def test_without_a_node_limit_the_search_is_sized_by_work_and_runs_agree(monkeypatch):
    """The default search gets nodes, MILP nodes and local-search rounds per second of its share (not the clock):
    the same call twice gives the same brackets, and the counts reach the placement search."""
    import lowerbounds.diet.references as refs_mod

    seen = []
    real = refs_mod.best_placement

    def recorded(*args, **kwargs):
        seen.append((kwargs["node_limit"], kwargs["milp_node_limit"], kwargs["polish_rounds"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(refs_mod, "best_placement", recorded)
    scenario = tiny(arrivals=[0, 0.5, 0.5, 1, 2, 2], costs=[10, 10, 12, 10, 7, 9], speeds=[1.0, 1.5], cv=0.1)
    runs = [{m: (r.bracket.lower.value, r.bracket.upper.value) for m, r in
             diet_references(scenario, seed=1, method="best", time_limit=5).items()} for _ in range(2)]
    assert runs[0] == runs[1]
    share = 5 * (1 - refs_mod.LOWER_SHARE) / 2
    assert seen[0] == (int(refs_mod.SEARCH_NODES_PER_SECOND * share), int(refs_mod.MILP_NODES_PER_SECOND * share),
                       int(refs_mod.POLISH_ROUNDS_PER_SECOND * share))


def test_safety_stops_count_from_the_call_and_leave_a_reserve_to_later_objectives(monkeypatch):
    """Each objective's safety stop is the time left to ``time_limit`` (counted from the call, so the lower side's
    unused time is margin), less ``LATER_RESERVE`` of it per objective still to search; the work is still sized
    by the nominal share."""
    import types

    import lowerbounds.diet.references as refs_mod

    dates = iter([100.0, 102.0, 110.0])
    monkeypatch.setattr(refs_mod, "time", types.SimpleNamespace(perf_counter=lambda: next(dates)))
    seen = []
    real = refs_mod.best_placement

    def recorded(*args, **kwargs):
        seen.append((kwargs["time_limit"], kwargs["node_limit"]))
        return real(*args, **{**kwargs, "time_limit": 5.0})

    monkeypatch.setattr(refs_mod, "best_placement", recorded)
    scenario = tiny(arrivals=[0, 0.5, 1, 2], costs=[10, 12, 7, 9], speeds=[1.0, 1.5], cv=0.0)
    diet_references(scenario, seed=1, method="best", time_limit=60)
    nominal = 60 * (1 - refs_mod.LOWER_SHARE) / 2
    assert seen == [(pytest.approx((60 - 2) * (1 - refs_mod.LATER_RESERVE)),
                     int(refs_mod.SEARCH_NODES_PER_SECOND * nominal)),
                    (pytest.approx(60 - 10), int(refs_mod.SEARCH_NODES_PER_SECOND * nominal))]
