"""Seeded instance generators from the papers."""
