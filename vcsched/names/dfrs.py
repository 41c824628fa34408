"""DFRS names (VCSched over time on HPC workloads, beyond seed 001)."""

BATCH_POLICIES = ("easy", "fcfs")
"""Batch baselines: each task holds a whole core (the batch simulator)."""

FRACTIONAL_POLICIES = ("greedy", "greedy-pmtn", "greedy-pmtn-migr", "mcb8-per", "mcb8-per-stretch")
"""Fractional policies of :mod:`heuristics.dfrs.policies`."""

POLICIES = BATCH_POLICIES + FRACTIONAL_POLICIES
"""Every DFRS policy, in the order of :data:`heuristics.dfrs.methods.POLICIES` and of ``--policy``'s default."""

DEFAULT_POLICIES = tuple(p for p in POLICIES if p != "fcfs")
"""``dfrs simulate --policy``'s default: every policy but FCFS (EASY is the batch baseline)."""

CPU_TARGETS = ("avgyield", "maxmin")
"""How the fractional policies share the CPU among the running jobs (:func:`heuristics.dfrs.cpu.share_cpu`)."""

RUN_METRICS = ("max_stretch", "mean_stretch", "mean_bounded_stretch", "utilization", "makespan", "migrations", "pauses",
               "memory_moved")
"""The metrics of a DFRS run that ``dfrs simulate`` reports (:class:`heuristics.dfrs.methods.PolicyRun`'s ``metrics``,
:func:`vcsched.sim.dfrs.job_metrics` plus the migrations, pauses and memory moved)."""
