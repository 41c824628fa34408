"""Bounds specific to processor sharing: pairwise slow-downs for sumflow, groups of tasks for maxflow and maxstretch.

The preemptive relaxation (:mod:`lowerbounds.timeshare.lp`) lets a server run one task at a time at
full speed, which shortest-remaining-time-first exploits: two equal tasks arriving together then
have flows ``p`` and ``2p`` where processor sharing gives ``2p`` and ``2p``. This bound keeps the
sharing.

**Pair property.** Let tasks ``e`` and ``l`` share server ``s``, ``e`` joining the computation first
(at ``r_e <= r_l``, the end of its input transfer). Alone with ``e``, ``l`` would find ``e`` with
``R = max(p_e - (r_l - r_e), 0)`` work left; with other tasks on the server, ``e`` has received at
most ``r_l - r_e`` seconds of service by then, so it has at least ``R`` left. While both compute,
processor sharing gives them the same service, until one ends; so each receives at least
``u_el = min(R, p_l)`` while the other is present. A task's computation lasts at least the CPU time
the server spends during it: its own ``p_i`` plus, for every other task ``j`` on the server, the
service ``j`` receives while ``i`` is present. Hence, for any mapping,

    flow_i >= d_is + Σ_{j on s, j != i} u_ij^s        (d_is: unloaded duration, u_ij = u_ji)

and ``sumflow >= Σ_i d_{i,s(i)} + 2 Σ_{i<j, s(i)=s(j)} u_ij^{s(i)}``. With all tasks arriving together
this is processor sharing's sumflow exactly (``Σ p + 2 Σ_{i<j} min(p_i, p_j)``).

**Minimum over mappings.** The right side is a sum of a per-task cost and pairwise costs. Dropping
the pairs more than ``K`` tasks apart in arrival order (the terms are >= 0) leaves a chain, which a
dynamic programme over the tasks in arrival order minimises exactly, with the servers of the last
``K`` tasks as its state (``S^K`` states). The result is a lower bound on every mapping's sumflow.
Knowing which window tasks share the server, the earlier task's work left is taken from processor
sharing among them (``shared``), which only makes ``u`` larger and stays valid.

**Groups (maxflow, maxstretch).** :func:`max_group_bounds` minimises, over the mappings of a few
consecutive tasks, their largest flow (or stretch) under processor sharing among themselves alone.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.timeshare._backlog_dp import backlog_bound_compiled
from lowerbounds.timeshare._pairs_dp import pair_bound_compiled
from vcsched.errors import InvalidInputError
from vcsched.sim.processor_sharing import ps_completion_times

__all__ = ["pair_slowdowns", "sumflow_pair_bound", "window_for", "default_window", "max_group_bounds",
           "sumflow_backlog_bound", "backlog_edges", "bucket_edges", "spread_edges", "tracked_servers",
           "computing_servers"]


STATE_LIMIT = 1 << 15
"""Most entries of one step of the dynamic programme (``S^(K+1)``)."""
SHARED_RUNS = 100_000
"""With ``shared``, the default window keeps ``n S 2^K`` (processor-sharing replays of window subsets) below this."""


def window_for(servers: int, n: int) -> int:
    """The largest ``K <= min(n - 1, 10)`` with ``servers^(K+1) <= STATE_LIMIT`` (at least 1)."""
    k = 1
    while k + 1 <= min(n - 1, 10) and servers ** (k + 2) <= STATE_LIMIT:
        k += 1
    return k


def default_window(servers: int, n: int, shared: bool = True) -> int:
    """The window of :func:`sumflow_pair_bound` when none is given: :func:`window_for`, made smaller with
    ``shared`` until ``n S 2^K <= SHARED_RUNS``."""
    K = window_for(servers, n)
    while shared and K > 1 and n * servers * 2 ** K > SHARED_RUNS:
        K -= 1
    return K


def pair_slowdowns(join: np.ndarray, p: np.ndarray, earlier: np.ndarray, later: int) -> np.ndarray:
    """``u`` between task ``later`` and each of ``earlier`` on every server, shape (len(earlier), S).

    ``join``, ``p``: (n, S) computation start (alone) and computation time.
    """
    je, jl = join[earlier], join[later][None, :]
    pe, pl = p[earlier], p[later][None, :]
    first_e = je <= jl
    r_first = np.where(first_e, je, jl)
    r_second = np.where(first_e, jl, je)
    p_first = np.where(first_e, pe, pl)
    p_second = np.where(first_e, pl, pe)
    left = np.maximum(p_first - (r_second - r_first), 0.0)
    return np.minimum(left, p_second)


def sumflow_pair_bound(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray, *,
                       window: int | None = None, shared: bool = True, deadline: float | None = None) -> float | None:
    """``min over mappings of Σ_i d_{i,s(i)} + 2 Σ u_ij`` over pairs at most ``window`` apart in arrival order.

    Parameters
    ----------
    arrival : ndarray (n,)
        Arrival dates of independent tasks.
    inp, p, out : ndarray (n, S)
        Input, computation and output times per task and server.
    window : int, optional
        ``K``; default :func:`window_for`, made smaller with ``shared`` until ``n S 2^K <= SHARED_RUNS``.
    shared : bool
        Take the earlier task's work left when the later one joins from processor sharing among the
        tasks of the window on that server (known in the state), not from the earlier task alone:
        more tasks only leave it more work, so the bound stays valid and grows. False: the plain ``u``
        of :func:`pair_slowdowns`.
    deadline : float, optional
        A :func:`vcsched.jitclock.clock` date: ``None`` is returned when it passes before the programme ends.

    The dynamic programme runs compiled (:func:`lowerbounds.timeshare._pairs_dp.pair_bound_compiled`, ``S^K``
    states); its plain NumPy version, which it is tested against, lives in the tests.
    """
    n, S = p.shape
    if n == 0:
        return 0.0
    K = default_window(S, n, shared) if window is None else window
    return pair_bound_compiled(arrival, inp, p, out, K, shared=shared, deadline=deadline)


TRACKED = 2
"""Most servers whose work left the backlog bound keeps in its state (the fastest ones, by mean computation)."""
FINE_RANGE = 3.0
"""The backlog buckets have width ``step`` up to this many times the largest computation on a tracked server."""
COARSE_BUCKETS, COARSE_RATIO = 10, 1.3
"""Above, this many buckets, each this many times as wide as the previous one's start."""


