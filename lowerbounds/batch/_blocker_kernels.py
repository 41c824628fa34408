"""Compiled group subproblems of the blocker bound (:mod:`lowerbounds.batch.blocker`), one cluster, mean response.

Prices ``lam[u] >= 0`` per slot ``[t0 + u delta, t0 + (u + 1) delta)`` (zero beyond the last), ``cum[u]`` their
integral up to slot ``u``. Job ``j`` started at ``s`` costs ``c_j(s) = s + p_j - r_j + q_j (Lam(s + p_j) - Lam(s))``,
piecewise linear in ``s`` with breakpoints where ``s`` or ``s + p_j`` crosses a slot boundary, and at least its
response ``s + p_j - r_j`` (nondecreasing): the minimum of ``c_j`` over an interval is at an end or a breakpoint,
and a scan by increasing ``s`` stops once the response alone reaches the best cost found.

A group is a centre ``c`` and members ``i`` that cannot run beside it (``q_i + q_c > m``). For the centre's start
in slot ``u``, ``s in [a_u, b_u]`` (``a_u = max(r_c, t0 + u delta)``, ``b_u = t0 + (u + 1) delta``), member ``i``
ends by ``s <= b_u`` or starts at ``s + p_c >= a_u + p_c``, so it costs at least
``g_i(u) = min(PM_i(b_u - p_i), SM_i(a_u + p_c))`` with ``PM_i(x) = min_{r_i <= t <= x} c_i(t)`` and
``SM_i(y) = min_{t >= max(y, r_i)} c_i(t)``; the group costs at least
``min_u [min_{s in [a_u, b_u]} c_c(s) + sum_i g_i(u)]``.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._lagrange_kernels import _add_full, _add_usage
from vcsched.jit import njit

__all__ = ["group_minima", "least_costs"]


@njit(cache=True)
def _lam_at(cum, lam, t0, delta, inv, x):
    """``Lam(x)``, the integral of the prices from ``t0`` to ``x``."""
    T = lam.size
    y = (x - t0) * inv
    if y <= 0.0:
        return 0.0
    u = int(y)
    if u >= T:
        return cum[T]
    return cum[u] + lam[u] * (x - (t0 + u * delta))


@njit(cache=True)
def _cost(s, r, p, q, cum, lam, t0, delta, inv):
    return s + p - r + q * (_lam_at(cum, lam, t0, delta, inv, s + p) - _lam_at(cum, lam, t0, delta, inv, s))


@njit(cache=True)
def _scan(a, b, r, p, q, cum, lam, t0, delta, inv, best, best_s, work):
    """Minimum of ``c`` over ``[a, b]`` (``a >= r``; ``b`` may be ``inf``) below ``best``: its two ends and the
    breakpoints between, by increasing start (starts on slot boundaries, then ends on slot boundaries), each scan
    stopping once the response alone reaches the best cost found. ``(best, its start)``; ``work[0]`` counts the
    costs evaluated."""
    if a > b:
        return best, best_s
    for s in (a, b):
        if s < np.inf and s - r + p < best:
            c = _cost(s, r, p, q, cum, lam, t0, delta, inv)
            work[0] += 1
            if c < best:
                best, best_s = c, s
    for shift in (0.0, p):
        u = int(np.floor((a + shift - t0) * inv)) + 1
        while True:
            s = t0 + u * delta - shift
            if s >= b or s - r + p >= best:
                break
            c = _cost(s, r, p, q, cum, lam, t0, delta, inv)
            work[0] += 1
            if c < best:
                best, best_s = c, s
            u += 1
    return best, best_s


@njit(cache=True)
def _prefix(x, r, p, q, cum, lam, t0, delta, inv, lo, lo_s, work):
    """``(PM(x), its start)``: the least cost of a start in ``[r, x]`` (``inf`` if ``x < r``); ``lo`` at ``lo_s`` is
    the job's least cost over every start."""
    if x < r:
        return np.inf, r
    if x >= lo_s:
        return lo, lo_s
    return _scan(r, x, r, p, q, cum, lam, t0, delta, inv, np.inf, r, work)


