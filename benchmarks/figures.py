"""Figures for experiment reports: PNG line plots with labelled axes and reference lines.

Matplotlib runs on the non-interactive Agg backend (no display needed).
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg", force=True)
import matplotlib.pyplot as plt  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["line_plot", "save_figure", "series_style", "Reference", "count_caption", "add_caption"]

Reference = tuple
"""A horizontal reference line: ``(y, label)`` or ``(y, label, style)`` with a matplotlib line style."""

_STRONG = ("black", "dimgray", "darkred")
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p")
_SERIES_COLOURS = {
    # VCSched (seed 001): the methods plotted together most often get the strongest colours
    "mcb8": "tab:red", "sg": "tab:blue", "gr": "tab:orange", "gb": "tab:green", "sgb": "tab:purple",
    "rrnd": "tab:brown", "rrnz": "tab:pink", "mcb5": "tab:olive", "mcb6": "tab:cyan", "mcb7": "tab:gray",
    "mcb1": "#ff9896", "mcb2": "#aec7e8", "mcb3": "#ffbb78", "mcb4": "#98df8a",
    # grid reallocation (seed 000) and time-shared servers (seed 003)
    "mct": "tab:blue", "minmin": "tab:orange", "maxmin": "tab:green", "maxgain": "tab:red",
    "maxrelgain": "tab:purple", "sufferage": "tab:brown", "hmct": "tab:orange", "mp": "tab:green", "msf": "tab:red",
    # moldable tasks (seed 002)
    "bicriteria": "tab:red", "gang": "tab:blue", "sequential": "tab:orange", "list-shelf": "tab:green",
    "list-lptf": "tab:purple", "list-saf": "tab:brown",
}
"""One colour per method name of the toolkit, the same in every figure. Names of different
problems may share a colour: they never appear in the same figure."""


def series_style(name, position: int, n_series: int) -> tuple:
    """``(colour, marker)`` of a series: fixed for the toolkit's method names (so that
    ``mcb8`` looks the same in every figure), by position otherwise."""
    key = None if name is None else str(name)
    if key in _SERIES_COLOURS:
        return _SERIES_COLOURS[key], _MARKERS[list(_SERIES_COLOURS).index(key) % len(_MARKERS)]
    palette = plt.get_cmap("tab10" if n_series <= 10 else "tab20").colors
    return palette[position % len(palette)], _MARKERS[position % len(_MARKERS)]


def save_figure(fig, out_dir: str | os.PathLike, stem: str, *, dpi: int = 120) -> pathlib.Path:
    """Save ``fig`` as ``out_dir/stem.png`` and close it."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{stem}.png"
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return path


def count_caption(counts, unit: str, *, interval: bool | str, aggregate: str = "mean", statistic: str = "mean") -> str:
    """``"mean +- 95 % CI over n = 10 runs per point"`` (``n = 8-10`` when the counts differ);
    ``interval="range"``: the bars go from the smallest to the largest value (medians)."""
    counts = sorted({int(c) for c in counts if c})
    if not counts:
        return ""
    if counts == [1]:
        return f"points: one value each (n = 1 per point; {unit}), no interval"
    n = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    if interval == "range":
        what = f"{aggregate}, bars from the smallest to the largest value"
    else:
        what = f"{statistic} +- 95 % CI" if interval else aggregate
    return f"points: {what} over n = {n} {unit} per point"


def add_caption(fig, text: str) -> None:
    """Write ``text`` below the axes of ``fig`` (kept by ``bbox_inches="tight"``)."""
    if text:
        fig.text(0.5, -0.03, text, ha="center", va="top", fontsize=8, color="dimgray", wrap=True)


def _limit_to_means(ax, values: list[float], logy: bool) -> bool:
    """Keep the means readable when a few wide intervals (two or three runs) would flatten them: the
    y-axis spans the means (and reference lines) plus their range on each side, and longer error
    bars run off the axes (returns whether the axis was cut)."""
    import math

    vals = [v for v in values if math.isfinite(v) and (v > 0 or not logy)]
    if not vals:
        return False
    f, inv = (math.log10, lambda v: 10 ** v) if logy else (float, float)
    lo, hi = f(min(vals)), f(max(vals))
    span = max(hi - lo, 1e-9 if not logy else 0.05, abs(hi) * 0.05)
    cur_lo, cur_hi = ax.get_ylim()
    new = (max(cur_lo, inv(lo - span)), min(cur_hi, inv(hi + span)))
    ax.set_ylim(*new)
    return new != (cur_lo, cur_hi)



