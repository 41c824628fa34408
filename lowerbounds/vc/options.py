"""How ``certify`` (:mod:`lowerbounds.vc.certification`) shares its time, and when it calls a result optimal."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

__all__ = ["CertifyOptions", "DEFAULT_GAP_TOL"]


DEFAULT_GAP_TOL = 1e-4
"""Relative gap at which ``certify`` reports ``optimal`` (HiGHS's default MIP gap)."""

@dataclasses.dataclass(frozen=True)
class CertifyOptions:
    """How :func:`certify` shares its time.

    Attributes
    ----------
    improve_share : float
        Largest fraction of the time left given to ``improve`` before and
        after the first configuration-LP test.
    bisection_steps : int
        Configuration-LP tests at most per bisection.
    lp_share : float
        Largest fraction of the time left that one configuration-LP test
        may take (a test stopped early proves nothing).
    lp_test_limit : float
        Seconds at most for one configuration-LP test in the first
        bisection; doubled at every later one.
    integer_master_share : float
        Largest fraction of the time left that one restricted integer
        master (:mod:`lowerbounds.vc.integer_master`) may take, also capped
        by the configuration-LP test's cap; 0 (the default) turns the step
        off (the memory packing of step 3 runs it regardless).
    dive_share : float
        Largest fraction of the time left that one price-and-dive
        (:mod:`lowerbounds.vc.dive`) may take; 0 turns the step off.
    second_phase : bool
        Run the average-yield phase (§3.5) on the final placement.
    closing_test_first : bool
        When the configuration LP could not exclude the probe (its test ran to
        the end), test the load that closes the gap (the proven load times
        ``1 + stop_gap``) before bisecting: if the LP cannot exclude it either,
        the dives aim there at once (one test instead of a bisection's
        several, each up to ``lp_test_limit`` seconds); if it is excluded,
        the bisection follows from the probe as without it.
    closing_dive_share : float
        Largest fraction of the time left for a dive at a load whose packing
        closes the gap (at most the proven load times ``1 + stop_gap``): its
        success ends the run, so it may take more than ``dive_share``.
    now : callable
        The clock (seconds); tests inject a fake one.
    """

    improve_share: float = 0.4
    bisection_steps: int = 12
    lp_share: float = 0.5
    lp_test_limit: float = 10.0
    integer_master_share: float = 0.0
    dive_share: float = 0.5
    second_phase: bool = True
    closing_test_first: bool = True
    closing_dive_share: float = 0.9
    now: Callable[[], float] = time.perf_counter
