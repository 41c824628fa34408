"""Max-min yield on typed hosts: the checker, cheap upper bounds, greedy placements and the compact MILP.

Model (seed 001 §2.2 with host types and ``d`` rigid resources): job ``j``
has a fluid CPU need ``cpu_j`` and rigid needs ``m_j`` (``d`` values); a
host of type ``k`` has CPU ``C_k``, rigid capacities ``M_k`` and there are
``N_k`` of them. At yield ``Y`` job ``j`` uses ``Y cpu_j`` CPU (``c_j <= cpu_j``,
``Y = c_j / cpu_j``) and ``m_j``. A placement's yield is
``min(1, min_h C_h / load_h)`` (``load_h``: the CPU needs on host ``h``); the
optimum is the largest over the placements whose rigid needs fit.

Upper bounds on the optimum (each proven by a relaxation):

* ``1`` (the CPU allocated is capped at the need);
* per job: ``max_{k: m_j <= M_k} C_k / cpu_j`` (it sits on some host it fits);
* fluid LP (:func:`fluid_bound`): jobs split over host *types*, the rigid
  needs and the CPU needs at yield ``Y`` summed per type within ``N_k``
  times the type's capacity (volume with each type's capacities);
  ``min L`` s.t. ``sum_k z_jk = 1``, ``sum_j z_jk m_jr <= N_k M_kr``,
  ``sum_j z_jk cpu_j <= L N_k C_k``, ``z_jk = 0`` where ``j`` fits no host
  of type ``k``; the bound is ``1 / L*``. Infeasible: no yield at all (the
  rigid needs do not fit even fractionally).
"""

from __future__ import annotations

import numpy as np

from vcsched.jit import njit  # numba.njit; a cache that cannot be written never stops a run

__all__ = ["expand_hosts", "placement_yield", "job_fits", "per_job_bound", "fluid_bound", "greedy_placement",
           "first_fit_at", "compact_milp", "improve_placement"]

_FIT = 1e-12


def expand_hosts(host_cpu: np.ndarray, host_cap: np.ndarray, host_count: np.ndarray):
    """Per host: (type, index within its type, CPU, rigid capacities)."""
    kind = np.repeat(np.arange(host_count.size), host_count)
    first = np.concatenate(([0], np.cumsum(host_count)[:-1]))
    return kind, np.arange(kind.size) - first[kind], host_cpu[kind], host_cap[kind]


def job_fits(job_rigid: np.ndarray, host_cap: np.ndarray) -> np.ndarray:
    """(n, K): job ``j`` fits alone on a host of type ``k`` (rigid needs within the checker's tolerance)."""
    return np.all(job_rigid[:, None, :] <= host_cap[None, :, :] * (1 + _FIT), axis=2)


def placement_yield(job_cpu, job_rigid, host_cpu, host_cap, host_count, placement) -> float | None:
    """The yield of ``placement`` (n x 2: host type, index within the type), None when it is not a
    placement: a type or index out of range, or a host's rigid needs over its capacity (relative
    ``1e-12``)."""
    placement = np.asarray(placement, dtype=np.int64).reshape(-1, 2)
    k, i = placement[:, 0], placement[:, 1]
    if np.any(k < 0) or np.any(k >= host_count.size) or np.any(i < 0) or np.any(i >= host_count[k]):
        return None
    first = np.concatenate(([0], np.cumsum(host_count)[:-1]))
    h = first[k] + i
    H = int(host_count.sum())
    kind = np.repeat(np.arange(host_count.size), host_count)
    rigid = np.zeros((H, job_rigid.shape[1]))
    np.add.at(rigid, h, job_rigid)
    if np.any(rigid > host_cap[kind] * (1 + _FIT)):
        return None
    load = np.bincount(h, weights=job_cpu, minlength=H)
    used = load > 0
    if not used.any():
        return 1.0
    cpu = host_cpu[kind][used]
    if np.any(cpu <= 0):
        return 0.0
    return float(min(1.0, np.min(cpu / load[used])))


def per_job_bound(job_cpu, fits, host_cpu) -> float:
    """``min_j max_{k fits} C_k / cpu_j`` (module docstring); ``inf`` for no job with a CPU need."""
    best = np.where(fits, host_cpu[None, :], -np.inf).max(axis=1)
    need = job_cpu > 0
    return float(np.min(best[need] / job_cpu[need])) if need.any() else np.inf


