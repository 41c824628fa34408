"""``vcsched vc pack --plot``: a vector packing drawn as one bar per bin, one panel per dimension.

Each bar is stacked by item (colour by item type); every item is drawn as a
share of its own bin's capacity, so the dotted line at 1 is the capacity of
every bin, of whatever type (bins of several types: the type is written under
each bar when there are at most 32). matplotlib through
:mod:`vcsched.problems.plots` (Agg backend, atomic write, format from the suffix).
"""

from __future__ import annotations

import os

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.plots import MAX_PLOTTED_HOSTS, _pyplot, _save
from vcsched.problems.vbp import VectorPacking, bins_problem
from vcsched.problems.vbp_typed import TypedBinPacking, typed_bins_problem

__all__ = ["plot_packing", "MAX_PLOTTED_DIMENSIONS", "item_shares"]

MAX_PLOTTED_DIMENSIONS = 12
"""Most panels (dimensions) drawn."""


def item_shares(inst: VectorPacking | TypedBinPacking, bins: list, bin_types: list | None = None) -> np.ndarray:
    """(n, d): every item's demand over the capacity of the bin it is in (0 where that capacity is 0)."""
    if isinstance(inst, VectorPacking):
        return inst.item_sizes()
    demand = inst.item_demand()
    cap = np.ones_like(demand)
    for items, k in zip(bins, bin_types or []):
        cap[np.asarray(items, dtype=np.int64)] = inst.bin_caps[k]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(cap > 0, demand / np.where(cap > 0, cap, 1.0), 0.0)


def plot_packing(inst: VectorPacking | TypedBinPacking, bins: list, path: str | os.PathLike, *, title: str = "",
                 bin_types: list | None = None) -> None:
    """One panel per dimension, one bar per bin stacked by item (``bin_types``: the type of every bin, for
    bins of several types). One line (:class:`~vcsched.errors.InvalidInputError`) when the packing fails
    the checker, or has more than :data:`~vcsched.problems.plots.MAX_PLOTTED_HOSTS` bins or
    :data:`MAX_PLOTTED_DIMENSIONS` dimensions."""
    typed = isinstance(inst, TypedBinPacking)
    problem = typed_bins_problem(inst, bins, bin_types or []) if typed else bins_problem(inst, bins)
    if problem is not None:
        raise InvalidInputError(f"cannot draw an invalid packing: {problem}")
    if len(bins) > MAX_PLOTTED_HOSTS or inst.d > MAX_PLOTTED_DIMENSIONS:
        raise InvalidInputError(f"{len(bins):,} bins x {inst.d} dimensions to draw (at most {MAX_PLOTTED_HOSTS} bins "
                                f"and {MAX_PLOTTED_DIMENSIONS} dimensions)")
    plt = _pyplot()
    sizes, types = item_shares(inst, bins, bin_types), inst.item_type()
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
        ax.set_title(inst.dim_name(k) if typed else f"dimension {k + 1}")
        ax.set_xlabel("bin (type)" if typed else "bin")
        if len(bins) > 32:
            ax.set_xticks([])
        elif typed:
            ax.set_xticks(range(len(bins)), [f"{b}\n({t})" for b, t in enumerate(bin_types)], fontsize=7)
        else:
            ax.set_xticks(range(len(bins)))
    for ax in axes[:, 0]:
        ax.set_ylabel("share of the capacity")
    fig.suptitle(f"{title + ': ' if title else ''}{inst.n_items} items in {len(bins)} bins, d = {inst.d}",
                 fontsize=10, y=1.02)
    _save(fig, path)
