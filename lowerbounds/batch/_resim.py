"""Incremental re-simulation of the list construction (:func:`lowerbounds.batch._listsched.list_schedule`).

A local search on the keys of the list construction changes one job's key at a time. Rebuilding the
whole schedule for each move costs the whole trace; :func:`resimulate` rebuilds only the part that can
change, and gives the schedule the full construction would give (tested against it in
``tests/grid/test_batch_keysearch.py``):

* **Restart.** The jobs are in submission order; a job's key is read only once it is submitted. With new
  keys for jobs ``j >= i0`` (``i0`` the first job submitted at ``t0 = r_i0``) the construction takes the
  same decisions as before up to ``t0``. Just before ``t0`` its state is read off the current schedule:
  the jobs running (submitted before ``t0``, started before it, ending after it) and the queue (submitted
  before ``t0``, started at or after it). Both were submitted after ``t0 - reach``, ``reach`` being the
  longest duration plus the longest wait. The event loop restarts at ``t0`` from that state.
* **Stop.** After the pass at an event time ``t``, once the job whose key changed has started: if every job
  started since the restart either has its old cluster and start or ends by ``t`` in both
  schedules, and every job still queued starts after ``t`` in the current schedule, then the running jobs
  (with their clusters and finishes) and the queue (with its keys) are those of the current schedule at ``t``: the
  construction continues as it did, and every later decision is the old one. The first condition is
  kept incremental by the largest finish (old or new) over the jobs placed differently, ``horizon``: the
  test runs when ``horizon <= t``.

The returned differences of the summed response time and bounded slowdown are over the jobs placed anew:
those submitted in ``[i0, stop)`` and those queued at the restart.
"""

from __future__ import annotations

import numpy as np

from lowerbounds.batch._kernels import _push
from lowerbounds.batch._listsched import _pass, _queue_insert, cluster_state, complete_first, shadow_cache
from lowerbounds.batch.instance import BSLD_TAU
from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["resimulate", "restart_point"]


@njit(cache=True)
def restart_point(release, j):
    """The first job submitted at ``r_j`` (the restart of a change to ``j``'s key)."""
    i = j
    while i > 0 and release[i - 1] == release[j]:
        i -= 1
    return i


@njit(cache=True)
def _restart_state(release, width, duration, old_cluster, old_start, key, i0, reach, free, run_fin, run_wid,
                   run_job, run_cnt, slot, hkey, hjob, qkey, qjob, pre, work):
    """The state just before ``t0 = r_i0`` (module docstring): running jobs into the heap and run arrays, queued
    ones into the queue and ``pre``. Returns ``(heap size, queue length)``."""
    t0 = release[i0]
    hsize, qlen = 0, 0
    i = i0 - 1
    while i >= 0 and release[i] >= t0 - reach:
        work[0] += 1
        k = old_cluster[i]
        p = duration[i, k]
        f = old_start[i] + p
        if old_start[i] >= t0:
            pre[qlen] = i
            qlen = _queue_insert(qkey, qjob, qlen, key[i], i, work)
        elif p > 0.0 and f > t0:
            free[k] -= width[i]
            c = run_cnt[k]
            run_fin[k, c], run_wid[k, c], run_job[k, c] = f, width[i], i
            slot[i] = c
            run_cnt[k] = c + 1
            hsize = _push(hkey, hjob, hsize, f, i)
        i -= 1
    return hsize, qlen