def tracked_servers(p: np.ndarray) -> tuple[int, ...]:
    """The servers whose work left :func:`sumflow_backlog_bound` tracks: those that compute (a merged label of
    :func:`lowerbounds.timeshare.bounds.merge_slow_servers` does not), at most :data:`TRACKED`, fastest first."""
    computing = np.flatnonzero(p.max(axis=0) > 0) if p.size else np.empty(0, dtype=int)
    fastest = computing[np.argsort(p[:, computing].mean(axis=0), kind="stable")][:TRACKED]
    return tuple(int(s) for s in sorted(fastest.tolist()))


def bucket_edges(step: float, top: float, coarse: int = COARSE_BUCKETS, ratio: float = COARSE_RATIO) -> np.ndarray:
    """Lower edges of buckets of work left: ``step`` wide up to ``top``, then ``coarse`` buckets, each ``ratio`` times
    as wide as the previous one's start."""
    edges = list(np.arange(0.0, top, step)) if top > 0 else [0.0]
    x = max(top, step)
    for _ in range(coarse):
        edges.append(x)
        x *= ratio
    return np.array(edges)


def backlog_edges(p: np.ndarray, tracked, step: float) -> np.ndarray:
    """Lower edges of the buckets of one tracked server's work left: ``step`` wide up to :data:`FINE_RANGE` times
    the largest computation on a tracked server, then :data:`COARSE_BUCKETS` growing by :data:`COARSE_RATIO`."""
    return bucket_edges(step, FINE_RANGE * float(max((p[:, s].max() for s in tracked), default=0.0)))


