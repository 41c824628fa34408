"""The data lines of a large SWF file parsed in one compiled loop (the fast path of :func:`vcsched.problems.workload.read_swf`).

numba's import costs a few tenths of a second in a fresh process, so the reader takes
this path only for large files (:data:`vcsched.problems.swf_fast.COMPILED_FROM_BYTES`),
where numpy's conversion of the tokens (about 0.2 microseconds each, 42 million of them
for 2.3 million jobs) would dominate, and where the simulator loads numba anyway.
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit

__all__ = ["parse_data"]

_POW10 = np.array([1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
                   1e18, 1e19, 1e20, 1e21, 1e22])
"""Powers of ten that are exact doubles."""
_MANTISSA_LIMIT = 2**53


@njit(cache=True)
def _number(u, pos, n, pow10):
    """The number starting at byte ``pos``: ``(value, end, ok)``.

    Accepted: an optional ``-``, digits with at most one ``.``, at least one digit, a
    value of at most 2**53 - 1 units of its last decimal place and at most 22 decimals.
    The value is ``mantissa / 10**decimals``, one correctly rounded division of exact
    doubles: the double nearest to the decimal number, as Python's ``float`` reads it.
    Anything else (an exponent, ``+``, other bytes, more digits) is not ``ok``.
    """
    neg = u[pos] == 45
    if neg:
        pos += 1
    mant = 0
    frac = 0
    dot = False
    digits = False
    while pos < n:
        c = u[pos]
        if 48 <= c <= 57:
            if mant >= _MANTISSA_LIMIT:
                return 0.0, pos, False
            mant = mant * 10 + (c - 48)
            digits = True
            if dot:
                frac += 1
        elif c == 46 and not dot:
            dot = True
        elif c == 32 or c == 9 or c == 10:
            break
        else:
            return 0.0, pos, False
        pos += 1
    if not digits or mant >= _MANTISSA_LIMIT or frac > 22:
        return 0.0, pos, False
    value = float(mant)
    if frac:
        value = value / pow10[frac]
    return (-value if neg else value), pos, True


@njit(cache=True)
def _parse(u, start, out, lines, width, pow10):
    n = u.size
    pos = start
    row = 0
    line = 0
    while pos < n:
        count = 0
        while True:
            while pos < n and (u[pos] == 32 or u[pos] == 9):
                pos += 1
            if pos >= n or u[pos] == 10:
                break
            if count == width:
                return False, row
            value, pos, ok = _number(u, pos, n, pow10)
            if not ok:
                return False, row
            out[row * width + count] = value
            count += 1
        if count == width:
            lines[row] = line
            row += 1
        elif count != 0:
            return False, row
        line += 1
        pos += 1
    return True, row


def parse_data(data: bytes, start: int, width: int):
    """``(fields, line)`` of the data lines of ``data`` from byte ``start``, or None when a line is not plain.

    Plain: lines of ``width`` numbers (or blank) separated by spaces or tabs, each number
    as :func:`_number` accepts. ``fields`` has one row per data line; ``line[r]`` is the
    0-based index of row ``r``'s line counted from ``start``.
    """
    u = np.frombuffer(data, dtype=np.uint8)
    rows = data.count(b"\n", start) + 1
    out = np.empty(rows * width)
    lines = np.empty(rows, dtype=np.int64)
    ok, count = _parse(u, start, out, lines, width, _POW10)
    if not ok:
        return None
    return out[:count * width].reshape(count, width), lines[:count]