def fluid_bound(job_cpu, job_rigid, fits, host_cpu, host_cap, host_count) -> float | None:
    """``1 / L*`` of the fluid LP (module docstring), ``inf`` when no job needs CPU, None when the LP
    is infeasible (a proof that nothing fits). Solved by HiGHS."""
    from vcsched.formulations.solve import new_highs

    n, K = fits.shape
    d = job_rigid.shape[1]
    jj, kk = np.nonzero(fits & (host_count[None, :] > 0))
    m = jj.size
    highspy, h = new_highs()
    h.setOptionValue("threads", 1)
    inf = highspy.kHighsInf
    e = np.array([], dtype=np.int32)
    h.addRows(n, np.ones(n), np.ones(n), 0, e, e, np.array([]))
    h.addRows(K * d, np.full(K * d, -inf), (host_count[:, None] * host_cap).ravel(), 0, e, e, np.array([]))
    h.addRows(K, np.full(K, -inf), np.zeros(K), 0, e, e, np.array([]))
    # column z_(j,k): 1 in row j, m_jr in rows n + k d + r, cpu_j in row n + K d + k
    rows = np.concatenate([jj[:, None], n + kk[:, None] * d + np.arange(d)[None, :], (n + K * d + kk)[:, None]],
                          axis=1).astype(np.int32)
    vals = np.concatenate([np.ones((m, 1)), job_rigid[jj], job_cpu[jj][:, None]], axis=1)
    keep = (vals != 0)
    counts = keep.sum(axis=1)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int32)
    h.addCols(m, np.zeros(m), np.zeros(m), np.ones(m), int(counts.sum()), starts, rows[keep], vals[keep])
    # column L: -N_k C_k in the CPU rows, cost 1, L >= 0
    cpu_rows = (n + K * d + np.arange(K)).astype(np.int32)
    h.addCol(1.0, 0.0, inf, K, cpu_rows, -(host_count * host_cpu).astype(float))
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return None
    if status != highspy.HighsModelStatus.kOptimal:
        return np.inf  # no proof either way: the bound is left to the others
    L = float(h.getInfo().objective_function_value)
    return np.inf if L <= 1e-12 else 1.0 / (L * (1 + 1e-7))


@njit(cache=True)
def _fits(used, need, cap, h):
    """Whether ``need`` fits on host ``h`` beside ``used[h]`` in every rigid dimension (capacity ``cap[h]``,
    relative tolerance 1e-12)."""
    for r in range(cap.shape[1]):
        if used[h, r] + need[r] > cap[h, r] * (1 + 1e-12):
            return False
    return True


@njit(cache=True)
def _greedy(order, job_cpu, job_rigid, cpu, cap):
    H = cpu.size
    load = np.zeros(H)
    rigid = np.zeros(cap.shape)
    where = np.full(job_cpu.size, -1, np.int64)
    for j in order:
        best, best_h = np.inf, -1
        for h in range(H):
            if not _fits(rigid, job_rigid[j], cap, h):
                continue
            ratio = (load[h] + job_cpu[j]) / cpu[h] if cpu[h] > 0 else (np.inf if job_cpu[j] > 0 else 0.0)
            if ratio < best:
                best, best_h = ratio, h
        if best_h < 0:
            return where, False
        where[j] = best_h
        load[best_h] += job_cpu[j]
        rigid[best_h] += job_rigid[j]
    return where, True


@njit(cache=True)
def _first_fit(order, sizes, caps):
    H = caps.shape[0]
    used = np.zeros(caps.shape)
    where = np.full(sizes.shape[0], -1, np.int64)
    for j in order:
        for h in range(H):
            if _fits(used, sizes[j], caps, h):
                where[j] = h
                used[h] += sizes[j]
                break
        if where[j] < 0:
            return where, False
    return where, True


def _as_pairs(where: np.ndarray, host_count: np.ndarray) -> np.ndarray:
    kind = np.repeat(np.arange(host_count.size), host_count)
    first = np.concatenate(([0], np.cumsum(host_count)[:-1]))
    return np.stack((kind[where], where - first[kind[where]]), axis=1)


