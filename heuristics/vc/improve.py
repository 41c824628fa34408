"""Improvement step for VCSched placements: lower the largest host load under memory.

Seed 001 §2.5, §3.1: for a placement the best minimum yield is
``min(1, 1 / max_h L_h)``, so improving a placement means lowering the
largest CPU load ``L_h`` while every host's memory stays ``<= 1``. Tasks of
a parallel job (§5.1) are moved one by one like any other task (they may
share a host and all get ``alpha_i Y``), so the same search serves both.

:func:`improve_placement` is a descent on the most loaded host ``h``
(ties: the lowest index):

1. *move*: a task of ``h`` to another host ``g`` where its memory fits;
2. *swap*: a task ``a`` of ``h`` with a smaller task ``b`` of another host
   ``g``, memory fitting both ways;
3. *2-1 swap*: two tasks of ``h`` against one task of ``g``;
4. *ejection chain*: a task of ``h`` to ``g1`` while a task of ``g1`` moves
   on to ``g2`` (what a memory-full ``g1`` needs);
5. *pair re-pack*: the best split of the tasks of ``h`` and one other host
   ``g`` between the two (all ``2^n`` splits when ``n <= 16`` tasks), the
   least loaded partners first; the first that lowers the pair maximum
   below the peak is applied.

Among the candidates of the first kind that lowers ``max(L_h', L_g')``
strictly below the current peak, the one with the smallest new pair
maximum is applied (ties: first in task order); the next kind is tried only
when the previous offers nothing. When no kind improves the peak, an
optional large-neighbourhood step re-packs the tasks of ``h`` and a few
other hosts exactly with the compact MILP
(:func:`vcsched.formulations.vc_milp.solve_vc_milp` on the sub-instance,
HiGHS, a time limit per call); when that fails ``lns_rounds`` times in a row
the search *kicks*: a few random pairs of hosts below the peak get a random
split of their tasks that keeps them below the peak (the peak never rises,
so the search is monotone), and the descent resumes (an iterated local
search). The search stops at ``target_load`` (a
proven lower bound: nothing better exists), at the time limit, after
``max_kicks`` perturbations, or when nothing can be perturbed.
"""

from __future__ import annotations

import time

import numpy as np

from heuristics.vc._common import MEM_EPS, validate_instance
from vcsched.errors import InvalidInputError
from vcsched.problems.vc import VCInstance, host_loads, host_memory, per_host_sum

__all__ = ["improve_placement", "ImproveStats"]

_EPS = 1e-12


class ImproveStats(dict):
    """Counters of one run: ``moves``, ``swaps``, ``swaps21``, ``chains``, ``pairs``, ``lns`` (MILP neighbourhoods that helped), ``seconds``."""


def _check_start(instance: VCInstance, task_host: np.ndarray) -> np.ndarray:
    th = np.asarray(task_host)
    if th.shape != (instance.n_tasks,) or not np.issubdtype(th.dtype, np.integer):
        raise InvalidInputError(f"improve_placement: `task_host` must be {instance.n_tasks} integers (one host per task), "
                                f"got shape {th.shape} and dtype {th.dtype}")
    if th.size and (th.min() < 0 or th.max() >= instance.hosts):
        raise InvalidInputError(f"improve_placement: `task_host` has hosts outside 0..{instance.hosts - 1}")
    used = host_memory(instance, th)
    if np.any(used > 1 + MEM_EPS):
        j = int(np.argmax(used))
        raise InvalidInputError(f"improve_placement: the start placement overfills the memory of host {j} ({used[j]:.6g} > 1)")
    return th.astype(np.int64).copy()


def _best_move(h, on_h, cpu, mem, load, used, peak):
    """(value, task, host) of the best single move off ``h``, or None."""
    c = cpu[on_h][:, None]
    m = mem[on_h][:, None]
    new = np.maximum(load[h] - c, load[None, :] + c)
    ok = used[None, :] + m <= 1 + MEM_EPS
    ok[:, h] = False
    new = np.where(ok, new, np.inf)
    k = int(np.argmin(new))
    a, g = divmod(k, load.size)
    if new[a, g] < peak - _EPS:
        return float(new[a, g]), int(on_h[a]), int(g)
    return None


