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
explicit target (and two tasks per host or more) is first tried once by a
*window packing* (:mod:`heuristics.vc.window_pack`: every host filled to
within a narrow window below the target, which a descent on the peak host
reaches slowly when the target is the average load); then an
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

Cost per step. The search keeps the tasks of every host (a set per host)
and the hosts sorted by load (:class:`~heuristics.vc.host_order.HostOrder`,
``O(log H)`` per host whose load changes), so a descent step reads neither the
whole placement nor every host's load, except for an ejection chain on
small instances. Every candidate of the first three kinds with partner
host ``g`` has a value ``> L_g`` (the partner receives more CPU than it
gives) and ``>= (L_h + L_g) / 2``, so the partners are examined from the
least loaded up, in growing blocks, until a candidate lowers the peak,
then only the hosts that could tie or beat it: the best candidate (and
its tie-break, first in task order) is that of the full search (a move's
partner also gains at least the smallest task of ``h``). When more than
128 hosts could tie or beat the first candidate that lowers the peak, the
best of the blocks read is applied as it is (the rule of "the best
candidate" holds among them only: the exact best would scan nearly every
task at every step of a data-centre instance). When an exchange must
examine more than 128 partner hosts, it reads only the tasks whose CPU lies
in a window below each size it gives (``cb > ca - (peak - L_min)``, else
the partner would reach the peak), found by bisection in the tasks sorted
by CPU: the same answer (tested) without reading every task of those hosts.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from heuristics.vc._common import validate_instance
from heuristics.vc.improve_state import Placement
from vcsched.errors import InvalidInputError
from vcsched.problems.vc import MEM_EPS, VCInstance, host_loads, host_memory, per_host_sum

__all__ = ["improve_placement", "ImproveStats"]

_EPS = 1e-12
_PAIR_MAX_TASKS = 16
_CHAIN_MAX_CANDIDATES = 2_000_000  # (task of h, other task, host) triples evaluated at once
_FIRST_BLOCK = 32  # partner hosts examined first (least loaded), then 4x more per round
_EXACT_HOSTS = 128  # beyond this many candidate partners, the best of the first improving block is taken
_WINDOW_HOSTS = _EXACT_HOSTS
"""Beyond this many partner hosts, an exchange looks only at the tasks whose CPU could lower the peak
(a window below each size given, :meth:`Placement.smaller_within`) instead of every task of those hosts."""
_WINDOW_SECONDS = 5.0  # a window packing's time at most (the packings found on the large set took 0.1-5 s)
_WINDOW_CONSTRUCTIONS = 20  # and its constructions at most when the search has no time limit (reproducible)
_TIE_TOL = 1e-12  # hosts admitted beyond (L_h + L_g) / 2 <= v, for rounding in the candidates' values


class ImproveStats(dict):
    """Counters of one run: ``moves``, ``swaps``, ``swaps21``, ``chains``, ``pairs``, ``lns`` (MILP neighbourhoods
    that helped), ``lns_tried``, ``kicks``, ``window`` / ``window_tried`` (window packings that replaced the
    placement / tried), ``steps``, ``seconds``."""


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