def greedy_placement(job_cpu, job_rigid, host_cpu, host_cap, host_count) -> np.ndarray | None:
    """Jobs by decreasing largest need (CPU over the largest host CPU, rigid over the largest
    capacity), each on the host it fits of least CPU load ratio after it (the max-min yield greedy);
    None when some job fits nowhere. ``O(n H d)``."""
    _, _, cpu, cap = expand_hosts(host_cpu, host_cap, host_count)
    key = np.column_stack([job_cpu / max(host_cpu.max(), 1e-300), job_rigid / np.maximum(host_cap.max(axis=0), 1e-300)])
    order = np.argsort(-key.max(axis=1), kind="stable")
    where, ok = _greedy(order, job_cpu.astype(float), np.ascontiguousarray(job_rigid, dtype=float),
                        cpu.astype(float), np.ascontiguousarray(cap, dtype=float))
    return _as_pairs(where, host_count) if ok else None


def first_fit_at(y: float, job_cpu, job_rigid, host_cpu, host_cap, host_count) -> np.ndarray | None:
    """First-fit decreasing (by the sum of the normalised needs) of the jobs at yield ``y`` into the
    hosts, largest hosts (by normalised capacity sum) first; None when some job fits nowhere."""
    _, _, cpu, cap = expand_hosts(host_cpu, host_cap, host_count)
    caps = np.column_stack([cpu, cap]).astype(float)
    sizes = np.column_stack([y * job_cpu, job_rigid]).astype(float)
    scale = np.maximum(caps.max(axis=0), 1e-300)
    host_order = np.argsort(-(caps / scale).sum(axis=1), kind="stable")
    order = np.argsort(-(sizes / scale).sum(axis=1), kind="stable")
    where, ok = _first_fit(order, sizes, np.ascontiguousarray(caps[host_order]))
    return _as_pairs(host_order[where], host_count) if ok else None


def compact_milp(job_cpu, job_rigid, host_cpu, host_cap, host_count, *, time_limit: float):
    """The assignment MILP ``min L`` s.t. every job on one host it fits, rigid sums within the
    capacities, ``sum_j cpu_j x_jh <= L C_h``, ``L >= 1`` (yield capped at 1); solved by HiGHS.
    Returns (placement or None, proven upper bound on the yield ``1 / L_bound`` or None)."""
    from vcsched.formulations.solve import new_highs, run_interruptibly

    kind, _, cpu, cap = expand_hosts(host_cpu, host_cap, host_count)
    fits = job_fits(job_rigid, host_cap)[:, kind]
    jj, hh = np.nonzero(fits)
    n, H, d, m = job_cpu.size, cpu.size, job_rigid.shape[1], jj.size
    highspy, h = new_highs()
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", max(time_limit, 0.01))
    h.setOptionValue("mip_rel_gap", 1e-7)
    inf = highspy.kHighsInf
    e = np.array([], dtype=np.int32)
    h.addRows(n, np.ones(n), np.ones(n), 0, e, e, np.array([]))
    h.addRows(H * d, np.full(H * d, -inf), cap.ravel().astype(float), 0, e, e, np.array([]))
    h.addRows(H, np.full(H, -inf), np.zeros(H), 0, e, e, np.array([]))
    rows = np.concatenate([jj[:, None], n + hh[:, None] * d + np.arange(d)[None, :], (n + H * d + hh)[:, None]],
                          axis=1).astype(np.int32)
    vals = np.concatenate([np.ones((m, 1)), job_rigid[jj], job_cpu[jj][:, None]], axis=1)
    keep = vals != 0
    cnt = keep.sum(axis=1)
    starts = np.concatenate(([0], np.cumsum(cnt)[:-1])).astype(np.int32)
    h.addCols(m, np.zeros(m), np.zeros(m), np.ones(m), int(cnt.sum()), starts, rows[keep], vals[keep])
    h.changeColsIntegrality(m, np.arange(m, dtype=np.int32), np.full(m, highspy.HighsVarType.kInteger))
    h.addCol(1.0, 1.0, inf, H, (n + H * d + np.arange(H)).astype(np.int32), -cpu.astype(float))
    run_interruptibly(h)
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return None, 0.0
    bound = float(h.getInfo().mip_dual_bound)
    upper = 1.0 / max(bound * (1 - 1e-7), 1.0) if np.isfinite(bound) and bound > 0 else None
    if not h.getSolution().value_valid:
        return None, upper
    x = np.asarray(h.getSolution().col_value)[:m] > 0.5
    where = np.full(n, -1, dtype=np.int64)
    where[jj[x]] = hh[x]
    return (_as_pairs(where, host_count) if np.all(where >= 0) else None), upper


