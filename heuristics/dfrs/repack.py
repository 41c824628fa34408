"""The periodic re-allocation of ``mcb8-per``: MCB8 (seed 001 §3.4, :mod:`heuristics.vc.mcb`) on the jobs
in the system, the longest prefix in priority order that fits in memory, hosts relabelled to move the
least memory (seed 001 §6.1)."""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.optimize import linear_sum_assignment

from heuristics.vc.mcb import mcb_place
from heuristics.vc.mcb_pack import mcb_pack
from vcsched.sim.dfrs import RUNNING, View

__all__ = ["mcb8_prefix", "packable_prefix", "relabel", "moved_memory", "COMPILED_FROM"]

COMPILED_FROM = 64
"""Items from which MCB8 packs with the compiled fill (:func:`heuristics.vc.mcb_pack.mcb_pack`): the simulator
packs thousands of times, so numba's one-off load pays for itself."""


SMALL_JOB = 8
"""Jobs of at most this many tasks: their pairs in :func:`relabel` are built in Python lists (numpy per job is
slower for them); wider jobs with numpy."""


def _items(view: View, ks: list[int]) -> tuple[np.ndarray, np.ndarray]:
    tasks = np.array([view.tasks[k] for k in ks], dtype=np.int64)
    mem = np.repeat(np.array([view.mem[k] for k in ks], dtype=float), tasks)
    return tasks, mem


def packable_prefix(view: View, order: list[int]) -> int:
    """The largest ``k`` found by bisection such that MCB8 packs the tasks of ``order[:k]`` in memory alone
    (every item of CPU 0); MCB8 is not monotone in the item set, so this is the bisection's answer."""
    hosts = view.hosts_count

    def packs(k: int) -> bool:
        if k == 0:
            return True
        _, mem = _items(view, order[:k])
        return mcb_pack(np.zeros(mem.size), mem, hosts, 8, compiled_from=COMPILED_FROM) is not None

    if packs(len(order)):
        return len(order)
    lo, hi = 0, len(order)  # lo packs, hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if packs(mid):
            lo = mid
        else:
            hi = mid
    return lo


def relabel(view: View, ks: list[int], task_host: np.ndarray, tasks: np.ndarray) -> np.ndarray:
    """Permute the hosts of a fresh placement so as to keep the most memory where it is now: an H x H
    assignment problem whose weight ``W[a, b]`` is the memory that stays if new host ``a`` is old host ``b``
    (for a job of ``q`` tasks, ``mem * n_new(a) * n_old(b) / q``, exact for one-task jobs)."""
    hosts = view.hosts_count
    offsets = np.concatenate([[0], np.cumsum(tasks)]).tolist()
    rows: list = []  # numpy chunks, in job order (the float sums of np.add.at follow it)
    cols: list = []
    weights: list = []
    small_r: list[int] = []
    small_c: list[int] = []
    small_w: list[float] = []

    def flush() -> None:
        if small_r:
            rows.append(np.array(small_r, dtype=np.int64))
            cols.append(np.array(small_c, dtype=np.int64))
            weights.append(np.array(small_w))
            small_r.clear()
            small_c.clear()
            small_w.clear()

    first = task_host.tolist()
    for pos, k in enumerate(ks):
        old = view.hosts[k] if view.state[k] == RUNNING else view.last_hosts[k]
        if old is None:
            continue
        q = len(old)
        wk = view.mem[k] / q + 1e-9 / q
        if q <= SMALL_JOB:  # the pairs (new host, old host) of the job's tasks, q x q, in Python lists
            for a in first[offsets[pos]:offsets[pos + 1]]:
                small_r.extend([a] * q)
                small_c.extend(old)
            small_w.extend([wk] * (q * q))
            continue
        flush()
        new = task_host[offsets[pos]:offsets[pos + 1]]
        rows.append(np.repeat(new, q))
        cols.append(np.tile(np.asarray(old, dtype=np.int64), q))
        weights.append(np.full(q * q, wk))
    flush()
    if not rows:
        return task_host
    w = np.zeros((hosts, hosts))
    np.add.at(w, (np.concatenate(rows), np.concatenate(cols)), np.concatenate(weights))
    r, c = linear_sum_assignment(w, maximize=True)
    perm = np.empty(hosts, dtype=np.int64)
    perm[r] = c
    return perm[task_host]


def _match_tasks(new: list[int], old: tuple[int, ...] | None) -> tuple[int, ...]:
    """Order the new hosts of a job's tasks so that task ``i`` keeps host ``old[i]`` whenever it can."""
    if old is None or len(new) == 1:
        return tuple(new)
    left = Counter(new)
    out: list[int | None] = [None] * len(new)
    for i, h in enumerate(old):
        if left[h] > 0:
            out[i] = h
            left[h] -= 1
    rest = iter(sorted(left.elements()))
    return tuple(h if h is not None else next(rest) for h in out)


def moved_memory(view: View, placement: dict[int, tuple[int, ...]]) -> float:
    """Memory the engine will count as moved for ``placement`` (running and paused jobs placed elsewhere)."""
    total = 0.0
    for k, j in enumerate(view.jobs):
        new = placement.get(j)
        old = view.hosts[k] if view.state[k] == RUNNING else view.last_hosts[k]
        if new is not None and old is not None:
            total += view.mem[k] * sum(1 for a, b in zip(new, old) if a != b)
    return total


def mcb8_prefix(view: View, order: list[int], budget: float) -> dict[int, tuple[int, ...]] | None:
    """MCB8 with bisection on the minimum yield on the longest packable prefix of ``order``; ``None`` when
    MCB8 fails or the placement moves more memory than ``budget``."""
    ks = order[:packable_prefix(view, order)]
    if not ks:
        return {}
    tasks, task_mem = _items(view, ks)
    found = mcb_place(np.full(task_mem.size, 1.0 / view.cores), task_mem, view.hosts_count, 8,
                      compiled_from=COMPILED_FROM)
    if found is None:
        return None
    task_host = relabel(view, ks, np.asarray(found, dtype=np.int64), tasks)
    offsets = np.concatenate([[0], np.cumsum(tasks)]).tolist()
    host_list = task_host.tolist()
    placement = {}
    for pos, k in enumerate(ks):
        old = view.hosts[k] if view.state[k] == RUNNING else view.last_hosts[k]
        placement[view.jobs[k]] = _match_tasks(host_list[offsets[pos]:offsets[pos + 1]], old)
    if moved_memory(view, placement) > budget + 1e-9:
        return None
    return placement