FAST_RANGE = 2.0
"""With every server tracked (:func:`spread_edges`), a fast server's buckets have width ``step`` up to this many
times its largest computation."""
SLOW_DIVISIONS, SLOW_BUCKETS, SLOW_RATIO = 4, 5, 1.5
"""With every server tracked, a slow server's buckets have width a quarter of its least computation up to that
computation, then five more, each 1.5 times as wide as the previous one's start."""


def computing_servers(p: np.ndarray) -> tuple[int, ...]:
    """The servers on which some task computes (``p[:, s].max() > 0``), in index order: those a run with every server
    tracked tracks (:func:`spread_edges`)."""
    return tuple(int(s) for s in range(p.shape[1]) if p[:, s].max() > 0)


def spread_edges(p: np.ndarray, slow: np.ndarray, finer: float) -> list:
    """Bucket edges of every server that computes, in index order, when all are tracked
    (:func:`sumflow_backlog_bound` with one array per server): a fast server (``slow`` False) in buckets
    ``finer`` times finer than the least computation on the fast servers, up to :data:`FAST_RANGE` times its largest
    computation; a slow one in the coarse buckets of :data:`SLOW_DIVISIONS` (a slow server's tasks are long: its work
    left matters in tens of seconds)."""
    computing = computing_servers(p)
    least = float(min(p[:, s].min() for s in computing if not slow[s]))
    edges = []
    for s in computing:
        if slow[s]:
            low = float(p[:, s].min())
            edges.append(bucket_edges(low / SLOW_DIVISIONS, low, SLOW_BUCKETS, SLOW_RATIO))
        else:
            edges.append(bucket_edges(least / finer, FAST_RANGE * float(p[:, s].max())))
    return edges


def sumflow_backlog_bound(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray, *, window: int = 2,
                          step: float | None = None, tracked=None, edges=None,
                          deadline: float | None = None) -> float | None:
    """:func:`sumflow_pair_bound` that also sees the work left on the tracked servers by every earlier task.

    The programme's state adds, per tracked server ``s`` (:func:`tracked_servers` by default), a lower bound ``W_s``
    on the work left, at the reference date ``θ_t`` (the latest join on a tracked server of the tasks so far), of
    the tasks placed on ``s`` so far, in buckets (:func:`backlog_edges` with ``step``). Task ``t`` on ``s`` costs
    ``d_ts + 2 max(A, B, C)`` with ``A`` the window's pair terms, ``R = max(W_s - (join_ts - θ_{t-1}), 0)``,
    ``B = far(R)`` and ``C = A + far(R - Σ p`` of the window's tasks on ``s)``, where ``far(R) = ⌊R/P⌋ min(P, p_ts) +
    min(R - ⌊R/P⌋ P, p_ts)`` and ``P`` the largest computation on ``s``
    (:func:`lowerbounds.timeshare._backlog_dp.far`).

    **Validity.** Under processor sharing the sumflow is exactly ``Σ_i d_i + 2 Σ_{pairs on one server} ov_ij``, where
    ``ov_ij`` is the service each of ``i`` and ``j`` receives while both are present (the same for both), and for
    ``j`` joining first ``ov_ij = min(rem_j(r_i), p_i)`` (from ``r_i`` on they are served alike until one ends).
    Charge each pair to its later task in arrival order. For task ``t`` on ``s``:

    * every earlier task has joined by ``θ_{t-1} <= r_t`` (when ``r_t < θ_{t-1}`` only ``A`` is used);
    * ``W_s`` is a lower bound on the work left of the earlier tasks on ``s`` in the system of those tasks alone:
      by induction, from ``θ_{t-1}`` to ``θ_t`` they receive at most ``θ_t - θ_{t-1}`` of service, and the new task
      has at least ``p_ts - (θ_t - join_ts)`` left; adding tasks never gives the others more service, so their work
      left in the real system is at least that, and at ``r_t`` at least ``R``;
    * the earlier tasks' works left ``rem_j <= p_j <= P`` sum to at least ``R`` (to at least ``R - Σ p`` outside the
      window), and ``Σ_j min(rem_j, p_ts)`` is then at least ``far(R)`` (a concave function's least value over that
      polytope is at a vertex: every ``rem_j`` at 0 or ``P`` but one);
    * so each of ``A`` (the pair property), ``B`` and ``C`` bounds ``Σ_{j < t on s} ov_jt`` from below.

    The sum over the tasks of a mapping's costs is then at most its sumflow. Merging the states of one window whose
    ``W`` fall in one bucket into one with the least value and the least ``W`` per server keeps a relaxation (the
    later costs never decrease with ``W``), and so does leaving out a state when the nearest live state of its window
    below it on one tracked server has a value and ``W`` no larger (that state stands for it: docs/bounds.md,
    "Dominated states"), so the programme's minimum is a lower bound on every mapping's sumflow. Servers not tracked
    get ``A`` only. ``deadline``: as :func:`sumflow_pair_bound` (``None`` when it passes).

    ``edges`` (instead of ``step``): one array of bucket edges per tracked server (:func:`spread_edges`), in the order
    of ``tracked``, so that each server's work left has buckets of its own width; the argument above holds per server.
    ``window`` may be 0: no pair terms, every cost ``d_ts + 2 B`` on a tracked server (``B`` alone is a lower bound)
    and ``d_ts`` on another.
    """
    n, S = p.shape
    if n == 0:
        return 0.0
    tracked = tracked_servers(p) if tracked is None else tuple(tracked)
    if edges is None:
        edges = backlog_edges(p, tracked, step)
    elif len(edges) != len(tracked):
        raise InvalidInputError("the backlog bound needs one array of bucket edges per tracked server")
    return backlog_bound_compiled(arrival, inp, p, out, window, tracked, edges, deadline=deadline)