def _least_loaded_first(s: Placement, h: int, peak: float, best_among: Callable[[np.ndarray], tuple | None],
                        gain: float = 0.0):
    """Best candidate over all partner hosts ``g != h``, for candidates whose value is at least
    ``(L_h + L_g) / 2`` and at least ``L_g + gain`` (``> L_g``: the partner receives more CPU
    than it gives, ``gain`` at least).

    ``best_among(hosts)`` gives the best candidate ``(value, ...)`` with partners in ``hosts``
    (index order; the tuple's order is the tie-break, first in task order) or None. The
    partners are read from the host order (:class:`~heuristics.vc.host_order.HostOrder`), least
    loaded first, in blocks of 32, 96, 384, ... hosts until the best so far lowers the peak (a
    least loaded host whose memory is full is passed over) or no host left can; then only the
    hosts whose lower bound is ``<= v`` (the best value) can tie or beat it, so those (and no
    others) are searched. The answer and its tie-break are those of the search over every
    host (the caller rejects a candidate that does not lower the peak), except when more than
    :data:`_EXACT_HOSTS` hosts could tie or beat ``v``: then the best of the blocks read is
    taken (first improvement by blocks; at data-centre scale the exact best costs a scan of
    nearly every task at each step).
    """
    def lower(load):  # lower bound on the value of any candidate with a partner of this load
        return np.maximum(0.5 * (s.load[h] + load), load + gain)

    def merge(best, hosts):  # the better of ``best`` and the best among ``hosts`` (their tie-break)
        other = best_among(np.sort(hosts)) if hosts.size else None
        return other if best is None else best if other is None else min(best, other)

    done, k, best = 0, _FIRST_BLOCK, None
    while True:  # blocks [done, k) of the partners by load
        best = merge(best, s.order.between(done, k, exclude=h))
        if best is not None and best[0] < peak - _EPS:
            break
        if lower(s.order.load_at(k, exclude=h)) >= peak - _EPS:  # the least load left out cannot lower the peak
            return best
        done, k = k, 4 * k
    if k > _EXACT_HOSTS:
        return best  # every host that could tie or beat it is in the block, or more than _EXACT_HOSTS are
    threshold = best[0] + _TIE_TOL * max(1.0, abs(peak))
    beyond, too_many = _could_tie(s, h, lower, threshold, gain, k, _EXACT_HOSTS)
    return best if too_many else merge(best, beyond)


def _could_tie(s: Placement, h: int, lower: Callable, threshold: float, gain: float, known: int, limit: int):
    """The partners ``g != h`` with ``lower(L_g) <= threshold`` after the ``known`` least loaded
    ones, up to the ``limit``-th least loaded, and whether more than ``limit`` partners in all
    have ``lower(L_g) <= threshold``. ``lower`` is non-decreasing in ``L_g`` (also in floating
    point), so those partners are the least loaded ones: read from the host order up to the load
    where ``lower`` reaches the threshold (its inverse, with a margin for rounding), then
    filtered with ``lower`` itself; when some of them come after the ``known`` ones, every
    known one is among them."""
    load_h = float(s.load[h])
    bound = min(2.0 * threshold - load_h, threshold - gain)
    bound += 1e-9 * max(1.0, abs(bound), abs(load_h))
    hosts = s.order.between(known, limit + 1, exclude=h, bound=bound)
    hosts = hosts[lower(s.load[hosts]) <= threshold]
    return hosts[:max(limit - known, 0)], hosts.size > 0 and known + hosts.size > limit


def _move(s: Placement, h: int, peak: float) -> list | None:
    """The best single move of a task of ``h`` to another host: ``[(task, host)]``, or None."""
    on_h = s.on(h)
    c, m = s.cpu[on_h][:, None], s.mem[on_h][:, None]

    def best_among(hosts):
        new = np.maximum(s.load[h] - c, s.load[hosts][None, :] + c)
        new = np.where(s.used[hosts][None, :] + m <= 1 + MEM_EPS, new, np.inf)
        a, g = divmod(int(np.argmin(new)), hosts.size)
        return float(new[a, g]), int(on_h[a]), int(hosts[g])

    best = _least_loaded_first(s, h, peak, best_among, gain=float(c.min()))
    if best is not None and best[0] < peak - _EPS:
        return [(best[1], best[2])]
    return None


def _exchange(s: Placement, h: int, peak: float, give_cpu: np.ndarray, give_mem: np.ndarray):
    """Best exchange of one group of h's tasks (rows: CPU ``give_cpu``, memory ``give_mem``)
    with one task of another host: ``(value, row, task)``, or None when no exchange lowers the
    peak. Both hosts must keep their memory within capacity; the group must be larger in CPU."""
    ca, ma = give_cpu[:, None], give_mem[:, None]

    def best_among(hosts):
        if hosts.size > _WINDOW_HOSTS:
            # only the tasks that could lower the peak: L_g - cb + ca < peak needs cb > ca - (peak - L_min)
            off_h = s.smaller_within(give_cpu, peak - float(s.load[hosts].min()))
            mask = np.zeros(s.load.size, dtype=bool)
            mask[hosts] = True
            off_h = off_h[mask[s.th[off_h]]]
            if off_h.size == 0:
                return None  # no candidate lowers the peak
        else:
            off_h = s.on_hosts(hosts)
        if off_h.size == 0:
            return None
        cb, mb = s.cpu[off_h][None, :], s.mem[off_h][None, :]
        g = s.th[off_h][None, :]
        new = np.maximum(s.load[h] - ca + cb, s.load[g] - cb + ca)
        ok = (ca > cb) & (s.used[h] - ma + mb <= 1 + MEM_EPS) & (s.used[g] - mb + ma <= 1 + MEM_EPS)
        new = np.where(ok, new, np.inf)
        a, b = divmod(int(np.argmin(new)), off_h.size)
        return float(new[a, b]), a, int(off_h[b])

    best = _least_loaded_first(s, h, peak, best_among)
    return best if best is not None and best[0] < peak - _EPS else None


