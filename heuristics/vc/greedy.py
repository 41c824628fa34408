"""Greedy VCSched heuristics GR, SG, GB and SGB (seed 001 §3.3).

* **GR** takes the jobs in index order (the paper's "arbitrary order"); each
  goes to the first host, in non-decreasing order of *load* (the total CPU
  need ``alpha`` already placed on it; ties broken by host index), whose free
  memory fits it.
* **SG** first sorts the jobs by decreasing memory need (stable: ties keep
  index order), then proceeds as GR.
* **GB** / **SGB** are GR / SG with depth-first backtracking, bounded by a
  number of placement attempts (default 500,000 as in the paper).

Parallel jobs (§5): every task is an item with its job's ``alpha`` and ``m``;
the tasks of a job are placed one after the other, independently, and may
share a host (the paper's model allows it). The job's yield is then set by
its most loaded host, which the average-yield phase accounts for.
"""

from __future__ import annotations

import time

import numpy as np

from heuristics.vc._common import failed, finish, validate_instance
from vcsched.errors import InvalidInputError
from vcsched.problems.vc import MEM_EPS, VCInstance
from vcsched.problems.vc_greedy import least_loaded_placement
from vcsched.result import Result

__all__ = ["gr", "sg", "gb", "sgb", "backtracking_placement", "DEFAULT_MAX_ATTEMPTS"]

DEFAULT_MAX_ATTEMPTS = 500_000


def _task_order(instance: VCInstance, sort_by_memory: bool) -> np.ndarray:
    """Task order: job index order (GR) or decreasing memory, stable (SG)."""
    if not sort_by_memory:
        return np.arange(instance.n_tasks)
    rank = np.empty(instance.n_jobs, dtype=np.int64)
    rank[np.argsort(-instance.mem, kind="stable")] = np.arange(instance.n_jobs)
    return np.argsort(rank[instance.task_job], kind="stable")


def backtracking_placement(
    instance: VCInstance, order: np.ndarray, max_attempts: int
) -> tuple[np.ndarray | None, int, str]:
    """Depth-first search over placements in GR's host order (GB's first phase).

    At depth ``d`` task ``order[d]`` tries the hosts in non-decreasing
    ``(load, index)`` order; a host whose free memory fits it is taken and the
    search descends; when a subtree fails the task is removed and the next
    host is tried. The first complete placement found is returned, so GB
    returns GR's placement whenever GR succeeds.

    Every (task, host) pair examined counts as one placement attempt (also
    when the memory does not fit). When the count would exceed
    ``max_attempts`` the search stops and fails. Two exact prunings, which
    never lose a solution: a host in the same (load, memory) state as one
    already tried for this task is skipped (its subtree is the same up to
    relabelling; it still counts as examined); and a node is abandoned when
    the remaining memory exceeds the free memory usable by the remaining
    tasks (hosts with less free memory than the smallest remaining task
    count as full).

    Returns
    -------
    task_host : array or None
    attempts : int
    reason : str
        ``""`` on success, ``"bound"`` when the attempt bound was reached,
        ``"exhausted"`` when the whole (pruned) tree was searched: then no
        placement exists.
    """
    search = _DepthFirst(instance, order)
    n = len(search.seq)
    frames = [search.open_node(0)]
    d = 0
    while True:
        chosen = search.next_host(frames[-1], d, max_attempts)
        if chosen is None:
            return None, search.attempts - 1, "bound"
        if chosen >= 0:
            search.place(d, chosen)
            d += 1
            if d == n:
                out = np.empty(n, dtype=np.int64)
                out[order] = search.host
                return out, search.attempts, ""
            frames.append(search.open_node(d))
        else:
            frames.pop()
            d -= 1
            if d < 0:
                return None, search.attempts, "exhausted"
            search.undo(d)


