"""The DIET request-flow simulator (seed 004 §3-5): exact traces on tiny scenarios, processor sharing, queues,
SeD changes, no request lost, reproducibility."""

import dataclasses
import math

import pytest

from heuristics.diet import make_approach, select_best_n
from vcsched.errors import InvalidInputError
from vcsched.problems.diet import AgentTree, DietPlatform, SeDChange, SequentialUser, TaskSpec, Workload, run_metrics
from vcsched.scenarios.diet import add_seds, bursty, simulate_scenario, steady
from vcsched.sim.diet import simulate_diet

ZERO = DietPlatform(hop_latency=0.0, agent_time=0.0, sed_time=0.0, submit_overhead=0.0)


def tree1():
    return AgentTree(root="MA", parent={"LA0": "MA", "s0": "LA0"}, seds=["s0"])


def ends(run):
    return [(t, task) for t, what, task, _ in run.trace if what == "end"]


def test_exact_trace_of_one_request_through_the_tree():
    run = simulate_diet(tree1(), Workload(arrivals=((0.0, TaskSpec(10.0, 1.25e6, 1.25e6)),)),
                        make_approach("standard"), trace=True)
    # 1 ms hops, 2 ms per agent, 1 ms SeD estimate; 1.25 s submit overhead + 10 ms of data each way
    assert run.trace == [(0.0, "submit", 0, "client"), (0.001, "at_ma", 0, "MA"), (0.015, "list", 0, "s0"),
                         (1.276, "arrive", 0, "s0"), (1.276, "start", 0, "s0"), (11.276, "end", 0, "s0"),
                         (11.287, "done", 0, "s0")]
    rec = run.tasks[0]
    assert (rec.sed, rec.start, rec.end) == ("s0", pytest.approx(1.276), pytest.approx(11.276))


def three_jobs():
    t10, t4 = TaskSpec(10.0), TaskSpec(4.0)
    return Workload(arrivals=((0.0, t10), (0.0, t10), (2.0, t4)))


def test_processor_sharing_on_two_cpus():
    # 2 jobs alone run at full speed; from t=2 three share 2 CPUs at rate 2/3 each:
    # the 4-s job ends at 2 + 4 / (2/3) = 8, the others (8 - 4 = 4 left) at 8 + 4 = 12
    run = simulate_diet(tree1(), three_jobs(), make_approach("standard"), platform=ZERO, trace=True)
    assert ends(run) == [(8.0, 2), (12.0, 0), (12.0, 1)]


def test_sed_queue_limit_two_fifo():
    run = simulate_diet(tree1(), three_jobs(), make_approach("sed-queue", limit=2), platform=ZERO, trace=True)
    assert ends(run) == [(10.0, 0), (10.0, 1), (14.0, 2)]
    assert [(t, w, k) for t, w, k, _ in run.trace if w == "start"] == [(0.0, "start", 0), (0.0, "start", 1),
                                                                     (10.0, "start", 2)]


def test_fifo_release_order():
    t = TaskSpec(10.0)
    w = Workload(arrivals=tuple((0.1 * k, t) for k in range(5)))
    run = simulate_diet(tree1(), w, make_approach("sed-queue", limit=1), platform=ZERO, trace=True)
    assert [k for _, what, k, _ in run.trace if what == "start"] == [0, 1, 2, 3, 4]


class Spy:
    """A policy that records what the agents see (the SeD responses)."""

    def __init__(self, limit):
        self.name, self.concurrency_limit, self.master, self.seen = "spy", limit, None, []

    def select(self, responses, n, rng):
        self.seen.append(list(responses))
        return select_best_n(responses, n, rng)


def test_sed_estimates_and_queue_wait():
    t = TaskSpec(10.0)
    spy = Spy(limit=2)
    simulate_diet(tree1(), Workload(arrivals=((0.0, t), (0.0, t), (0.0, t), (3.0, t))), spy, platform=ZERO)
    # the 4th request (at t=3): 2 running (predicted to end at 10), 1 waiting (10 s) on 2 slots
    r = spy.seen[-1][0]
    assert (r.sed, r.exec_time, r.num_jobs, r.since_last_solve, r.slots) == ("s0", 10.0, 3, 3.0, 2)
    assert r.queue_wait == pytest.approx((10.0 - 3.0) + 10.0 / 2)
    first = spy.seen[0][0]
    assert first.num_jobs == 0 and first.queue_wait == 0.0 and math.isinf(first.since_last_solve)


