"""Time-shared servers of a client-agent-server (GridRPC) system: platforms, task costs, metrics.

Data of Caniou & Jeannot, *Study of the behaviour of heuristics relying on the
Historical Trace Manager in a (multi)client-agent-server system*, INRIA RR-5168
(2004), seed 003:

* Table 3: the servers (memory and swap);
* Table 4: *dgemm* tasks of matrix size 1200 / 1500 / 1800 (input, computation and
  output times per server, memory needs);
* Table 5: *wastecpu* tasks of parameter 200 / 400 / 600 (no memory need).

A :class:`Platform` holds, for every server ``s`` and task type ``k``, the three phase
durations ``input[s, k]``, ``compute[s, k]`` (on the unloaded server) and
``output[s, k]``, the memory capacity of each server and the memory need of each
type. Types are numbered 0, 1, 2 for the paper's types 1, 2, 3.

Metrics (§3) are computed by :func:`metrics` from a per-task record of arrivals,
completions and servers, and :func:`compare_with` gives the percentage of tasks that
finish sooner / later than under a reference run (MCT), with the paper's 2-second
threshold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.names.timeshare import MEMORY_MODELS

__all__ = [
    "Platform",
    "SERVERS",
    "DGEMM",
    "WASTECPU",
    "PLATFORMS",
    "make_platform",
    "platform_for",
    "metrics",
    "compare_with",
    "server_shares",
    "client_makespans",
    "SOONER_THRESHOLD",
    "implied_speed",
    "cross_compare",
]

SOONER_THRESHOLD = 2.0
"""A task finishes *sooner* (later) than under MCT when its completion date differs by at least 2 s (§5.2.2)."""

# Table 3: memory and swap in MB (Mo).
SERVERS: dict[str, dict[str, float]] = {
    "spinnaker": {"memory": 1024.0, "swap": 2048.0},
    "artimon": {"memory": 512.0, "swap": 1024.0},
    "pulney": {"memory": 256.0, "swap": 533.0},
    "cabestan": {"memory": 192.0, "swap": 400.0},
    "valette": {"memory": 128.0, "swap": 126.0},
    "chamagne": {"memory": 512.0, "swap": 134.0},
    "soyotte": {"memory": 64.0, "swap": 188.0},
    "fonck": {"memory": 64.0, "swap": 188.0},
}

# Table 4: dgemm of size 1200, 1500, 1800; memory need = input + output (MB); times in s.
DGEMM = {
    "labels": ("1200", "1500", "1800"),
    "memory": (21.97 + 10.98, 34.33 + 17.16, 49.43 + 24.72),
    "input": {"pulney": (3, 5, 7), "artimon": (3, 5, 8), "cabestan": (4, 5, 8), "chamagne": (4, 6, 8)},
    "compute": {"pulney": (14, 25, 40), "artimon": (18, 33, 53), "cabestan": (70, 136, 231),
                "chamagne": (149, 292, 504)},
    "output": {"pulney": (1, 1, 2), "artimon": (1, 1, 2), "cabestan": (1, 2, 3), "chamagne": (1, 2, 3)},
}

# Table 5: wastecpu of parameter 200, 400, 600; no memory need; times in s.
WASTECPU = {
    "labels": ("200", "400", "600"),
    "memory": (0.0, 0.0, 0.0),
    "input": {"spinnaker": (0.09, 0.14, 0.09), "artimon": (0.12, 0.13, 0.14), "cabestan": (0.1, 0.09, 0.08),
              "valette": (0.08, 0.08, 0.13), "soyotte": (0.10, 0.18, 0.14), "fonck": (0.16, 0.16, 0.16)},
    "compute": {"spinnaker": (16, 30.6, 45.6), "artimon": (17.1, 33.2, 49.4), "cabestan": (74.86, 148.48, 222.26),
                "valette": (97.81, 182.52, 273.28), "soyotte": (128.09, 255.56, 382.5),
                "fonck": (127.56, 254.09, 380.66)},
    "output": {"spinnaker": (0.05, 0.06, 0.05), "artimon": (0.03, 0.03, 0.03), "cabestan": (0.03, 0.03, 0.03),
               "valette": (0.03, 0.03, 0.03), "soyotte": (0.06, 0.06, 0.06), "fonck": (0.05, 0.05, 0.05)},
}

# Server lists of §5.2.1 (scenario a), §5.2.2 platform 1 and platform 2 (scenarios b-j).
PLATFORMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "dgemm": ("dgemm", ("chamagne", "pulney", "cabestan", "artimon")),
    "1": ("wastecpu", ("valette", "spinnaker", "cabestan", "artimon")),
    "2": ("wastecpu", ("spinnaker", "artimon", "soyotte", "fonck")),
}


@dataclasses.dataclass(frozen=True)
class Platform:
    """Servers and task costs of one experiment.

    Attributes
    ----------
    name : str
        ``"dgemm"``, ``"1"`` or ``"2"`` for the paper's platforms, or any label.
    servers : tuple of str
        Server names, in the agent's order (ties between servers break by this order).
    input, compute, output : ndarray, shape (n_servers, n_types)
        Phase durations in seconds on the unloaded server (Tables 4-5).
    memory : ndarray, shape (n_servers,)
        Memory capacity in MB (by default the physical memory of Table 3; ``inf`` = unlimited).
    task_memory : ndarray, shape (n_types,)
        Memory a task of each type holds on its server from its arrival to the end of
        its output transfer (input + output sizes of Table 4; 0 for wastecpu).
    kind : str
        ``"dgemm"`` or ``"wastecpu"``.
    """

    name: str
    servers: tuple[str, ...]
    input: np.ndarray
    compute: np.ndarray
    output: np.ndarray
    memory: np.ndarray
    task_memory: np.ndarray
    kind: str = "custom"

    def __post_init__(self) -> None:
        shape = (len(self.servers), len(self.task_memory))
        for field in ("input", "compute", "output"):
            arr = np.asarray(getattr(self, field), dtype=float)
            if arr.shape != shape:
                raise InvalidInputError(f"platform {self.name!r}: {field} has shape {arr.shape}, expected {shape} "
                                        f"(servers x task types)")
            if not np.all(np.isfinite(arr)) or np.any(arr < 0):
                raise InvalidInputError(f"platform {self.name!r}: {field} must hold finite durations >= 0")
            object.__setattr__(self, field, arr)
        if np.any(self.compute <= 0):
            raise InvalidInputError(f"platform {self.name!r}: computation times must be > 0")
        object.__setattr__(self, "memory", np.asarray(self.memory, dtype=float).reshape(len(self.servers)))
        object.__setattr__(self, "task_memory", np.asarray(self.task_memory, dtype=float))

    @property
    def n_servers(self) -> int:
        return len(self.servers)

    @property
    def n_types(self) -> int:
        return self.compute.shape[1]

    @property
    def duration(self) -> np.ndarray:
        """Unloaded duration ``d[s, k]`` = input + computation + output (the stretch's denominator, §3)."""
        return self.input + self.compute + self.output

    @property
    def heterogeneity(self) -> float:
        """max over types of max/min computation time across servers (§5.1)."""
        return float(np.max(self.compute.max(axis=0) / self.compute.min(axis=0)))


def make_platform(kind: str, servers: Sequence[str], *, name: str | None = None,
                  memory: str = "ram", swap_share: float = 1.0,
                  compute_scale: Mapping[str, float] | None = None) -> Platform:
    """A platform from the paper's tables.

    Parameters
    ----------
    kind : {"dgemm", "wastecpu"}
        Task kind (Table 4 or Table 5).
    servers : sequence of str
        Server names; each must have costs in the chosen table.
    memory : {"ram", "ram+swap", "none"}
        Capacity of a server for the collapse model (see :mod:`vcsched.sim.timeshare`):
        its physical memory of Table 3 (default), memory + swap, or unlimited. With
        "ram" our simulation loses tasks under HMCT at μ = 15 and none at μ = 20, as the
        paper's platform did (§5.2.1, Tables 6-7); with "ram+swap" no server ever
        collapses in scenario (a).
    swap_share : float
        With ``memory="ram+swap"``, the share of the swap (0 to 1) that counts: the
        capacity is RAM + ``swap_share`` x swap (1: all of it).
    compute_scale : mapping of server name to factor, optional
        Multiplies the tabulated computation times of the named servers (e.g.
        ``{"spinnaker": 0.916}``: 9.2 % faster than Table 5; input and output times are
        unchanged). The tables are dedicated-server benchmarks; the paper's own
        utilisation tables imply faster fast servers at μ = 15 and 17 (see
        :func:`implied_speed`). Every name must be one of ``servers``.
    """
    if not 0.0 <= swap_share <= 1.0:
        raise InvalidInputError(f"swap_share must be between 0 and 1, got {swap_share}")
    table = {"dgemm": DGEMM, "wastecpu": WASTECPU}.get(kind)
    if table is None:
        raise InvalidInputError(f"unknown task kind {kind!r}; choose dgemm or wastecpu")
    missing = [s for s in servers if s not in table["compute"]]
    if missing:
        raise InvalidInputError(f"no {kind} costs for server(s) {', '.join(missing)} in the paper's tables; "
                                f"choose among {', '.join(table['compute'])}")
    rows = lambda phase: np.array([table[phase][s] for s in servers], dtype=float)  # noqa: E731
    if memory not in MEMORY_MODELS:
        raise InvalidInputError(f"unknown memory model {memory!r}; choose {', '.join(MEMORY_MODELS[:-1])} or "
                                f"{MEMORY_MODELS[-1]}")
    cap = np.array([np.inf if memory == "none" else
                    SERVERS[s]["memory"] + (swap_share * SERVERS[s]["swap"] if memory == "ram+swap" else 0.0)
                    for s in servers])
    return Platform(name=name or kind, servers=tuple(servers), input=rows("input"),
                    compute=rows("compute") * _scale_column(servers, compute_scale), output=rows("output"),
                    memory=cap, task_memory=np.array(table["memory"]), kind=kind)


def _scale_column(servers: Sequence[str], compute_scale: Mapping[str, float] | None) -> np.ndarray:
    """Per-server factor on the computation times, shape (n_servers, 1) (1 for servers not named)."""
    scale = dict(compute_scale or {})
    unknown = [s for s in scale if s not in servers]
    if unknown:
        raise InvalidInputError(f"compute_scale names server(s) {', '.join(map(str, unknown))} that are not on the "
                                f"platform; choose among {', '.join(servers)}")
    for s, f in scale.items():
        if not (isinstance(f, (int, float, np.floating, np.integer)) and np.isfinite(f) and 0 < f <= 100):
            raise InvalidInputError(f"compute_scale for {s!r} must be a number in (0, 100], got {f!r}")
    return np.array([[float(scale.get(s, 1.0))] for s in servers])


def implied_speed(work: float, makespan: float, start: float = 0.0) -> float:
    """Smallest speed factor (real speed / tabulated speed) a server needs to have done ``work`` seconds of
    tabulated computation between ``start`` and ``makespan``.

    Processor sharing is work-conserving: a server computes at most ``makespan - start`` seconds of
    dedicated time in that interval, so a ratio above 1 means the server ran faster than its table.
    Used on the paper's utilisation tables (10, 12, 14) with the makespans of Tables 16-18.

    >>> round(implied_speed(110.0, 110.0, 10.0), 3)
    1.1
    """
    if not (np.isfinite(work) and np.isfinite(makespan) and np.isfinite(start) and makespan > start and work >= 0):
        raise InvalidInputError(f"implied_speed needs work >= 0 and makespan > start, got work={work}, "
                                f"makespan={makespan}, start={start}")
    return float(work / (makespan - start))


def platform_for(name: str) -> Platform:
    """One of the paper's platforms: ``"dgemm"`` (scenario a), ``"1"`` or ``"2"`` (wastecpu)."""
    key = str(name)
    if key not in PLATFORMS:
        raise InvalidInputError(f"unknown platform {name!r}; choose one of {', '.join(PLATFORMS)}")
    kind, servers = PLATFORMS[key]
    return make_platform(kind, servers, name=key)


def _finished(completion: np.ndarray) -> np.ndarray:
    return np.isfinite(completion)


def metrics(arrival: np.ndarray, completion: np.ndarray, duration: np.ndarray) -> dict[str, float]:
    """Metrics of §3 over the completed tasks.

    Parameters
    ----------
    arrival : ndarray
        Submission dates ``a_i`` (when the request reaches the agent).
    completion : ndarray
        Completion dates ``C_i`` (end of the output transfer); ``nan`` for a task that
        never completed (refused by every server it was sent to).
    duration : ndarray
        ``d_i``, duration of the task on its server when unloaded.

    Returns
    -------
    dict
        ``completed`` (count), ``makespan`` = max C_i, ``sumflow`` = Σ (C_i - a_i),
        ``maxflow``, ``meanflow`` and ``maxstretch`` = max (C_i - a_i) / d_i; flows are
        ``nan`` when nothing completed.
    """
    arrival, completion, duration = (np.asarray(x, dtype=float) for x in (arrival, completion, duration))
    done = _finished(completion)
    n = int(done.sum())
    if n == 0:
        nan = float("nan")
        return {"completed": 0, "makespan": nan, "sumflow": nan, "maxflow": nan, "maxstretch": nan, "meanflow": nan}
    flow = completion[done] - arrival[done]
    return {
        "completed": n,
        "makespan": float(completion[done].max()),
        "sumflow": float(flow.sum()),
        "maxflow": float(flow.max()),
        "maxstretch": float(np.max(flow / duration[done])),
        "meanflow": float(flow.mean()),
    }


def compare_with(completion: np.ndarray, reference: np.ndarray, *,
                 threshold: float = SOONER_THRESHOLD) -> tuple[float, float]:
    """Percentages of tasks finishing sooner / later than in ``reference`` (§3, §5.2.2).

    A task finishes sooner when ``C_ref - C >= threshold`` and later when
    ``C - C_ref >= threshold``; both percentages are over *all* tasks, so they need not
    sum to 100 (tasks within 2 s of each other count in neither). A task that completed
    in one run only counts as sooner in the run where it completed; a task that never
    completed in either run counts in neither (our choice: the paper does not say).
    """
    c = np.asarray(completion, dtype=float)
    r = np.asarray(reference, dtype=float)
    if c.shape != r.shape:
        raise InvalidInputError(f"cannot compare runs of {c.size} and {r.size} tasks; use the same workload")
    if c.size == 0:
        return 0.0, 0.0
    c_inf = np.where(np.isfinite(c), c, np.inf)
    r_inf = np.where(np.isfinite(r), r, np.inf)
    with np.errstate(invalid="ignore"):
        diff = r_inf - c_inf  # inf - inf = nan: neither
        sooner = np.count_nonzero(diff >= threshold)
        later = np.count_nonzero(diff <= -threshold)
    return 100.0 * sooner / c.size, 100.0 * later / c.size


def cross_compare(completions: Sequence[np.ndarray], references: Sequence[np.ndarray], *,
                  threshold: float = SOONER_THRESHOLD) -> tuple[float, float]:
    """:func:`compare_with` in the paper's "cross product" (§5.2.2): the mean over every pair (run of the
    heuristic, run of MCT) of the sooner / later percentages.

    With one run on each side this is :func:`compare_with`.

    >>> cross_compare([np.array([10.0])], [np.array([13.0]), np.array([11.0])])
    (50.0, 0.0)
    """
    if not len(completions) or not len(references):
        raise InvalidInputError("cross_compare needs at least one run on each side")
    pairs = [compare_with(c, r, threshold=threshold) for c in completions for r in references]
    return float(np.mean([p[0] for p in pairs])), float(np.mean([p[1] for p in pairs]))


def server_shares(server: np.ndarray, ttype: np.ndarray, arrival: np.ndarray, completion: np.ndarray,
                  servers: Sequence[str], n_types: int = 3) -> list[dict]:
    """Per-server share of tasks (percent of all tasks, and per type) and sumflow (Tables 10, 12, 14).

    A task counts on the server that accepted it; tasks refused everywhere (server -1)
    are on no server.
    """
    server = np.asarray(server)
    ttype = np.asarray(ttype)
    n = max(len(server), 1)
    flow = np.asarray(completion, dtype=float) - np.asarray(arrival, dtype=float)
    rows = []
    for s, name in enumerate(servers):
        on = server == s
        done = on & np.isfinite(flow)
        row = {"server": name, "percent": 100.0 * on.sum() / n, "sumflow": float(flow[done].sum())}
        for k in range(n_types):
            row[f"percent_type{k + 1}"] = 100.0 * np.count_nonzero(on & (ttype == k)) / n
        rows.append(row)
    return rows


def client_makespans(client: np.ndarray, arrival: np.ndarray, completion: np.ndarray) -> Mapping[int, dict]:
    """Per application (client >= 0): makespan (last completion date) and sumflow (Figs 7-18)."""
    client = np.asarray(client)
    out: dict[int, dict] = {}
    for c in np.unique(client[client >= 0]):
        mask = client == c
        comp = np.asarray(completion, dtype=float)[mask]
        arr = np.asarray(arrival, dtype=float)[mask]
        done = np.isfinite(comp)
        out[int(c)] = {"makespan": float(comp[done].max()) if done.any() else float("nan"),
                       "sumflow": float((comp[done] - arr[done]).sum()), "tasks": int(mask.sum())}
    return out


@dataclasses.dataclass(frozen=True)
class TimeshareWorkload:
    """The requests of one experiment: independent tasks and applications (DAGs of requests).

    (:class:`vcsched.problems.workload.Workload` is the jobs of an SWF trace, another thing.)

    Task ``i`` is submitted to the agent at ``release[i]`` when it has no parents, and
    otherwise as soon as all of ``parents[i]`` are done (their result is back at the
    client, §5.1); a task refused by every server counts as done at its refusal (as
    NetSolve clients do, §5.6.3). Tasks released at the same instant are submitted in
    increasing index order, which generators make the lexical (i, j) order of stencils.

    Attributes
    ----------
    ttype : ndarray of int
        Task type (0, 1, 2 = the paper's types 1, 2, 3).
    release : ndarray of float
        Submission date of tasks without parents, ``nan`` for the others.
    parents : tuple of tuple of int
        Predecessors of every task; each parent index is smaller than the task's.
    client : ndarray of int
        Application of the task (``-1`` for independent tasks).
    """

    ttype: np.ndarray
    release: np.ndarray
    parents: tuple
    client: np.ndarray

    def __post_init__(self) -> None:
        ttype = np.asarray(self.ttype, dtype=np.int64)
        release = np.asarray(self.release, dtype=float)
        client = np.asarray(self.client, dtype=np.int64)
        n = ttype.size
        if release.shape != (n,) or client.shape != (n,) or len(self.parents) != n:
            raise InvalidInputError(f"workload arrays must all have {n} entries (ttype, release, parents, client)")
        parents = tuple(tuple(int(p) for p in ps) for ps in self.parents)
        for i, ps in enumerate(parents):
            if any(p < 0 or p >= i for p in ps):
                raise InvalidInputError(f"task {i}: parents {ps} must be earlier tasks (indices 0..{i - 1}); "
                                        f"number tasks in a topological order")
            if not ps and not (np.isfinite(release[i]) and release[i] >= 0):
                raise InvalidInputError(f"task {i} has no parent and no release date >= 0; give it one")
        if n and (ttype.min() < 0):
            raise InvalidInputError("task types must be >= 0")
        object.__setattr__(self, "ttype", ttype)
        object.__setattr__(self, "release", release)
        object.__setattr__(self, "client", client)
        object.__setattr__(self, "parents", parents)

    @property
    def n_tasks(self) -> int:
        return int(self.ttype.size)

    @classmethod
    def independent(cls, arrival, ttype) -> TimeshareWorkload:
        """Independent tasks submitted at the given dates (sorted by date)."""
        arrival = np.asarray(arrival, dtype=float)
        order = np.argsort(arrival, kind="stable")
        return cls(np.asarray(ttype)[order], arrival[order], tuple(() for _ in order),
                   np.full(arrival.size, -1))


def first_tasks(workload: TimeshareWorkload, n: int) -> tuple[TimeshareWorkload, np.ndarray]:
    """The first ``n`` tasks of ``workload`` by arrival, and their indices in it.

    A task without parents arrives at its release date; a DAG task is ranked at the latest
    arrival rank of its parents (its application's submission), then by index, so the tasks kept
    always include the parents of each kept task (indices are topological). Ties keep the
    workload's order.

    >>> w = TimeshareWorkload.independent([5.0, 1.0, 3.0], [0, 1, 2])
    >>> first_tasks(w, 2)[0].release.tolist()
    [1.0, 3.0]
    """
    if not (isinstance(n, (int, np.integer)) and n >= 1):
        raise InvalidInputError(f"the number of tasks must be an integer >= 1, got {n!r}")
    key = np.where(np.isfinite(workload.release), workload.release, -np.inf)
    for i, ps in enumerate(workload.parents):
        if ps:
            key[i] = max(key[q] for q in ps)
    keep = np.sort(np.lexsort((np.arange(workload.n_tasks), key))[:n])
    pos = {int(i): r for r, i in enumerate(keep)}
    parents = tuple(tuple(pos[q] for q in workload.parents[i]) for i in keep)
    return (TimeshareWorkload(workload.ttype[keep], workload.release[keep], parents, workload.client[keep]),
            keep)


__all__ += ["TimeshareWorkload", "first_tasks"]


@dataclasses.dataclass(frozen=True)
class TimeshareInstance:
    """A scenario instantiated with a seed: platform + workload (+ optional real-work noise).

    Attributes
    ----------
    scenario : str
        ``"a"`` .. ``"j"`` (Table 2) or a free label.
    platform : Platform
    workload : TimeshareWorkload
    mu : float or None
        Mean inter-arrival time of independent tasks / application heads (s).
    seed : int or None
    work_factor : ndarray or None
        Real computation time / tabulated one, per task (None: the tables are exact).
    noise : float
        Coefficient of variation ``work_factor`` was drawn with (0: none).
    noise_seed : SeedSequence or None
        The stream ``work_factor`` came from; further runs with their own noise are
        drawn from children of it (:func:`vcsched.generators.timeshare.rerun_noise`).
    """

    scenario: str
    platform: Platform
    workload: TimeshareWorkload
    mu: float | None = None
    seed: int | None = None
    work_factor: np.ndarray | None = None
    noise: float = 0.0
    noise_seed: np.random.SeedSequence | None = None


# Table 2, with the platforms and rates of §5.2-5.7. ``stencil_type`` for (h) and (i) is not
# given by the paper: we use type 1 as in (f) and (j).
SCENARIOS: dict[str, dict] = {
    "a": {"title": "500 independent dgemm tasks", "platform": "dgemm", "independent": 500, "mu": 20.0},
    "b": {"title": "500 independent wastecpu tasks", "platform": "2", "independent": 500, "mu": 17.0},
    "c": {"title": "10 1D-meshes of 50 tasks", "platform": "2", "chains": 10, "chain_size": (50, 50), "mu": 15.0},
    "d": {"title": "10 1D-meshes of 20-80 tasks", "platform": "2", "chains": 10, "chain_size": (20, 80), "mu": 15.0},
    "e": {"title": "5 1D-meshes of 50 tasks + 250 independent tasks", "platform": "2", "chains": 5,
          "chain_size": (50, 50), "independent": 250, "mu": 20.0},
    "f": {"title": "10x50 stencil of type-1 tasks", "platform": "2", "stencil": (10, 50), "stencil_type": 0},
    "g": {"title": "10x50 stencil of type-3 tasks", "platform": "2", "stencil": (10, 50), "stencil_type": 2},
    "h": {"title": "10x25 stencil + 174 independent tasks", "platform": "2", "stencil": (10, 25), "stencil_type": 0,
          "independent": 174, "mu": 28.0},
    "i": {"title": "10x25 stencil + 86 independent tasks", "platform": "2", "stencil": (10, 25), "stencil_type": 0,
          "independent": 86, "mu": 40.0},
    "j": {"title": "5x25 stencil + 86 independent tasks", "platform": "2", "stencil": (5, 25), "stencil_type": 0,
          "independent": 86, "mu": 25.0},
}

__all__ += ["TimeshareInstance", "SCENARIOS"]