class _DepthFirst:
    """State of :func:`backtracking_placement`: loads and memory per host, the task placed at
    each depth, and the count of (task, host) pairs examined. A frame is ``[hosts in
    (load, index) order, next position, (load, memory) states already tried]``."""

    def __init__(self, instance: VCInstance, order: np.ndarray) -> None:
        H = instance.hosts
        self.tc = instance.task_cpu.tolist()
        tm = instance.task_mem.tolist()
        self.seq = order.tolist()
        self.mseq = [tm[k] for k in self.seq]
        self.suffix_sum = np.cumsum(self.mseq[::-1])[::-1].tolist() + [0.0]
        self.suffix_min = np.minimum.accumulate(self.mseq[::-1])[::-1].tolist() + [0.0]
        self.cap = 1.0 + MEM_EPS
        self.load = [0.0] * H
        self.mem = [0.0] * H
        self.host = [0] * len(self.seq)
        self.saved: list[tuple[float, float]] = [(0.0, 0.0)] * len(self.seq)
        self.attempts = 0
        self.hosts_range = range(H)

    def open_node(self, d: int) -> list:
        """The frame of depth ``d``; no host to try when the memory left cannot fit the tasks left."""
        mmin, usable = self.suffix_min[d], 0.0
        for j in self.hosts_range:
            free = self.cap - self.mem[j]
            if free >= mmin:
                usable += free
        if self.suffix_sum[d] > usable:
            return [[], 0, set()]
        return [sorted(self.hosts_range, key=self.load.__getitem__), 0, set()]

    def next_host(self, frame: list, d: int, max_attempts: int) -> int | None:
        """The next host of ``frame`` that fits task ``d`` in a state not tried yet (-1: none left;
        None: the attempt bound was passed)."""
        hosts, pos, tried = frame
        m, chosen = self.mseq[d], -1
        while pos < len(hosts):
            j = hosts[pos]
            pos += 1
            self.attempts += 1
            if self.attempts > max_attempts:
                return None
            if self.mem[j] + m <= self.cap:
                state = (self.load[j], self.mem[j])
                if state not in tried:
                    tried.add(state)
                    chosen = j
                    break
        frame[1] = pos
        return chosen

    def place(self, d: int, j: int) -> None:
        self.saved[d] = (self.load[j], self.mem[j])
        self.load[j] += self.tc[self.seq[d]]
        self.mem[j] += self.mseq[d]
        self.host[d] = j

    def undo(self, d: int) -> None:
        j = self.host[d]
        self.load[j], self.mem[j] = self.saved[d]


def _greedy(instance: VCInstance, method: str, sort_by_memory: bool) -> Result:
    t0 = time.perf_counter()
    validate_instance(instance)
    order = _task_order(instance, sort_by_memory)
    task_host, attempts = least_loaded_placement(instance, order)
    t1 = time.perf_counter()
    if task_host is None:
        return failed(method, t0, "some job fits on no host (memory)", {"attempts": attempts})
    return finish(instance, method, task_host, t0, t1, {"attempts": attempts})


def _backtracking(instance: VCInstance, method: str, sort_by_memory: bool, max_attempts: int) -> Result:
    t0 = time.perf_counter()
    validate_instance(instance)
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, (int, np.integer)) or max_attempts < 1:
        raise InvalidInputError(f"`max_attempts` must be a positive integer, got {max_attempts!r}")
    order = _task_order(instance, sort_by_memory)
    # The first leaf of the depth-first search is GR's placement: try it fast.
    task_host, attempts = least_loaded_placement(instance, order)
    reason = ""
    if task_host is None or attempts > max_attempts:
        task_host, attempts, reason = backtracking_placement(instance, order, int(max_attempts))
    t1 = time.perf_counter()
    extra = {"attempts": attempts}
    if task_host is None:
        why = (f"placement attempt bound ({max_attempts}) reached" if reason == "bound"
               else "search exhausted: no placement fits the memory")
        return failed(method, t0, why, extra)
    return finish(instance, method, task_host, t0, t1, extra)


def gr(instance: VCInstance, *, rng=None) -> Result:
    """Greedy (GR, §3.3): jobs in index order, least-loaded host whose memory fits.

    Parameters
    ----------
    instance : VCInstance
    rng : ignored
        Accepted for a uniform interface; GR is deterministic.

    Returns
    -------
    Result
        ``feasible`` with the checked allocation after the average-yield
        phase (§3.5), or ``failed`` when a job fits on no host.
        ``extra``: ``avg_yield``, ``seconds_first_phase``, ``attempts``.

    Notes
    -----
    ``O(T log H)`` heap operations when memory is not tight (``T`` tasks).

    Examples
    --------
    >>> from vcsched.problems.vc import VCInstance
    >>> inst = VCInstance.from_arrays(2, [0.6, 0.6, 0.6], [0.1, 0.1, 0.1])
    >>> round(gr(inst).objective, 4)
    0.8333
    """
    return _greedy(instance, "gr", sort_by_memory=False)


def sg(instance: VCInstance, *, rng=None) -> Result:
    """Sorted greedy (SG, §3.3): GR on jobs sorted by decreasing memory (stable)."""
    return _greedy(instance, "sg", sort_by_memory=True)


def gb(instance: VCInstance, *, rng=None, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> Result:
    """Greedy with backtracking (GB, §3.3).

    Parameters
    ----------
    instance : VCInstance
    rng : ignored
    max_attempts : int, default 500,000
        Bound on the (task, host) pairs examined; reaching it gives status
        ``failed`` with a message saying so (see :func:`backtracking_placement`).
    """
    return _backtracking(instance, "gb", False, max_attempts)


def sgb(instance: VCInstance, *, rng=None, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> Result:
    """Sorted greedy with backtracking (SGB, §3.3): GB on jobs by decreasing memory."""
    return _backtracking(instance, "sgb", True, max_attempts)