def _best_exchange(h, give_cpu, give_mem, off_h, task_host, cpu, mem, load, used, peak):
    """Best exchange of one group of h's tasks (rows: CPU ``give_cpu``, memory ``give_mem``)
    with one task elsewhere (columns: ``off_h``): ``(value, row, column)``, or None when
    no exchange lowers the peak. Both hosts must keep their memory within capacity."""
    ca, ma = give_cpu[:, None], give_mem[:, None]
    cb, mb = cpu[off_h][None, :], mem[off_h][None, :]
    g = task_host[off_h][None, :]
    new = np.maximum(load[h] - ca + cb, load[g] - cb + ca)
    ok = (ca > cb) & (used[h] - ma + mb <= 1 + MEM_EPS) & (used[g] - mb + ma <= 1 + MEM_EPS)
    new = np.where(ok, new, np.inf)
    k = int(np.argmin(new))
    a, b = divmod(k, off_h.size)
    if new[a, b] < peak - _EPS:
        return float(new[a, b]), a, b
    return None


def _best_swap(h, on_h, off_h, task_host, cpu, mem, load, used, peak):
    """(value, task of h, task elsewhere) of the best 1-1 swap, or None."""
    if off_h.size == 0:
        return None
    best = _best_exchange(h, cpu[on_h], mem[on_h], off_h, task_host, cpu, mem, load, used, peak)
    if best is None:
        return None
    value, a, b = best
    return value, int(on_h[a]), int(off_h[b])


def _best_swap21(h, on_h, off_h, task_host, cpu, mem, load, used, peak):
    """(value, (task, task) of h, task elsewhere) of the best 2-1 swap, or None."""
    if on_h.size < 2 or off_h.size == 0:
        return None
    i, j = np.triu_indices(on_h.size, 1)
    pa, pb = on_h[i], on_h[j]
    best = _best_exchange(h, cpu[pa] + cpu[pb], mem[pa] + mem[pb], off_h, task_host, cpu, mem, load, used, peak)
    if best is None:
        return None
    value, a, b = best
    return value, (int(pa[a]), int(pb[a])), int(off_h[b])


def _best_chain(h, on_h, off_h, task_host, cpu, mem, load, used, peak):
    """(value, task a of h, task b, host g2) of the best ejection chain ``a: h -> g1``,
    ``b: g1 -> g2`` (``g1`` the host of ``b``, ``g2`` not ``h`` nor ``g1``), or None.
    Finds the moves a memory-full host blocks: ``a`` fits ``g1`` once ``b`` has left."""
    if off_h.size == 0 or load.size < 3:
        return None
    ca, ma = cpu[on_h][:, None, None], mem[on_h][:, None, None]
    cb, mb = cpu[off_h][None, :, None], mem[off_h][None, :, None]
    g1 = task_host[off_h][None, :, None]
    g2 = np.arange(load.size)[None, None, :]
    new = np.maximum(np.maximum(load[h] - ca, load[g1] + ca - cb), load[None, None, :] + cb)
    ok = ((used[g1] + ma - mb <= 1 + MEM_EPS) & (used[None, None, :] + mb <= 1 + MEM_EPS)
          & (g2 != g1) & (g2 != h))
    new = np.where(ok, new, np.inf)
    k = int(np.argmin(new))
    a, b, g = np.unravel_index(k, new.shape)
    if new[a, b, g] < peak - _EPS:
        return float(new[a, b, g]), int(on_h[a]), int(off_h[b]), int(g)
    return None


_PAIR_MAX_TASKS = 16
_CHAIN_MAX_CANDIDATES = 2_000_000  # (task of h, other task, host) triples evaluated at once


def _subset_sums(values: np.ndarray) -> np.ndarray:
    """Sums of all ``2^n`` subsets; bit ``i`` of the index says whether ``values[i]`` is in."""
    sums = np.zeros(1)
    for v in values:
        sums = np.concatenate((sums, sums + v))
    return sums


def _pair_splits(h, g, task_host, cpu, mem, load, used):
    """Every split of the tasks of hosts ``h`` and ``g`` (``n <= 16``): (tasks, pair maximum
    per split, with ``inf`` where memory does not fit), or None when there are too many tasks."""
    tasks = np.flatnonzero((task_host == h) | (task_host == g))
    n = tasks.size
    if n == 0 or n > _PAIR_MAX_TASKS:
        return None
    lh = _subset_sums(cpu[tasks])  # index bit i = 1: task i on h
    mh = _subset_sums(mem[tasks])
    new = np.maximum(lh, (load[h] + load[g]) - lh)
    tot_m = used[h] + used[g]
    ok = (mh <= 1 + MEM_EPS) & (tot_m - mh <= 1 + MEM_EPS)
    return tasks, np.where(ok, new, np.inf)


