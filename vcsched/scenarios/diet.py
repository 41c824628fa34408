"""The experiments of seed 004 §6 as scenarios: platform, agent tree, workload, SeD changes, measured window.

Platform values: what the paper gives, and documented assumptions for what it does not.

==========================  ==========================================================================
dgemm cost                  ``DGEMM_REF_SECONDS`` (88 s) for ``n`` = 1200 (10 iterations of
                            ``C = aC + bAB``, §6.1.4) on one dedicated processor, scaled as ``n**3``:
                            1000 -> 50.9 s, 1500 -> 171.9 s. *Assumption*: the paper gives no
                            execution time; 88 s is calibrated on Table 1 (9 tasks on the most
                            loaded SeD for Standard: 9 x T / 2 ~ 460 s - arrivals; 7 tasks in 4
                            rounds of 2 for SeD Queue: 4 T ~ 369 s - arrivals).
data                        A, B, C sent (3 n^2 doubles), C returned (n^2 doubles), over 1 Gbit/s
                            (125 MB/s, §6.1.1).
hop latency, agent time     1 ms per hop, 2 ms per agent, 1 ms per SeD estimate (assumption: CORBA
                            on a LAN; the paper says the hierarchy "responds very quickly").
submit overhead             1.25 s between the client receiving the list and its solve being registered
                            by the SeD, on top of the data transfer (1.68 s in all for dgemm-1500).
                            *Assumption*, calibrated on the finding of Fig 2 (§6.2): Standard and SeD
                            Queue degrade for inter-arrival times below 1 s and not at 1 s, while the
                            Task Scheduler is good at every rate; with 0.5 s they degrade only below
                            0.5 s. Plausible for a CORBA call marshalling 54 MB plus client start-up.
n_best (maxResponses)       8 (assumption), also the MA's ``maxWinSize`` (§5.2 says they should match).
CPUs per SeD                2 (dual Opteron, §6.1.1).
execution noise             actual work = cost x Gamma(mean 1, cv 3 %), seeded (*assumption*: a real
                            machine's run-to-run variability). Without it, jobs that start together
                            on a SeD end together forever and their users herd onto the same stale
                            "least loaded" SeD: Standard then loses ~8 % of steady-state throughput
                            to idle processors, an artefact the real platform's noise breaks up.
==========================  ==========================================================================
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from vcsched.errors import InvalidInputError
from vcsched.problems.diet import AgentTree, DietPlatform, SeDChange, SequentialUser, TaskSpec, Workload, run_metrics
from vcsched.sim.diet import simulate_diet

__all__ = ["PLATFORM", "DGEMM_REF_N", "DGEMM_REF_SECONDS", "dgemm_task", "Scenario", "bursty", "add_seds", "steady",
           "EXPERIMENTS", "make_scenario", "simulate_scenario", "PAPER", "build", "approach_row"]

DGEMM_REF_N = 1200
PLATFORM = DietPlatform(exec_cv=0.03)
"""The platform of the experiments (defaults of :class:`DietPlatform` plus 3 % execution noise)."""
DGEMM_REF_SECONDS = 88.0

PAPER = {
    "add-seds": {  # Table 1: makespan (s), turnaround mean +- std (s), tasks per SeD (§6.3.2)
        "standard": {"makespan": 460.1, "mean_turnaround": 254.7, "std_turnaround": 61.7,
                     "tasks_per_sed": "9, 7, 7, 7, 6, 6, 6, 6 (none on the 4 new SeDs)"},
        "sed-queue": {"makespan": 369.1, "mean_turnaround": 179.2, "std_turnaround": 76.7,
                      "tasks_per_sed": "7 x 6, 6 x 2 (none on the 4 new SeDs)"},
        "task-scheduler": {"makespan": 312.7, "mean_turnaround": 147.6, "std_turnaround": 52.7,
                           "tasks_per_sed": "5-6 on each original SeD, 3 on each new SeD"},
    },
    "steady": {  # Fig 5: throughput relative to Standard
        "standard": {"throughput_vs_standard_pct": 0.0},
        "sed-queue": {"throughput_vs_standard_pct": -2.8},
        "task-scheduler": {"throughput_vs_standard_pct": -4.5},
    },
}


def dgemm_task(n: int, *, ref_seconds: float = DGEMM_REF_SECONDS, ref_n: int = DGEMM_REF_N) -> TaskSpec:
    """A dgemm request on ``n x n`` matrices: cost ``ref_seconds * (n / ref_n)**3``, A, B, C in and C out."""
    if n < 1:
        raise InvalidInputError(f"dgemm matrix size must be >= 1, got {n}")
    if not (ref_seconds > 0 and math.isfinite(ref_seconds)):
        raise InvalidInputError(f"dgemm reference time must be a positive number of seconds, got {ref_seconds}")
    return TaskSpec(cost=ref_seconds * (n / ref_n) ** 3, in_bytes=3 * 8.0 * n * n, out_bytes=8.0 * n * n)


@dataclasses.dataclass(frozen=True)
class Scenario:
    """One experiment setting: everything :func:`vcsched.sim.diet.simulate_diet` needs except the policy."""

    name: str
    tree: AgentTree
    workload: Workload
    changes: tuple = ()
    platform: DietPlatform = PLATFORM
    window: tuple[float, float] | None = None


def bursty(interarrival: float = 0.5, *, n_tasks: int = 8, matrix: int = 1500,
           platform: DietPlatform | None = None, ref_seconds: float = DGEMM_REF_SECONDS) -> Scenario:
    """§6.2: 1 MA, 2 LAs, 8 SeDs; one user sends ``n_tasks`` dgemm-``matrix`` requests ``interarrival`` s apart.

    ``ref_seconds`` (every builder): the dgemm-1200 time on one CPU (:data:`DGEMM_REF_SECONDS`).
    """
    _check_interarrival(interarrival)
    task = dgemm_task(matrix, ref_seconds=ref_seconds)
    arrivals = tuple((k * interarrival, task) for k in range(n_tasks))
    return Scenario("bursty", AgentTree.balanced(2, 4), Workload(arrivals=arrivals), (), platform or PLATFORM)


def add_seds(interarrival: float = 1.0, *, n_tasks: int = 54, matrix: int = 1200, pause: float = 10.0,
             new_per_la: int = 2, platform: DietPlatform | None = None,
             ref_seconds: float = DGEMM_REF_SECONDS) -> Scenario:
    """§6.3: 8 SeDs under 2 LAs; ``n_tasks`` dgemm-1200 one per second, then after ``pause`` s 4 more SeDs.

    The new SeDs (``sed8`` ..) join at ``n_tasks * interarrival + pause`` (64 s), ``new_per_la`` on each LA.
    """
    _check_interarrival(interarrival)
    task = dgemm_task(matrix, ref_seconds=ref_seconds)
    arrivals = tuple((k * interarrival, task) for k in range(n_tasks))
    t_add = n_tasks * interarrival + pause
    changes = tuple(SeDChange(t_add, f"sed{8 + k}", parent=f"LA{k % 2}") for k in range(2 * new_per_la))
    return Scenario("add-seds", AgentTree.balanced(2, 4), Workload(arrivals=arrivals), changes,
                    platform or PLATFORM)


def steady(*, duration: float = 3 * 3600.0, users: int = 96, matrix: int = 1000, launch_every: float = 5.0,
           skip_start: float = 3600.0, skip_end: float = 900.0, platform: DietPlatform | None = None,
           ref_seconds: float = DGEMM_REF_SECONDS) -> Scenario:
    """§6.4: 1 MA, 4 LAs, 24 SeDs, ``users`` sequential users launched every 5 s, stopped at ``duration``.

    Statistics over requests submitted in ``[skip_start, duration - skip_end)`` (60 min after the
    first user, 15 min before the stop). A shorter ``duration`` scales both margins by ``duration / 3 h``.
    """
    if not duration > 0:
        raise InvalidInputError(f"steady: duration must be > 0 seconds, got {duration}")
    scale = duration / (3 * 3600.0)
    t0, t1 = skip_start * scale, duration - skip_end * scale
    task = dgemm_task(matrix, ref_seconds=ref_seconds)
    us = tuple(SequentialUser(start=u * launch_every, stop=duration, task=task) for u in range(users))
    return Scenario("steady", AgentTree.balanced(4, 6), Workload(users=us), (), platform or PLATFORM,
                    window=(t0, t1))


def _check_interarrival(value: float) -> None:
    if not value >= 0:
        raise InvalidInputError(f"--interarrival must be a number of seconds >= 0, got {value}")


EXPERIMENTS = {"bursty": bursty, "add-seds": add_seds, "steady": steady}


def make_scenario(name: str, **options: Any) -> Scenario:
    """The scenario of experiment ``name`` (``bursty``, ``add-seds``, ``steady``)."""
    try:
        fn = EXPERIMENTS[name]
    except KeyError:
        raise InvalidInputError(f"unknown DIET experiment {name!r}; choose one of: {', '.join(EXPERIMENTS)}") from None
    return fn(**options)


def simulate_scenario(scenario: Scenario, policy: Any, *, seed: int = 0) -> dict[str, Any]:
    """Run ``scenario`` under ``policy`` and return :func:`vcsched.problems.diet.run_metrics` plus ``approach``."""
    run = simulate_diet(scenario.tree, scenario.workload, policy, platform=scenario.platform,
                        changes=scenario.changes, rng=seed)
    out = {"approach": run.policy}
    out.update(run_metrics(run, window=scenario.window))
    out["events"] = run.events
    return out


def build(experiment: str, *, interarrival: float | None = None, duration: float | None = None,
          submit_overhead: float | None = None, exec_cv: float | None = None, queue_sync: bool | None = None,
          interference: float | None = None) -> Scenario:
    """The scenario of ``experiment`` (``bursty``, ``add-seds``, ``steady``) as ``vcsched diet simulate|bound``
    builds it: the platform's ``submit_overhead``, ``exec_cv``, ``queue_sync`` and ``interference`` when given,
    ``interarrival`` for the independent submissions (default 0.5 s for bursty, 1 s for add-seds) and
    ``duration`` for steady's sequential users."""
    options: dict[str, Any] = {}
    changes = {k: v for k, v in (("submit_overhead", submit_overhead), ("exec_cv", exec_cv),
                                 ("queue_sync", queue_sync), ("interference", interference)) if v is not None}
    if changes:
        options["platform"] = dataclasses.replace(PLATFORM, **changes)
    if experiment == "steady":
        if interarrival is not None:
            raise InvalidInputError("--interarrival applies to --experiment bursty and add-seds; steady has "
                                    "sequential users (drop --interarrival or use --duration)")
        if duration is not None:
            options["duration"] = duration
    else:
        if duration is not None:
            raise InvalidInputError(f"--duration applies to --experiment steady only, not {experiment}")
        options["interarrival"] = interarrival if interarrival is not None else (
            0.5 if experiment == "bursty" else 1.0)
    return make_scenario(experiment, **options)


def approach_row(metrics: dict[str, Any], experiment: str, seed: int) -> dict[str, Any]:
    """One approach's row of ``vcsched diet simulate`` (its JSON object): ``approach``, ``makespan``,
    ``mean_turnaround``, ``throughput``, ``tasks_per_sed``, then the decomposition and counts."""
    keys = ("approach", "makespan", "mean_turnaround", "throughput", "tasks_per_sed", "std_turnaround",
            "mean_choose", "mean_queue", "mean_compute", "submitted", "completed", "resubmissions")
    row = {k: metrics.get(k) for k in keys}
    row["experiment"] = experiment
    row["seed"] = seed
    return row
