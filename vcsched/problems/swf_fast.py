"""The fast path of the SWF reader (:func:`vcsched.problems.workload.read_swf`): plain files parsed on their
bytes by the C extension's loop (:mod:`vcsched.native`), else with numpy, a megabyte of lines at a time, or by
the numba loop of :mod:`vcsched.problems.swf_compiled` from :data:`COMPILED_FROM_BYTES`; anything that is not
plain returns None and goes to the line reader, which gives the error messages with their line numbers."""

from __future__ import annotations

import numpy as np

from vcsched.native import speedups

__all__ = ["parse_fast", "COMPILED_FROM_BYTES", "N_FIELDS"]

N_FIELDS = 18
"""Fields of an SWF data line."""


_ASCII_WS = b" \t\n"
_FAST_BYTES = np.zeros(256, dtype=bool)
_FAST_BYTES[np.frombuffer(b"0123456789.-+eE" + _ASCII_WS, dtype=np.uint8)] = True
"""Bytes the fast SWF path accepts in data lines (ASCII numbers, spaces, tabs, newlines)."""


def _header_end(data: bytes) -> int:
    """Offset of the first data line: the header is the blank and ``;`` lines at the top."""
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        end = len(data) if nl < 0 else nl
        stripped = data[pos:end].strip()
        if stripped and not stripped.startswith(b";"):
            return pos
        pos = end + 1
    return len(data)


def parse_fast(data: bytes):
    """``(header, fields, line_numbers)`` of a plain SWF file, or None when the line reader must read it.

    Plain: the header lines at the top (:func:`_header_end`), then only the bytes of
    :data:`_FAST_BYTES`, each line blank or of 18 fields. The data lines are read about a
    megabyte at a time (:func:`_chunk_fields`: whole lines, so that no number is cut;
    the tokens of a whole trace as Python objects would take several times the file's
    size). ``line_numbers`` maps each row to its 1-based line, lazily (only error
    messages read it).
    """
    pos = _header_end(data)
    head = data[:pos].decode("utf-8", errors="replace")
    head_lines = head.splitlines()
    if len(head_lines) != head.count("\n"):  # other line breaks in the header: count lines as str does
        return None
    if pos == len(data):
        return None
    header = [s.strip()[1:].strip() for s in head_lines if s.strip()]
    native = speedups()
    if native is not None or len(data) - pos >= COMPILED_FROM_BYTES:
        parsed = _parse_compiled(data, pos, native)
        if parsed is not None:
            return header, parsed[0], _LazyList(parsed[1] + len(head_lines) + 1)
    parts, rows, line0 = [], [], len(head_lines) + 1
    while pos < len(data):
        end = data.find(b"\n", min(pos + _CHUNK_BYTES, len(data)))
        end = len(data) if end < 0 else end + 1
        chunk = _chunk_fields(data[pos:end])
        if chunk is None:
            return None
        fields, per_line = chunk
        parts.append(fields)
        rows.append(np.flatnonzero(per_line) + line0)
        line0 += per_line.size
        pos = end
    return header, np.concatenate(parts).reshape(-1, N_FIELDS), _LazyList(np.concatenate(rows))


def _parse_compiled(data: bytes, pos: int, native):
    """``(fields, line)`` of the data lines from byte ``pos`` parsed by one compiled loop, or None when a line is
    not plain: the C extension's ``parse_swf`` when ``native`` is the module, else numba's
    (:func:`vcsched.problems.swf_compiled.parse_data`: the same rule)."""
    if native is None:
        from vcsched.problems.swf_compiled import parse_data

        return parse_data(data, pos, N_FIELDS)
    rows = data.count(b"\n", pos) + 1
    out = np.empty(rows * N_FIELDS)
    lines = np.empty(rows, dtype=np.int64)
    ok, count = native.parse_swf(data, pos, N_FIELDS, out, lines)
    return (out[:count * N_FIELDS].reshape(count, N_FIELDS), lines[:count]) if ok else None


_CHUNK_BYTES = 1 << 20
COMPILED_FROM_BYTES = 8 << 20
"""Without the C extension (:mod:`vcsched.native`), data lines from this many bytes (about 100,000 jobs) are
parsed by the numba loop of :mod:`vcsched.problems.swf_compiled` (numba's start-up costs more than it saves
below); with it, every plain file is parsed by its loop."""


