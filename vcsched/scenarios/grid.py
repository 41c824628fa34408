"""Scenarios of the grid reallocation study (seed 000 §3.2-3.4): platforms, workloads, metrics.

Caniou, Charrier, Desprez, *Analysis of Tasks Reallocation in a Dedicated Grid
Environment*, INRIA RR-7226 (2010).

Platforms (§3.2)
----------------
* ``g5k`` (platform 1): Grid'5000 Bordeaux 640, Lyon 270, Toulouse 434 cores.
* ``pwa-g5k`` (platform 2): Bordeaux 640, CTC 430, SDSC 128 cores.
* ``pwa`` (extra, all real traces): CTC 430, SDSC 128, KTH 100 cores.

Homogeneous: every speed 1. Heterogeneous: speeds 1.0 / 1.2 / 1.4 in the order listed
(Bordeaux the slowest). Every cluster uses the same batch policy (FCFS or CBF).

Workloads (§3.3) and the substitution of the Grid'5000 traces
-------------------------------------------------------------
The Grid'5000 2008 traces are not public here. Each Grid'5000 site gets a synthetic
Lublin-Feitelson workload (:func:`vcsched.generators.lublin_workload.lublin_workload`)
sized to its cores and with exactly the job count of seed Table 1 for the month (the
six-month Bordeaux trace has 74,647 jobs), spread over the month (31, 29, 31, 30, 31, 30
days: January-June 2008). The run times are scaled down where the model would offer more
than :data:`MAX_LOAD` of the site's capacity (the busiest months would otherwise
saturate the site for ever; a documented choice). Synthetic workloads are seeded from
``(seed, scenario, site)``, so a scenario is the same for every policy of an experiment.

CTC-SP2 and SDSC-SP2 are the real Parallel Workloads Archive traces (cleaned versions,
the only ones available here; the paper used the original ones), from their first
submission for 182 days (six months): 42,837 and 16,162 jobs (paper: 42,873 and 15,615).
CTC is given 430 cores as in the paper, although its batch partition had 338 (the
trace's largest job has 336), so its load is lower than on the real machine. Every
trace is shifted so that its first job is at time 0 (seed §3.3 overlays the traces).

Scenario names: ``jan``, ``feb``, ``mar``, ``apr``, ``may``, ``jun`` (platform 1, one
month), ``pwa-g5k`` (platform 2, six months) and ``pwa`` (extra platform, six months).
``days`` keeps only the first days of a scenario (the quick mode of the benchmark).

Metrics (§3.4)
--------------
:func:`compare_to_reference` compares a run with reallocation to the reference run
without reallocation on the same platform, batch policy and workload: percentage of jobs
impacted (completion time changed), number of reallocations, percentage of impacted jobs
finishing earlier, relative average response time of the impacted jobs, plus mean wait
and mean bounded slowdown of all jobs.
"""

from __future__ import annotations

import dataclasses
import zlib

import numpy as np

from vcsched.errors import InvalidInputError

__all__ = ["PLATFORMS", "HETEROGENEOUS_SPEEDS", "MONTHS", "MONTH_DAYS", "TABLE1_JOBS", "BORDEAUX_SIX_MONTHS",
           "SIX_MONTHS_DAYS", "MAX_LOAD", "SCENARIOS", "PAPER_SCENARIOS", "Scenario", "Site", "platform_clusters",
           "scenario_workloads", "build_scenario", "compare_to_reference", "IMPACT_TOLERANCE"]

PLATFORMS: dict[str, tuple[tuple[str, int], ...]] = {
    "g5k": (("bordeaux", 640), ("lyon", 270), ("toulouse", 434)),
    "pwa-g5k": (("bordeaux", 640), ("ctc", 430), ("sdsc", 128)),
    "pwa": (("ctc", 430), ("sdsc", 128), ("kth", 100)),
}
HETEROGENEOUS_SPEEDS = (1.0, 1.2, 1.4)
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun")
MONTH_DAYS = {"jan": 31, "feb": 29, "mar": 31, "apr": 30, "may": 31, "jun": 30}
TABLE1_JOBS = {  # seed Table 1: jobs per month and site (Grid'5000, 2008)
    "jan": {"bordeaux": 13084, "lyon": 583, "toulouse": 488},
    "feb": {"bordeaux": 5822, "lyon": 2695, "toulouse": 1123},
    "mar": {"bordeaux": 11673, "lyon": 8315, "toulouse": 949},
    "apr": {"bordeaux": 33250, "lyon": 1330, "toulouse": 1461},
    "may": {"bordeaux": 6765, "lyon": 2179, "toulouse": 1573},
    "jun": {"bordeaux": 4094, "lyon": 3540, "toulouse": 1548},
}
BORDEAUX_SIX_MONTHS = 74647
SIX_MONTHS_DAYS = 182
MAX_LOAD = 0.6
REAL_TRACES = {"ctc": "CTC-SP2-1996-3.1-cln.swf.gz", "sdsc": "SDSC-SP2-1998-4.2-cln.swf.gz",
               "kth": "KTH-SP2-1996-2.1-cln.swf.gz"}
