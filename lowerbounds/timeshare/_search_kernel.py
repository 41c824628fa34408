"""Compiled local search over mappings (:mod:`lowerbounds.timeshare.search`), each move evaluated incrementally.

Processor sharing on one server splits into **busy periods**: maximal intervals during which some task
computes. The dates inside a busy period depend on its tasks alone. A move changes a server's task list at
one or two places; only the busy period where the first change falls, and the ones a change merges into it,
are simulated again (:func:`_resimulate`):

* the simulation starts at the start of the busy period holding the first change: the last position ``b``
  at or before it where the task joins an idle server (``b = 0`` or the largest end before it is at most its
  start: the prefix maxima ``pm`` of the old ends say so, and the tasks before the first change are the
  same in both lists);
* it stops at the first later task, past every change, that joins an idle server in the new schedule (the
  computing set is empty) *and* in the old one (``pm`` of the old list): from there on both lists hold the
  same tasks from the same (empty) state, so their dates are equal.

The event loop is :func:`lowerbounds.timeshare._ps.server_dates`' (virtual time; the same operations, so the
same dates as a whole re-simulation up to rounding, tested against it). The search loop itself (the draw of a
task, its relocations and swaps, the kicks) is :func:`lowerbounds.timeshare.search`'s, compiled, with its
random numbers from a SplitMix64 stream seeded by the caller (reproducible for a given seed and number of
evaluations). The caller runs it in chunks of evaluations and checks its clock between them.

Metric codes: 0 makespan, 1 sumflow, 2 maxflow, 3 maxstretch. Sumflow keeps per-server sums, the others
per-server maxima.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.timeshare._ps import share_list, share_until
from vcsched.jit import njit

__all__ = ["new_state", "search_chunk", "rebuild", "SWAPS", "KICK"]

SWAPS = 6
"""Tasks of each other server tried in a swap (the nearest arrivals), as :data:`lowerbounds.timeshare.search.SWAP_PARTNERS`."""
KICK = 8
"""Tasks moved at random by a kick, as :data:`lowerbounds.timeshare.search.KICK_TASKS`."""


@njit(cache=True)
def _rand(rng):  # pragma: no cover - compiled
    """The next float in [0, 1) of the SplitMix64 stream whose state is ``rng[0]`` (uint64)."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _cost(metric, e, out, arrival, den):  # pragma: no cover - compiled
    """A task's cost from its computation end ``e``: completion, flow or stretch."""
    c = e + out
    if metric == 0:
        return c
    if metric == 3:
        return (c - arrival) / den
    return c - arrival


def new_state(n, S):
    """Empty arrays of a search state for ``n`` tasks on ``S`` servers (filled by :func:`rebuild`)."""
    return dict(lst=np.zeros((S, n + 2), dtype=np.int64), cnt=np.zeros(S, dtype=np.int64),
                pm=np.zeros((S, n + 2)), end=np.zeros(n), cost=np.zeros(n), agg=np.zeros(S),
                mapping=np.zeros(n, dtype=np.int64))


@njit(cache=True)
def _build_server(s, mapping, st, p, out, arrival, den, metric, lst, cnt, pm, end, cost, agg, tag, act):  # pragma: no cover
    """Server ``s``'s list (by start, then task), dates, prefix maxima, costs and aggregate from ``mapping``."""
    n = mapping.size
    k = 0
    for j in range(n):
        if mapping[j] == s:
            lst[s, k] = j
            k += 1
    cnt[s] = k
    keys = np.empty(k)
    for a in range(k):
        keys[a] = st[s, lst[s, a]]
    order = np.argsort(keys, kind="mergesort")
    tmp = lst[s, :k].copy()
    for a in range(k):
        lst[s, a] = tmp[order[a]]
    e = end.copy()
    if k > 0:
        share_list(lst[s], 0, k, st[s], p[s], e, tag, act)
    m = -np.inf
    total = 0.0
    for a in range(k):
        j = lst[s, a]
        end[j] = e[j]
        m = max(m, e[j])
        pm[s, a] = m
        cost[j] = _cost(metric, e[j], out[s, j], arrival[j], den[s, j])
        total = total + cost[j] if metric == 1 else max(total, cost[j])
    agg[s] = total


@njit(cache=True)
def rebuild(mapping, st, p, out, arrival, den, metric, lst, cnt, pm, end, cost, agg):  # pragma: no cover - compiled
    """Every server of the state from ``mapping`` (also the start and every kick)."""
    n = mapping.size
    tag = np.empty(n)
    act = np.empty(n, dtype=np.int64)
    for s in range(st.shape[0]):
        _build_server(s, mapping, st, p, out, arrival, den, metric, lst, cnt, pm, end, cost, agg, tag, act)


