"""Compiled per-job subproblems of the Lagrangian bound (:mod:`lowerbounds.batch.lagrangian`).

Time is cut into ``T`` slots of length ``delta`` from ``t0``; ``lam[k, u] >= 0`` prices one
processor-second of cluster ``k`` in slot ``u`` (zero beyond the last slot). For job ``j`` on
cluster ``k`` started at ``s`` its priced area is
``q_j (Lam_k(s + p_jk) - Lam_k(s))``, ``Lam_k(x) = int_t0^x lam_k``, and its cost is
``f_j(s, k) + q_j (Lam_k(s + p_jk) - Lam_k(s))`` with ``f`` the job's term of the metric
(``mode`` 0: response ``s + p - r``; 1: bounded slowdown ``max(1, (s + p - r) / max(p, tau))``),
nondecreasing in ``s``. The cost is piecewise linear in ``s`` with breakpoints where ``s`` or
``s + p`` crosses a slot boundary (and the slowdown's kink), so its minimum over ``s >= r`` is at
``r`` or at one of them; a scan stops once ``f`` alone reaches the best cost found (the price
term is ``>= 0``), and none runs when the start at ``r`` pays no price (``f`` is lowest at ``r``).
The scans take the starts on slot boundaries and the ends on slot boundaries apart, so that one of
the two integrals of each candidate is read from the cumulated prices (one lookup, not two), and
positions are turned into slots by multiplying with ``1 / delta``.
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit

__all__ = ["job_minima"]


@njit(cache=True)
def _big_lam(cum, lam, k, t0, delta, inv, x):
    """``Lam_k(x)`` (``inv = 1 / delta``): ``cum[k, u] = int_t0^{t0 + u delta} lam_k``."""
    T = lam.shape[1]
    y = (x - t0) * inv
    if y <= 0.0:
        return 0.0
    u = int(y)
    if u >= T:
        return cum[k, T]
    return cum[k, u] + lam[k, u] * (x - (t0 + u * delta))


@njit(cache=True)
def _term(mode, s, r, p, tau):
    flow = s + p - r
    if mode == 0:
        return flow
    return max(1.0, flow / max(p, tau))


@njit(cache=True)
def _cost(mode, s, r, p, q, tau, cum, lam, k, t0, delta, inv):
    return _term(mode, s, r, p, tau) + q * (_big_lam(cum, lam, k, t0, delta, inv, s + p)
                                            - _big_lam(cum, lam, k, t0, delta, inv, s))


@njit(cache=True)
def _scan(mode, r, p, q, tau, cum, lam, k, t0, delta, inv, best, best_s, ends):
    """Starts on slot boundaries (``ends`` False: ``s = t0 + u delta >= r``, where ``Lam_k(s) = cum[k, u]``) or
    ends on slot boundaries (``ends`` True: ``s = t0 + u delta - p >= r``, where ``Lam_k(s + p) = cum[k, u]``), by
    increasing ``u`` while ``f(s) < best``; the other end's integral is read from the prices:
    ``(best, its start, candidates priced)``."""
    T = lam.shape[1]
    shift = p if ends else 0.0
    u = max(int(np.ceil((r + shift - t0) * inv)), 0)
    priced = 0
    while u <= T:
        s = t0 + u * delta - shift
        if s >= r:
            f = _term(mode, s, r, p, tau)
            if f >= best:
                break
            if ends:
                c = f + q * (cum[k, u] - _big_lam(cum, lam, k, t0, delta, inv, s))
            else:
                c = f + q * (_big_lam(cum, lam, k, t0, delta, inv, s + p) - cum[k, u])
            priced += 1
            if c < best:
                best, best_s = c, s
        u += 1
    return best, best_s, priced


@njit(cache=True)
def _add_usage(usage, full, k, s, p, q, t0, delta, inv):
    """Adds ``q |[s, s + p) cap slot u|`` to ``usage[k, u]`` for each slot ``u``: the two partial slots at once, the
    whole slots between them as a difference (``full[k, a] += q delta``, ``full[k, b] -= q delta``, summed by
    :func:`_add_full`), so a long job costs two updates on a fine grid."""
    T = usage.shape[1]
    a = (s - t0) * inv
    b = (s + p - t0) * inv
    ua = max(int(np.floor(a)), 0)
    ub = int(np.floor(b))
    if ua >= T:
        return
    if ub <= ua:
        usage[k, ua] += q * (b - a) * delta
        return
    usage[k, ua] += q * (ua + 1 - a) * delta
    if ub < T:
        usage[k, ub] += q * (b - ub) * delta
    full[k, ua + 1] += q * delta
    full[k, min(ub, T)] -= q * delta


@njit(cache=True)
def _add_full(usage, full):
    """Adds the running sums of the differences ``full`` to ``usage``."""
    K, T = usage.shape
    for k in range(K):
        run = 0.0
        for u in range(T):
            run += full[k, u]
            usage[k, u] += run


@njit(cache=True)
def job_minima(mode, release, width, dur, lam, t0, delta, tau, usage, work):
    """Per job the minimum of its priced cost over clusters and starts; fills ``usage`` (the chosen
    starts' area per cluster and slot, the subgradient's first term) and adds to ``work[0]`` the
    candidate starts priced (a count of the work done, the same on every machine). Returns the
    per-job minima."""
    n = release.size
    K, T = lam.shape
    inv = 1.0 / delta
    cum = np.zeros((K, T + 1))
    for k in range(K):
        for u in range(T):
            cum[k, u + 1] = cum[k, u] + lam[k, u] * delta
    out = np.empty(n)
    full = np.zeros((K, T + 1))
    for j in range(n):
        r = release[j]
        q = float(width[j])
        best, best_s, best_k = np.inf, r, -1
        for k in range(K):
            p = dur[j, k]
            if not np.isfinite(p):
                continue
            c = _cost(mode, r, r, p, q, tau, cum, lam, k, t0, delta, inv)
            b, bs = c, r
            if c <= _term(mode, r, r, p, tau):  # no price over [r, r + p): no later start costs less
                work[0] += 1
                if b < best:
                    best, best_s, best_k = b, bs, k
                continue
            if mode == 1 and tau > p:
                kink = r + tau - p
                ck = _cost(mode, kink, r, p, q, tau, cum, lam, k, t0, delta, inv)
                if ck < b:
                    b, bs = ck, kink
            b, bs, c0 = _scan(mode, r, p, q, tau, cum, lam, k, t0, delta, inv, b, bs, False)
            b, bs, c1 = _scan(mode, r, p, q, tau, cum, lam, k, t0, delta, inv, b, bs, True)
            work[0] += 2 + c0 + c1
            if b < best:
                best, best_s, best_k = b, bs, k
        out[j] = best
        if best_k >= 0:
            _add_usage(usage, full, best_k, best_s, dur[j, best_k], q, t0, delta, inv)
    _add_full(usage, full)
    return out
