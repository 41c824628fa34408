"""Plain Python versions of the compiled packings of :mod:`heuristics.vc_hetero.kernels` (the oracles)."""

import numpy as np


def _fits(size, room, cap):
    return all(size[q] <= room[q] + cap[q] * 1e-12 for q in range(len(size)))


def plain_mcb_fill(sizes, orders, bounds, host_type, caps):
    """Fill the hosts in order; each pick: the first unplaced item that fits from the list of the freest
    relative dimension, then the next freest (a full rescan every time: no skipping)."""
    n, D = sizes.shape
    where = [-1] * n
    for h, k in enumerate(host_type.tolist()):
        room = caps[k].astype(float).copy()
        lists = [orders[k][bounds[k][q]:bounds[k][q + 1]].tolist() for q in range(D)]
        while True:
            rel = [room[q] / caps[k][q] if caps[k][q] > 0 else 0.0 for q in range(D)]
            dims = sorted(range(D), key=lambda q: -rel[q])
            chosen = next((i for q in dims for i in lists[q] if where[i] < 0 and _fits(sizes[i], room, caps[k])), -1)
            if chosen < 0:
                break
            where[chosen] = h
            room = room - sizes[chosen]
    return np.array(where), all(w >= 0 for w in where)


def plain_greedy(sizes, order, host_cpu, host_cap):
    """GR/SG: each item to the fitting host of least CPU load over CPU (lowest index on ties)."""
    H = len(host_cpu)
    load, rigid = np.zeros(H), np.zeros((H, sizes.shape[1] - 1))
    where = np.full(sizes.shape[0], -1)
    for i in order:
        ok = [h for h in range(H) if np.all(rigid[h] + sizes[i, 1:] <= host_cap[h] * (1 + 1e-12) + 1e-15)]
        if not ok:
            return where, False
        h = min(ok, key=lambda h: (load[h] / host_cpu[h], h))
        where[i] = h
        load[h] += sizes[i, 0]
        rigid[h] += sizes[i, 1:]
    return where, True
