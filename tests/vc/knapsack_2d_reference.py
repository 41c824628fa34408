"""The 2-D knapsack branch and bound as it was before it became the d-dimensional one shared with
:mod:`lowerbounds.vector.knapsack` (:func:`lowerbounds.vc.knapsack.branch_and_bound`): the oracle of
``tests/vc/test_knapsack_shared.py``, which asserts the shared search returns the very same values,
counts, bounds, nodes and recorded configurations (so ``certify``'s results are unchanged). Plain Python: the oracle's
cases take a few hundred nodes each, far less than compiling it would cost."""

import numpy as np

PRUNE_TOL = 1e-12
_ROOM_TOL = 1e-9


def _dantzig(k, s, p, u, a1, a2, r1, r2, room):
    """Fractional bound of items ``k..`` (sorted by ``p / s``) with surrogate room ``room``,
    skipping those that do not fit the remaining capacities ``r1``, ``r2`` alone."""
    b = 0.0
    for i in range(k, p.size):
        if a1[i] > r1 + 1e-12 or a2[i] > r2 + 1e-12:
            continue
        if s[i] * u[i] <= room:
            room -= s[i] * u[i]
            b += p[i] * u[i]
        else:
            b += p[i] * room / s[i]
            break
    return b


def _fit_count(k, u, a1, a2, r1, r2):
    m = float(u[k])  # in floats (np.floor keeps them): a tiny size would overflow an integer
    if a1[k] > 0:
        m = min(m, np.floor((r1 + 1e-12) / a1[k]))
    if a2[k] > 0:
        m = min(m, np.floor((r2 + 1e-12) / a2[k]))
    return int(max(m, 0.0))


def _search(p, a1, a2, u, mu, node_limit, n_record):
    """Depth-first branch and bound over items in the given order (capacities 1 and 1).

    Returns (best value, best counts, nodes, exhausted, largest bound of an unexplored subtree,
    recorded improving solutions (rows), their values, how many were recorded)."""
    n = p.size
    s = mu * a1 + (1.0 - mu) * a2
    x = np.zeros(n, np.int64)
    best_x = np.zeros(n, np.int64)
    record = np.zeros((n_record, n), np.int64)
    record_val = np.zeros(n_record)
    n_found = 0
    best = 0.0
    nodes = 0
    exhausted = True
    open_bound = 0.0
    cnt = np.full(n + 1, -1, np.int64)  # copies of item k in the current branch (-1: level not entered)
    r1, r2, val = 1.0, 1.0, 0.0
    k = 0
    while k >= 0:
        if k == n:
            if val > best + PRUNE_TOL:
                best = val
                best_x[:] = x
                record[n_found % n_record, :] = x
                record_val[n_found % n_record] = val
                n_found += 1
            k -= 1
            continue
        if cnt[k] == -1:  # entering the subtree of level k
            nodes += 1
            bound = val + _dantzig(k, s, p, u, a1, a2, r1, r2, mu * r1 + (1.0 - mu) * r2 + _ROOM_TOL)
            if nodes > node_limit:  # out of nodes: bound the subtree at its root and leave it
                exhausted = False
                open_bound = max(open_bound, bound)
                k -= 1
                continue
            if bound <= best + PRUNE_TOL:
                k -= 1
                continue
            m = _fit_count(k, u, a1, a2, r1, r2)
            cnt[k] = m
            x[k] = m
            r1 -= m * a1[k]
            r2 -= m * a2[k]
            val += m * p[k]
            k += 1
            cnt[k] = -1
            continue
        if cnt[k] > 0:  # back at level k: one copy fewer, next subtree
            cnt[k] -= 1
            x[k] -= 1
            r1 += a1[k]
            r2 += a2[k]
            val -= p[k]
            k += 1
            cnt[k] = -1
            continue
        cnt[k] = -1
        k -= 1
    return best, best_x, nodes, exhausted, open_bound, record, record_val, n_found
