"""VCSched heuristics (seed 001 §3.2-3.5).

Every heuristic is a function ``f(instance, *, rng=None, **options) -> Result``
registered in :data:`REGISTRY`; a heuristic that finds no placement returns
status ``failed``, never an allocation the checker rejects.
"""

from vcsched.registry import Registry

REGISTRY: Registry = Registry("VCSched heuristic")

__all__ = ["REGISTRY"]
