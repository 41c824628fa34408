"""The numpy form of the FCFS/EASY clusters' running profile (``QueuedCluster._running_profile``), the oracle of the
plain-Python one: sort the requested ends (a job past its end: now), sum the widths released at each."""

from __future__ import annotations

import numpy as np

from vcsched.sim.profile import Profile


def running_profile(procs: int, now: float, running: dict, widths) -> Profile:
    if not running:
        return Profile(procs, now)
    ends = np.maximum(np.fromiter(running.values(), dtype=np.float64, count=len(running)), now)
    used = np.fromiter((widths[j] for j in running), dtype=np.int64, count=len(running))
    order = np.argsort(ends, kind="stable")
    ends, used = ends[order], used[order]
    uniq, first = np.unique(ends, return_index=True)
    free = procs - int(used.sum()) + np.cumsum(np.add.reduceat(used, first))
    if uniq[0] > now:
        t, f = np.concatenate(([now], uniq)), np.concatenate(([procs - int(used.sum())], free))
    else:
        t, f = uniq.copy(), free
    t[0] = now
    return Profile.from_steps(procs, t, f)
