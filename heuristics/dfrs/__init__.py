"""Dynamic fractional resource scheduling policies: jobs of HPC traces as virtual clusters.

``easy``, ``fcfs``         batch baselines (the batch simulator, one core per task)
``greedy``                 least-loaded placement at arrival, no preemption, no migration
``greedy-pmtn``            may pause lower-priority jobs to admit one
``greedy-pmtn-migr``       also resumes paused jobs on other hosts
``mcb8-per``               MCB8 re-allocation of every job each period (seed 001 §3.4)
``mcb8-per-stretch``       the same, spare CPU to the highest stretch first

:data:`POLICIES` is the table by name; :func:`simulate_policy` / :func:`simulate_policies` run them
(the engine is :mod:`vcsched.sim.dfrs`).
"""

from heuristics.dfrs.cpu import CPU_TARGETS, share_cpu
from heuristics.dfrs.methods import (
    DEFAULT_HYSTERESIS,
    DEFAULT_PENALTY,
    DEFAULT_PERIOD,
    JOB_COLUMNS,
    POLICIES,
    PolicyRun,
    PolicySpec,
    job_rows,
    make_policy,
    simulate_policies,
    simulate_policy,
)

__all__ = ["POLICIES", "PolicySpec", "PolicyRun", "make_policy", "simulate_policy", "simulate_policies",
           "share_cpu", "CPU_TARGETS", "DEFAULT_PENALTY", "DEFAULT_PERIOD", "DEFAULT_HYSTERESIS", "JOB_COLUMNS",
           "job_rows"]
