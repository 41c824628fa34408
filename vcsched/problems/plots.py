"""Pictures of one solution: a VCSched allocation per host, a moldable schedule as a Gantt chart.

``vcsched vc solve ... --plot alloc.png`` and ``vcsched moldable solve ... --gantt
schedule.png`` draw with these. matplotlib is imported inside each function (Agg
backend), and the file is written atomically (:func:`vcsched.files.atomic_write`), in
the format its suffix names (PNG, SVG, PDF).
"""

from __future__ import annotations

import os

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.files import FIGURE_FORMATS, atomic_write
from vcsched.problems.moldable import MoldableInstance, Schedule, completion_times
from vcsched.problems.vc import Allocation, VCInstance, check_allocation

__all__ = ["plot_allocation", "plot_moldable_schedule"]

MAX_PLOTTED_HOSTS = 512
"""Most hosts drawn one bar each (a wider instance is refused: the bars would be unreadable)."""
MAX_PLOTTED_TASKS = 2000
"""Most tasks drawn one rectangle each in a Gantt chart."""


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _drawable(report, what: str, count: int, most: int, too_many: str, path: str | os.PathLike) -> None:
    """Refuse (``ValueError``) a figure format not in :data:`~vcsched.files.FIGURE_FORMATS`, an
    invalid solution or one with more than ``most`` parts to draw."""
    if not str(path).lower().endswith(FIGURE_FORMATS):
        raise InvalidInputError(f"{path}: unknown figure format {os.path.splitext(str(path))[1]!r}; use "
                                f"{', '.join(FIGURE_FORMATS)}")
    if not report.valid:
        raise InvalidInputError(f"cannot draw an invalid {what}: " + report.violations[0])
    if count > most:
        raise InvalidInputError(f"{count:,} {too_many} to draw (at most {most})")


def _save(fig, path: str | os.PathLike) -> None:
    """Write ``fig`` to exactly ``path`` in the format its suffix names (one of
    :data:`vcsched.files.FIGURE_FORMATS`; matplotlib is given the format, so it never appends
    a suffix of its own)."""
    plt = _pyplot()
    try:
        fmt = os.path.splitext(str(path))[1].lower().lstrip(".")
        atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, bbox_inches="tight", format=fmt), keep_suffix=True)
    finally:
        plt.close(fig)


def plot_allocation(instance: VCInstance, allocation: Allocation, path: str | os.PathLike, *, title: str = "") -> None:
    """One bar per host, stacked by task: the CPU it receives (left) and its memory (right).

    The tasks of the job(s) with the minimum yield are hatched and outlined in black; the
    dotted line at 1 is each host's capacity. Raises ``ValueError`` when the allocation is
    invalid or the instance has more than :data:`MAX_PLOTTED_HOSTS` hosts.
    """
    report = check_allocation(instance, allocation)
    _drawable(report, "allocation", instance.hosts, MAX_PLOTTED_HOSTS, "hosts: too many bars", path)
    plt = _pyplot()
    hosts = np.asarray(allocation.task_host)
    worst = np.flatnonzero(report.job_yield <= report.min_yield + 1e-12)
    marked = np.isin(instance.task_job, worst)
    colours = plt.get_cmap("tab20")(instance.task_job % 20)
    fig, axes = plt.subplots(1, 2, figsize=(min(4 + 0.35 * instance.hosts, 18) * 2 / 1.6, 4), sharey=True)
    for ax, values, label in ((axes[0], np.asarray(allocation.task_cpu), "CPU fraction received"),
                              (axes[1], instance.task_mem, "memory")):
        base = np.zeros(instance.hosts)
        for t in np.lexsort((np.arange(instance.n_tasks), hosts)):
            h = hosts[t]
            ax.bar(h, values[t], bottom=base[h], color=colours[t], edgecolor="black" if marked[t] else "white",
                   linewidth=1.2 if marked[t] else 0.4, hatch="//" if marked[t] else None)
            base[h] += values[t]
        ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
        ax.set_xlabel("host")
        ax.set_title(label)
        ax.set_xticks(range(instance.hosts) if instance.hosts <= 32 else [])
    axes[0].set_ylabel("share of the host")
    jobs = ", ".join(str(int(j)) for j in worst[:5]) + ("..." if len(worst) > 5 else "")
    fig.suptitle(f"{title + ': ' if title else ''}{instance.hosts} hosts, {instance.n_jobs} jobs; minimum yield "
                 f"{report.min_yield:.4f} (hatched: job {jobs})", fontsize=10)
    _save(fig, path)


def plot_moldable_schedule(instance: MoldableInstance, schedule: Schedule, path: str | os.PathLike, *,
                           title: str = "") -> None:
    """Processors against time, one rectangle per task (on the processors it is given, or the
    lowest free ones at its start), labelled with the task and its weight."""
    from vcsched.problems.moldable import assign_processors, check_schedule

    report = check_schedule(instance, schedule)
    _drawable(report, "schedule", instance.n, MAX_PLOTTED_TASKS, "tasks: too many rectangles", path)
    plt = _pyplot()
    procs = assign_processors(instance, schedule)
    end = completion_times(instance, schedule)
    colours = plt.get_cmap("tab20")(np.arange(instance.n) % 20)
    fig, ax = plt.subplots(figsize=(10, min(2 + 0.25 * instance.m, 12)))
    for i in range(instance.n):
        for p in _runs(sorted(procs[i])):
            ax.broken_barh([(schedule.start[i], end[i] - schedule.start[i])], (p[0], p[1] - p[0] + 1),
                           facecolors=colours[i], edgecolors="black", linewidth=0.4)
        first = min(procs[i])
        if instance.n <= 60:
            ax.text(schedule.start[i] + 0.02 * (end[i] - schedule.start[i]), first + 0.5,
                    f"{i} (w={instance.weights[i]:g})", va="center", fontsize=7)
    ax.set_xlabel("time")
    ax.set_ylabel("processor")
    ax.set_ylim(0, instance.m)
    if instance.m <= 32:
        ax.set_yticks(range(instance.m + 1))
    ax.set_xlim(0, float(end.max()) * 1.02)
    ax.set_title(f"{title + ': ' if title else ''}{instance.n} tasks on {instance.m} processors; sum w C = "
                 f"{report.minsum:.4g}, makespan {report.makespan:.4g}", fontsize=10)
    _save(fig, path)


def _runs(values: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs of sorted integers as ``(first, last)``."""
    out: list[tuple[int, int]] = []
    for v in values:
        if out and v == out[-1][1] + 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out
