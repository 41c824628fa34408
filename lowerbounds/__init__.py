"""Bounds that certify heuristics (upper bounds for maximisation, lower bounds for minimisation)."""