@njit(cache=True)
def _suffix(y, r, p, q, cum, lam, t0, delta, inv, lo, lo_s, work):
    """``(SM(y), its start)``: the least cost of a start at ``max(y, r)`` or later."""
    y = max(y, r)
    if y <= lo_s:
        return lo, lo_s
    return _scan(y, np.inf, r, p, q, cum, lam, t0, delta, inv, np.inf, y, work)


@njit(cache=True)
def _member_costs(acc, u0, a0, pc, rc, t0, delta, inv, r, p, q, cum, lam, lo, lo_s, work):
    """Adds ``g_i(u)`` of one member to ``acc[u - u0]`` for the centre's slots ``u0 .. u0 + acc.size - 1``:
    ``PM`` forward and ``SM`` backward, each step one slot's interval. From the first slot ``kb`` where the member
    can end before the centre's slot ends at its least-cost start (``PM = lo``), ``g_i = lo`` (``SM >= lo``), so
    ``SM`` is scanned over the slots before ``kb`` only."""
    n = acc.size
    first_x = t0 + (u0 + 1) * delta - p
    if first_x >= lo_s or max(a0, t0 + (u0 + n - 1) * delta) + pc <= lo_s:
        acc += lo  # the member reaches its least cost beside every start of the centre
        return
    pm = np.empty(n)
    cur, x_prev = _prefix(first_x, r, p, q, cum, lam, t0, delta, inv, lo, lo_s, work)[0], first_x
    pm[0] = cur
    kb = n
    for k in range(1, n):
        x = x_prev + delta
        if x >= lo_s:
            kb = k
            break
        if x >= r:
            cur = _scan(max(x_prev, r), x, r, p, q, cum, lam, t0, delta, inv, cur, r, work)[0]
        pm[k] = cur
        x_prev = x
    acc[kb:] += lo
    y_last = max(a0, t0 + (u0 + kb - 1) * delta) + pc
    cur = _suffix(y_last, r, p, q, cum, lam, t0, delta, inv, lo, lo_s, work)[0]
    y_prev = max(y_last, r)
    for k in range(kb - 1, -1, -1):
        y = max(max(a0, t0 + (u0 + k) * delta) + pc, r)
        if y <= lo_s:
            cur = lo
        elif y < y_prev:
            cur = _scan(y, y_prev, r, p, q, cum, lam, t0, delta, inv, cur, y, work)[0]
        y_prev = y
        acc[k] += min(pm[k], cur)


@njit(cache=True)
def _group(c, members, release, width, dur, cum, lam, t0, delta, inv, lo, lo_s, usage, full, work):
    """Least priced cost of a group (centre ``c``, ``members``) on the relaxation of the module docstring; adds the
    usage of its minimising starts to ``usage``/``full``."""
    rc, pc, qc = release[c], dur[c], float(width[c])
    base = 0.0
    for i in members:
        base += lo[i]
    u0 = max(int(np.floor((rc - t0) * inv)), 0)
    ustar = max(int(np.floor((lo_s[c] - t0) * inv)), u0)
    best = _at_slot(ustar, c, members, release, width, dur, cum, lam, t0, delta, inv, lo, lo_s, work)[0]
    u1 = max(int(np.floor((best - base - pc + rc - t0) * inv)), ustar)
    centre = np.empty(u1 - u0 + 1)
    lo_k, hi_k = -1, -1
    for k in range(centre.size):  # the centre's least cost per slot; members only where it leaves room
        u = u0 + k
        a, b = max(rc, t0 + u * delta), t0 + (u + 1) * delta
        centre[k] = np.inf if a - rc + pc + base >= best else _scan(a, b, rc, pc, qc, cum, lam, t0, delta, inv,
                                                                     np.inf, a, work)[0]
        if centre[k] + base < best:
            hi_k = k
            if lo_k < 0:
                lo_k = k
    best_u = ustar
    if lo_k >= 0:
        acc = np.zeros(hi_k - lo_k + 1)
        a0 = max(rc, t0 + (u0 + lo_k) * delta)
        for i in members:
            _member_costs(acc, u0 + lo_k, a0, pc, rc, t0, delta, inv, release[i], dur[i], float(width[i]), cum,
                          lam, lo[i], lo_s[i], work)
        for k in range(acc.size):
            v = centre[lo_k + k] + acc[k]
            if v < best:
                best, best_u = v, u0 + lo_k + k
    value, s = _at_slot(best_u, c, members, release, width, dur, cum, lam, t0, delta, inv, lo, lo_s, work,
                        usage, full)
    return min(best, value)