@njit(cache=True)
def _new_list(s, lst, cnt, st, drop, add, nl, op):  # pragma: no cover - compiled
    """Server ``s``'s list without ``drop`` and with ``add`` (-1: none) into ``nl`` (``op``: old position of each
    entry, -1 for the added task). Returns its length, the first position where it differs from the old one, and
    the first position from which on every entry is an old task in the old order (past every change)."""
    k = 0
    first = -1
    last = 0
    placed = add < 0
    for a in range(cnt[s]):
        j = lst[s, a]
        if not placed and (st[s, add] < st[s, j] or (st[s, add] == st[s, j] and add < j)):
            first = k if first < 0 else first
            nl[k] = add
            op[k] = -1
            k += 1
            last = max(last, k)
            placed = True
        if j == drop:
            first = k if first < 0 else first
            last = max(last, k)
            continue
        nl[k] = j
        op[k] = a
        k += 1
    if not placed:
        first = k if first < 0 else first
        nl[k] = add
        op[k] = -1
        k += 1
        last = max(last, k)
    return k, first, last


@njit(cache=True)
def _resimulate(s, drop, add, lst, cnt, pm, st, p, out, arrival, den, metric, cost, agg, nl, op, e, tag, act):  # pragma: no cover
    """The aggregate of server ``s`` with ``drop`` removed and ``add`` added (either -1), by re-simulating the
    changed busy periods only (module docstring)."""
    k, first, last = _new_list(s, lst, cnt, st, drop, add, nl, op)
    if k == 0:
        return 0.0
    # the start of the busy period (old schedule) of the first change: the earlier of the dropped and the added
    # task when they are at ``first``; before ``first`` both lists hold the same tasks
    tf = np.inf
    if drop >= 0 and (first == cnt[s] or lst[s, first] == drop):
        tf = st[s, drop]
    if add >= 0 and first < k and nl[first] == add:
        tf = min(tf, st[s, add])
    b = first
    if b > 0 and pm[s, b - 1] > tf:
        b -= 1
        while b > 0 and pm[s, b - 1] > st[s, nl[b]]:
            b -= 1
    # the simulation, stopped at the first task past the changes that joins an idle server in both schedules
    n_act = 0
    t = st[s, nl[b]] if b < k else 0.0
    v = 0.0
    nxt = b
    stop = k
    while nxt < k or n_act > 0:
        tj = st[s, nl[nxt]] if nxt < k else np.inf
        n_act, t, v = share_until(tag, act, n_act, t, v, tj, e)
        if nxt >= k:
            break
        if n_act == 0 and nxt >= last and (op[nxt] == 0 or pm[s, op[nxt] - 1] <= st[s, nl[nxt]]):
            stop = nxt
            break
        i = nl[nxt]
        tag[i] = v + p[s, i]
        act[n_act] = i
        n_act += 1
        nxt += 1
    # every task of the simulated stretch has finished; the old tasks outside it keep their costs (before the
    # first change both lists agree)
    new_total = 0.0
    for a in range(b, stop):
        i = nl[a]
        c = _cost(metric, e[i], out[s, i], arrival[i], den[s, i])
        new_total = new_total + c if metric == 1 else max(new_total, c)
    old_lo = b
    old_hi = op[stop] if stop < k else cnt[s]
    if metric == 1:
        removed = 0.0
        for a in range(old_lo, old_hi):
            removed += cost[lst[s, a]]
        return agg[s] - removed + new_total
    rest = new_total
    for a in range(cnt[s]):
        if a < old_lo or a >= old_hi:
            rest = max(rest, cost[lst[s, a]])
    return rest


@njit(cache=True)
def _total(metric, agg):  # pragma: no cover - compiled
    return agg.sum() if metric == 1 else agg.max()


@njit(cache=True)
def _trial(metric, agg, a, va, b, vb):  # pragma: no cover - compiled
    """The metric's value with servers ``a`` and ``b`` at ``va`` and ``vb``, the others unchanged."""
    if metric == 1:
        return agg.sum() - agg[a] - agg[b] + va + vb
    m = max(va, vb)
    for s in range(agg.size):
        if s != a and s != b:
            m = max(m, agg[s])
    return m


@njit(cache=True)
def _pick(rng, mapping, end, out, arrival):  # pragma: no cover - compiled
    """Half of the time a task drawn with probability proportional to its flow, else uniformly."""
    n = mapping.size
    if _rand(rng) < 0.5:
        total = 0.0
        for j in range(n):
            total += max(end[j] + out[mapping[j], j] - arrival[j], 0.0)
        if total > 0:
            x = _rand(rng) * total
            acc = 0.0
            for j in range(n):
                acc += max(end[j] + out[mapping[j], j] - arrival[j], 0.0)
                if acc > x:
                    return j
            return n - 1
    return min(int(_rand(rng) * n), n - 1)


