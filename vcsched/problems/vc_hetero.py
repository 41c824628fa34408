"""VCSched with several rigid resources and host types (seed 001 §2.2 and §9).

An instance has ``K`` host types: type ``k`` has CPU ``host_cpu[k]`` (in units of a unit
host's CPU), rigid capacities ``host_cap[k]`` (one per declared resource, ``d`` of them) and
``host_count[k]`` identical hosts. Job ``j`` needs CPU ``job_cpu[j]`` (fluid: it may get
less) and rigid amounts ``job_rigid[j]`` (all of them, wherever it runs). An allocation puts
every job on one host ``h`` (hosts are numbered type by type: the ``host_count[0]`` hosts of
type 0 first) and gives it ``0 <= c_j <= job_cpu[j]``; on each host the rigid needs fit every
capacity and the CPU allocations sum to at most the host's CPU. The yield of job ``j`` is
``c_j / job_cpu[j]``; the objective is the minimum yield, then the average yield.

For a fixed placement the best minimum yield is ``min(1, min_h C_h / L_h)`` where ``L_h`` is
the CPU need placed on host ``h`` (give every job ``job_cpu * Y``): the same fact as the
2-D model of :mod:`vcsched.problems.vc`, host by host.

JSON. The old form (``"hosts": 4``, jobs with ``cpu`` and ``mem``) is read by
:func:`vcsched.problems.vc.parse_instance` and converted with :func:`from_vc` (one job row
per task: the minimum yield is the same, since the best allocation gives every task of a
job ``alpha_i Y``). The new form::

    {"resources": ["mem", "disk"],
     "hosts": [{"cpu": 1.0, "mem": 1.0, "disk": 0.5, "count": 8}, ...],
     "jobs": [{"cpu": 0.5, "mem": 0.25, "disk": 0.1}, ...]}

``resources`` defaults to ``["mem"]``; ``count`` defaults to 1. Choices: a job's ``cpu`` is
any number in ``[1e-9, 1e6]`` (it may exceed a host's CPU, its yield is then at most
``C / cpu``); a job whose rigid needs fit no host type is refused at reading (one line naming
the job and the field that fits nowhere), since no allocation exists. Mixing the forms
(``resources`` or a host object beside an integer ``hosts``, an integer inside the host list)
is refused with one line.

Examples
--------
>>> inst = parse_hetero({"resources": ["mem", "disk"],
...     "hosts": [{"cpu": 1.0, "mem": 1.0, "disk": 1.0}, {"cpu": 2.0, "mem": 1.0, "disk": 0.5}],
...     "jobs": [{"cpu": 1.0, "mem": 0.5, "disk": 0.6}, {"cpu": 1.0, "mem": 0.5, "disk": 0.2},
...              {"cpu": 2.0, "mem": 0.5, "disk": 0.2}]})
>>> round(placement_min_yield(inst, [0, 0, 1]), 4)  # host 0 holds CPU 2 for capacity 1
0.5
>>> round(placement_min_yield(inst, [0, 1, 1]), 4)  # host 1 holds CPU 3 for capacity 2
0.6667
>>> alloc = allocation_from_placement(inst, [0, 1, 1])
>>> report = check_hetero(inst, alloc)
>>> report.valid, round(report.min_yield, 4)
(True, 0.6667)
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Any

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.jsonfile import check_keys, int_field, load_json, number_field
from vcsched.problems.vc import MAX_HOSTS, MAX_TASKS, VCInstance, parse_instance
from vcsched.problems.vc_limits import MIN_CPU

__all__ = ["HeteroInstance", "HeteroAllocation", "HeteroReport", "parse_hetero", "load_hetero", "from_vc",
           "hetero_to_dict", "placement_min_yield", "allocation_from_placement", "check_hetero",
           "host_cpu_loads", "is_new_form", "MAX_JOB_CPU", "TOL"]

TOL = 1e-7
"""Absolute tolerance of the checker on capacities (the same as the 2-D checker)."""

MAX_JOB_CPU = 1e6
"""Largest job CPU need accepted (in unit hosts)."""

INSTANCE_FIELDS = ("resources", "hosts", "jobs")


@dataclasses.dataclass(frozen=True, eq=False)
class HeteroInstance:
    """Host types and jobs as arrays.

    Attributes: ``resources`` (d names), ``host_cpu`` (K,), ``host_cap`` (K, d),
    ``host_count`` (K,), ``job_cpu`` (n,), ``job_rigid`` (n, d).
    """

    resources: tuple[str, ...]
    host_cpu: np.ndarray
    host_cap: np.ndarray
    host_count: np.ndarray
    job_cpu: np.ndarray
    job_rigid: np.ndarray

    @property
    def d(self) -> int:
        return len(self.resources)

    @property
    def n_jobs(self) -> int:
        return int(self.job_cpu.shape[0])

    @property
    def n_hosts(self) -> int:
        return int(self.host_count.sum())

    @property
    def host_type(self) -> np.ndarray:
        """The type of every host (hosts numbered type by type), shape (H,)."""
        return np.repeat(np.arange(self.host_count.shape[0]), self.host_count)

    @property
    def hosts_cpu(self) -> np.ndarray:
        """CPU of every host, shape (H,)."""
        return self.host_cpu[self.host_type]

    @property
    def hosts_cap(self) -> np.ndarray:
        """Rigid capacities of every host, shape (H, d)."""
        return self.host_cap[self.host_type]

    def __repr__(self) -> str:
        return (f"HeteroInstance(resources={list(self.resources)}, host_types={self.host_count.shape[0]}, "
                f"hosts={self.n_hosts}, jobs={self.n_jobs})")


@dataclasses.dataclass(frozen=True, eq=False)
class HeteroAllocation:
    """Host (0..H-1) and CPU of every job."""

    job_host: np.ndarray
    job_alloc: np.ndarray


@dataclasses.dataclass(frozen=True)
class HeteroReport:
    """What :func:`check_hetero` found (``message`` names the first violation)."""

    valid: bool
    min_yield: float
    avg_yield: float
    message: str = ""


def from_vc(instance: VCInstance) -> HeteroInstance:
    """The 2-D instance as ``H`` unit hosts of one type with resource ``mem``, one row per task."""
    return HeteroInstance(resources=("mem",), host_cpu=np.ones(1), host_cap=np.ones((1, 1)),
                          host_count=np.array([instance.hosts], dtype=np.int64),
                          job_cpu=instance.task_cpu.astype(float), job_rigid=instance.task_mem.reshape(-1, 1).astype(float))


def _resources(data: dict, source: str) -> tuple[str, ...]:
    names = data.get("resources", ["mem"])
    if not isinstance(names, list) or not names or not all(isinstance(r, str) and r for r in names):
        raise InvalidInputError(f"{source}: field 'resources' must be a non-empty list of names, e.g. [\"mem\", \"disk\"]")
    if len(set(names)) != len(names) or "cpu" in names or "count" in names:
        raise InvalidInputError(f"{source}: field 'resources': names must be distinct and not 'cpu' or 'count', got {names}")
    return tuple(names)


def _host_type(host: Any, k: int, resources: tuple[str, ...], source: str) -> tuple[float, list[float], int]:
    where = f"{source}: host type {k}"
    if not isinstance(host, dict):
        raise InvalidInputError(f"{where}: expected an object like {{\"cpu\": 1.0, \"mem\": 1.0, \"count\": 4}}, got "
                                f"{host!r} (the old form \"hosts\": N cannot be mixed with host objects)")
    for key in host:
        if key not in ("cpu", "count") and key not in resources:
            raise InvalidInputError(f"{where}: resource {key!r} is not declared in 'resources' ({', '.join(map(repr, resources))}); "
                                    f"add it there or remove it from the host")
    cpu = number_field(host, "cpu", where=where, required=True, low=0.0, low_open=True, high=MAX_JOB_CPU)
    caps = [number_field(host, r, where=where, required=True, low=0.0, high=MAX_JOB_CPU) for r in resources]
    count = int_field(host, "count", where=where, default=1, low=1, high=MAX_HOSTS)
    return cpu, caps, count


def _job(job: Any, i: int, resources: tuple[str, ...], source: str) -> tuple[float, list[float]]:
    where = f"{source}: job {i}"
    if not isinstance(job, dict):
        raise InvalidInputError(f"{where}: expected an object with 'cpu' and {', '.join(map(repr, resources))}")
    check_keys(job, ("cpu", *resources), where=where)
    cpu = number_field(job, "cpu", where=where, required=True, low=MIN_CPU, high=MAX_JOB_CPU)
    return cpu, [number_field(job, r, where=where, required=True, low=0.0, high=MAX_JOB_CPU) for r in resources]


def _check_fits(inst: HeteroInstance, source: str) -> None:
    fits = np.all(inst.job_rigid[:, None, :] <= inst.host_cap[None, :, :] + TOL, axis=2).any(axis=1)
    if fits.all():
        return
    j = int(np.flatnonzero(~fits)[0])
    r = int(np.argmax((inst.job_rigid[j][None, :] > inst.host_cap + TOL).any(axis=0)))
    raise InvalidInputError(f"{source}: job {j}: its rigid needs fit no host type (field {inst.resources[r]!r} = "
                            f"{inst.job_rigid[j, r]:g}, largest capacity {inst.host_cap[:, r].max():g}); "
                            f"lower the need or add a larger host type")


def is_new_form(data: Any) -> bool:
    """Whether a decoded JSON document is in the new form (a host list or ``resources``); the old form
    (``"hosts": N``) and anything else go to :func:`vcsched.problems.vc.parse_instance`."""
    return isinstance(data, dict) and (isinstance(data.get("hosts"), list) or "resources" in data)


def parse_hetero(data: Any, source: str = "<instance>", *, check_fits: bool = True) -> HeteroInstance:
    """Validate a decoded JSON document (old or new form, see the module) into a :class:`HeteroInstance`;
    ``check_fits=False`` keeps a job whose rigid needs fit no host type (``vc pack`` reports it as
    ``infeasible``, naming it)."""
    if not isinstance(data, dict):
        raise InvalidInputError(f"{source}: top level: expected a JSON object with 'hosts' and 'jobs'")
    hosts = data.get("hosts")
    if not isinstance(hosts, list):
        if "resources" in data:
            raise InvalidInputError(f"{source}: 'resources' needs the new host form (\"hosts\": [{{\"cpu\": ..., "
                                    f"\"count\": ...}}]); the old form \"hosts\": N cannot be mixed with it")
        return from_vc(parse_instance(data, source))
    check_keys(data, INSTANCE_FIELDS, where=source)
    resources = _resources(data, source)
    if not hosts:
        raise InvalidInputError(f"{source}: field 'hosts': empty (a list of host-type objects)")
    types = [_host_type(h, k, resources, source) for k, h in enumerate(hosts)]
    if sum(t[2] for t in types) > MAX_HOSTS:
        raise InvalidInputError(f"{source}: {sum(t[2] for t in types):,} hosts is more than the limit of {MAX_HOSTS:,}")
    jobs = data.get("jobs")
    if not isinstance(jobs, list) or not jobs or len(jobs) > MAX_TASKS:
        raise InvalidInputError(f"{source}: field 'jobs': missing, empty or longer than {MAX_TASKS:,} (a list of job objects)")
    rows = [_job(job, i, resources, source) for i, job in enumerate(jobs)]
    inst = HeteroInstance(resources=resources, host_cpu=np.array([t[0] for t in types]),
                          host_cap=np.array([t[1] for t in types], dtype=float).reshape(len(types), len(resources)),
                          host_count=np.array([t[2] for t in types], dtype=np.int64),
                          job_cpu=np.array([r[0] for r in rows]),
                          job_rigid=np.array([r[1] for r in rows], dtype=float).reshape(len(rows), len(resources)))
    if check_fits:
        _check_fits(inst, source)
    return inst


def load_hetero(path: str | os.PathLike) -> HeteroInstance:
    """Read a VCSched JSON file, old or new form."""
    source = os.fspath(path)
    return parse_hetero(load_json(source, what="VCSched instance"), source)


def hetero_to_dict(inst: HeteroInstance) -> dict[str, Any]:
    """The new JSON form of ``inst`` (:func:`parse_hetero` reads it back to equal arrays)."""
    hosts = [{"cpu": float(inst.host_cpu[k]), **{r: float(inst.host_cap[k, i]) for i, r in enumerate(inst.resources)},
              "count": int(inst.host_count[k])} for k in range(inst.host_count.shape[0])]
    jobs = [{"cpu": float(inst.job_cpu[j]), **{r: float(inst.job_rigid[j, i]) for i, r in enumerate(inst.resources)}}
            for j in range(inst.n_jobs)]
    return {"resources": list(inst.resources), "hosts": hosts, "jobs": jobs}


def host_cpu_loads(inst: HeteroInstance, job_host: Any) -> np.ndarray:
    """CPU need placed on every host, shape (H,)."""
    return np.bincount(np.asarray(job_host, dtype=np.int64), weights=inst.job_cpu, minlength=inst.n_hosts)


def placement_min_yield(inst: HeteroInstance, job_host: Any) -> float:
    """``min(1, min_h C_h / L_h)``: the best minimum yield of a placement (hosts without load ignored)."""
    loads = host_cpu_loads(inst, job_host)
    used = loads > 0
    if not used.any():
        return 1.0
    return float(min(1.0, np.min(inst.hosts_cpu[used] / loads[used])))


def allocation_from_placement(inst: HeteroInstance, job_host: Any) -> HeteroAllocation:
    """Every job gets ``job_cpu * Y`` (``Y`` of :func:`placement_min_yield`), then the average-yield
    phase host by host: a host's spare CPU goes to its jobs in increasing CPU need, each up to its
    need (a fractional knapsack: a unit of CPU gives yield ``1 / job_cpu``, so this maximises the sum
    of yields among allocations with minimum yield ``Y``)."""
    host = np.asarray(job_host, dtype=np.int64)
    y = placement_min_yield(inst, host)
    alloc = inst.job_cpu * y
    spare = inst.hosts_cpu - np.bincount(host, weights=alloc, minlength=inst.n_hosts)
    for j in np.lexsort((np.arange(inst.n_jobs), inst.job_cpu)):
        h = host[j]
        extra = min(max(spare[h], 0.0), inst.job_cpu[j] - alloc[j])
        if extra > 0:
            alloc[j] += extra
            spare[h] -= extra
    return HeteroAllocation(job_host=host, job_alloc=alloc)


def check_hetero(inst: HeteroInstance, alloc: HeteroAllocation) -> HeteroReport:
    """The checker: every job on a host ``0..H-1``, ``0 <= c_j <= job_cpu[j]``, every host's rigid
    loads within its capacities and its CPU within its CPU (tolerance :data:`TOL`)."""
    host = np.asarray(alloc.job_host)
    c = np.asarray(alloc.job_alloc, dtype=float)
    if host.shape != (inst.n_jobs,) or c.shape != (inst.n_jobs,):
        return HeteroReport(False, math.nan, math.nan, "allocation has the wrong shape")
    if host.min() < 0 or host.max() >= inst.n_hosts:
        return HeteroReport(False, math.nan, math.nan, f"a job is on a host outside 0..{inst.n_hosts - 1}")
    bad = np.flatnonzero((c < -TOL) | (c > inst.job_cpu + TOL))
    if bad.size:
        return HeteroReport(False, math.nan, math.nan, f"job {bad[0]}: CPU {c[bad[0]]:g} outside [0, need]")
    rigid = np.zeros((inst.n_hosts, inst.d))
    np.add.at(rigid, host, inst.job_rigid)
    over = np.argwhere(rigid > inst.hosts_cap + TOL)
    if over.size:
        h, r = over[0]
        return HeteroReport(False, math.nan, math.nan, f"host {h}: resource {inst.resources[r]!r} over capacity")
    cpu = np.bincount(host.astype(np.int64), weights=c, minlength=inst.n_hosts)
    over_cpu = np.flatnonzero(cpu > inst.hosts_cpu + TOL)
    if over_cpu.size:
        return HeteroReport(False, math.nan, math.nan, f"host {over_cpu[0]}: CPU over capacity")
    yields = c / inst.job_cpu
    return HeteroReport(True, float(yields.min()), math.fsum(yields.tolist()) / inst.n_jobs)
