"""``vcsched vc pack --plot``: a vector packing drawn as one bar per bin, one panel per dimension.

Each bar is stacked by item (colour by item type); the dotted line at 1 is the
capacity (sizes divided by it). matplotlib through :mod:`vcsched.problems.plots`
(Agg backend, atomic write, format from the suffix).
"""

from __future__ import annotations

import os

from vcsched.errors import InvalidInputError
from vcsched.problems.plots import MAX_PLOTTED_HOSTS, _pyplot, _save
from vcsched.problems.vbp import VectorPacking, bins_problem

__all__ = ["plot_packing", "MAX_PLOTTED_DIMENSIONS"]

MAX_PLOTTED_DIMENSIONS = 12
"""Most panels (dimensions) drawn."""


def plot_packing(inst: VectorPacking, bins: list, path: str | os.PathLike, *, title: str = "") -> None:
    """One panel per dimension, one bar per bin stacked by item. ``ValueError`` when the packing fails
    the checker, or has more than :data:`~vcsched.problems.plots.MAX_PLOTTED_HOSTS` bins or
    :data:`MAX_PLOTTED_DIMENSIONS` dimensions."""
    problem = bins_problem(inst, bins)
    if problem is not None:
        raise InvalidInputError(f"cannot draw an invalid packing: {problem}")
    if len(bins) > MAX_PLOTTED_HOSTS or inst.d > MAX_PLOTTED_DIMENSIONS:
        raise InvalidInputError(f"{len(bins):,} bins x {inst.d} dimensions to draw (at most {MAX_PLOTTED_HOSTS} bins "
                         f"and {MAX_PLOTTED_DIMENSIONS} dimensions)")
    plt = _pyplot()
    sizes, types = inst.item_sizes(), inst.item_type()
    colours = plt.get_cmap("tab20")(types % 20)
    cols = min(inst.d, 3)
    rows = -(-inst.d // cols)
    width = min(3 + 0.3 * len(bins), 12)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols / 1.5, 3.2 * rows), sharey=True, squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= inst.d:
            ax.set_visible(False)
            continue
        for b, items in enumerate(bins):
            base = 0.0
            for i in items:
                ax.bar(b, sizes[i, k], bottom=base, color=colours[i], edgecolor="white", linewidth=0.4)
                base += sizes[i, k]
        ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
        ax.set_title(f"dimension {k + 1}")
        ax.set_xlabel("bin")
        ax.set_xticks(range(len(bins)) if len(bins) <= 32 else [])
    for ax in axes[:, 0]:
        ax.set_ylabel("share of the capacity")
    fig.suptitle(f"{title + ': ' if title else ''}{inst.n_items} items in {len(bins)} bins, d = {inst.d}",
                 fontsize=10)
    _save(fig, path)
