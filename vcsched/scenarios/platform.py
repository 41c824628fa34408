"""Platform files of ``vcsched grid simulate --platform``: clusters, their traces, the meta-scheduler.

Format (JSON, read with :func:`vcsched.problems.jsonfile.load_json`)::

    {"clusters": [{"name": "bordeaux", "procs": 640, "speed": 1.0, "policy": "cbf",
                   "trace": "CTC-SP2-1996-3.1-cln.swf.gz", "days": 10}],
     "meta": "mct"}

Fields and ranges (``docs/formats.md``; any other key is refused with the nearest known name):

* ``clusters`` (required, non-empty list); ``meta`` (optional string, default ``"mct"``;
  ``"none"``/``"origin"`` keeps every job on its origin cluster).
* per cluster: ``procs`` (required integer in ``[1, 10**7]``), ``name`` (string, default
  ``cluster<k>``, unique), ``speed`` (number in ``(0, 1e6]``, default 1), ``policy``
  (``fcfs``, ``cbf`` or ``easy``, default ``fcfs``), ``trace`` (optional: an SWF file or a
  Batsim JSON workload, see :func:`vcsched.problems.workload.read_workload`; a bare file
  name is looked up with :func:`vcsched.data.trace_path`), and the window of that trace:
  ``start``/``end`` (seconds in ``[0, 1e12]``, trace clock) and ``days`` (in ``(0, 36500]``;
  not with ``end``).

Every error is one line naming the file, the cluster (index and name) and the field.
"""

from __future__ import annotations

import os
from typing import Any

from vcsched.errors import InvalidInputError
from vcsched.problems.jsonfile import check_keys, int_field, load_json, number_field

__all__ = ["load_platform", "read_trace", "PLATFORM_KEYS", "CLUSTER_KEYS", "MAX_CLUSTER_PROCS", "MAX_SPEED",
           "MAX_DAYS"]

PLATFORM_KEYS = ("clusters", "meta")
CLUSTER_KEYS = ("name", "procs", "speed", "policy", "trace", "start", "end", "days")
MAX_CLUSTER_PROCS = 10**7
MAX_SPEED = 1e6
MAX_DAYS = 36500.0
_MAX_TIME = 1e12


def read_trace(trace: str, window: dict, *, skip_bad_lines: bool, where: str):
    """Read one trace (SWF or Batsim JSON) and cut its window (``start``, ``end``, ``days`` of ``window``).

    ``where`` names the source in errors (``--trace`` or ``platform.json: clusters[0] (kth)``).
    An empty trace and an empty window are errors that say which one it is. The window keeps
    the trace's :attr:`~vcsched.problems.workload.Workload.skipped` count.
    """
    from vcsched.data import trace_path
    from vcsched.problems.workload import read_workload, time_window

    try:
        path = trace_path(trace)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    if os.path.isdir(path):
        raise InvalidInputError(f"{where}: trace {trace}: is a directory; give an .swf, .swf.gz or .json file")
    w = read_workload(path, skip_bad_lines=skip_bad_lines)
    if len(w) == 0:
        raise InvalidInputError(f"{where}: trace {trace} holds no job to simulate (empty, or every job skipped)")
    if any(window.get(k) is not None for k in ("start", "end", "days")):
        w = time_window(w, start=window.get("start"), end=window.get("end"), days=window.get("days"))
        if len(w) == 0:
            raise InvalidInputError(f"{where}: no job left in {trace} after the time window; widen --start/--end/--days")
    return w


