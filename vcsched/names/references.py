"""The methods of the references in simulation (batch clusters and grids, time-shared servers, DIET)."""

BOUND_METHODS = ("quick", "lp", "exact", "best")
"""``quick``: closed forms; ``lp``: relaxations; ``exact``: the best clairvoyant solution of a small
workload; ``best``: the strongest within the time limit."""