IMPACT_TOLERANCE = 1e-6
"""Completion times closer than this (s) count as unchanged."""


@dataclasses.dataclass(frozen=True)
class Site:
    """Where a site's jobs come from: ``trace`` (a real SWF file) or a synthetic Lublin workload of ``jobs`` jobs."""

    name: str
    procs: int
    jobs: int | None = None
    trace: str | None = None


@dataclasses.dataclass(frozen=True)
class Scenario:
    """A named scenario: a platform, its sites' workloads and the length of the window (days)."""

    name: str
    platform: str
    sites: tuple
    days: float
    description: str = ""


def _make_scenarios() -> dict[str, Scenario]:
    out = {}
    for m in MONTHS:
        sites = tuple(Site(s, p, jobs=TABLE1_JOBS[m][s]) for s, p in PLATFORMS["g5k"])
        out[m] = Scenario(m, "g5k", sites, MONTH_DAYS[m],
                          f"platform 1 (Grid'5000 Bordeaux/Lyon/Toulouse), {m} 2008, synthetic Lublin traces "
                          f"sized to Table 1 ({sum(TABLE1_JOBS[m].values())} jobs)")
    out["pwa-g5k"] = Scenario("pwa-g5k", "pwa-g5k",
                              (Site("bordeaux", 640, jobs=BORDEAUX_SIX_MONTHS), Site("ctc", 430, trace=REAL_TRACES["ctc"]),
                               Site("sdsc", 128, trace=REAL_TRACES["sdsc"])), SIX_MONTHS_DAYS,
                              "platform 2: synthetic Bordeaux (74,647 jobs) + real CTC-SP2 + SDSC-SP2, six months")
    out["pwa"] = Scenario("pwa", "pwa", tuple(Site(s, p, trace=REAL_TRACES[s]) for s, p in PLATFORMS["pwa"]),
                          SIX_MONTHS_DAYS, "extra all-real platform: CTC-SP2 + SDSC-SP2 + KTH-SP2, six months")
    return out


SCENARIOS: dict[str, Scenario] = _make_scenarios()
PAPER_SCENARIOS = MONTHS + ("pwa-g5k",)
"""The seven scenarios of the paper's tables (columns jan..jun, pwa-g5k)."""


def _scenario(name: str) -> Scenario:
    try:
        return SCENARIOS[str(name).lower()]
    except KeyError:
        raise InvalidInputError(f"unknown grid scenario {name!r}; choose one of: {', '.join(SCENARIOS)}") from None


def platform_clusters(platform: str, *, heterogeneous: bool = False, batch: str = "fcfs"):
    """The clusters of a platform (§3.2): names, cores, speeds 1 or 1.0/1.2/1.4, one batch policy."""
    from vcsched.sim import make_cluster

    if platform not in PLATFORMS:
        raise InvalidInputError(f"unknown grid platform {platform!r}; choose one of: {', '.join(PLATFORMS)}")
    return [make_cluster(name, procs, HETEROGENEOUS_SPEEDS[k] if heterogeneous else 1.0, batch)
            for k, (name, procs) in enumerate(PLATFORMS[platform])]


def _site_rng(seed: int, scenario: str, site: str) -> np.random.Generator:
    return np.random.default_rng([int(seed), zlib.crc32(scenario.encode()), zlib.crc32(site.encode())])


