"""Statistics over repeated runs: mean, standard deviation and a 95 % confidence interval,
and paired differences between policies run on the same seeds (common random numbers).

The interval is Student's t interval of the mean (``scipy.stats.t``), the usual choice for a
few tens of independent runs: ``mean +- t_{0.975, n-1} * std / sqrt(n)`` with the sample
standard deviation (``ddof=1``). With one run there is no interval (``ci95`` is ``None``);
with runs all equal it is the single point. A paired difference is the same summary of the
per-seed differences ``b_s - a_s``: its interval excludes 0 exactly when the two policies
differ at the 5 % level (a paired t test).

Examples
--------
>>> s = summarize([10.0, 12.0, 11.0, 13.0])
>>> s["n"], s["mean"], round(s["std"], 4), [round(x, 3) for x in s["ci95"]]
(4, 11.5, 1.291, [9.446, 13.554])
>>> parse_seeds("3-5"), parse_seeds("1,4"), parse_seeds("7")
([3, 4, 5], [1, 4], [7])
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from vcsched.arguments import SEED_MAX, finite_values
from vcsched.errors import InvalidInputError

__all__ = ["summarize", "paired_difference", "parse_seeds", "MAX_SEEDS"]

MAX_SEEDS = 10_000
"""Most runs of one ``--seeds`` / ``--repeat``."""


def summarize(values: Sequence[float], *, name: str = "values") -> dict:
    """``{"mean", "std", "ci95", "n"}`` of the values; ``None`` entries (runs without the value)
    are left out, a NaN or an infinity is refused (:class:`~vcsched.errors.InvalidInputError`
    naming its position): leaving it out silently would report a smaller ``n``."""
    data = finite_values(values, name)
    n = len(data)
    if n == 0:
        return {"mean": None, "std": None, "ci95": None, "n": 0}
    mean = math.fsum(data) / n
    if n == 1:
        return {"mean": mean, "std": None, "ci95": None, "n": 1}
    from scipy import stats

    std = math.sqrt(math.fsum((x - mean) ** 2 for x in data) / (n - 1))
    half = float(stats.t.ppf(0.975, n - 1)) * std / math.sqrt(n)
    return {"mean": mean, "std": std, "ci95": [mean - half, mean + half], "n": n}


def paired_difference(a: Sequence[float], b: Sequence[float]) -> dict:
    """:func:`summarize` of ``b_s - a_s`` over the seeds where both are known."""
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise InvalidInputError(f"paired runs need as many values on both sides, got {len(a)} and {len(b)}")
    finite_values(a, "a"), finite_values(b, "b")  # a NaN or an infinity is refused, not dropped
    return summarize([y - x for x, y in zip(a, b) if x is not None and y is not None])


def parse_seeds(text: str, *, option: str = "--seeds") -> list[int]:
    """``A-B`` (inclusive), ``A,B,C`` or ``A``: integers in ``[0, SEED_MAX]`` (``--seed``'s range), at most
    :data:`MAX_SEEDS` of them."""
    seeds: list[int] = []
    try:
        for part in str(text).split(","):
            part = part.strip()
            if "-" in part[1:]:
                lo, hi = (int(x) for x in part.split("-", 1))
                if hi < lo:
                    raise InvalidInputError(f"{option} {text}: range {part} ends before it starts")
                if hi - lo + 1 > MAX_SEEDS:
                    raise InvalidInputError(f"{option} {text}: more than {MAX_SEEDS:,} seeds")
                seeds.extend(range(lo, hi + 1))
            else:
                seeds.append(int(part))
    except ValueError:
        raise InvalidInputError(f"{option}: expected A-B, A,B,C or A (non-negative integers), got {text!r}") from None
    if not seeds or min(seeds) < 0:
        raise InvalidInputError(f"{option}: expected non-negative integers, got {text!r}")
    if max(seeds) > SEED_MAX:
        raise InvalidInputError(f"{option} {text}: seed {max(seeds)} is above the largest seed {SEED_MAX} (2^63 - 1)")
    if len(seeds) > MAX_SEEDS:
        raise InvalidInputError(f"{option} {text}: more than {MAX_SEEDS:,} seeds")
    return list(dict.fromkeys(seeds))
