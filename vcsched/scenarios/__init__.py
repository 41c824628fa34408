"""Builders of experiment platforms and workloads that need both the problem types and the simulator."""
