"""The portfolio of the clairvoyant search's first step: static keys, one per job (smaller first), for the two list
constructions of :mod:`lowerbounds.batch._listsched` (see :mod:`lowerbounds.batch.clairvoyant`).

A number ``a`` is the key ``r + a p`` (``p`` the job's shortest duration; ``a = 0`` is FCFS, ``r + S p`` the
deadline of stretch ``S``); ``spt`` and ``lpt`` shortest and longest first; ``tier X`` the submission order with
the jobs of ``p >= X`` seconds after all the others (each tier FCFS). The tiers are for the bounded slowdown: a
short job's wait weighs ``1 / max(p, tau)``, a long one's ``1 / p``, so with the serial construction the short jobs
are placed first, each at its submission where it fits, and the long ones fill the room left, in submission order
(on whole CTC-SP2 and SDSC-SP2, 2.4 and 4.3 against 4.1 and 10 for the best of the other keys).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PORTFOLIO", "QUICK_PORTFOLIO", "portfolio_key", "tier_key", "tier_of", "key_name"]

PORTFOLIO = (("easy", 0.0), ("easy", 1.0), ("easy", 4.0), ("easy", 16.0), ("easy", 64.0), ("easy", "spt"),
             ("easy", "lpt"), ("serial", 0.0), ("serial", 1.0), ("serial", 4.0), ("serial", 16.0),
             ("serial", 64.0), ("serial", 256.0), ("serial", "lpt"), ("serial", "tier 600"), ("serial", "tier 1200"),
             ("serial", "tier 2400"), ("serial", "tier 4800"))
"""The (construction, key) pairs of the first step: a number ``a`` is the key ``r + a p``, ``tier X`` the key
``r`` with the jobs of ``p >= X`` seconds after all the others (see the module docstring)."""
QUICK_PORTFOLIO = (("easy", 4.0), ("easy", "spt"), ("serial", 0.0), ("serial", 16.0), ("serial", 256.0),
                   ("serial", "tier 1200"))
"""The pairs of ``quick``: those that were best, or within a few per cent of the best, for some metric on the
whole traces KTH-SP2, CTC-SP2, SDSC-SP2, HPC2N and lublin_256 (``easy, r + 4 p`` for the response time on
SDSC-SP2, ``spt`` elsewhere; ``serial, r`` for the makespan; ``serial, r + 16 p`` and ``r + 256 p`` for the
slowdown and the stretch; ``serial, tier 1200`` for the slowdown on CTC-SP2 and SDSC-SP2)."""


def tier_of(a) -> float | None:
    """The threshold ``X`` of a key ``tier X``, else None."""
    return float(a.split()[1]) if isinstance(a, str) and a.startswith("tier ") else None


def tier_key(r: np.ndarray, f: dict, threshold) -> np.ndarray:
    """Submission order, the jobs of ``p >= threshold`` (one per job, or one for all) after every other."""
    return r + f["span"] * (f["p"] >= threshold)


def portfolio_key(a, r: np.ndarray, f: dict) -> np.ndarray:
    """The key ``a`` (module docstring) of the jobs submitted at ``r``; ``f``: ``p`` (each job's shortest duration)
    and ``span`` (more than the spread of the submissions)."""
    if a == "spt":
        return f["p"].copy()
    if a == "lpt":
        return -f["p"]
    if tier_of(a) is not None:
        return tier_key(r, f, tier_of(a))
    return r + float(a) * f["p"]


def key_name(kernel: str, a) -> str:
    """How a portfolio entry is named in a result's ``detail``."""
    if tier_of(a) is not None:
        return f"{kernel}, key r, jobs of p >= {tier_of(a):g} s after the others"
    return f"{kernel}, key {a if isinstance(a, str) else f'r + {a:g} p'}"
