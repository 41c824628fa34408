"""One way to read the toolkit's JSON files, with one error style.

Every JSON input (VCSched and moldable instances, grid platforms, Batsim
workloads) goes through :func:`load_json`, and every object in it through
:func:`check_keys` and the field readers below. Errors are
:class:`~vcsched.errors.InvalidInputError` with one line of the form
``<file>: <where>: <what was wrong>; <how to fix it>``, so the command line
prints them as they are.

Choices
-------
* ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's ``json`` accepts by
  default) are refused: no quantity of the toolkit's models is infinite.
* Unknown keys are refused with the nearest known name as a hint, so a typo
  (``procz``) is never silently ignored.
* Booleans are not numbers (``true`` is refused where a number is expected).

Examples
--------
>>> check_keys({"hosts": 2, "jbos": []}, ("hosts", "jobs"), where="inst.json")
Traceback (most recent call last):
...
vcsched.errors.InvalidInputError: inst.json: unknown field 'jbos' (did you mean 'jobs'?); known fields: hosts, jobs
>>> number_field({"speed": 2}, "speed", where="p.json: clusters[0]", low=0, low_open=True)
2.0
"""

from __future__ import annotations

import difflib
import json
import math
import os
from collections.abc import Iterable, Mapping
from typing import Any

from vcsched.errors import InvalidInputError

__all__ = ["load_json", "check_keys", "number_field", "int_field", "MAX_FILE_BYTES"]

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Largest JSON file read (512 MiB): a bigger one is refused before reading."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def load_json(path: str | os.PathLike, *, what: str = "JSON file") -> Any:
    """Parse the JSON document at ``path``; every failure is one clear line.

    ``what`` names the expected content in messages (``"VCSched instance"``,
    ``"platform file"``). Refused: a missing file, a directory, a file over
    :data:`MAX_FILE_BYTES`, bytes that are not UTF-8 text (a binary or a UTF-16
    file), malformed JSON, ``NaN``/``Infinity``, integers of more than 4,300
    digits.
    """
    source = os.fspath(path)
    if os.path.isdir(source):
        raise InvalidInputError(f"{source}: is a directory; give the path of a {what}")
    try:
        size = os.path.getsize(source)
    except FileNotFoundError:
        raise InvalidInputError(f"{source}: file not found; give the path of a {what}") from None
    except OSError as exc:
        raise InvalidInputError(f"{source}: cannot be read ({exc.strerror}); give the path of a {what}") from None
    if size > MAX_FILE_BYTES:
        raise InvalidInputError(f"{source}: {size:,} bytes is larger than the {MAX_FILE_BYTES:,}-byte limit for a {what}")
    try:
        with open(source, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise InvalidInputError(f"{source}: cannot be read ({exc.strerror}); give the path of a {what}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{source}: not a UTF-8 text file (binary or UTF-16?); expected a {what} in JSON") from None
    if "\x00" in text:
        raise InvalidInputError(f"{source}: contains NUL bytes (binary or UTF-16?); expected a {what} in JSON")
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{source}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}; "
                                f"expected a {what}") from None
    except ValueError as exc:  # NaN/Infinity, or an integer too long to convert
        raise InvalidInputError(f"{source}: {exc}; every number in a {what} must be finite and of reasonable size") from None
    except RecursionError:
        raise InvalidInputError(f"{source}: JSON nested too deeply; expected a {what}") from None


def check_keys(mapping: Mapping[str, Any], known: Iterable[str], *, where: str) -> None:
    """Refuse keys of ``mapping`` that are not in ``known``, suggesting the nearest name."""
    known = list(known)
    for key in mapping:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InvalidInputError(f"{where}: unknown field {key!r}{hint}; known fields: {', '.join(known)}")


def _bound_text(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high:g}")
    return " and ".join(parts) if parts else "finite"


def number_field(mapping: Mapping[str, Any], key: str, *, where: str, default: float | None = None,
                 required: bool = False, low: float | None = None, high: float | None = None,
                 low_open: bool = False, high_open: bool = False) -> float | None:
    """Read ``mapping[key]`` as a finite float within ``[low, high]`` (ends open when asked).

    Returns ``default`` when the key is absent and not ``required``.
    """
    if key not in mapping:
        if required:
            raise InvalidInputError(f"{where}: field {key!r} is required")
        return default
    value = mapping[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInputError(f"{where}: field {key!r} must be a number, got {value!r}")
    try:
        x = float(value)
    except OverflowError:
        x = math.inf if value > 0 else -math.inf
    rng = _bound_text(low, high, low_open, high_open)
    if not math.isfinite(x):
        raise InvalidInputError(f"{where}: field {key!r} must be finite ({rng}), got {value!r}")
    too_low = low is not None and (x <= low if low_open else x < low)
    too_high = high is not None and (x >= high if high_open else x > high)
    if too_low or too_high:
        shown = value if not isinstance(value, int) or abs(value) < 10**15 else f"{x:.6g}"
        raise InvalidInputError(f"{where}: field {key!r} must be {rng}, got {shown}")
    return x


def int_field(mapping: Mapping[str, Any], key: str, *, where: str, default: int | None = None,
              required: bool = False, low: int | None = None, high: int | None = None) -> int | None:
    """Read ``mapping[key]`` as an integer within ``[low, high]``; ``2.0`` is accepted, ``2.5`` is not."""
    if key not in mapping:
        if required:
            raise InvalidInputError(f"{where}: field {key!r} is required")
        return default
    value = mapping[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInputError(f"{where}: field {key!r} must be an integer, got {value!r}")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise InvalidInputError(f"{where}: field {key!r} must be an integer, got {value!r}")
    n = int(value)
    if (low is not None and n < low) or (high is not None and n > high):
        shown = (f"{value:.6g}" if isinstance(value, float) else n if abs(n) < 10**15
                 else f"{float(n):.6g}" if abs(n) < 10**308 else f"an integer of {len(str(abs(n)))} digits")
        raise InvalidInputError(f"{where}: field {key!r} must be {_bound_text(low, high, False, False)}, got {shown}")
    return n
