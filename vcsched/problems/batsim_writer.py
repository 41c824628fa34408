"""Batsim JSON workloads written from a :class:`~vcsched.problems.workload.Workload` (the format
:func:`vcsched.problems.workload.read_batsim_json` reads): one ``delay`` profile per distinct run time,
ids and widths checked against ``nb_res``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vcsched.arguments import integer, of_type
from vcsched.errors import InvalidInputError
from vcsched.problems.workload import PROCS_LIMIT, Workload, format_value

__all__ = ["batsim_json", "write_batsim_json"]


def batsim_json(workload: Workload, *, nb_res: int | None = None) -> dict:
    """The workload as a Batsim JSON workload (the document :func:`read_batsim_json` reads).

    One job per row: ``id`` the SWF job id (a string, as Batsim's format has it), ``subtime``
    field 2, ``res`` the job's processors (field 8, else 5), ``walltime`` field 9 (left out
    when unknown, ``-1``), and a ``delay`` profile of the run time (field 4), shared by the
    jobs of equal run time. ``nb_res`` defaults to the header's ``MaxProcs`` (or
    ``MaxNodes``), else the widest job. The other SWF fields have no place in the format.
    """
    of_type(workload, "workload", Workload)
    given = nb_res is not None
    if nb_res is None:
        nb_res = workload.machine_size or (int(workload.processors.max()) if len(workload) else 1)
    nb_res = integer(nb_res, "nb_res", low=1, high=PROCS_LIMIT)
    _check_batsim_ids_and_widths(workload, nb_res, "nb_res" if given else "the trace's MaxProcs/MaxNodes")
    profiles: dict[str, dict] = {}
    jobs = []
    for job_id, submit, run, procs, walltime in zip(workload.job_id.tolist(), workload.submit_time.tolist(),
                                                    workload.run_time.tolist(), workload.processors.tolist(),
                                                    workload.fields[:, 8].tolist()):
        name = f"delay_{format_value(run)}"
        profiles.setdefault(name, {"type": "delay", "delay": _plain_number(run)})
        job = {"id": str(job_id), "subtime": _plain_number(submit), "res": int(procs), "profile": name}
        if walltime != -1:
            job["walltime"] = _plain_number(walltime)
        jobs.append(job)
    return {"nb_res": int(nb_res), "jobs": jobs, "profiles": profiles,
            "description": f"Converted by vcsched from {Path(workload.source).name or 'a workload'}"}


def _check_batsim_ids_and_widths(workload: Workload, nb_res: int, what: str) -> None:
    """The rules :func:`read_batsim_json` applies, checked before writing: every job at most
    ``nb_res`` wide and every id once (otherwise the file written could not be read back)."""
    if len(workload) == 0:
        return
    widest = int(np.argmax(workload.processors))
    if int(workload.processors[widest]) > nb_res:
        raise InvalidInputError(f"{workload.source}: job {int(workload.job_id[widest])} needs "
                                f"{int(workload.processors[widest])} processors, more than {what} = {nb_res}; a Batsim "
                                "workload cannot hold it: give a larger nb_res (--nb-res)")
    ids, counts = np.unique(workload.job_id, return_counts=True)
    if counts.max() > 1:
        raise InvalidInputError(f"{workload.source}: job id {int(ids[np.argmax(counts)])} is used by "
                                f"{int(counts.max())} jobs; a Batsim workload needs one id per job")


def _plain_number(v: float) -> int | float:
    return int(v) if float(v).is_integer() else float(v)


def write_batsim_json(workload: Workload, path: str | Path, *, nb_res: int | None = None) -> None:
    """Write :func:`batsim_json` of the workload to ``path``."""

    Path(path).write_text(json.dumps(batsim_json(workload, nb_res=nb_res), indent=1) + "\n", encoding="utf-8")
