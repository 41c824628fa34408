"""Window packing: a placement whose largest load is at most a target close to the average load.

Seed 001 §2.5/§3.1: yield ``Y`` is reached iff the tasks pack into the hosts
with CPU loads ``<= 1 / Y``. When the proven bound is the average load
``L_avg`` (the configuration LP cannot exclude loads just above it, as on the
large set's 64 x 250 instances), certifying a gap ``g`` needs a placement in
which *every* host's load lies in ``(L_avg - x, L_avg (1 + g)]``: a multiway
number partitioning to a precision of ``g L_avg`` with about four tasks per
host, which a descent on the most loaded host reaches slowly (every host near
the peak needs a step, and each step is a few tasks). Our construction, not
the paper's (its heuristics aim at the yield, not at a precision):

1. The hosts are filled one at a time. Host ``k`` gets a subset of the tasks
   not yet placed whose CPU lies in the *window* ``[T - delta_k, T]`` (``T``
   the target), ``delta_k = room_share * room_k / hosts_left`` with
   ``room_k = hosts_left * T - (CPU left)``: the hosts filled early leave
   most of the room to the last ones, where the choice is narrow. The
   constructions alternate between each share of ``room_shares`` (by
   default 0.3 and 1: the whole room of an average host, down to the
   average load left, so that an exact partition, as in integer-valued
   instances, stays reachable; measured on the large set's 64 x 250
   instances, each share finds packings the other misses).
2. A subset: the largest task left, closed by one task in the window
   (bisection on the tasks sorted by CPU) or by two (every pair: a window
   of partners per task, by bisection); else with one more task, each in
   turn; else ``tries`` random runs of tasks from the larger half of those
   that fit (the small tasks are what the last hosts need), each closed
   the same way. Memory stays ``<= 1``; when the memory
   left per host exceeds ``memory_tight``, the host must also take at least
   ``memory_floor`` times that memory (else the memory left piles up on the
   last hosts); without such a subset the floor is dropped.
3. When no subset is found, the last one to three hosts filled (at random)
   are emptied and filled again; at most ``backtrack_factor * H`` fills.
4. The last ``tail_hosts`` hosts: the compact MILP
   (:func:`vcsched.formulations.vc_milp.solve_vc_milp`, HiGHS) on their tasks
   with the CPU scaled by ``1 / T``, so that yield 1 means loads ``<= T``;
   its placement is kept only if every load is ``<= accept`` and every
   memory ``<= 1`` (recomputed here, not trusted from the solver). Each
   MILP stops at ``tail_time_limit`` seconds, or at :data:`TAIL_NODES`
   branch-and-bound nodes when the packing has no time limit.

:func:`window_pack` repeats the construction with fresh random choices until
one succeeds or time runs out. Each construction is cheap (a fraction of a
second at 64 x 250); on memory-full instances (memory 80-90 % of the hosts)
the subsets of step 2 run out before the last hosts more often.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from vcsched.errors import InvalidInputError
from vcsched.problems.vc import MEM_EPS, VCInstance, host_loads, host_memory

__all__ = ["window_pack", "TAIL_NODES"]

TAIL_NODES = 5_000
"""Branch-and-bound nodes per tail MILP when :func:`window_pack` has no time limit (the 4-host
tails of the 10 x 60 planted tests take 1,200-2,100 nodes, 0.2-0.3 s)."""
_MAX_PAIRS = 200_000
"""Pairs examined at most by one closing step (the windows are narrow: far fewer in practice)."""


def _close_window(cs: np.ndarray, ms: np.ndarray, free: np.ndarray, lo: float, hi: float, mem_lo: float,
                  mem_hi: float) -> list | None:
    """One or two free positions (of the sorted sizes ``cs``) whose CPU adds up to ``[lo, hi]``
    and memory to ``[mem_lo, mem_hi]``: the single, else the pair, with the least CPU (the most
    room left for the hosts after), or None. Every pair is examined: the window of each first
    position's partners is found by bisection."""
    a, b = np.searchsorted(cs, lo, "left"), np.searchsorted(cs, hi, "right")
    one = np.arange(a, b)
    one = one[free[one] & (ms[one] >= mem_lo) & (ms[one] <= mem_hi)]
    if one.size:
        return [int(one[0])]  # the least CPU: the most room left
    pos = np.flatnonzero(free & (cs <= hi))
    if pos.size < 2:
        return None
    c = cs[pos]
    first = np.maximum(np.searchsorted(c, lo - c, "left"), np.arange(c.size) + 1)
    count = np.maximum(np.searchsorted(c, hi - c, "right") - first, 0)
    total = int(count.sum())
    if total == 0 or total > _MAX_PAIRS:
        return None
    i = np.repeat(np.arange(c.size), count)
    j = first[i] + np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    both = ms[pos[i]] + ms[pos[j]]
    ok = np.flatnonzero((both >= mem_lo) & (both <= mem_hi))
    if ok.size == 0:
        return None
    k = int(ok[np.argmin(c[i[ok]] + c[j[ok]])])  # the least CPU: the most room left
    return [int(pos[i[k]]), int(pos[j[k]])]


