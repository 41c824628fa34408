"""Per-job output in Batsim's ``jobs.csv`` layout, the usual batch metrics, and Gantt charts.

Columns of the default layout (``layout="batsim"``, the current Batsim output, so that
evalys 4 reads the file with ``JobSet.from_csv``): ``job_id, workload_name, profile,
submission_time, requested_number_of_resources, requested_time, success, final_state,
starting_time, execution_time, finish_time, waiting_time, turnaround_time, stretch,
allocated_resources``, then ours: ``cluster, origin_cluster``.

The legacy layout (``layout="legacy"``, ``--jobs-layout legacy``), for scripts that read
the first column set: ``jobID, submission_time, requested_number_of_processors,
requested_time, starting_time, execution_time, finish_time, waiting_time,
turnaround_time, stretch, allocated_processors, cluster, origin_cluster``.

Choices (documented here and in ``docs/formats.md``, tested in ``tests/sim``):

* ``job_id`` / ``workload_name``: a job id ``"<site>!<id>"`` (several traces) is split as
  Batsim does (``workload_name`` = site, ``job_id`` = id); a plain id keeps its value and
  ``workload_name`` is the name of the job's origin cluster. The legacy ``jobID`` is the
  whole id.
* ``profile`` is the job's profile name when the input was a Batsim workload (the simulator
  runs its ``delay``), empty for SWF jobs, which name none.
* ``success`` is 1 and ``final_state`` ``COMPLETED_SUCCESSFULLY`` for every job that ran
  (the engine runs a job ``min(run time, walltime)``: a job killed at its walltime is
  not told apart, since the uncapped run time does not enter the simulation);
  a job that never ran has ``success`` 0 and ``final_state`` ``REJECTED``.
* ``requested_time`` is the walltime on the cluster where the job ran (scaled by speed).
* ``stretch`` is ``turnaround_time / execution_time`` (Batsim's definition); ``inf`` for a
  job of zero execution time.
* ``allocated_resources`` (legacy ``allocated_processors``) is an interval set of
  processor numbers (``"0-3 8"``) as in Batsim, numbered per cluster. The engine only
  counts processors; numbers are given afterwards by a sweep in time order that frees
  the processors of ending jobs before it gives the lowest free numbers to starting jobs.
* Metrics (seed §3.4 uses response time; the others are standard): waiting time
  ``start - submit``, response time ``finish - submit``, bounded slowdown
  ``max(1, response / max(run, tau))`` with ``tau = 10`` s, makespan
  ``max finish - min submit``, max stretch ``max response / execution`` over the jobs of
  positive execution time (a zero-length job has no stretch), utilization ``sum(procs * execution) / (procs of the
  cluster(s) * makespan)``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.names.grid import JOBS_LAYOUTS
from vcsched.native import speedups
from vcsched.sim.jobmetrics import BSLD_TAU, bounded_slowdown, max_stretch

__all__ = ["JOBS_COLUMNS", "LEGACY_JOBS_COLUMNS", "JOBS_LAYOUTS", "jobs_columns", "jobs_frame", "metrics", "write_jobs",
           "write_jobs_csv",
           "allocate_processors", "draw_gantt", "BSLD_TAU"]

JOBS_COLUMNS = ["job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
                "requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
                "waiting_time", "turnaround_time", "stretch", "allocated_resources", "cluster", "origin_cluster"]
"""Columns of ``jobs.csv`` in the current Batsim layout (the default), then ours."""
LEGACY_JOBS_COLUMNS = ["jobID", "submission_time", "requested_number_of_processors", "requested_time",
                       "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time",
                       "stretch", "allocated_processors", "cluster", "origin_cluster"]
"""Columns of the old layout (``layout="legacy"``)."""


def allocate_processors(start: np.ndarray, finish: np.ndarray, procs: np.ndarray, total: int) -> list[str]:
    """Give processor numbers to a schedule that never uses more than ``total`` processors.

    Returns one interval-set string per job (``""`` for a job that did not run). The
    sweep goes through the ends and starts in time order, ends first at an instant (then
    by job row), and gives each starting job the lowest free numbers; a zero-length job
    gets numbers without holding them. The free numbers are the set bits of one Python
    integer, so that a starting job takes whole runs of free numbers at a time
    (:func:`_sweep`); the plain numpy sweep of ``tests/sim/test_sim_outputs.py`` is its oracle.
    The C extension's ``allocate`` (:mod:`vcsched.native`) runs the same sweep when it is built,
    else numba's (:func:`_sweep_compiled`) from :data:`ALLOCATE_COMPILED_FROM` jobs.
    """
    n = start.size
    out = [""] * n
    ran = np.flatnonzero(~np.isnan(start))
    if ran.size == 0:
        return out
    times = np.concatenate((finish[ran], start[ran]))
    kind = np.concatenate((np.zeros(ran.size, dtype=np.int64), np.ones(ran.size, dtype=np.int64)))
    who = np.concatenate((ran, ran)).astype(np.int64)
    order = np.argsort(times, kind="stable")  # (time, kind, job): the events are in (kind, job) order already
    native = speedups()
    if native is not None:  # the C extension's sweep (the same rule, on a bit set of 64-bit words)
        status, at, cells = native.allocate(who[order], kind[order], np.ascontiguousarray(procs, dtype=np.int64),
                                            int(total))
        if status == 0:
            return cells
    elif ran.size >= ALLOCATE_COMPILED_FROM:
        at = _sweep_compiled(who[order], kind[order], np.asarray(procs, dtype=np.int64), int(total), ran, out)
    else:
        at = _sweep(who[order].tolist(), kind[order].tolist(), np.asarray(procs, dtype=np.int64).tolist(),
                    int(total), out)
    if at is not None:
        raise InvalidInputError(f"schedule uses more than {total} processors at time {times[order[at]]}")
    return out


ALLOCATE_COMPILED_FROM = 100_000
"""Without the C extension, fewest jobs for which :func:`allocate_processors` runs numba's sweep
(:func:`_sweep_compiled`); below, numba's start-up in a fresh process costs more than the Python sweep (:func:`_sweep`)."""


