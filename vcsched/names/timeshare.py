"""Time-shared servers' names (seed 003)."""

HEURISTICS = ("mct", "hmct", "mp", "msf")
"""The agent's heuristics of :data:`heuristics.timeshare.policies.REGISTRY`."""
