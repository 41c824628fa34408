"""Tables for experiment reports: save as CSV and Markdown, render as text.

No dependency beyond pandas (``DataFrame.to_markdown`` needs ``tabulate``,
which the project does not install, so Markdown is rendered here).
"""

from __future__ import annotations

import math
import os
import pathlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["format_value", "markdown_table", "text_table", "save_table", "ci95_half", "ratio_ci95_half",
           "mean_ci_table",
           "with_intervals", "format_duration", "text_table_notes"]


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


# --------------------------------------------------------------------------- means with their intervals


def ci95_half(values) -> float:
    """Half-width of the 95 % Student t interval of the mean of ``values`` (NaN below two values).

    The interval is :func:`vcsched.stats.summarize`'s (``scipy.stats.t``); missing values are left out.
    """
    from vcsched.stats import summarize

    s = summarize([None if v is None or math.isnan(v) else v for v in values])  # NaN: a missing value in a table
    return math.nan if s["ci95"] is None else (s["ci95"][1] - s["ci95"][0]) / 2.0


def ratio_ci95_half(numerators, denominators) -> float:
    """Half-width of the 95 % interval of the ratio of sums ``R = sum y / sum x`` over paired runs.

    The linearised (delta-method) standard error of the ratio estimator,
    ``se = std(y_i - R x_i) / (mean(x) sqrt(n))`` with ``ddof=1``, times Student's
    ``t_{0.975, n-1}`` (``scipy.stats.t``); NaN below two pairs or when ``sum x`` is 0.
    """
    import numpy as np
    from scipy import stats

    y = np.asarray(numerators, dtype=float)
    x = np.asarray(denominators, dtype=float)
    keep = np.isfinite(y) & np.isfinite(x)
    y, x = y[keep], x[keep]
    n = int(y.size)
    if n < 2 or x.sum() == 0:
        return math.nan
    r = y.sum() / x.sum()
    se = float(np.std(y - r * x, ddof=1)) / (abs(float(x.mean())) * math.sqrt(n))
    return float(stats.t.ppf(0.975, n - 1)) * se


def _interval_stats(df: pandas.DataFrame, by: Sequence[str], values: Sequence[str]) -> pandas.DataFrame:
    import pandas as pd

    rows = []
    for key, sub in df.groupby(list(by), sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key))
        for v in values:
            data = pd.to_numeric(sub[v], errors="coerce").astype(float).dropna()
            row[f"{v}_mean"], row[f"{v}_n"], row[f"{v}_ci95"] = (
                float(data.mean()) if len(data) else math.nan, int(len(data)), ci95_half(data))
        rows.append(row)
    return pd.DataFrame(rows, columns=list(by) + [f"{v}_{k}" for v in values for k in ("mean", "n", "ci95")])


def mean_ci_table(df: pandas.DataFrame, by: Sequence[str], values: str | Sequence[str]) -> pandas.DataFrame:
    """Means of ``values`` per group of ``by``, each with its count and 95 % interval.

    Columns: ``by``, then for each value ``v``: ``v`` (mean over the rows where it is known),
    ``v_n`` (how many rows) and ``v_ci95`` (half-width of the t interval: the interval is
    ``v +- v_ci95``; NaN with fewer than two rows). With a single value the last two are
    named ``n`` and ``ci95``.
    """
    single = isinstance(values, str)
    values = [values] if single else list(values)
    stats = _interval_stats(df, list(by), values)
    out = stats[list(by)].copy()
    for v in values:
        out[v] = stats[f"{v}_mean"]
        out["n" if single else f"{v}_n"] = stats[f"{v}_n"]
        out["ci95" if single else f"{v}_ci95"] = stats[f"{v}_ci95"]
    return out


def with_intervals(table: pandas.DataFrame, df: pandas.DataFrame, by: Sequence[str],
                   values: str | Sequence[str]) -> pandas.DataFrame:
    """``table`` (one row per group of ``by``, means of ``values`` from ``df``) with the count and
    interval columns of :func:`mean_ci_table` appended after its own columns (none renamed)."""
    extra = mean_ci_table(df, by, values)
    keep = [c for c in extra.columns if c in list(by) or c not in table.columns]
    return table.merge(extra[keep], on=list(by), how="left")


# --------------------------------------------------------------------------- readable text


def format_duration(seconds: float) -> str:
    """A duration with its unit: seconds below 2 min, then minutes, hours (below 2 days) or days.

    >>> format_duration(2.876e7), format_duration(5400.0), format_duration(42.0)
    ('332.9 d', '1.50 h', '42.0 s')
    """
    if seconds is None or not math.isfinite(float(seconds)):
        return "-"
    s = float(seconds)
    if abs(s) < 120:
        return f"{s:.1f} s"
    if abs(s) < 3600:
        return f"{s / 60:.1f} min"
    if abs(s) < 2 * 86400:
        return f"{s / 3600:.2f} h"
    return f"{s / 86400:.1f} d"


def text_table_notes(df: pandas.DataFrame, columns: Sequence[str], *, width: int = 40, digits: int = 4) -> str:
    """:func:`text_table` with the cells of ``columns`` longer than ``width`` characters replaced by
    ``[k]`` and printed in full below the table as wrapped notes ``[k] text``, so that no column of the
    terminal table is hundreds of characters wide."""
    import textwrap

    table, notes = df.copy(), []
    for column in columns:
        if column not in table.columns:
            continue
        cells = []
        for value in table[column]:
            text = "-" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
            if len(text) > width:
                notes.append(textwrap.fill(f"[{len(notes) + 1}] {column}: {text}", 100, subsequent_indent="    "))
                text = f"[{len(notes)}]"
            cells.append(text)
        table[column] = cells
    return text_table(table, digits=digits) + "".join(n + "\n" for n in notes)
