"""MCT (NetSolve), HMCT (Fig. 2), MP (Fig. 3) and MSF (Fig. 4) of seed 003 (Caniou & Jeannot RR-5168).

Tie-breaking (the figures leave it open; our choices)
-----------------------------------------------------
* HMCT: smallest predicted completion ``T_t``, then smallest server index.
* MP: the servers whose perturbation ``P_j = Σ δ`` is minimal (within 1e-6 s) are
  candidates; among them the smallest ``T_t`` (HMCT), then the smallest index. When
  all ``P_j`` are equal this is Fig. 3's line 5; otherwise it refines line 6.
* MSF: smallest ``Σ δ + T_t - a_t``, then smallest ``T_t``, then smallest index.
* MCT: smallest estimate, then smallest index; the full ranking is returned, so that
  the client tries the next server when one refuses (NetSolve's fault tolerance,
  §5.2.1). The HTM heuristics return only their choice: a refused task is lost (the
  paper's HMCT lost tasks in scenario (a) at μ = 15, Table 7).
"""

from __future__ import annotations

import abc
import time
from collections.abc import Iterable, Sequence

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.generators.timeshare import rerun_noise
from vcsched.names import timeshare as names
from vcsched.problems.timeshare import (
    TimeshareInstance,
    client_makespans,
    cross_compare,
    metrics,
    server_shares,
)
from vcsched.registry import Registry
from vcsched.sim.htm import HistoricalTraceManager
from vcsched.sim.timeshare import TimesharePolicy, TimeshareRun, simulate_timeshare

__all__ = ["REGISTRY", "MCT", "HMCT", "MP", "MSF", "HTMPolicy", "run_heuristic", "evaluate", "result_row", "RESULT_FIELDS", "TIE_TOLERANCE",
           "heuristic_mappings"]

REGISTRY: Registry = Registry("time-shared heuristic", names.HEURISTICS)

TIE_TOLERANCE = 1e-6
"""Two perturbation sums closer than this (seconds) are equal (MP's ties)."""


@REGISTRY.register("mct")
class MCT(TimesharePolicy):
    """Minimum Completion Time as NetSolve implements it (§2.2 and §5, second paragraph).

    The completion date of a request on server ``s`` is estimated as
    ``now + input + compute / f + output`` where ``f = 1 / (L_s + 1)`` is the CPU
    fraction left to a new task by the agent's recorded load ``L_s``, assumed constant
    during the whole execution. ``L_s`` is the last load the server reported (at most
    one report per 60 s, when its load changes), plus 1 for every task the agent has
    mapped there since, minus 1 when the agent learns a task finished there (not
    below 0).

    Notes
    -----
    The reported load is the number of tasks computing on the server (the paper's
    simulations used "the number of tasks in place of uptime", §5); NetSolve's real
    sensor is the smoothed Unix load average.

    When the agent learns of a completion is not in the text: §5 says it "is informed
    of the finishing of a task and corrects the recorded load accordingly, waiting for
    a sensor load report". ``completion="notify"`` (default) subtracts 1 as soon as the
    task's result is back. ``completion="report"`` leaves the recorded load as it is:
    only the server's next load report (sent when its load differs from its last
    report, at most once per period) brings it down, so the agent overestimates the
    load of servers that have just finished tasks.
    """

    name = "mct"
    COMPLETIONS = names.MCT_COMPLETIONS

    def __init__(self, completion: str = "notify") -> None:
        if completion not in self.COMPLETIONS:
            raise InvalidInputError(f"unknown MCT completion rule {completion!r}; choose one of "
                                    f"{', '.join(self.COMPLETIONS)}")
        self.completion = completion

    def start(self, platform, n_tasks: int) -> None:
        self.platform = platform
        self.load = np.zeros(platform.n_servers)
        self._fixed = platform.input + platform.output

    def estimates(self, ttype: int, now: float) -> np.ndarray:
        p = self.platform
        return now + self._fixed[:, ttype] + p.compute[:, ttype] * (self.load + 1.0)

    def choose(self, task: int, ttype: int, now: float) -> Sequence[int]:
        order = np.argsort(self.estimates(ttype, now), kind="stable")
        self.load[order[0]] += 1.0
        return order

    def load_report(self, server: int, load: int, now: float) -> None:
        self.load[server] = float(load)

    def task_finished(self, server: int, task: int, now: float) -> None:
        if self.completion == "notify":
            self.load[server] = max(self.load[server] - 1.0, 0.0)