def _draw_series(ax, sub: pandas.DataFrame, name, k: int, n_series: int, *, x: str, y: str, aggregate: str,
                 count: str | None, yerr: str | None, strong: bool, highlight: Sequence[str]):
    """One series of :func:`line_plot`: its line and its bars (a 95 % interval of a mean, the given
    ``yerr``, or the range of a median); ``(counts, interval kind or False, values)``, None when empty."""
    from benchmarks.tables import ci95_half

    grouped = sub.groupby(x, sort=True)[y]
    data = grouped.agg(aggregate).dropna()
    if data.empty:
        return None
    n_of = sub.groupby(x, sort=True)[count].sum() if count else grouped.count()
    color, marker = series_style(name, k, n_series)
    if strong:
        color = _STRONG[list(highlight).index(name) % len(_STRONG)]
    interval: bool | str = False
    if yerr is not None:
        err = sub.groupby(x, sort=True)[yerr].first().loc[data.index]
    elif aggregate == "median":  # the spread of a median: smallest to largest value
        low, high = grouped.min().loc[data.index], grouped.max().loc[data.index]
        if (high > low).any():
            interval = "range"
            ax.errorbar(data.index, data.values, yerr=[(data - low).values, (high - data).values], fmt="none",
                        ecolor=color, elinewidth=0.9, capsize=2.5, alpha=0.8)
        err = None
    else:
        err = grouped.agg(ci95_half).loc[data.index] if aggregate == "mean" else None
    if err is not None and err.notna().any():
        interval = True
        ax.errorbar(data.index, data.values, yerr=err.fillna(0.0).values, fmt="none", ecolor=color,
                    elinewidth=0.9, capsize=2.5, alpha=0.8)
    ax.plot(data.index, data.values, marker=marker, markersize=4, color=color,
            linewidth=2.4 if strong else 1.2, linestyle="--" if strong else "-",
            label=None if name is None else str(name))
    return n_of.loc[data.index].tolist(), interval, [float(v) for v in data.values]


def _ordered_groups(df: pandas.DataFrame, series: str | None, series_order: Sequence[str] | None) -> list:
    """``(name, rows)`` per series (one unnamed group without ``series``), in ``series_order`` first."""
    groups = [(None, df)] if series is None else list(df.groupby(series, sort=True))
    if series is not None and series_order is not None:
        rank = {name: k for k, name in enumerate(series_order)}
        groups.sort(key=lambda g: rank.get(g[0], len(rank)))
    return groups


def _dress_axes(ax, *, xlabel: str, ylabel: str, title: str | None, logx: bool, xticklabels: dict | None,
                legend_loc: str) -> None:
    """Scale of x, ticks, labels, title, grid and legend (beside the axes with more than 6 series)."""
    if logx:
        ax.set_xscale("log")
    if xticklabels:
        ax.set_xticks(list(xticklabels), [str(v) for v in xticklabels.values()])
    ax.set_xlabel(xlabel, fontsize=11)
    ax.set_ylabel(ylabel, fontsize=11)
    if title:
        ax.set_title(title, fontsize=12)
    ax.grid(True, alpha=0.3, which="both")
    _, labels = ax.get_legend_handles_labels()
    if len(labels) > 6:  # many series: legend beside the axes, never over the lines
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), framealpha=0.85)
    elif labels:
        ax.legend(fontsize=8, loc=legend_loc, framealpha=0.85)


def line_plot(
    df: pandas.DataFrame,
    *,
    x: str,
    y: str,
    out_dir: str | os.PathLike,
    stem: str,
    series: str | None = None,
    xlabel: str,
    ylabel: str,
    title: str | None = None,
    references: Sequence[Reference] = (),
    logy: bool = False,
    logx: bool = False,
    aggregate: str = "mean",
    series_order: Sequence[str] | None = None,
    highlight: Sequence[str] = (),
    legend_loc: str = "best",
    unit: str = "runs",
    xticklabels: dict | None = None,
    yerr: str | None = None,
    count: str | None = None,
    statistic: str = "mean",
) -> pathlib.Path:
    """Line plot of ``y`` against ``x``, one line per value of ``series``.

    Rows with the same ``(series, x)`` are aggregated (``mean``, ``median``,
    ``max``...). ``references`` draws horizontal lines, e.g. the paper's
    value: ``[(28.7, "paper (GLPK) mean 28.7 s")]``. ``highlight`` names
    series drawn thick and dashed (e.g. exact optimum and bound).
    ``legend_loc`` is a matplotlib location (with more than 6 series the
    legend goes beside the axes).

    Parameters
    ----------
    xlabel, ylabel : str
        Axis labels, with units, e.g. ``"time (s)"``.

    Returns
    -------
    pathlib.Path
        The PNG written (``out_dir/stem.png``).
    """
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    groups = _ordered_groups(df, series, series_order)
    counts, interval, means = [], False, []
    for k, (name, sub) in enumerate(groups):
        drawn = _draw_series(ax, sub, name, k, len(groups), x=x, y=y, aggregate=aggregate, count=count,
                             yerr=yerr, strong=name in highlight, highlight=highlight)
        if drawn is None:
            continue
        counts.extend(drawn[0])
        means.extend(drawn[2])
        if drawn[1] and interval is not True:
            interval = drawn[1]
    for ref in references:
        value, label = ref[0], ref[1]
        style = ref[2] if len(ref) > 2 else ":"
        ax.axhline(value, color="black", linestyle=style, linewidth=1.2, label=label)
    if logy:
        ax.set_yscale("log")
    cut = interval is True and _limit_to_means(ax, means + [float(ref[0]) for ref in references], logy)
    _dress_axes(ax, xlabel=xlabel, ylabel=ylabel, title=title, logx=logx, xticklabels=xticklabels,
                legend_loc=legend_loc)
    caption = count_caption(counts, unit, interval=interval, aggregate=aggregate, statistic=statistic)
    add_caption(fig, caption + ("; longer bars run off the axes" if cut else ""))
    return save_figure(fig, out_dir, stem)