@njit(cache=True)
def _partners(b, j, lst, cnt, arrival, near):  # pragma: no cover - compiled
    """The (at most :data:`SWAPS`) tasks of server ``b`` whose arrivals are nearest to ``j``'s, into ``near``."""
    found = 0
    dist = np.empty(SWAPS)
    for a in range(cnt[b]):
        x = lst[b, a]
        d = abs(arrival[x] - arrival[j])
        if found < SWAPS:
            pos = found
            found += 1
        elif d < dist[found - 1]:
            pos = found - 1
        else:
            continue
        while pos > 0 and dist[pos - 1] > d:
            dist[pos] = dist[pos - 1]
            near[pos] = near[pos - 1]
            pos -= 1
        dist[pos] = d
        near[pos] = x
    return found


@njit(cache=True)
def _kick(rng, mapping, best_mapping, S):  # pragma: no cover - compiled
    """``mapping`` = the best mapping with :data:`KICK` random tasks on random other servers."""
    n = mapping.size
    mapping[:] = best_mapping
    idx = np.arange(n)
    for r in range(min(KICK, n)):
        q = r + min(int(_rand(rng) * (n - r)), n - r - 1)
        idx[r], idx[q] = idx[q], idx[r]
        j = idx[r]
        mapping[j] = (mapping[j] + 1 + min(int(_rand(rng) * (S - 1)), S - 2)) % S


@njit(cache=True)
def search_chunk(st, p, out, arrival, den, metric, lst, cnt, pm, end, cost, agg, mapping, best_mapping, info, rng,
                 evaluations, until, enough):  # pragma: no cover - compiled
    """Steps of the local search while ``info[2]`` (evaluations so far) is below ``until`` and ``evaluations``.

    ``until`` (the chunk's end) is checked only before a step and ``evaluations`` (the budget) also between the
    moves of a step, so that the path does not depend on how the caller cuts the budget into chunks.

    ``info``: best value, steps without a new best, evaluations. Returns 1 when the best value is at most
    ``enough`` (a proven bound: nothing better exists), else 0. Each step draws a task (:func:`_pick`), tries
    it on every other server and swapped with the :data:`SWAPS` tasks of that server with the nearest
    arrivals (each move one evaluation), and applies the best move when it improves the metric; after ``n``
    (at least 50) steps without a new best, it restarts from the best mapping kicked (:func:`_kick`)."""
    n, S = mapping.size, st.shape[0]
    tag = np.empty(n)
    act = np.empty(n, dtype=np.int64)
    nl = np.empty(n + 2, dtype=np.int64)
    op = np.empty(n + 2, dtype=np.int64)
    e = np.empty(n)
    near = np.empty(SWAPS, dtype=np.int64)
    while info[2] < evaluations and info[2] < until:
        if info[0] <= enough:
            return 1
        if info[1] >= max(n, 50):
            _kick(rng, mapping, best_mapping, S)
            rebuild(mapping, st, p, out, arrival, den, metric, lst, cnt, pm, end, cost, agg)
            info[1] = 0
        j = _pick(rng, mapping, end, out, arrival)
        a = mapping[j]
        best_v = _total(metric, agg)
        best_b = -1
        best_k = -1
        for b in range(S):
            if b == a or info[2] >= evaluations:
                continue
            info[2] += 1
            va = _resimulate(a, j, -1, lst, cnt, pm, st, p, out, arrival, den, metric, cost, agg, nl, op, e, tag, act)
            vb = _resimulate(b, -1, j, lst, cnt, pm, st, p, out, arrival, den, metric, cost, agg, nl, op, e, tag, act)
            trial = _trial(metric, agg, a, va, b, vb)
            if trial < best_v:
                best_v, best_b, best_k = trial, b, -1
            found = _partners(b, j, lst, cnt, arrival, near)
            for r in range(found):
                if info[2] >= evaluations:
                    break
                k = near[r]
                info[2] += 1
                va = _resimulate(a, j, k, lst, cnt, pm, st, p, out, arrival, den, metric, cost, agg, nl, op, e, tag,
                                 act)
                vb = _resimulate(b, k, j, lst, cnt, pm, st, p, out, arrival, den, metric, cost, agg, nl, op, e, tag,
                                 act)
                trial = _trial(metric, agg, a, va, b, vb)
                if trial < best_v:
                    best_v, best_b, best_k = trial, b, k
        info[1] += 1
        if best_b >= 0:
            mapping[j] = best_b
            if best_k >= 0:
                mapping[best_k] = a
            for s in (a, best_b):
                _build_server(s, mapping, st, p, out, arrival, den, metric, lst, cnt, pm, end, cost, agg, tag, act)
            value = _total(metric, agg)
            if value < info[0] * (1 - 1e-12):
                info[0] = value
                best_mapping[:] = mapping
                info[1] = 0
    return 0