@njit(cache=True)
def _fits_with(rigid, cap, h, add, remove):
    for r in range(cap.shape[1]):
        if rigid[h, r] + add[r] - remove[r] > cap[h, r] * (1 + 1e-12):
            return False
    return True


@njit(cache=True)
def _move_or_swap(where, job_cpu, job_rigid, cpu, load, rigid, cap, members, h):
    """One move or swap that takes host ``h`` below its ratio ``load_h / cpu_h`` without raising any
    other host to it; True when one was made."""
    top = load[h] / cpu[h]
    zero = np.zeros(cap.shape[1])
    for j in members:
        for g in range(cpu.size):
            if g == h or cpu[g] <= 0:
                continue
            if (load[g] + job_cpu[j]) / cpu[g] < top * (1 - 1e-12) and _fits_with(rigid, cap, g, job_rigid[j], zero):
                where[j] = g
                load[h] -= job_cpu[j]
                load[g] += job_cpu[j]
                rigid[h] -= job_rigid[j]
                rigid[g] += job_rigid[j]
                return True
    for j in members:
        for i in range(where.size):
            g = where[i]
            if g == h or job_cpu[i] >= job_cpu[j]:
                continue
            delta = job_cpu[j] - job_cpu[i]
            if (load[g] + delta) / cpu[g] < top * (1 - 1e-12) and \
                    _fits_with(rigid, cap, g, job_rigid[j], job_rigid[i]) and \
                    _fits_with(rigid, cap, h, job_rigid[i], job_rigid[j]):
                where[j], where[i] = g, h
                load[h] -= delta
                load[g] += delta
                rigid[h] += job_rigid[i] - job_rigid[j]
                rigid[g] += job_rigid[j] - job_rigid[i]
                return True
    return False


@njit(cache=True)
def _descend(where, job_cpu, job_rigid, cpu, cap, max_moves):
    """Moves and swaps off the most loaded host (by CPU ratio) while one lowers it (at most
    ``max_moves``); returns the moves made."""
    H = cpu.size
    load = np.zeros(H)
    rigid = np.zeros(cap.shape)
    for j in range(where.size):
        load[where[j]] += job_cpu[j]
        rigid[where[j]] += job_rigid[j]
    moves = 0
    while moves < max_moves:
        ratio = np.where(cpu > 0, load / np.maximum(cpu, 1e-300), np.inf)
        h = int(np.argmax(ratio))
        if load[h] <= cpu[h] or not np.isfinite(ratio[h]):
            break
        members = np.flatnonzero(where == h)
        if not _move_or_swap(where, job_cpu, job_rigid, cpu, load, rigid, cap, members, h):
            break
        moves += 1
    return moves


def improve_placement(placement, job_cpu, job_rigid, host_cpu, host_cap, host_count, *,
                      max_moves: int = 100_000) -> np.ndarray:
    """Local search for the max-min yield: while the most loaded host (CPU load over CPU, above 1)
    can hand one of its jobs to a host that stays below its ratio, or swap one with a smaller job of
    another host, with the rigid needs fitting, do it (first improvement). The yield never
    decreases. ``O(moves (n_h H + n))`` with ``n_h`` the jobs on the most loaded host."""
    kind, _, cpu, cap = expand_hosts(host_cpu, host_cap, host_count)
    first = np.concatenate(([0], np.cumsum(host_count)[:-1]))
    placement = np.asarray(placement, dtype=np.int64)
    where = first[placement[:, 0]] + placement[:, 1]
    _descend(where, job_cpu.astype(float), np.ascontiguousarray(job_rigid, dtype=float), cpu.astype(float),
             np.ascontiguousarray(cap, dtype=float), max_moves)
    return _as_pairs(where, host_count)
