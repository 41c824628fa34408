"""Workloads of seed 003 (Caniou & Jeannot RR-5168, §5): Poisson arrivals, 1D-meshes, stencils, scenarios (a)-(j).

Randomness comes only from the ``rng`` argument (a seed or a ``SeedSequence``); the
seed is split with ``SeedSequence.spawn`` into independent streams for the task types,
the arrival dates, the structure (chain sizes, head positions) and the optional noise
on real computation times, so that the *same seed at another rate gives the same
tasks* (the paper submits each generated task set at several rates, §5.2.2).

Decisions where the paper is ambiguous
--------------------------------------
* "inter-arrival drawn from a Poisson distribution with a mean of μ" (§5.2): by default
  we draw it literally, ``rng.poisson(μ)`` (integer seconds, variance μ);
  ``interarrival="exponential"`` gives a Poisson *process* (exponential gaps, variance
  μ²). The literal reading is the default because it reproduces the paper's flows
  (mean flow of MCT at μ = 17: 70 s, Table 13), the exponential one gives far more
  contention (see the benchmark ``timeshare``).
* Arrival dates are the cumulative sums of the gaps (the first task arrives after one gap).
* Stencil (§5.1, Fig. 6): task (i, j) of line i < depth and column j < width has parents
  (i-1, j-1), (i-1, j), (i-1, j+1) inside the grid (two or three parents inside, as the
  paper says); ready tasks are submitted in lexical (i, j) order (§5.6.1).
* In (h), (i), (j) the stencil starts at the arrival date of independent task number
  ``n // 10`` (so that "the submission of the stencil begins and ends during the
  execution of some of them", §5.6.3); at equal dates independent tasks go first.
* In (e), the 5 heads take 5 positions drawn uniformly without replacement among the
  255 arrival dates (§5.5).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.names.timeshare import INTERARRIVAL_LAWS
from vcsched.problems.timeshare import SCENARIOS, Platform, TimeshareInstance, TimeshareWorkload, platform_for

if TYPE_CHECKING:  # pragma: no cover - networkx is imported by the two DAG builders only (0.1-0.3 s of start-up)
    import networkx as nx

__all__ = [
    "interarrival_times",
    "arrival_dates",
    "mesh_dag",
    "stencil_dag",
    "compose_workload",
    "generate_scenario",
    "INTERARRIVAL_LAWS",
    "rerun_noise",
]


def _seed_sequence(rng) -> np.random.SeedSequence:
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(int(rng.integers(2**63)))
    return np.random.SeedSequence(rng)


def interarrival_times(n: int, mu: float, rng, *, law: str = "poisson") -> np.ndarray:
    """``n`` gaps of mean ``mu`` seconds: integer Poisson(μ) draws or exponential ones (see module notes)."""
    if not (mu > 0 and np.isfinite(mu)):
        raise InvalidInputError(f"mean inter-arrival time mu must be a positive number, got {mu}")
    gen = np.random.default_rng(rng)
    if law == "poisson":
        return gen.poisson(mu, size=n).astype(float)
    if law == "exponential":
        return gen.exponential(mu, size=n)
    raise InvalidInputError(f"unknown inter-arrival law {law!r}; choose one of {', '.join(INTERARRIVAL_LAWS)}")


def arrival_dates(n: int, mu: float, rng, *, law: str = "poisson") -> np.ndarray:
    """Arrival dates: cumulative sums of :func:`interarrival_times`."""
    return np.cumsum(interarrival_times(n, mu, rng, law=law))


def mesh_dag(size: int) -> nx.DiGraph:
    """A 1D-mesh application (Fig. 5): a chain 0 -> 1 -> ... -> size-1."""
    if size < 1:
        raise InvalidInputError(f"a 1D-mesh needs at least one task, got {size}")
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(range(size))
    g.add_edges_from((k, k + 1) for k in range(size - 1))
    return g


def stencil_dag(width: int, depth: int) -> nx.DiGraph:
    """A ``width`` x ``depth`` stencil (Fig. 6): nodes (i, j), line i < depth, column j < width.

    Examples
    --------
    >>> g = stencil_dag(5, 4)
    >>> sorted(g.predecessors((1, 0))), sorted(g.predecessors((1, 2)))
    ([(0, 0), (0, 1)], [(0, 1), (0, 2), (0, 3)])
    """
    if width < 1 or depth < 1:
        raise InvalidInputError(f"stencil width and depth must be >= 1, got {width}x{depth}")
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from((i, j) for i in range(depth) for j in range(width))
    for i in range(1, depth):
        for j in range(width):
            for dj in (-1, 0, 1):
                if 0 <= j + dj < width:
                    g.add_edge((i - 1, j + dj), (i, j))
    return g


def compose_workload(*, independent: tuple[np.ndarray, np.ndarray] | None = None,
                     applications: Sequence[tuple[nx.DiGraph, dict, float]] = ()) -> TimeshareWorkload:
    """Build a :class:`TimeshareWorkload` from independent tasks and DAG applications.

    Parameters
    ----------
    independent : (arrival dates, types), optional
        Independent tasks (client -1), numbered first, in date order.
    applications : sequence of (graph, types, start)
        A DAG whose nodes are sortable (lexical order = submission order of ready
        tasks), a mapping node -> type, and the date its sources are submitted.
        Application ``k`` is client ``k``.
    """
    ttype: list[int] = []
    release: list[float] = []
    parents: list[tuple] = []
    client: list[int] = []
    if independent is not None:
        arr, types = (np.asarray(x) for x in independent)
        order = np.argsort(arr, kind="stable")
        ttype += [int(t) for t in types[order]]
        release += [float(a) for a in arr[order]]
        parents += [()] * arr.size
        client += [-1] * arr.size
    for k, (graph, types, start) in enumerate(applications):
        nodes = sorted(graph.nodes)
        index = {node: len(ttype) + r for r, node in enumerate(nodes)}
        try:
            topo_ok = all(index[p] < index[c] for p, c in graph.edges)
        except KeyError:  # pragma: no cover
            topo_ok = False
        if not topo_ok:
            raise InvalidInputError(f"application {k}: the lexical order of its nodes must be a topological order")
        for node in nodes:
            ps = tuple(sorted(index[p] for p in graph.predecessors(node)))
            ttype.append(int(types[node]))
            release.append(float(start) if not ps else float("nan"))
            parents.append(ps)
            client.append(k)
    return TimeshareWorkload(np.array(ttype, dtype=np.int64), np.array(release, dtype=float), tuple(parents),
                    np.array(client, dtype=np.int64))


def generate_scenario(scenario: str, *, platform: str | Platform | None = None, mu: float | None = None,
                      rng=0, interarrival: str = "poisson", noise: float = 0.0) -> TimeshareInstance:
    """Instantiate scenario (a)-(j) of Table 2 with a seed.

    Parameters
    ----------
    scenario : str
        ``"a"`` .. ``"j"``.
    platform : {"1", "2"} or Platform, optional
        Default: the paper's (dgemm servers for (a), platform 2 otherwise; (b) also
        ran on platform 1). Scenario (a) needs dgemm costs: only ``"dgemm"``.
    mu : float, optional
        Mean inter-arrival time (s) of independent tasks, and of application heads in
        (c), (d); default the paper's (a: 20, b: 17, c-d: 15, e: 20, h: 28, i: 40,
        j: 25). Ignored by (f) and (g), which have no arrivals.
    rng : int, SeedSequence or Generator
    interarrival : {"poisson", "exponential"}
    noise : float
        Coefficient of variation of a log-normal factor on each task's real
        computation time (0: the tables are exact, as the HTM assumes).

    Returns
    -------
    TimeshareInstance
    """
    key = str(scenario).lower()
    if key not in SCENARIOS:
        raise InvalidInputError(f"unknown scenario {scenario!r}; choose one of {', '.join(SCENARIOS)}")
    spec = SCENARIOS[key]
    if isinstance(platform, Platform):
        plat = platform
    else:
        name = spec["platform"] if platform is None else str(platform)
        if key == "a" and name != "dgemm":
            raise InvalidInputError("scenario a uses dgemm tasks on its own servers (chamagne, pulney, cabestan, "
                                    "artimon); drop --platform")
        if key != "a" and name not in ("1", "2"):
            raise InvalidInputError(f"platform must be 1 or 2 for scenario {key}, got {name!r}")
        plat = platform_for(name)
    if mu is None:
        mu = spec.get("mu")
    if mu is not None and not (mu > 0 and np.isfinite(mu)):
        raise InvalidInputError(f"mu must be a positive number of seconds, got {mu}")
    ss = _seed_sequence(rng)
    s_types, s_arrivals, s_struct, s_noise = ss.spawn(4)
    g_types = np.random.default_rng(s_types)
    g_struct = np.random.default_rng(s_struct)
    nt = plat.n_types
    independent = None
    apps: list = []
    n_ind = spec.get("independent", 0)
    n_chains = spec.get("chains", 0)
    if n_chains and n_ind:  # (e): heads take random positions among all arrival dates
        dates = arrival_dates(n_ind + n_chains, mu, s_arrivals, law=interarrival)
        heads = np.sort(g_struct.choice(dates.size, size=n_chains, replace=False))
        is_head = np.zeros(dates.size, dtype=bool)
        is_head[heads] = True
        independent = (dates[~is_head], g_types.integers(0, nt, size=n_ind))
        head_dates = dates[heads]
    elif n_chains:
        head_dates = arrival_dates(n_chains, mu, s_arrivals, law=interarrival)
    elif n_ind:
        dates = arrival_dates(n_ind, mu, s_arrivals, law=interarrival)
        independent = (dates, g_types.integers(0, nt, size=n_ind))
    for c in range(n_chains):
        lo, hi = spec["chain_size"]
        size = int(g_struct.integers(lo, hi + 1))
        types = g_types.integers(0, nt, size=size)
        apps.append((mesh_dag(size), {k: int(types[k]) for k in range(size)}, float(head_dates[c])))
    if "stencil" in spec:
        width, depth = spec["stencil"]
        g = stencil_dag(width, depth)
        start = 0.0 if independent is None else float(np.sort(independent[0])[n_ind // 10])
        apps.append((g, {node: spec["stencil_type"] for node in g.nodes}, start))
    workload = compose_workload(independent=independent, applications=apps)
    factor = _lognormal_factor(noise, s_noise, workload.n_tasks) if noise > 0 else None
    seed = rng if isinstance(rng, (int, np.integer)) else None
    return TimeshareInstance(scenario=key, platform=plat, workload=workload,
                             mu=None if "stencil" in spec and not n_ind else mu, seed=seed, work_factor=factor,
                             noise=float(noise), noise_seed=s_noise if noise > 0 else None)


def _lognormal_factor(cv: float, seed: np.random.SeedSequence, n: int) -> np.ndarray:
    """``n`` log-normal factors of mean 1 and coefficient of variation ``cv``."""
    sigma = np.sqrt(np.log1p(cv**2))
    return np.random.default_rng(seed).lognormal(-sigma**2 / 2, sigma, size=n)


def rerun_noise(instance: TimeshareInstance, stream: int, run: int) -> TimeshareInstance:
    """The same instance with the real computation times of another execution: fresh noise.

    The paper ran each heuristic several times on the same task set, each run on a real
    platform with its own perturbations, and compared every run of a heuristic with
    every run of MCT (§5.2.2, "cross product"). Run ``run`` of stream ``stream`` (one
    stream per heuristic) draws its factors, with the instance's coefficient of
    variation, from the child ``(stream, run)`` of the instance's noise stream: the
    same arguments give the same factors, and different streams or runs are
    independent.

    Raises
    ------
    InvalidInputError
        The instance has no noise (every run would be identical).
    """
    if not instance.noise > 0 or instance.noise_seed is None:
        raise InvalidInputError("repeated runs need a noise on the computation times (noise > 0, --noise): "
                                "without it every run is identical")
    if stream < 0 or run < 0:
        raise InvalidInputError(f"stream and run must be >= 0, got {stream}, {run}")
    base = instance.noise_seed
    child = np.random.SeedSequence(base.entropy, spawn_key=(*base.spawn_key, 1 + int(stream), int(run)))
    return dataclasses.replace(instance, work_factor=_lognormal_factor(instance.noise, child,
                                                                         instance.workload.n_tasks))
