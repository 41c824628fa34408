"""Seeded moldable-task generators of seed 002 §4.1 (and Cirne-Berman, IPDPS 2001).

Four workload kinds, all with integer weights uniform on 1..10 (§4.1, "task
priority"):

``weak``   sequential times uniform(1, 10), weakly parallel profile
``high``   sequential times uniform(1, 10), highly parallel profile
``mixed``  70 % small tasks ~ N(1, 0.5), weakly parallel; 30 % large tasks
           ~ N(10, 5), highly parallel (normal draws redrawn while <= 0)
``cirne``  sequential times uniform(1, 10), Downey speedup with the
           parameters of the Cirne-Berman model

Decisions on the paper's ambiguities (tested in ``tests/moldable``):

* **Direction of X.** §4.1 prints ``p(j) = p(j-1) (X + j) / (1 + j)`` and calls
  ``X ~ N(0.9, 0.2)`` highly parallel. Taken literally, that formula gives
  ``p(k) ~ p(1) k^(X - 1)``: ``X`` near 1 means *no* speedup, the opposite of the
  text. We keep the text's meaning (``high`` has the larger speedup) and the
  printed distributions: ``X`` is drawn from N(0.9, 0.2) for ``high`` and
  N(0.1, 0.2) for ``weak`` (redrawn outside [0, 1]) and the recurrence is
  applied to ``1 - X``: ``p(j) = p(j-1) (1 - X + j) / (1 + j)``, so that the
  speedup grows roughly like ``k^X``. (Equivalently: the printed formula with
  the two means swapped; the truncated normal is symmetric under ``X -> 1 - X``.)
* **One X per task.** ``X`` is drawn once per task (the task's degree of
  parallelism), not at every step ``j``; ``x_per_step=True`` draws a fresh value
  at every step instead.
* Both choices give monotonic tasks (times non-increasing, work
  non-decreasing), as §4.1 states.
* **Mixed classes** are drawn task by task (Bernoulli 0.7 for "small").
* **Cirne-Berman.** ``sigma ~ N(1.209, 1.132)`` truncated at 0 (redrawn while
  negative). The A-cmin "uniform-log relation" in
  ``../shared/data/workload-models.md`` is not specified precisely enough to
  reproduce, so the average parallelism ``A`` is drawn log-uniform on
  ``[1, m]`` (``log2 A ~ U(0, log2 m)``); the speedup is Downey's model
  (Downey 1997, as used by Cirne and Berman), ``p(k) = p(1) / S(k)``.
"""

from __future__ import annotations

import numpy as np

from vcsched.arguments import integer
from vcsched.errors import InvalidInputError
from vcsched.names.moldable import KINDS
from vcsched.problems.moldable import MoldableInstance
from vcsched.problems.moldable_limits import MAX_GENERATED_TASKS, MAX_PROCESSORS, check_size

__all__ = [
    "KINDS",
    "generate_moldable_instance",
    "sequential_times",
    "parallel_profile",
    "downey_speedup",
    "cirne_profile",
    "truncated_unit_normal",
]

X_MEAN = {"weak": 0.1, "high": 0.9}
X_STD = 0.2


def truncated_unit_normal(mean: float, std: float, size, rng: np.random.Generator) -> np.ndarray:
    """N(mean, std) redrawn until inside [0, 1] (§4.1)."""
    out = rng.normal(mean, std, size)
    bad = (out < 0) | (out > 1)
    while bad.any():
        out[bad] = rng.normal(mean, std, int(bad.sum()))
        bad = (out < 0) | (out > 1)
    return out


def _positive_normal(mean: float, std: float, size: int, rng: np.random.Generator) -> np.ndarray:
    out = rng.normal(mean, std, size)
    bad = out <= 0
    while bad.any():
        out[bad] = rng.normal(mean, std, int(bad.sum()))
        bad = out <= 0
    return out