def _swap(s: Placement, h: int, peak: float) -> list | None:
    """The best 1-1 swap of a task of ``h`` with a smaller task elsewhere."""
    on_h = s.on(h)
    best = _exchange(s, h, peak, s.cpu[on_h], s.mem[on_h])
    if best is None:
        return None
    _, a, b = best
    return [(int(on_h[a]), int(s.th[b])), (b, h)]


def _swap21(s: Placement, h: int, peak: float) -> list | None:
    """The best 2-1 swap: two tasks of ``h`` against one task elsewhere."""
    on_h = s.on(h)
    if on_h.size < 2:
        return None
    i, j = np.triu_indices(on_h.size, 1)
    pa, pb = on_h[i], on_h[j]
    best = _exchange(s, h, peak, s.cpu[pa] + s.cpu[pb], s.mem[pa] + s.mem[pb])
    if best is None:
        return None
    _, a, b = best
    g = int(s.th[b])
    return [(int(pa[a]), g), (int(pb[a]), g), (b, h)]


def _chain(s: Placement, h: int, peak: float) -> list | None:
    """The best ejection chain ``a: h -> g1``, ``b: g1 -> g2`` (``g1`` the host of ``b``, ``g2``
    not ``h`` nor ``g1``): the moves a memory-full ``g1`` blocks (``a`` fits once ``b`` has left).
    Skipped when the (a, b, g2) triples exceed ``_CHAIN_MAX_CANDIDATES``."""
    n_h, hosts = len(s.members[h]), s.load.size
    n_off = s.th.size - n_h
    if n_off == 0 or hosts < 3 or n_h * n_off * hosts > _CHAIN_MAX_CANDIDATES:
        return None
    on_h, off_h = s.on(h), np.flatnonzero(s.th != h)
    load, used = s.load, s.used
    ca, ma = s.cpu[on_h][:, None, None], s.mem[on_h][:, None, None]
    cb, mb = s.cpu[off_h][None, :, None], s.mem[off_h][None, :, None]
    g1 = s.th[off_h][None, :, None]
    g2 = np.arange(hosts)[None, None, :]
    new = np.maximum(np.maximum(load[h] - ca, load[g1] + ca - cb), load[None, None, :] + cb)
    ok = ((used[g1] + ma - mb <= 1 + MEM_EPS) & (used[None, None, :] + mb <= 1 + MEM_EPS)
          & (g2 != g1) & (g2 != h))
    new = np.where(ok, new, np.inf)
    a, b, g = np.unravel_index(int(np.argmin(new)), new.shape)
    if new[a, b, g] < peak - _EPS:
        return [(int(off_h[b]), int(g)), (int(on_h[a]), int(s.th[off_h[b]]))]
    return None


def _subset_sums(values: np.ndarray) -> np.ndarray:
    """Sums of all ``2^n`` subsets; bit ``i`` of the index says whether ``values[i]`` is in."""
    sums = np.zeros(1)
    for v in values:
        sums = np.concatenate((sums, sums + v))
    return sums


