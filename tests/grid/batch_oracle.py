"""Brute-force oracle of the batch relaxation (tests only): every list and cluster assignment, serial generation.

The serial schedule generation scheme (each job of a list, on its cluster, at the earliest
start where the cluster has room during its whole run, given the jobs placed before it)
generates every active schedule when run over all lists and cluster assignments, and an
optimal schedule of any regular objective is active (Kolisch 1996). Integer or real times.
"""

from __future__ import annotations

import itertools

import numpy as np

from lowerbounds.batch.instance import BatchInstance, schedule_metrics


def _earliest(placed, width, cap, release, p):
    """Earliest start >= release where ``width`` more processors fit during ``[S, S + p)``.

    A job of zero duration occupies no interval: it starts at its release (as in the relaxation).
    """
    if p == 0:
        return release
    candidates = sorted({release} | {f for (s, f, q) in placed if f > release})
    for t in candidates:
        end = t + p
        points = [t] + [s for (s, f, q) in placed if t < s < end]
        ok = True
        for x in points:
            used = sum(q for (s, f, q) in placed if s <= x < f)
            if used + width > cap:
                ok = False
                break
        if ok:
            return t
    raise AssertionError("unreachable: the last finish always leaves room")


def brute_force(inst: BatchInstance) -> dict:
    """Best value of each metric over all active schedules (each metric minimised on its own)."""
    n, K = len(inst), inst.clusters
    best = {}
    choices = [[k for k in range(K) if np.isfinite(inst.duration[j, k])] for j in range(n)]
    for perm in itertools.permutations(range(n)):
        for assign in itertools.product(*[choices[j] for j in perm]):
            placed = [[] for _ in range(K)]
            start = np.zeros(n)
            clus = np.zeros(n, dtype=np.int64)
            for j, k in zip(perm, assign):
                p = float(inst.duration[j, k])
                s = _earliest(placed[k], int(inst.width[j]), int(inst.procs[k]), float(inst.release[j]), p)
                placed[k].append((s, s + p, int(inst.width[j])))
                start[j], clus[j] = s, k
            for name, v in schedule_metrics(inst, clus, start).items():
                if v is not None and (name not in best or v < best[name]):
                    best[name] = v
    return best


def tiny_stretch_instance(seed: int, n: int, integer: bool, load: float) -> BatchInstance:
    """``n`` random jobs on one cluster of 2-6 processors (integer or real times, releases compressed by
    ``load``): the instances the max-stretch bounds are checked on against :func:`brute_force`."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 7))
    q = rng.integers(1, m + 1, n)
    p = rng.integers(1, 7, n).astype(float) if integer else rng.uniform(0.2, 6, n)
    r = (rng.integers(0, 6, n).astype(float) if integer else rng.uniform(0, 6, n)) / load
    return BatchInstance.from_arrays(r, q, p[:, None], [m])


def plain_check(inst: BatchInstance, cluster, start, *, tol: float = 1e-7) -> None:
    """The plain quadratic validity check that :func:`lowerbounds.batch.instance.check_batch_schedule` speeds up."""
    cluster = np.asarray(cluster, dtype=np.int64)
    start = np.asarray(start, dtype=float)
    rows = np.arange(len(inst))
    assert np.isfinite(start).all(), "a job has no start"
    assert (start >= inst.release - tol).all(), "a job starts before its submission"
    p = inst.duration[rows, cluster]
    assert np.isfinite(p).all(), "a job runs on a cluster where it does not fit"
    finish = start + p
    for k in range(inst.clusters):
        on = rows[cluster == k]
        for j in on:
            t = start[j]
            running = on[(start[on] <= t + tol) & (finish[on] > t + tol)]
            assert inst.width[running].sum() <= inst.procs[k], f"cluster {k} over capacity at {t}"


def _plain_shadow(t, need, free_k, running_k):
    """Earliest time ``need`` processors are free on a cluster (``running_k``: (finish, width) of its running jobs),
    and the processors left over then."""
    if free_k >= need:
        return t, free_k - need
    avail = free_k
    for f in sorted({f for f, _ in running_k}):
        avail += sum(w for g, w in running_k if g == f)
        if avail >= need:
            return f, avail - need
    return np.inf, 0


def plain_list_schedule(release, width, duration, procs, key):
    """List scheduling with EASY backfilling and exact durations, written plainly (the shadow time recomputed at
    every pass, the queue re-sorted at every event): the oracle of the compiled
    :func:`lowerbounds.batch._listsched.list_schedule` (same rules, same ties)."""
    n, K = duration.shape
    cluster, start = np.full(n, -1, dtype=np.int64), np.full(n, np.nan)
    free = [int(m) for m in procs]
    running = []  # (finish, job, cluster)
    queue: list = []
    nxt = 0
    while nxt < n or running or queue:
        t = min([release[nxt] if nxt < n else np.inf] + [f for f, _, _ in running])
        for f, j, k in [x for x in running if x[0] <= t]:
            free[k] += int(width[j])
            running.remove((f, j, k))
        while nxt < n and release[nxt] <= t:
            k0 = int(np.argmin(duration[nxt]))
            if duration[nxt, k0] == 0.0:
                cluster[nxt], start[nxt] = k0, t
            else:
                queue.append(nxt)
            nxt += 1
        queue.sort(key=lambda j: (key[j], j))
        _plain_pass(t, width, duration, free, running, queue, cluster, start)
    return cluster, start


def _plain_pass(t, width, duration, free, running, queue, cluster, start):
    res_k, shadow, extra = -1, np.inf, 0
    while queue:
        j = queue[0]
        best = (np.inf, np.inf, -1, 0)  # (completion, start, cluster, leftover)
        for k in range(len(free)):
            if np.isfinite(duration[j, k]):
                s, x = _plain_shadow(t, int(width[j]), free[k], [(f, int(width[i])) for f, i, c in running if c == k])
                if (s + duration[j, k], s) < best[:2]:
                    best = (s + duration[j, k], s, k, x)
        if best[1] > t:
            res_k, shadow, extra = best[2], best[1], best[3]
            break
        _plain_start(t, j, best[2], width, duration, free, running, cluster, start)
        queue.pop(0)
    i = 1
    while i < len(queue) and max(free) > 0:
        j = queue[i]
        ok = [k for k in range(len(free)) if np.isfinite(duration[j, k]) and free[k] >= width[j]
              and not (k == res_k and t + duration[j, k] > shadow and width[j] > extra)]
        if not ok:
            i += 1
            continue
        k = min(ok, key=lambda k: (duration[j, k], k))
        if k == res_k and t + duration[j, k] > shadow:
            extra -= int(width[j])
        _plain_start(t, j, k, width, duration, free, running, cluster, start)
        queue.pop(i)


def _plain_start(t, j, k, width, duration, free, running, cluster, start):
    cluster[j], start[j] = k, t
    free[k] -= int(width[j])
    running.append((t + duration[j, k], j, k))
