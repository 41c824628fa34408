"""Agent-level sorting of SeD responses: Algorithm 1 of seed 004 (§4).

``SelectBestNServers`` extracts the best servers metric by metric: first the
responses that carry a predicted execution time (smallest first), then among
the rest those that carry a number of active jobs (fewest first), then those
with a time since last solve (largest first), then the rest at random. A SeD
missing a metric thus falls through to the next comparison.

Choices where the figure is ambiguous (documented and tested):

* *Ties inside a stage.* ``ExtractBest`` must pick up to ``n`` of the
  responses comparable on a metric; when several tie on it (a homogeneous
  platform predicts the same execution time everywhere), we break the tie
  with the next metrics in the figure's order (fewest jobs, then longest since
  last solve), then at random (seeded). A response that lacks a lower metric
  ranks after the ones that have it within the tie.
* The figure's third test reads ``Size(best) == 0``; we read it as
  ``Size(best) == N`` like the two others (otherwise the random stage would
  be skipped exactly when it is needed).
* Missing metric: ``None`` or NaN.

A second reading, ``reading="literal"``, follows the figure to the letter and is
selectable with ``--sorting literal``: a response's first metric is its predicted
execution time *plus* its queue-wait estimate (§5.1: the SeD "includes" that
estimate "with the other performance estimates passed up the hierarchy"; 0
without a SeD queue), and ties on it are broken at random only, since
``ExtractBest(responses, N, execTime)`` already returns ``N`` responses whenever
every SeD carries a prediction and ``N`` >= the number of SeDs, so the later
stages (jobs, last solve) are never consulted. With it Standard's placement on
homogeneous SeDs is random (Table 1's 9/7/7/7/6/6/6/6), SeD Queue's follows the
queue estimate (7 x 6, 6 x 2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.names.diet import SORTING_READINGS as READINGS
from vcsched.sim.diet_policy import Response

__all__ = ["select_best_n", "sort_key", "sort_key_literal", "STAGES", "READINGS"]

STAGES = ("exec_time", "num_jobs", "since_last_solve", "random")


def _present(v) -> bool:
    return v is not None and v == v  # None and NaN are missing


def sort_key(r: Response, u: float) -> tuple:
    """Key of ``r`` (smaller is better) given its random draw ``u`` in [0, 1).

    ``(stage, exec_time, num_jobs, -since_last_solve, u)`` where ``stage`` is
    the index of the first metric ``r`` carries (3: none) and missing lower
    metrics count as worst (``inf``).
    """
    e, j, s = r.exec_time, r.num_jobs, r.since_last_solve
    he, hj, hs = e is not None and e == e, j is not None and j == j, s is not None and s == s  # _present, inlined
    stage = 0 if he else 1 if hj else 2 if hs else 3
    inf = math.inf
    return (stage, e if he else inf, j if hj else inf, -s if hs else inf, u)


def sort_key_literal(r: Response, u: float) -> tuple:
    """Key of ``r`` under the literal reading: ``(stage, exec_time + queue_wait, u)``.

    ``stage`` is 0 when ``r`` carries a predicted execution time, else 1 (ranked
    by its draw ``u`` alone); a missing queue wait counts as 0.
    """
    e, q = r.exec_time, r.queue_wait
    if not _present(e):
        return (1, math.inf, u)
    return (0, e + (q if _present(q) else 0.0), u)


def select_best_n(responses: Sequence[Response], n: int, rng: np.random.Generator | None = None, *,
                  reading: str = "metrics") -> list[Response]:
    """The ``n`` best responses, best first (Algorithm 1, ``SelectBestNServers``).

    Parameters
    ----------
    responses : sequence of Response
        The children's answers (SeD responses, or the lists of child agents).
    n : int
        How many to keep (DIET's ``maxResponses``).
    rng : numpy Generator, optional
        Source of the final random tie-break (one draw per response, in input order).
    reading : {"metrics", "literal"}
        How ties are broken (see the module docstring).

    Returns
    -------
    list of Response

    Examples
    --------
    >>> rs = [Response("a", 10.0, 2, 5.0), Response("b", 10.0, 1, 1.0), Response("c", None, 0, 9.0)]
    >>> [r.sed for r in select_best_n(rs, 3, np.random.default_rng(0))]
    ['b', 'a', 'c']
    """
    if reading not in READINGS:
        raise InvalidInputError(f"unknown Algorithm 1 reading {reading!r}; choose one of: {', '.join(READINGS)}")
    key = sort_key if reading == "metrics" else sort_key_literal
    rng = np.random.default_rng(rng)
    draws = rng.random(len(responses)).tolist()
    keyed = sorted(zip(map(key, responses, draws), range(len(responses))))
    return [responses[i] for _, i in keyed[: max(0, int(n))]]