def _pair_splits(s: Placement, h: int, g: int):
    """Every split of the tasks of hosts ``h`` and ``g`` (``n <= 16``): (tasks, pair maximum
    per split, with ``inf`` where memory does not fit), or None when there are too many tasks."""
    n = len(s.members[h]) + len(s.members[g])
    if n == 0 or n > _PAIR_MAX_TASKS:
        return None
    tasks = s.on_hosts(np.array([h, g]))
    lh = _subset_sums(s.cpu[tasks])  # index bit i = 1: task i on h
    mh = _subset_sums(s.mem[tasks])
    new = np.maximum(lh, (s.load[h] + s.load[g]) - lh)
    tot_m = s.used[h] + s.used[g]
    ok = (mh <= 1 + MEM_EPS) & (tot_m - mh <= 1 + MEM_EPS)
    return tasks, np.where(ok, new, np.inf)


def _split(h: int, g: int, tasks: np.ndarray, index: int, s: Placement) -> list:
    """Relocations that realise split ``index`` of ``tasks`` between ``h`` (bit set) and ``g``."""
    out = []
    for i, task in enumerate(tasks.tolist()):
        dest = h if (index >> i) & 1 else g
        if s.th[task] != dest:
            out.append((task, dest))
    return out


def _pair(s: Placement, h: int, peak: float) -> list | None:
    """First partner ``g`` (least loaded first) whose best split with ``h`` beats ``peak``."""
    room = _PAIR_MAX_TASKS - len(s.members[h])
    if room < 0:
        return None
    counts = np.fromiter((len(t) for t in s.members), dtype=np.int64, count=s.load.size)
    for g in np.argsort(s.load, kind="stable").tolist():
        if g == h or counts[g] > room:
            continue
        if s.expired():
            return None
        splits = _pair_splits(s, h, g)
        if splits is None:
            continue
        tasks, new = splits
        k = int(np.argmin(new))
        if new[k] < peak - _EPS:
            return _split(h, g, tasks, k, s)
    return None


_KINDS = (("moves", _move), ("swaps", _swap), ("swaps21", _swap21), ("chains", _chain), ("pairs", _pair))
"""The neighbourhoods of the descent, in the order they are tried (the first that improves wins)."""


def _kick(s: Placement, peak: float, rng, pairs: int) -> int:
    """Perturbation of the iterated local search: ``pairs`` random pairs of hosts below the
    peak get a random split of their tasks that keeps both strictly below the peak (so the
    peak never rises). Returns the number of pairs changed."""
    below = np.flatnonzero(s.load < peak - _EPS)
    changed = 0
    for _ in range(pairs):
        if below.size < 2:
            break
        g1, g2 = (int(x) for x in rng.choice(below, 2, replace=False))
        splits = _pair_splits(s, g1, g2)
        if splits is None:
            continue
        tasks, new = splits
        good = np.flatnonzero(new < peak - _EPS)
        if good.size:
            s.apply(_split(g1, g2, tasks, int(rng.choice(good)), s))
            changed += 1
    return changed


def _lns_step(s: Placement, h: int, rng, n_hosts: int, time_limit: float) -> bool:
    """Re-pack the tasks of ``h`` and ``n_hosts - 1`` other hosts with the compact MILP; True if the peak of the group fell."""
    from vcsched.formulations.solve import quiet_stdout
    from vcsched.formulations.vc_milp import solve_vc_milp

    instance, load = s.instance, s.load
    others = np.flatnonzero(np.arange(instance.hosts) != h)
    if others.size == 0:
        return False
    # the least loaded hosts are the most useful partners; one random partner diversifies
    k = min(n_hosts - 1, others.size)
    order = others[np.argsort(load[others], kind="stable")]
    group = list(order[: max(k - 1, 0)])
    rest = np.setdiff1d(others, np.asarray(group, dtype=np.int64))
    if rest.size and len(group) < k:
        group.append(int(rng.choice(rest)))
    group = np.array([h, *group], dtype=np.int64)
    tasks = s.on_hosts(group)
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
    s.reassign(tasks, group[sub_host])
    return True


