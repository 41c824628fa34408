"""One run of the grid reallocation study as ``vcsched grid simulate`` makes it (seed 000 §2.1, §3.4).

The rules of such a run, for the command line and for Python alike:

* **arrival mapping**: a run with reallocation maps the arriving jobs with MCT (seed
  §2.1, "we consider that the meta-scheduler uses a MCT policy") when the platform names
  no mapping of its own and has several clusters (:func:`arrival_mapping`);
* **the reference run** (§3.4) simulates the same platform and workload, built afresh,
  without reallocation, its arrivals mapped by the same rule (:func:`reference_run`, used by
  :func:`simulate_with_reference` and by the ``grid-realloc`` experiment, which compares twelve
  policies with one reference);
* **metrics**: the simulator's metrics with the reallocation counts of the policy
  (overall and per cluster: moves in and out) and, with the reference, the §3.4 metrics
  of :func:`vcsched.scenarios.grid.compare_to_reference`.

The policies themselves (MCT, the reallocation algorithms) are passed in as factories:
this room does not import them.
"""

from __future__ import annotations

from collections.abc import Callable

from vcsched.scenarios.grid import compare_to_reference

__all__ = ["arrival_mapping", "realloc_metrics", "reference_run", "simulate_with_reference"]


def arrival_mapping(meta_name: str | None, realloc: str, n_clusters: int) -> str | None:
    """The meta-scheduler that maps arrivals: ``meta_name``, or ``"mct"`` when the run reallocates
    (``realloc`` not ``"none"``), names none and has several clusters (seed §2.1)."""
    if realloc != "none" and meta_name is None and n_clusters > 1:
        return "mct"
    return meta_name


def realloc_metrics(result, policy, clusters) -> dict:
    """:func:`vcsched.sim.output.metrics` of ``result`` with the reallocation counts of ``policy`` (its ``stats``;
    0 without one): ``reallocations`` overall and per cluster (moves in), ``reallocations_out`` per cluster,
    ``realloc_events`` overall."""
    from vcsched.sim.output import metrics

    m = metrics(result)
    moves = policy.stats(clusters) if hasattr(policy, "stats") else None
    m["overall"]["reallocations"] = moves["reallocations"] if moves else 0
    for name, entry in m["clusters"].items():
        entry["reallocations"] = moves["clusters"][name]["reallocations"] if moves else 0
        entry["reallocations_out"] = moves["clusters"][name]["reallocations_out"] if moves else 0
    if moves:
        m["overall"]["realloc_events"] = moves["realloc_events"]
    return m


def simulate_with_reference(build: Callable[[bool], tuple], policy: Callable[[str | None], object],
                            mapping: Callable[[str], object], *, realloc: str, compare: bool = False,
                            run: Callable | None = None) -> tuple:
    """Simulate a platform with a reallocation policy and, with ``compare``, its reference run.

    Parameters
    ----------
    build : callable
        ``build(first) -> (clusters, jobs, meta_name)``: a fresh platform and job table
        (``first`` is False for the reference's), and the mapping the platform names (or None).
    policy : callable
        ``policy(meta_name) -> meta-scheduler`` of the run (None: every job to its origin).
    mapping : callable
        ``mapping(meta_name) -> meta-scheduler`` of the reference (an arrival mapping only).
    realloc : str
        The reallocation algorithm (``none``, ``no-cancel``, ``cancel``), for the mapping rule.
    run : callable, optional
        ``run(grid) -> SimulationResult`` (default ``grid.run()``), e.g. with a progress bar.

    Returns
    -------
    (result, metrics)
        The run and :func:`realloc_metrics`, with ``metrics["vs_reference"]`` when comparing.
    """
    from vcsched.sim import Grid

    run = run or (lambda grid: grid.run())
    clusters, jobs, meta_name = build(True)
    meta = policy(arrival_mapping(meta_name, realloc, len(clusters)))
    result = run(Grid(clusters, jobs, meta=meta))
    m = realloc_metrics(result, meta, clusters)
    if compare:
        reference = reference_run(build, mapping, realloc=realloc, run=run)
        m["vs_reference"] = compare_to_reference(result, reference, reallocations=m["overall"]["reallocations"])
    return result, m


def reference_run(build: Callable[[bool], tuple], mapping: Callable[[str], object], *, realloc: str,
                  run: Callable | None = None):
    """The reference of a run with reallocation ``realloc`` (seed §3.4): the platform and jobs of
    ``build(False)``, without reallocation, arrivals mapped by :func:`arrival_mapping`'s rule
    (``mapping(name)`` gives that meta-scheduler). Arguments as in :func:`simulate_with_reference`."""
    from vcsched.sim import Grid

    run = run or (lambda grid: grid.run())
    clusters, jobs, name = build(False)
    name = arrival_mapping(name, realloc, len(clusters))
    return run(Grid(clusters, jobs, meta=None if name is None else mapping(name)))