@njit(cache=True)
def resimulate(release, width, duration, procs, key, old_cluster, old_start, i0, jmax, reach, cluster, start, work):
    """Re-run the list construction with ``key`` from the restart ``i0`` until it rejoins the schedule
    ``(old_cluster, old_start)`` (module docstring); ``jmax``: the one job whose key changed; ``reach``: at
    least the longest duration plus the longest wait of the old schedule. ``cluster``, ``start`` must equal the
    old schedule on entry; the jobs placed anew are overwritten. Returns ``(stop, d_response, d_bsld)``: the
    first job not placed anew, and the sums' differences, new minus old."""
    n, K = duration.shape
    free, run_fin, run_wid, run_job, run_cnt, slot = cluster_state(procs, n)
    sh_job, sh_time, sh_extra = shadow_cache(K)
    hkey, hjob = np.empty(n), np.empty(n, dtype=np.int64)
    qkey, qjob = np.empty(n), np.empty(n, dtype=np.int64)
    pre, before = np.empty(n, dtype=np.int64), np.empty(K, dtype=np.int64)
    hsize, npre = _restart_state(release, width, duration, old_cluster, old_start, key, i0, reach, free, run_fin,
                                 run_wid, run_job, run_cnt, slot, hkey, hjob, qkey, qjob, pre, work)
    qlen = npre
    nxt = i0
    horizon = -np.inf
    while True:
        work[0] += 1
        t = release[nxt] if nxt < n else np.inf
        if hsize > 0 and hkey[0] < t:
            t = hkey[0]
        if t == np.inf:
            break
        while hsize > 0 and hkey[0] <= t:
            hsize = complete_first(hkey, hjob, hsize, cluster, width, free, run_fin, run_wid, run_job, run_cnt, slot)
        while nxt < n and release[nxt] <= t:
            j = nxt
            nxt += 1
            k0 = np.argmin(duration[j])
            if duration[j, k0] == 0.0:
                cluster[j], start[j] = k0, t
            else:
                qlen = _queue_insert(qkey, qjob, qlen, key[j], j, work)
        before[:] = run_cnt
        qlen, hsize = _pass(t, width, duration, free, run_fin, run_wid, run_job, run_cnt, slot, cluster, start,
                            qkey, qjob, qlen, hkey, hjob, hsize, sh_job, sh_time, sh_extra, work)
        horizon = _started_horizon(duration, old_cluster, old_start, cluster, start, before, run_job, run_cnt,
                                   horizon, work)
        if nxt > jmax and horizon <= t and _queue_unstarted(old_start, qjob, qlen, t, jmax, work):
            break
    return _differences(release, duration, old_cluster, old_start, cluster, start, i0, nxt, pre, npre)


@njit(cache=True)
def _started_horizon(duration, old_cluster, old_start, cluster, start, before, run_job, run_cnt, horizon, work):
    """A pass appends the jobs it starts to the run lists (``before``: their lengths before it; no job completes
    during a pass): raise ``horizon`` to the finishes (old and new) of those placed differently."""
    for k in range(run_cnt.size):
        for c in range(before[k], run_cnt[k]):
            i = run_job[k, c]
            work[0] += 1
            if cluster[i] != old_cluster[i] or start[i] != old_start[i]:
                horizon = max(horizon, start[i] + duration[i, cluster[i]], old_start[i] + duration[i, old_cluster[i]])
    return horizon


@njit(cache=True)
def _queue_unstarted(old_start, qjob, qlen, t, changed, work):
    """True when every queued job starts after ``t`` in the old schedule (it is queued there too) and the job whose
    key changed is not queued (the queue's order is then the old one)."""
    work[0] += qlen
    for a in range(qlen):
        if old_start[qjob[a]] <= t or qjob[a] == changed:
            return False
    return True


@njit(cache=True)
def _differences(release, duration, old_cluster, old_start, cluster, start, i0, stop, pre, npre):
    d_resp, d_bsld = 0.0, 0.0
    for a in range(npre + stop - i0):
        i = pre[a] if a < npre else i0 + a - npre
        pn, po = duration[i, cluster[i]], duration[i, old_cluster[i]]
        rn, ro = start[i] + pn - release[i], old_start[i] + po - release[i]
        d_resp += rn - ro
        d_bsld += max(1.0, rn / max(pn, BSLD_TAU)) - max(1.0, ro / max(po, BSLD_TAU))
    return stop, d_resp, d_bsld