def _apply_split(h, g, tasks, index, task_host, load, used, cpu, mem):
    for i, task in enumerate(tasks):
        dest = h if (index >> i) & 1 else g
        if task_host[task] != dest:
            _relocate(task_host, load, used, cpu, mem, int(task), int(dest))


def _best_pair(h, task_host, cpu, mem, load, used, peak):
    """First partner ``g`` (least loaded first) whose best split with ``h`` beats ``peak``: (g, tasks, index)."""
    for g in np.argsort(load, kind="stable"):
        if g == h:
            continue
        splits = _pair_splits(h, int(g), task_host, cpu, mem, load, used)
        if splits is None:
            continue
        tasks, new = splits
        k = int(np.argmin(new))
        if new[k] < peak - _EPS:
            return int(g), tasks, k
    return None


def _kick(task_host, load, used, cpu, mem, peak, rng, pairs: int) -> int:
    """Perturbation of the iterated local search: ``pairs`` random pairs of hosts below the
    peak get a random split of their tasks that keeps both strictly below the peak (so the
    peak never rises). Returns the number of pairs changed."""
    below = np.flatnonzero(load < peak - _EPS)
    changed = 0
    for _ in range(pairs):
        if below.size < 2:
            break
        g1, g2 = (int(x) for x in rng.choice(below, 2, replace=False))
        splits = _pair_splits(g1, g2, task_host, cpu, mem, load, used)
        if splits is None:
            continue
        tasks, new = splits
        good = np.flatnonzero(new < peak - _EPS)
        if good.size:
            _apply_split(g1, g2, tasks, int(rng.choice(good)), task_host, load, used, cpu, mem)
            changed += 1
    return changed


def _relocate(task_host, load, used, cpu, mem, task, dest):
    src = task_host[task]
    load[src] -= cpu[task]
    used[src] -= mem[task]
    load[dest] += cpu[task]
    used[dest] += mem[task]
    task_host[task] = dest


def _lns_step(instance, task_host, load, h, rng, n_hosts, time_limit):
    """Re-pack the tasks of ``h`` and ``n_hosts - 1`` other hosts with the compact MILP; True if the peak of the group fell."""
    from vcsched.formulations.solve import quiet_stdout
    from vcsched.formulations.vc_milp import solve_vc_milp

    others = np.flatnonzero(np.arange(instance.hosts) != h)
    if others.size == 0:
        return False
    # the least loaded hosts are the most useful partners; one random partner diversifies
    k = min(n_hosts - 1, others.size)
    order = others[np.argsort(load[others], kind="stable")]
    group = list(order[: max(k - 1, 0)])
    rest = [g for g in others if g not in group]
    if rest and len(group) < k:
        group.append(int(rng.choice(rest)))
    group = np.array([h, *group], dtype=np.int64)
    tasks = np.flatnonzero(np.isin(task_host, group))
    sub = VCInstance(hosts=int(group.size), cpu=instance.task_cpu[tasks], mem=instance.task_mem[tasks],
                     tasks=np.ones(tasks.size, dtype=np.int64))
    with quiet_stdout():  # HiGHS may printf debug lines: keep `vcsched ... --json` output clean
        res = solve_vc_milp(sub, time_limit=time_limit, second_phase=False)
    if not res.status.has_solution:
        return False
    sub_host = np.asarray(res.solution.task_host)
    new_load = per_host_sum(sub_host, sub.cpu, group.size)
    new_mem = per_host_sum(sub_host, sub.mem, group.size)
    if new_load.max() >= load[group].max() - _EPS or np.any(new_mem > 1 + MEM_EPS):
        return False
    task_host[tasks] = group[sub_host]
    return True