def _window_step(s: Placement, target: float, peak: float, share: float, rng) -> bool:
    """A window packing (:func:`heuristics.vc.window_pack.window_pack`) at ``target`` with ``share``
    of the time left, at most :data:`_WINDOW_SECONDS` (without a time limit: at most
    :data:`_WINDOW_CONSTRUCTIONS` constructions and no clock, its tail MILPs stopped by a node count, so
    that the result does not depend on the clock); True if it replaced the placement (its largest load
    is then ``<= target < peak``)."""
    from heuristics.vc.window_pack import window_pack

    if s.deadline is None:  # no clock at all: the packing's tail MILPs stop at a node count too
        left, most = None, _WINDOW_CONSTRUCTIONS
    else:
        left, most = min(share * (s.deadline - time.perf_counter()), _WINDOW_SECONDS), None
        if left < 0.05:
            return False
    th, _ = window_pack(s.instance, target, time_limit=left, rng=rng, max_constructions=most)
    if th is None or host_loads(s.instance, th).max() >= peak - _EPS:
        return False
    s.reassign(np.arange(th.size), th)
    return True


@dataclasses.dataclass
class _Escape:
    """What the search does when no neighbourhood lowers the peak: MILP neighbourhoods
    (:func:`_lns_step`) until ``lns_rounds`` fail in a row, then kicks (:func:`_kick`)."""

    lns_hosts: int
    lns_time_limit: float
    lns_rounds: int
    max_kicks: int
    kick_pairs: int
    rng: np.random.Generator
    window_target: float | None = None
    """The target of the one window packing (:func:`_window_step`) still to try, or None."""
    window_share: float = 0.5
    failures: int = 0

    def step(self, s: Placement, h: int, peak: float, stats: ImproveStats) -> bool:
        """A window packing (once), one neighbourhood or one kick; False when the search should stop."""
        if self.window_target is not None:
            target, self.window_target = self.window_target, None
            stats["window_tried"] += 1
            if _window_step(s, target, peak, self.window_share, self.rng):
                stats["window"] += 1
                stats["steps"] += 1
            return True
        limit = self.lns_time_limit if s.deadline is None else min(self.lns_time_limit, s.deadline - time.perf_counter())
        if self.lns_hosts < 2 or self.failures >= self.lns_rounds or limit <= 0.05:
            if stats["kicks"] >= self.max_kicks or not _kick(s, peak, self.rng, self.kick_pairs):
                return False
            stats["kicks"] += 1
            return True
        stats["lns_tried"] += 1
        if _lns_step(s, h, self.rng, self.lns_hosts, limit):
            stats["lns"] += 1
            stats["steps"] += 1
            self.failures = 0
        else:
            self.failures += 1
        return True


def _descend(s: Placement, h: int, peak: float, stats: ImproveStats) -> bool:
    """Apply the first neighbourhood of :data:`_KINDS` that lowers the peak; False if none does."""
    for name, find in _KINDS:
        relocations = find(s, h, peak)
        if relocations is not None:
            s.apply(relocations)
            stats[name] += 1
            stats["steps"] += 1
            return True
    return False


def _search(s: Placement, target: float, escape: _Escape, max_steps: int) -> ImproveStats:
    """The descent on the most loaded host, with ``escape`` when it is stuck, until the peak is
    ``<= target``, the deadline, ``max_steps`` applied steps, or nothing is left to try."""
    stats = ImproveStats(moves=0, swaps=0, swaps21=0, chains=0, pairs=0, kicks=0, lns=0, lns_tried=0, window=0,
                         window_tried=0, steps=0)
    while stats["steps"] < max_steps:
        h = s.order.peak()
        peak = float(s.load[h])
        if peak <= target + _EPS or s.expired():
            break
        if not _descend(s, h, peak, stats) and not escape.step(s, h, peak, stats):
            break
    return stats


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
    window_share: float = 0.5,
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
    window_share : float
        With an explicit ``target_load`` and at least two tasks per host:
        the first time the descent is stuck, a window packing at the target
        (:mod:`heuristics.vc.window_pack`) with this share of the time left,
        at most 5 s (without a time limit: at most 20 constructions, and no
        clock); 0 turns it off.
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
    window = target_load is not None and window_share > 0 and instance.n_tasks >= 2 * instance.hosts
    escape = _Escape(lns_hosts, lns_time_limit, lns_rounds, max_kicks, kick_pairs, rng,
                     target if window else None, window_share)
    s = Placement.start(instance, th, None if time_limit is None else t0 + float(time_limit))
    stats = _search(s, target, escape, max_steps)
    stats["seconds"] = time.perf_counter() - t0
    return s.th, stats
