"""``vcsched vc solve FILE --plot`` for an instance with host types: one bar per host, one panel per resource.

The first panel is the CPU each job receives, then one panel per rigid resource
(the instance's names); every bar is stacked by job and drawn as a share of
that host's own capacity (hosts of different types differ), so the dotted line
at 1 is every host's capacity. Hosts are numbered type by type, and the type of
each host is written under its bar when there are at most 32. The job(s) with
the minimum yield are hatched. matplotlib through :mod:`vcsched.problems.plots`
(Agg backend, atomic write, format from the suffix).
"""

from __future__ import annotations

import os

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.plots import MAX_PLOTTED_HOSTS, _pyplot, _save
from vcsched.problems.vc_hetero import HeteroAllocation, HeteroInstance, check_hetero

__all__ = ["plot_hetero", "MAX_PLOTTED_PANELS", "panel_loads"]

MAX_PLOTTED_PANELS = 12
"""Most panels (the CPU and the rigid resources) drawn."""


def panel_loads(inst: HeteroInstance, alloc: HeteroAllocation) -> np.ndarray:
    """The value drawn for every job in every panel, shape ``(n, 1 + d)``: the CPU it receives over its
    host's CPU, then each rigid need over its host's capacity (0 where that capacity is 0)."""
    host = np.asarray(alloc.job_host, dtype=np.int64)
    caps = np.column_stack((inst.hosts_cpu, inst.hosts_cap))[host]
    values = np.column_stack((np.asarray(alloc.job_alloc, dtype=float), inst.job_rigid))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(caps > 0, values / np.where(caps > 0, caps, 1.0), 0.0)


def plot_hetero(inst: HeteroInstance, alloc: HeteroAllocation, path: str | os.PathLike, *, title: str = "") -> None:
    """Draw ``alloc`` (module docstring). One line (:class:`~vcsched.errors.InvalidInputError`) when it
    fails the checker, or there are more than :data:`~vcsched.problems.plots.MAX_PLOTTED_HOSTS` hosts or
    :data:`MAX_PLOTTED_PANELS` panels."""
    report = check_hetero(inst, alloc)
    if not report.valid:
        raise InvalidInputError(f"cannot draw an invalid allocation: {report.message}")
    panels = 1 + inst.d
    if inst.n_hosts > MAX_PLOTTED_HOSTS or panels > MAX_PLOTTED_PANELS:
        raise InvalidInputError(f"{inst.n_hosts:,} hosts x {panels} panels to draw (at most {MAX_PLOTTED_HOSTS} hosts "
                                f"and {MAX_PLOTTED_PANELS} panels: the CPU and {MAX_PLOTTED_PANELS - 1} resources)")
    plt = _pyplot()
    host = np.asarray(alloc.job_host, dtype=np.int64)
    values = panel_loads(inst, alloc)
    yields = np.asarray(alloc.job_alloc, dtype=float) / inst.job_cpu
    marked = yields <= report.min_yield + 1e-12
    colours = plt.get_cmap("tab20")(np.arange(inst.n_jobs) % 20)
    cols = min(panels, 3)
    rows = -(-panels // cols)
    width = min(3 + 0.3 * inst.n_hosts, 12)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols / 1.5, 3.2 * rows), sharey=True, squeeze=False,
                             layout="constrained")
    labels = ["CPU received"] + list(inst.resources)
    order = np.lexsort((np.arange(inst.n_jobs), host))
    for k, ax in enumerate(axes.flat):
        if k >= panels:
            ax.set_visible(False)
            continue
        base = np.zeros(inst.n_hosts)
        for j in order:
            h = host[j]
            ax.bar(h, values[j, k], bottom=base[h], color=colours[j], edgecolor="black" if marked[j] else "white",
                   linewidth=1.2 if marked[j] else 0.4, hatch="//" if marked[j] else None)
            base[h] += values[j, k]
        ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
        ax.set_title(labels[k])
        ax.set_xlabel("host (type)")
        if inst.n_hosts <= 32:
            ax.set_xticks(range(inst.n_hosts), [f"{h}\n({t})" for h, t in enumerate(inst.host_type)], fontsize=7)
        else:
            ax.set_xticks([])
    for ax in axes[:, 0]:
        ax.set_ylabel("share of the host's capacity")
    fig.suptitle(f"{title + ': ' if title else ''}{inst.n_hosts} hosts of {inst.host_count.size} types, "
                 f"{inst.n_jobs} jobs; minimum yield {report.min_yield:.4f} (hatched)", fontsize=10, y=1.02)
    _save(fig, path)