class HTMPolicy(TimesharePolicy):
    """Base of the heuristics relying on the Historical Trace Manager (§2.3, §4).

    Subclasses implement :meth:`select` from the HTM's predictions; the decision is
    committed to the HTM (last line of Figs 2-4) and the chosen server alone is
    returned. The HTM is available as ``self.htm`` after :meth:`start`.
    """

    def start(self, platform, n_tasks: int) -> None:
        self.htm = HistoricalTraceManager(platform, capacity=max(n_tasks, 1))

    @abc.abstractmethod
    def select(self, T: np.ndarray, P: np.ndarray, now: float) -> int:
        """Index of the chosen server from the HTM's predictions ``T`` (completion dates) and ``P`` (perturbations)."""

    def choose(self, task: int, ttype: int, now: float) -> Sequence[int]:
        T, P = self.htm.predict(ttype, now)
        j = int(self.select(T, P, now))
        self.htm.commit(j, task, ttype, now)
        return (j,)


@REGISTRY.register("hmct")
class HMCT(HTMPolicy):
    """Historical MCT (Fig. 2): the server minimising the HTM's completion date ``T_t``."""

    name = "hmct"

    def select(self, T, P, now):
        return int(np.argmin(T))


@REGISTRY.register("mp")
class MP(HTMPolicy):
    """Minimum Perturbation (Fig. 3): minimise ``Σ δ`` on the server; ties by HMCT."""

    name = "mp"

    def select(self, T, P, now):
        cand = P <= P.min() + TIE_TOLERANCE
        return int(np.argmin(np.where(cand, T, np.inf)))


@REGISTRY.register("msf")
class MSF(HTMPolicy):
    """Minimum Sum Flow (Fig. 4): minimise ``Σ δ + T_t - a_t`` (the sumflow increase); ties by ``T_t``."""

    name = "msf"

    def select(self, T, P, now):
        score = P + T - now
        return int(np.lexsort((np.arange(T.size), T, score))[0])


def run_heuristic(name: str, instance: TimeshareInstance, *, trace: bool = False,
                  report_period: float = 60.0, load_sensor: str = "count", overflow: str = "refuse",
                  mct_completion: str = "notify") -> TimeshareRun:
    """Simulate ``instance`` with the heuristic registered as ``name`` (a fresh policy).

    ``load_sensor`` is what servers report to the agent (only MCT reads it) and
    ``overflow`` what a server does when memory runs out, see
    :func:`vcsched.sim.timeshare.simulate_timeshare`; ``mct_completion`` is MCT's
    ``completion`` rule (ignored by the other heuristics).
    """
    cls = REGISTRY.get(name)
    policy = cls(completion=mct_completion) if cls is MCT else cls()
    return simulate_timeshare(instance.platform, instance.workload, policy, report_period=report_period,
                              work_factor=instance.work_factor, trace=trace, load_sensor=load_sensor,
                              overflow=overflow)


def heuristic_mappings(instance: TimeshareInstance, names: Iterable[str] = names.HEURISTICS) -> dict[str, tuple]:
    """``{name: server per task}`` of each heuristic's run on ``instance`` (defaults of :func:`run_heuristic`),
    for those that lose no task: the starts of the clairvoyant mapping search
    (:func:`lowerbounds.timeshare.references.timeshare_references`)."""
    out = {}
    for name in names:
        server = run_heuristic(name, instance).server
        if (server >= 0).all():
            out[name] = tuple(int(s) for s in server)
    return out


STREAMS = {"mct": 0, "hmct": 1, "mp": 2, "msf": 3}
"""Noise stream of each heuristic's repeated runs (``runs > 1``); other registered names come after."""


def _stream(name: str) -> int:
    return STREAMS.get(name, len(STREAMS) + sorted(REGISTRY.names()).index(name))


def _row(name: str, runs: Sequence[TimeshareRun], reference: Sequence[TimeshareRun], seconds: float) -> dict:
    """Metrics of §3 averaged over ``runs``, and the cross-product comparison with MCT's runs."""
    row: dict = {"heuristic": name}
    per_run = [metrics(r.arrival, r.completion, r.duration) for r in runs]
    for key in per_run[0]:
        row[key] = float(np.mean([m[key] for m in per_run])) if len(runs) > 1 else per_run[0][key]
    if name == "mct":
        row["sooner_than_mct"], row["later_than_mct"] = 0.0, 0.0
    else:
        row["sooner_than_mct"], row["later_than_mct"] = cross_compare([r.completion for r in runs],
                                                                      [r.completion for r in reference])
    lost = [int(np.count_nonzero(r.server < 0)) for r in runs]
    refusals = [int(r.refusals.sum()) for r in runs]
    row["lost"] = lost[0] if len(runs) == 1 else float(np.mean(lost))
    row["refusals"] = refusals[0] if len(runs) == 1 else float(np.mean(refusals))
    row["seconds"] = seconds
    row["decision_seconds"] = float(sum(r.decision_seconds for r in runs))
    return row