def _fill_host(cpu: np.ndarray, mem: np.ndarray, left: np.ndarray, target: float, delta: float,
               mem_floor: float, rng: np.random.Generator, tries: int) -> np.ndarray | None:
    """Tasks of ``left`` for one host: CPU in ``[target - delta, target]``, memory in
    ``[mem_floor, 1]`` (step 2 of the module docstring), or None. The largest task left, then
    no filler, then every single filler (random order), then ``tries`` random runs of fillers
    from the larger half of those that fit; each closed by :func:`_close_window`."""
    order = left[np.argsort(cpu[left], kind="stable")]
    cs, ms = cpu[order], mem[order]
    n = order.size
    free = np.ones(n, dtype=bool)
    free[n - 1] = False

    def close(chosen):
        load, used = float(cs[chosen].sum()), float(ms[chosen].sum())
        found = _close_window(cs, ms, free, target - delta - load, target - load, mem_floor - used,
                              1.0 + MEM_EPS - used)
        return None if found is None else order[chosen + found]

    def fillers(chosen):
        room = target - float(cs[chosen].sum())
        return np.flatnonzero(free & (cs <= room - cs[0]) & (ms <= 1.0 + MEM_EPS - float(ms[chosen].sum())))

    found = close([n - 1])
    for f in rng.permutation(fillers([n - 1])).tolist() if found is None else ():
        free[f] = False
        found = close([n - 1, f])
        free[f] = True
        if found is not None:
            break
    for _ in range(tries if found is None else 0):
        chosen = [n - 1]
        while found is None:
            more = fillers(chosen)
            if more.size == 0:
                break
            more = more[more.size // 2:]  # keep the small tasks: the last hosts need them
            chosen.append(int(more[int(rng.integers(more.size))]))
            free[chosen[-1]] = False
            found = close(chosen) if len(chosen) > 2 else None
        free[chosen[1:]] = True
        if found is not None:
            break
    return found


def _tail(instance: VCInstance, left: np.ndarray, hosts: int, target: float, accept: float,
          time_limit: float | None, node_limit: int | None) -> np.ndarray | None:
    """Hosts (0..hosts-1) of the tasks ``left`` with every load ``<= accept`` and memory ``<= 1``,
    by the compact MILP at loads ``<= target`` (step 4), or None."""
    from vcsched.formulations.solve import quiet_stdout
    from vcsched.formulations.vc_milp import solve_vc_milp

    cpu, mem = instance.task_cpu[left], instance.task_mem[left]
    sub = VCInstance(hosts=hosts, cpu=np.minimum(cpu / target, 1.0), mem=mem, tasks=np.ones(left.size, dtype=np.int64))
    with quiet_stdout():
        res = solve_vc_milp(sub, time_limit=None if time_limit is None else max(time_limit, 0.01),
                            node_limit=node_limit, second_phase=False)
    if not res.status.has_solution:
        return None
    sh = np.asarray(res.solution.task_host, dtype=np.int64)
    if np.bincount(sh, cpu, hosts).max() > accept or np.bincount(sh, mem, hosts).max() > 1.0 + MEM_EPS:
        return None
    return sh


@dataclasses.dataclass(frozen=True)
class _Plan:
    """What every construction of one :func:`window_pack` call shares: the window's target, the
    largest load accepted, the clock and the settings of steps 1-4 (module docstring)."""

    instance: VCInstance
    target: float
    accept: float
    deadline: float | None
    memory_tight: float
    memory_floor: float
    tail_hosts: int
    tries: int
    backtrack_factor: int
    tail_time_limit: float | None
    tail_node_limit: int | None

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def subset(self, left: np.ndarray, hosts_left: int, room_share: float, rng) -> np.ndarray | None:
        """Tasks of ``left`` for the next host (steps 1-2), or None."""
        cpu, mem, target = self.instance.task_cpu, self.instance.task_mem, self.target
        delta = room_share * (hosts_left * target - float(cpu[left].sum())) / hosts_left + 1e-9 * target
        if delta <= 0:
            return None
        need = float(mem[left].sum()) / hosts_left
        found = None
        if need > self.memory_tight:
            found = _fill_host(cpu, mem, left, target, delta, min(self.memory_floor * need, 1.0), rng, self.tries)
        if found is None:
            found = _fill_host(cpu, mem, left, target, delta, -np.inf, rng, self.tries)
        return found


def _construct(plan: _Plan, room_share: float, rng: np.random.Generator) -> np.ndarray | None:
    """One construction (steps 1-4 of the module docstring): a placement or None."""
    instance, H = plan.instance, plan.instance.hosts
    tail = min(plan.tail_hosts, H)
    lefts, chosen = [np.arange(instance.n_tasks)], []
    for _ in range(plan.backtrack_factor * H):
        if plan.expired():
            return None
        k, left = len(chosen), lefts[-1]
        if k == H - tail:
            sh = _tail(instance, left, tail, plan.target, plan.accept, plan.tail_time_limit, plan.tail_node_limit)
            if sh is not None:
                th = np.empty(instance.n_tasks, dtype=np.int64)
                for host, tasks in enumerate(chosen):
                    th[tasks] = host
                th[left] = H - tail + sh
                return th
            subset = None
        else:
            subset = plan.subset(left, H - k, room_share, rng) if left.size else left  # nothing left: empty host
        if subset is None:
            if not chosen:
                return None  # the first host has no subset: nothing to undo
            for _ in range(min(len(chosen), int(rng.integers(1, 4)))):
                chosen.pop()
                lefts.pop()
            continue
        chosen.append(subset)
        lefts.append(np.setdiff1d(left, subset, assume_unique=True))
    return None


def window_pack(
    instance: VCInstance,
    target_load: float,
    *,
    time_limit: float | None = 10.0,
    rng=None,
    room_shares: tuple = (0.3, 1.0),
    memory_tight: float = 0.7,
    memory_floor: float = 0.95,
    tail_hosts: int = 4,
    tries: int = 100,
    backtrack_factor: int = 3,
    tail_time_limit: float = 0.3,
    max_constructions: int | None = None,
) -> tuple[np.ndarray | None, dict]:
    """A placement whose largest CPU load is ``<= target_load`` and memory fits, or None.

    Parameters
    ----------
    instance : VCInstance
    target_load : float
        The largest load wanted (e.g. the proven load times ``1 + gap``);
        the windows aim a hundred-thousandth below it, so that rounding in
        the sums and the MILP's tolerance stay under it.
    time_limit : float or None
        Seconds for all the constructions (None: ``max_constructions``, and
        every tail MILP stops at :data:`TAIL_NODES` nodes instead of
        ``tail_time_limit`` seconds, so that the result depends on the seed
        only, not on the machine's speed or load).
    rng : int or numpy.random.Generator, optional
        Same seed, same constructions.
    room_shares, memory_tight, memory_floor, tail_hosts, tries, backtrack_factor, tail_time_limit
        Steps 1-4 of the module docstring (``room_shares`` in ``(0, 1]``,
        one per construction in turn).
    max_constructions : int, optional
        Constructions at most (default: until the time limit; one when
        there is no time limit, or when there are at most ``tail_hosts``
        hosts: the MILP alone then places every task).

    Returns
    -------
    (task_host or None, stats)
        ``stats``: ``constructions`` tried, ``seconds``.
    """
    t0 = time.perf_counter()
    if not room_shares or not all(0 < r <= 1 for r in room_shares):
        raise InvalidInputError(f"window_pack: every room share must be in (0, 1], got {room_shares}")
    rng = np.random.default_rng(rng)
    deadline = None if time_limit is None else t0 + float(time_limit)
    if max_constructions is None:
        max_constructions = 1 if deadline is None else 1 << 30
    if instance.hosts <= tail_hosts:
        max_constructions = min(max_constructions, 1)  # the MILP places everything: nothing random to retry
    plan = _Plan(instance, float(target_load) / (1.0 + 1e-5), float(target_load), deadline, memory_tight,
                 memory_floor, tail_hosts, tries, backtrack_factor,
                 *((None, TAIL_NODES) if deadline is None else (tail_time_limit, None)))
    stats = {"constructions": 0}
    found = None
    aim = plan.target
    if instance.n_tasks and instance.hosts * aim > float(instance.task_cpu.sum()) and instance.task_cpu.max() <= aim:
        while stats["constructions"] < max_constructions and not plan.expired():
            th = _construct(plan, room_shares[stats["constructions"] % len(room_shares)], rng)
            stats["constructions"] += 1
            if th is not None and host_loads(instance, th).max() <= target_load \
                    and host_memory(instance, th).max() <= 1.0 + MEM_EPS:
                found = th
                break
    stats["seconds"] = time.perf_counter() - t0
    return found, stats