def test_no_queue_wait_without_limit():
    spy = Spy(limit=None)
    simulate_diet(tree1(), Workload(arrivals=tuple((0.0, TaskSpec(10.0)) for _ in range(4)) + ((1.0, TaskSpec(1.0)),)),
                  spy, platform=ZERO)
    assert spy.seen[-1][0].queue_wait == 0.0 and spy.seen[-1][0].num_jobs == 4


def test_agents_keep_n_best_and_tree_merges():
    spy = Spy(limit=None)
    tree = AgentTree.balanced(2, 4)
    simulate_diet(tree, Workload(arrivals=((0.0, TaskSpec(1.0)),)), spy, platform=DietPlatform(n_best=3))
    # LA0 and LA1 see their 4 SeDs each, then the MA sees 3 + 3 merged answers
    assert sorted(len(s) for s in spy.seen) == [4, 4, 6]


@pytest.mark.parametrize("approach", ["standard", "sed-queue", "task-scheduler"])
def test_no_request_lost_with_sed_added_and_removed(approach):
    sc = add_seds(1.0, n_tasks=30)
    changes = sc.changes + (SeDChange(50.0, "sed0"), SeDChange(60.0, "sed9"), SeDChange(31.0, "sed5"))
    run = simulate_diet(sc.tree, sc.workload, make_approach(approach), platform=sc.platform, changes=changes, rng=2)
    assert len(run.tasks) == 30
    assert all(not math.isnan(r.done) and r.done >= r.end >= r.start >= r.arrive_sed >= r.submit for r in run.tasks)
    assert all(r.sed not in ("sed0", "sed5") or r.end < 50 for r in run.tasks)
    assert sum(r.resubmissions for r in run.tasks) > 0   # sed0 and sed5 had work when removed


def test_sequential_users_never_overlap_and_all_complete():
    user = SequentialUser(start=0.0, stop=100.0, task=TaskSpec(7.0))
    run = simulate_diet(AgentTree.balanced(1, 2), Workload(users=(user, dataclasses.replace(user, start=1.0))),
                        make_approach("sed-queue"), rng=0)
    for u in (0, 1):
        recs = [r for r in run.tasks if r.user == u]
        assert all(a.done <= b.submit for a, b in zip(recs, recs[1:]))
        assert all(not math.isnan(r.done) for r in recs) and recs[-1].submit < 100.0
    assert len(run.tasks) > 20


@pytest.mark.parametrize("approach", ["standard", "sed-queue", "task-scheduler"])
def test_same_seed_identical_results(approach):
    a = simulate_scenario(bursty(0.25), make_approach(approach), seed=7)
    b = simulate_scenario(bursty(0.25), make_approach(approach), seed=7)
    assert a == b


def test_random_tie_break_depends_on_seed():
    spreads = {tuple(sorted(simulate_scenario(bursty(0.0), make_approach("standard"), seed=s)["tasks_per_sed"].items()))
               for s in range(6)}
    assert len(spreads) > 1


def mean_makespan(ia, approach, seeds=range(5)):
    return sum(simulate_scenario(bursty(ia), make_approach(approach), seed=s)["makespan"] for s in seeds) / len(seeds)


def test_burst_collides_under_standard_but_not_task_scheduler():
    # inter-arrival 0: every request sees 8 idle SeDs (stale information), Algorithm 1 ends in a random choice
    collisions = [max(simulate_scenario(bursty(0.0), make_approach("standard"), seed=s)["tasks_per_sed"].values())
                  for s in range(5)]
    assert max(collisions) >= 3
    ts = simulate_scenario(bursty(0.0), make_approach("task-scheduler"), seed=0)
    assert max(ts["tasks_per_sed"].values()) == 1


def test_fig2_findings():
    # §6.2: below 1 s Standard and SeD Queue lose (stale SeD information), the Task Scheduler does not;
    # at 1 s all three are alike; Standard has the better makespan, SeD Queue the better turnaround (Fig 3)
    for ia in (0.0, 0.25, 0.5, 0.75):
        ts = mean_makespan(ia, "task-scheduler")
        assert mean_makespan(ia, "standard") > ts + 10 and mean_makespan(ia, "sed-queue") > ts + 10
    one = [mean_makespan(1.0, a) for a in ("standard", "sed-queue", "task-scheduler")]
    assert max(one) - min(one) < 1.0
    assert mean_makespan(0.0, "standard") < mean_makespan(0.0, "sed-queue")
    turn = {a: sum(simulate_scenario(bursty(0.0), make_approach(a), seed=s)["mean_turnaround"] for s in range(5))
            for a in ("standard", "sed-queue")}
    assert turn["sed-queue"] < turn["standard"]


