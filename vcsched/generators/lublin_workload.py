"""Lublin-Feitelson rigid-job workloads: run times (hyper-gamma) and arrivals (daily cycle), with sizes.

Lublin and Feitelson, *The workload on parallel supercomputers: modeling the
characteristics of rigid jobs*, JPDC 63(11), 2003, parameters of the authors' reference
implementation ``m_lublin99`` as collected in ``shared/data/workload-models.md``. The
size part is :func:`vcsched.generators.lublin.lublin_sizes`.

Used to build synthetic stand-ins for the Grid'5000 2008 traces of the seed paper (§3.3,
Table 1), which are not public here: a site of ``procs`` cores gets exactly the number of
jobs of its month, spread over the month by the model's arrival process.

Model and choices
-----------------
* **Run time**: ``log(run time)`` follows a hyper-gamma distribution: with probability
  ``p`` a Gamma(a1, b1) (shape, scale), else a Gamma(a2, b2), where
  ``p = pa * size + pb`` clipped to [0, 1] (larger jobs run longer). Run times are
  rounded up to whole seconds (at least 1 s).
* **Arrivals**: gaps between arrivals in "peak time" are ``exp(Gamma(aarr, barr))`` (the
  model's peak-hour inter-arrival law); the rate over the day follows the model's daily
  cycle, here the Gamma(anum, bnum) density over the 48 half-hours of a day (folded
  cyclically; the peak is in the afternoon). Calibration (our choice): the gaps are
  rescaled so that exactly ``n`` jobs fall in ``[0, duration)``, which keeps the burstiness
  and the daily cycle of the model while matching a target job count (Table 1).
* **Requested time** (the model has none): ``run time * f`` with ``f`` log-uniform on
  ``[1, overestimate]`` (default 10; users over-estimate walltimes, the effect the seed's
  reallocation exploits, §1), rounded up to a whole minute; run time never exceeds it.
* **Longest job** (our choice): run and requested times are capped at ``max_runtime``
  (default 48 h, a usual batch limit); the hyper-gamma tail otherwise yields jobs of years.
* **Load cap** (our choice, optional): with ``max_load`` the run times are scaled down so
  that the offered load ``sum(size * run) / (procs * duration)`` does not exceed it. The
  busiest synthetic months would otherwise offer several times the capacity of the site.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.generators.lublin import lublin_sizes
from vcsched.problems.workload import Workload, from_arrays

__all__ = ["LublinRuntimeParams", "LublinArrivalParams", "RUNTIME_CLASSES", "ARRIVAL_CLASSES", "lublin_runtimes",
           "lublin_arrivals", "daily_cycle", "lublin_workload", "offered_load"]


@dataclasses.dataclass(frozen=True)
class LublinRuntimeParams:
    """Hyper-gamma parameters of ``log(run time)``."""

    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float


@dataclasses.dataclass(frozen=True)
class LublinArrivalParams:
    """Arrival parameters: peak inter-arrival gamma (aarr, barr), daily cycle (anum, bnum), rate factor ARAR."""

    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


RUNTIME_CLASSES = {
    "batch": LublinRuntimeParams(6.57, 0.823, 639.1, 0.0156, -0.003, 0.6986),
    "interactive": LublinRuntimeParams(3.8351, 0.6605, 7.073, 0.6856, -0.0118, 0.9156),
    "typeless": LublinRuntimeParams(4.2, 0.94, 312.0, 0.03, -0.0054, 0.78),
}
ARRIVAL_CLASSES = {
    "batch": LublinArrivalParams(6.0415, 0.8531, 6.1271, 5.2740, 1.0519),
    "interactive": LublinArrivalParams(6.5510, 0.6621, 8.9186, 3.6680, 0.9797),
    "typeless": LublinArrivalParams(10.2303, 0.4871, 8.1737, 3.9631, 1.0225),
}


def lublin_runtimes(sizes: np.ndarray, rng: np.random.Generator, *, job_class: str = "typeless") -> np.ndarray:
    """Run times (s) of jobs of the given sizes: ``exp`` of a hyper-gamma whose mix depends on the size."""
    p_ = RUNTIME_CLASSES[job_class]
    sizes = np.asarray(sizes, dtype=np.float64)
    n = sizes.size
    p = np.clip(p_.pa * sizes + p_.pb, 0.0, 1.0)
    first = rng.random(n) < p
    g = np.where(first, rng.gamma(p_.a1, p_.b1, n), rng.gamma(p_.a2, p_.b2, n))
    return np.maximum(np.ceil(np.exp(g)), 1.0)


def daily_cycle(job_class: str = "typeless") -> np.ndarray:
    """Relative arrival rate in each of the 48 half-hours of a day (sums to 1).

    The Gamma(anum, bnum) density at the middle of each half-hour, folded over a few days
    (the cycle wraps around midnight).
    """
    from math import lgamma

    a = ARRIVAL_CLASSES[job_class]
    x = np.arange(48, dtype=np.float64)[None, :] + 0.5 + 48.0 * np.arange(4)[:, None]
    logpdf = (a.anum - 1) * np.log(x) - x / a.bnum - lgamma(a.anum) - a.anum * np.log(a.bnum)
    w = np.exp(logpdf).sum(axis=0)
    return w / w.sum()


def lublin_arrivals(n: int, duration: float, rng: np.random.Generator, *, job_class: str = "typeless") -> np.ndarray:
    """``n`` sorted arrival times in ``[0, duration)`` (see the module notes on calibration)."""
    if n < 0 or not duration > 0:
        raise InvalidInputError(f"lublin_arrivals: need n >= 0 and duration > 0, got n={n}, duration={duration}")
    if n == 0:
        return np.zeros(0)
    a = ARRIVAL_CLASSES[job_class]
    gaps = np.exp(rng.gamma(a.aarr, a.barr, n))
    virtual = np.cumsum(gaps)
    virtual = (virtual - gaps[0] * rng.random()) / virtual[-1]  # in (0, 1], first job not always at 0
    virtual = np.clip(virtual, 0.0, np.nextafter(1.0, 0.0))
    # map "fraction of the month's arrival mass" to time through the daily-cycle intensity
    slot = 1800.0
    n_slots = int(np.ceil(duration / slot))
    w = np.tile(daily_cycle(job_class), n_slots // 48 + 1)[:n_slots]
    lengths = np.minimum(slot, duration - slot * np.arange(n_slots))
    mass = w * lengths / slot
    cum = np.concatenate(([0.0], np.cumsum(mass)))
    cum /= cum[-1]
    k = np.clip(np.searchsorted(cum, virtual, side="right") - 1, 0, n_slots - 1)
    frac = (virtual - cum[k]) / np.maximum(cum[k + 1] - cum[k], 1e-300)
    t = np.floor(slot * k + frac * lengths[k])
    return np.sort(np.clip(t, 0.0, np.floor(duration - 1e-9)))


def offered_load(sizes: np.ndarray, runtimes: np.ndarray, procs: int, duration: float) -> float:
    """``sum(size * run) / (procs * duration)``."""
    return float((np.asarray(sizes) * np.asarray(runtimes)).sum() / (procs * duration))


def lublin_workload(n: int, procs: int, duration: float, rng: np.random.Generator, *, job_class: str = "typeless",
                    overestimate: float = 10.0, max_load: float | None = None, max_runtime: float = 172800.0,
                    source: str = "lublin") -> Workload:
    """A synthetic workload of exactly ``n`` jobs for a site of ``procs`` cores over ``duration`` seconds.

    Parameters
    ----------
    n : int
        Number of jobs (e.g. a month of a Grid'5000 site, seed Table 1).
    procs : int
        Cores of the site: sizes are drawn in ``1..procs`` (``UHi = log2(procs)``).
    duration : float
        Length of the window (s); arrivals are in ``[0, duration)``.
    rng : numpy.random.Generator
    job_class : {"typeless", "batch", "interactive"}
    overestimate : float, default 10
        Requested time is the run time times a log-uniform factor in ``[1, overestimate]``.
    max_load : float, optional
        Scale run times (and requested times) down so that the offered load is at most this.
    max_runtime : float, default 172800
        Cap of run times and requested times (s).

    Returns
    -------
    Workload
        With ``MaxProcs: procs`` in its header; ids 1..n in submission order.

    Examples
    --------
    >>> import numpy as np
    >>> w = lublin_workload(100, 64, 86400.0, np.random.default_rng(1))
    >>> len(w), int(w.processors.max()) <= 64
    (100, True)
    """
    if n < 1 or procs < 1 or not duration > 0:
        raise InvalidInputError(f"lublin_workload: need n >= 1, procs >= 1 and duration > 0 "
                                f"(got n={n}, procs={procs}, duration={duration})")
    if overestimate < 1:
        raise InvalidInputError(f"lublin_workload: overestimate must be >= 1, got {overestimate}")
    r_size, r_run, r_arr, r_req = rng.spawn(4) if hasattr(rng, "spawn") else [rng] * 4
    sizes = lublin_sizes(n, r_size, max_size=int(procs), job_class=job_class)
    runs = np.minimum(lublin_runtimes(sizes, r_run, job_class=job_class), float(max_runtime))
    if max_load is not None:
        load = offered_load(sizes, runs, procs, duration)
        if load > max_load:
            runs = np.maximum(np.ceil(runs * (max_load / load)), 1.0)
    submit = lublin_arrivals(n, duration, r_arr, job_class=job_class)
    factor = np.exp(r_req.uniform(0.0, np.log(overestimate), n))
    req = np.maximum(np.minimum(np.ceil(runs * factor / 60.0) * 60.0, float(max_runtime)), runs)
    return from_arrays(submit, runs, req, sizes, max_procs=int(procs), source=source,
                       header=[f"Synthetic Lublin-Feitelson workload ({job_class}), {n} jobs, {procs} cores"])
