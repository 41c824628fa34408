"""The block search of the clairvoyant schedules (:mod:`lowerbounds.batch.clairvoyant`, upper side step 3 of
docs/bounds.md): the jobs, by submission, in :data:`BLOCKS` blocks of consecutive jobs, each with its own key
coefficient ``a_b`` (the key is ``r + a_b p_j``), tier threshold ``X_b`` and two area thresholds ``A_b``
(:func:`block_key`, the per-block form of the ``tiers`` keys of :mod:`lowerbounds.batch.portfolio`); a
first-improvement local search over them (:func:`block_search`), started from a portfolio entry
(:func:`block_start`). ``ev`` is the search's evaluator: ``ev.release`` and ``ev.run(key, kernel) -> (values,
cluster, start)``.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._searchstep import Best, Limit
from lowerbounds.batch.portfolio import tier_of, tiers_of

__all__ = ["BLOCKS", "FACTORS", "block_key", "block_start", "block_search"]

BLOCKS = 16
"""Blocks of consecutive jobs (by submission) with their own key coefficient in the local search."""
FACTORS = (0.25, 0.5, 2.0, 4.0, 0.0)
"""A move multiplies one block's coefficient by one of these (0: sets it to 0)."""
_RESET = (1.0, 1200.0, 1.0, 16.0)
"""A block's coefficient ``a_b``, tier threshold ``X_b`` and area thresholds ``A_b`` (two) after a move from 0 (0: no
tier)."""


def block_key(ev, feats: dict, coef: np.ndarray) -> np.ndarray:
    """``r + a_b p`` with, where ``X_b > 0``, the jobs of ``p >= X_b`` a tier later, and where an area threshold
    ``A_b > 0``, the jobs of ``area >= A_b`` (``coef``: the rows ``a_b``, ``X_b`` and any ``A_b``, one column per block
    of consecutive jobs; the ``tiers`` keys of :mod:`~lowerbounds.batch.portfolio`)."""
    blocks = np.minimum(np.arange(ev.release.size) * coef.shape[1] // max(ev.release.size, 1), coef.shape[1] - 1)
    a, x = coef[0, blocks], coef[1, blocks]
    level = ((x > 0) & (feats["p"] >= x)).astype(float)
    for row in coef[2:]:
        level += (row[blocks] > 0) & (feats["area"] >= row[blocks])
    return ev.release + a * feats["p"] + feats["span"] * level


def block_start(best: Best) -> np.ndarray:
    """The block coefficients of a portfolio entry (a ``tiers`` entry exactly; a pure key, ``spt`` or ``lpt``, by
    ``a = 64``)."""
    coef = np.zeros((len(_RESET), BLOCKS))
    threshold = tier_of(best.a)
    if tiers_of(best.a) is not None:
        threshold, areas = tiers_of(best.a)
        coef[1], coef[2:2 + len(areas)] = threshold, np.reshape(areas, (-1, 1))
    elif threshold is not None:
        coef[1] = threshold
        coef[0] = 16.0
    else:
        coef[0] = 64.0 if isinstance(best.a, str) else float(best.a)
    return coef


def block_search(ev, feats, metric: str, best: Best, rng, limit: Limit, patience: int | None):
    """First-improvement local search on per-block coefficients ``a_b``, per-block tier thresholds ``X_b`` (bounded
    slowdown, or from a ``tier X`` key) and two area thresholds ``A_b`` (bounded slowdown; :func:`block_key`)."""
    kernel = best.kernel
    rows = len(_RESET) if metric == "mean_bounded_slowdown" else 2 if tier_of(best.a) is not None else 1
    coef = block_start(best)
    current = best.value
    if isinstance(best.a, str):  # evaluate the starting point
        values, cluster, start = ev.run(block_key(ev, feats, coef), kernel)
        current = values[metric]
        if current < best.value:
            best = Best(current, "local search", f"{kernel}, per-block keys r + a_b p", cluster, start, kernel)
    idle = 0
    while True:
        stop = limit.stop(idle, patience)
        if stop:
            return best, stop
        row, b = int(rng.integers(rows)), int(rng.integers(BLOCKS))
        trial = coef.copy()
        trial[row, b] = coef[row, b] * FACTORS[int(rng.integers(len(FACTORS)))] if coef[row, b] > 0 else \
            _RESET[row]
        values, cluster, start = ev.run(block_key(ev, feats, trial), kernel)
        v = values[metric]
        if v < current:
            coef, current, idle = trial, v, 0
            if v < best.value:
                best = Best(v, "local search", _label(kernel, coef), cluster, start, kernel)
        else:
            idle += 1


def _label(kernel: str, coef: np.ndarray) -> str:
    text = f"{kernel}, per-block keys r + a_b p, a = " + ",".join(f"{a:g}" for a in coef[0])
    if coef[1].any():
        text += ", jobs of p >= X_b after the others, X = " + ",".join(f"{x:g}" for x in coef[1])
    if coef[2:].any():
        text += ", a tier later for area >= A_b, A = " + ";".join(",".join(f"{v:g}" for v in row) for row in coef[2:])
    return text
