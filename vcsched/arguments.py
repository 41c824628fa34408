"""Checks of public functions' arguments at their boundary, with the project's error type.

The command line refuses a bad option in one line before any work (``number_option`` in
:mod:`vcsched.cli.common`); a public Python function refuses the same values here, naming the
argument, with :class:`~vcsched.errors.InvalidInputError` (a ``ValueError``), never with an
``AttributeError`` or a wrong answer deep inside.

>>> integer(3.0, "hosts", low=1)
3
>>> integer(2.5, "hosts", low=1)
Traceback (most recent call last):
...
vcsched.errors.InvalidInputError: hosts must be an integer >= 1, got 2.5
>>> number(float("nan"), "slack", low=0, high=1, high_open=True)
Traceback (most recent call last):
...
vcsched.errors.InvalidInputError: slack must be a number >= 0 and < 1, got nan
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from vcsched.errors import InvalidInputError

__all__ = ["integer", "number", "choice", "of_type", "finite_values", "SEED_MAX"]

SEED_MAX = 2**63 - 1
"""Largest seed of every ``--seed``, ``--seeds`` and ``--repeat`` (numpy accepts any non-negative integer;
this keeps seeds printable and finite)."""


def _range_text(noun: str, low, high, low_open: bool, high_open: bool) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high:g}")
    return f"{noun} {' and '.join(parts)}" if parts else f"a finite {noun[2:] if noun.startswith('a ') else noun}"


def _outside(x, low, high, low_open: bool, high_open: bool) -> bool:
    return bool((low is not None and (x <= low if low_open else x < low))
                or (high is not None and (x >= high if high_open else x > high)))


def integer(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]``: an integer or an integral float (``3.0``),
    never a bool, a string or ``2.5``."""
    what = _range_text("an integer", low, high, False, False)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInputError(f"{name} must be {what}, got {value!r} ({type(value).__name__})")
    if isinstance(value, numbers.Integral):
        x = int(value)
    else:
        f = float(value)
        if not (math.isfinite(f) and f.is_integer()):
            raise InvalidInputError(f"{name} must be {what}, got {value!r}")
        x = int(f)
    if _outside(x, low, high, False, False):
        raise InvalidInputError(f"{name} must be {what}, got {value!r}")
    return x


def number(value: Any, name: str, *, low: float | None = None, high: float | None = None,
           low_open: bool = False, high_open: bool = False) -> float:
    """``value`` as a finite ``float`` in the range (``low_open``/``high_open``: the end excluded)."""
    what = _range_text("a number", low, high, low_open, high_open)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInputError(f"{name} must be {what}, got {value!r} ({type(value).__name__})")
    x = float(value)
    if not math.isfinite(x) or _outside(x, low, high, low_open, high_open):
        raise InvalidInputError(f"{name} must be {what}, got {value!r}")
    return x


def choice(value: Any, name: str, choices: Iterable[Any]) -> Any:
    """``value`` if it is one of ``choices``."""
    choices = list(choices)
    try:
        known = value in choices
    except TypeError:  # an unhashable value against a dict's keys
        known = False
    if not known:
        raise InvalidInputError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def of_type(value: Any, name: str, types: type | tuple[type, ...]) -> Any:
    """``value`` if it is an instance of ``types`` (e.g. the instance argument of a solver)."""
    if not isinstance(value, types):
        names = " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
        raise InvalidInputError(f"{name} must be a {names}, got {type(value).__name__}")
    return value


def finite_values(values: Iterable[Any], name: str) -> list[float]:
    """The values as floats, ``None`` (a run without this value) left out; a NaN, an infinity or
    a non-number is refused, naming its position (silently leaving it out would change ``n``)."""
    out = []
    for k, v in enumerate(values):
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)):
            raise InvalidInputError(f"{name}[{k}] must be a finite number (or None for a run without a value), "
                                    f"got {v!r}")
        out.append(float(v))
    return out
