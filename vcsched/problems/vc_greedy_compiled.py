"""The least-loaded-first rule compiled (numba): the placement and the attempt count of
:func:`vcsched.problems.vc_greedy.least_loaded_placement`, from
:data:`vcsched.problems.vc_greedy.COMPILED_FROM` tasks on.

The placement is the same open/blocked two-heap walk, on arrays. The attempt count
(every host examined before the chosen one, plus the chosen one) is computed after
it: every host whose key ``(load, index)`` is below the chosen host's did not fit the
task (the walk would have chosen it), so the task's attempts are ``1 +`` the rank of
the chosen key among the current keys of all hosts. Every key that ever exists is
known once the placement is done (the ``H`` initial ones and one per task), so their
ranks are fixed by one sort and a Fenwick tree over them answers each rank in
``O(log(T + H))``: ``O((T + H) log(T + H))`` in all, where the plain function's
order-statistic list costs ``O(log H)`` per blocked host (tested equal).
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["least_loaded_compiled"]


@njit(cache=True, inline="always")
def _below(ka: float, ia: int, kb: float, ib: int) -> bool:
    return ka < kb or (ka == kb and ia < ib)


@njit(cache=True)
def _push(key: np.ndarray, idx: np.ndarray, n: int, k: float, i: int) -> int:
    """Add ``(k, i)`` to the binary min-heap ``key[:n], idx[:n]``; the new size."""
    pos = n
    while pos > 0:
        parent = (pos - 1) >> 1
        if not _below(k, i, key[parent], idx[parent]):
            break
        key[pos], idx[pos] = key[parent], idx[parent]
        pos = parent
    key[pos], idx[pos] = k, i
    return n + 1


@njit(cache=True)
def _pop(key: np.ndarray, idx: np.ndarray, n: int) -> int:
    """Remove the least entry of the heap ``key[:n], idx[:n]`` (read it first); the new size."""
    n -= 1
    k, i = key[n], idx[n]
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= n:
            break
        if child + 1 < n and _below(key[child + 1], idx[child + 1], key[child], idx[child]):
            child += 1
        if not _below(key[child], idx[child], k, i):
            break
        key[pos], idx[pos] = key[child], idx[child]
        pos = child
    if n > 0:
        key[pos], idx[pos] = k, i
    return n


@njit(cache=True)
def _place(cpu: np.ndarray, mem_need: np.ndarray, hosts: int, cap: float):
    """Tasks in the given order on the least ``(load, index)`` host whose memory fits: the host
    of each task, the host's load after it, and the position of the first task that fits
    nowhere (-1 when all fit)."""
    n = cpu.size
    host = np.empty(n, dtype=np.int64)
    after = np.empty(n, dtype=np.float64)
    load, used = np.zeros(hosts), np.zeros(hosts)
    open_key, open_idx, n_open = np.zeros(hosts), np.arange(hosts), hosts  # all (0, j): a heap
    blocked_key, blocked_idx, n_blocked = np.empty(hosts), np.empty(hosts, dtype=np.int64), 0
    for t in range(n):
        m = mem_need[t]
        while n_blocked > 0 and blocked_key[0] + m <= cap:  # released: they fit this task
            j = blocked_idx[0]
            n_blocked = _pop(blocked_key, blocked_idx, n_blocked)
            n_open = _push(open_key, open_idx, n_open, load[j], j)
        chosen = -1
        while n_open > 0:
            j = open_idx[0]
            n_open = _pop(open_key, open_idx, n_open)
            if used[j] + m <= cap:
                chosen = j
                break
            n_blocked = _push(blocked_key, blocked_idx, n_blocked, used[j], j)
        if chosen < 0:
            return host, after, t
        used[chosen] += m
        load[chosen] += cpu[t]
        host[t], after[t] = chosen, load[chosen]
        n_open = _push(open_key, open_idx, n_open, load[chosen], chosen)
    return host, after, -1


@njit(cache=True)
def _attempts(host: np.ndarray, rank: np.ndarray, hosts: int, placed: int) -> int:
    """Sum over the first ``placed`` tasks of ``1 +`` the number of hosts whose current key ranks
    below the chosen host's (``rank[g]``: initial key of host ``g``; ``rank[hosts + t]``: the
    chosen host's key after task ``t``), with a Fenwick tree over the ranks."""
    size = rank.size
    tree = np.zeros(size + 1, dtype=np.int64)
    current = np.empty(hosts, dtype=np.int64)
    for g in range(hosts):
        current[g] = rank[g]
        i = rank[g] + 1
        while i <= size:
            tree[i] += 1
            i += i & -i
    total = 0
    for t in range(placed):
        c = host[t]
        r = current[c]
        i = r  # keys ranked 0 .. r - 1
        while i > 0:
            total += tree[i]
            i -= i & -i
        total += 1
        i = r + 1
        while i <= size:
            tree[i] -= 1
            i += i & -i
        r = rank[hosts + t]
        current[c] = r
        i = r + 1
        while i <= size:
            tree[i] += 1
            i += i & -i
    return total


def least_loaded_compiled(cpu: np.ndarray, mem: np.ndarray, hosts: int, cap: float) -> tuple[np.ndarray | None, int]:
    """The placement of tasks with sizes ``cpu``, ``mem`` (in the order to place them) and its
    attempt count, as :func:`vcsched.problems.vc_greedy.least_loaded_placement` gives them for
    that order: ``(host per task, attempts)``, or ``(None, attempts)`` when a task fits nowhere
    (then every host was examined for it)."""
    cpu = np.ascontiguousarray(cpu, dtype=np.float64)
    mem = np.ascontiguousarray(mem, dtype=np.float64)
    host, after, failed = _place(cpu, mem, int(hosts), float(cap))
    placed = cpu.size if failed < 0 else int(failed)
    key_load = np.concatenate((np.zeros(hosts), after[:placed]))
    key_host = np.concatenate((np.arange(hosts, dtype=np.int64), host[:placed]))
    order = np.lexsort((key_host, key_load))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    attempts = int(_attempts(host, rank, int(hosts), placed))
    if failed >= 0:
        return None, attempts + int(hosts)
    return host, attempts