def _cluster(c: Any, k: int, path: str, names: set[str]) -> tuple[str, dict]:
    where = f"{path}: clusters[{k}]"
    if not isinstance(c, dict):
        raise InvalidInputError(f"{where}: expected an object with name, procs, speed, policy, trace")
    name = c.get("name", f"cluster{k}")
    if not isinstance(name, str) or not name:
        raise InvalidInputError(f"{where}: field 'name' must be a non-empty string, got {name!r}")
    where = f"{path}: clusters[{k}] ({name})"
    if name in names:
        raise InvalidInputError(f"{where}: the name {name!r} is used by another cluster; give each cluster its own")
    names.add(name)
    check_keys(c, CLUSTER_KEYS, where=where)
    policy = c.get("policy", "fcfs")
    if not isinstance(policy, str):
        raise InvalidInputError(f"{where}: field 'policy' must be one of fcfs, cbf, easy, got {policy!r}")
    trace = c.get("trace")
    if trace is not None and (not isinstance(trace, str) or not trace):
        raise InvalidInputError(f"{where}: field 'trace' must be a file name, got {trace!r}")
    spec = {"procs": int_field(c, "procs", where=where, required=True, low=1, high=MAX_CLUSTER_PROCS),
            "speed": number_field(c, "speed", where=where, default=1.0, low=0, low_open=True, high=MAX_SPEED),
            "policy": policy, "trace": trace,
            "start": number_field(c, "start", where=where, low=0, high=_MAX_TIME),
            "end": number_field(c, "end", where=where, low=0, high=_MAX_TIME),
            "days": number_field(c, "days", where=where, low=0, low_open=True, high=MAX_DAYS)}
    if spec["days"] is not None and spec["end"] is not None:
        raise InvalidInputError(f"{where}: give either 'end' or 'days', not both")
    if spec["start"] is not None and spec["end"] is not None and spec["end"] <= spec["start"]:
        raise InvalidInputError(f"{where}: 'end' ({spec['end']:g}) must be after 'start' ({spec['start']:g})")
    return name, spec


def load_platform(path: str, *, skip_bad_lines: bool = False, shift: bool = True):
    """Read a platform file: returns ``(clusters, workloads, origins, labels, meta_name)``.

    ``workloads[i]`` is the (windowed) trace of cluster ``origins[i]``, named ``labels[i]``.
    With ``shift`` and several traces, each trace is shifted so that its first job is
    submitted at time 0 (seed §3.3 builds one scenario from several traces).

    Raises
    ------
    InvalidInputError
        One line naming the file (and the cluster and field): unreadable file (missing, a
        directory, binary, UTF-16, malformed JSON, ``NaN``/``Infinity``), an unknown key,
        a value out of range, no cluster with a trace.
    """
    from vcsched.problems.workload import shift_to_origin
    from vcsched.sim import make_cluster

    path = os.fspath(path)
    spec = load_json(path, what="platform file")
    if not isinstance(spec, dict) or not isinstance(spec.get("clusters"), list) or not spec["clusters"]:
        raise InvalidInputError(f"{path}: expected an object with a non-empty \"clusters\" list")
    check_keys(spec, PLATFORM_KEYS, where=path)
    meta = spec.get("meta", "mct")
    if meta is not None and not isinstance(meta, str):
        raise InvalidInputError(f"{path}: field 'meta' must be a name such as \"mct\", got {meta!r}")
    clusters, workloads, origins, labels, names = [], [], [], [], set()
    for k, c in enumerate(spec["clusters"]):
        name, cs = _cluster(c, k, path, names)
        where = f"{path}: clusters[{k}] ({name})"
        try:
            clusters.append(make_cluster(name, cs["procs"], cs["speed"], cs["policy"]))
        except InvalidInputError as exc:
            raise InvalidInputError(f"{path}: {exc}") from None
        if cs["trace"]:
            workloads.append(read_trace(cs["trace"], cs, skip_bad_lines=skip_bad_lines, where=where))
            origins.append(k)
            labels.append(name)
    if not workloads:
        raise InvalidInputError(f"{path}: no cluster has a \"trace\"; give at least one")
    if shift and len(workloads) > 1:
        workloads = [shift_to_origin(w, 0.0) for w in workloads]
    return clusters, workloads, origins, labels, meta