def _sweep_compiled(who: np.ndarray, kind: np.ndarray, widths: np.ndarray, total: int, ran: np.ndarray,
                    out: list) -> int | None:
    """:func:`_sweep` compiled (:func:`vcsched.sim.compiled.allocate_sweep`, the same rule on arrays, tested equal)."""
    from vcsched.sim import compiled  # numba loads here

    n = widths.size
    first = np.zeros(n, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    room = 2 * ran.size + 16
    while True:
        lo = np.empty(room, dtype=np.int64)
        hi = np.empty(room, dtype=np.int64)
        status, at = compiled.allocate_sweep(who, kind, widths, total, lo, hi, first, count)
        if status != -2:
            break
        room *= 4  # more intervals than expected (fragmented numbers): run the sweep again with more room
    if status == -1:
        return at
    one = ran[count[ran] == 1]  # most jobs get one interval of numbers: their strings are built per kind at once
    a, b = lo[first[one]], hi[first[one]]
    cells = np.array(out, dtype=object)
    single = a == b
    cells[one[single]] = list(map(str, a[single].tolist()))
    cells[one[~single]] = list(map("%d-%d".__mod__, zip(a[~single].tolist(), b[~single].tolist())))
    out[:] = cells.tolist()
    many = ran[count[ran] > 1]
    for j, f, c in zip(many.tolist(), first[many].tolist(), count[many].tolist()):
        out[j] = " ".join(str(x) if x == y else f"{x}-{y}" for x, y in zip(lo[f:f + c].tolist(), hi[f:f + c].tolist()))
    return None


def _sweep(who: list, kind: list, widths: list, total: int, out: list) -> int | None:
    """The sweep of :func:`allocate_processors` over events ``(who, kind)`` in order (kind 0: an end, 1: a start).

    ``out[j]`` receives job ``j``'s interval set. Returns None, or the index of the
    first start that finds fewer free processors than it needs. The free set is an
    integer whose bit ``x`` is set when processor ``x`` is free: ``low = x & -x`` is the
    lowest free number and ``x & ~(x + low)`` the run of free numbers that begins there.
    """
    free = (1 << total) - 1
    held: dict[int, int] = {}  # job -> mask of its numbers
    ended: set[int] = set()  # zero-length jobs whose end came before their start
    for e, (j, k) in enumerate(zip(who, kind)):
        if k == 0:
            mask = held.pop(j, None)
            if mask is None:
                ended.add(j)
            else:
                free |= mask
            continue
        need = widths[j]
        x, mask, parts = free, 0, []
        while need and x:
            low = x & -x
            run = x & ~(x + low)
            a = low.bit_length() - 1
            length = run.bit_length() - a
            if length > need:
                run = ((1 << need) - 1) << a
                length = need
            mask |= run
            x ^= run
            need -= length
            parts.append(str(a) if length == 1 else f"{a}-{a + length - 1}")
        out[j] = " ".join(parts)
        if j in ended:
            ended.discard(j)
            continue
        if need:
            return e
        free ^= mask
        held[j] = mask
    return None


def _check_layout(layout: str) -> None:
    if layout not in JOBS_LAYOUTS:
        raise InvalidInputError(f"jobs layout {layout!r} is unknown; use one of: {', '.join(JOBS_LAYOUTS)}")


def _split_ids(job_id: np.ndarray, origin_names: np.ndarray) -> tuple[list[str], list[str]]:
    """Batsim's ``job_id`` and ``workload_name`` of each job (see the module docstring)."""
    if job_id.dtype.kind in "iu":  # one trace: plain integer ids
        return list(map(str, job_id.tolist())), list(map(str, origin_names.tolist()))
    ids, workloads = [], []
    for raw, origin in zip(job_id.tolist(), origin_names.tolist()):
        text = str(raw)
        site, bang, rest = text.partition("!")
        ids.append(rest if bang else text)
        workloads.append(site if bang else str(origin))
    return ids, workloads


def jobs_columns(result, *, with_allocation: bool = True, layout: str = "batsim", text_ids: bool = True) -> dict:
    """Per-job results as columns (name -> numpy array or list), in :data:`JOBS_COLUMNS` order
    (:data:`LEGACY_JOBS_COLUMNS` with ``layout="legacy"``): what :func:`jobs_frame` and the CSV writer share.

    ``text_ids=False`` keeps integer job ids of the Batsim layout as their integer array (the CSV
    writer's text is the same, without a string per job)."""
    _check_layout(layout)
    jobs = result.jobs
    names = np.array([c.name for c in result.clusters] + [""], dtype=object)
    speeds = np.array([c.speed for c in result.clusters] + [np.nan])
    where = result.cluster
    origin = jobs.origin
    ratio = speeds[origin] / speeds[where]
    req = jobs.requested_time * np.where(where >= 0, ratio, 1.0)
    start, finish = result.start, result.finish
    execution = finish - start
    submit = jobs.submit
    turnaround = finish - submit
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = np.where(execution > 0, turnaround / np.where(execution > 0, execution, 1.0), np.inf)
    alloc = [""] * len(jobs)
    if with_allocation:
        for k, c in enumerate(result.clusters):
            rows = np.flatnonzero(where == k)
            if rows.size == len(jobs):
                alloc = allocate_processors(start, finish, jobs.procs, c.procs)
                continue
            sub = allocate_processors(start[rows], finish[rows], jobs.procs[rows], c.procs)
            for r, s in zip(rows.tolist(), sub):
                alloc[r] = s
    times = {"submission_time": submit, "requested_time": req, "starting_time": start,
             "execution_time": execution, "finish_time": finish, "waiting_time": start - submit,
             "turnaround_time": turnaround, "stretch": stretch}
    ours = {"cluster": names[where], "origin_cluster": names[origin]}
    if layout == "legacy":
        cols = {"jobID": jobs.job_id, "requested_number_of_processors": jobs.procs, **times,
                "allocated_processors": alloc, **ours}
        return {c: cols[c] for c in LEGACY_JOBS_COLUMNS}
    if not text_ids and jobs.job_id.dtype.kind in "iu":
        ids, workloads = jobs.job_id, list(map(str, names[origin].tolist()))
    else:
        ids, workloads = _split_ids(jobs.job_id, names[origin])
    ran = ~np.isnan(start)
    profile = jobs.profile if jobs.profile is not None else [""] * len(jobs)
    states = np.array(["REJECTED", "COMPLETED_SUCCESSFULLY"], dtype=object)
    cols = {"job_id": ids, "workload_name": workloads, "profile": profile,
            "requested_number_of_resources": jobs.procs, "success": ran.astype(np.int64),
            "final_state": states[ran.astype(np.intp)], **times,
            "allocated_resources": alloc, **ours}
    return {c: cols[c] for c in JOBS_COLUMNS}


def jobs_frame(result, *, with_allocation: bool = True, layout: str = "batsim"):
    """Per-job results as a pandas DataFrame with :data:`JOBS_COLUMNS` (or :data:`LEGACY_JOBS_COLUMNS`
    with ``layout="legacy"``)."""
    import pandas as pd

    cols = jobs_columns(result, with_allocation=with_allocation, layout=layout)
    return pd.DataFrame(cols, columns=list(cols))


def _csv_cells(values) -> tuple[list, bool]:
    """The cells of one column as pandas' ``to_csv`` writes them (``na_rep=""``), and whether one needs quotes.

    Floats: the shortest repr (numpy's ``astype(str)``, which is Python's ``repr``),
    NaN empty; integers: ``str``; anything else: ``str`` (None and NaN empty), as the
    ``csv`` module that pandas writes through does.
    """
    arr = values if isinstance(values, np.ndarray) else None
    if arr is not None and arr.dtype.kind == "f":
        cells = list(map(repr, arr.tolist()))
        nan = np.isnan(arr)
        if nan.any():
            for i in np.flatnonzero(nan).tolist():
                cells[i] = ""
        return cells, False
    if arr is not None and arr.dtype.kind in "iub":
        return list(map(str, arr.tolist())), False
    cells = values.tolist() if arr is not None else list(values)
    if not set(map(type, cells)) <= {str}:  # strings (the usual case) are their own cells
        cells = ["" if (x is None or (isinstance(x, float) and x != x)) else str(x) for x in cells]
    text = "".join(cells)
    return cells, any(c in text for c in _CSV_SPECIAL)


_CSV_SPECIAL = (",", '"', "\n", "\r")
"""Characters that make the ``csv`` module quote a cell (minimal quoting)."""


def write_jobs_csv(columns: dict, path: str | Path) -> None:
    """Write columns (:func:`jobs_columns`) as CSV, byte for byte what ``DataFrame.to_csv(path, index=False)`` writes.

    A block of rows at a time: each column becomes one ``%`` field and its values
    (:func:`_csv_field`), and the rows are one ``%`` format applied to each row; when a
    cell needs quotes, the block's cells (:func:`_csv_cells`) go through
    :func:`csv.writer` (minimal quoting, ``\\n`` line ends) as pandas does. With the C
    extension (:mod:`vcsched.native`), its ``csv_rows`` writes each block whose cells need no
    quotes (the same text: :func:`_native_column`).
    """
    import csv

    values = list(columns.values())
    n = len(values[0]) if values else 0
    native = speedups()
    step = _CSV_ROWS_NATIVE if native is not None else _CSV_ROWS
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerow(list(columns))
        for a in range(0, n, step):  # a block of rows at a time: the cells of a whole table take much memory
            block = [v[a:a + step] for v in values]
            if native is not None:
                typed = [_native_column(v) for v in block]
                text = native.csv_rows([c for _, c in typed], "".join(k for k, _ in typed))
                if text is not None:
                    fh.flush()
                    fh.buffer.write(text)
                    continue
            fields = [_csv_field(v) for v in block]
            if any(f is None for f in fields):
                writer.writerows(zip(*(_csv_cells(v)[0] for v in block)))
                continue
            row = ",".join(f for f, _ in fields)
            fh.write("\n".join(map(row.__mod__, zip(*(c for _, c in fields)))))
            fh.write("\n")


_CSV_ROWS_NATIVE = 1 << 16
"""Rows per block written by the C extension's ``csv_rows``."""


def _native_column(values) -> tuple[str, object]:
    """One column of a block for the C extension's ``csv_rows``: ``("f", float64 array)`` (each cell the float's
    ``repr``, NaN empty), ``("i", int64 array)``, or ``("s", list)`` (strings, written as they are; ``csv_rows``
    declines the block when a cell is not a str or needs quotes)."""
    if isinstance(values, np.ndarray):
        kind = values.dtype.kind
        if kind == "f":
            return "f", np.ascontiguousarray(values, dtype=np.float64)
        if kind == "i" or (kind == "u" and (values.size == 0 or int(values.max()) < 2**63)):
            return "i", np.ascontiguousarray(values, dtype=np.int64)
        if kind in "OU":
            return "s", values.tolist()
        return "s", _csv_cells(values)[0]
    return "s", values if isinstance(values, list) else list(values)


def _csv_field(values) -> tuple[str, list] | None:
    """One column of a block as a ``%`` field and the values it formats, or None when a cell needs quotes.

    A float column whose values are all integers below 10**16 in magnitude (no NaN, no
    ``-0.0``) is ``%d.0`` over those integers, which is their ``repr`` (most time columns
    of SWF traces); integers are ``%d``; any other column is ``%s`` over its cells
    (:func:`_csv_cells`).
    """
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            whole = np.abs(values) < _REPR_INTEGRAL_BELOW
            ints = np.where(whole, values, 0.0).astype(np.int64)
        if whole.all() and (ints == values).all() and not (np.signbit(values) & (values == 0)).any():
            return "%d.0", ints.tolist()
    elif isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return "%d", values.tolist()
    cells, quote = _csv_cells(values)
    return None if quote else ("%s", cells)


_REPR_INTEGRAL_BELOW = 1e16
"""Below this magnitude, ``repr`` of an integral float is its integer followed by ``.0`` (from 1e16 on it is ``1e+16``)."""


_CSV_ROWS = 4096


def _metrics_of(submit, start, finish, procs, capacity: int) -> dict:
    n = int(submit.size)
    if n == 0:
        return {"jobs": 0, "mean_wait": None, "max_wait": None, "mean_response": None, "mean_bsld": None,
                "utilization": None, "makespan": None, "max_stretch": None}
    wait = start - submit
    run = finish - start
    response = finish - submit
    bsld = bounded_slowdown(response, run)
    makespan = float(finish.max() - submit.min())
    util = float((procs * run).sum() / (capacity * makespan)) if makespan > 0 else None
    return {"jobs": n, "mean_wait": float(wait.mean()), "max_wait": float(wait.max()),
            "mean_response": float(response.mean()), "mean_bsld": float(bsld.mean()),
            "utilization": util, "makespan": makespan, "max_stretch": max_stretch(response, run)}


def metrics(result) -> dict:
    """Metrics overall and per cluster: ``{"overall": {...}, "clusters": {name: {...}}}``.

    Keys of each entry: ``jobs, mean_wait, max_wait, mean_response, mean_bsld, utilization,
    makespan, max_stretch`` (seconds; utilization in [0, 1]; ``max_stretch`` is the largest
    ``response / execution`` over the jobs of positive execution time, None without such a job). A job is counted on the cluster where it ran.
    """
    jobs = result.jobs
    ran = ~np.isnan(result.finish)
    out = {"overall": _metrics_of(jobs.submit[ran], result.start[ran], result.finish[ran], jobs.procs[ran],
                                  sum(c.procs for c in result.clusters)),
           "clusters": {}}
    for k, c in enumerate(result.clusters):
        m = ran & (result.cluster == k)
        out["clusters"][c.name] = _metrics_of(jobs.submit[m], result.start[m], result.finish[m], jobs.procs[m],
                                              c.procs)
    return out


def write_jobs(result, path: str | Path, *, layout: str = "batsim") -> None:
    """Write the per-job table as CSV (``.csv``) or Parquet (``.parquet``/``.pq``).

    ``layout="legacy"`` writes the old column names (:data:`LEGACY_JOBS_COLUMNS`).
    """
    path = Path(path)
    _check_layout(layout)
    suffix = path.suffix.lower()
    if suffix not in (".parquet", ".pq", ".csv", ""):
        raise InvalidInputError(f"{path}: unknown output format {suffix!r}; use .csv or .parquet")
    if suffix in (".parquet", ".pq"):
        out = jobs_frame(result, layout=layout)
        key = "jobID" if layout == "legacy" else "job_id"
        out[key] = out[key].astype(str)
        out.to_parquet(path, index=False)
    else:
        write_jobs_csv(jobs_columns(result, layout=layout, text_ids=False), path)


_GANTT_TICK = 1.0 / 64


def _quantize_times(frame):
    """Times on a grid of 1/64 s, so that evalys' own sums are exact.

    evalys recomputes ``start = submission + waiting`` and ``finish = start + execution``
    after rounding to 6 decimals; with times such as ``x / 1.2`` the sums miss by an ulp,
    a job's end no longer coincides with the start of the next one, and the utilisation
    curve shows spikes above the cluster's size. Multiples of 1/64 have at most six
    decimals and add exactly; rounding is monotone, so no start moves before an end.
    """
    out = frame.copy()
    for col in ("submission_time", "starting_time", "finish_time"):
        out[col] = np.round(out[col].to_numpy(dtype=float) / _GANTT_TICK) * _GANTT_TICK
    out["waiting_time"] = out["starting_time"] - out["submission_time"]
    out["execution_time"] = out["finish_time"] - out["starting_time"]
    out["turnaround_time"] = out["finish_time"] - out["submission_time"]
    return out


GANTT_MAX_JOBS = 2000
"""Most jobs :func:`draw_gantt` draws by default: above it, the window of the first ones (a whole trace is a solid
block, and evalys takes minutes: 273 s for KTH's 28,000 jobs)."""


def gantt_window(frame, max_jobs: int | None):
    """The jobs of ``frame`` (Batsim layout) started before the ``max_jobs + 1``-th start, and that start
    (``None`` when every job is kept)."""
    if max_jobs is None or len(frame) <= max_jobs:
        return frame, None
    end = float(frame["starting_time"].sort_values(kind="stable").iloc[max_jobs])
    return frame[frame["starting_time"] < end], end


def draw_gantt(result, path: str | Path, *, max_jobs: int | None = GANTT_MAX_JOBS) -> float | None:
    """Draw the schedule with evalys: per cluster that ran jobs, a Gantt chart and its utilisation.

    The per-job table (:func:`jobs_frame`, Batsim layout) of each cluster becomes an
    ``evalys.jobset.JobSet`` with the cluster's processors as resource bounds; evalys
    draws the Gantt chart (``evalys.visu.legacy.plot_gantt``) and the utilisation over
    time (``plot_load``). The figure is written with matplotlib's Agg backend (PNG, SVG
    or PDF by the suffix of ``path``). evalys is imported only here.

    Jobs of zero execution time are left out (they have no area), and times are put on a
    grid of 1/64 s (:func:`_quantize_times`) so that evalys' utilisation is exact. With more
    than ``max_jobs`` jobs (default :data:`GANTT_MAX_JOBS`; ``None``: all), only those started
    before the ``max_jobs + 1``-th start are drawn (:func:`gantt_window`), and the titles say so;
    the end of that window is returned (``None`` when all are drawn). ``grid simulate --days D``
    chooses another window.

    Raises
    ------
    InvalidInputError
        When evalys is not installed, or no job ran for a positive time.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from evalys.jobset import JobSet
        from evalys.visu import legacy
        from procset import ProcSet
    except ImportError as exc:
        raise InvalidInputError(f"--gantt needs evalys ({exc}); pip install 'evalys>=4.0.7'") from None
    frame = jobs_frame(result)
    frame = _quantize_times(frame[(frame["success"] == 1) & (frame["execution_time"] > 0)])  # zero-length: no area
    frame, window_end = gantt_window(frame, max_jobs)
    window = "" if window_end is None else f" (jobs started before t = {window_end:.0f} s)"
    drawn = [(k, c) for k, c in enumerate(result.clusters) if (frame["cluster"] == c.name).any()]
    if not drawn:
        raise InvalidInputError("no job ran for a positive time: there is no Gantt chart to draw")
    fig, axes = plt.subplots(nrows=2 * len(drawn), ncols=1, figsize=(12, 5 * len(drawn)), squeeze=False)
    try:
        for row, (_k, cluster) in enumerate(drawn):
            part = frame[frame["cluster"] == cluster.name].copy()
            part["allocated_resources"] = part["allocated_resources"].map(ProcSet.from_str)
            jobset = JobSet(part, resource_bounds=(0, cluster.procs - 1))
            legacy.plot_gantt(jobset, ax=axes[2 * row, 0], title=f"Gantt chart: {cluster.name}{window}")
            legacy.plot_load(jobset.utilisation, cluster.procs, ax=axes[2 * row + 1, 0],
                             legend_label="utilisation")
            axes[2 * row + 1, 0].set_title(f"Utilisation: {cluster.name}{window}")
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)
    return window_end