def _chunk_fields(body: bytes):
    """``(numbers, tokens per line)`` of whole lines of data, or None when one is not plain.

    Tokens are counted per line on the bytes (a token starts where a blank is followed
    by a non-blank) and converted by one ``numpy.array(body.split(), float64)``.
    """
    u = np.frombuffer(body, dtype=np.uint8)
    if not _FAST_BYTES[u].all():
        return None
    blank = np.ones(u.size + 1, dtype=bool)
    blank[1:] = (u == 32) | (u == 9) | (u == 10)
    tokens = np.flatnonzero(blank[:-1] > blank[1:])  # a token starts at byte i
    newlines = np.flatnonzero(u == 10)
    if newlines.size and newlines[-1] == u.size - 1:
        newlines = newlines[:-1]  # the line break that ends the chunk
    line_start = np.concatenate(([0], newlines + 1))  # line k is bytes line_start[k] to line_end[k]
    line_end = np.concatenate((newlines, [u.size]))
    per_line = np.searchsorted(tokens, line_end) - np.searchsorted(tokens, line_start)
    if not np.all((per_line == 0) | (per_line == N_FIELDS)):
        return None
    numbers = _decimal_numbers(u, ~blank[1:])
    if numbers is not None:
        return numbers, per_line
    try:
        return np.array(body.split(), dtype=np.float64), per_line
    except ValueError:
        return None


_POW10 = 10 ** np.arange(19, dtype=np.int64)
_DIGITS = 15
"""Most digits of a number read by :func:`_decimal_numbers`: its mantissa is then below 2**53, exact as a float."""


def _decimal_numbers(u: np.ndarray, nonblank: np.ndarray) -> np.ndarray | None:
    """The numbers of a chunk whose tokens are all ``[-]digits[.digits]`` (at least one digit, at most 15), or None.

    Vectorised on the bytes: a token's digits make an integer mantissa ``m`` (each digit
    times its power of ten, summed per token), and its value is ``m / 10**k`` for ``k``
    digits after the point: ``m`` and ``10**k`` are exact floats, so the one division is
    correctly rounded, which is what ``float(token)`` (and numpy) gives; ``-0`` is
    ``-0.0``. Any other token (an exponent, a ``+``, two points, a lone ``-``) returns
    None, and the chunk goes to numpy's conversion.
    """
    pos = np.flatnonzero(nonblank)
    if pos.size == 0:
        return np.empty(0)
    b = u[pos]
    digit = (b >= 48) & (b <= 57)
    dot = b == 46
    minus = b == 45
    if not (digit | dot | minus).all():
        return None
    edge = np.diff(np.concatenate(([False], nonblank, [False])).view(np.int8))
    starts, ends = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    length = ends - starts
    tok = np.repeat(np.arange(starts.size), length)  # the token of each non-blank byte
    offsets = np.cumsum(length) - length  # where each token begins among the non-blank bytes
    first = np.zeros(pos.size, dtype=bool)
    first[offsets] = True
    if (minus & ~first).any():
        return None
    ndig = np.bincount(tok[digit], minlength=starts.size)
    ndot = np.bincount(tok[dot], minlength=starts.size)
    if (ndig == 0).any() or (ndig > _DIGITS).any() or (ndot > 1).any():
        return None
    dot_at = np.full(starts.size, np.iinfo(np.int64).max)
    dot_at[tok[dot]] = pos[dot]
    before = pos < dot_at[tok]
    power = ends[tok] - 1 - pos - (before & (ndot[tok] == 1))
    terms = np.where(digit, (b - 48).astype(np.int64) * _POW10[np.where(digit, power, 0)], 0)
    out = np.add.reduceat(terms, offsets).astype(np.float64)
    frac = np.flatnonzero(ndot == 1)
    if frac.size:
        out[frac] /= _POW10[ends[frac] - 1 - dot_at[frac]].astype(np.float64)
    neg = u[starts] == 45
    out[neg] = -out[neg]
    return out


class _LazyList:
    """``lst[i]`` of an integer array, as a Python int (the line numbers of :func:`parse_fast`)."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    def __getitem__(self, i: int) -> int:
        return int(self.values[i])