def improve_placement(
    instance: VCInstance,
    task_host: np.ndarray,
    *,
    target_load: float | None = None,
    time_limit: float | None = None,
    max_steps: int = 100_000,
    lns_hosts: int = 4,
    lns_time_limit: float = 0.5,
    lns_rounds: int = 5,
    max_kicks: int = 200,
    kick_pairs: int = 4,
    rng=None,
) -> tuple[np.ndarray, ImproveStats]:
    """Lower the largest host load of a placement (moves, swaps, 2-1 swaps, MILP neighbourhoods).

    Parameters
    ----------
    instance : VCInstance
    task_host : array of int, shape (n_tasks,)
        A start placement whose memory fits (``<= 1 + 1e-12`` per host).
    target_load : float, optional
        Stop once the largest load is ``<= target_load`` (e.g. a proven
        lower bound; the default 1 means "every job at yield 1").
    time_limit : float, optional
        Seconds for the whole search (``None``: until no step improves).
    max_steps : int
        Applied moves and swaps at most.
    lns_hosts : int
        Hosts per MILP neighbourhood (0 or 1: no MILP step).
    lns_time_limit : float
        Seconds of HiGHS per neighbourhood.
    lns_rounds : int
        Neighbourhoods tried in a row without improvement before giving up.
    max_kicks : int
        Perturbations at most once the descent and the neighbourhoods are
        stuck (iterated local search; 0: plain descent).
    kick_pairs : int
        Random host pairs re-split per perturbation.
    rng : int or numpy.random.Generator, optional
        Random partner host of the neighbourhoods and the perturbations;
        same seed, same result.

    Returns
    -------
    (task_host, stats)
        A placement whose memory fits and whose largest load is ``<=`` the
        start's (never worse), and the counters.

    Raises
    ------
    InvalidInputError
        When ``task_host`` is not a placement of ``instance`` that fits memory.
    """
    t0 = time.perf_counter()
    validate_instance(instance)
    th = _check_start(instance, task_host)
    rng = np.random.default_rng(rng)
    target = 1.0 if target_load is None else max(float(target_load), 1.0)
    deadline = None if time_limit is None else t0 + float(time_limit)
    cpu, mem = instance.task_cpu, instance.task_mem
    load, used = host_loads(instance, th), host_memory(instance, th)
    stats = ImproveStats(moves=0, swaps=0, swaps21=0, chains=0, pairs=0, kicks=0, lns=0, lns_tried=0, steps=0)
    failures = 0
    while stats["steps"] < max_steps:
        h = int(np.argmax(load))
        peak = float(load[h])
        if peak <= target + _EPS or (deadline is not None and time.perf_counter() > deadline):
            break
        on_h = np.flatnonzero(th == h)
        move = _best_move(h, on_h, cpu, mem, load, used, peak)
        if move is not None:
            _relocate(th, load, used, cpu, mem, move[1], move[2])
            stats["moves"] += 1
            stats["steps"] += 1
            continue
        off_h = np.flatnonzero(th != h)
        swap = _best_swap(h, on_h, off_h, th, cpu, mem, load, used, peak)
        if swap is not None:
            a, b = swap[1], swap[2]
            g = int(th[b])
            _relocate(th, load, used, cpu, mem, a, g)
            _relocate(th, load, used, cpu, mem, b, h)
            stats["swaps"] += 1
            stats["steps"] += 1
            continue
        swap = _best_swap21(h, on_h, off_h, th, cpu, mem, load, used, peak)
        if swap is not None:
            (a1, a2), b = swap[1], swap[2]
            g = int(th[b])
            _relocate(th, load, used, cpu, mem, a1, g)
            _relocate(th, load, used, cpu, mem, a2, g)
            _relocate(th, load, used, cpu, mem, b, h)
            stats["swaps21"] += 1
            stats["steps"] += 1
            continue
        small = on_h.size * off_h.size * instance.hosts <= _CHAIN_MAX_CANDIDATES
        chain = _best_chain(h, on_h, off_h, th, cpu, mem, load, used, peak) if small else None
        if chain is not None:
            _, a, b, g2 = chain
            g1 = int(th[b])
            _relocate(th, load, used, cpu, mem, b, g2)
            _relocate(th, load, used, cpu, mem, a, g1)
            stats["chains"] += 1
            stats["steps"] += 1
            continue
        pair = _best_pair(h, th, cpu, mem, load, used, peak)
        if pair is not None:
            g, tasks, index = pair
            _apply_split(h, g, tasks, index, th, load, used, cpu, mem)
            stats["pairs"] += 1
            stats["steps"] += 1
            continue
        limit = lns_time_limit if deadline is None else min(lns_time_limit, deadline - time.perf_counter())
        if lns_hosts < 2 or failures >= lns_rounds or limit <= 0.05:
            if stats["kicks"] >= max_kicks or not _kick(th, load, used, cpu, mem, peak, rng, kick_pairs):
                break
            stats["kicks"] += 1
            continue
        stats["lns_tried"] += 1
        if _lns_step(instance, th, load, h, rng, lns_hosts, limit):
            load, used = host_loads(instance, th), host_memory(instance, th)
            stats["lns"] += 1
            stats["steps"] += 1
            failures = 0
        else:
            failures += 1
    stats["seconds"] = time.perf_counter() - t0
    return th, stats
