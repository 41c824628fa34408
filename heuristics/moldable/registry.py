"""The registry of the moldable heuristics (:mod:`heuristics.moldable`): each module registers its functions
here, and the package re-exports it, so that no module imports the package it belongs to."""

from vcsched.names.moldable import HEURISTICS
from vcsched.registry import Registry

__all__ = ["REGISTRY"]

REGISTRY: Registry = Registry("moldable heuristic", HEURISTICS)