def scenario_workloads(name: str, *, days: float | None = None, seed: int = 0, max_load: float = MAX_LOAD,
                       overestimate: float = 10.0) -> list:
    """One workload per site of scenario ``name``, each shifted to start at 0, cut to ``days`` if given.

    The window is cut after generation, so a short window is a prefix of the full scenario.
    ``max_load`` (cap of a synthetic site's offered load) and ``overestimate`` (its walltime
    factors are log-uniform in ``[1, overestimate]``) change the synthetic Grid'5000 sites
    only; the real traces are kept as they are.
    """
    from vcsched.data import trace_path
    from vcsched.generators.lublin_workload import lublin_workload
    from vcsched.problems.workload import read_swf, shift_to_origin, time_window

    sc = _scenario(name)
    if days is not None and not days > 0:
        raise InvalidInputError(f"days must be positive, got {days}")
    out = []
    for site in sc.sites:
        if site.trace is not None:
            w = shift_to_origin(time_window(read_swf(trace_path(site.trace)), days=sc.days))
        else:
            w = lublin_workload(site.jobs, site.procs, sc.days * 86400.0, _site_rng(seed, sc.name, site.name),
                                max_load=max_load, overestimate=overestimate, source=f"lublin:{sc.name}:{site.name}")
        if days is not None:
            w = w.select(w.submit_time < days * 86400.0)
        out.append(w)
    return out


def build_scenario(name: str, *, heterogeneous: bool = False, batch: str = "fcfs", days: float | None = None,
                   seed: int = 0, max_load: float = MAX_LOAD, overestimate: float = 10.0):
    """Clusters and job table of a scenario: ``(clusters, jobs)`` ready for :func:`vcsched.sim.simulate_grid`.

    ``max_load`` and ``overestimate``: see :func:`scenario_workloads`.

    Jobs wider than every cluster of the platform are dropped (none in the paper's
    scenarios: every site's jobs fit its own cluster).
    """
    from vcsched.sim import JobTable

    sc = _scenario(name)
    clusters = platform_clusters(sc.platform, heterogeneous=heterogeneous, batch=batch)
    workloads = scenario_workloads(name, days=days, seed=seed, max_load=max_load, overestimate=overestimate)
    widest = max(c.procs for c in clusters)
    workloads = [w.select(w.processors <= widest) for w in workloads]
    jobs = JobTable.from_workloads(workloads, list(range(len(workloads))), [s.name for s in sc.sites])
    return clusters, jobs


def _response(result) -> np.ndarray:
    return result.finish - result.jobs.submit


def compare_to_reference(result, reference, *, reallocations: int | None = None) -> dict:
    """The §3.4 metrics of ``result`` against the ``reference`` run without reallocation.

    Both runs must simulate the same job table (same rows).

    Returns
    -------
    dict
        ``jobs``; ``impacted_pct`` (jobs whose completion time changed, % of all jobs);
        ``reallocations`` and ``reallocations_pct`` (% of jobs) when given;
        ``early_pct`` (impacted jobs finishing earlier, % of impacted; None if none impacted);
        ``relative_response`` (mean response time of the impacted jobs with reallocation
        divided by the same mean in the reference; < 1 is a gain); ``mean_wait``,
        ``mean_bsld`` and ``mean_response`` of all jobs with reallocation and in the
        reference (``ref_*``).
    """
    from vcsched.sim.jobmetrics import bounded_slowdown

    n = len(result.jobs)
    if len(reference.jobs) != n or not np.array_equal(result.jobs.submit, reference.jobs.submit):
        raise InvalidInputError("compare_to_reference: the two runs must simulate the same jobs")
    f, g = result.finish, reference.finish
    impacted = np.abs(f - g) > IMPACT_TOLERANCE
    k = int(impacted.sum())
    early = int((f[impacted] < g[impacted]).sum())
    resp, ref_resp = _response(result), _response(reference)

    def bsld(res):
        run = res.finish - res.start
        return float(bounded_slowdown(_response(res), run).mean()) if n else None

    out = {
        "jobs": n,
        "impacted": k,
        "impacted_pct": 100.0 * k / n if n else None,
        "early_pct": 100.0 * early / k if k else None,
        "relative_response": float(resp[impacted].mean() / ref_resp[impacted].mean()) if k else None,
        "mean_wait": float((result.start - result.jobs.submit).mean()) if n else None,
        "ref_mean_wait": float((reference.start - reference.jobs.submit).mean()) if n else None,
        "mean_response": float(resp.mean()) if n else None,
        "ref_mean_response": float(ref_resp.mean()) if n else None,
        "mean_bsld": bsld(result),
        "ref_mean_bsld": bsld(reference),
    }
    if reallocations is not None:
        out["reallocations"] = int(reallocations)
        out["reallocations_pct"] = 100.0 * reallocations / n if n else None
    return out
