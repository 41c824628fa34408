"""Sequential users' brackets (lowerbounds.diet.users): the closed-loop schedule is feasible, its values lie on the
right side of the proven bounds and of the best schedule found by brute force, and ``diet bound`` prints them."""

import json
import math

import numpy as np
import pytest

from lowerbounds.diet import diet_instance
from lowerbounds.diet.references import diet_references
from lowerbounds.diet.users import closed_loop_schedule, user_metrics
from vcsched.cli import main
from vcsched.problems.diet import AgentTree, DietPlatform, SeDChange, SequentialUser, TaskSpec, Workload
from vcsched.scenarios.diet import Scenario, steady
from vcsched.sim.diet import execution_factors


def users_scenario(starts, stop, *, speeds=(1.0,), cpus=1, cv=0.0, think=0.0, cost=10.0, window=None, join=None):
    tree = AgentTree.balanced(1, len(speeds))
    tree.speed.update({f"sed{k}": float(v) for k, v in enumerate(speeds)})
    task = TaskSpec(cost=cost, in_bytes=1e6, out_bytes=1e5)
    users = tuple(SequentialUser(start=float(s), stop=float(stop), task=task, think_time=think) for s in starts)
    changes = () if join is None else (SeDChange(float(join), f"sed{len(speeds)}", parent="LA0"),)
    return Scenario("users", tree, Workload(users=users), changes,
                    DietPlatform(cpus=cpus, exec_cv=cv, submit_overhead=0.5), window=window)


def check_schedule(inst, sched):
    """Every rule of the placement model in closed loop (the plain check, one request at a time)."""
    h = inst.platform.hop_latency
    factors = execution_factors(inst.platform, inst.seed, sched.n)
    assert np.all(np.diff(sched.start) >= 0)  # accepted in the order placed: the k-th does the k-th factor
    by_user = {}
    for k in range(sched.n):
        u, m = int(sched.user[k]), inst.machines[int(sched.cpu[k])]
        user = inst.users[u]
        assert sched.work[k] == pytest.approx(inst.cost[u] * factors[k])
        earliest = max(sched.submit[k] + h, m.join) + inst.d_in[u] - h
        assert sched.start[k] >= earliest - 1e-9
        assert sched.end[k] == pytest.approx(sched.start[k] + sched.work[k] / m.speed)
        assert sched.end[k] <= m.leave + 1e-9
        assert sched.done[k] == pytest.approx(sched.end[k] + inst.d_out[u])
        by_user.setdefault(u, []).append(k)
    for u, ks in by_user.items():
        user = inst.users[u]
        assert sched.submit[ks[0]] == user.start
        for a, b in zip(ks, ks[1:]):
            assert sched.submit[b] == pytest.approx(sched.done[a] + user.think_time)
        assert sched.done[ks[-1]] + user.think_time >= user.stop  # no submission left out
    for c in set(sched.cpu.tolist()):
        ks = np.flatnonzero(sched.cpu == c)
        assert np.all(sched.start[ks][1:] >= sched.end[ks][:-1] - 1e-9)  # one job at a time


CASES = [
    dict(starts=[0, 0, 1], stop=60, speeds=(1.0, 2.0)),
    dict(starts=[0, 2, 4, 6], stop=80, cpus=2, cv=0.1, think=3.0, window=(20.0, 60.0)),
    dict(starts=[0, 0], stop=50, speeds=(1.0,), join=15.0, window=(10.0, 40.0)),
]


@pytest.mark.parametrize("case", CASES)
def test_the_closed_loop_schedule_is_feasible_and_inside_the_bounds(case):
    scenario = users_scenario(**case)
    inst = diet_instance(scenario, seed=2)
    sched = closed_loop_schedule(inst)
    check_schedule(inst, sched)
    found = user_metrics(inst, sched)
    refs = diet_references(scenario, seed=2, method="best", time_limit=2)
    for m in ("makespan", "mean_turnaround"):
        b = refs[m].bracket
        assert b.upper.value == pytest.approx(found[m]) and b.lower.value <= b.upper.value
    tp = refs["throughput"].bracket
    assert tp.maximise and tp.lower.value == pytest.approx(found["throughput"])
    assert tp.lower.value <= tp.upper.value * (1 + 1e-12)


def _best_throughput(inst):
    """Brute force: the largest window throughput over every non-delay closed-loop schedule (any pending request
    on any CPU at each step, starts in non-decreasing order so that the factors follow the placement)."""
    h, speed = inst.platform.hop_latency, [m.speed for m in inst.machines]
    factors = execution_factors(inst.platform, inst.seed, 64)
    t0, t1 = inst.window
    best = -math.inf

    def walk(pending, free, last, k, count):
        nonlocal best
        live = [u for u, s in enumerate(pending) if s is not None]
        if not live:
            best = max(best, count / (t1 - t0))
            return
        for u in live:
            for m in range(len(speed)):
                start = max(max(pending[u] + h, inst.machines[m].join) + inst.d_in[u] - h, free[m])
                if start < last:
                    continue
                end = start + inst.cost[u] * factors[k] / speed[m]
                nxt = end + inst.d_out[u] + inst.users[u].think_time
                p2 = list(pending)
                p2[u] = nxt if nxt < inst.users[u].stop else None
                f2 = list(free)
                f2[m] = end
                walk(p2, f2, start, k + 1, count + (t0 <= pending[u] < t1))

    walk([u.start for u in inst.users], [-math.inf] * len(speed), -math.inf, 0, 0)
    return best


@pytest.mark.parametrize("case", [dict(starts=[0, 1, 3], stop=20, speeds=(1.0, 1.5), window=(5.0, 18.0)),
                                  dict(starts=[0, 0, 0], stop=22, cpus=2, cv=0.2, window=(0.0, 20.0))])
def test_the_throughput_bracket_holds_the_best_schedule_found_by_brute_force(case):
    scenario = users_scenario(cost=6.0, **case)
    inst = diet_instance(scenario, seed=1)
    best = _best_throughput(inst)
    tp = diet_references(scenario, seed=1, method="quick", time_limit=2)["throughput"].bracket
    assert tp.lower.value <= best * (1 + 1e-12) <= tp.upper.value * (1 + 1e-12)


def test_diet_bound_gives_sequential_users_a_bracket(capsys):
    assert main(["diet", "bound", "--experiment", "steady", "--duration", "1800", "--method", "quick",
                 "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    tp = metrics["throughput"]
    assert tp["status"] == "bracketed" and tp["lower"]["method"] == "closed-loop list schedule"
    assert 0 < tp["lower"]["value"] <= tp["upper"]["value"]
    assert metrics["makespan"]["upper"]["value"] >= metrics["makespan"]["lower"]["value"]


def test_steady_scenario_builds_a_closed_loop_schedule_of_every_user():
    inst = diet_instance(steady(duration=1200.0, users=12), seed=0)
    sched = closed_loop_schedule(inst)
    check_schedule(inst, sched)
    assert set(sched.user.tolist()) == set(range(12))