def test_add_seds_only_task_scheduler_uses_new_seds():
    new = {"sed8", "sed9", "sed10", "sed11"}
    for a in ("standard", "sed-queue"):
        per = simulate_scenario(add_seds(), make_approach(a), seed=0)["tasks_per_sed"]
        assert not new & set(per) and sum(per.values()) == 54
    per = simulate_scenario(add_seds(), make_approach("task-scheduler"), seed=0)["tasks_per_sed"]
    assert new <= set(per) and sum(per.values()) == 54


def test_steady_short_run_measures_the_window():
    sc = steady(duration=900.0, users=24)
    m = simulate_scenario(sc, make_approach("standard"), seed=0)
    assert sc.window == pytest.approx((300.0, 825.0))
    assert m["submitted"] == m["completed"] > 0
    assert m["throughput"] == pytest.approx(m["completed"] / 525.0)


def test_bad_tree_and_changes_are_reported():
    with pytest.raises(InvalidInputError, match="unknown parent"):
        simulate_diet(AgentTree(root="MA", parent={"s0": "LAx"}, seds=["s0"]), Workload(), make_approach("standard"))
    with pytest.raises(InvalidInputError, match="no SeD named"):
        simulate_diet(tree1(), Workload(), make_approach("standard"), changes=[SeDChange(1.0, "nope")])
    with pytest.raises(InvalidInputError, match="bandwidth"):
        DietPlatform(bandwidth=0)


def test_run_metrics_on_empty_run():
    run = simulate_diet(tree1(), Workload(), make_approach("standard"))
    assert run_metrics(run)["completed"] == 0


def test_no_sed_at_all_waits_for_one_to_join_or_gives_up():
    tree = AgentTree(root="MA", parent={"LA0": "MA"}, seds=[])
    w = Workload(arrivals=((0.0, TaskSpec(5.0)),))
    for approach in ("standard", "task-scheduler"):
        run = simulate_diet(tree, w, make_approach(approach), platform=ZERO,
                            changes=[SeDChange(3.0, "late", parent="LA0")], trace=True)
        assert run.tasks[0].sed == "late" and run.tasks[0].end == pytest.approx(8.0, abs=0.01)  # MA polling grid
        run = simulate_diet(tree, w, make_approach(approach), platform=ZERO, trace=True)
        assert math.isnan(run.tasks[0].done) and "unserved" in [e[1] for e in run.trace]


def test_execution_noise_is_seeded_and_unbiased():
    sc = steady(duration=900.0, users=24)
    noisy = dataclasses.replace(sc, platform=dataclasses.replace(ZERO, exec_cv=0.1))
    a = simulate_scenario(noisy, make_approach("sed-queue"), seed=4)
    assert a == simulate_scenario(noisy, make_approach("sed-queue"), seed=4)
    assert a["mean_compute"] != pytest.approx(50.926, abs=1e-6)            # the work really varies
    assert a["mean_compute"] == pytest.approx(50.926, rel=0.05)            # around the cost (limit 2 on 2 CPUs)
    exact = dataclasses.replace(sc, platform=ZERO)
    assert simulate_scenario(exact, make_approach("sed-queue"), seed=4)["mean_compute"] == pytest.approx(50.926, abs=1e-3)
    with pytest.raises(InvalidInputError, match="exec_cv"):
        DietPlatform(exec_cv=-1.0)


def test_heterogeneous_speeds_predicted_and_used():
    tree = AgentTree(root="MA", parent={"LA0": "MA", "slow": "LA0", "fast": "LA0"}, seds=["slow", "fast"],
                     speed={"slow": 1.0, "fast": 2.0})
    run = simulate_diet(tree, Workload(arrivals=((0.0, TaskSpec(10.0)),)), make_approach("standard"), platform=ZERO,
                        changes=[SeDChange(20.0, "faster", parent="LA0", speed=4.0)])
    assert (run.tasks[0].sed, run.tasks[0].end) == ("fast", 5.0)    # Algorithm 1: smallest predicted time first
    run = simulate_diet(tree, Workload(arrivals=((30.0, TaskSpec(10.0)),)), make_approach("standard"),
                        platform=ZERO, changes=[SeDChange(20.0, "faster", parent="LA0", speed=4.0)])
    assert (run.tasks[0].sed, run.tasks[0].end) == ("faster", 32.5)


