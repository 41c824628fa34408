"""Workloads of rigid parallel jobs: the Standard Workload Format (SWF), job model, time windows.

A :class:`Workload` is a set of jobs stored as numpy columns (one entry per job, in
submission order) plus the SWF header it came from. It is the input of the batch
simulator (:mod:`vcsched.sim`), which reproduces the experimental framework of the
seed paper (§3.1 simulator, §3.3 scenarios built from real traces).

Job model (issue 10)
--------------------
* processors: SWF field 8 (requested processors) when positive, else field 5
  (allocated processors);
* requested time (walltime): SWF field 9; when it is ``-1`` (unknown) the run time
  (field 4) is used;
* a job **runs** ``min(run time, requested time)``: a real batch system kills a job
  at its walltime. :attr:`Workload.run_time` holds the uncapped field 4 value and
  :attr:`Workload.effective_run_time` the capped one.
* Jobs with processors <= 0 or run time < 0 are skipped and counted (as the
  Parallel Workloads Archive advises); the count is in :attr:`Workload.skipped`
  and in the ``vcsched.workload`` log.

SWF fields (1-based): 1 job id, 2 submit time, 3 wait time, 4 run time,
5 allocated processors, 6 average CPU time, 7 used memory, 8 requested processors,
9 requested time, 10 requested memory, 11 status, 12 user, 13 group, 14 executable,
15 queue, 16 partition, 17 preceding job, 18 think time. ``-1`` means unknown.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import logging
import re
from pathlib import Path
from typing import Iterable

import numpy as np

from vcsched.errors import InvalidInputError

__all__ = [
    "SWF_FIELDS",
    "Workload",
    "read_swf",
    "write_swf",
    "from_arrays",
    "time_window",
    "shift_to_origin",
    "merge_shifted",
]

log = logging.getLogger("vcsched.workload")

SWF_FIELDS = (
    "job_id", "submit_time", "wait_time", "run_time", "allocated_processors", "average_cpu_time",
    "used_memory", "requested_processors", "requested_time", "requested_memory", "status", "user_id",
    "group_id", "executable", "queue", "partition", "preceding_job", "think_time",
)
_N_FIELDS = 18
_DAY = 86400.0


@dataclasses.dataclass(frozen=True)
class Workload:
    """Jobs of a trace as numpy columns (index ``i`` = the ``i``-th job in submission order).

    Attributes
    ----------
    fields : ndarray, shape (n, 18), float64
        The 18 SWF fields of each kept job (``-1`` for unknown), used to write the trace back.
    job_id, submit_time, run_time, requested_time, processors : ndarray
        The job model (see the module docstring): ``processors`` is field 8 or 5,
        ``requested_time`` is field 9 or the run time when field 9 is ``-1``.
    header : tuple of str
        Header comment lines, without the leading ``;``.
    max_procs, max_nodes : int or None
        ``MaxProcs`` / ``MaxNodes`` from the header (leading integer), None when absent.
    source : str
        File name (or a label) the jobs came from.
    skipped : int
        Jobs dropped because processors <= 0 or run time < 0 (plus bad lines when skipped).
    """

    fields: np.ndarray
    header: tuple = ()
    max_procs: int | None = None
    max_nodes: int | None = None
    source: str = ""
    skipped: int = 0

    def __len__(self) -> int:
        return int(self.fields.shape[0])

    @property
    def job_id(self) -> np.ndarray:
        return self.fields[:, 0].astype(np.int64)

    @property
    def submit_time(self) -> np.ndarray:
        return self.fields[:, 1]

    @property
    def run_time(self) -> np.ndarray:
        return self.fields[:, 3]

    @property
    def processors(self) -> np.ndarray:
        req, alloc = self.fields[:, 7], self.fields[:, 4]
        return np.where(req > 0, req, alloc).astype(np.int64)

    @property
    def requested_time(self) -> np.ndarray:
        req = self.fields[:, 8]
        return np.where(req == -1, self.fields[:, 3], req)

    @property
    def effective_run_time(self) -> np.ndarray:
        """``min(run time, requested time)``: the time the job really runs (killed at its walltime)."""
        return np.minimum(self.run_time, self.requested_time)

    @property
    def machine_size(self) -> int | None:
        """``MaxProcs`` when the header gives it, else ``MaxNodes``, else None."""
        return self.max_procs if self.max_procs is not None else self.max_nodes

    def select(self, mask: np.ndarray) -> "Workload":
        """A workload with the jobs where ``mask`` is true (same header)."""
        return dataclasses.replace(self, fields=self.fields[np.asarray(mask)])


def _open_text(path: Path) -> str:
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rb") as fh:
            return fh.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        raise InvalidInputError(f"{path}: no such file; give the path of an .swf or .swf.gz trace") from None
    except (OSError, EOFError) as exc:
        raise InvalidInputError(f"{path}: cannot read it ({exc}); check that it is a valid .swf or .swf.gz file") from None


def _header_int(header: Iterable[str], key: str) -> int | None:
    pattern = re.compile(rf"^\s*{key}\s*:\s*(-?\d+)", re.IGNORECASE)
    for line in header:
        m = pattern.match(line)
        if m:
            value = int(m.group(1))
            return value if value > 0 else None
    return None


def _parse_line(text: str) -> list[float] | None:
    parts = text.split()
    if len(parts) != _N_FIELDS:
        return None
    try:
        return [float(x) for x in parts]
    except ValueError:
        return None


def _parse_slow(path: Path, numbered: list[tuple[int, str]], skip_bad_lines: bool) -> tuple[np.ndarray, int]:
    rows, bad = [], 0
    for lineno, text in numbered:
        row = _parse_line(text)
        if row is None:
            if not skip_bad_lines:
                raise InvalidInputError(
                    f"{path}:{lineno}: malformed SWF line (expected 18 numeric fields, got "
                    f"{len(text.split())}: {text.strip()[:60]!r}); fix the line or pass skip_bad_lines=True "
                    f"(--skip-bad-lines) to drop it")
            bad += 1
            continue
        rows.append(row)
    return np.asarray(rows, dtype=np.float64).reshape(-1, _N_FIELDS), bad


def read_swf(path: str | Path, *, skip_bad_lines: bool = False) -> Workload:
    """Read an SWF trace (``.swf`` or ``.swf.gz``).

    Parameters
    ----------
    path : str or Path
    skip_bad_lines : bool, default False
        Drop malformed lines (counted in :attr:`Workload.skipped` and logged) instead of
        raising.

    Returns
    -------
    Workload
        Jobs sorted by submit time (stable, so file order breaks ties), without the jobs
        with processors <= 0 or run time < 0.

    Raises
    ------
    InvalidInputError
        On a malformed line (naming the file and the line number) or an unreadable file.

    Notes
    -----
    Fast path: all data lines are converted at once by numpy; only when the field count
    does not come out right is the file re-parsed line by line to find the culprit.
    """
    path = Path(path)
    text = _open_text(path)
    header: list[str] = []
    data_lines: list[str] = []
    line_numbers: list[int] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            header.append(stripped[1:].strip())
            continue
        data_lines.append(stripped)
        line_numbers.append(lineno)
    fields = None
    if data_lines:
        counts_ok = all(len(s.split()) == _N_FIELDS for s in data_lines)
        if counts_ok:
            try:
                flat = np.array(" ".join(data_lines).split(), dtype=np.float64)
                fields = flat.reshape(-1, _N_FIELDS)
            except ValueError:
                fields = None
    bad = 0
    if fields is None:
        fields, bad = _parse_slow(path, list(zip(line_numbers, data_lines)), skip_bad_lines)
        if bad:
            log.warning("%s: skipped %d malformed line(s)", path, bad)
    return _finish(fields, header, str(path), bad)


def _finish(fields: np.ndarray, header: list[str], source: str, bad: int) -> Workload:
    fields = fields.reshape(-1, _N_FIELDS)
    procs = np.where(fields[:, 7] > 0, fields[:, 7], fields[:, 4])
    invalid = (procs <= 0) | (fields[:, 3] < 0)
    n_invalid = int(invalid.sum())
    if n_invalid:
        log.info("%s: skipped %d job(s) with processors <= 0 or run time < 0 (PWA advice)", source, n_invalid)
        fields = fields[~invalid]
    order = np.argsort(fields[:, 1], kind="stable")
    fields = np.ascontiguousarray(fields[order])
    return Workload(fields=fields, header=tuple(header), max_procs=_header_int(header, "MaxProcs"),
                    max_nodes=_header_int(header, "MaxNodes"), source=source, skipped=n_invalid + bad)


def from_arrays(submit_time, run_time, requested_time, processors, *, job_id=None, header=(),
                max_procs: int | None = None, source: str = "arrays") -> Workload:
    """Build a workload from columns (requested time ``-1`` = unknown, as in SWF).

    Jobs with processors <= 0 or run time < 0 are skipped like in :func:`read_swf`.
    """
    submit = np.asarray(submit_time, dtype=np.float64).ravel()
    n = submit.size
    fields = np.full((n, _N_FIELDS), -1.0)
    fields[:, 0] = np.arange(1, n + 1) if job_id is None else np.asarray(job_id, dtype=np.float64)
    fields[:, 1] = submit
    fields[:, 3] = np.asarray(run_time, dtype=np.float64)
    fields[:, 7] = np.asarray(processors, dtype=np.float64)
    fields[:, 4] = fields[:, 7]
    fields[:, 8] = np.asarray(requested_time, dtype=np.float64)
    hdr = list(header)
    if max_procs is not None and _header_int(hdr, "MaxProcs") is None:
        hdr.append(f"MaxProcs: {int(max_procs)}")
    return _finish(fields, hdr, source, 0)


def _format_value(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def write_swf(workload: Workload, path: str | Path) -> None:
    """Write a workload as SWF (gzip-compressed when ``path`` ends with ``.gz``).

    The header lines (including ``MaxProcs``/``MaxNodes``) are written back as ``;``
    comments, then one line of 18 fields per job (integers where the value is integral).
    """
    path = Path(path)
    buf = io.StringIO()
    for line in workload.header:
        buf.write(f"; {line}\n" if line else ";\n")
    for row in workload.fields:
        buf.write(" ".join(_format_value(v) for v in row))
        buf.write("\n")
    data = buf.getvalue().encode("utf-8")
    if path.name.endswith(".gz"):
        with gzip.open(path, "wb") as fh:
            fh.write(data)
    else:
        path.write_bytes(data)


def time_window(workload: Workload, *, start: float | None = None, end: float | None = None,
                days: float | None = None) -> Workload:
    """Jobs submitted in ``[start, end)`` (seconds, in the trace's own clock).

    ``start`` defaults to the first submit time; ``days`` gives ``end = start + days * 86400``
    (it cannot be combined with ``end``). The jobs are not shifted: see :func:`shift_to_origin`.
    """
    if days is not None and end is not None:
        raise InvalidInputError("time_window: give either end or days, not both")
    if days is not None and days <= 0:
        raise InvalidInputError(f"time_window: days must be positive, got {days}")
    submit = workload.submit_time
    if start is None:
        start = float(submit[0]) if len(submit) else 0.0
    if days is not None:
        end = start + days * _DAY
    mask = submit >= start
    if end is not None:
        mask &= submit < end
    return workload.select(mask)


def shift_to_origin(workload: Workload, origin: float = 0.0, *, reference: float | None = None) -> Workload:
    """Shift submit times so that ``reference`` (default: the first submit time) becomes ``origin``.

    Used to overlay several traces (or windows of one trace) in a multi-site scenario
    (seed §3.3): shift each to the same origin, then simulate them together.
    """
    if len(workload) == 0:
        return workload
    ref = float(workload.submit_time[0]) if reference is None else float(reference)
    fields = workload.fields.copy()
    fields[:, 1] = fields[:, 1] - ref + origin
    return dataclasses.replace(workload, fields=fields)


def merge_shifted(workloads: list[Workload], origin: float = 0.0) -> list[Workload]:
    """Each workload shifted so that its first submission is at ``origin``."""
    return [shift_to_origin(w, origin) for w in workloads]
