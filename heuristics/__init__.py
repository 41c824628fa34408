"""Heuristics by problem family; each family exposes a registry by name."""
