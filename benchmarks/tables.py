"""Tables for experiment reports: save as CSV and Markdown, render as text.

No dependency beyond pandas (``DataFrame.to_markdown`` needs ``tabulate``,
which the project does not install, so Markdown is rendered here).
"""

from __future__ import annotations

import math
import os
import pathlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["format_value", "markdown_table", "text_table", "save_table"]


def format_value(value: Any, digits: int = 4) -> str:
    """A cell as text: floats with ``digits`` significant digits, missing values as ``-``."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int,)) or (hasattr(value, "dtype") and value.dtype.kind in "iu"):
        return str(int(value))
    if not (isinstance(value, float) or (hasattr(value, "dtype") and value.dtype.kind == "f")):
        return str(value)
    v = float(value)
    if math.isnan(v):
        return "-"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v != 0 and (abs(v) >= 1e6 or abs(v) < 10.0 ** -digits):
        return f"{v:.{max(digits - 2, 1)}e}"
    return f"{v:.{digits}f}"
    return str(value)


def _cells(df: pandas.DataFrame, digits: int) -> tuple[list[str], list[list[str]]]:
    header = [str(c) for c in df.columns]
    body = [[format_value(v, digits) for v in row] for row in df.itertuples(index=False, name=None)]
    return header, body


def markdown_table(df: pandas.DataFrame, *, digits: int = 4) -> str:
    """GitHub-flavoured Markdown; numeric columns right-aligned."""
    header, body = _cells(df, digits)
    numeric = [df[c].dtype.kind in "iuf" for c in df.columns]
    widths = [max([len(h)] + [len(r[k]) for r in body]) for k, h in enumerate(header)]

    def line(values: list[str]) -> str:
        return "| " + " | ".join(v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric)) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if n else ("-" * (w + 2)) for w, n in zip(widths, numeric)) + "|"
    return "\n".join([line(header), rule] + [line(r) for r in body]) + "\n"


def text_table(df: pandas.DataFrame, *, digits: int = 4) -> str:
    """Plain aligned text for the terminal."""
    header, body = _cells(df, digits)
    numeric = [df[c].dtype.kind in "iuf" for c in df.columns]
    widths = [max([len(h)] + [len(r[k]) for r in body]) for k, h in enumerate(header)]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if n else v.ljust(w) for v, w, n in zip(values, widths, numeric)).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in body]) + "\n"


def save_table(df: pandas.DataFrame, out_dir: str | os.PathLike, stem: str, *, title: str | None = None,
               digits: int = 4) -> tuple[pathlib.Path, pathlib.Path]:
    """Write ``stem.csv`` (full precision) and ``stem.md`` (rounded, with an optional title).

    Returns
    -------
    (csv_path, md_path)
    """
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = out / f"{stem}.csv", out / f"{stem}.md"
    df.to_csv(csv_path, index=False)
    text = (f"### {title}\n\n" if title else "") + markdown_table(df, digits=digits)
    md_path.write_text(text, encoding="utf-8")
    return csv_path, md_path
