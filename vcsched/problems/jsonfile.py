"""One way to read the toolkit's input files and JSON documents, with one error style.

Every input file (JSON documents, SWF traces, plain or gzip-compressed) is read
by :func:`read_input_bytes`: only regular files (a device such as
``/dev/zero``, a FIFO or a socket is refused, also through a symbolic link,
and a FIFO is never waited on), and at most :data:`MAX_FILE_BYTES` bytes,
counted on the decompressed data for a ``.gz`` file (the size ``stat`` gives is
not trusted: the read itself stops at the limit). Every JSON input (VCSched and moldable instances, grid platforms, Batsim
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
* A key given twice in one object (``{"mem": 2.0, "mem": 0.5}``) is refused,
  naming the key: Python's ``json`` would keep the last one silently.

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
import gzip
import json
import math
import os
import stat
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

from vcsched.errors import InvalidInputError

__all__ = ["load_json", "read_input_bytes", "check_keys", "number_field", "int_field", "instance_head", "MAX_FILE_BYTES"]

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Largest input file read (512 MiB; for a ``.gz`` file, of decompressed data): a bigger one is refused."""


def _open_regular(source: str, what: str) -> int:
    """A read-only descriptor of the regular file ``source`` (symbolic links followed)."""
    from vcsched.data import user_path

    path = user_path(source, what=what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))  # a FIFO opens at once
    except FileNotFoundError:
        raise InvalidInputError(f"{source}: file not found; give the path of a {what}") from None
    except OSError as exc:
        raise InvalidInputError(f"{source}: cannot be read ({exc.strerror or exc}); give the path of a {what}") from None
    except ValueError as exc:  # NUL byte in the path
        raise InvalidInputError(f"{source!r}: not a valid path ({exc}); give the path of a {what}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a device, FIFO or socket)"
        raise InvalidInputError(f"{source}: is {kind}; give the path of a {what}")
    os.set_blocking(fd, True)
    return fd


def read_input_bytes(path: str | os.PathLike, *, what: str, limit: int = MAX_FILE_BYTES,
                     compressed: bool | None = None) -> bytes:
    """The bytes of the input file ``path``, decompressed when it is gzip data; one line on failure.

    ``compressed`` None means "when the name ends in ``.gz``". Refused: a missing
    file, a path that cannot be expanded or entered, a directory, a file that is
    not regular, more than ``limit`` bytes (decompressed), a corrupt ``.gz``.
    """
    source = os.fspath(path)
    if compressed is None:
        compressed = source.endswith(".gz")
    fd = _open_regular(source, what)
    too_big = f"{source}: larger than the {limit:,}-byte limit for a {what}"
    size = os.fstat(fd).st_size
    if size > limit:  # stat is believed when it says too big (a sparse file), never when it says small
        os.close(fd)
        raise InvalidInputError(f"{too_big} ({size:,} bytes)")
    try:
        with os.fdopen(fd, "rb") as raw:
            if not compressed:
                data = raw.read(limit + 1)
            else:
                with gzip.GzipFile(fileobj=raw, mode="rb") as fh:
                    data = fh.read(limit + 1)
                too_big += " (decompressed)"
    except (OSError, EOFError, zlib.error) as exc:  # I/O error, a truncated or corrupted .gz
        raise InvalidInputError(f"{source}: cannot be read ({exc}); check that it is a valid {what}") from None
    if len(data) > limit:
        raise InvalidInputError(too_big)
    return data


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def load_json(path: str | os.PathLike, *, what: str = "JSON file") -> Any:
    """Parse the JSON document at ``path``; every failure is one clear line.

    ``what`` names the expected content in messages (``"VCSched instance"``,
    ``"platform file"``). Refused: everything :func:`read_input_bytes` refuses
    (a missing or non-regular file, more than :data:`MAX_FILE_BYTES`), bytes
    that are not UTF-8 text (a binary or a UTF-16 file), malformed JSON, a key
    given twice in one object, ``NaN``/``Infinity``, integers of more than
    4,300 digits.
    """
    source = os.fspath(path)
    raw = read_input_bytes(source, what=what, compressed=False)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{source}: not a UTF-8 text file (binary or UTF-16?); expected a {what} in JSON") from None
    if "\x00" in text:
        raise InvalidInputError(f"{source}: contains NUL bytes (binary or UTF-16?); expected a {what} in JSON")
    try:
        return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise InvalidInputError(f"{source}: key {exc.args[0]!r} appears twice in one object; keep one") from None
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


def _absent(key: str, *, where: str, default: Any, required: bool) -> Any:
    """The value of a field that is absent: ``default``, or an error when it is ``required``."""
    if required:
        raise InvalidInputError(f"{where}: field {key!r} is required")
    return default


def _numeric(value: Any, key: str, *, where: str, kind: str) -> int | float:
    """``value`` when it is a JSON number (not a boolean), else an error saying it must be ``kind``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInputError(f"{where}: field {key!r} must be {kind}, got {value!r}")
    return value


def number_field(mapping: Mapping[str, Any], key: str, *, where: str, default: float | None = None,
                 required: bool = False, low: float | None = None, high: float | None = None,
                 low_open: bool = False, high_open: bool = False) -> float | None:
    """Read ``mapping[key]`` as a finite float within ``[low, high]`` (ends open when asked).

    Returns ``default`` when the key is absent and not ``required``.
    """
    if key not in mapping:
        return _absent(key, where=where, default=default, required=required)
    value = _numeric(mapping[key], key, where=where, kind="a number")
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
        return _absent(key, where=where, default=default, required=required)
    value = _numeric(mapping[key], key, where=where, kind="an integer")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise InvalidInputError(f"{where}: field {key!r} must be an integer, got {value!r}")
    n = int(value)
    if (low is not None and n < low) or (high is not None and n > high):
        shown = (f"{value:.6g}" if isinstance(value, float) else n if abs(n) < 10**15
                 else f"{float(n):.6g}" if abs(n) < 10**308 else f"an integer of {len(str(abs(n)))} digits")
        raise InvalidInputError(f"{where}: field {key!r} must be {_bound_text(low, high, False, False)}, got {shown}")
    return n


def instance_head(data: Any, *, source: str, known: Iterable[str], expected: str, count_key: str, counts: str,
                  count_high: int, list_key: str, item: str) -> tuple[int, list]:
    """The opening an instance document shares with the others: ``(count, items)``.

    ``data`` must be an object (else ``<source>: top level: expected <expected>``) with only
    ``known`` fields, an integer ``count_key`` in ``1..count_high`` (what it ``counts`` is named
    when it is missing) and a non-empty list ``list_key`` of objects like ``item``.
    """
    if not isinstance(data, dict):
        raise InvalidInputError(f"{source}: top level: expected {expected}")
    check_keys(data, known, where=source)
    if count_key not in data:
        raise InvalidInputError(f"{source}: field {count_key!r}: missing ({counts}, an integer >= 1)")
    count = int_field(data, count_key, where=source, low=1, high=count_high)
    items = data.get(list_key)
    if not isinstance(items, list) or not items:
        raise InvalidInputError(f"{source}: field {list_key!r}: missing or empty (a list of {item} objects)")
    return count, items
