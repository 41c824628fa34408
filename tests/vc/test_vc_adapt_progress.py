"""Progress of the dynamic VCSched simulation: the ``progress`` callback of
:func:`vcsched.sim.vcdynamic.simulate_dynamic` and the bar of ``vcsched vc adapt``."""

from __future__ import annotations

import io
import sys

import pytest

import vcsched.cli
from heuristics.vc.adapt import make_policy
from vcsched.scenarios.vc_dynamic import poisson_workload
from vcsched.sim.vcdynamic import simulate_dynamic

HOSTS = 4
DURATION = 80.0


def workload(seed=5):
    return poisson_workload(HOSTS, arrival_rate=0.6, mean_lifetime=15.0, duration=DURATION, slack=0.2, rng=seed)


@pytest.mark.parametrize("policy, budget", [("mcb8", 0.3), ("none", 0.0), ("local-search", float("inf"))])
def test_progress_is_monotone_ends_at_the_duration_and_changes_nothing(policy, budget):
    calls: list[float] = []
    with_cb = simulate_dynamic(HOSTS, workload(), make_policy(policy), budget=budget, duration=DURATION,
                               progress=calls.append)
    without = simulate_dynamic(HOSTS, workload(), make_policy(policy), budget=budget, duration=DURATION)
    assert with_cb == without  # every metric and the whole event trace
    assert calls[-1] == DURATION
    assert all(a <= b for a, b in zip(calls, calls[1:]))
    assert all(0.0 <= t <= DURATION for t in calls)
    # one call per event (adaptations and rejections), plus the final one
    assert len(calls) == len(with_cb.trace) + 1
    assert [r.time for r in with_cb.trace] == calls[:-1]


def test_progress_without_duration_ends_at_the_last_arrival():
    w = workload(6)
    calls: list[float] = []
    res = simulate_dynamic(HOSTS, w, make_policy("none"), budget=0.0, progress=calls.append)
    assert calls[-1] == float(w.arrival[-1])
    assert all(a <= b for a, b in zip(calls, calls[1:]))
    assert res == simulate_dynamic(HOSTS, w, make_policy("none"), budget=0.0)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


ADAPT = ["vc", "adapt", "--hosts", "4", "--arrival-rate", "0.5", "--mean-lifetime", "10", "--duration", "40",
         "--policy", "mcb8", "--budget", "inf", "--json"]


@pytest.mark.parametrize("tty, flag, shown", [(True, [], True), (True, ["--no-progress"], False), (False, [], False)])
def test_adapt_bar_only_on_a_terminal_and_without_no_progress(monkeypatch, capsys, tty, flag, shown):
    err = _Terminal() if tty else io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert vcsched.cli.main(ADAPT + flag) == 0
    text = err.getvalue()
    assert ("vc adapt: 100%" in text and "simulated time 40 of 40" in text) is shown
    assert ("vc adapt" in text) is shown
    assert '"policy": "mcb8"' in capsys.readouterr().out  # the result still goes to standard output
