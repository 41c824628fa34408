"""The portfolio of the clairvoyant search's first step: static keys, one per job (smaller first), for the two list
constructions of :mod:`lowerbounds.batch._listsched` (see :mod:`lowerbounds.batch.clairvoyant`).

A number ``a`` is the key ``r + a p`` (``p`` the job's shortest duration; ``a = 0`` is FCFS, ``r + S p`` the
deadline of stretch ``S``); ``spt`` and ``lpt`` shortest and longest first; ``tier X`` the submission order with
the jobs of ``p >= X`` seconds after all the others (each tier FCFS). The tiers are for the bounded slowdown: a
short job's wait weighs ``1 / max(p, tau)``, a long one's ``1 / p``, so with the serial construction the short jobs
are placed first, each at its submission where it fits, and the long ones fill the room left, in submission order
(on whole CTC-SP2 and SDSC-SP2, 2.4 and 4.3 against 4.1 and 10 for the best of the other keys).

``tiers X A1 [A2]`` refines ``tier X`` by the jobs' areas: a job's tier is the number of the conditions ``p >= X``,
``area >= A1`` and ``area >= A2`` it meets (``area = q p / (M 3600)``, machine-hours of the largest cluster, ``M``
its processors), each tier after the one below, FCFS within a tier. In the bounded slowdown a job's wait weighs
``1 / max(p, tau)`` and it holds ``q p`` processor-seconds, so a wide long job is the cheapest place per unit of
work for the queue to wait: placed after the narrow long jobs, it waits for a hole, and they flow past it instead
of queueing behind it (the whole traces' queue is mostly long jobs: on CTC-SP2 jobs of an hour and more carry 83 %
of the best ``tier 1200`` schedule's slowdown, and wait 7 to 29 hours on average).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PORTFOLIO", "QUICK_PORTFOLIO", "BSLD_TIERS", "portfolio_key", "tier_key", "tier_of", "tiers_of",
           "key_name"]

PORTFOLIO = (("easy", 0.0), ("easy", 1.0), ("easy", 4.0), ("easy", 16.0), ("easy", 64.0), ("easy", "spt"),
             ("easy", "lpt"), ("serial", 0.0), ("serial", 1.0), ("serial", 4.0), ("serial", 16.0),
             ("serial", 64.0), ("serial", 256.0), ("serial", "lpt"), ("serial", "tier 600"), ("serial", "tier 1200"),
             ("serial", "tier 2400"), ("serial", "tier 4800"), ("serial", "tiers 1200 0.25 4"),
             ("serial", "tiers 2400 8 16"), ("serial", "tiers 600 0.25 16"), ("serial", "tiers 1200 4"),
             ("serial", "tiers 2400 0.25 4"))
"""The (construction, key) pairs of the first step: a number ``a`` is the key ``r + a p``, ``tier X`` the key
``r`` with the jobs of ``p >= X`` seconds after all the others, ``tiers X A1 A2`` tiers of duration and area (see
the module docstring)."""
BSLD_TIERS = ("tiers 1200 0.25 4", "tiers 2400 8 16", "tiers 600 0.25 16", "tiers 1200 4", "tiers 2400 0.25 4")
"""The duration-and-area tiers of :data:`PORTFOLIO`, each the best single key (serial construction, bounded
slowdown) on some whole trace among ``X`` in 600-2400 s and ``A1, A2`` in 0.25-64 machine-hours: ``1200 0.25 4`` on
CTC-SP2 (within 1 % of the best, 1.951) and HPC2N, ``2400 8 16`` on SDSC-SP2, ``600 0.25 16`` on KTH-SP2 and the
busiest week of CTC-SP2, ``1200 4`` on lublin_256; ``2400 0.25 4``, the best on CTC-SP2 (1.951), is last: after the
search it gives CTC-SP2 1.667 against 1.689 with 2.5e9 units, 1.561 against 1.574 with 2.1e10."""
QUICK_PORTFOLIO = (("easy", 4.0), ("easy", "spt"), ("serial", 0.0), ("serial", 16.0), ("serial", 256.0),
                   ("serial", "tier 1200"), ("serial", "tiers 1200 0.25 4"), ("serial", "tiers 2400 8 16"))
"""The pairs of ``quick``: those that were best, or within a few per cent of the best, for some metric on the
whole traces KTH-SP2, CTC-SP2, SDSC-SP2, HPC2N and lublin_256 (``easy, r + 4 p`` for the response time on
SDSC-SP2, ``spt`` elsewhere; ``serial, r`` for the makespan; ``serial, r + 16 p`` and ``r + 256 p`` for the
slowdown and the stretch; ``serial, tier 1200`` for the slowdown on CTC-SP2 and SDSC-SP2), and the two tiers of duration
and area best on the most traces for the slowdown."""


def tier_of(a) -> float | None:
    """The threshold ``X`` of a key ``tier X``, else None."""
    return float(a.split()[1]) if isinstance(a, str) and a.startswith("tier ") else None


def tiers_of(a) -> tuple[float, tuple] | None:
    """``(X, (A1, ...))`` of a key ``tiers X A1 ...``, else None."""
    if not (isinstance(a, str) and a.startswith("tiers ")):
        return None
    x, *areas = (float(v) for v in a.split()[1:])
    return x, tuple(areas)


def tiers_key(r: np.ndarray, f: dict, threshold: float, areas: tuple) -> np.ndarray:
    """Submission order within tiers: a job's tier counts ``p >= threshold`` and ``area >= A`` for each ``A`` of
    ``areas`` (``f["area"]``: machine-hours of the largest cluster)."""
    level = (f["p"] >= threshold).astype(float)
    for a in areas:
        level += f["area"] >= a
    return r + f["span"] * level


def tier_key(r: np.ndarray, f: dict, threshold) -> np.ndarray:
    """Submission order, the jobs of ``p >= threshold`` (one per job, or one for all) after every other."""
    return r + f["span"] * (f["p"] >= threshold)


def portfolio_key(a, r: np.ndarray, f: dict) -> np.ndarray:
    """The key ``a`` (module docstring) of the jobs submitted at ``r``; ``f``: ``p`` (each job's shortest duration),
    ``span`` (more than the spread of the submissions) and ``area`` (for ``tiers``, see :func:`tiers_key`)."""
    if a == "spt":
        return f["p"].copy()
    if a == "lpt":
        return -f["p"]
    if tier_of(a) is not None:
        return tier_key(r, f, tier_of(a))
    if tiers_of(a) is not None:
        return tiers_key(r, f, *tiers_of(a))
    return r + float(a) * f["p"]


def key_name(kernel: str, a) -> str:
    """How a portfolio entry is named in a result's ``detail``."""
    if tier_of(a) is not None:
        return f"{kernel}, key r, jobs of p >= {tier_of(a):g} s after the others"
    if tiers_of(a) is not None:
        x, areas = tiers_of(a)
        text = ", ".join(f"area >= {v:g} machine-h" for v in areas)
        return f"{kernel}, key r, one tier later for each of p >= {x:g} s, {text}"
    return f"{kernel}, key {a if isinstance(a, str) else f'r + {a:g} p'}"
