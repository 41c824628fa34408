"""The plain NumPy version of the sumflow pair bound's dynamic programme, the reference the compiled one
(:func:`lowerbounds.timeshare.pairs.sumflow_pair_bound`) is tested against."""

from __future__ import annotations

import numpy as np

from lowerbounds.timeshare.pairs import default_window, pair_slowdowns
from vcsched.sim.processor_sharing import ps_advance


def plain_pair_bound(arrival: np.ndarray, inp: np.ndarray, p: np.ndarray, out: np.ndarray, *,
                       window: int | None = None, shared: bool = True) -> float:
    """``min over mappings of Σ_i d_{i,s(i)} + 2 Σ u_ij`` over pairs at most ``window`` apart in arrival order.

    Parameters
    ----------
    arrival : ndarray (n,)
        Arrival dates of independent tasks.
    inp, p, out : ndarray (n, S)
        Input, computation and output times per task and server.
    window : int, optional
        ``K``; default :func:`window_for`, made smaller with ``shared`` until ``n S 2^K <= SHARED_RUNS``.
    shared : bool
        Take the earlier task's work left when the later one joins from processor sharing among the
        tasks of the window on that server (known in the state), not from the earlier task alone:
        more tasks only leave it more work (:func:`_window_slowdowns`), so the bound stays valid and
        grows. False: the plain ``u`` of :func:`pair_slowdowns`.
    """
    n, S = p.shape
    if n == 0:
        return 0.0
    order = np.argsort(arrival, kind="stable")
    join = (arrival[:, None] + inp)[order]
    p = p[order]
    dur = (inp + out)[order] + p
    if window is None:
        K = default_window(S, n, shared)
    else:
        K = max(1, min(int(window), n - 1 if n > 1 else 1))
    digits = np.array(np.unravel_index(np.arange(S ** K), (S,) * K)).T  # (states, K): slot 0 the oldest
    value = np.zeros(S ** K)
    for t in range(n):
        slots = np.arange(t - K, t)  # the task in each slot (negative: none yet)
        cost = np.broadcast_to(dur[t], (S ** K, S)).copy()
        live = slots >= 0
        if live.any():
            u = _window_slowdowns(join, p, slots, t, shared)  # (S, 2^K, K)
            on = (digits[:, :, None] == np.arange(S)[None, None, :]) & live[None, :, None]  # (states, K, S)
            masks = (on * (1 << np.arange(K))[None, :, None]).sum(axis=1)  # (states, S)
            picked = u[np.arange(S)[None, :, None], masks[:, :, None], np.arange(K)[None, None, :]]
            cost += 2.0 * (picked * on.transpose(0, 2, 1)).sum(axis=2)
        value = (value[:, None] + cost).reshape(S, S ** (K - 1), S).min(axis=0).ravel()
    return float(value.min())


def _window_slowdowns(join: np.ndarray, p: np.ndarray, slots: np.ndarray, t: int, shared: bool) -> np.ndarray:
    """``u[s, mask, k]``: slow-down shared by task ``t`` and the task of slot ``k`` when the tasks of ``mask``
    (a set of slots) are the window's tasks on server ``s``.

    ``u = min(R, p_second)`` with ``R`` the earlier task's work left when the second joins. With
    ``shared``, ``R`` of a slot task joining before ``t`` comes from processor sharing among the tasks
    of ``mask`` from their joins (:func:`vcsched.sim.processor_sharing.ps_advance`, the simulator's
    rule); the real server holds at least these tasks, so the earlier task has at least that much
    left (processor sharing gives each task less service when tasks are added). Otherwise, and for a
    slot task joining after ``t``, the alone value of :func:`pair_slowdowns`.
    """
    S = p.shape[1]
    K = slots.size
    live = np.flatnonzero(slots >= 0)
    alone = np.zeros((K, S))
    alone[live] = pair_slowdowns(join, p, slots[live], t)
    out = np.repeat(alone.T[:, None, :], 1 << K, axis=1)  # (S, 2^K, K)
    if not shared:
        return out
    for s in range(S):
        for mask in range(1, 1 << K):
            members = [k for k in live.tolist() if mask >> k & 1]
            if len(members) < 2:
                continue
            left = _work_left(join[slots[members], s], p[slots[members], s], join[t, s])
            for k, rest in zip(members, left):
                if join[slots[k], s] <= join[t, s]:
                    out[s, mask, k] = max(out[s, mask, k], min(rest, p[t, s]))
    return out


def _work_left(start: np.ndarray, work: np.ndarray, until: float) -> list[float]:
    """Work left at ``until`` of tasks sharing one server from ``start`` (processor sharing, no other task)."""
    order = np.argsort(start, kind="stable")
    joins = [(float(start[i]), float(work[i]), int(i)) for i in order if start[i] <= until]
    left = [0.0] * len(start)
    for i in range(len(start)):
        if start[i] > until:
            left[i] = float(work[i])
    if not joins:
        return left
    _, v, tags, ids, _, _, _ = ps_advance(joins[0][0], 0.0, np.empty(0), np.empty(0, dtype=np.int64), joins,
                                          until=until)
    for tag, i in zip(tags.tolist(), ids.tolist()):
        left[i] = tag - v
    return left
