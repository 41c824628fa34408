"""Compiled re-sequencing of a window of jobs against the residual capacity of the others (the kernel of
:mod:`lowerbounds.batch.windowsearch`).

Every job outside the window keeps its cluster and start. :func:`residual_profile` builds, per cluster, the
processors those fixed jobs leave free during ``[t_lo, t_hi)`` as linked breakpoints (the profile of
:func:`lowerbounds.batch._listsched.serial_schedule`: ``bt`` time, ``bf`` free processors until the next
breakpoint, ``nxt`` the next one; cluster ``k``'s first breakpoint is node ``k`` at ``t_lo``), with a last
breakpoint at ``t_hi`` where every processor is free (a sentinel: a placement that ends after ``t_hi`` is refused,
so only the fixed jobs that overlap ``[t_lo, t_hi)`` matter). The window's jobs start at ``t_lo`` or later (their
``ready`` times, at least their submissions).

:func:`place` is the serial schedule generation of the window's jobs in a list order against that profile: each
job at its earliest start ``>= r_j`` where its processors are free during its whole run, on the cluster where it
completes first (ties: the earlier start, the lower cluster). :func:`improve_window` is a first-improvement
descent over insertion moves (take the job at position ``a`` of the list, put it at position ``b``) from the list
of the jobs' current starts, each list placed as :func:`place` places it (from the profile kept after the jobs the
move leaves in place: ``_advance``); it returns the best placement found.

Every placement it returns is a schedule of the relaxation together with the fixed jobs: each window job starts
at or after its submission, on a cluster where it fits, where the fixed jobs and the window jobs placed before it
leave its processors free during its whole run, and it ends by ``t_hi``, before which the profile holds every
fixed job that runs then. The caller checks the whole schedule all the same.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._listsched import _earliest_fit, _occupy
from lowerbounds.batch.instance import BSLD_TAU
from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["residual_profile", "start_nodes", "place", "improve_window"]


@njit(cache=True)
def residual_profile(procs, f_cluster, f_start, f_finish, f_width, t_lo, t_hi, spare):
    """The fixed jobs' residual profile on ``[t_lo, t_hi)`` (module docstring), with room for ``spare`` more
    breakpoints; returns ``(bt, bf, nxt, size)``. The fixed jobs are those passed (their cluster, start, finish,
    width); those that do not overlap ``[t_lo, t_hi)`` change nothing."""
    K = procs.size
    nf = f_cluster.size
    cap = 2 * K + 2 * nf + spare + 1
    bt, bf, nxt = np.zeros(cap), np.zeros(cap, dtype=np.int64), np.full(cap, -1, dtype=np.int64)
    size = K
    for k in range(K):
        ev_t = np.empty(2 * nf)
        ev_d = np.empty(2 * nf, dtype=np.int64)
        ne = 0
        base = procs[k]
        for i in range(nf):
            if f_cluster[i] != k or f_finish[i] <= t_lo or f_start[i] >= t_hi or f_finish[i] <= f_start[i]:
                continue
            if f_start[i] <= t_lo:
                base -= f_width[i]
            else:
                ev_t[ne], ev_d[ne] = f_start[i], -f_width[i]
                ne += 1
            if f_finish[i] < t_hi:
                ev_t[ne], ev_d[ne] = f_finish[i], f_width[i]
                ne += 1
        order = np.argsort(ev_t[:ne], kind="mergesort")
        bt[k], bf[k] = t_lo, base
        last, free, a = k, base, 0
        while a < ne:
            t = ev_t[order[a]]
            while a < ne and ev_t[order[a]] == t:
                free += ev_d[order[a]]
                a += 1
            bt[size], bf[size] = t, free
            nxt[last] = size
            last = size
            size += 1
        bt[size], bf[size] = t_hi, procs[k]  # the sentinel: every processor free from t_hi on
        nxt[last] = size
        last = size
        size += 1
    return bt, bf, nxt, size


@njit(cache=True)
def _cost(resp, p, bsld):
    if bsld:
        return max(1.0, resp / max(p, BSLD_TAU))
    return resp


@njit(cache=True)
def start_nodes(ready, K, bt, nxt, work):
    """``node[j, k]``: the last breakpoint of cluster ``k``'s profile at or before ``ready[j]``. Placing a job
    only adds breakpoints after existing ones, so it stays a breakpoint at or before ``ready[j]`` in every copy
    of the profile that :func:`place` extends."""
    m = ready.size
    node = np.empty((m, K), dtype=np.int64)
    for j in range(m):
        for k in range(K):
            a = k
            while nxt[a] != -1 and bt[nxt[a]] <= ready[j]:
                a = nxt[a]
                work[0] += 1
            node[j, k] = a
    return node


@njit(cache=True)
def _fit(j, ready, width, duration, bt, bf, nxt, node0, work):
    """Job ``j``'s placement against the profile: its earliest start ``>= ready[j]`` with its processors free during
    its whole run, on the cluster where it completes first (ties: the earlier start, the lower cluster); returns
    ``(cluster, start, completion, the breakpoint at or before the start)``, cluster -1 when it fits nowhere."""
    best_k, best_c, best_s, best_node = -1, np.inf, np.inf, -1
    for k in range(duration.shape[1]):
        p = duration[j, k]
        if not np.isfinite(p):
            continue
        if p == 0.0:
            s, node = ready[j], k
        else:
            node = node0[j, k]
            while nxt[node] != -1 and bt[nxt[node]] <= ready[j]:
                node = nxt[node]
                work[0] += 1
            s, node = _earliest_fit(bt, bf, nxt, node, ready[j], width[j], p, work)
        if s + p < best_c or (s + p == best_c and s < best_s):
            best_k, best_c, best_s, best_node = k, s + p, s, node
    return best_k, best_s, best_c, best_node


@njit(cache=True)
def place(perm, release, ready, width, duration, base_bt, base_bf, base_nxt, base_size, node0, t_hi, bound, bsld,
          bt, bf, nxt, cluster, start, work):
    """Serial generation of the window's jobs in the list ``perm`` (indices into the window's arrays ``release``,
    ``width``, ``duration`` (m, K); each job starts at or after ``ready[j] >= release[j]``) against a copy of the
    residual profile ``base_*`` (copied into ``bt, bf, nxt``; ``node0`` from :func:`start_nodes` over ``ready``);
    writes ``cluster``, ``start`` and returns the summed cost (the response time, or the bounded slowdown when
    ``bsld``), or ``inf`` as soon as it reaches ``bound`` or a job cannot end by ``t_hi``."""
    bt[:base_size], bf[:base_size], nxt[:base_size] = base_bt[:base_size], base_bf[:base_size], base_nxt[:base_size]
    size = base_size
    work[0] += base_size
    total = 0.0
    for j in perm:
        k, s, c, node = _fit(j, ready, width, duration, bt, bf, nxt, node0, work)
        if k < 0 or c > t_hi:
            return np.inf
        cluster[j], start[j] = k, s
        p = duration[j, k]
        total += _cost(c - release[j], p, bsld)
        if total >= bound:
            return np.inf
        if p > 0.0:
            size = _occupy(bt, bf, nxt, size, node, s, c, width[j], work)
    return total


@njit(cache=True)
def _advance(lst, p, end, bound, release, ready, width, duration, node0, t_hi, bsld, bt, bf, nxt, size, cluster,
             start, record, snap_bt, snap_bf, snap_nxt, at_size, at_cost, work):
    """The serial generation of :func:`place` from position ``p`` of the list ``lst`` to ``end``, on the working
    profile ``bt, bf, nxt``, which holds ``lst[:p]`` placed (``size`` breakpoints, summed cost ``at_cost[p]``);
    writes ``cluster``, ``start``; when ``record``, the profile holding ``lst[:i]`` is copied to row ``i`` of the
    snapshots ``snap_*`` (``at_size[i]`` breakpoints, summed cost ``at_cost[i]``) for each ``i`` reached. Returns ``(reached,
    total)``: ``reached == end`` when every job was placed with a summed cost ``total`` below ``bound``, else the
    position of the job that could not end by ``t_hi`` or that brought the cost to ``bound``."""
    total = at_cost[p]
    for i in range(p, end):
        j = lst[i]
        k, s, c, node = _fit(j, ready, width, duration, bt, bf, nxt, node0, work)
        if k < 0 or c > t_hi:
            return i, np.inf
        cluster[j], start[j] = k, s
        q = duration[j, k]
        total += _cost(c - release[j], q, bsld)
        if total >= bound:
            return i, np.inf
        if q > 0.0:
            size = _occupy(bt, bf, nxt, size, node, s, c, width[j], work)
        if record:
            snap_bt[i + 1, :size], snap_bf[i + 1, :size], snap_nxt[i + 1, :size] = bt[:size], bf[:size], nxt[:size]
            at_size[i + 1], at_cost[i + 1] = size, total
            work[0] += size
    return end, total


@njit(cache=True)
def _restore(p, bt, bf, nxt, snap_bt, snap_bf, snap_nxt, at_size, work):
    """The working profile set to snapshot ``p``; returns its number of breakpoints."""
    size = at_size[p]
    bt[:size], bf[:size], nxt[:size] = snap_bt[p, :size], snap_bf[p, :size], snap_nxt[p, :size]
    work[0] += size
    return size


@njit(cache=True)
def _insert(perm, a, b, out):
    """``perm`` with its entry at position ``a`` moved to position ``b`` (written to ``out``)."""
    m = perm.size
    x = perm[a]
    i = 0
    for c in range(m):
        if c == a:
            continue
        if i == b:
            out[i] = x
            i += 1
        out[i] = perm[c]
        i += 1
    if i == b:
        out[i] = x


@njit(cache=True)
def improve_window(release, ready, width, duration, base_bt, base_bf, base_nxt, base_size, t_hi, current, perm,
                   bsld, max_evals, work):
    """First-improvement descent over insertion moves from the list ``perm`` (module docstring), at most
    ``max_evals`` placements, each job starting at or after ``ready[j] >= release[j]``; ``current`` is the summed
    cost of the window's present placement. Returns ``(cost, cluster, start, evaluations)``: the best placement
    found when its cost is below ``current``, else ``cost = inf`` (also when the list ``perm`` itself cannot be
    placed by ``t_hi``: no move is then tried).

    Each list is placed as :func:`place` would place it, with the same result, but without placing its first jobs
    again: the list after moving the job at position ``a`` to position ``b`` begins with the current list's first
    ``min(a, b)`` jobs, whose serial generation is the current list's. The profile after each of the current list's
    first jobs is kept (a snapshot per position, taken again from the move's position on when a move is kept), and
    a move's placement starts from the snapshot of its first changed position. A move whose unchanged jobs already
    cost the best sum is cut at once, as :func:`place` would cut it (costs are never negative)."""
    m, K = duration.shape
    cap = base_bt.size
    bt, bf, nxt = np.zeros(cap), np.zeros(cap, dtype=np.int64), np.full(cap, -1, dtype=np.int64)
    snap_bt, snap_bf = np.empty((m + 1, cap)), np.empty((m + 1, cap), dtype=np.int64)
    snap_nxt = np.empty((m + 1, cap), dtype=np.int64)
    at_size, at_cost = np.empty(m + 1, dtype=np.int64), np.zeros(m + 1)
    n0 = base_size
    snap_bt[0, :n0], snap_bf[0, :n0], snap_nxt[0, :n0] = base_bt[:n0], base_bf[:n0], base_nxt[:n0]
    at_size[0] = n0
    node0 = start_nodes(ready, K, base_bt, base_nxt, work)
    c_cur, s_cur = np.zeros(m, dtype=np.int64), np.zeros(m)
    c_try, s_try = np.zeros(m, dtype=np.int64), np.zeros(m)
    cur = perm.copy()
    trial = np.empty(m, dtype=np.int64)
    size = _restore(0, bt, bf, nxt, snap_bt, snap_bf, snap_nxt, at_size, work)
    reached, best = _advance(cur, 0, m, np.inf, release, ready, width, duration, node0, t_hi, bsld, bt, bf, nxt, size,
                             c_cur, s_cur, True, snap_bt, snap_bf, snap_nxt, at_size, at_cost, work)
    if reached < m:
        return np.inf, c_cur, s_cur, 1
    evals = 1
    improved = True
    while improved and evals < max_evals:
        improved = False
        for a in range(m):
            for b in range(m):
                if b == a or evals >= max_evals:
                    continue
                _insert(cur, a, b, trial)
                evals += 1
                p = min(a, b)
                if at_cost[p] >= best:
                    continue
                size = _restore(p, bt, bf, nxt, snap_bt, snap_bf, snap_nxt, at_size, work)
                reached, v = _advance(trial, p, m, best, release, ready, width, duration, node0, t_hi, bsld, bt, bf,
                                      nxt, size, c_try, s_try, False, snap_bt, snap_bf, snap_nxt, at_size, at_cost,
                                      work)
                if reached == m and v < best - 1e-9 * max(abs(best), 1.0):
                    cur[:] = trial
                    size = _restore(p, bt, bf, nxt, snap_bt, snap_bf, snap_nxt, at_size, work)
                    _reached, best = _advance(cur, p, m, np.inf, release, ready, width, duration, node0, t_hi, bsld,
                                              bt, bf, nxt, size, c_cur, s_cur, True, snap_bt, snap_bf, snap_nxt,
                                              at_size, at_cost, work)
                    improved = True
    if best < current - 1e-9 * max(abs(current), 1.0):
        return best, c_cur, s_cur, evals
    return np.inf, c_cur, s_cur, evals
