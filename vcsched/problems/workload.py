"""Workloads of rigid parallel jobs: the Standard Workload Format (SWF), job model, time windows.

A :class:`Workload` is a set of jobs stored as numpy columns (one entry per job, in
submission order) plus the SWF header it came from. It is the input of the batch
simulator (:mod:`vcsched.sim`), which reproduces the experimental framework of the
seed paper (§3.1 simulator, §3.3 scenarios built from real traces).

Job model
---------
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

Field validation (every reader; ``docs/formats.md``)
----------------------------------------------------
A line that breaks one of these rules is an error naming the file, the line and the
field, or, with ``skip_bad_lines=True`` (``--skip-bad-lines``), is dropped and counted
like a malformed line:

* every one of the 18 fields is a finite number (``nan``/``inf`` are refused);
* field 1 (job id) is an integer of magnitude at most 2**53;
* field 2 (submit time) is in ``[0, 1e12]`` seconds;
* field 4 (run time) is at most ``1e12`` s (a negative run time skips the job, above);
* fields 5 and 8 (processors) are integers at most ``1e9`` (``<= 0``: unknown / skipped);
* field 9 (requested time) is ``-1`` (unknown) or in ``[0, 1e12]`` s.

Batsim JSON workloads
---------------------
:func:`read_batsim_json` reads ``{"nb_res": N, "jobs": [{"id", "subtime", "res",
"walltime", "profile"}], "profiles": {name: {"type": "delay", "delay": seconds}}}``:
a job runs the ``delay`` of its profile; ``walltime`` (optional, ``-1`` = none) is its
requested time; ``nb_res`` becomes ``MaxProcs``. The delay type is ``delay`` or Batsim 5's
``DelayProfile``; a job ``id`` is an integer or a string holding one, also as Batsim's
``workload!id``; ``extra_data`` (jobs, profiles) and ``ret`` (profiles) are ignored. Profiles
of another type (``parallel``, ``ParallelTaskProfile``, ``composed``, ...) are refused: the
simulator models a job by its run time only. :func:`read_workload` picks the reader by the
file name (``.json``: Batsim, else SWF); :func:`vcsched.problems.batsim_writer.write_batsim_json` writes one.

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
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.jsonfile import check_keys, int_field, load_json, number_field, read_input_bytes
from vcsched.problems.swf_fast import parse_fast

__all__ = [
    "SWF_FIELDS",
    "Workload",
    "read_swf",
    "read_batsim_json",
    "read_workload",
    "TIME_LIMIT",
    "PROCS_LIMIT",
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
TIME_LIMIT = 1e12
"""Largest submit, run or requested time accepted (seconds, about 31,700 years)."""
PROCS_LIMIT = 10**9
"""Largest processor count accepted in a job."""
_ID_LIMIT = 2.0**53
HEADER_DIGITS = 18
"""Most digits of a ``MaxProcs`` / ``MaxNodes`` header value (Python refuses to convert 4,300)."""


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
    profiles : tuple of str
        The profile names of a Batsim workload; a job's field 14 (the SWF "executable
        number") is then the 1-based index of its profile here (:attr:`profile`). Empty for SWF.
    """

    fields: np.ndarray
    header: tuple = ()
    max_procs: int | None = None
    max_nodes: int | None = None
    source: str = ""
    skipped: int = 0
    profiles: tuple = ()

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
    def profile(self) -> np.ndarray:
        """Each job's profile name (``""`` when the workload names none, e.g. SWF)."""
        names = np.array(("",) + tuple(self.profiles), dtype=object)
        if not self.profiles:
            return names[np.zeros(len(self), dtype=np.int64)]
        return names[np.clip(self.fields[:, 13], 0, len(self.profiles)).astype(np.int64)]

    @property
    def effective_run_time(self) -> np.ndarray:
        """``min(run time, requested time)``: the time the job really runs (killed at its walltime)."""
        return np.minimum(self.run_time, self.requested_time)

    @property
    def machine_size(self) -> int | None:
        """``MaxProcs`` when the header gives it, else ``MaxNodes``, else None."""
        return self.max_procs if self.max_procs is not None else self.max_nodes

    def select(self, mask: np.ndarray) -> Workload:
        """A workload with the jobs where ``mask`` is true (same header)."""
        return dataclasses.replace(self, fields=self.fields[np.asarray(mask)])


def _open_text(path: Path) -> str:
    """The text of an SWF trace (``.gz``: decompressed), read by the toolkit's one input reader."""
    data = read_input_bytes(path, what=".swf or .swf.gz trace")
    return data.decode("utf-8", errors="replace")


