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
of the jobs' current starts, each list evaluated by :func:`place`; it returns the best placement found.

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
def place(perm, release, ready, width, duration, base_bt, base_bf, base_nxt, base_size, node0, t_hi, bound, bsld,
          bt, bf, nxt, cluster, start, work):
    """Serial generation of the window's jobs in the list ``perm`` (indices into the window's arrays ``release``,
    ``width``, ``duration`` (m, K); each job starts at or after ``ready[j] >= release[j]``) against a copy of the
    residual profile ``base_*`` (copied into ``bt, bf, nxt``; ``node0`` from :func:`start_nodes` over ``ready``);
    writes ``cluster``, ``start`` and returns the summed cost (the response time, or the bounded slowdown when
    ``bsld``), or ``inf`` as soon as it reaches ``bound`` or a job cannot end by ``t_hi``."""
    K = duration.shape[1]
    bt[:base_size], bf[:base_size], nxt[:base_size] = base_bt[:base_size], base_bf[:base_size], base_nxt[:base_size]
    size = base_size
    work[0] += base_size
    total = 0.0
    for j in perm:
        best_k, best_c, best_s, best_node = -1, np.inf, np.inf, -1
        for k in range(K):
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
        if best_k < 0 or best_c > t_hi:
            return np.inf
        cluster[j], start[j] = best_k, best_s
        p = duration[j, best_k]
        total += _cost(best_c - release[j], p, bsld)
        if total >= bound:
            return np.inf
        if p > 0.0:
            size = _occupy(bt, bf, nxt, size, best_node, best_s, best_c, width[j], work)
    return total


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
    found when its cost is below ``current``, else ``cost = inf``."""
    m, K = duration.shape
    cap = base_bt.size
    bt, bf, nxt = np.zeros(cap), np.zeros(cap, dtype=np.int64), np.full(cap, -1, dtype=np.int64)
    c_try, s_try = np.zeros(m, dtype=np.int64), np.zeros(m)
    c_best, s_best = np.zeros(m, dtype=np.int64), np.zeros(m)
    cur = perm.copy()
    trial = np.empty(m, dtype=np.int64)
    node0 = start_nodes(ready, K, base_bt, base_nxt, work)
    best = place(cur, release, ready, width, duration, base_bt, base_bf, base_nxt, base_size, node0, t_hi, np.inf,
                 bsld, bt, bf, nxt, c_best, s_best, work)
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
                v = place(trial, release, ready, width, duration, base_bt, base_bf, base_nxt, base_size, node0, t_hi,
                          best, bsld, bt, bf, nxt, c_try, s_try, work)
                if v < best - 1e-9 * max(abs(best), 1.0):
                    best = v
                    cur[:] = trial
                    c_best[:], s_best[:] = c_try, s_try
                    improved = True
    if best < current - 1e-9 * max(abs(current), 1.0):
        return best, c_best, s_best, evals
    return np.inf, c_best, s_best, evals