def max_group_bounds(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray, den: np.ndarray, *,
                     group: int | None = None) -> tuple[float, float]:
    """(maxflow, maxstretch) >= ``max`` over groups of ``group`` consecutive tasks (in arrival order) of ``min``
    over the group's mappings of the largest flow (stretch) when only the group's tasks are on the servers.

    Validity: processor sharing never makes a task end sooner when tasks are added to its server, so in
    any mapping each task's flow is at least its flow among the group's tasks mapped to its server alone
    (computed by :func:`vcsched.sim.processor_sharing.ps_completion_times`, the simulator's rule, plus the
    dedicated transfers); the group's own mapping is one of those the minimum ranges over. ``den`` is
    the stretch's denominator per task and server (the tables' unloaded duration). ``group`` defaults
    to the largest with ``S^group <= 1024`` (at most 6).
    """
    n, S = p.shape
    if n == 0:
        return 0.0, 0.0
    if group is None:
        group = 1
        while group < 6 and S ** (group + 1) <= 1024:
            group += 1
    group = max(1, min(group, n))
    order = np.argsort(arrival, kind="stable")
    a, join, p, out, den = arrival[order], (arrival[:, None] + inp)[order], p[order], out[order], den[order]
    maps = np.array(np.unravel_index(np.arange(S ** group), (S,) * group)).T  # (S^group, group)
    on = maps[:, None, :] == np.arange(S)[None, :, None]  # (maps, S, group)
    masks = (on * (1 << np.arange(group))[None, None, :]).sum(axis=2)  # (maps, S)
    mask_of = masks[np.arange(maps.shape[0])[:, None], maps]  # (maps, group): the mask of each task's server
    rows = np.arange(group)[None, :]
    best_flow = best_stretch = 0.0
    for w in range(n - group + 1):
        tasks = np.arange(w, w + group)
        flow = np.zeros((S, 1 << group, group))
        for s in range(S):
            for mask in range(1, 1 << group):
                members = [k for k in range(group) if mask >> k & 1]
                idx = tasks[members]
                done = ps_completion_times(p[idx, s], join[idx, s]) + out[idx, s]
                flow[s, mask, members] = done - a[idx]
        flows = flow[maps, mask_of, rows]  # (maps, group)
        best_flow = max(best_flow, float(flows.max(axis=1).min()))
        best_stretch = max(best_stretch, float((flows / den[tasks[None, :], maps]).max(axis=1).min()))
    return best_flow, best_stretch