def sequential_times(n: int, kind: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Sequential times ``p_i(1)`` and a boolean "large" flag per task.

    ``uniform``: U(1, 10), no task large. ``mixed``: each task small with
    probability 0.7 (N(1, 0.5)) else large (N(10, 5)), redrawn while <= 0.
    """
    if kind == "uniform":
        return rng.uniform(1.0, 10.0, n), np.zeros(n, dtype=bool)
    if kind == "mixed":
        large = rng.random(n) >= 0.7
        p1 = np.empty(n)
        p1[~large] = _positive_normal(1.0, 0.5, int((~large).sum()), rng)
        p1[large] = _positive_normal(10.0, 5.0, int(large.sum()), rng)
        return p1, large
    raise InvalidInputError(f"kind must be 'uniform' or 'mixed', got {kind!r}")


def parallel_profile(p1: np.ndarray, m: int, parallelism: str | np.ndarray, rng: np.random.Generator,
                     *, x_per_step: bool = False) -> np.ndarray:
    """Processing times ``p_i(1..m)`` by the recurrence of §4.1.

    ``p(j) = p(j-1) (1 - X + j) / (1 + j)`` for ``j = 2..m`` with
    ``X ~ N(0.9, 0.2)`` (``"high"``) or ``N(0.1, 0.2)`` (``"weak"``) redrawn
    outside [0, 1]; see the module docstring for the direction of ``X``.
    ``parallelism`` may be an array of ``"high"``/``"weak"`` labels, one per task.
    """
    p1 = np.asarray(p1, dtype=float)
    n = p1.shape[0]
    labels = np.broadcast_to(np.asarray(parallelism), (n,))
    means = np.array([X_MEAN[str(lab)] for lab in labels])
    if m == 1:
        return p1[:, None].copy()
    shape = (n, m - 1) if x_per_step else (n, 1)
    x = np.empty(shape)
    for mean in np.unique(means):
        rows = means == mean
        x[rows] = truncated_unit_normal(mean, X_STD, (int(rows.sum()), shape[1]), rng)
    j = np.arange(2, m + 1)[None, :]
    factors = (1.0 - x + j) / (1.0 + j)
    return np.concatenate([p1[:, None], p1[:, None] * np.cumprod(factors, axis=1)], axis=1)


def downey_speedup(A: float, sigma: float, k: np.ndarray) -> np.ndarray:
    """Downey's speedup ``S(k)`` with average parallelism ``A >= 1`` and variance ``sigma >= 0``."""
    k = np.asarray(k, dtype=float)
    if sigma <= 1:
        s = np.where(
            k <= A,
            A * k / (A + sigma * (k - 1) / 2),
            np.where(k <= 2 * A - 1, A * k / (sigma * (A - 0.5) + k * (1 - sigma / 2)), A),
        )
    else:
        s = np.where(k <= A + A * sigma - sigma, k * A * (sigma + 1) / (sigma * (k + A - 1) + A), A)
    # guard the monotony against rounding at the breakpoints
    s = np.maximum.accumulate(np.maximum(s, 1.0))
    return np.minimum(s, k)


def cirne_profile(p1: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """Times ``p(k) = p(1) / S(k)`` with Cirne-Berman parameters (module docstring)."""
    n = len(p1)
    sigma = rng.normal(1.209, 1.132, n)
    while (sigma < 0).any():
        bad = sigma < 0
        sigma[bad] = rng.normal(1.209, 1.132, int(bad.sum()))
    A = 2.0 ** rng.uniform(0.0, np.log2(m) if m > 1 else 0.0, n)
    k = np.arange(1, m + 1)
    out = np.empty((n, m))
    for i in range(n):
        s = downey_speedup(float(A[i]), float(sigma[i]), k)
        t = p1[i] / s
        # times non-increasing, work non-decreasing despite rounding
        t = np.minimum.accumulate(t)
        out[i] = np.maximum(t, np.maximum.accumulate(t * k) / k)
    return out


def generate_moldable_instance(m: int, n: int, kind: str = "high", *,
                               rng: np.random.Generator | int | None = None,
                               x_per_step: bool = False) -> MoldableInstance:
    """One instance of seed 002 §4.1.

    Parameters
    ----------
    m, n : int
        Processors (200 in the paper; at most :data:`~vcsched.problems.moldable_limits.MAX_PROCESSORS`) and tasks
        (25 to 400; at most :data:`~vcsched.problems.moldable_limits.MAX_GENERATED_TASKS`, and ``n x m`` at most
        :data:`~vcsched.problems.moldable_limits.MAX_TIME_ENTRIES`).
    kind : {"weak", "high", "mixed", "cirne"}
    rng : Generator, int or None
        Seed or generator (``np.random.default_rng``); same seed, same instance.
    x_per_step : bool
        Draw ``X`` at every step of the recurrence instead of once per task.

    Returns
    -------
    MoldableInstance
        Monotonic tasks with integer weights uniform on 1..10.

    Examples
    --------
    >>> inst = generate_moldable_instance(8, 5, "mixed", rng=1)
    >>> inst.times.shape
    (5, 8)
    """
    if kind not in KINDS:
        raise InvalidInputError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    m, n = integer(m, "m", low=1, high=MAX_PROCESSORS), integer(n, "n", low=1, high=MAX_GENERATED_TASKS)
    check_size(m, n, where="generate_moldable_instance")
    rng = np.random.default_rng(rng)
    if kind == "mixed":
        p1, large = sequential_times(n, "mixed", rng)
        times = parallel_profile(p1, m, np.where(large, "high", "weak"), rng, x_per_step=x_per_step)
    else:
        p1, _ = sequential_times(n, "uniform", rng)
        if kind == "cirne":
            times = cirne_profile(p1, m, rng)
        else:
            times = parallel_profile(p1, m, kind, rng, x_per_step=x_per_step)
    weights = rng.integers(1, 11, n).astype(float)
    return MoldableInstance(m=int(m), times=times, weights=weights)