@njit(cache=True)
def _at_slot(u, c, members, release, width, dur, cum, lam, t0, delta, inv, lo, lo_s, work, usage=None, full=None):
    """The group's bound with the centre started in slot ``u`` (each member's ``g_i(u)`` directly); with ``usage``,
    adds the minimising starts' usage. ``(value, centre's start)``."""
    rc, pc = release[c], dur[c]
    a, b = max(rc, t0 + u * delta), t0 + (u + 1) * delta
    value, s = _scan(a, b, rc, pc, float(width[c]), cum, lam, t0, delta, inv, np.inf, a, work)
    if usage is not None:
        _add_usage(usage, full, 0, s, pc, float(width[c]), t0, delta, inv)
    for i in members:
        r, p, q = release[i], dur[i], float(width[i])
        v1, s1 = _prefix(b - p, r, p, q, cum, lam, t0, delta, inv, lo[i], lo_s[i], work)
        v2, s2 = _suffix(a + pc, r, p, q, cum, lam, t0, delta, inv, lo[i], lo_s[i], work)
        if v2 < v1:
            v1, s1 = v2, s2
        value += v1
        if usage is not None:
            _add_usage(usage, full, 0, s1, p, q, t0, delta, inv)
    return value, s


@njit(cache=True)
def least_costs(release, width, dur, lam, t0, delta):
    """``(least priced cost, its start)`` of each job alone (one cluster)."""
    _cum, lo, lo_s = _alone(release, width, dur, lam, t0, delta, np.zeros(1, dtype=np.int64))
    return lo, lo_s


@njit(cache=True)
def _alone(release, width, dur, lam, t0, delta, work):
    """``(cumulated price, least priced cost of each job alone, its start)``; adds the costs evaluated to
    ``work[0]``."""
    n = release.size
    T = lam.size
    inv = 1.0 / delta
    cum = np.zeros(T + 1)
    for u in range(T):
        cum[u + 1] = cum[u] + lam[u] * delta
    lo = np.empty(n)
    lo_s = np.empty(n)
    for j in range(n):
        lo[j], lo_s[j] = _scan(release[j], np.inf, release[j], dur[j], float(width[j]), cum, lam, t0, delta, inv,
                               np.inf, release[j], work)
    return cum, lo, lo_s


@njit(cache=True)
def group_minima(release, width, dur, lam, t0, delta, centres, mptr, midx, usage, work):
    """``(sum over groups of their least priced cost, sum over the other jobs of theirs)``, one cluster; fills
    ``usage`` (shape ``(1, T)``: the minimising starts' area per slot) and adds the costs evaluated to ``work[0]``.
    Group ``g`` is centre ``centres[g]`` with members ``midx[mptr[g]:mptr[g + 1]]``; every job is in at most one
    group."""
    n = release.size
    T = lam.size
    inv = 1.0 / delta
    cum, lo, lo_s = _alone(release, width, dur, lam, t0, delta, work)
    grouped = np.zeros(n, dtype=np.bool_)
    full = np.zeros((1, T + 1))
    total_groups = 0.0
    for g in range(centres.size):
        members = midx[mptr[g]:mptr[g + 1]]
        grouped[centres[g]] = True
        for i in members:
            grouped[i] = True
        total_groups += _group(centres[g], members, release, width, dur, cum, lam, t0, delta, inv, lo, lo_s,
                               usage, full, work)
    others = 0.0
    for j in range(n):
        if not grouped[j]:
            others += lo[j]
            _add_usage(usage, full, 0, lo_s[j], dur[j], float(width[j]), t0, delta, inv)
    _add_full(usage, full)
    return total_groups, others
