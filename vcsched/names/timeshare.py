"""Time-shared servers' names (seed 003)."""

HEURISTICS = ("mct", "hmct", "mp", "msf")
"""The agent's heuristics of :data:`heuristics.timeshare.policies.REGISTRY`."""

LOAD_SENSORS = ("count", "loadavg")
"""What a server reports to MCT's agent (:func:`vcsched.sim.timeshare.simulate_timeshare`): its number of
computing tasks, or a Unix-style load average."""

MCT_COMPLETIONS = ("notify", "report")
"""When MCT's agent takes a finished task off a server's recorded load (:class:`heuristics.timeshare.policies.MCT`):
at once, or with the server's next load report."""

OVERFLOWS = ("refuse", "close")
"""What a server does when a request would exceed its memory (:mod:`vcsched.sim.timeshare`)."""

INTERARRIVAL_LAWS = ("poisson", "exponential")
"""Laws of the gaps between arrivals (:func:`vcsched.generators.timeshare.interarrival_times`)."""

MEMORY_MODELS = ("ram", "ram+swap", "none")
"""A server's capacity in the collapse model (:func:`vcsched.problems.timeshare.make_platform`)."""

METRICS = ("makespan", "sumflow", "maxflow", "maxstretch")
"""The metrics the time-shared servers' references bracket (:data:`lowerbounds.timeshare.METRICS`)."""