def _header_int(header: Iterable[str], key: str, source: str = "") -> int | None:
    """The integer of header line ``key:`` (None when absent or <= 0).

    A value of more than :data:`HEADER_DIGITS` digits is refused (one line); a large
    value that fits is kept, for the command that uses it to judge (``--procs`` may
    override it)."""
    pattern = re.compile(rf"^\s*{key}\s*:\s*(-?\d+)", re.IGNORECASE)
    for line in header:
        m = pattern.match(line)
        if m:
            digits = m.group(1)
            if len(digits.lstrip("-")) > HEADER_DIGITS:
                raise InvalidInputError(f"{source}: header line {key}: an integer of {len(digits.lstrip('-')):,} "
                                        f"digits; at most {HEADER_DIGITS} digits are read (a machine size)")
            value = int(digits)
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


def _parse_slow(path: Path, numbered: list[tuple[int, str]],
                skip_bad_lines: bool) -> tuple[np.ndarray, list[int], int]:
    rows, kept, bad = [], [], 0
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
        kept.append(lineno)
    return np.asarray(rows, dtype=np.float64).reshape(-1, _N_FIELDS), kept, bad


def _is_integer(x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.floor(x) == x


def _field_rules(f: np.ndarray) -> list[tuple[int, np.ndarray, str]]:
    """``(column, invalid rows, what the field must be)`` for each rule of the module docstring."""
    finite = np.isfinite(f)
    rules = [] if finite.all() else [(k, ~finite[:, k], "must be a finite number") for k in range(_N_FIELDS)]
    with np.errstate(invalid="ignore"):
        rules += [
            (0, ~_is_integer(f[:, 0]) | (np.abs(f[:, 0]) > _ID_LIMIT), "must be an integer of magnitude <= 2**53"),
            (1, (f[:, 1] < 0) | (f[:, 1] > TIME_LIMIT), f"must be in [0, {TIME_LIMIT:g}] seconds"),
            (3, f[:, 3] > TIME_LIMIT, f"must be at most {TIME_LIMIT:g} seconds"),
            (4, ~_is_integer(f[:, 4]) | (f[:, 4] > PROCS_LIMIT), f"must be an integer <= {PROCS_LIMIT:g}"),
            (7, ~_is_integer(f[:, 7]) | (f[:, 7] > PROCS_LIMIT), f"must be an integer <= {PROCS_LIMIT:g}"),
            (8, ((f[:, 8] < 0) & (f[:, 8] != -1)) | (f[:, 8] > TIME_LIMIT),
             f"must be -1 (unknown) or in [0, {TIME_LIMIT:g}] seconds"),
        ]
    return rules


def _check_fields(fields: np.ndarray, where, skip_bad_lines: bool, hint: str) -> tuple[np.ndarray, int]:
    """Apply :func:`_field_rules`: raise on the first bad row (``where(row)`` names it), or drop bad rows."""
    rules = _field_rules(fields)
    bad = np.zeros(fields.shape[0], dtype=bool)
    for _, mask, _ in rules:
        bad |= mask
    if not bad.any():
        return fields, 0
    if skip_bad_lines:
        return fields[~bad], int(bad.sum())
    row = int(np.flatnonzero(bad)[0])
    column, _, rule = next(r for r in rules if r[1][row])
    raise InvalidInputError(f"{where(row)}: field {column + 1} ({SWF_FIELDS[column]}) {rule}, got "
                            f"{fields[row, column]:.10g}; {hint}")


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
    Fast path (:func:`vcsched.problems.swf_fast.parse_fast`): the header comments at the top, then data lines of
    ASCII numbers, are converted by numpy on the bytes, or from :data:`~vcsched.problems.swf_fast.COMPILED_FROM_BYTES`
    on by a compiled loop (:mod:`vcsched.problems.swf_compiled`); any other file (a comment
    further down, a line without 18 fields, other characters) is read line by line
    (:func:`_parse_text`), which finds the culprit. Both give the same fields.
    """
    path = Path(path)
    data = read_input_bytes(path, what=".swf or .swf.gz trace")
    fast = parse_fast(data)
    if fast is None:
        header, fields, line_numbers, bad = _parse_text(path, data.decode("utf-8", errors="replace"), skip_bad_lines)
    else:
        header, fields, line_numbers = fast
        bad = 0
    del data, fast  # the file's bytes are no longer needed (their size again, on a large trace)
    fields, invalid = _check_fields(fields.reshape(-1, _N_FIELDS), lambda row: f"{path}:{line_numbers[row]}",
                                    skip_bad_lines, "fix the line or pass skip_bad_lines=True (--skip-bad-lines) "
                                    "to drop it")
    bad += invalid
    if bad:
        log.warning("%s: skipped %d malformed line(s)", path, bad)
    return _finish(fields, header, str(path), bad)


def _parse_text(path: Path, text: str, skip_bad_lines: bool):
    """``(header, fields, line_numbers, bad)``: the line-by-line reader (any file; the error of a bad line)."""
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
        fields, line_numbers, bad = _parse_slow(path, list(zip(line_numbers, data_lines)), skip_bad_lines)
    return header, fields, line_numbers, bad


def _finish(fields: np.ndarray, header: list[str], source: str, bad: int, profiles: tuple = ()) -> Workload:
    fields = fields.reshape(-1, _N_FIELDS)
    procs = np.where(fields[:, 7] > 0, fields[:, 7], fields[:, 4])
    invalid = (procs <= 0) | (fields[:, 3] < 0)
    n_invalid = int(invalid.sum())
    if n_invalid:
        log.info("%s: skipped %d job(s) with processors <= 0 or run time < 0 (PWA advice)", source, n_invalid)
        fields = fields[~invalid]
    submit = fields[:, 1]
    if submit.size > 1 and not (submit[1:] >= submit[:-1]).all():  # a sorted trace is kept as it is (no copy)
        fields = fields[np.argsort(submit, kind="stable")]
    fields = np.ascontiguousarray(fields)
    return Workload(fields=fields, header=tuple(header), max_procs=_header_int(header, "MaxProcs", source),
                    max_nodes=_header_int(header, "MaxNodes", source), source=source, skipped=n_invalid + bad,
                    profiles=tuple(profiles))


_BATSIM_TOP = ("nb_res", "jobs", "profiles", "description", "command", "date", "version")
_BATSIM_JOB = ("id", "subtime", "res", "walltime", "profile", "extra_data")
_BATSIM_DELAY = ("type", "delay", "ret", "extra_data")
BATSIM_DELAY_TYPES = ("delay", "DelayProfile")
"""Names of Batsim's delay profile type: the older one and the one of Batsim 5's workload format."""


def _batsim_id(job: dict, where: str) -> int:
    """The integer id of a job: an integer, or a string holding one, possibly as Batsim's
    ``workload!id`` (the part after the last ``!``)."""
    value = job.get("id")
    if isinstance(value, str):
        try:
            value = int(value.rsplit("!", 1)[-1].strip())
        except ValueError:
            raise InvalidInputError(f"{where}: field 'id' must be an integer (or a string of one), got {job['id']!r}; "
                                    f"vcsched keeps job ids as SWF integers") from None
    return int_field({"id": value}, "id", where=where, required=True, low=-int(_ID_LIMIT), high=int(_ID_LIMIT))


def _batsim_delays(profiles, source: str) -> dict[str, float]:
    """The run time of each profile (``delay`` profiles only)."""
    if not isinstance(profiles, dict):
        raise InvalidInputError(f"{source}: field 'profiles' must be an object {{name: profile}}")
    delays = {}
    for name, profile in profiles.items():
        where = f"{source}: profiles[{name!r}]"
        if not isinstance(profile, dict):
            raise InvalidInputError(f"{where}: expected an object such as {{\"type\": \"delay\", \"delay\": 10}}")
        kind = profile.get("type")
        if kind not in BATSIM_DELAY_TYPES:
            raise InvalidInputError(f"{where}: profile type {kind!r} is not simulated by vcsched; only delay "
                                    f"profiles ('delay' or 'DelayProfile': the job runs 'delay' seconds) can be read")
        check_keys(profile, _BATSIM_DELAY, where=where)
        delays[str(name)] = number_field(profile, "delay", where=where, required=True, low=0, high=TIME_LIMIT)
    return delays


def read_batsim_json(path: str | Path) -> Workload:
    """Read a Batsim JSON workload (see the module docstring) as a :class:`Workload`.

    Each job becomes an SWF row: id, ``subtime`` (field 2), the ``delay`` of its profile as
    run time (field 4), ``res`` as allocated and requested processors (fields 5 and 8),
    ``walltime`` as requested time (field 9, ``-1`` when absent or ``-1``), and its profile
    as field 14 (the index in :attr:`Workload.profiles`, whose names reach ``jobs.csv``);
    ``nb_res`` becomes the header line ``MaxProcs``. The field rules of :func:`read_swf` apply.

    Raises
    ------
    InvalidInputError
        Naming the file and the job or profile: unreadable or malformed JSON, a missing or
        unknown field (with the nearest known name), a value out of range, a profile that
        is not a ``delay`` profile, a job whose profile is not defined, two jobs with the
        same id (after Batsim's ``workload!`` prefix), or a job wider than ``nb_res``.
    """
    source = str(path)
    spec = load_json(path, what="Batsim JSON workload")
    if not isinstance(spec, dict):
        raise InvalidInputError(f"{source}: expected an object {{\"nb_res\": ..., \"jobs\": [...], \"profiles\": {{...}}}}")
    check_keys(spec, _BATSIM_TOP, where=source)
    nb_res = int_field(spec, "nb_res", where=source, required=True, low=1, high=PROCS_LIMIT)
    jobs = spec.get("jobs")
    if not isinstance(jobs, list):
        raise InvalidInputError(f"{source}: field 'jobs' is required and must be a list of jobs")
    delays = _batsim_delays(spec.get("profiles", {}), source)
    names = {name: k + 1 for k, name in enumerate(delays)}  # field 14: the profile's 1-based index
    fields = np.full((len(jobs), _N_FIELDS), -1.0)
    seen: dict[int, int] = {}  # job id -> index of the job that has it
    for k, job in enumerate(jobs):
        where = f"{source}: jobs[{k}]"
        if not isinstance(job, dict):
            raise InvalidInputError(f"{where}: expected an object with id, subtime, res, walltime, profile")
        check_keys(job, _BATSIM_JOB, where=where)
        profile = job.get("profile")
        if profile is None:
            raise InvalidInputError(f"{where}: field 'profile' is required")
        if str(profile) not in delays:
            raise InvalidInputError(f"{where}: profile {profile!r} is not defined in 'profiles'")
        walltime = number_field(job, "walltime", where=where, default=-1.0, high=TIME_LIMIT)
        if walltime < 0 and walltime != -1:
            raise InvalidInputError(f"{where}: field 'walltime' must be -1 (none) or >= 0, got {job['walltime']!r}")
        res = int_field(job, "res", where=where, required=True, low=1, high=PROCS_LIMIT)
        if res > nb_res:
            raise InvalidInputError(f"{where}: 'res' {res} is more than the platform's 'nb_res' {nb_res}; the job could "
                                    "never run: lower its 'res' or raise 'nb_res'")
        job_id = _batsim_id(job, where)
        if job_id in seen:
            raise InvalidInputError(f"{where}: job id {job_id} is also the id of jobs[{seen[job_id]}]; give every job "
                                    "its own id")
        seen[job_id] = k
        fields[k, [0, 1, 3, 4, 7, 8, 13]] = (job_id, number_field(
            job, "subtime", where=where, required=True, low=0, high=TIME_LIMIT), delays[str(profile)], res, res,
            walltime, names[str(profile)])
    fields, _ = _check_fields(fields, lambda row: f"{source}: jobs[{row}]", False, "fix the job")
    header = [f"MaxProcs: {nb_res}", f"Converted from the Batsim JSON workload {Path(source).name}"]
    return _finish(fields, header, source, 0, profiles=tuple(delays))


def read_workload(path: str | Path, *, skip_bad_lines: bool = False) -> Workload:
    """Read a trace by its name: ``.json`` is a Batsim workload (:func:`read_batsim_json`), anything
    else SWF (:func:`read_swf`; ``skip_bad_lines`` applies to SWF only)."""
    if str(path).lower().endswith(".json"):
        return read_batsim_json(path)
    return read_swf(path, skip_bad_lines=skip_bad_lines)


def from_arrays(submit_time, run_time, requested_time, processors, *, job_id=None, header=(),
                max_procs: int | None = None, source: str = "arrays") -> Workload:
    """Build a workload from columns (requested time ``-1`` = unknown, as in SWF).

    Jobs with processors <= 0 or run time < 0 are skipped like in :func:`read_swf`; values that
    break the field rules of the module docstring raise :class:`InvalidInputError`.
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
    fields, _ = _check_fields(fields, lambda row: f"{source}: job {row}", False, "fix the values")
    hdr = list(header)
    if max_procs is not None and _header_int(hdr, "MaxProcs") is None:
        hdr.append(f"MaxProcs: {int(max_procs)}")
    return _finish(fields, hdr, source, 0)


def format_value(v: float) -> str:
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
        buf.write(" ".join(format_value(v) for v in row))
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
