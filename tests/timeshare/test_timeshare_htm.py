"""The Historical Trace Manager (seed 003 §2.3-2.4) and the MSF shortcut (§4.3)."""

import numpy as np
import pytest

from heuristics.timeshare import HMCT, MP, MSF
from vcsched.generators.timeshare import generate_scenario
from vcsched.problems.timeshare import Platform, TimeshareWorkload
from vcsched.sim.htm import HistoricalTraceManager
from vcsched.sim.timeshare import simulate_timeshare


def two_identical(comp=(100.0, 1000.0)):
    return Platform(name="id", servers=("s1", "s2"), input=np.zeros((2, 2)), compute=[list(comp), list(comp)],
                    output=np.zeros((2, 2)), memory=[np.inf, np.inf], task_memory=[0.0, 0.0])


def test_paper_example_section_2_3():
    # T1 (100 s) on server 1, T2 (1000 s) on server 2 at t=0; at t=80 a 100 s task:
    # server 1 has 20 s left, server 2 has 920 s left: the HTM prefers server 1.
    htm = HistoricalTraceManager(two_identical())
    htm.commit(0, task=0, ttype=0, now=0.0)
    htm.commit(1, task=1, ttype=1, now=0.0)
    T, P = htm.predict(0, now=80.0)
    # server 1: 20 s left, shared: T1 ends at 120, the new task at 120 + 80 = 200
    # server 2: the new task ends at 80 + 200 = 280, T2 is delayed by 100 s
    assert T.tolist() == pytest.approx([200.0, 280.0])
    assert P.tolist() == pytest.approx([20.0, 100.0])


def test_figure_1_three_tasks():
    # three tasks on one server: 1/3 each until the first ends, then 1/2
    plat = Platform(name="one", servers=("s",), input=[[0.0]], compute=[[30.0]], output=[[0.0]],
                    memory=[np.inf], task_memory=[0.0])
    htm = HistoricalTraceManager(plat)
    htm.commit(0, task=0, ttype=0, now=0.0)   # alone: would end at 30
    htm.commit(0, task=1, ttype=0, now=10.0)  # task 0 has 20 left -> 10 + 40 = 50, task 1 at 60
    assert htm.predicted_completion([0, 1]).tolist() == pytest.approx([50.0, 60.0])
    T, P = htm.predict(0, now=20.0)
    # at 20: task 0 has 15 left, task 1 25, new 30: 3 share -> task 0 ends at 20 + 45 = 65,
    # then 10 left for task 1 and 15 for the new one at 1/2: task 1 at 85, new at 85 + 5 = 90
    assert T[0] == pytest.approx(90.0)
    assert P[0] == pytest.approx((65.0 - 50.0) + (85.0 - 60.0))


class Recording:
    """Wraps an HTM policy to record the predicted completion of each new task."""

    def __init__(self, policy):
        self.policy = policy
        self.predicted = {}
        self.decision = {}

    def start(self, platform, n):
        self.policy.start(platform, n)

    def choose(self, task, ttype, now):
        T, P = self.policy.htm.predict(ttype, now)
        j = self.policy.choose(task, ttype, now)[0]
        self.predicted[task] = T[j]
        self.decision[task] = (now, j)
        return (j,)

    def load_report(self, *a):
        pass

    def task_finished(self, *a):
        pass


@pytest.mark.parametrize("policy", [HMCT, MP, MSF])
def test_predictions_equal_realised_without_later_tasks(policy):
    inst = generate_scenario("b", mu=20, rng=4)
    wl = TimeshareWorkload.independent(inst.workload.release[:150], inst.workload.ttype[:150])
    rec = Recording(policy())
    run = simulate_timeshare(inst.platform, wl, rec)
    checked = 0
    for i in range(wl.n_tasks):
        now, j = rec.decision[i]
        later = [k for k in range(i + 1, wl.n_tasks) if rec.decision[k][1] == j and rec.decision[k][0] < run.completion[i]]
        if not later:
            assert run.completion[i] == pytest.approx(rec.predicted[i], rel=1e-10, abs=1e-8)
            checked += 1
    assert checked > 10
    # after the last decision, the HTM's dates are the realised ones for every task
    assert np.allclose(rec.policy.htm.predicted_completion()[: wl.n_tasks], run.completion, rtol=1e-10, atol=1e-8)


def test_htm_ignores_refusals():
    # the HTM is told only decisions: a refused task stays in its Gantt chart (§6: no feedback)
    plat = Platform(name="m", servers=("a",), input=[[0.0]], compute=[[10.0]], output=[[0.0]],
                    memory=[1.0], task_memory=[1.0])
    pol = HMCT()
    run = simulate_timeshare(plat, TimeshareWorkload.independent([0.0, 0.0], [0, 0]), pol)
    assert run.server.tolist() == [0, -1]
    assert run.completion[0] == 10.0
    assert pol.htm.predicted_completion([0, 1]).tolist() == [20.0, 20.0]


def full_sumflow_choice(detail, now):
    """Fig. 4's formula written in full: every task's flow when the new one goes on j."""
    base = sum(float(np.sum(d["before"])) for d in detail)
    values = []
    for j, d in enumerate(detail):
        total = base - float(np.sum(d["before"])) + float(np.sum(d["after"])) + (d["new"] - now)
        values.append(total)
    return np.array(values)


def test_msf_shortcut_equals_full_sumflow():
    rng = np.random.default_rng(11)
    for case in range(60):
        ns, nt = int(rng.integers(2, 5)), 3
        plat = Platform(name="r", servers=tuple(f"s{k}" for k in range(ns)), input=rng.uniform(0, 3, (ns, nt)),
                        compute=rng.uniform(5, 80, (ns, nt)), output=rng.uniform(0, 2, (ns, nt)),
                        memory=np.full(ns, np.inf), task_memory=np.zeros(nt))
        htm = HistoricalTraceManager(plat)
        now = 0.0
        for task in range(int(rng.integers(0, 25))):
            now += float(rng.exponential(8.0))
            htm.commit(int(rng.integers(ns)), task, int(rng.integers(nt)), now)
        now += float(rng.exponential(8.0))
        ttype = int(rng.integers(nt))
        detail = htm.predict_detail(ttype, now)
        T, P = htm.predict(ttype, now)
        full = full_sumflow_choice(detail, now)
        shortcut = P + T - now
        # the two differ by a constant (the flows of the tasks, unchanged whatever j)
        assert np.allclose(full - full.min(), shortcut - shortcut.min(), atol=1e-6), case
        assert int(np.argmin(full)) == MSF().select(T, P, now) or np.isclose(np.sort(full)[0], np.sort(full)[1])


def test_prediction_does_not_change_state():
    inst = generate_scenario("b", mu=15, rng=2)
    htm = HistoricalTraceManager(inst.platform)
    for i in range(40):
        now = float(inst.workload.release[i])
        htm.predict(int(inst.workload.ttype[i]), now)
        htm.commit(i % 2, i, int(inst.workload.ttype[i]), now)
    before = htm.predicted_completion()[:40].copy()
    T1, P1 = htm.predict(1, now + 3.0)
    T2, P2 = htm.predict(1, now + 3.0)
    assert np.array_equal(T1, T2) and np.array_equal(P1, P2)
    assert np.array_equal(before, htm.predicted_completion()[:40])