RESULT_FIELDS = ("heuristic", "completed", "makespan", "sumflow", "maxflow", "maxstretch", "meanflow",
                 "sooner_than_mct", "later_than_mct")
"""The fields of :func:`result_row`, in order."""


def result_row(row: dict) -> dict:
    """One heuristic's row of :func:`evaluate` as ``timeshare simulate`` prints it (the JSON object, the table's
    columns): the fields of :data:`RESULT_FIELDS`."""
    return {k: row[k] for k in RESULT_FIELDS}


def evaluate(instance: TimeshareInstance, names: Iterable[str] = names.HEURISTICS, *,
             details: bool = False, load_sensor: str = "count", overflow: str = "refuse", runs: int = 1,
             mct_completion: str = "notify") -> list[dict]:
    """Metrics of §3 for each heuristic on ``instance``, with the comparison against MCT.

    Parameters
    ----------
    instance : TimeshareInstance
    names : iterable of str
        Registered heuristics; MCT is also run when absent, as the reference of
        ``sooner_than_mct`` / ``later_than_mct`` (each task against the same task under
        MCT on the same instance; both 0 for MCT itself).
    details : bool
        Add ``servers`` (per-server share of tasks and sumflow, Tables 10-14) and
        ``clients`` (per-application makespan and sumflow) to each row (of the first
        run when ``runs`` > 1).
    load_sensor : {"count", "loadavg"}
        What servers report to the agent (only MCT uses it).
    overflow : {"refuse", "close"}
        What a server does when a request would exceed its memory.
    mct_completion : {"notify", "report"}
        When MCT's agent takes a finished task off its recorded load (:class:`MCT`).
    runs : int
        Executions per heuristic. 1 (default): one run, on the instance's own work
        factors, shared by every heuristic. More: the paper's protocol (§5.2.2): each
        run of each heuristic has its own real computation times
        (:func:`vcsched.generators.timeshare.rerun_noise`, so the instance needs
        ``noise`` > 0); the metrics are means over the runs and the percentages of
        tasks finishing sooner / later are the mean over every pair (run of the
        heuristic, run of MCT), :func:`vcsched.problems.timeshare.cross_compare`.

    Returns
    -------
    list of dict
        One row per heuristic: ``heuristic``, ``completed``, ``makespan``,
        ``sumflow``, ``maxflow``, ``maxstretch``, ``meanflow``, ``sooner_than_mct``,
        ``later_than_mct`` (percent), ``lost``, ``refusals``, ``seconds``,
        ``decision_seconds``.
    """
    names = [str(n).lower() for n in names]
    if not names:
        raise InvalidInputError("give at least one heuristic")
    for n in names:
        REGISTRY.get(n)  # unknown names fail before any run
    MCT(completion=mct_completion)  # an unknown rule fails before any run
    if not (isinstance(runs, (int, np.integer)) and runs >= 1):
        raise InvalidInputError(f"runs must be an integer >= 1, got {runs!r}")
    if runs > 1:
        rerun_noise(instance, 0, 0)  # fails early, with the reason, when the instance has no noise
    results: dict[str, tuple[list[TimeshareRun], float]] = {}
    for n in (["mct"] if "mct" not in names else []) + names:
        if n in results:
            continue
        tic = time.perf_counter()
        variants = [instance] if runs == 1 else [rerun_noise(instance, _stream(n), k) for k in range(runs)]
        done = [run_heuristic(n, v, load_sensor=load_sensor, overflow=overflow, mct_completion=mct_completion)
                for v in variants]
        results[n] = (done, time.perf_counter() - tic)
    ref = results["mct"][0]
    rows = []
    for n in names:
        done, seconds = results[n]
        row = _row(n, done, ref, seconds)
        if details:
            run = done[0]
            row["servers"] = server_shares(run.server, run.ttype, run.arrival, run.completion,
                                           instance.platform.servers, instance.platform.n_types)
            row["clients"] = client_makespans(run.client, run.arrival, run.completion)
        rows.append(row)
    return rows
