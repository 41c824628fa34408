"""Helpers shared by the command groups: JSON output, number parsing, tables."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, Iterable

import numpy as np

from vcsched.errors import InvalidInputError

__all__ = ["print_json", "jsonable", "positive_float", "nonneg_float", "positive_int", "print_table"]


def jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays and non-finite floats to plain JSON values."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if math.isfinite(v) else None
    if hasattr(value, "value") and isinstance(getattr(value, "value"), str):
        return value.value  # enums
    return value


def print_json(obj: Any) -> None:
    json.dump(jsonable(obj), sys.stdout, indent=1)
    sys.stdout.write("\n")


def _number(kind: type, check, what: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if isinstance(value, float) and math.isnan(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got NaN")
        if not check(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


positive_float = _number(float, lambda v: v > 0 and math.isfinite(v), "a positive number")
nonneg_float = _number(float, lambda v: v >= 0, "a number >= 0")
positive_int = _number(int, lambda v: v >= 1, "an integer >= 1")
nonneg_int = _number(int, lambda v: v >= 0, "an integer >= 0")
unit_float = _number(float, lambda v: 0 <= v < 1, "a number in [0, 1)")


def print_table(rows: Iterable[dict], columns: list[str], floatfmt: str = "{:.4f}") -> None:
    rows = list(rows)
    cells = [[("-" if r.get(c) is None else floatfmt.format(r[c]) if isinstance(r.get(c), float) else str(r.get(c)))
              for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[k]) for row in cells]) for k, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))


def fail(message: str) -> InvalidInputError:
    return InvalidInputError(message)


__all__ += ["nonneg_int", "unit_float", "fail"]