def test_queue_sync_delays_each_queued_start_and_holds_the_slot():
    # limit 2 on 2 CPUs, hand-off cost 1 s: jobs 0 and 1 start at 0 (free slots, no hand-off) and end at 10;
    # job 2 (4 s, queued) starts at 10 + 1 = 11 and ends at 15
    plat = dataclasses.replace(ZERO, queue_sync=1.0)
    run = simulate_diet(tree1(), three_jobs(), make_approach("sed-queue", limit=2), platform=plat, trace=True)
    assert ends(run) == [(10.0, 0), (10.0, 1), (15.0, 2)]
    assert [(t, k) for t, w, k, _ in run.trace if w == "start"] == [(0.0, 0), (0.0, 1), (11.0, 2)]


def test_queue_sync_slot_not_given_to_a_newcomer_during_hand_off():
    # limit 1, 1 CPU, sync 2 s: job 0 (0..10), job 1 queued, hand-off 10..12, runs 12..22; job 2 arrives at 11
    # during the hand-off: the slot is taken, so it queues and starts at 22 + 2 = 24, ends at 34
    t = TaskSpec(10.0)
    plat = dataclasses.replace(ZERO, queue_sync=2.0, cpus=1)
    w = Workload(arrivals=((0.0, t), (1.0, t), (11.0, t)))
    run = simulate_diet(tree1(), w, make_approach("sed-queue", limit=1), platform=plat, trace=True)
    assert ends(run) == [(10.0, 0), (22.0, 1), (34.0, 2)]


def test_queue_sync_is_validated():
    with pytest.raises(InvalidInputError, match="queue_sync"):
        DietPlatform(queue_sync=-1.0)


def test_literal_sorting_spreads_standard_at_random_and_sed_queue_by_its_estimate():
    # add-seds (Table 1) under the literal reading of Algorithm 1: Standard's placement is random, so some
    # SeD gets 9+ of the 54 tasks; SeD Queue follows the queue-wait estimate (at most 8 per SeD)
    sc = add_seds(1.0)
    std = simulate_scenario(sc, make_approach("standard", sorting="literal"), seed=0)
    sq = simulate_scenario(sc, make_approach("sed-queue", sorting="literal"), seed=0)
    assert max(std["tasks_per_sed"].values()) >= 9
    assert max(sq["tasks_per_sed"].values()) <= 8
    assert std["makespan"] > sq["makespan"]


def four_equal_jobs():
    t = TaskSpec(10.0)
    return Workload(arrivals=tuple((0.0, t) for _ in range(4)))


@pytest.mark.parametrize("a, end", [(0.0, 20.0), (0.5, 30.0), (1.0, 40.0)])
def test_interference_four_equal_jobs_on_two_cpus(a, end):
    # 4 jobs of T = 10 s share 2 CPUs: rate 1/2 / (1 + a * (4 - 2) / 2), so all end at 2T (1 + a)
    plat = dataclasses.replace(ZERO, interference=a)
    run = simulate_diet(tree1(), four_equal_jobs(), make_approach("standard"), platform=plat, trace=True)
    assert ends(run) == [(pytest.approx(end), k) for k in range(4)]


def test_interference_only_while_jobs_exceed_cpus():
    # a = 0.5: alone (0..2) the 2 jobs run at full speed; 3 jobs run at (2/3) / 1.25 = 8/15 each, so the 4-s
    # job ends at 2 + 4 * 15/8 = 9.5 (the others have 8 - 4 = 4 s left), then 2 jobs at full speed end at 13.5
    plat = dataclasses.replace(ZERO, interference=0.5)
    run = simulate_diet(tree1(), three_jobs(), make_approach("standard"), platform=plat, trace=True)
    assert ends(run) == [(pytest.approx(9.5), 2), (pytest.approx(13.5), 0), (pytest.approx(13.5), 1)]
    # a SeD queue limited to the CPUs never oversubscribes: interference changes nothing
    sq = make_approach("sed-queue", limit=2)
    plain = simulate_diet(tree1(), three_jobs(), sq, platform=ZERO, trace=True)
    assert simulate_diet(tree1(), three_jobs(), sq, platform=plat, trace=True).trace == plain.trace


def test_interference_zero_is_the_default_model_exactly():
    sc = steady(duration=1200.0)
    base = simulate_scenario(sc, make_approach("standard"), seed=2)
    zero = simulate_scenario(dataclasses.replace(sc, platform=dataclasses.replace(sc.platform, interference=0.0)),
                             make_approach("standard"), seed=2)
    slow = simulate_scenario(dataclasses.replace(sc, platform=dataclasses.replace(sc.platform, interference=0.5)),
                             make_approach("standard"), seed=2)
    assert zero == base
    assert slow["mean_compute"] > base["mean_compute"]


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, math.inf])
def test_interference_is_validated(bad):
    with pytest.raises(InvalidInputError, match="interference"):
        DietPlatform(interference=bad)
